//! Sends: from the console, with an app token, and as a service message.

use super::*;

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
