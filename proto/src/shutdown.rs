//! How every binary learns it should stop: Ctrl-C or SIGTERM.
//!
//! The handlers are installed when [`listen`] (or [`cancel_on_signal`]) is called, not when a
//! task first waits on them: a binary calls it before it says it listens, so a SIGTERM sent as
//! soon as that line appears is a graceful stop, never the default action's abrupt end. (On the
//! current-thread scheduler a spawned task does not run until its spawner yields.)

use tokio_util::sync::CancellationToken;

/// The stop signals, their handlers installed: [`Signals::recv`] waits for the first.
pub struct Signals {
    #[cfg(unix)]
    interrupt: Option<tokio::signal::unix::Signal>,
    #[cfg(unix)]
    terminate: Option<tokio::signal::unix::Signal>,
}

/// Installs the handlers for Ctrl-C and SIGTERM now. Needs a runtime.
pub fn listen() -> Signals {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{SignalKind, signal};
        Signals {
            interrupt: signal(SignalKind::interrupt()).ok(),
            terminate: signal(SignalKind::terminate()).ok(),
        }
    }
    #[cfg(not(unix))]
    Signals {}
}

impl Signals {
    /// Resolves when the process receives Ctrl-C or SIGTERM (never, for a handler that could
    /// not be installed).
    pub async fn recv(self) {
        #[cfg(unix)]
        {
            async fn on(signal: Option<tokio::signal::unix::Signal>) {
                match signal {
                    Some(mut signal) => {
                        signal.recv().await;
                    }
                    None => std::future::pending::<()>().await,
                }
            }
            let Signals {
                interrupt,
                terminate,
            } = self;
            tokio::select! {
                () = on(interrupt) => {},
                () = on(terminate) => {},
            }
        }
        #[cfg(not(unix))]
        {
            let Signals {} = self;
            let _ = tokio::signal::ctrl_c().await;
        }
        tracing::info!("shutting down");
    }
}

/// Cancels `cancel` when the process receives Ctrl-C or SIGTERM; the handlers are installed
/// before this returns.
pub fn cancel_on_signal(cancel: CancellationToken) {
    let signals = listen();
    tokio::spawn(async move {
        signals.recv().await;
        cancel.cancel();
    });
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;

    /// A SIGTERM sent right after `cancel_on_signal` returns, before the task waiting for it has
    /// run even once, cancels: the handler was installed by then, so the process is not ended
    /// by the signal's default action (this test's process would be).
    #[test]
    fn a_sigterm_right_after_cancel_on_signal_cancels_on_a_current_thread_runtime() {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap();
        runtime.block_on(async {
            let cancel = CancellationToken::new();
            cancel_on_signal(cancel.clone());
            // No await in between: the spawned task has not been polled yet.
            let sent = std::process::Command::new("kill")
                .args(["-TERM", &std::process::id().to_string()])
                .status()
                .unwrap();
            assert!(sent.success());
            let cancelled =
                tokio::time::timeout(std::time::Duration::from_secs(30), cancel.cancelled()).await;
            assert!(cancelled.is_ok(), "the SIGTERM did not cancel");
        });
    }
}
