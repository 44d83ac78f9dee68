//! Prometheus metrics, shared by the three binaries: one recorder per process (the `metrics`
//! facade; every crate records through `metrics::counter!` and friends) and `GET /metrics` in
//! the Prometheus text format on a listener of its own (`METRICS_ADDR`), never on the public
//! API port. The all-in-one serves the metrics of its core, gateway and worker on one listener.

use std::convert::Infallible;
use std::net::SocketAddr;
use std::sync::OnceLock;

use http_body_util::Full;
use hyper::body::Bytes;
use hyper::{Request, Response, StatusCode};
use metrics_exporter_prometheus::{Matcher, PrometheusBuilder, PrometheusHandle};
use tokio::net::TcpListener;
use tokio_util::sync::CancellationToken;

/// Histogram buckets of every `_seconds` metric: 1 ms to 30 s.
const SECONDS_BUCKETS: &[f64] = &[
    0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0,
];

/// This process's recorder (installed on first use; later calls get the same handle).
pub fn handle() -> PrometheusHandle {
    static HANDLE: OnceLock<PrometheusHandle> = OnceLock::new();
    HANDLE
        .get_or_init(|| {
            let recorder = PrometheusBuilder::new()
                .set_buckets_for_metric(Matcher::Suffix("_seconds".into()), SECONDS_BUCKETS)
                .expect("valid buckets")
                .build_recorder();
            let handle = recorder.handle();
            // Another recorder may already be installed (a test harness): then this one only
            // renders what was recorded through it, which is nothing; tests use `handle()`.
            let _ = metrics::set_global_recorder(recorder);
            handle
        })
        .clone()
}

/// The Prometheus text of everything recorded so far.
pub fn render() -> String {
    handle().render()
}

/// A bound metrics listener.
pub struct MetricsServer {
    listener: TcpListener,
}

impl MetricsServer {
    /// Binds `addr` and installs the recorder.
    pub async fn bind(addr: SocketAddr) -> std::io::Result<MetricsServer> {
        let listener = TcpListener::bind(addr).await?;
        let _ = handle();
        Ok(MetricsServer { listener })
    }

    pub fn local_addr(&self) -> SocketAddr {
        self.listener
            .local_addr()
            .expect("a bound listener has an address")
    }

    /// Answers `GET /metrics` (anything else: 404) until `cancel` fires.
    pub async fn run_until_stopped(self, cancel: CancellationToken) {
        let handle = handle();
        loop {
            let accepted = tokio::select! {
                () = cancel.cancelled() => return,
                accepted = self.listener.accept() => accepted,
            };
            let Ok((stream, _)) = accepted else {
                continue;
            };
            let handle = handle.clone();
            tokio::spawn(async move {
                let service =
                    hyper::service::service_fn(move |request: Request<hyper::body::Incoming>| {
                        let handle = handle.clone();
                        async move { Ok::<_, Infallible>(answer(&handle, &request)) }
                    });
                let _ = hyper::server::conn::http1::Builder::new()
                    .serve_connection(hyper_util::rt::TokioIo::new(stream), service)
                    .await;
            });
        }
    }
}

fn answer<B>(handle: &PrometheusHandle, request: &Request<B>) -> Response<Full<Bytes>> {
    let (status, content_type, body) =
        if request.method() == hyper::Method::GET && request.uri().path() == "/metrics" {
            handle.run_upkeep();
            (
                StatusCode::OK,
                "text/plain; version=0.0.4; charset=utf-8",
                handle.render(),
            )
        } else {
            (
                StatusCode::NOT_FOUND,
                "text/plain; charset=utf-8",
                "metrics are at /metrics\n".to_string(),
            )
        };
    let mut response = Response::new(Full::new(Bytes::from(body)));
    *response.status_mut() = status;
    response.headers_mut().insert(
        hyper::header::CONTENT_TYPE,
        hyper::header::HeaderValue::from_static(content_type),
    );
    response
}

/// Parses `METRICS_ADDR`: an address, or `off` (or empty) for no listener.
pub fn parse_addr(value: &str) -> Result<Option<SocketAddr>, String> {
    let value = value.trim();
    if value.is_empty() || value.eq_ignore_ascii_case("off") {
        return Ok(None);
    }
    value
        .parse()
        .map(Some)
        .map_err(|e| format!("METRICS_ADDR: {e} (an address such as 127.0.0.1:9464, or off)"))
}

/// The `METRICS_ADDR` setting: where `/metrics` is served, or nowhere (`off`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MetricsAddr(pub Option<SocketAddr>);

impl std::str::FromStr for MetricsAddr {
    type Err = String;

    fn from_str(value: &str) -> Result<Self, Self::Err> {
        parse_addr(value).map(MetricsAddr)
    }
}

impl MetricsAddr {
    /// Binds and serves `/metrics` in the background when an address is set; returns where.
    /// An address that cannot be bound (taken by another process) is logged as an error and
    /// the binary runs on without metrics: the service matters more than its metrics.
    pub async fn serve(self, cancel: CancellationToken) -> std::io::Result<Option<SocketAddr>> {
        let Some(addr) = self.0 else {
            return Ok(None);
        };
        let server = match MetricsServer::bind(addr).await {
            Ok(server) => server,
            Err(err) => {
                tracing::error!(%addr, error = %err, "METRICS_ADDR cannot be bound: no metrics are served");
                return Ok(None);
            }
        };
        let bound = server.local_addr();
        tokio::spawn(server.run_until_stopped(cancel));
        Ok(Some(bound))
    }
}
