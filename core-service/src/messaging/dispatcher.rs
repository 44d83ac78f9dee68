//! The dispatcher: leases due outbox rows (so several cores share the work and a dead one's
//! rows come back when its leases lapse), hands each message to the delivery provider and
//! records the outcome exactly once.

use std::sync::Arc;
use std::time::Duration;

use futures::StreamExt;
use tokio_util::sync::CancellationToken;
use uuid::Uuid;

use super::delivery::DeliveryProvider;
use super::store;
use crate::state::Core;

/// How long a leased message is ours before another dispatcher may take it.
const LEASE: Duration = Duration::from_secs(30);
/// How often an idle dispatcher looks for due rows written by other cores.
const POLL: Duration = Duration::from_millis(500);
/// How long to wait before retrying a message whose attempt could not be made.
const BACKOFF: Duration = Duration::from_secs(5);

pub struct Dispatcher {
    core: Arc<Core>,
    provider: Arc<dyn DeliveryProvider>,
    owner: String,
    concurrency: usize,
}

impl Dispatcher {
    pub fn new(core: Arc<Core>, provider: Arc<dyn DeliveryProvider>, concurrency: usize) -> Self {
        Dispatcher {
            core,
            provider,
            owner: format!("dispatcher-{}", Uuid::new_v4()),
            concurrency: concurrency.max(1),
        }
    }

    /// Runs until `cancel` fires. Wakes at once when this core accepts a message, and polls for
    /// the others'.
    pub async fn run(self, cancel: CancellationToken) {
        loop {
            let worked = match self.dispatch_due().await {
                Ok(n) => n > 0,
                Err(err) => {
                    tracing::warn!(error = %err, "dispatching failed");
                    false
                }
            };
            if worked {
                continue;
            }
            tokio::select! {
                () = cancel.cancelled() => return,
                () = self.core.dispatch_wakeup.notified() => {}
                () = tokio::time::sleep(POLL) => {}
            }
        }
    }

    /// Leases and delivers one batch of due messages; returns how many were leased.
    pub async fn dispatch_due(&self) -> anyhow::Result<usize> {
        let now = self.core.clock.now_ms();
        let ids = store::lease_due(
            &self.core.db,
            &self.owner,
            now,
            now + LEASE.as_millis() as i64,
            (self.concurrency * 4) as u64,
        )
        .await?;
        let count = ids.len();
        futures::stream::iter(ids)
            .for_each_concurrent(self.concurrency, |id| async move {
                if let Err(err) = self.dispatch_one(id).await {
                    tracing::warn!(error = %err, message = %id, "delivery attempt failed; will retry");
                    let due = self.core.clock.now_ms() + BACKOFF.as_millis() as i64;
                    let _ = store::postpone(&self.core.db, id, due).await;
                }
            })
            .await;
        Ok(count)
    }

    async fn dispatch_one(&self, id: Uuid) -> crate::error::AppResult<()> {
        let Some(message) = store::message(&self.core.db, id).await? else {
            return Ok(());
        };
        if message.status != "accepted" {
            // Already decided (a lease that lapsed mid-delivery): just drop the outbox row.
            let outcome = store::Outcome {
                delivered: message.status == "delivered",
                reason: None,
            };
            store::record_outcome(&self.core.db, &message, &outcome, self.core.clock.now()).await?;
            return Ok(());
        }
        let outcome = self.provider.deliver(&self.core, &message).await?;
        let (recorded, queued) =
            store::record_outcome(&self.core.db, &message, &outcome, self.core.clock.now()).await?;
        if queued > 0 {
            self.core.wake_webhook_workers().await;
        }
        tracing::info!(
            message = %id,
            delivered = outcome.delivered,
            reason = outcome.reason.as_deref().unwrap_or(""),
            recorded,
            "message outcome"
        );
        Ok(())
    }
}
