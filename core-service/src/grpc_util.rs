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

/// Runs every call to its end in a task of its own, whatever the caller does: a client that
/// disconnects (or a deadline that passes) drops only the wait for the answer, never a
/// transaction half-way, so no connection goes back to the pool inside one.
#[derive(Debug, Clone, Copy, Default)]
pub struct DetachLayer;

impl<S> tower::Layer<S> for DetachLayer {
    type Service = Detach<S>;

    fn layer(&self, inner: S) -> Detach<S> {
        Detach(inner)
    }
}

#[derive(Debug, Clone)]
pub struct Detach<S>(S);

impl<S, R> tower::Service<R> for Detach<S>
where
    S: tower::Service<R>,
    S::Future: Send + 'static,
    S::Response: Send + 'static,
    S::Error: Send + 'static,
{
    type Response = S::Response;
    type Error = S::Error;
    type Future = futures::future::BoxFuture<'static, Result<S::Response, S::Error>>;

    fn poll_ready(
        &mut self,
        cx: &mut std::task::Context<'_>,
    ) -> std::task::Poll<Result<(), S::Error>> {
        self.0.poll_ready(cx)
    }

    fn call(&mut self, request: R) -> Self::Future {
        let call = tokio::spawn(self.0.call(request));
        Box::pin(async move {
            match call.await {
                Ok(result) => result,
                Err(err) if err.is_panic() => std::panic::resume_unwind(err.into_panic()),
                // Cancelled only when the runtime shuts down: nobody waits for an answer.
                Err(_) => std::future::pending().await,
            }
        })
    }
}
