//! Liveness and readiness probes.

use axum::extract::State;
use axum::http::StatusCode;
use proto::ErrorCode;
use serde::Serialize;
use tonic_health::pb::HealthCheckRequest;
use tonic_health::pb::health_check_response::ServingStatus;
use tonic_health::pb::health_client::HealthClient;
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

/// Readiness: at least one core answers its gRPC health check with `SERVING`.
#[utoipa::path(get, path = "/readyz", tag = "ops",
    responses(
        (status = 200, description = "Ready", body = Envelope<Health>),
    ))]
pub async fn readyz(State(state): State<AppState>) -> ApiResult {
    // The cores not marked down first; the first that serves answers.
    let mut order: Vec<usize> = (0..state.cores.len()).collect();
    order.sort_by_key(|&i| state.cores.is_down(i));
    let mut reached = false;
    for i in order {
        let reply = HealthClient::new(state.cores.only(i))
            .check(HealthCheckRequest {
                service: String::new(),
            })
            .await;
        match reply {
            Ok(reply) if reply.get_ref().status() == ServingStatus::Serving => {
                return Ok(ok(
                    StatusCode::OK,
                    Health {
                        status: "ok".into(),
                    },
                ));
            }
            Ok(_) => reached = true,
            Err(_) => {}
        }
    }
    Err(ApiError::new(
        ErrorCode::ServiceUnavailable,
        if reached {
            "core not serving"
        } else {
            "core not reachable"
        },
    ))
}
