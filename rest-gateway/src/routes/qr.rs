//! `/auth/qr/sessions`: QR web sign-in.

use axum::extract::State;
use axum::http::{HeaderMap, StatusCode};
use proto::v1 as pb;
use serde::Serialize;
use utoipa::ToSchema;

use crate::envelope::{ApiResult, EmptyEnvelope, Envelope, Null, ok};
use crate::extract::{CallContext, PathParam};
use crate::state::AppState;

/// A new QR session. Show `qr_payload` as a QR code; keep `exchange_secret` in the browser.
#[derive(Debug, Serialize, ToSchema)]
pub struct QrSession {
    #[schema(format = Uuid)]
    pub id: String,
    /// `service://business-login/<id>`.
    pub qr_payload: String,
    /// Send it back in `X-Service-QR-Secret` to poll and exchange.
    pub exchange_secret: String,
    #[schema(format = DateTime)]
    pub expires_at: String,
}

/// What the approving phone shows about the browser asking to sign in.
#[derive(Debug, Serialize, ToSchema)]
pub struct QrPreview {
    pub client_name: String,
    #[schema(format = DateTime)]
    pub expires_at: String,
    #[schema(format = DateTime)]
    pub created_at: String,
    /// The creating IP with its last part masked.
    pub origin_hint: String,
}

/// Where a QR sign-in session stands.
#[derive(Debug, Serialize, ToSchema)]
pub struct QrSessionStatus {
    #[schema(value_type = crate::schema::QrStatus)]
    pub status: String,
}

#[derive(Debug, Serialize, ToSchema)]
pub struct QrToken {
    /// An access token of the user who approved.
    pub token: String,
}

fn secret(headers: &HeaderMap) -> Option<String> {
    headers
        .get("x-service-qr-secret")
        .map(|v| String::from_utf8_lossy(v.as_bytes()).into_owned())
}

fn session_request(id: String, headers: Option<&HeaderMap>) -> pb::QrSessionRequest {
    pb::QrSessionRequest {
        id,
        secret: headers.and_then(secret),
    }
}

/// Start a QR sign-in (valid two minutes).
#[utoipa::path(post, path = "/auth/qr/sessions", operation_id = "create_qr_session", tag = "auth",
    responses(
        (status = 201, description = "The session", body = Envelope<QrSession>),
    ))]
pub async fn create(State(state): State<AppState>, ctx: CallContext) -> ApiResult {
    let session = state
        .qr
        .clone()
        .create_session(ctx.request(pb::CreateQrSessionRequest {}))
        .await?
        .into_inner();
    Ok(ok(
        StatusCode::CREATED,
        QrSession {
            id: session.id,
            qr_payload: session.qr_payload,
            exchange_secret: session.exchange_secret,
            expires_at: session.expires_at,
        },
    ))
}

/// What the approving phone shows (no credential).
#[utoipa::path(get, path = "/auth/qr/sessions/{id}/preview", operation_id = "preview_qr_session", tag = "auth",
    params(("id" = String, Path, format = Uuid)),
    responses(
        (status = 200, description = "The preview", body = Envelope<QrPreview>),
    ))]
pub async fn preview(
    State(state): State<AppState>,
    ctx: CallContext,
    PathParam(id): PathParam,
) -> ApiResult {
    let p = state
        .qr
        .clone()
        .preview(ctx.request(session_request(id, None)))
        .await?
        .into_inner();
    Ok(ok(
        StatusCode::OK,
        QrPreview {
            client_name: p.client_name,
            expires_at: p.expires_at,
            created_at: p.created_at,
            origin_hint: p.origin_hint,
        },
    ))
}

/// Poll a session (browser, with its secret).
#[utoipa::path(get, path = "/auth/qr/sessions/{id}", operation_id = "get_qr_session", tag = "auth",
    params(
        ("id" = String, Path, format = Uuid),
        ("X-Service-QR-Secret" = String, Header, description = "The session's exchange_secret"),
    ),
    responses(
        (status = 200, description = "The status", body = Envelope<QrSessionStatus>),
    ))]
pub async fn status(
    State(state): State<AppState>,
    ctx: CallContext,
    headers: HeaderMap,
    PathParam(id): PathParam,
) -> ApiResult {
    let s = state
        .qr
        .clone()
        .status(ctx.request(session_request(id, Some(&headers))))
        .await?
        .into_inner();
    Ok(ok(StatusCode::OK, QrSessionStatus { status: s.status }))
}

/// Approve a session from a signed-in phone (a user with console access).
#[utoipa::path(post, path = "/auth/qr/sessions/{id}/approve", operation_id = "approve_qr_session", tag = "auth",
    security(("bearer" = [])),
    params(("id" = String, Path, format = Uuid)),
    responses(
        (status = 200, description = "Approved", body = EmptyEnvelope),
    ))]
pub async fn approve(
    State(state): State<AppState>,
    ctx: CallContext,
    PathParam(id): PathParam,
) -> ApiResult {
    state
        .qr
        .clone()
        .approve(ctx.request(session_request(id, None)))
        .await?;
    Ok(ok(StatusCode::OK, Null))
}

/// Exchange an approved session, once, for an access token (browser, with its secret).
#[utoipa::path(post, path = "/auth/qr/sessions/{id}/exchange", operation_id = "exchange_qr_session", tag = "auth",
    params(
        ("id" = String, Path, format = Uuid),
        ("X-Service-QR-Secret" = String, Header, description = "The session's exchange_secret"),
    ),
    responses(
        (status = 200, description = "The access token", body = Envelope<QrToken>),
    ))]
pub async fn exchange(
    State(state): State<AppState>,
    ctx: CallContext,
    headers: HeaderMap,
    PathParam(id): PathParam,
) -> ApiResult {
    let t = state
        .qr
        .clone()
        .exchange(ctx.request(session_request(id, Some(&headers))))
        .await?
        .into_inner();
    Ok(ok(StatusCode::OK, QrToken { token: t.token }))
}
