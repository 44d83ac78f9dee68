//! The dispatcher: leases due outbox rows (so several cores share the work and a dead one's
//! rows come back when its leases lapse), hands each message to the delivery provider and
//! records the outcome exactly once.

use std::sync::Arc;
use std::time::Duration;

use tokio_util::sync::CancellationToken;
use uuid::Uuid;

use super::delivery::{DeliveryProvider, FailureReason};
use super::outbox::{self, Outcome};
use super::store;
use crate::consent::service::ACTIVE;
use crate::domain::{BusinessMode, BusinessStatus};
use crate::entities::messages;
use crate::state::Core;

/// How long a leased message is ours before another dispatcher may take it.
const LEASE: Duration = Duration::from_secs(30);
/// How often an idle dispatcher looks for due rows written by other cores.
const POLL: Duration = Duration::from_millis(500);
/// The pause after a small batch before the next lease (longer after a very small one).
const LINGER: Duration = Duration::from_millis(4);
/// The most messages one lease takes.
const BATCH: usize = 128;
/// The most scheduled messages one lease takes (PostgreSQL, SQLite): a backlog due at once is
/// handed out in short transactions, between which single sends get the database. SQLite's
/// transactions take turns on one connection anyway, so fewer, larger ones cost less there.
const SCHEDULED_BATCH: (usize, usize) = (32, 64);
/// The most broadcast messages one lease takes (PostgreSQL, SQLite), after single sends and
/// scheduled messages.
const BROADCAST_BATCH: (usize, usize) = (256, 256);
/// How long to wait before retrying a message whose attempt could not be made.
const BACKOFF: Duration = Duration::from_secs(5);

/// What one lease took: the messages to hand out, of which `later` were scheduled or broadcast
/// messages.
#[derive(Default)]
struct Leased {
    ids: Vec<Uuid>,
    later: usize,
}

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
    /// the others'. One loop leases; up to a few leased batches are delivered and recorded at
    /// once (their leases never overlap), so one batch's round trips do not hold up the next.
    /// Under a light stream of sends the loop lingers a little between leases, so that each
    /// lease and its transaction serve several messages.
    pub async fn run(self, cancel: CancellationToken) {
        let in_flight = match self.core.db.get_database_backend() {
            sea_orm::DbBackend::Postgres => 4,
            _ => 2,
        };
        let slots = Arc::new(tokio::sync::Semaphore::new(in_flight));
        // Batches with scheduled or broadcast messages take all slots but one: a backlog due at
        // once never holds up the single sends behind it.
        let scheduled_slots = Arc::new(tokio::sync::Semaphore::new(in_flight - 1));
        let this = Arc::new(self);
        loop {
            let Ok(slot) = slots.clone().acquire_owned().await else {
                return;
            };
            let scheduled_slot = scheduled_slots.clone().try_acquire_owned().ok();
            let leased = match this.lease(scheduled_slot.is_some()).await {
                Ok(leased) => leased,
                Err(err) => {
                    tracing::warn!(error = %err, "leasing messages failed");
                    Leased::default()
                }
            };
            let count = leased.ids.len();
            let held_back = scheduled_slot.is_none();
            if count > 0 {
                let this = this.clone();
                // The scheduled slot goes with the batch only when it holds scheduled or broadcast
                // messages.
                let scheduled_slot = scheduled_slot.filter(|_| leased.later > 0);
                tokio::spawn(async move {
                    let _slots = (slot, scheduled_slot);
                    this.deliver_leased(leased.ids).await;
                });
            } else {
                drop(slot);
            }
            let pause = match count {
                0 => None,
                n if n < 8 => Some(LINGER * 3),
                n if n < BATCH / 4 => Some(LINGER),
                _ => Some(Duration::ZERO),
            };
            if count == 0 && held_back {
                // Scheduled or broadcast messages may be due behind the batches under way: lease
                // again as soon as one of those finishes (or a send arrives, or the poll passes).
                tokio::select! {
                    () = cancel.cancelled() => break,
                    _ = scheduled_slots.acquire() => {}
                    () = self_wait(&this.core, None) => {}
                }
                continue;
            }
            tokio::select! {
                () = cancel.cancelled() => break,
                () = self_wait(&this.core, pause) => {}
            }
        }
        // Let the batches under way finish (their leases would lapse otherwise).
        let _ = slots.acquire_many(in_flight as u32).await;
    }

    fn batch(&self, (postgres, sqlite): (usize, usize)) -> u64 {
        match self.core.db.get_database_backend() {
            sea_orm::DbBackend::Postgres => postgres as u64,
            _ => sqlite as u64,
        }
    }

    /// Leases due messages: single sends, and scheduled and broadcast ones when `later`
    /// allows.
    async fn lease(&self, later: bool) -> crate::error::AppResult<Leased> {
        let now = self.core.clock.now_ms();
        let broadcast = if later {
            self.batch(BROADCAST_BATCH)
        } else {
            0
        };
        let limits = outbox::LeaseLimits {
            // Single sends first, then up to a broadcast batch behind them.
            total: (BATCH.max(self.concurrency) as u64).max(broadcast),
            scheduled: if later {
                self.batch(SCHEDULED_BATCH)
            } else {
                0
            },
            broadcast: if later {
                self.batch(BROADCAST_BATCH)
            } else {
                0
            },
        };
        let leased = outbox::lease_due(
            &self.core.db,
            &self.owner,
            now,
            now + LEASE.as_millis() as i64,
            limits,
        )
        .await?;
        let mut ids = Vec::with_capacity(leased.len());
        let mut scheduled = Vec::new();
        let mut broadcast = 0;
        for (id, class) in leased {
            match class {
                outbox::SCHEDULED => scheduled.push(id),
                outbox::BROADCAST => {
                    broadcast += 1;
                    ids.push(id);
                }
                _ => ids.push(id),
            }
        }
        let started = outbox::start_scheduled(&self.core.db, &scheduled).await?;
        let later = started.len() + broadcast;
        ids.extend(started);
        Ok(Leased { ids, later })
    }

    async fn deliver_leased(&self, ids: Vec<Uuid>) {
        if let Err(err) = self.dispatch(&ids).await {
            tracing::warn!(error = %err, messages = ids.len(), "delivery attempt failed; will retry");
            let due = self.core.clock.now_ms() + BACKOFF.as_millis() as i64;
            let _ = outbox::postpone(&self.core.db, &ids, due).await;
        }
    }

    async fn dispatch(&self, ids: &[Uuid]) -> crate::error::AppResult<()> {
        let messages = outbox::messages(&self.core.db, ids).await?;
        // Decided already (a lease that lapsed mid-delivery): only their outbox rows go.
        let (open, _decided): (Vec<_>, Vec<_>) =
            messages.into_iter().partition(|m| m.status == "accepted");
        let mut outcomes = Vec::with_capacity(open.len());
        let (open, refused) = self.due_checks(open).await?;
        outcomes.extend(refused);
        let results = self
            .provider
            .deliver_batch(&self.core, &open, self.concurrency)
            .await;
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
            outbox::record_outcomes(&self.core.db, &outcomes, &done, self.core.clock.now()).await?;
        if !failed.is_empty() {
            let due = self.core.clock.now_ms() + BACKOFF.as_millis() as i64;
            outbox::postpone(&self.core.db, &failed, due).await?;
        }
        if queued > 0 {
            self.core.webhook_wakeup.wake();
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

impl Dispatcher {
    /// The checks made again when a message is due: a message with a send time fails
    /// `consent_withdrawn` when its recipient no longer follows the business (or, for
    /// marketing, no longer consents) and `business_not_live` when its business is no longer
    /// live and active; any message past its `expires_at` fails `expired`. Returns the messages
    /// that go on, and the outcomes of the others.
    async fn due_checks(
        &self,
        messages: Vec<messages::Model>,
    ) -> crate::error::AppResult<(Vec<messages::Model>, Vec<(messages::Model, Outcome)>)> {
        let now = self.core.clock.now();
        let pairs: Vec<(Uuid, Uuid)> = messages
            .iter()
            .filter(|m| m.send_at.is_some())
            .map(|m| (m.business_id, m.recipient_user_id))
            .collect();
        let (follows, businesses) = store::due_states(&self.core.db, &pairs).await?;
        let mut go = Vec::with_capacity(messages.len());
        let mut refused = Vec::new();
        for message in messages {
            let reason = if message.expires_at.is_some_and(|at| at <= now) {
                Some(FailureReason::Expired)
            } else if message.send_at.is_some() {
                let live = businesses
                    .get(&message.business_id)
                    .is_some_and(|(status, mode)| {
                        status == BusinessStatus::Active.as_str()
                            && mode == BusinessMode::Live.as_str()
                    });
                let follow = follows.get(&(message.business_id, message.recipient_user_id));
                let consents = message.category == "authentication"
                    || follow.is_some_and(|(status, opt_in)| {
                        status == ACTIVE && (message.category != "marketing" || *opt_in)
                    });
                if !live {
                    Some(FailureReason::BusinessNotLive)
                } else if !consents {
                    Some(FailureReason::ConsentWithdrawn)
                } else {
                    None
                }
            } else {
                None
            };
            match reason {
                Some(reason) => refused.push((
                    message,
                    Outcome {
                        delivered: false,
                        reason: Some(reason.as_str().to_string()),
                    },
                )),
                None => go.push(message),
            }
        }
        Ok((go, refused))
    }
}

/// Waits `pause` (after a batch), or until this core accepts a message or the poll interval
/// passes (when idle).
async fn self_wait(core: &Core, pause: Option<Duration>) {
    match pause {
        Some(pause) if pause.is_zero() => {}
        Some(pause) => tokio::time::sleep(pause).await,
        None => {
            tokio::select! {
                () = core.dispatch_wakeup.notified() => {}
                () = tokio::time::sleep(POLL) => {}
            }
        }
    }
}
