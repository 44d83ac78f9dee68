//! Building and running the gateway: bind, then serve until cancelled.

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use anyhow::Context;
use axum::Router;
use axum::extract::DefaultBodyLimit;
use axum::http::{HeaderName, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use proto::ErrorCode;
use tokio::net::TcpListener;
use tokio_util::sync::CancellationToken;
use tower_http::catch_panic::CatchPanicLayer;
use tower_http::request_id::{MakeRequestUuid, PropagateRequestIdLayer, SetRequestIdLayer};
use tower_http::trace::TraceLayer;
use utoipa::OpenApi;
use utoipa_axum::router::OpenApiRouter;

use crate::config::GatewayConfig;
use crate::envelope::ApiError;
use crate::openapi::{ApiDoc, finish};
use crate::routes;
use crate::state::AppState;

/// The OpenAPI document of every route the gateway serves.
pub fn openapi() -> serde_json::Value {
    let (_, doc) = OpenApiRouter::<AppState>::with_openapi(ApiDoc::openapi())
        .merge(routes::router())
        .split_for_parts();
    finish(doc)
}

async fn not_found() -> Response {
    ApiError::new(ErrorCode::NotFound, "no such route").into_response()
}

async fn method_not_allowed() -> Response {
    ApiError::new(ErrorCode::MethodNotAllowed, "method not allowed").into_response()
}

fn panic_response(_: Box<dyn std::any::Any + Send + 'static>) -> Response {
    tracing::error!("handler panicked");
    ApiError::new(ErrorCode::InternalError, "internal error").into_response()
}

/// The whole HTTP application.
pub fn router(state: AppState, config: &GatewayConfig) -> Router {
    let (api, doc) = OpenApiRouter::with_openapi(ApiDoc::openapi())
        .merge(routes::router())
        .split_for_parts();
    let doc = Arc::new(finish(doc));
    let request_id = HeaderName::from_static("x-request-id");
    api.route(
        "/openapi.json",
        get(move || {
            let doc = doc.clone();
            async move { axum::Json(doc.as_ref().clone()) }
        }),
    )
    .merge(docs_page())
    .fallback(not_found)
    .method_not_allowed_fallback(method_not_allowed)
    .with_state(state)
    .layer(DefaultBodyLimit::max(config.max_body_bytes))
    .layer(CatchPanicLayer::custom(panic_response))
    .layer(PropagateRequestIdLayer::new(request_id.clone()))
    .layer(TraceLayer::new_for_http())
    .layer(SetRequestIdLayer::new(request_id, MakeRequestUuid))
    .layer(axum::middleware::map_request(drop_unusable_request_id))
}

/// The API reference at `/docs`: Swagger UI, its assets compiled into the binary (no network),
/// rendering `/openapi.json`; no call to an outside validator.
fn docs_page() -> Router<AppState> {
    let config = utoipa_swagger_ui::Config::new(["/openapi.json"])
        .validator_url("none")
        .try_it_out_enabled(true)
        .display_request_duration(true)
        .persist_authorization(true);
    Router::from(utoipa_swagger_ui::SwaggerUi::new("/docs").config(config))
}

/// Keeps a client's `X-Request-Id` only when it is 1 to 128 visible ASCII characters; any
/// other value is dropped, and a new UUID takes its place.
async fn drop_unusable_request_id(mut request: axum::extract::Request) -> axum::extract::Request {
    let usable = |value: &axum::http::HeaderValue| {
        let bytes = value.as_bytes();
        (1..=128).contains(&bytes.len()) && bytes.iter().all(|b| (0x21..=0x7e).contains(b))
    };
    let headers = request.headers_mut();
    let values: Vec<_> = headers.get_all("x-request-id").iter().collect();
    if values.len() != 1 || !usable(values[0]) {
        headers.remove("x-request-id");
    }
    request
}

/// A gateway whose listener is bound.
pub struct GatewayApp {
    listener: TcpListener,
    router: Router,
}

impl GatewayApp {
    pub async fn build(config: GatewayConfig) -> anyhow::Result<GatewayApp> {
        let state = AppState::new(&config)?;
        let router = router(state, &config);
        let listener = TcpListener::bind(config.http_addr)
            .await
            .with_context(|| format!("binding HTTP on {}", config.http_addr))?;
        Ok(GatewayApp { listener, router })
    }

    pub fn local_addr(&self) -> SocketAddr {
        self.listener
            .local_addr()
            .expect("a bound listener has an address")
    }

    /// Serves until `cancel` fires, then lets in-flight requests finish (up to 10 s).
    pub async fn run_until_stopped(self, cancel: CancellationToken) -> anyhow::Result<()> {
        let service = self
            .router
            .into_make_service_with_connect_info::<SocketAddr>();
        let stop = cancel.clone();
        let server = axum::serve(self.listener, service)
            .with_graceful_shutdown(async move { stop.cancelled().await });
        tokio::select! {
            result = server => result.context("HTTP server"),
            () = async {
                cancel.cancelled().await;
                tokio::time::sleep(Duration::from_secs(10)).await;
            } => {
                tracing::warn!("in-flight requests did not finish in time");
                Ok(())
            }
        }
    }
}

/// The status a catalogue code answers with.
pub fn status_of(code: ErrorCode) -> StatusCode {
    StatusCode::from_u16(code.http_status()).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR)
}
