//! Waking the job streams when deliveries are committed. Callers do
//! `core.webhook_wakeup.wake()` after the commit; the streams of this core wake at once,
//! and on PostgreSQL every other core's streams wake too: [`WebhookWakeup::listen`] sends
//! `pg_notify` on [`CHANNEL`] for the wake-ups of this core and turns the other cores'
//! notifications into local wake-ups.
//!
//! The announcements go out from one task, one at a time: the wake-ups that come while one is
//! on its way share the next, so a busy core sends one `pg_notify` per round trip rather than
//! one per committed batch, and no caller waits for it. Each names its core, whose own
//! listener ignores it (its streams were woken already).
//!
//! A wake-up is a hint, never the guarantee: a stream that misses one (a lost notification,
//! LISTEN reconnecting) still finds due deliveries at its next poll, and every time LISTEN
//! connects (again, after a failover say) the streams are woken at once to look.

use std::time::Duration;

use sea_orm::{ConnectionTrait, DatabaseConnection};
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
    /// Other cores share the database (PostgreSQL, `Tuning::shared`): wake-ups are announced.
    shared: bool,
    notify: Notify,
    /// Set when other cores are to hear of a wake-up (one permit however many come).
    announce: Notify,
    /// The payload of this core's notifications.
    id: String,
}

impl WebhookWakeup {
    pub fn new(db: DatabaseConnection, shared: bool) -> WebhookWakeup {
        WebhookWakeup {
            db,
            shared,
            notify: Notify::new(),
            announce: Notify::new(),
            id: uuid::Uuid::new_v4().simple().to_string(),
        }
    }

    /// Tells the job streams of this core, and on PostgreSQL of every core (through
    /// [`WebhookWakeup::listen`]'s task), that deliveries were committed.
    pub fn wake(&self) {
        self.notify.notify_waiters();
        if self.shared {
            self.announce.notify_one();
        }
    }

    /// The next wake-up (enable it before looking for work, so none is missed in between).
    pub fn notified(&self) -> Notified<'_> {
        self.notify.notified()
    }

    /// On PostgreSQL, until `cancel` fires: announces this core's wake-ups to the other cores
    /// and turns theirs into this core's (LISTEN connects again after a failure). On SQLite
    /// there are no other cores.
    pub async fn listen(&self, cancel: CancellationToken) {
        if !self.shared {
            return;
        }
        tokio::select! {
            () = self.announcer(cancel.clone()) => {}
            () = self.listener(cancel) => {}
        }
    }

    /// Sends one `pg_notify` per burst of wake-ups, one at a time.
    async fn announcer(&self, cancel: CancellationToken) {
        let notify = format!("SELECT pg_notify('{CHANNEL}', '{}')", self.id);
        loop {
            tokio::select! {
                () = cancel.cancelled() => return,
                () = self.announce.notified() => {}
            }
            if let Err(err) = self.db.execute_unprepared(&notify).await {
                tracing::debug!(error = %err, "pg_notify failed; other cores' workers fall back to polling");
            }
        }
    }

    async fn listener(&self, cancel: CancellationToken) {
        let pool = self.db.get_postgres_connection_pool().clone();
        loop {
            let listening = async {
                let mut listener = sqlx::postgres::PgListener::connect_with(&pool).await?;
                listener.listen(CHANNEL).await?;
                // Listening (again): whatever was announced while not listening is lost, so
                // the streams look for work at once instead of at their next poll.
                self.notify.notify_waiters();
                loop {
                    match listener.try_recv().await? {
                        Some(notification) if notification.payload() == self.id => {}
                        Some(_) => self.notify.notify_waiters(),
                        // The connection was lost; the next call connects and listens again
                        // (a failover, a restarted server): poll at once, as above.
                        None => {
                            tracing::info!(
                                "LISTEN for webhook jobs lost its connection; listening again"
                            );
                            self.notify.notify_waiters();
                        }
                    }
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
