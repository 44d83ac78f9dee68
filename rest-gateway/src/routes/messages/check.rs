//! Send checks: every rule of a send, nothing stored.

use super::*;

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
