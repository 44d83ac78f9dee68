//! Logging setup shared by the binaries.

/// Installs the shared logging setup ([`proto::telemetry`]): `RUST_LOG`, `LOG_FORMAT=json`,
/// colours only on a terminal.
pub fn init() {
    proto::telemetry::init_logging(proto::telemetry::DEFAULT_FILTER);
}

/// Resolves when the process receives Ctrl-C or SIGTERM.
pub async fn shutdown_signal() {
    let ctrl_c = async {
        let _ = tokio::signal::ctrl_c().await;
    };
    #[cfg(unix)]
    let term = async {
        match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            Ok(mut s) => {
                s.recv().await;
            }
            Err(_) => std::future::pending::<()>().await,
        }
    };
    #[cfg(not(unix))]
    let term = std::future::pending::<()>();
    tokio::select! {
        () = ctrl_c => {},
        () = term => {},
    }
    tracing::info!("shutting down");
}
