//! The history: a business's messages, one message, and canceling a scheduled one.

use super::*;

/// One message of the history.
#[derive(Debug, Serialize, ToSchema)]
pub struct MessageRecord {
    #[schema(format = Uuid)]
    pub id: String,
    /// Null for a broadcast message and for a conversation message: neither hands the business
    /// a number.
    #[schema(pattern = r"^\+[1-9][0-9]{1,14}$")]
    pub to: Option<String>,
    #[schema(format = Uuid)]
    pub recipient_user_id: String,
    #[schema(value_type = crate::schema::RecordCategory)]
    pub category: String,
    #[schema(value_type = crate::schema::MessageStatus)]
    pub status: String,
    #[schema(value_type = crate::schema::MessageSource)]
    pub source: String,
    #[schema(format = Uuid)]
    pub app_id: Option<String>,
    #[schema(format = DateTime)]
    pub created_at: String,
    #[schema(format = DateTime)]
    pub completed_at: Option<String>,
    /// Set when `status` is `failed`: `recipient_inactive` (the recipient's account is not
    /// active), `provider_rejected` (the delivery provider refused it), `provider_unavailable`
    /// (the provider kept answering 408, 429 or 5xx), `provider_timeout` or
    /// `provider_unreachable`.
    #[schema(value_type = Option<crate::schema::FailureReason>)]
    pub failure_reason: Option<String>,
    /// The team member's user id for a console send; null for app, service and broadcast
    /// messages.
    #[schema(format = Uuid)]
    pub sent_by: Option<String>,
    /// As sent; null when not given.
    #[schema(format = DateTime)]
    pub send_at: Option<String>,
    #[schema(format = DateTime)]
    pub expires_at: Option<String>,
    /// The broadcast it belongs to; null for single sends.
    #[schema(format = Uuid)]
    pub broadcast_id: Option<String>,
    /// The conversation it was sent in; null elsewhere.
    #[schema(format = Uuid)]
    pub conversation_id: Option<String>,
    /// The text sent (utility, service and plain marketing messages).
    pub body: Option<String>,
    /// The structured content sent; an authentication message's `code` shows as `"******"`.
    #[schema(value_type = Option<Object>)]
    pub message_content: Option<serde_json::Value>,
    /// What a templated message was rendered from; null otherwise.
    pub template: Option<MessageTemplateRef>,
}

impl From<pb::MessageRecord> for MessageRecord {
    fn from(m: pb::MessageRecord) -> Self {
        MessageRecord {
            id: m.id,
            to: m.to,
            recipient_user_id: m.recipient_user_id,
            category: m.category,
            status: m.status,
            source: m.source,
            app_id: m.app_id,
            created_at: m.created_at,
            completed_at: m.completed_at,
            failure_reason: m.failure_reason,
            sent_by: m.sent_by,
            send_at: m.send_at,
            expires_at: m.expires_at,
            broadcast_id: m.broadcast_id,
            conversation_id: m.conversation_id,
            body: m.body,
            message_content: m
                .message_content_json
                .and_then(|json| serde_json::from_str(&json).ok()),
            template: m.template.map(Into::into),
        }
    }
}

#[derive(Debug, Serialize, ToSchema)]
pub struct MessageHistory {
    pub messages: Vec<MessageRecord>,
    /// Whether older messages follow: ask again with `starting_after` = the last `id`.
    pub has_more: bool,
}

/// The newest messages first, a page at a time.
#[utoipa::path(get, path = "/business/messages", operation_id = "list_messages", tag = "messages",
    security(("bearer" = [])),
    params(
        ("limit" = Option<i64>, Query, minimum = 1, maximum = 200, description = "Default 50"),
        ("starting_after" = Option<String>, Query, format = Uuid,
            description = "The `id` of the last message of the previous page"),
        ("status" = Option<crate::schema::MessageStatus>, Query),
        ("category" = Option<crate::schema::RecordCategory>, Query),
        ("source" = Option<crate::schema::MessageSource>, Query),
    ),
    responses(
        (status = 200, description = "The history", body = Envelope<MessageHistory>),
    ))]
pub async fn history(
    State(state): State<AppState>,
    ctx: CallContext,
    RawQuery(query): RawQuery,
) -> ApiResult {
    use crate::extract::{limit_query, query_param};
    let query = query.as_deref();
    let request = pb::ListMessagesRequest {
        limit: limit_query(query)?,
        starting_after: query_param(query, "starting_after"),
        status: query_param(query, "status"),
        category: query_param(query, "category"),
        source: query_param(query, "source"),
    };
    let list = state
        .messaging
        .clone()
        .list_messages(ctx.request(request))
        .await?
        .into_inner();
    Ok(ok(
        StatusCode::OK,
        MessageHistory {
            messages: list.messages.into_iter().map(MessageRecord::from).collect(),
            has_more: list.has_more,
        },
    ))
}

/// One message of the business, with its outcome.
#[utoipa::path(get, path = "/business/messages/{id}", tag = "messages",
    security(("bearer" = [])),
    params(("id" = String, Path, format = Uuid)),
    responses(
        (status = 200, description = "The message", body = Envelope<MessageRecord>),
    ))]
pub async fn get_message(
    State(state): State<AppState>,
    ctx: CallContext,
    PathParam(id): PathParam,
) -> ApiResult {
    let request = pb::GetMessageRequest {
        id: uuid_path(&id)?,
    };
    let message = state
        .messaging
        .clone()
        .get_message(ctx.request(request))
        .await?
        .into_inner();
    Ok(ok(StatusCode::OK, MessageRecord::from(message)))
}

/// Cancel a `scheduled` message: it becomes `canceled` (`failure_reason` `canceled`). The
/// owner or an admin may cancel any; a member only the ones they sent.
#[utoipa::path(post, path = "/business/messages/{id}/cancel", operation_id = "cancel_message", tag = "messages",
    security(("bearer" = [])),
    params(("id" = String, Path, format = Uuid)),
    responses(
        (status = 200, description = "The message, now `canceled`", body = Envelope<MessageRecord>),
    ))]
pub async fn cancel_console(
    State(state): State<AppState>,
    ctx: CallContext,
    PathParam(id): PathParam,
) -> ApiResult {
    let request = pb::GetMessageRequest {
        id: uuid_path(&id)?,
    };
    let message = state
        .messaging
        .clone()
        .cancel_message(ctx.request(request))
        .await?
        .into_inner();
    Ok(ok(StatusCode::OK, MessageRecord::from(message)))
}

/// Cancel a `scheduled` message this business sent with an app token (any scope). A message
/// that emits events ends in one `message.failed` with `reason` `canceled`.
#[utoipa::path(post, path = "/v1/{businessAccountId}/messages/{id}/cancel", operation_id = "cancel_app_message", tag = "messages",
    security(("app_token" = [])),
    params(
        ("businessAccountId" = String, Path, format = Uuid),
        ("id" = String, Path, format = Uuid),
    ),
    responses(
        (status = 200, description = "The message, now `canceled`", body = Envelope<MessageRecord>),
    ))]
pub async fn cancel_app(
    State(state): State<AppState>,
    ctx: CallContext,
    crate::extract::PathParams(business_account_id, id): crate::extract::PathParams,
) -> ApiResult {
    let request = pb::CancelAppMessageRequest {
        business_account_id: uuid_path(&business_account_id)?,
        id: uuid_path(&id)?,
    };
    let message = state
        .messaging
        .clone()
        .cancel_app_message(ctx.request(request))
        .await?
        .into_inner();
    Ok(ok(StatusCode::OK, MessageRecord::from(message)))
}
