//! The dispatcher: leases due outbox rows (so several cores share the work and a dead one's
//! rows come back when its leases lapse), hands each message to the delivery provider and
//! records the outcome exactly once.

use std::sync::Arc;
use std::time::Duration;

use tokio_util::sync::CancellationToken;
use uuid::Uuid;

use super::delivery::DeliveryProvider;
use super::store;
use crate::state::Core;

/// How long a leased message is ours before another dispatcher may take it.
const LEASE: Duration = Duration::from_secs(30);
/// How often an idle dispatcher looks for due rows written by other cores.
const POLL: Duration = Duration::from_millis(500);
/// A batch smaller than this is followed by a short pause ([`LINGER`]) before the next lease.
const LINGER_BELOW: usize = 32;
const LINGER: Duration = Duration::from_millis(4);
/// The most messages one lease takes.
const BATCH: usize = 128;
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
    /// the others'. Several lanes lease and record at once (their leases never overlap), so one
    /// batch's round trips do not hold up the next.
    pub async fn run(self, cancel: CancellationToken) {
        let lanes = match self.core.db.get_database_backend() {
            sea_orm::DbBackend::Postgres => 4,
            _ => 2,
        };
        let this = Arc::new(self);
        let tasks: Vec<_> = (0..lanes)
            .map(|_| tokio::spawn(this.clone().lane(cancel.clone())))
            .collect();
        for task in tasks {
            let _ = task.await;
        }
    }

    async fn lane(self: Arc<Self>, cancel: CancellationToken) {
        loop {
            let leased = match self.dispatch_due().await {
                Ok(n) => n,
                Err(err) => {
                    tracing::warn!(error = %err, "dispatching failed");
                    0
                }
            };
            if leased >= LINGER_BELOW {
                continue;
            }
            if leased > 0 {
                // A small batch under a steady stream: let the next one gather a little, so
                // that the per-batch round trips are shared by more messages.
                tokio::select! {
                    () = cancel.cancelled() => return,
                    () = tokio::time::sleep(LINGER) => {}
                }
                continue;
            }
            tokio::select! {
                () = cancel.cancelled() => return,
                () = self.core.dispatch_wakeup.notified() => {}
                () = tokio::time::sleep(POLL) => {}
            }
        }
    }

    /// Leases and delivers one batch of due messages; returns how many were leased. The whole
    /// batch's outcomes are recorded in one transaction.
    pub async fn dispatch_due(&self) -> anyhow::Result<usize> {
        let now = self.core.clock.now_ms();
        let ids = store::lease_due(
            &self.core.db,
            &self.owner,
            now,
            now + LEASE.as_millis() as i64,
            BATCH.max(self.concurrency) as u64,
        )
        .await?;
        if ids.is_empty() {
            return Ok(0);
        }
        if let Err(err) = self.dispatch(&ids).await {
            tracing::warn!(error = %err, messages = ids.len(), "delivery attempt failed; will retry");
            let due = self.core.clock.now_ms() + BACKOFF.as_millis() as i64;
            let _ = store::postpone(&self.core.db, &ids, due).await;
        }
        Ok(ids.len())
    }

    async fn dispatch(&self, ids: &[Uuid]) -> crate::error::AppResult<()> {
        let messages = store::messages(&self.core.db, ids).await?;
        // Decided already (a lease that lapsed mid-delivery): only their outbox rows go.
        let (open, _decided): (Vec<_>, Vec<_>) =
            messages.into_iter().partition(|m| m.status == "accepted");
        let results = self
            .provider
            .deliver_batch(&self.core, &open, self.concurrency)
            .await;
        let mut outcomes = Vec::with_capacity(open.len());
        let mut failed = Vec::new();
        for (message, result) in open.into_iter().zip(results) {
            match result {
                Ok(outcome) => outcomes.push((message, outcome)),
                Err(err) => {
                    tracing::warn!(error = %err, message = %message.id, "delivery attempt failed; will retry");
                    failed.push(message.id);
                }
            }
        }
        let done: Vec<Uuid> = ids
            .iter()
            .copied()
            .filter(|id| !failed.contains(id))
            .collect();
        let (recorded, queued) =
            store::record_outcomes(&self.core.db, &outcomes, &done, self.core.clock.now()).await?;
        if !failed.is_empty() {
            let due = self.core.clock.now_ms() + BACKOFF.as_millis() as i64;
            store::postpone(&self.core.db, &failed, due).await?;
        }
        if queued > 0 {
            self.core.wake_webhook_workers().await;
        }
        tracing::debug!(
            messages = ids.len(),
            recorded,
            queued,
            "message outcomes recorded"
        );
        Ok(())
    }
}
