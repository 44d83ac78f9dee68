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
    .merge(crate::guide::router())
    .merge(crate::console::router())
    .fallback(not_found)
    .method_not_allowed_fallback(method_not_allowed)
    .with_state(state)
    .layer(DefaultBodyLimit::max(config.http.max_body_bytes))
    .layer(axum::middleware::from_fn_with_state(
        BodyPolicy {
            max_bytes: config.http.max_body_bytes,
            timeout: config.http.body_read_timeout(),
        },
        read_body_first,
    ))
    .layer(axum::middleware::from_fn(refuse_oversized_headers))
    .layer(CatchPanicLayer::custom(panic_response))
    .layer(PropagateRequestIdLayer::new(request_id.clone()))
    .layer(axum::middleware::from_fn(http_metrics))
    .layer(access_log(config.http.trust_proxy))
    .layer(SetRequestIdLayer::new(request_id, MakeRequestUuid))
    .layer(axum::middleware::map_request(drop_unusable_request_id))
}

/// Counts every request by route template, method and status, with its latency:
/// `http_requests_total{method, route, status}` and
/// `http_request_duration_seconds{method, route}`.
async fn http_metrics(request: axum::extract::Request, next: axum::middleware::Next) -> Response {
    let route = request
        .extensions()
        .get::<axum::extract::MatchedPath>()
        .map_or("(no route)", |p| p.as_str())
        .to_string();
    let method = request.method().as_str().to_string();
    let started = std::time::Instant::now();
    let response = next.run(request).await;
    metrics::counter!(
        "http_requests_total",
        "method" => method.clone(),
        "route" => route.clone(),
        "status" => response.status().as_u16().to_string(),
    )
    .increment(1);
    metrics::histogram!("http_request_duration_seconds", "method" => method, "route" => route)
        .record(started.elapsed().as_secs_f64());
    response
}

/// One access-log line per request (target `access`, at `info`): method, route template (never
/// the raw path, which may hold a phone number), status, latency, request id and client IP.
/// The request's span carries the request id, so every line the request causes names it.
fn access_log(
    trust_proxy: bool,
) -> TraceLayer<
    tower_http::classify::SharedClassifier<tower_http::classify::ServerErrorsAsFailures>,
    impl tower_http::trace::MakeSpan<axum::body::Body> + Clone,
    (),
    impl tower_http::trace::OnResponse<axum::body::Body> + Clone,
    (),
    (),
    (),
> {
    TraceLayer::new_for_http()
        .make_span_with(move |request: &axum::http::Request<axum::body::Body>| {
            let route = request
                .extensions()
                .get::<axum::extract::MatchedPath>()
                .map_or("(no route)", |p| p.as_str());
            let peer = request
                .extensions()
                .get::<axum::extract::ConnectInfo<SocketAddr>>()
                .map(|c| c.0);
            let client_ip = crate::extract::client_ip(request.headers(), peer, trust_proxy)
                .map(|ip| ip.to_string())
                .unwrap_or_default();
            let request_id = request
                .headers()
                .get("x-request-id")
                .and_then(|v| v.to_str().ok())
                .unwrap_or_default();
            tracing::info_span!(
                "request",
                method = %request.method(),
                route,
                request_id,
                client_ip,
            )
        })
        .on_request(())
        .on_response(
            |response: &Response, latency: Duration, _span: &tracing::Span| {
                let status = response.status().as_u16();
                let latency_ms = latency.as_secs_f64() * 1000.0;
                if response.status().is_server_error() {
                    tracing::error!(target: "access", status, latency_ms, "request failed");
                } else {
                    tracing::info!(target: "access", status, latency_ms, "request");
                }
            },
        )
        .on_body_chunk(())
        .on_eos(())
        .on_failure(())
}

/// At most this many request headers (the HTTP server itself accepts up to
/// [`SERVER_MAX_HEADERS`], so that the refusal is the envelope).
pub const MAX_HEADERS: usize = 100;
/// At most this many bytes in one header value, and in all headers together (names and values):
/// what the gateway forwards to the core must fit the core's metadata limit.
pub const MAX_HEADER_VALUE_BYTES: usize = 8 * 1024;
pub const MAX_HEADER_BYTES: usize = 16 * 1024;
/// The HTTP server's own cap on headers: above it the connection gets a bare 431.
const SERVER_MAX_HEADERS: usize = 1000;

#[derive(Debug, Clone, Copy)]
struct BodyPolicy {
    max_bytes: usize,
    timeout: Duration,
}

/// Reads the whole request body (up to `MAX_BODY_BYTES`, within `BODY_READ_TIMEOUT_SECS`)
/// before any route runs. A route that refuses early (401, 404...) would otherwise answer while
/// the client is still sending, and the unread body would force the connection closed under
/// the client's feet (a reset instead of the answer, or a failed next request on a reused
/// connection). Refusals made here close the connection explicitly.
async fn read_body_first(
    axum::extract::State(policy): axum::extract::State<BodyPolicy>,
    request: axum::extract::Request,
    next: axum::middleware::Next,
) -> Response {
    let too_large = || {
        closing(ApiError::new(
            ErrorCode::PayloadTooLarge,
            "request body: larger than this service accepts (MAX_BODY_BYTES)",
        ))
    };
    let declared = request
        .headers()
        .get(axum::http::header::CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.parse::<u64>().ok());
    if declared.is_some_and(|n| n > policy.max_bytes as u64) {
        return too_large();
    }
    let (parts, body) = request.into_parts();
    let read = tokio::time::timeout(policy.timeout, axum::body::to_bytes(body, policy.max_bytes));
    let bytes = match read.await {
        Ok(Ok(bytes)) => bytes,
        Ok(Err(err)) if is_length_limit(&err) => return too_large(),
        Ok(Err(_)) => {
            return closing(ApiError::new(
                ErrorCode::MalformedJson,
                "request body: could not be read",
            ));
        }
        Err(_) => {
            return closing(ApiError::new(
                ErrorCode::RequestTimeout,
                "request body: not received in time (BODY_READ_TIMEOUT_SECS)",
            ));
        }
    };
    let request = axum::extract::Request::from_parts(parts, axum::body::Body::from(bytes));
    next.run(request).await
}

fn is_length_limit(err: &axum::Error) -> bool {
    let mut source: Option<&(dyn std::error::Error + 'static)> = Some(err);
    while let Some(e) = source {
        if e.to_string().contains("length limit exceeded") {
            return true;
        }
        source = e.source();
    }
    false
}

/// A refusal after which the connection is closed (the request's body may be unread).
fn closing(error: ApiError) -> Response {
    let mut response = error.into_response();
    response.headers_mut().insert(
        axum::http::header::CONNECTION,
        axum::http::HeaderValue::from_static("close"),
    );
    response
}

/// 431 `request_header_too_large` in the envelope for too many or too large headers.
async fn refuse_oversized_headers(
    request: axum::extract::Request,
    next: axum::middleware::Next,
) -> Response {
    let headers = request.headers();
    let total: usize = headers
        .iter()
        .map(|(name, value)| name.as_str().len() + value.len())
        .sum();
    let why = if headers.len() > MAX_HEADERS {
        Some(format!("at most {MAX_HEADERS} request headers"))
    } else if let Some((name, _)) = headers
        .iter()
        .find(|(_, value)| value.len() > MAX_HEADER_VALUE_BYTES)
    {
        Some(format!("{name}: at most {MAX_HEADER_VALUE_BYTES} bytes"))
    } else if total > MAX_HEADER_BYTES {
        Some(format!(
            "request headers: at most {MAX_HEADER_BYTES} bytes in all"
        ))
    } else {
        None
    };
    match why {
        Some(why) => closing(ApiError::new(ErrorCode::RequestHeaderTooLarge, why)),
        None => next.run(request).await,
    }
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
    header_read_timeout: Duration,
}

impl GatewayApp {
    pub async fn build(config: GatewayConfig) -> anyhow::Result<GatewayApp> {
        let state = AppState::new(&config)?;
        let router = router(state, &config);
        let listener = TcpListener::bind(config.http.http_addr)
            .await
            .with_context(|| format!("binding HTTP on {}", config.http.http_addr))?;
        Ok(GatewayApp {
            listener,
            router,
            header_read_timeout: config.http.header_read_timeout(),
        })
    }

    pub fn local_addr(&self) -> SocketAddr {
        self.listener
            .local_addr()
            .expect("a bound listener has an address")
    }

    /// Serves until `cancel` fires, then lets in-flight requests finish (up to 10 s).
    ///
    /// HTTP/1.1 and HTTP/2 (h2c), with a header-read timeout (`HEADER_READ_TIMEOUT_SECS`: a
    /// client that has not sent its headers by then is disconnected) and room for more headers
    /// than the API takes, so that too many are refused with the envelope (431).
    pub async fn run_until_stopped(self, cancel: CancellationToken) -> anyhow::Result<()> {
        use hyper_util::rt::{TokioExecutor, TokioIo, TokioTimer};
        use hyper_util::server::conn::auto;
        use hyper_util::server::graceful::GracefulShutdown;
        use hyper_util::service::TowerToHyperService;
        use tower::ServiceExt;

        let mut builder = auto::Builder::new(TokioExecutor::new());
        builder
            .http1()
            .timer(TokioTimer::new())
            .header_read_timeout(self.header_read_timeout)
            .max_headers(SERVER_MAX_HEADERS);
        builder
            .http2()
            .timer(TokioTimer::new())
            .max_header_list_size((MAX_HEADER_BYTES * 4) as u32);
        let graceful = GracefulShutdown::new();
        loop {
            let (stream, peer) = tokio::select! {
                accepted = self.listener.accept() => match accepted {
                    Ok(accepted) => accepted,
                    Err(err) => {
                        // Out of file descriptors and the like: wait a moment, keep serving.
                        tracing::warn!(error = %err, "accept failed");
                        tokio::time::sleep(Duration::from_millis(50)).await;
                        continue;
                    }
                },
                () = cancel.cancelled() => break,
            };
            let _ = stream.set_nodelay(true);
            let service = self.router.clone().map_request(
                move |mut request: axum::extract::Request<hyper::body::Incoming>| {
                    request
                        .extensions_mut()
                        .insert(axum::extract::ConnectInfo(peer));
                    request.map(axum::body::Body::new)
                },
            );
            let connection = builder
                .serve_connection_with_upgrades(
                    TokioIo::new(stream),
                    TowerToHyperService::new(service),
                )
                .into_owned();
            let connection = graceful.watch(connection);
            tokio::spawn(async move {
                if let Err(err) = connection.await {
                    tracing::debug!(error = %err, "connection ended with an error");
                }
            });
        }
        drop(self.listener);
        tokio::select! {
            () = graceful.shutdown() => {}
            () = tokio::time::sleep(Duration::from_secs(10)) => {
                tracing::warn!("in-flight requests did not finish in time");
            }
        }
        Ok(())
    }
}

/// The status a catalogue code answers with.
pub fn status_of(code: ErrorCode) -> StatusCode {
    StatusCode::from_u16(code.http_status()).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR)
}
