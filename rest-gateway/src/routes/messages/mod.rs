//! Sends (console, app token, service), their checks, message history and usage: the bodies
//! and answers they share here, each sub-feature in its file.

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

mod check;
mod history;
mod send;
mod usage;

pub use check::*;
pub use history::*;
pub use send::*;
pub use usage::*;

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
    /// A template of the business instead of `body` / `message_content` (utility and
    /// marketing).
    #[schema(value_type = Option<TemplateUse>)]
    pub template: Option<Value>,
    /// RFC 3339: when to hand it out (at most 30 days ahead; past or present means now).
    #[schema(value_type = Option<String>, format = DateTime)]
    pub send_at: Option<Value>,
    /// RFC 3339: never handed out after this (after `send_at`, or after now; at most 30 days
    /// ahead).
    #[schema(value_type = Option<String>, format = DateTime)]
    pub expires_at: Option<Value>,
}

/// A template a send names: rendered when the recipient is known, with the explicit `locale`,
/// else the recipient's own language when they follow the business, else the template's
/// default (each by RFC 4647 lookup: `pt-BR`, then `pt`). A replay with the same
/// Idempotency-Key answers the original; the template and its variables are part of the key's
/// content.
#[derive(Serialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct TemplateUse {
    /// The template's name.
    #[schema(pattern = "^[a-z0-9_]{1,64}$", example = "order_shipped")]
    pub name: String,
    /// A version (default: the newest).
    #[schema(minimum = 1)]
    pub version: Option<i64>,
    /// Every variable of the template, each a string of 1 to its `max_length` characters
    /// (values placed in URLs are percent-encoded).
    #[schema(example = json!({"order_id": "A-1042"}))]
    pub variables: BTreeMap<String, String>,
    /// A BCP 47 tag: the variant to send (by lookup; none found is refused).
    #[schema(example = "pt-BR")]
    pub locale: Option<String>,
}

/// What a templated message was rendered from.
#[derive(Debug, Serialize, ToSchema)]
pub struct MessageTemplateRef {
    #[schema(format = Uuid)]
    pub id: String,
    pub name: String,
    pub version: i32,
    /// The variant sent.
    pub locale: String,
}

impl From<pb::MessageTemplate> for MessageTemplateRef {
    fn from(t: pb::MessageTemplate) -> Self {
        MessageTemplateRef {
            id: t.id,
            name: t.name,
            version: t.version,
            locale: t.locale,
        }
    }
}

/// A send body's `template` as JSON text for the core, which checks its form.
pub(crate) fn template_json(value: Option<Value>) -> Option<String> {
    value.filter(|v| !v.is_null()).map(|v| v.to_string())
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
    Templated(TemplatedMessage),
}

/// A utility or marketing message whose content a template of the business supplies.
#[derive(Serialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct TemplatedMessage {
    #[schema(pattern = r"^\+[1-9][0-9]{1,14}$", example = "+14155550124")]
    pub to: String,
    /// The template's own category (`utility` or `marketing`).
    #[schema(value_type = crate::schema::BroadcastCategory)]
    pub category: String,
    pub template: TemplateUse,
    /// Absent or null: the template supplies the content.
    pub body: Option<Null>,
    /// Absent or null: the template supplies the content.
    pub message_content: Option<Null>,
    /// When to hand it out (RFC 3339, at most 30 days ahead); the template is rendered now.
    #[schema(format = DateTime, example = "2026-12-01T09:00:00Z")]
    pub send_at: Option<String>,
    #[schema(format = DateTime)]
    pub expires_at: Option<String>,
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
        template_json: template_json(input.template),
        idempotency_key: idempotency_key(headers),
        send_at: string_field(input.send_at, "send_at")?,
        expires_at: string_field(input.expires_at, "expires_at")?,
    })
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
