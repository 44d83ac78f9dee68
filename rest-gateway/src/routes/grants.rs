//! `/me/grants/{client_id}`: a user revokes a developer app's sign-in grant.

use axum::extract::State;
use axum::http::StatusCode;
use proto::ErrorCode;
use proto::v1 as pb;

use crate::envelope::{ApiError, ApiResult, EmptyEnvelope, Null, ok};
use crate::extract::{CallContext, PathParam, uuid_path};
use crate::state::AppState;

/// Revoke the caller's sign-in grant to a developer app; its business receives
/// `grant.revoked`.
#[utoipa::path(delete, path = "/me/grants/{client_id}", tag = "grants",
    security(("bearer" = [])),
    params(("client_id" = String, Path, format = Uuid)),
    responses(
        (status = 200, description = "Revoked", body = EmptyEnvelope),
    ))]
pub async fn revoke_grant(
    State(state): State<AppState>,
    ctx: CallContext,
    PathParam(client_id): PathParam,
) -> ApiResult {
    let client_id = uuid_path(&client_id)
        .map_err(|_| ApiError::new(ErrorCode::GrantNotFound, "no such grant"))?;
    state
        .grants
        .clone()
        .revoke_my_grant(ctx.request(pb::RevokeMyGrantRequest { client_id }))
        .await?;
    Ok(ok(StatusCode::OK, Null))
}
