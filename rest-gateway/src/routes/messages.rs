//! Sends (console, app token, service), message history and usage.

use std::collections::BTreeMap;

use axum::extract::{RawQuery, State};
use axum::http::{HeaderMap, StatusCode};
use proto::ErrorCode;
use proto::v1 as pb;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use utoipa::ToSchema;

use crate::envelope::{ApiError, ApiResult, Envelope, Null, ok, reply};
use crate::extract::{CallContext, JsonBody, PathParam, idempotency_key, uuid_path};
use crate::state::AppState;

/// A category message.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct MessageInput {
    /// Recipient phone number (E.164).
    #[schema(value_type = String)]
    pub to: Option<Value>,
    /// `authentication`, `utility` or `marketing`.
    #[schema(value_type = String)]
    pub category: Option<Value>,
    /// Plain text (at most 4096 characters): required for utility, optional for marketing.
    #[schema(value_type = Option<String>)]
    pub body: Option<Value>,
    /// Structured content: `{"code"}` for authentication; `{"text","title"?,"image_url"?,"buttons"?}`
    /// for marketing. Exclusive with `body`.
    #[schema(value_type = Option<Object>)]
    pub message_content: Option<Value>,
    /// RFC 3339: when to hand it out (at most 30 days ahead; past or present means now).
    #[schema(value_type = Option<String>, format = DateTime)]
    pub send_at: Option<Value>,
    /// RFC 3339: never handed out after this (after `send_at`, or after now; at most 30 days
    /// ahead).
    #[schema(value_type = Option<String>, format = DateTime)]
    pub expires_at: Option<Value>,
}

/// A free-form service message.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct ServiceMessageInput {
    /// The follower's phone number (E.164).
    #[schema(value_type = String, pattern = r"^\+[1-9][0-9]{1,14}$", example = "+14155550124")]
    pub to: Option<Value>,
    /// Plain text, 1 to 4096 characters.
    #[schema(value_type = String, min_length = 1, max_length = 4096, example = "Your table is ready.")]
    pub body: Option<Value>,
    /// RFC 3339: when to hand it out (at most 30 days ahead; past or present means now).
    #[schema(value_type = Option<String>, format = DateTime)]
    pub send_at: Option<Value>,
    /// RFC 3339: never handed out after this (after `send_at`, or after now; at most 30 days
    /// ahead).
    #[schema(value_type = Option<String>, format = DateTime)]
    pub expires_at: Option<Value>,
}

/// A send: one shape per category.
// The handler reads [`MessageInput`], and the core names what is wrong.
#[derive(Serialize, ToSchema)]
#[serde(untagged)]
pub enum SendMessageBody {
    Authentication(AuthenticationMessage),
    Utility(UtilityMessage),
    MarketingText(MarketingTextMessage),
    MarketingRich(MarketingRichMessage),
}

#[derive(Serialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum AuthenticationCategory {
    Authentication,
}

#[derive(Serialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum UtilityCategory {
    Utility,
}

#[derive(Serialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum MarketingCategory {
    Marketing,
}

/// A one-time code (app tokens only: the console cannot send `authentication`).
#[derive(Serialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct AuthenticationMessage {
    /// The follower's phone number (E.164).
    #[schema(pattern = r"^\+[1-9][0-9]{1,14}$", example = "+14155550124")]
    pub to: String,
    pub category: AuthenticationCategory,
    pub message_content: AuthenticationContent,
    /// Absent or null: authentication messages carry only their code.
    pub body: Option<Null>,
    /// When to hand it out (RFC 3339, at most 30 days ahead; past or present means now). Until
    /// then the message is `scheduled`, and consent and the business are checked again then.
    #[schema(format = DateTime, example = "2026-12-01T09:00:00Z")]
    pub send_at: Option<String>,
    /// Never handed out after this (RFC 3339; after `send_at`, or after now without it; at most
    /// 30 days ahead): it then fails with `failure_reason` `expired`.
    #[schema(format = DateTime)]
    pub expires_at: Option<String>,
}

#[derive(Serialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct AuthenticationContent {
    /// 4 to 8 digits.
    #[schema(pattern = "^[0-9]{4,8}$", example = "482913")]
    pub code: String,
}

/// A transactional notice: plain text.
#[derive(Serialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct UtilityMessage {
    #[schema(pattern = r"^\+[1-9][0-9]{1,14}$", example = "+14155550124")]
    pub to: String,
    pub category: UtilityCategory,
    /// 1 to 4096 characters.
    #[schema(min_length = 1, max_length = 4096, example = "Your order has shipped.")]
    pub body: String,
    /// Absent or null: utility messages are plain text.
    pub message_content: Option<Null>,
    /// When to hand it out (RFC 3339, at most 30 days ahead; past or present means now). Until
    /// then the message is `scheduled`, and consent and the business are checked again then.
    #[schema(format = DateTime, example = "2026-12-01T09:00:00Z")]
    pub send_at: Option<String>,
    /// Never handed out after this (RFC 3339; after `send_at`, or after now without it; at most
    /// 30 days ahead): it then fails with `failure_reason` `expired`.
    #[schema(format = DateTime)]
    pub expires_at: Option<String>,
}

/// A promotion to a follower who opted in, as plain text.
#[derive(Serialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct MarketingTextMessage {
    #[schema(pattern = r"^\+[1-9][0-9]{1,14}$", example = "+14155550124")]
    pub to: String,
    pub category: MarketingCategory,
    /// 1 to 4096 characters.
    #[schema(min_length = 1, max_length = 4096, example = "20% off this weekend")]
    pub body: String,
    /// Absent or null: `body` and `message_content` are exclusive.
    pub message_content: Option<Null>,
    /// When to hand it out (RFC 3339, at most 30 days ahead; past or present means now). Until
    /// then the message is `scheduled`, and consent and the business are checked again then.
    #[schema(format = DateTime, example = "2026-12-01T09:00:00Z")]
    pub send_at: Option<String>,
    /// Never handed out after this (RFC 3339; after `send_at`, or after now without it; at most
    /// 30 days ahead): it then fails with `failure_reason` `expired`.
    #[schema(format = DateTime)]
    pub expires_at: Option<String>,
}

/// A promotion to a follower who opted in, as structured content.
#[derive(Serialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct MarketingRichMessage {
    #[schema(pattern = r"^\+[1-9][0-9]{1,14}$", example = "+14155550124")]
    pub to: String,
    pub category: MarketingCategory,
    pub message_content: MarketingContent,
    /// Absent or null: `body` and `message_content` are exclusive.
    pub body: Option<Null>,
    /// When to hand it out (RFC 3339, at most 30 days ahead; past or present means now). Until
    /// then the message is `scheduled`, and consent and the business are checked again then.
    #[schema(format = DateTime, example = "2026-12-01T09:00:00Z")]
    pub send_at: Option<String>,
    /// Never handed out after this (RFC 3339; after `send_at`, or after now without it; at most
    /// 30 days ahead): it then fails with `failure_reason` `expired`.
    #[schema(format = DateTime)]
    pub expires_at: Option<String>,
}

#[derive(Serialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct MarketingContent {
    /// 1 to 4096 characters, not only spaces.
    #[schema(
        min_length = 1,
        max_length = 4096,
        pattern = r"\S",
        example = "20% off this weekend"
    )]
    pub text: String,
    /// 1 to 200 characters, not only spaces.
    #[schema(value_type = String, required = false, min_length = 1, max_length = 200, pattern = r"\S")]
    pub title: Option<String>,
    /// An https URL.
    #[schema(value_type = String, required = false, format = "uri", max_length = 2048, pattern = "^[Hh][Tt][Tt][Pp][Ss]://")]
    pub image_url: Option<String>,
    /// Up to 3.
    #[schema(value_type = Vec<MarketingButton>, required = false, max_items = 3)]
    pub buttons: Option<Vec<MarketingButton>>,
}

#[derive(Serialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct MarketingButton {
    /// 1 to 40 characters, not only spaces.
    #[schema(min_length = 1, max_length = 40, pattern = r"\S")]
    pub label: String,
    /// An https URL.
    #[schema(
        format = "uri",
        max_length = 2048,
        pattern = "^[Hh][Tt][Tt][Pp][Ss]://"
    )]
    pub url: String,
}

/// The accepted send: `status` is always `sent` (the outcome arrives later).
#[derive(Debug, Serialize, ToSchema)]
pub struct SendResult {
    #[schema(format = Uuid)]
    pub id: String,
    #[schema(value_type = crate::schema::SendStatus)]
    pub status: String,
}

/// A string field, or another JSON value's text (the core then names what is wrong with it).
pub(crate) fn text(value: Option<Value>) -> Option<String> {
    match value {
        None | Some(Value::Null) => None,
        Some(Value::String(s)) => Some(s),
        Some(other) => Some(other.to_string()),
    }
}

/// A field that must be a JSON string when present.
pub(crate) fn string_field(value: Option<Value>, field: &str) -> Result<Option<String>, ApiError> {
    match value {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) => Ok(Some(s)),
        Some(_) => Err(ApiError::new(
            ErrorCode::InvalidRequest,
            format!("{field}: must be a string"),
        )),
    }
}

fn send_request(
    input: MessageInput,
    headers: &HeaderMap,
) -> Result<pb::SendMessageRequest, ApiError> {
    Ok(pb::SendMessageRequest {
        to: text(input.to),
        category: text(input.category),
        body: string_field(input.body, "body")?,
        message_content_json: input
            .message_content
            .filter(|v| !v.is_null())
            .map(|v| v.to_string()),
        idempotency_key: idempotency_key(headers),
        send_at: string_field(input.send_at, "send_at")?,
        expires_at: string_field(input.expires_at, "expires_at")?,
    })
}

fn sent(result: pb::SendResult) -> axum::response::Response {
    reply(
        StatusCode::OK,
        "message_sent",
        SendResult {
            id: result.id,
            status: result.status,
        },
    )
}

/// Send from the console (any team role). `authentication` is reserved for app tokens.
#[utoipa::path(post, path = "/business/messages", operation_id = "send_message", tag = "messages",
    security(("bearer" = [])),
    params(("Idempotency-Key" = Option<String>, Header, min_length = 1, max_length = 255, pattern = "^[!-~]+$", description = "1 to 255 visible ASCII characters; a retry with the same key and body answers the first result for 24 h")),
    request_body = SendMessageBody,
    responses(
        (status = 200, description = "Accepted (`message_sent`)", body = Envelope<SendResult>),
    ))]
pub async fn send_console(
    State(state): State<AppState>,
    ctx: CallContext,
    headers: HeaderMap,
    JsonBody(input): JsonBody<MessageInput>,
) -> ApiResult {
    let message = send_request(input, &headers)?;
    let result = state
        .messaging
        .clone()
        .send_console_message(ctx.request(message))
        .await?;
    Ok(sent(result.into_inner()))
}

/// Send with a developer-app token to the app's own business.
#[utoipa::path(post, path = "/v1/{businessAccountId}/messages", operation_id = "send_app_message", tag = "messages",
    security(("app_token" = [])),
    params(
        ("businessAccountId" = String, Path, format = Uuid),
        ("Idempotency-Key" = Option<String>, Header, min_length = 1, max_length = 255, pattern = "^[!-~]+$", description = "1 to 255 visible ASCII characters; a retry with the same key and body answers the first result for 24 h"),
    ),
    request_body = SendMessageBody,
    responses(
        (status = 200, description = "Accepted (`message_sent`)", body = Envelope<SendResult>),
    ))]
pub async fn send_app(
    State(state): State<AppState>,
    ctx: CallContext,
    headers: HeaderMap,
    PathParam(business_account_id): PathParam,
    JsonBody(input): JsonBody<MessageInput>,
) -> ApiResult {
    let message = app_request(&business_account_id, input, &headers)?;
    let result = state
        .messaging
        .clone()
        .send_app_message(ctx.request(message))
        .await?;
    Ok(sent(result.into_inner()))
}

/// Send free-form text to a follower; one per recipient per minute of effective time.
///
/// The effective time is `send_at`, or the accept time without one. A send is refused (429
/// `business_send_rate_limited`) when another service message of the business to that
/// recipient, not canceled, is less than 60 s away; `Retry-After` runs until that other time
/// plus 60 s.
#[utoipa::path(post, path = "/v1/service/{phoneNumber}/messages", operation_id = "send_service_message", tag = "messages",
    security(("app_token" = [])),
    params(
        ("phoneNumber" = String, Path, description = "The business's own number, with its `+` (raw or `%2B`)"),
        ("Idempotency-Key" = Option<String>, Header, min_length = 1, max_length = 255, pattern = "^[!-~]+$", description = "1 to 255 visible ASCII characters; a retry with the same key and body answers the first result for 24 h"),
    ),
    request_body = ServiceMessageInput,
    responses(
        (status = 200, description = "Accepted (`message_sent`)", body = Envelope<SendResult>),
    ))]
pub async fn send_service(
    State(state): State<AppState>,
    ctx: CallContext,
    headers: HeaderMap,
    PathParam(phone_number): PathParam,
    JsonBody(input): JsonBody<ServiceMessageInput>,
) -> ApiResult {
    let message = service_request(phone_number, input, &headers)?;
    let result = state
        .messaging
        .clone()
        .send_service_message(ctx.request(message))
        .await?;
    Ok(sent(result.into_inner()))
}

/// The gRPC request of an app-token send (or its check, with no headers).
fn app_request(
    business_account_id: &str,
    input: MessageInput,
    headers: &HeaderMap,
) -> Result<pb::SendAppMessageRequest, ApiError> {
    Ok(pb::SendAppMessageRequest {
        business_account_id: uuid_path(business_account_id)?,
        message: Some(send_request(input, headers)?),
    })
}

/// The gRPC request of a service send (or its check, with no headers).
fn service_request(
    business_phone_number: String,
    input: ServiceMessageInput,
    headers: &HeaderMap,
) -> Result<pb::SendServiceMessageRequest, ApiError> {
    Ok(pb::SendServiceMessageRequest {
        business_phone_number,
        to: text(input.to),
        body: string_field(input.body, "body")?,
        idempotency_key: idempotency_key(headers),
        send_at: string_field(input.send_at, "send_at")?,
        expires_at: string_field(input.expires_at, "expires_at")?,
    })
}

/// A send check's answer: the send would be accepted now.
#[derive(Debug, Serialize, ToSchema)]
pub struct CheckResult {
    /// Always true (a send that would be refused answers its error instead).
    pub would_send: bool,
}

fn checked(result: pb::CheckResult) -> axum::response::Response {
    ok(
        StatusCode::OK,
        CheckResult {
            would_send: result.would_send,
        },
    )
}

/// Check a console send: what `POST /business/messages` with this body would answer now,
/// except that success is `{"would_send": true}`. Nothing is stored and no limit is spent; an
/// Idempotency-Key is ignored.
#[utoipa::path(post, path = "/business/messages/check", operation_id = "check_message", tag = "messages",
    security(("bearer" = [])),
    request_body = SendMessageBody,
    responses(
        (status = 200, description = "The send would be accepted", body = Envelope<CheckResult>),
    ))]
pub async fn check_console(
    State(state): State<AppState>,
    ctx: CallContext,
    JsonBody(input): JsonBody<MessageInput>,
) -> ApiResult {
    let message = send_request(input, &HeaderMap::new())?;
    let result = state
        .messaging
        .clone()
        .check_console_message(ctx.request(message))
        .await?;
    Ok(checked(result.into_inner()))
}

/// Check an app-token send: what `POST /v1/{businessAccountId}/messages` with this body would
/// answer now, except that success is `{"would_send": true}`. Nothing is stored and no limit is
/// spent; an Idempotency-Key is ignored.
#[utoipa::path(post, path = "/v1/{businessAccountId}/messages/check", operation_id = "check_app_message", tag = "messages",
    security(("app_token" = [])),
    params(("businessAccountId" = String, Path, format = Uuid)),
    request_body = SendMessageBody,
    responses(
        (status = 200, description = "The send would be accepted", body = Envelope<CheckResult>),
    ))]
pub async fn check_app(
    State(state): State<AppState>,
    ctx: CallContext,
    PathParam(business_account_id): PathParam,
    JsonBody(input): JsonBody<MessageInput>,
) -> ApiResult {
    let message = app_request(&business_account_id, input, &HeaderMap::new())?;
    let result = state
        .messaging
        .clone()
        .check_app_message(ctx.request(message))
        .await?;
    Ok(checked(result.into_inner()))
}

/// Check a service send: what `POST /v1/service/{phoneNumber}/messages` with this body would
/// answer now (the per-recipient minute included), except that success is
/// `{"would_send": true}`. Nothing is stored and no limit is spent; an Idempotency-Key is
/// ignored.
#[utoipa::path(post, path = "/v1/service/{phoneNumber}/messages/check", operation_id = "check_service_message", tag = "messages",
    security(("app_token" = [])),
    params(
        ("phoneNumber" = String, Path, description = "The business's own number, with its `+` (raw or `%2B`)"),
    ),
    request_body = ServiceMessageInput,
    responses(
        (status = 200, description = "The send would be accepted", body = Envelope<CheckResult>),
    ))]
pub async fn check_service(
    State(state): State<AppState>,
    ctx: CallContext,
    PathParam(phone_number): PathParam,
    JsonBody(input): JsonBody<ServiceMessageInput>,
) -> ApiResult {
    let message = service_request(phone_number, input, &HeaderMap::new())?;
    let result = state
        .messaging
        .clone()
        .check_service_message(ctx.request(message))
        .await?;
    Ok(checked(result.into_inner()))
}

/// One message of the history.
#[derive(Debug, Serialize, ToSchema)]
pub struct MessageRecord {
    #[schema(format = Uuid)]
    pub id: String,
    /// Null for a broadcast message: a broadcast never hands the business its followers'
    /// numbers.
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

/// Kept messages: `total` counts every status, `failed` excludes `canceled`.
#[derive(Debug, Serialize, ToSchema)]
pub struct MessageTotals {
    pub total: i64,
    pub accepted: i64,
    pub delivered: i64,
    pub failed: i64,
    pub scheduled: i64,
    pub canceled: i64,
    #[schema(example = json!({"authentication": 0, "utility": 3, "marketing": 1, "service": 0}))]
    pub by_category: BTreeMap<String, i64>,
}

/// Kept webhook deliveries; `pending` counts pending and retrying ones.
#[derive(Debug, Serialize, ToSchema)]
pub struct WebhookTotals {
    pub deliveries: i64,
    pub succeeded: i64,
    pub failed: i64,
    pub pending: i64,
}

/// Active followers, and those of them opted in to marketing.
#[derive(Debug, Serialize, ToSchema)]
pub struct FollowerTotals {
    pub active: i64,
    pub marketing_opt_in: i64,
}

#[derive(Debug, Serialize, ToSchema)]
pub struct Usage {
    pub messages: MessageTotals,
    pub webhooks: WebhookTotals,
    pub followers: FollowerTotals,
}

/// Totals over what is kept (messages and deliveries leave them when the retention purges
/// them), read from counters kept with every change.
#[utoipa::path(get, path = "/business/usage", operation_id = "get_usage", tag = "messages",
    security(("bearer" = [])),
    responses((status = 200, description = "Totals", body = Envelope<Usage>)))]
pub async fn usage(State(state): State<AppState>, ctx: CallContext) -> ApiResult {
    let usage = state
        .messaging
        .clone()
        .get_usage(ctx.request(pb::GetUsageRequest {}))
        .await?
        .into_inner();
    let m = usage.messages.unwrap_or_default();
    let w = usage.webhooks.unwrap_or_default();
    let f = usage.followers.unwrap_or_default();
    Ok(ok(
        StatusCode::OK,
        Usage {
            messages: MessageTotals {
                total: m.total,
                accepted: m.accepted,
                delivered: m.delivered,
                failed: m.failed,
                scheduled: m.scheduled,
                canceled: m.canceled,
                by_category: m.by_category.into_iter().collect(),
            },
            webhooks: WebhookTotals {
                deliveries: w.deliveries,
                succeeded: w.succeeded,
                failed: w.failed,
                pending: w.pending,
            },
            followers: FollowerTotals {
                active: f.active,
                marketing_opt_in: f.marketing_opt_in,
            },
        },
    ))
}

/// Messages accepted on one day.
#[derive(Debug, Serialize, ToSchema)]
pub struct DayMessages {
    pub total: i64,
    pub authentication: i64,
    pub utility: i64,
    pub marketing: i64,
    pub service: i64,
}

/// One UTC day: messages count on the day they were accepted, outcomes on theirs, deliveries on
/// the day they settled; `follows` are `follow.created`, `unfollows` `follow.deleted`.
#[derive(Debug, Serialize, ToSchema)]
pub struct DayUsage {
    #[schema(format = Date, example = "2026-11-24")]
    pub date: String,
    pub messages: DayMessages,
    pub delivered: i64,
    pub failed: i64,
    pub webhooks_succeeded: i64,
    pub webhooks_failed: i64,
    pub follows: i64,
    pub unfollows: i64,
}

#[derive(Debug, Serialize, ToSchema)]
pub struct DailyUsage {
    /// Oldest first, every day present, the last one today (UTC).
    pub days: Vec<DayUsage>,
}

/// Daily figures over the last `days` UTC days. They count what happened that day and outlive
/// the retention of what they count.
#[utoipa::path(get, path = "/business/usage/daily", operation_id = "get_daily_usage", tag = "messages",
    security(("bearer" = [])),
    params(("days" = Option<i32>, Query, minimum = 1, maximum = 90, description = "Default 30")),
    responses((status = 200, description = "One entry per day", body = Envelope<DailyUsage>)))]
pub async fn daily_usage(
    State(state): State<AppState>,
    ctx: CallContext,
    RawQuery(query): RawQuery,
) -> ApiResult {
    let days = crate::extract::query_param(query.as_deref(), "days")
        .map(|days| {
            days.trim().parse::<i32>().map_err(|_| {
                ApiError::new(ErrorCode::InvalidRequest, "days: an integer from 1 to 90")
            })
        })
        .transpose()?;
    let daily = state
        .messaging
        .clone()
        .get_daily_usage(ctx.request(pb::GetDailyUsageRequest { days }))
        .await?
        .into_inner();
    Ok(ok(
        StatusCode::OK,
        DailyUsage {
            days: daily
                .days
                .into_iter()
                .map(|d| {
                    let m = d.messages.unwrap_or_default();
                    DayUsage {
                        date: d.date,
                        messages: DayMessages {
                            total: m.total,
                            authentication: m.authentication,
                            utility: m.utility,
                            marketing: m.marketing,
                            service: m.service,
                        },
                        delivered: d.delivered,
                        failed: d.failed,
                        webhooks_succeeded: d.webhooks_succeeded,
                        webhooks_failed: d.webhooks_failed,
                        follows: d.follows,
                        unfollows: d.unfollows,
                    }
                })
                .collect(),
        },
    ))
}
