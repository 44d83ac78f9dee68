//! The gateway's configuration: flags with environment-variable fallbacks.

use std::net::SocketAddr;
use std::time::Duration;

use clap::{ArgAction, Args};

/// `CORE_TURN_MS` unless set: 5 ms.
pub const DEFAULT_CORE_TURN_MS: u64 = 5;

#[derive(Debug, Clone, Args)]
pub struct GatewayConfig {
    /// The core's gRPC address; several cores separated by commas (calls go round robin over
    /// those that answer).
    #[arg(long, env = "CORE_URL", default_value = "http://127.0.0.1:50051")]
    pub core_url: String,

    /// With several cores: milliseconds of a turn, every call of one turn going to the same
    /// core, a fixed hash of the turn's number (turns follow the wall clock, so gateways turn
    /// together and the sends that arrive together are batched together); 0 for call by call.
    #[arg(long, env = "CORE_TURN_MS", default_value_t = DEFAULT_CORE_TURN_MS,
          value_parser = clap::value_parser!(u64).range(0..=1000))]
    pub core_turn_ms: u64,

    /// PEM CA certificate to trust for an https:// CORE_URL (default: the system's roots).
    #[arg(long, env = "CORE_TLS_CA")]
    pub core_tls_ca: Option<std::path::PathBuf>,

    /// The core's INTERNAL_TOKEN: with it the core trusts the client IP and User-Agent the
    /// gateway forwards (without one configured, the core trusts only loopback callers).
    #[arg(long, env = "INTERNAL_TOKEN", hide_env_values = true)]
    pub internal_token: Option<String>,

    /// Where `GET /metrics` (Prometheus text) is served, on a listener of its own (never the
    /// API port); `off` for nowhere.
    #[arg(long, env = "METRICS_ADDR", default_value = "127.0.0.1:9465")]
    pub metrics_addr: proto::metrics::MetricsAddr,

    #[command(flatten)]
    pub http: HttpSettings,
}

/// The HTTP side of the gateway: what the standalone gateway and the all-in-one both take.
#[derive(Debug, Clone, Args)]
pub struct HttpSettings {
    /// Address of the HTTP server (port 0 picks a free port).
    #[arg(long, env = "HTTP_ADDR", default_value = "127.0.0.1:8080")]
    pub http_addr: SocketAddr,

    /// Take the client IP from the last `X-Forwarded-For` entry (only behind a proxy you run).
    #[arg(
        long,
        env = "TRUST_PROXY",
        default_value = "false",
        action = ArgAction::Set,
        value_parser = clap::builder::BoolishValueParser::new()
    )]
    pub trust_proxy: bool,

    /// Largest accepted request body, in bytes (over it: 413 `payload_too_large`).
    #[arg(long, env = "MAX_BODY_BYTES", default_value_t = 64 * 1024)]
    pub max_body_bytes: usize,

    /// Seconds a call to the core may take before the gateway answers 503.
    #[arg(long, env = "CORE_TIMEOUT_SECS", default_value_t = 30)]
    pub core_timeout_secs: u64,

    /// Seconds a client has to send a request's headers (then the connection is closed).
    #[arg(long, env = "HEADER_READ_TIMEOUT_SECS", default_value_t = 10)]
    pub header_read_timeout_secs: u64,

    /// Seconds a client has to send a request's body (then 408 `request_timeout`).
    #[arg(long, env = "BODY_READ_TIMEOUT_SECS", default_value_t = 30)]
    pub body_read_timeout_secs: u64,
}

impl Default for HttpSettings {
    fn default() -> Self {
        HttpSettings {
            http_addr: SocketAddr::from(([127, 0, 0, 1], 0)),
            trust_proxy: false,
            max_body_bytes: 64 * 1024,
            core_timeout_secs: 30,
            header_read_timeout_secs: 10,
            body_read_timeout_secs: 30,
        }
    }
}

impl HttpSettings {
    pub fn header_read_timeout(&self) -> Duration {
        Duration::from_secs(self.header_read_timeout_secs.max(1))
    }

    pub fn body_read_timeout(&self) -> Duration {
        Duration::from_secs(self.body_read_timeout_secs.max(1))
    }
}

impl GatewayConfig {
    /// Defaults, with the given core address and port 0; for tests and embedding.
    pub fn for_core(core_url: impl Into<String>) -> Self {
        GatewayConfig {
            core_url: core_url.into(),
            core_turn_ms: DEFAULT_CORE_TURN_MS,
            core_tls_ca: None,
            internal_token: None,
            metrics_addr: proto::metrics::MetricsAddr(None),
            http: HttpSettings::default(),
        }
    }
}
