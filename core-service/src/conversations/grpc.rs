//! `bm.v1.UserConversationService` (a user's side) and `bm.v1.ConversationService` (a
//! business's side, console or app token): proto <-> domain, one call per RPC.

use std::sync::Arc;

use proto::v1 as pb;
use proto::vocabulary::Direction;
use tonic::{Request, Response, Status};

use super::service::{self, Acting, BusinessView, Credential, Entry, Mark};
use crate::caller::{AppToken, Console, User, UserToken};
use crate::clock::rfc3339;
use crate::error::AppResult;
use crate::messaging::service::{Answer, Intent};
use crate::state::Core;

pub struct UserConversationGrpc {
    pub core: Arc<Core>,
}

pub struct ConversationGrpc {
    pub core: Arc<Core>,
}

fn entry_pb(e: Entry) -> pb::ThreadEntry {
    pb::ThreadEntry {
        id: e.id.to_string(),
        direction: if e.inbound {
            Direction::Inbound
        } else {
            Direction::Outbound
        }
        .to_string(),
        at: rfc3339(e.at),
        category: e.category.map(|c| c.to_string()),
        body: e.body,
        message_content_json: e.message_content,
        status: e.status.map(|s| s.to_string()),
        reply_to: e.reply_to.map(|id| id.to_string()),
        sequence: e.sequence.map(i64::from),
        conversation_id: e.conversation_id.map(|id| id.to_string()),
        read_at: e.read_at.map(rfc3339),
    }
}

fn page_pb((entries, has_more): service::Page) -> pb::ThreadPage {
    pb::ThreadPage {
        messages: entries.into_iter().map(entry_pb).collect(),
        has_more,
    }
}

fn mark_pb(mark: Mark) -> pb::ReadMark {
    pb::ReadMark {
        read_up_to: mark.read_up_to.map(|id| id.to_string()),
        read_at: mark.read_at.map(rfc3339),
    }
}

pub fn conversation_pb(v: BusinessView) -> pb::Conversation {
    let c = v.conversation;
    pb::Conversation {
        id: c.id.to_string(),
        user_id: c.user_id.to_string(),
        display_name: v.display_name,
        label: c.label,
        follows: v.follows,
        marketing_opt_in: v.marketing_opt_in,
        status: c.status.to_string(),
        blocked: c.blocked,
        window_expires_at: rfc3339(v.window_expires_at),
        last_inbound_at: rfc3339(c.last_inbound_at),
        last_message_at: rfc3339(c.last_message_at),
        unread: v.unread,
        assigned_to: c.assigned_to.map(|id| id.to_string()),
    }
}

#[tonic::async_trait]
impl pb::user_conversation_service_server::UserConversationService for UserConversationGrpc {
    async fn send_user_message(
        &self,
        request: Request<pb::UserMessageRequest>,
    ) -> Result<Response<pb::UserMessageResult>, Status> {
        let token = UserToken::of(&self.core, &request)?;
        let body = request.into_inner();
        let message = service::write(
            &self.core,
            &token,
            service::UserMessage {
                business_account_id: body.business_account_id,
                text: body.text,
                reply_to: body.reply_to,
                client_message_id: body.client_message_id,
            },
        )
        .await?;
        Ok(Response::new(pb::UserMessageResult {
            id: message.id.to_string(),
            conversation_id: message.conversation_id.to_string(),
            sequence: i64::from(message.sequence),
            at: rfc3339(message.received_at),
            window_expires_at: rfc3339(service::window_expires_at(&self.core, message.received_at)),
        }))
    }

    async fn list_my_conversations(
        &self,
        request: Request<pb::ListMyConversationsRequest>,
    ) -> Result<Response<pb::MyConversationList>, Status> {
        let user = User::of(&self.core, &request).await?;
        let body = request.get_ref();
        let (rows, has_more) = service::my_conversations(
            &self.core,
            &user,
            body.limit,
            body.starting_after.as_deref(),
        )
        .await?;
        Ok(Response::new(pb::MyConversationList {
            conversations: rows
                .into_iter()
                .map(|c| pb::MyConversation {
                    business_account_id: c.business_id.to_string(),
                    business_name: c.business_name,
                    last_message_at: rfc3339(c.last_message_at),
                    unread: c.unread,
                    window_expires_at: c.window_expires_at.map(rfc3339),
                })
                .collect(),
            has_more,
        }))
    }

    async fn list_user_thread(
        &self,
        request: Request<pb::UserThreadRequest>,
    ) -> Result<Response<pb::ThreadPage>, Status> {
        let user = User::of(&self.core, &request).await?;
        let body = request.get_ref();
        let page = service::user_thread(
            &self.core,
            &user,
            &body.business_account_id,
            body.limit,
            body.starting_after.as_deref(),
        )
        .await?;
        Ok(Response::new(page_pb(page)))
    }

    async fn mark_user_read(
        &self,
        request: Request<pb::UserReadRequest>,
    ) -> Result<Response<pb::ReadMark>, Status> {
        let user = User::of(&self.core, &request).await?;
        let body = request.get_ref();
        let mark = service::user_read(
            &self.core,
            &user,
            &body.business_account_id,
            body.up_to.as_deref(),
        )
        .await?;
        Ok(Response::new(mark_pb(mark)))
    }
}

impl ConversationGrpc {
    /// The business a call acts for: an app token's when the request names the path's business
    /// (the `/v1` twins), else the console user's.
    async fn acting<T>(
        &self,
        request: &Request<T>,
        business: Option<&String>,
    ) -> AppResult<Acting> {
        let credential = match business {
            Some(business) => Credential::App(AppToken::of(request)?, business.clone()),
            None => Credential::Console(Console::of(&self.core, request).await?),
        };
        Acting::of(&self.core, credential).await
    }

    async fn send(
        &self,
        request: Request<pb::ConversationSendRequest>,
        intent: Intent,
    ) -> AppResult<Answer> {
        let acting = self
            .acting(&request, request.get_ref().business_account_id.as_ref())
            .await?;
        let body = request.into_inner();
        let reply = service::Reply {
            text: body.text,
            reply_to: body.reply_to,
            category: body.category,
            body: body.body,
            message_content_json: body.message_content_json,
            template_json: body.template_json,
            idempotency_key: body.idempotency_key,
            send_at: body.send_at,
            expires_at: body.expires_at,
        };
        service::send(&self.core, &acting, &body.id, reply, intent).await
    }
}

fn patch(patch: Option<pb::StringPatch>) -> Option<Option<String>> {
    patch.map(|p| p.value)
}

#[tonic::async_trait]
impl pb::conversation_service_server::ConversationService for ConversationGrpc {
    async fn list_conversations(
        &self,
        request: Request<pb::ListConversationsRequest>,
    ) -> Result<Response<pb::ConversationList>, Status> {
        let acting = self
            .acting(&request, request.get_ref().business_account_id.as_ref())
            .await?;
        let body = request.into_inner();
        let (rows, has_more, unread) = service::list(
            &self.core,
            &acting,
            service::ListQuery {
                limit: body.limit,
                starting_after: body.starting_after,
                status: body.status,
                window: body.window,
                unread: body.unread,
                assigned_to: body.assigned_to,
            },
        )
        .await?;
        Ok(Response::new(pb::ConversationList {
            conversations: rows.into_iter().map(conversation_pb).collect(),
            has_more,
            unread_conversations: unread,
        }))
    }

    async fn get_conversation(
        &self,
        request: Request<pb::ConversationRequest>,
    ) -> Result<Response<pb::Conversation>, Status> {
        let body = request.get_ref();
        let acting = self
            .acting(&request, body.business_account_id.as_ref())
            .await?;
        let view = service::get(&self.core, &acting, &body.id).await?;
        Ok(Response::new(conversation_pb(view)))
    }

    async fn list_conversation_messages(
        &self,
        request: Request<pb::ConversationMessagesRequest>,
    ) -> Result<Response<pb::ThreadPage>, Status> {
        let body = request.get_ref();
        let acting = self
            .acting(&request, body.business_account_id.as_ref())
            .await?;
        let page = service::thread(
            &self.core,
            &acting,
            &body.id,
            body.limit,
            body.starting_after.as_deref(),
        )
        .await?;
        Ok(Response::new(page_pb(page)))
    }

    async fn send_conversation_message(
        &self,
        request: Request<pb::ConversationSendRequest>,
    ) -> Result<Response<pb::SendResult>, Status> {
        let id = self.send(request, Intent::Send).await?.id()?;
        Ok(Response::new(pb::SendResult {
            id: id.to_string(),
            status: proto::vocabulary::SendStatus::Sent.to_string(),
        }))
    }

    async fn check_conversation_message(
        &self,
        request: Request<pb::ConversationSendRequest>,
    ) -> Result<Response<pb::CheckResult>, Status> {
        self.send(request, Intent::Check).await?;
        Ok(Response::new(pb::CheckResult { would_send: true }))
    }

    async fn mark_conversation_read(
        &self,
        request: Request<pb::ConversationReadRequest>,
    ) -> Result<Response<pb::ReadMark>, Status> {
        let body = request.get_ref();
        let acting = self
            .acting(&request, body.business_account_id.as_ref())
            .await?;
        let mark =
            service::business_read(&self.core, &acting, &body.id, body.up_to.as_deref()).await?;
        Ok(Response::new(mark_pb(mark)))
    }

    async fn update_conversation(
        &self,
        request: Request<pb::UpdateConversationRequest>,
    ) -> Result<Response<pb::Conversation>, Status> {
        let acting = self
            .acting(&request, request.get_ref().business_account_id.as_ref())
            .await?;
        let body = request.into_inner();
        let view = service::update(
            &self.core,
            &acting,
            &body.id,
            service::Update {
                status: body.status,
                assigned_to: patch(body.assigned_to),
                label: patch(body.label),
            },
        )
        .await?;
        Ok(Response::new(conversation_pb(view)))
    }

    async fn block_conversation(
        &self,
        request: Request<pb::ConversationRequest>,
    ) -> Result<Response<pb::Conversation>, Status> {
        let body = request.get_ref();
        let acting = self
            .acting(&request, body.business_account_id.as_ref())
            .await?;
        let view = service::set_blocked(&self.core, &acting, &body.id, true).await?;
        Ok(Response::new(conversation_pb(view)))
    }

    async fn unblock_conversation(
        &self,
        request: Request<pb::ConversationRequest>,
    ) -> Result<Response<pb::Conversation>, Status> {
        let body = request.get_ref();
        let acting = self
            .acting(&request, body.business_account_id.as_ref())
            .await?;
        let view = service::set_blocked(&self.core, &acting, &body.id, false).await?;
        Ok(Response::new(conversation_pb(view)))
    }
}
