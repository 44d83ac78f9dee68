//! `/business/webhooks` and `/business/webhook-deliveries`.

use axum::extract::{RawQuery, State};
use axum::http::StatusCode;
use proto::v1 as pb;
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use crate::envelope::{ApiResult, EmptyEnvelope, Envelope, Null, ok};
use crate::extract::{CallContext, JsonBody, PathParam, uuid_path};
use crate::state::AppState;

/// A webhook endpoint. `secret` is present only in the creation answer.
#[derive(Debug, Serialize, ToSchema)]
pub struct Webhook {
    #[schema(format = Uuid)]
    pub id: String,
    #[schema(format = "uri")]
    pub url: String,
    #[schema(value_type = crate::schema::Events)]
    pub events: Vec<String>,
    pub active: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub secret: Option<String>,
    #[schema(format = DateTime)]
    pub created_at: String,
    #[schema(format = DateTime)]
    pub updated_at: String,
    /// Until when the secret the last rotation replaced still signs beside the current one;
    /// null outside a rotation's grace.
    #[schema(format = DateTime)]
    pub previous_secret_expires_at: Option<String>,
    pub health: WebhookHealth,
}

/// An endpoint's delivery health, kept by the reports of its attempts. A failed attempt is any
/// attempt not answered 2xx (timeout, connection error, 3xx, 4xx, 5xx); `webhook.test`
/// deliveries count for nothing. The service never pauses or disables an endpoint.
#[derive(Debug, Serialize, ToSchema)]
pub struct WebhookHealth {
    /// `failing` after `WEBHOOK_FAILING_AFTER` (5) failed attempts in a row or a delivery that
    /// ended failed; `healthy` again at the next success; `paused` while paused (reactivating
    /// restores the state it had).
    #[schema(value_type = crate::schema::WebhookHealthState)]
    pub state: String,
    /// Failed attempts in a row (0 after a success).
    pub consecutive_failures: i32,
    /// When it turned failing; null unless failing.
    #[schema(format = DateTime)]
    pub failing_since: Option<String>,
    /// The last success (kept to the second).
    #[schema(format = DateTime)]
    pub last_success_at: Option<String>,
    #[schema(format = DateTime)]
    pub last_failure_at: Option<String>,
    /// The last failed attempt's answer; null before the first failure.
    pub last_failure: Option<LastFailure>,
}

#[derive(Debug, Serialize, ToSchema)]
pub struct LastFailure {
    /// Null when no answer came (timeout, connection error).
    pub http_status: Option<i32>,
    #[schema(example = "receiver answered 503")]
    pub error: Option<String>,
}

impl From<Option<pb::WebhookHealth>> for WebhookHealth {
    fn from(h: Option<pb::WebhookHealth>) -> Self {
        let h = h.unwrap_or_default();
        WebhookHealth {
            state: h.state,
            consecutive_failures: h.consecutive_failures,
            failing_since: h.failing_since,
            last_success_at: h.last_success_at,
            last_failure_at: h.last_failure_at,
            last_failure: h.last_failure.map(|f| LastFailure {
                http_status: f.http_status,
                error: f.error,
            }),
        }
    }
}

impl From<pb::Webhook> for Webhook {
    fn from(w: pb::Webhook) -> Self {
        Webhook {
            id: w.id,
            url: w.url,
            events: w.events,
            active: w.active,
            secret: w.secret,
            created_at: w.created_at,
            updated_at: w.updated_at,
            previous_secret_expires_at: w.previous_secret_expires_at,
            health: w.health.into(),
        }
    }
}

#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct CreateWebhookBody {
    /// An absolute https URL (http only where the operator allows it), no credentials.
    #[schema(
        format = "uri",
        max_length = 2048,
        example = "https://hooks.acme.example/messaging"
    )]
    pub url: String,
    /// At least one, each once.
    #[schema(value_type = crate::schema::Events, example = json!(["message.sent", "message.failed"]))]
    pub events: Vec<String>,
}

#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct UpdateWebhookBody {
    #[serde(default)]
    #[schema(format = "uri", max_length = 2048)]
    pub url: Option<String>,
    #[serde(default)]
    #[schema(value_type = Option<crate::schema::Events>)]
    pub events: Option<Vec<String>>,
    /// false pauses the endpoint; true resumes it.
    #[serde(default)]
    pub active: Option<bool>,
}

/// The business's webhook endpoints (no secrets).
#[utoipa::path(get, path = "/business/webhooks", tag = "webhooks",
    security(("bearer" = [])),
    responses((status = 200, description = "The endpoints", body = Envelope<Vec<Webhook>>)))]
pub async fn list_webhooks(State(state): State<AppState>, ctx: CallContext) -> ApiResult {
    let list = state
        .webhooks
        .clone()
        .list_webhooks(ctx.request(pb::ListWebhooksRequest {}))
        .await?;
    let webhooks: Vec<Webhook> = list
        .into_inner()
        .webhooks
        .into_iter()
        .map(Into::into)
        .collect();
    Ok(ok(StatusCode::OK, webhooks))
}

/// Register an endpoint; its secret is in this answer only.
#[utoipa::path(post, path = "/business/webhooks", tag = "webhooks",
    security(("bearer" = [])),
    request_body = CreateWebhookBody,
    responses(
        (status = 201, description = "The endpoint with its secret", body = Envelope<Webhook>),
    ))]
pub async fn create_webhook(
    State(state): State<AppState>,
    ctx: CallContext,
    JsonBody(body): JsonBody<CreateWebhookBody>,
) -> ApiResult {
    let message = pb::CreateWebhookRequest {
        url: body.url,
        events: body.events,
    };
    let created = state
        .webhooks
        .clone()
        .create_webhook(ctx.request(message))
        .await?;
    Ok(ok(StatusCode::CREATED, Webhook::from(created.into_inner())))
}

/// Change an endpoint's URL, events or active flag.
#[utoipa::path(patch, path = "/business/webhooks/{id}", tag = "webhooks",
    security(("bearer" = [])),
    params(("id" = String, Path, format = Uuid)),
    request_body = UpdateWebhookBody,
    responses(
        (status = 200, description = "The endpoint", body = Envelope<Webhook>),
    ))]
pub async fn update_webhook(
    State(state): State<AppState>,
    ctx: CallContext,
    PathParam(id): PathParam,
    JsonBody(body): JsonBody<UpdateWebhookBody>,
) -> ApiResult {
    let message = pb::UpdateWebhookRequest {
        id: uuid_path(&id)?,
        url: body.url,
        set_events: body.events.is_some(),
        events: body.events.unwrap_or_default(),
        active: body.active,
    };
    let updated = state
        .webhooks
        .clone()
        .update_webhook(ctx.request(message))
        .await?;
    Ok(ok(StatusCode::OK, Webhook::from(updated.into_inner())))
}

/// Delete an endpoint.
#[utoipa::path(delete, path = "/business/webhooks/{id}", tag = "webhooks",
    security(("bearer" = [])),
    params(("id" = String, Path, format = Uuid)),
    responses(
        (status = 200, description = "Deleted", body = EmptyEnvelope),
    ))]
pub async fn delete_webhook(
    State(state): State<AppState>,
    ctx: CallContext,
    PathParam(id): PathParam,
) -> ApiResult {
    let message = pb::WebhookRequest {
        id: uuid_path(&id)?,
    };
    state
        .webhooks
        .clone()
        .delete_webhook(ctx.request(message))
        .await?;
    Ok(ok(StatusCode::OK, Null))
}

#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct RotateSecretBody {
    /// The new signing secret, generated by the caller: `whsec_` followed by the standard
    /// base64 (with padding) of 24 to 64 random bytes. Keep it: no answer ever shows it.
    #[schema(value_type = String, required = true,
        pattern = "^whsec_[A-Za-z0-9+/]+={0,2}$",
        example = "whsec_AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8=")]
    pub secret: Option<String>,
    /// How long the replaced secret keeps signing beside the new one: 0 to 86,400 seconds,
    /// default 86,400. A rotation during another's grace ends that grace at once.
    #[schema(minimum = 0, maximum = 86400, example = 3600)]
    pub grace_seconds: Option<i64>,
}

/// Replace an endpoint's signing secret with one you generated; the old one keeps signing
/// beside it during the grace (`X-Service-Signature` then carries two `v1` values).
#[utoipa::path(post, path = "/business/webhooks/{id}/rotate-secret", operation_id = "rotate_webhook_secret", tag = "webhooks",
    security(("bearer" = [])),
    params(("id" = String, Path, format = Uuid)),
    request_body = RotateSecretBody,
    responses(
        (status = 200, description = "The endpoint, with previous_secret_expires_at (never a secret)", body = Envelope<Webhook>),
    ))]
pub async fn rotate_secret(
    State(state): State<AppState>,
    ctx: CallContext,
    PathParam(id): PathParam,
    JsonBody(body): JsonBody<RotateSecretBody>,
) -> ApiResult {
    let message = pb::RotateSecretRequest {
        id: uuid_path(&id)?,
        secret: body.secret.unwrap_or_default(),
        grace_seconds: body.grace_seconds,
    };
    let rotated = state
        .webhooks
        .clone()
        .rotate_secret(ctx.request(message))
        .await?;
    Ok(ok(StatusCode::OK, Webhook::from(rotated.into_inner())))
}

/// Queue a signed `webhook.test` delivery to this (active) endpoint.
#[utoipa::path(post, path = "/business/webhooks/{id}/test", tag = "webhooks",
    security(("bearer" = [])),
    params(("id" = String, Path, format = Uuid)),
    responses(
        (status = 200, description = "Queued", body = EmptyEnvelope),
    ))]
pub async fn test_webhook(
    State(state): State<AppState>,
    ctx: CallContext,
    PathParam(id): PathParam,
) -> ApiResult {
    let message = pb::WebhookRequest {
        id: uuid_path(&id)?,
    };
    state
        .webhooks
        .clone()
        .test_webhook(ctx.request(message))
        .await?;
    Ok(ok(StatusCode::OK, Null))
}

/// One delivery: an event to one endpoint, over its attempts.
#[derive(Debug, Serialize, ToSchema)]
pub struct Delivery {
    /// The `X-Service-Delivery` header.
    #[schema(format = Uuid)]
    pub id: String,
    #[schema(format = Uuid)]
    pub webhook_id: String,
    #[schema(value_type = crate::schema::DeliveryEventType)]
    pub event_type: String,
    #[schema(format = Uuid)]
    pub event_id: String,
    /// The message the event announces (`message.sent`, `message.failed`); null otherwise.
    #[schema(format = Uuid)]
    pub message_send_id: Option<String>,
    #[schema(value_type = crate::schema::DeliveryStatus)]
    pub status: String,
    pub attempts: i32,
    pub last_http_status: Option<i32>,
    pub last_error: Option<String>,
    #[schema(format = DateTime)]
    pub next_attempt_at: Option<String>,
    #[schema(format = DateTime)]
    pub created_at: String,
    #[schema(format = DateTime)]
    pub updated_at: String,
}

impl From<pb::Delivery> for Delivery {
    fn from(d: pb::Delivery) -> Self {
        Delivery {
            id: d.id,
            webhook_id: d.webhook_id,
            event_type: d.event_type,
            event_id: d.event_id,
            message_send_id: d.message_send_id,
            status: d.status,
            attempts: d.attempts,
            last_http_status: d.last_http_status,
            last_error: d.last_error,
            next_attempt_at: d.next_attempt_at,
            created_at: d.created_at,
            updated_at: d.updated_at,
        }
    }
}

/// One attempt of a delivery.
#[derive(Debug, Serialize, ToSchema)]
pub struct Attempt {
    /// 1 for the first attempt.
    pub attempt: i32,
    #[schema(format = DateTime)]
    pub at: String,
    /// The receiver's status, when it answered.
    pub http_status: Option<i32>,
    /// Why the attempt failed (timeout, connection error, the status), when it did.
    pub error: Option<String>,
    pub duration_ms: i64,
    /// The first 1,024 bytes the receiver answered, as UTF-8 (invalid sequences replaced); null
    /// when it did not answer.
    pub response_body: Option<String>,
}

/// A delivery with every attempt, oldest first, and what the last one sent.
#[derive(Debug, Serialize, ToSchema)]
pub struct DeliveryDetail {
    #[serde(flatten)]
    pub delivery: Delivery,
    pub attempts_log: Vec<Attempt>,
    /// The exact bytes the last attempt sent, as a JSON value (the webhook payload); null before
    /// the first attempt.
    #[schema(value_type = Option<Object>)]
    pub payload: Option<serde_json::Value>,
}

#[derive(Debug, Serialize, ToSchema)]
pub struct DeliveryLog {
    pub deliveries: Vec<Delivery>,
    /// Whether older deliveries follow: ask again with `starting_after` = the last `id`.
    pub has_more: bool,
}

/// The deliveries log, newest first, a page at a time, with attempts and retry status.
#[utoipa::path(get, path = "/business/webhook-deliveries", operation_id = "list_deliveries", tag = "webhooks",
    security(("bearer" = [])),
    params(
        ("limit" = Option<i64>, Query, minimum = 1, maximum = 200, description = "Default 50"),
        ("starting_after" = Option<String>, Query, format = Uuid,
            description = "The `id` of the last delivery of the previous page"),
        ("webhook_id" = Option<String>, Query, format = Uuid, description = "One endpoint's deliveries"),
        ("status" = Option<crate::schema::DeliveryStatus>, Query),
        ("event_type" = Option<crate::schema::DeliveryEventType>, Query),
        ("message_send_id" = Option<String>, Query, format = Uuid,
            description = "The deliveries announcing this message (its `message.sent` or `message.failed`)"),
    ),
    responses(
        (status = 200, description = "The deliveries", body = Envelope<DeliveryLog>),
    ))]
pub async fn deliveries(
    State(state): State<AppState>,
    ctx: CallContext,
    RawQuery(query): RawQuery,
) -> ApiResult {
    use crate::extract::{limit_query, query_param};
    let query = query.as_deref();
    let request = pb::ListDeliveriesRequest {
        limit: limit_query(query)?,
        starting_after: query_param(query, "starting_after"),
        webhook_id: query_param(query, "webhook_id"),
        status: query_param(query, "status"),
        event_type: query_param(query, "event_type"),
        message_send_id: query_param(query, "message_send_id"),
    };
    let list = state
        .webhooks
        .clone()
        .list_deliveries(ctx.request(request))
        .await?
        .into_inner();
    Ok(ok(
        StatusCode::OK,
        DeliveryLog {
            deliveries: list.deliveries.into_iter().map(Delivery::from).collect(),
            has_more: list.has_more,
        },
    ))
}

/// One delivery with every attempt (time, HTTP status, error, duration, the receiver's answer)
/// and the payload its last attempt sent.
#[utoipa::path(get, path = "/business/webhook-deliveries/{id}", tag = "webhooks",
    security(("bearer" = [])),
    params(("id" = String, Path, format = Uuid)),
    responses(
        (status = 200, description = "The delivery", body = Envelope<DeliveryDetail>),
    ))]
pub async fn get_delivery(
    State(state): State<AppState>,
    ctx: CallContext,
    PathParam(id): PathParam,
) -> ApiResult {
    let request = pb::DeliveryRequest {
        id: uuid_path(&id)?,
    };
    let mut delivery = state
        .webhooks
        .clone()
        .get_delivery(ctx.request(request))
        .await?
        .into_inner();
    let attempts_log = std::mem::take(&mut delivery.attempts_log)
        .into_iter()
        .map(|a| Attempt {
            attempt: a.attempt,
            at: a.at,
            http_status: a.http_status,
            error: a.error,
            duration_ms: a.duration_ms,
            response_body: a.response_body,
        })
        .collect();
    let payload = delivery
        .payload
        .take()
        .and_then(|json| serde_json::from_str(&json).ok());
    Ok(ok(
        StatusCode::OK,
        DeliveryDetail {
            delivery: Delivery::from(delivery),
            attempts_log,
            payload,
        },
    ))
}

/// Re-queue a failed delivery: it becomes `pending`, due at once, with a fresh budget of 6
/// attempts on the same schedule, and keeps its `id` (= `X-Service-Delivery`).
#[utoipa::path(post, path = "/business/webhook-deliveries/{id}/retry", tag = "webhooks",
    security(("bearer" = [])),
    params(("id" = String, Path, format = Uuid)),
    responses(
        (status = 200, description = "The delivery, now pending", body = Envelope<Delivery>),
    ))]
pub async fn retry_delivery(
    State(state): State<AppState>,
    ctx: CallContext,
    PathParam(id): PathParam,
) -> ApiResult {
    let request = pb::DeliveryRequest {
        id: uuid_path(&id)?,
    };
    let delivery = state
        .webhooks
        .clone()
        .retry_delivery(ctx.request(request))
        .await?
        .into_inner();
    Ok(ok(StatusCode::OK, Delivery::from(delivery)))
}

#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct RecoverBody {
    /// Re-queue the failed deliveries created at or after this time (at most 7 days back, or the deliveries' retention when the operator set it shorter).
    #[schema(value_type = String, format = DateTime, required = true, example = "2026-11-23T09:00:00Z")]
    pub since: Option<String>,
}

#[derive(Debug, Serialize, ToSchema)]
pub struct RecoverResult {
    /// How many failed deliveries were re-queued.
    pub requeued: i64,
}

/// Re-queue every failed delivery of an endpoint since a time, as the retry of one does.
#[utoipa::path(post, path = "/business/webhooks/{id}/recover", tag = "webhooks",
    security(("bearer" = [])),
    params(("id" = String, Path, format = Uuid)),
    request_body = RecoverBody,
    responses(
        (status = 200, description = "How many were re-queued", body = Envelope<RecoverResult>),
    ))]
pub async fn recover_webhook(
    State(state): State<AppState>,
    ctx: CallContext,
    PathParam(id): PathParam,
    JsonBody(body): JsonBody<RecoverBody>,
) -> ApiResult {
    let request = pb::RecoverWebhookRequest {
        id: uuid_path(&id)?,
        since: body.since,
    };
    let result = state
        .webhooks
        .clone()
        .recover_webhook(ctx.request(request))
        .await?
        .into_inner();
    Ok(ok(
        StatusCode::OK,
        RecoverResult {
            requeued: result.requeued,
        },
    ))
}

/// One UTC day of an endpoint's attempts.
#[derive(Debug, Serialize, ToSchema)]
pub struct WebhookDay {
    #[schema(format = Date, example = "2026-11-30")]
    pub date: String,
    pub attempts: i64,
    /// Answered 2xx.
    pub succeeded_attempts: i64,
    /// Not answered 2xx (timeouts and connection errors included).
    pub failed_attempts: i64,
    /// Deliveries that ended failed that day (their last attempt failed, or a permanent 4xx).
    pub exhausted: i64,
}

#[derive(Debug, Serialize, ToSchema)]
pub struct WebhookStats {
    /// Every day of the range, oldest first (zeros where nothing happened).
    pub days: Vec<WebhookDay>,
}

/// An endpoint's attempts per UTC day (any role), from counters kept with each report.
#[utoipa::path(get, path = "/business/webhooks/{id}/stats", tag = "webhooks",
    security(("bearer" = [])),
    params(
        ("id" = String, Path, format = Uuid),
        ("days" = Option<i32>, Query, minimum = 1, maximum = 90, description = "Default 7: today and the six days before"),
    ),
    responses(
        (status = 200, description = "The endpoint's days", body = Envelope<WebhookStats>),
    ))]
pub async fn webhook_stats(
    State(state): State<AppState>,
    ctx: CallContext,
    PathParam(id): PathParam,
    RawQuery(query): RawQuery,
) -> ApiResult {
    let days = crate::extract::query_param(query.as_deref(), "days")
        .map(|v| {
            v.trim().parse::<i32>().map_err(|_| {
                crate::envelope::ApiError::new(
                    proto::ErrorCode::InvalidRequest,
                    "days: a number of days from 1 to 90",
                )
            })
        })
        .transpose()?;
    let request = pb::WebhookStatsRequest {
        id: uuid_path(&id)?,
        days,
    };
    let stats = state
        .webhooks
        .clone()
        .get_webhook_stats(ctx.request(request))
        .await?
        .into_inner();
    Ok(ok(
        StatusCode::OK,
        WebhookStats {
            days: stats
                .days
                .into_iter()
                .map(|d| WebhookDay {
                    date: d.date,
                    attempts: d.attempts,
                    succeeded_attempts: d.succeeded_attempts,
                    failed_attempts: d.failed_attempts,
                    exhausted: d.exhausted,
                })
                .collect(),
        },
    ))
}
