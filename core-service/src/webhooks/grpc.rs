//! `bm.v1.WebhookService` (console) and `bm.v1.WebhookJobService` (workers).

use std::pin::Pin;
use std::sync::Arc;

use futures::{Stream, StreamExt};
use proto::v1 as pb;
use proto::vocabulary::DeliveryStatus;
use tokio_stream::wrappers::ReceiverStream;
use tonic::{Request, Response, Status};

use super::endpoints::{self, Endpoint, EndpointPatch};
use super::health::{self, Health};
use super::jobs;
use super::{deliveries, events, reports};
use crate::caller::{Manager, Member};
use crate::clock::rfc3339;
use crate::entities::{webhook_attempts, webhook_deliveries};
use crate::state::Core;

pub struct WebhookGrpc {
    pub core: Arc<Core>,
}

pub fn webhook_pb(
    e: Endpoint,
    secret: Option<String>,
    now: chrono::DateTime<chrono::Utc>,
) -> pb::Webhook {
    pb::Webhook {
        previous_secret_expires_at: endpoints::previous_secret_expires_at(&e.webhook, now)
            .map(rfc3339),
        id: e.webhook.id.to_string(),
        url: e.webhook.url,
        events: e.events,
        active: e.webhook.active,
        secret,
        created_at: rfc3339(e.webhook.created_at),
        updated_at: rfc3339(e.webhook.updated_at),
        health: Some(health_pb(e.health)),
    }
}

fn health_pb(health: Health) -> pb::WebhookHealth {
    let row = health.row;
    let failed = row.last_failure_at.is_some();
    pb::WebhookHealth {
        state: health.state.to_string(),
        consecutive_failures: row.consecutive_failures,
        failing_since: row.failing_since.map(rfc3339),
        last_success_at: row.last_success_at.map(rfc3339),
        last_failure_at: row.last_failure_at.map(rfc3339),
        last_failure: failed.then_some(pb::LastFailure {
            http_status: row.last_failure_status,
            error: row.last_failure_error,
        }),
    }
}

fn day_pb(day: health::Day) -> pb::WebhookDay {
    let date = chrono::DateTime::from_timestamp(i64::from(day.day) * 86_400, 0)
        .map(|t| t.date_naive().to_string())
        .unwrap_or_default();
    pb::WebhookDay {
        date,
        attempts: day.attempts,
        succeeded_attempts: day.succeeded_attempts,
        failed_attempts: day.failed_attempts,
        exhausted: day.exhausted,
    }
}

fn delivery_pb(d: webhook_deliveries::Model) -> pb::Delivery {
    let open = matches!(d.status, DeliveryStatus::Pending | DeliveryStatus::Retrying);
    pb::Delivery {
        id: d.id.to_string(),
        webhook_id: d.webhook_id.to_string(),
        event_type: d.event_type.to_string(),
        event_id: d.event_id.to_string(),
        status: d.status.to_string(),
        attempts: d.attempts,
        last_http_status: d.last_http_status,
        last_error: d.last_error,
        next_attempt_at: open
            .then(|| chrono::DateTime::from_timestamp_millis(d.next_attempt_at_ms))
            .flatten()
            .map(rfc3339),
        message_send_id: d.message_id.map(|id| id.to_string()).or_else(|| {
            // Deliveries recorded before the column: from the event's data.
            serde_json::from_str::<serde_json::Value>(&d.data)
                .ok()
                .and_then(|data| data["message_send_id"].as_str().map(str::to_string))
        }),
        created_at: rfc3339(d.created_at),
        updated_at: rfc3339(d.updated_at),
        attempts_log: Vec::new(),
        payload: None,
    }
}

fn attempt_pb(a: webhook_attempts::Model) -> pb::Attempt {
    pb::Attempt {
        attempt: a.attempt,
        at: rfc3339(a.at),
        http_status: a.http_status,
        error: a.error,
        duration_ms: a.duration_ms,
        response_body: a.response_body,
    }
}

#[tonic::async_trait]
impl pb::webhook_service_server::WebhookService for WebhookGrpc {
    async fn list_webhooks(
        &self,
        request: Request<pb::ListWebhooksRequest>,
    ) -> Result<Response<pb::WebhookList>, Status> {
        let list = endpoints::list(&self.core, &Member::of(&self.core, &request).await?).await?;
        Ok(Response::new(pb::WebhookList {
            webhooks: list
                .into_iter()
                .map(|e| webhook_pb(e, None, self.core.clock.now()))
                .collect(),
        }))
    }

    async fn create_webhook(
        &self,
        request: Request<pb::CreateWebhookRequest>,
    ) -> Result<Response<pb::Webhook>, Status> {
        let body = request.get_ref();
        let (endpoint, secret) = endpoints::create(
            &self.core,
            &Manager::of(&self.core, &request).await?,
            &body.url,
            &body.events,
        )
        .await?;
        Ok(Response::new(webhook_pb(
            endpoint,
            Some(secret),
            self.core.clock.now(),
        )))
    }

    async fn update_webhook(
        &self,
        request: Request<pb::UpdateWebhookRequest>,
    ) -> Result<Response<pb::Webhook>, Status> {
        let caller = Manager::of(&self.core, &request).await?;
        let body = request.into_inner();
        let patch = EndpointPatch {
            url: body.url,
            events: body.set_events.then_some(body.events),
            active: body.active,
        };
        let endpoint = endpoints::update(&self.core, &caller, &body.id, patch).await?;
        Ok(Response::new(webhook_pb(
            endpoint,
            None,
            self.core.clock.now(),
        )))
    }

    async fn rotate_secret(
        &self,
        request: Request<pb::RotateSecretRequest>,
    ) -> Result<Response<pb::Webhook>, Status> {
        let body = request.get_ref();
        let endpoint = endpoints::rotate_secret(
            &self.core,
            &Manager::of(&self.core, &request).await?,
            &body.id,
            &body.secret,
            body.grace_seconds,
        )
        .await?;
        Ok(Response::new(webhook_pb(
            endpoint,
            None,
            self.core.clock.now(),
        )))
    }

    async fn get_webhook_stats(
        &self,
        request: Request<pb::WebhookStatsRequest>,
    ) -> Result<Response<pb::WebhookStats>, Status> {
        let body = request.get_ref();
        let days = endpoints::stats(
            &self.core,
            &Member::of(&self.core, &request).await?,
            &body.id,
            body.days,
        )
        .await?;
        Ok(Response::new(pb::WebhookStats {
            days: days.into_iter().map(day_pb).collect(),
        }))
    }

    async fn list_events(
        &self,
        request: Request<pb::ListEventsRequest>,
    ) -> Result<Response<pb::EventList>, Status> {
        let body = request.get_ref();
        let query = events::EventQuery {
            limit: body.limit,
            starting_after: body.starting_after.clone(),
            after: body.after.clone(),
            event_type: body.r#type.clone(),
        };
        let (list, has_more) =
            events::list(&self.core, &Member::of(&self.core, &request).await?, query).await?;
        Ok(Response::new(pb::EventList {
            events: list
                .into_iter()
                .map(|e| pb::Event {
                    id: e.id.to_string(),
                    r#type: e.event_type.to_string(),
                    created_at: rfc3339(e.created_at),
                    data_json: e.data,
                })
                .collect(),
            has_more,
        }))
    }

    async fn delete_webhook(
        &self,
        request: Request<pb::WebhookRequest>,
    ) -> Result<Response<pb::Empty>, Status> {
        endpoints::delete(
            &self.core,
            &Manager::of(&self.core, &request).await?,
            &request.get_ref().id,
        )
        .await?;
        Ok(Response::new(pb::Empty {}))
    }

    async fn test_webhook(
        &self,
        request: Request<pb::WebhookRequest>,
    ) -> Result<Response<pb::Empty>, Status> {
        endpoints::test(
            &self.core,
            &Manager::of(&self.core, &request).await?,
            &request.get_ref().id,
        )
        .await?;
        Ok(Response::new(pb::Empty {}))
    }

    async fn list_deliveries(
        &self,
        request: Request<pb::ListDeliveriesRequest>,
    ) -> Result<Response<pb::DeliveryList>, Status> {
        let body = request.get_ref();
        let query = deliveries::DeliveryQuery {
            limit: body.limit,
            starting_after: body.starting_after.clone(),
            webhook_id: body.webhook_id.clone(),
            status: body.status.clone(),
            event_type: body.event_type.clone(),
            message_send_id: body.message_send_id.clone(),
        };
        let (list, has_more) =
            deliveries::deliveries(&self.core, &Member::of(&self.core, &request).await?, query)
                .await?;
        Ok(Response::new(pb::DeliveryList {
            deliveries: list.into_iter().map(delivery_pb).collect(),
            has_more,
        }))
    }

    async fn retry_delivery(
        &self,
        request: Request<pb::DeliveryRequest>,
    ) -> Result<Response<pb::Delivery>, Status> {
        let delivery = deliveries::retry_delivery(
            &self.core,
            &Manager::of(&self.core, &request).await?,
            &request.get_ref().id,
        )
        .await?;
        Ok(Response::new(delivery_pb(delivery)))
    }

    async fn recover_webhook(
        &self,
        request: Request<pb::RecoverWebhookRequest>,
    ) -> Result<Response<pb::RecoverResult>, Status> {
        let body = request.get_ref();
        let requeued = deliveries::recover(
            &self.core,
            &Manager::of(&self.core, &request).await?,
            &body.id,
            body.since.as_deref(),
        )
        .await?;
        Ok(Response::new(pb::RecoverResult {
            requeued: requeued as i64,
        }))
    }

    async fn get_delivery(
        &self,
        request: Request<pb::DeliveryRequest>,
    ) -> Result<Response<pb::Delivery>, Status> {
        let (delivery, attempts) = deliveries::delivery(
            &self.core,
            &Member::of(&self.core, &request).await?,
            &request.get_ref().id,
        )
        .await?;
        let mut delivery = delivery_pb(delivery);
        delivery.payload = attempts.iter().rev().find_map(|a| a.payload.clone());
        delivery.attempts_log = attempts.into_iter().map(attempt_pb).collect();
        Ok(Response::new(delivery))
    }
}

/// The workers' job stream; every call is guarded at the edge (`caller::internal_guard`).
pub struct JobGrpc {
    pub core: Arc<Core>,
    /// Ends every stream when the core shuts down (a graceful shutdown waits for them).
    pub shutdown: tokio_util::sync::CancellationToken,
}

type JobStream = Pin<Box<dyn Stream<Item = Result<pb::Job, Status>> + Send>>;

#[tonic::async_trait]
impl pb::webhook_job_service_server::WebhookJobService for JobGrpc {
    type JobsStream = JobStream;

    async fn jobs(
        &self,
        request: Request<pb::JobsRequest>,
    ) -> Result<Response<Self::JobsStream>, Status> {
        let body = request.get_ref();
        let resumed = if body.resumed {
            if body.held.len() > proto::MAX_HELD_JOBS {
                return Err(Status::invalid_argument(format!(
                    "held: at most {} delivery ids",
                    proto::MAX_HELD_JOBS
                )));
            }
            let held = body
                .held
                .iter()
                .map(|id| uuid::Uuid::parse_str(id))
                .collect::<Result<Vec<_>, _>>()
                .map_err(|_| Status::invalid_argument("held: a delivery id is not a UUID"))?;
            Some(jobs::Resumed { held })
        } else {
            None
        };
        let rx = jobs::stream(
            self.core.clone(),
            body.worker_id.clone(),
            body.max_in_flight,
            resumed,
            self.shutdown.clone(),
        );
        Ok(Response::new(Box::pin(ReceiverStream::new(rx).map(Ok))))
    }

    async fn report(&self, request: Request<pb::JobReport>) -> Result<Response<pb::Empty>, Status> {
        reports::report(&self.core, request.get_ref()).await?;
        Ok(Response::new(pb::Empty {}))
    }

    async fn report_batch(
        &self,
        request: Request<pb::JobReports>,
    ) -> Result<Response<pb::Empty>, Status> {
        reports::report_many(&self.core, &request.get_ref().reports).await?;
        Ok(Response::new(pb::Empty {}))
    }

    async fn job_streams(
        &self,
        _request: Request<pb::Empty>,
    ) -> Result<Response<pb::JobStreamCount>, Status> {
        let open = self.core.job_credits.streams();
        Ok(Response::new(pb::JobStreamCount {
            open: u32::try_from(open).unwrap_or(u32::MAX),
        }))
    }
}
