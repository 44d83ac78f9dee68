//! Broadcasts: one message to the business's whole audience (console, and app tokens).

use axum::extract::{RawQuery, State};
use axum::http::{HeaderMap, StatusCode};
use proto::ErrorCode;
use proto::v1 as pb;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use utoipa::ToSchema;

use super::messages::{MarketingContent, string_field, text};
use crate::envelope::{ApiError, ApiResult, Envelope, Null, ok};
use crate::extract::{CallContext, JsonBody, PathParam, PathParams, idempotency_key, uuid_path};
use crate::schema::BroadcastCounts;
use crate::state::AppState;

/// A broadcast as received (the core names what is wrong).
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct BroadcastInput {
    #[schema(value_type = String)]
    pub name: Option<Value>,
    #[schema(value_type = String)]
    pub category: Option<Value>,
    #[schema(value_type = Option<String>)]
    pub body: Option<Value>,
    #[schema(value_type = Option<Object>)]
    pub message_content: Option<Value>,
    #[schema(value_type = Option<super::messages::TemplateUse>)]
    pub template: Option<Value>,
    #[schema(value_type = Option<String>, format = DateTime)]
    pub send_at: Option<Value>,
    #[schema(value_type = Option<i64>)]
    pub max_per_second: Option<Value>,
}

/// A new broadcast, as the document describes it: one shape per kind of content.
#[derive(Serialize, ToSchema)]
#[serde(untagged)]
pub enum CreateBroadcastBody {
    Text(TextBroadcast),
    Rich(RichBroadcast),
    Templated(TemplatedBroadcast),
}

/// A broadcast whose content a template of the business supplies: one set of variables, each
/// recipient's own variant (their language when the template has it, else the default, unless
/// `template.locale` names one). The version found at creation is the one every message
/// renders.
#[derive(Serialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct TemplatedBroadcast {
    /// 1 to 100 characters, shown in the console.
    #[schema(
        min_length = 1,
        max_length = 100,
        pattern = r"\S",
        example = "Shipping notices"
    )]
    pub name: String,
    /// The template's own category.
    pub category: crate::schema::BroadcastCategory,
    pub template: super::messages::TemplateUse,
    /// Absent or null: the template supplies the content.
    pub body: Option<Null>,
    /// Absent or null: the template supplies the content.
    pub message_content: Option<Null>,
    /// When to start (RFC 3339, at most 30 days ahead; past, present or absent means now).
    #[schema(format = DateTime, example = "2026-12-01T09:00:00Z")]
    pub send_at: Option<String>,
    /// The most messages per second, 1 to half of `BUSINESS_SENDS_PER_SECOND` (the default).
    #[schema(minimum = 1, example = 100)]
    pub max_per_second: Option<i64>,
}

/// A broadcast of plain text: `utility` (a body is required), or `marketing`.
#[derive(Serialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct TextBroadcast {
    /// 1 to 100 characters, shown in the console.
    #[schema(
        min_length = 1,
        max_length = 100,
        pattern = r"\S",
        example = "December opening hours"
    )]
    pub name: String,
    pub category: crate::schema::BroadcastCategory,
    /// 1 to 4096 characters.
    #[schema(
        min_length = 1,
        max_length = 4096,
        example = "We open at 10:00 on weekdays in December."
    )]
    pub body: String,
    /// Absent or null: `body` and `message_content` are exclusive.
    pub message_content: Option<Null>,
    /// When to start (RFC 3339, at most 30 days ahead; past, present or absent means now). Until
    /// then the broadcast is `scheduled`.
    #[schema(format = DateTime, example = "2026-12-01T09:00:00Z")]
    pub send_at: Option<String>,
    /// The most messages per second, 1 to half of `BUSINESS_SENDS_PER_SECOND` (the default).
    #[schema(minimum = 1, example = 100)]
    pub max_per_second: Option<i64>,
}

/// A `marketing` broadcast with structured content.
#[derive(Serialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct RichBroadcast {
    /// 1 to 100 characters, shown in the console.
    #[schema(
        min_length = 1,
        max_length = 100,
        pattern = r"\S",
        example = "Winter sale"
    )]
    pub name: String,
    pub category: super::messages::MarketingCategory,
    pub message_content: MarketingContent,
    /// Absent or null: `body` and `message_content` are exclusive.
    pub body: Option<Null>,
    /// When to start (RFC 3339, at most 30 days ahead; past, present or absent means now).
    #[schema(format = DateTime, example = "2026-12-01T09:00:00Z")]
    pub send_at: Option<String>,
    /// The most messages per second, 1 to half of `BUSINESS_SENDS_PER_SECOND` (the default).
    #[schema(minimum = 1, example = 100)]
    pub max_per_second: Option<i64>,
}

/// A broadcast.
#[derive(Debug, Serialize, ToSchema)]
pub struct Broadcast {
    #[schema(format = Uuid)]
    pub id: String,
    pub name: String,
    #[schema(value_type = crate::schema::BroadcastCategory)]
    pub category: String,
    #[schema(value_type = crate::schema::BroadcastStatus)]
    pub status: String,
    /// As sent; null when not given.
    #[schema(format = DateTime)]
    pub send_at: Option<String>,
    pub max_per_second: i32,
    #[schema(format = DateTime)]
    pub created_at: String,
    /// When every created message had its outcome (`broadcast.completed`); null before.
    #[schema(format = DateTime)]
    pub completed_at: Option<String>,
    pub counts: BroadcastCounts,
    /// What it sends: `body`, `message_content`, or `template`.
    pub body: Option<String>,
    #[schema(value_type = Option<Object>)]
    pub message_content: Option<Value>,
    /// A templated broadcast's template: `{"id", "name", "version"` (the one it renders, fixed
    /// at creation)`, "variables", "locale"?}`.
    #[schema(value_type = Option<Object>)]
    pub template: Option<Value>,
}

impl From<pb::Broadcast> for Broadcast {
    fn from(b: pb::Broadcast) -> Self {
        let counts = b.counts.unwrap_or_default();
        Broadcast {
            id: b.id,
            name: b.name,
            category: b.category,
            status: b.status,
            send_at: b.send_at,
            max_per_second: b.max_per_second,
            created_at: b.created_at,
            completed_at: b.completed_at,
            counts: BroadcastCounts {
                audience: counts.audience,
                accepted: counts.accepted,
                skipped: counts.skipped,
                not_created: counts.not_created,
                delivered: counts.delivered,
                failed: counts.failed,
            },
            body: b.body,
            message_content: b
                .message_content_json
                .and_then(|json| serde_json::from_str(&json).ok()),
            template: b
                .template_json
                .and_then(|json| serde_json::from_str(&json).ok()),
        }
    }
}

#[derive(Debug, Serialize, ToSchema)]
pub struct BroadcastList {
    pub broadcasts: Vec<Broadcast>,
    /// Whether older broadcasts follow: ask again with `starting_after` = the last `id`.
    pub has_more: bool,
}

fn broadcast_input(
    input: BroadcastInput,
    headers: &HeaderMap,
) -> Result<pb::BroadcastInput, ApiError> {
    let max_per_second = match input.max_per_second {
        None | Some(Value::Null) => None,
        Some(value) => Some(value.as_i64().ok_or_else(|| {
            ApiError::new(
                ErrorCode::InvalidRequest,
                "max_per_second: an integer (messages per second)",
            )
        })?),
    };
    Ok(pb::BroadcastInput {
        name: string_field(input.name, "name")?,
        category: text(input.category),
        body: string_field(input.body, "body")?,
        message_content_json: input
            .message_content
            .filter(|v| !v.is_null())
            .map(|v| v.to_string()),
        template_json: super::messages::template_json(input.template),
        send_at: string_field(input.send_at, "send_at")?,
        max_per_second,
        idempotency_key: idempotency_key(headers),
    })
}

fn created(reply: pb::BroadcastReply) -> ApiResult {
    let broadcast = reply
        .broadcast
        .ok_or_else(|| ApiError::new(ErrorCode::InternalError, "the core sent no broadcast"))?;
    Ok(ok(StatusCode::CREATED, Broadcast::from(broadcast)))
}

/// Broadcast to the business's whole audience (owner or admin).
///
/// The audience is fixed when the broadcast starts: the business's active followers then.
/// Each recipient's consent is checked again when their message is created; `marketing`
/// reaches only those opted in. Messages go out at most `max_per_second`, spending the business
/// send budget, behind every single and scheduled send. A replay of an Idempotency-Key answers
/// 201 with the broadcast as it is now; a key used by a send is 409 `idempotency_key_conflict`.
#[utoipa::path(post, path = "/business/broadcasts", tag = "broadcasts",
    security(("bearer" = [])),
    params(("Idempotency-Key" = Option<String>, Header, min_length = 1, max_length = 255, pattern = "^[!-~]+$", description = "1 to 255 visible ASCII characters, shared with sends; a retry with the same key and body answers the broadcast for 24 h")),
    request_body = CreateBroadcastBody,
    responses(
        (status = 201, description = "The broadcast (`scheduled` or `running`)", body = Envelope<Broadcast>),
    ))]
pub async fn create_broadcast(
    State(state): State<AppState>,
    ctx: CallContext,
    headers: HeaderMap,
    JsonBody(input): JsonBody<BroadcastInput>,
) -> ApiResult {
    let request = pb::CreateBroadcastRequest {
        broadcast: Some(broadcast_input(input, &headers)?),
    };
    let reply = state
        .broadcasts
        .clone()
        .create_broadcast(ctx.request(request))
        .await?;
    created(reply.into_inner())
}

/// Broadcast with an app token of the business, holding the category's scope.
#[utoipa::path(post, path = "/v1/{businessAccountId}/broadcasts", tag = "broadcasts",
    security(("app_token" = [])),
    params(
        ("businessAccountId" = String, Path, format = Uuid),
        ("Idempotency-Key" = Option<String>, Header, min_length = 1, max_length = 255, pattern = "^[!-~]+$", description = "1 to 255 visible ASCII characters, shared with sends; a retry with the same key and body answers the broadcast for 24 h"),
    ),
    request_body = CreateBroadcastBody,
    responses(
        (status = 201, description = "The broadcast (`scheduled` or `running`)", body = Envelope<Broadcast>),
    ))]
pub async fn create_app_broadcast(
    State(state): State<AppState>,
    ctx: CallContext,
    headers: HeaderMap,
    PathParam(business_account_id): PathParam,
    JsonBody(input): JsonBody<BroadcastInput>,
) -> ApiResult {
    let request = pb::CreateAppBroadcastRequest {
        business_account_id: uuid_path(&business_account_id)?,
        broadcast: Some(broadcast_input(input, &headers)?),
    };
    let reply = state
        .broadcasts
        .clone()
        .create_app_broadcast(ctx.request(request))
        .await?;
    created(reply.into_inner())
}

/// The business's broadcasts, newest first, a page at a time (any role).
#[utoipa::path(get, path = "/business/broadcasts", tag = "broadcasts",
    security(("bearer" = [])),
    params(
        ("limit" = Option<i64>, Query, minimum = 1, maximum = 200, description = "Default 50"),
        ("starting_after" = Option<String>, Query, format = Uuid,
            description = "The `id` of the last broadcast of the previous page"),
        ("status" = Option<crate::schema::BroadcastStatus>, Query),
    ),
    responses(
        (status = 200, description = "The broadcasts", body = Envelope<BroadcastList>),
    ))]
pub async fn list_broadcasts(
    State(state): State<AppState>,
    ctx: CallContext,
    RawQuery(query): RawQuery,
) -> ApiResult {
    use crate::extract::{limit_query, query_param};
    let query = query.as_deref();
    let request = pb::ListBroadcastsRequest {
        limit: limit_query(query)?,
        starting_after: query_param(query, "starting_after"),
        status: query_param(query, "status"),
    };
    let list = state
        .broadcasts
        .clone()
        .list_broadcasts(ctx.request(request))
        .await?
        .into_inner();
    Ok(ok(
        StatusCode::OK,
        BroadcastList {
            broadcasts: list.broadcasts.into_iter().map(Broadcast::from).collect(),
            has_more: list.has_more,
        },
    ))
}

/// One broadcast, with its counts (any role).
#[utoipa::path(get, path = "/business/broadcasts/{id}", tag = "broadcasts",
    security(("bearer" = [])),
    params(("id" = String, Path, format = Uuid)),
    responses(
        (status = 200, description = "The broadcast", body = Envelope<Broadcast>),
    ))]
pub async fn get_broadcast(
    State(state): State<AppState>,
    ctx: CallContext,
    PathParam(id): PathParam,
) -> ApiResult {
    let request = pb::BroadcastId {
        id: uuid_path(&id)?,
    };
    let broadcast = state
        .broadcasts
        .clone()
        .get_broadcast(ctx.request(request))
        .await?
        .into_inner();
    Ok(ok(StatusCode::OK, Broadcast::from(broadcast)))
}

/// Cancel a `scheduled` or `running` broadcast (owner or admin): messages already created go
/// on, the rest are `not_created`.
#[utoipa::path(post, path = "/business/broadcasts/{id}/cancel", tag = "broadcasts",
    security(("bearer" = [])),
    params(("id" = String, Path, format = Uuid)),
    responses(
        (status = 200, description = "The broadcast, now `canceled`", body = Envelope<Broadcast>),
    ))]
pub async fn cancel_broadcast(
    State(state): State<AppState>,
    ctx: CallContext,
    PathParam(id): PathParam,
) -> ApiResult {
    let request = pb::BroadcastId {
        id: uuid_path(&id)?,
    };
    let broadcast = state
        .broadcasts
        .clone()
        .cancel_broadcast(ctx.request(request))
        .await?
        .into_inner();
    Ok(ok(StatusCode::OK, Broadcast::from(broadcast)))
}

/// One broadcast of the business, with an app token of it (any scope).
#[utoipa::path(get, path = "/v1/{businessAccountId}/broadcasts/{id}", tag = "broadcasts",
    security(("app_token" = [])),
    params(
        ("businessAccountId" = String, Path, format = Uuid),
        ("id" = String, Path, format = Uuid),
    ),
    responses(
        (status = 200, description = "The broadcast", body = Envelope<Broadcast>),
    ))]
pub async fn get_app_broadcast(
    State(state): State<AppState>,
    ctx: CallContext,
    PathParams(business_account_id, id): PathParams,
) -> ApiResult {
    let request = pb::AppBroadcastId {
        business_account_id: uuid_path(&business_account_id)?,
        id: uuid_path(&id)?,
    };
    let broadcast = state
        .broadcasts
        .clone()
        .get_app_broadcast(ctx.request(request))
        .await?
        .into_inner();
    Ok(ok(StatusCode::OK, Broadcast::from(broadcast)))
}

/// Cancel a `scheduled` or `running` broadcast with an app token of the business (any scope).
#[utoipa::path(post, path = "/v1/{businessAccountId}/broadcasts/{id}/cancel", tag = "broadcasts",
    security(("app_token" = [])),
    params(
        ("businessAccountId" = String, Path, format = Uuid),
        ("id" = String, Path, format = Uuid),
    ),
    responses(
        (status = 200, description = "The broadcast, now `canceled`", body = Envelope<Broadcast>),
    ))]
pub async fn cancel_app_broadcast(
    State(state): State<AppState>,
    ctx: CallContext,
    PathParams(business_account_id, id): PathParams,
) -> ApiResult {
    let request = pb::AppBroadcastId {
        business_account_id: uuid_path(&business_account_id)?,
        id: uuid_path(&id)?,
    };
    let broadcast = state
        .broadcasts
        .clone()
        .cancel_app_broadcast(ctx.request(request))
        .await?
        .into_inner();
    Ok(ok(StatusCode::OK, Broadcast::from(broadcast)))
}
