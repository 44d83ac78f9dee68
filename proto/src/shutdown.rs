//! How every binary learns it should stop: Ctrl-C or SIGTERM.

use tokio_util::sync::CancellationToken;

/// Resolves when the process receives Ctrl-C or SIGTERM.
pub async fn signal() {
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

/// Cancels `cancel` when the process receives Ctrl-C or SIGTERM.
pub fn cancel_on_signal(cancel: CancellationToken) {
    tokio::spawn(async move {
        signal().await;
        cancel.cancel();
    });
}
