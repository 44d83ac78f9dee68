//! Waking the job streams when deliveries are committed. Callers do
//! `core.webhook_wakeup.wake().await` after the commit; the streams of this core wake at once,
//! and on PostgreSQL every other core's streams wake too: `wake` sends `pg_notify` on
//! [`CHANNEL`] and each core's [`WebhookWakeup::listen`] turns those notifications into local
//! wake-ups.
//!
//! A wake-up is a hint, never the guarantee: a stream that misses one (a lost notification,
//! LISTEN reconnecting) still finds due deliveries at its next poll.

use std::time::Duration;

use sea_orm::{ConnectionTrait, DatabaseConnection, DbBackend};
use tokio::sync::Notify;
use tokio::sync::futures::Notified;
use tokio_util::sync::CancellationToken;

/// The PostgreSQL channel on which cores announce committed deliveries.
pub const CHANNEL: &str = "bm_webhook_jobs";

/// How long LISTEN waits before connecting again after it failed.
const RELISTEN: Duration = Duration::from_secs(2);

/// The wake-up of one core's job streams.
#[derive(Debug)]
pub struct WebhookWakeup {
    db: DatabaseConnection,
    notify: Notify,
}

impl WebhookWakeup {
    pub fn new(db: DatabaseConnection) -> WebhookWakeup {
        WebhookWakeup {
            db,
            notify: Notify::new(),
        }
    }

    /// Tells the job streams of this core, and on PostgreSQL of every core, that deliveries
    /// were committed.
    pub async fn wake(&self) {
        self.notify.notify_waiters();
        if self.db.get_database_backend() == DbBackend::Postgres {
            let notify = format!("SELECT pg_notify('{CHANNEL}', '')");
            if let Err(err) = self.db.execute_unprepared(&notify).await {
                tracing::debug!(error = %err, "pg_notify failed; workers fall back to polling");
            }
        }
    }

    /// The next wake-up (enable it before looking for work, so none is missed in between).
    pub fn notified(&self) -> Notified<'_> {
        self.notify.notified()
    }

    /// On PostgreSQL, turns other cores' `pg_notify` into this core's wake-ups until `cancel`
    /// fires (LISTEN connects again after a failure); on SQLite there are no other cores.
    pub async fn listen(&self, cancel: CancellationToken) {
        if self.db.get_database_backend() != DbBackend::Postgres {
            return;
        }
        let pool = self.db.get_postgres_connection_pool().clone();
        loop {
            let listening = async {
                let mut listener = sqlx::postgres::PgListener::connect_with(&pool).await?;
                listener.listen(CHANNEL).await?;
                loop {
                    listener.recv().await?;
                    self.notify.notify_waiters();
                }
                #[allow(unreachable_code)]
                Ok::<(), sqlx::Error>(())
            };
            tokio::select! {
                () = cancel.cancelled() => return,
                result = listening => {
                    if let Err(err) = result {
                        tracing::warn!(error = %err, "LISTEN for webhook jobs failed; retrying");
                    }
                }
            }
            tokio::select! {
                () = cancel.cancelled() => return,
                () = tokio::time::sleep(RELISTEN) => {}
            }
        }
    }
}
