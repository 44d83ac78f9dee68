//! The route table: each route extracts, builds one proto request, calls one RPC and wraps the
//! reply in the envelope.

pub mod auth;
pub mod business;
pub mod ops;

use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use crate::state::AppState;

pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(auth::otp_request))
        .routes(routes!(auth::otp_verify))
        .routes(routes!(auth::refresh))
        .routes(routes!(auth::logout))
        .routes(routes!(business::get_me, business::patch_me))
        .routes(routes!(business::create_sandbox))
        .routes(routes!(ops::healthz))
        .routes(routes!(ops::readyz))
}
