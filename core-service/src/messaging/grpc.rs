//! `bm.v1.MessagingService`: proto <-> domain, one service call per RPC.

use std::sync::Arc;

use proto::v1 as pb;
use tonic::{Request, Response, Status};

use super::cancel;
use super::service::{self, SendFields};
use super::usage;
use super::{app_sends, history};
use crate::caller::{AppToken, Console, Member};
use crate::clock::rfc3339;
use crate::entities::messages;
use crate::state::Core;

pub struct MessagingGrpc {
    pub core: Arc<Core>,
}

fn fields(m: pb::SendMessageRequest) -> SendFields {
    SendFields {
        to: m.to,
        category: m.category,
        body: m.body,
        message_content_json: m.message_content_json,
        template_json: m.template_json,
        idempotency_key: m.idempotency_key,
        timing: service::RawTiming {
            send_at: m.send_at,
            expires_at: m.expires_at,
        },
    }
}

fn sent(id: uuid::Uuid) -> Response<pb::SendResult> {
    Response::new(pb::SendResult {
        id: id.to_string(),
        status: "sent".to_string(),
    })
}

fn would_send() -> Response<pb::CheckResult> {
    Response::new(pb::CheckResult { would_send: true })
}

fn record_pb(m: messages::Model) -> pb::MessageRecord {
    pb::MessageRecord {
        id: m.id.to_string(),
        // Neither a broadcast nor a conversation hands the business a number.
        to: (m.broadcast_id.is_none() && m.conversation_id.is_none()).then_some(m.to_phone),
        recipient_user_id: m.recipient_user_id.to_string(),
        category: m.category.to_string(),
        status: m.status.to_string(),
        source: m.source.to_string(),
        app_id: m.app_id.map(|id| id.to_string()),
        created_at: rfc3339(m.created_at),
        completed_at: m.completed_at.map(rfc3339),
        failure_reason: m.failure_reason.map(|reason| reason.to_string()),
        sent_by: m.sender_user_id.map(|id| id.to_string()),
        send_at: m.send_at.map(rfc3339),
        expires_at: m.expires_at.map(rfc3339),
        broadcast_id: m.broadcast_id.map(|id| id.to_string()),
        conversation_id: m.conversation_id.map(|id| id.to_string()),
        message_content_json: super::content::masked_for_business(m.category, m.message_content),
        body: m.body,
        template: m.template.as_deref().and_then(template_pb),
    }
}

/// A message's template reference as stored (`{"id", "name", "version", "locale"}`).
fn template_pb(stored: &str) -> Option<pb::MessageTemplate> {
    let value: serde_json::Value = serde_json::from_str(stored).ok()?;
    Some(pb::MessageTemplate {
        id: value["id"].as_str()?.to_string(),
        name: value["name"].as_str()?.to_string(),
        version: i32::try_from(value["version"].as_i64()?).ok()?,
        locale: value["locale"].as_str()?.to_string(),
    })
}

#[tonic::async_trait]
impl pb::messaging_service_server::MessagingService for MessagingGrpc {
    async fn send_console_message(
        &self,
        request: Request<pb::SendMessageRequest>,
    ) -> Result<Response<pb::SendResult>, Status> {
        let caller = Console::of(&self.core, &request).await?;
        let id = service::send_console(&self.core, &caller, fields(request.into_inner())).await?;
        Ok(sent(id))
    }

    async fn send_app_message(
        &self,
        request: Request<pb::SendAppMessageRequest>,
    ) -> Result<Response<pb::SendResult>, Status> {
        let caller = AppToken::of(&request)?;
        let body = request.into_inner();
        let message = fields(body.message.unwrap_or_default());
        let id =
            app_sends::send_app(&self.core, &caller, &body.business_account_id, message).await?;
        Ok(sent(id))
    }

    async fn send_service_message(
        &self,
        request: Request<pb::SendServiceMessageRequest>,
    ) -> Result<Response<pb::SendResult>, Status> {
        let body = request.get_ref();
        let id = app_sends::send_service(
            &self.core,
            &AppToken::of(&request)?,
            &body.business_phone_number,
            body.to.as_deref(),
            body.body.as_deref(),
            body.idempotency_key.as_deref(),
            service::RawTiming {
                send_at: body.send_at.clone(),
                expires_at: body.expires_at.clone(),
            },
        )
        .await?;
        Ok(sent(id))
    }

    async fn check_console_message(
        &self,
        request: Request<pb::SendMessageRequest>,
    ) -> Result<Response<pb::CheckResult>, Status> {
        let caller = Console::of(&self.core, &request).await?;
        service::check_console(&self.core, &caller, fields(request.into_inner())).await?;
        Ok(would_send())
    }

    async fn check_app_message(
        &self,
        request: Request<pb::SendAppMessageRequest>,
    ) -> Result<Response<pb::CheckResult>, Status> {
        let caller = AppToken::of(&request)?;
        let body = request.into_inner();
        let message = fields(body.message.unwrap_or_default());
        app_sends::check_app(&self.core, &caller, &body.business_account_id, message).await?;
        Ok(would_send())
    }

    async fn check_service_message(
        &self,
        request: Request<pb::SendServiceMessageRequest>,
    ) -> Result<Response<pb::CheckResult>, Status> {
        let body = request.get_ref();
        app_sends::check_service(
            &self.core,
            &AppToken::of(&request)?,
            app_sends::ServiceSend {
                business_phone: &body.business_phone_number,
                to: body.to.as_deref(),
                body: body.body.as_deref(),
                idempotency_key: None,
            },
            service::RawTiming {
                send_at: body.send_at.clone(),
                expires_at: body.expires_at.clone(),
            },
        )
        .await?;
        Ok(would_send())
    }

    async fn list_messages(
        &self,
        request: Request<pb::ListMessagesRequest>,
    ) -> Result<Response<pb::MessageList>, Status> {
        let body = request.get_ref();
        let query = history::HistoryQuery {
            limit: body.limit,
            starting_after: body.starting_after.clone(),
            status: body.status.clone(),
            category: body.category.clone(),
            source: body.source.clone(),
        };
        let (list, has_more) =
            history::history(&self.core, &Member::of(&self.core, &request).await?, query).await?;
        Ok(Response::new(pb::MessageList {
            messages: list.into_iter().map(record_pb).collect(),
            has_more,
        }))
    }

    async fn get_message(
        &self,
        request: Request<pb::GetMessageRequest>,
    ) -> Result<Response<pb::MessageRecord>, Status> {
        let message = history::message(
            &self.core,
            &Member::of(&self.core, &request).await?,
            &request.get_ref().id,
        )
        .await?;
        Ok(Response::new(record_pb(message)))
    }

    async fn cancel_message(
        &self,
        request: Request<pb::GetMessageRequest>,
    ) -> Result<Response<pb::MessageRecord>, Status> {
        let message = cancel::console_cancel(
            &self.core,
            &Member::of(&self.core, &request).await?,
            &request.get_ref().id,
        )
        .await?;
        Ok(Response::new(record_pb(message)))
    }

    async fn cancel_app_message(
        &self,
        request: Request<pb::CancelAppMessageRequest>,
    ) -> Result<Response<pb::MessageRecord>, Status> {
        let body = request.get_ref();
        let message = cancel::app_cancel(
            &self.core,
            &AppToken::of(&request)?,
            &body.business_account_id,
            &body.id,
        )
        .await?;
        Ok(Response::new(record_pb(message)))
    }

    async fn get_usage(
        &self,
        request: Request<pb::GetUsageRequest>,
    ) -> Result<Response<pb::Usage>, Status> {
        let usage = usage::totals(&self.core, &Member::of(&self.core, &request).await?).await?;
        Ok(Response::new(pb::Usage {
            messages: Some(pb::MessageUsage {
                total: usage.total,
                accepted: usage.accepted,
                delivered: usage.delivered,
                failed: usage.failed,
                by_category: usage.by_category.into_iter().collect(),
                scheduled: usage.scheduled,
                canceled: usage.canceled,
            }),
            webhooks: Some(pb::WebhookUsage {
                deliveries: usage.webhooks.deliveries,
                succeeded: usage.webhooks.succeeded,
                failed: usage.webhooks.failed,
                pending: usage.webhooks.pending,
            }),
            followers: Some(pb::FollowerUsage {
                active: usage.followers.active,
                marketing_opt_in: usage.followers.marketing_opt_in,
            }),
        }))
    }

    async fn get_daily_usage(
        &self,
        request: Request<pb::GetDailyUsageRequest>,
    ) -> Result<Response<pb::DailyUsage>, Status> {
        let days = usage::daily(
            &self.core,
            &Member::of(&self.core, &request).await?,
            request.get_ref().days,
        )
        .await?;
        Ok(Response::new(pb::DailyUsage {
            days: days
                .into_iter()
                .map(|day| pb::DayUsage {
                    messages: Some(pb::DayMessages {
                        total: day.messages(),
                        authentication: day.authentication,
                        utility: day.utility,
                        marketing: day.marketing,
                        service: day.service,
                    }),
                    date: day.date,
                    delivered: day.delivered,
                    failed: day.failed,
                    webhooks_succeeded: day.webhooks_succeeded,
                    webhooks_failed: day.webhooks_failed,
                    follows: day.follows,
                    unfollows: day.unfollows,
                    received: day.received,
                })
                .collect(),
        }))
    }
}
