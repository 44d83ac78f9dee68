//! Reading the caller's context from gRPC metadata.

use tonic::Request;

use crate::identity::service::ClientInfo;

/// The client IP the gateway forwarded (`x-client-ip`), else the peer address; and the
/// forwarded User-Agent (`x-client-user-agent`), else the gRPC caller's own.
pub fn client_info<T>(request: &Request<T>) -> ClientInfo {
    let meta = request.metadata();
    let text = |name: &str| {
        meta.get(name)
            .and_then(|v| v.to_str().ok())
            .map(str::trim)
            .filter(|v| !v.is_empty())
            .map(|v| v.chars().take(512).collect::<String>())
    };
    let ip = text("x-client-ip")
        .and_then(|ip| ip.parse::<std::net::IpAddr>().ok())
        .or_else(|| request.remote_addr().map(|a| a.ip()))
        .map(|ip| ip.to_string());
    ClientInfo {
        ip,
        user_agent: text("x-client-user-agent").or_else(|| text("user-agent")),
    }
}

/// The `authorization` metadata value, if any.
pub fn authorization<T>(request: &Request<T>) -> Option<&str> {
    request
        .metadata()
        .get("authorization")
        .and_then(|v| v.to_str().ok())
}
