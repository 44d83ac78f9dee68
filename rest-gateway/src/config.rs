//! The gateway's configuration: flags with environment-variable fallbacks.

use std::net::SocketAddr;

use clap::{ArgAction, Args};

#[derive(Debug, Clone, Args)]
pub struct GatewayConfig {
    /// Address of the HTTP server (port 0 picks a free port).
    #[arg(long, env = "HTTP_ADDR", default_value = "127.0.0.1:8080")]
    pub http_addr: SocketAddr,

    /// The core's gRPC address.
    #[arg(long, env = "CORE_URL", default_value = "http://127.0.0.1:50051")]
    pub core_url: String,

    /// Take the client IP from the last `X-Forwarded-For` entry (only behind a proxy you run).
    #[arg(
        long,
        env = "TRUST_PROXY",
        default_value = "false",
        action = ArgAction::Set,
        value_parser = clap::builder::BoolishValueParser::new()
    )]
    pub trust_proxy: bool,

    /// Largest accepted request body, in bytes.
    #[arg(long, env = "MAX_BODY_BYTES", default_value_t = 64 * 1024)]
    pub max_body_bytes: usize,

    /// Seconds a call to the core may take before the gateway answers 503.
    #[arg(long, env = "CORE_TIMEOUT_SECS", default_value_t = 30)]
    pub core_timeout_secs: u64,
}

impl GatewayConfig {
    /// Defaults, with the given core address and port 0; for tests and embedding.
    pub fn for_core(core_url: impl Into<String>) -> Self {
        GatewayConfig {
            http_addr: SocketAddr::from(([127, 0, 0, 1], 0)),
            core_url: core_url.into(),
            trust_proxy: false,
            max_body_bytes: 64 * 1024,
            core_timeout_secs: 30,
        }
    }
}
