//! Liveness and readiness probes.

use axum::extract::State;
use axum::http::StatusCode;
use proto::ErrorCode;
use serde::Serialize;
use tonic_health::pb::HealthCheckRequest;
use tonic_health::pb::health_check_response::ServingStatus;
use utoipa::ToSchema;

use crate::envelope::{ApiError, ApiResult, Envelope, ok};
use crate::state::AppState;

#[derive(Debug, Serialize, ToSchema)]
pub struct Health {
    /// `ok`.
    pub status: String,
}

/// Liveness: the gateway process answers.
#[utoipa::path(get, path = "/healthz", tag = "ops",
    responses((status = 200, description = "Alive", body = Envelope<Health>)))]
pub async fn healthz() -> ApiResult {
    Ok(ok(
        StatusCode::OK,
        Health {
            status: "ok".into(),
        },
    ))
}

/// Readiness: the core answers its gRPC health check.
#[utoipa::path(get, path = "/readyz", tag = "ops",
    responses(
        (status = 200, description = "Ready", body = Envelope<Health>),
    ))]
pub async fn readyz(State(state): State<AppState>) -> ApiResult {
    let reply = state
        .health
        .clone()
        .check(HealthCheckRequest {
            service: String::new(),
        })
        .await
        .map_err(|_| ApiError::new(ErrorCode::ServiceUnavailable, "core not reachable"))?;
    if reply.into_inner().status() != ServingStatus::Serving {
        return Err(ApiError::new(
            ErrorCode::ServiceUnavailable,
            "core not serving",
        ));
    }
    Ok(ok(
        StatusCode::OK,
        Health {
            status: "ok".into(),
        },
    ))
}
