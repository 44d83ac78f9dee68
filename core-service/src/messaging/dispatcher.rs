//! The dispatcher: leases due outbox rows (so several cores share the work and a dead one's
//! rows come back when its leases lapse), hands each message to the delivery provider and
//! records the outcome exactly once.

use std::sync::Arc;
use std::time::Duration;

use proto::vocabulary::MessageStatus;
use tokio_util::sync::CancellationToken;
use uuid::Uuid;

use super::delivery::{DeliveryProvider, FailureReason};
use super::outbox::{self, Outcome};
use super::rules;
use super::store;
use super::writer::Handed;
use crate::domain::UserStatus;
use crate::entities::messages;
use crate::state::Core;
use crate::webhooks::fanout;

/// How long a leased message is ours before another dispatcher may take it.
const LEASE: Duration = Duration::from_secs(30);
/// How often an idle dispatcher looks for due rows written by other cores.
const POLL: Duration = Duration::from_millis(500);
/// The pause after a small batch before the next lease (longer after a very small one).
const LINGER: Duration = Duration::from_millis(4);
/// The most messages one lease takes.
const BATCH: usize = 128;
/// How long to wait before retrying a message whose attempt could not be made.
const BACKOFF: Duration = Duration::from_secs(5);
/// The most messages this core's writer hands over at a time (see `writer.rs`).
const HANDOFF: usize = 1024;
/// While handed messages keep coming, the database is still asked for due rows (scheduled,
/// broadcast, other cores', lapsed leases) at least this often.
const LEASE_EVERY: Duration = Duration::from_millis(50);
/// A handed message whose lease ends sooner than this is left to be leased again.
const HANDOFF_MARGIN: Duration = Duration::from_secs(5);

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
        let in_flight = self.core.tuning.dispatch_in_flight;
        let slots = Arc::new(tokio::sync::Semaphore::new(in_flight));
        // Batches with scheduled or broadcast messages take all slots but one: a backlog due at
        // once never holds up the single sends behind it.
        let scheduled_slots = Arc::new(tokio::sync::Semaphore::new(in_flight - 1));
        let mut handed = self.core.sends.open_handoff(&self.owner, LEASE, HANDOFF);
        let this = Arc::new(self);
        let mut last_lease = tokio::time::Instant::now();
        loop {
            let Ok(mut slot) = slots.clone().acquire_owned().await else {
                return;
            };
            // Messages this core accepted come first, already leased and read: single sends
            // due now. The database is asked at least every LEASE_EVERY while they keep
            // coming, and when none wait (at most once per LEASE_EVERY while busy).
            let mut batch = Vec::new();
            while batch.len() < BATCH.max(this.concurrency) {
                match handed.try_recv() {
                    Ok(message) => batch.push(message),
                    Err(_) => break,
                }
            }
            if !batch.is_empty() {
                let count = batch.len();
                let this2 = this.clone();
                tokio::spawn(async move {
                    let _slot = slot;
                    this2.deliver_handed(batch).await;
                });
                if last_lease.elapsed() < LEASE_EVERY {
                    tokio::select! {
                        () = cancel.cancelled() => break,
                        () = self_wait(&this.core, linger(count)) => {}
                    }
                    continue;
                }
                slot = match slots.clone().acquire_owned().await {
                    Ok(slot) => slot,
                    Err(_) => return,
                };
            } else if let Some(left) = LEASE_EVERY.checked_sub(last_lease.elapsed()) {
                // Nothing handed over, and the database was asked a moment ago: wait for a
                // hand-over (or the rest of LEASE_EVERY) before asking it again, rather than
                // once between every two hand-overs.
                drop(slot);
                tokio::select! {
                    () = cancel.cancelled() => break,
                    () = this.core.dispatch_wakeup.notified() => {}
                    () = tokio::time::sleep(left) => {}
                }
                continue;
            }
            last_lease = tokio::time::Instant::now();
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
            let pause = linger(count);
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
        // Messages handed over and not taken yet are due again now, for any dispatcher (new
        // ones are no longer handed over once the queue is closed).
        handed.close();
        let mut left = Vec::new();
        while let Ok(message) = handed.try_recv() {
            left.push(message.message.id);
        }
        if !left.is_empty()
            && let Err(err) = outbox::postpone(&this.core.db, &left, this.core.clock.now_ms()).await
        {
            tracing::warn!(error = %err, messages = left.len(), "could not give back handed messages; their leases will lapse");
        }
        // Let the batches under way finish (their leases would lapse otherwise).
        let _ = slots.acquire_many(in_flight as u32).await;
    }

    /// Hands out messages this core's writer handed over, skipping any whose lease is about
    /// to end (it is left to be leased again).
    async fn deliver_handed(&self, handed: Vec<Handed>) {
        let fresh_until = self.core.clock.now_ms() + HANDOFF_MARGIN.as_millis() as i64;
        let (messages, stale): (Vec<_>, Vec<_>) = handed
            .into_iter()
            .partition(|h| h.lease_until_ms > fresh_until);
        if !stale.is_empty() {
            tracing::debug!(
                messages = stale.len(),
                "handed messages left for their lease to lapse"
            );
        }
        let messages: Vec<messages::Model> = messages.into_iter().map(|h| h.message).collect();
        if messages.is_empty() {
            return;
        }
        let ids: Vec<Uuid> = messages.iter().map(|m| m.id).collect();
        if let Err(err) = self.dispatch_messages(&ids, messages).await {
            self.postpone_failed(&ids, &err).await;
        }
    }

    /// Leases due messages: single sends, and scheduled and broadcast ones when `later`
    /// allows.
    async fn lease(&self, later: bool) -> crate::error::AppResult<Leased> {
        let now = self.core.clock.now_ms();
        let tuning = &self.core.tuning;
        let broadcast = if later { tuning.broadcast_lease } else { 0 };
        let limits = outbox::LeaseLimits {
            // Single sends first, then up to a broadcast batch behind them.
            total: (BATCH.max(self.concurrency) as u64).max(broadcast),
            scheduled: if later { tuning.scheduled_lease } else { 0 },
            broadcast,
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
        let result = match outbox::messages(&self.core.db, &ids).await {
            Ok(messages) => self.dispatch_messages(&ids, messages).await,
            Err(err) => Err(err),
        };
        if let Err(err) = result {
            self.postpone_failed(&ids, &err).await;
        }
    }

    async fn postpone_failed(&self, ids: &[Uuid], err: &crate::error::AppError) {
        tracing::warn!(error = %err, messages = ids.len(), "delivery attempt failed; will retry");
        let due = self.core.clock.now_ms() + BACKOFF.as_millis() as i64;
        let _ = outbox::postpone(&self.core.db, ids, due).await;
    }

    /// Hands `messages` (those of the leased outbox rows `ids`) to the provider and records
    /// their outcomes.
    async fn dispatch_messages(
        &self,
        ids: &[Uuid],
        messages: Vec<messages::Model>,
    ) -> crate::error::AppResult<()> {
        // Decided already (a lease that lapsed mid-delivery): only their outbox rows go.
        let (open, _decided): (Vec<_>, Vec<_>) = messages
            .into_iter()
            .partition(|m| m.status == MessageStatus::Accepted);
        let (open, mut outcomes) = self.due_checks(open).await?;
        let open = match self.inbox_at_once(ids, open, &mut outcomes).await? {
            Some(open) => open,
            None => return Ok(()),
        };
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
        self.record(&outcomes, &done, None).await?;
        if !failed.is_empty() {
            let due = self.core.clock.now_ms() + BACKOFF.as_millis() as i64;
            outbox::postpone(&self.core.db, &failed, due).await?;
        }
        Ok(())
    }

    /// PostgreSQL, in-app inbox: the open messages are delivered and their outcomes recorded
    /// (with `outcomes`, those decided already) in one statement, which takes every recipient
    /// as active and writes nothing when one is not. None when that was done; else the open
    /// messages, for the provider to deliver as usual.
    async fn inbox_at_once(
        &self,
        ids: &[Uuid],
        open: Vec<messages::Model>,
        outcomes: &mut Vec<(messages::Model, Outcome)>,
    ) -> crate::error::AppResult<Option<Vec<messages::Model>>> {
        if open.is_empty()
            || !self.provider.stores_in_inbox()
            || !self.core.tuning.one_statement
            || open
                .iter()
                .chain(outcomes.iter().map(|(m, _)| m))
                .any(|m| m.broadcast_id.is_some())
        {
            return Ok(Some(open));
        }
        let first = outcomes.len();
        outcomes.extend(
            open.into_iter()
                .map(|message| (message, Outcome::Delivered)),
        );
        let recorded = {
            let messages: Vec<&messages::Model> =
                outcomes[first..].iter().map(|(m, _)| m).collect();
            let inboxed = outbox::Inboxed {
                messages: &messages,
                active_status: UserStatus::Active,
            };
            self.record(outcomes, ids, Some(inboxed)).await?
        };
        if recorded {
            return Ok(None);
        }
        Ok(Some(
            outcomes
                .split_off(first)
                .into_iter()
                .map(|(m, _)| m)
                .collect(),
        ))
    }

    /// Records `outcomes` and the outbox rows of `done` gone; with `inboxed`, writes their
    /// inbox rows too, in one statement that may decline (see `outbox::record_outcomes_at_once`):
    /// then false, and nothing was written. The outcomes' webhook deliveries are planned before
    /// and handed on after by `webhooks::fanout`: those written leased to one of this core's job
    /// streams go straight to it; the others wait in the queue for any core's streams.
    async fn record(
        &self,
        outcomes: &[(messages::Model, Outcome)],
        done: &[Uuid],
        inboxed: Option<outbox::Inboxed<'_>>,
    ) -> crate::error::AppResult<bool> {
        let fanned: Vec<fanout::Outcome> = outcomes
            .iter()
            .map(|(m, o)| fanout::Outcome {
                business_id: m.business_id,
                event_type: o.event_type(),
                emits_event: m.emits_event,
                broadcast: m.broadcast_id.is_some(),
            })
            .collect();
        // The endpoints are known first, so the room taken is what the deliveries need.
        let plan = fanout::plan(&self.core, &fanned).await?;
        let planning = outbox::Planning {
            lease: plan.lease(),
            endpoints: plan.endpoints(),
            check: plan.check(),
        };
        let db = &self.core.db;
        let now = self.core.clock.now();
        // Declined (inbox only): Ok(Err(why)).
        let recorded = match inboxed {
            Some(inboxed) => {
                outbox::record_outcomes_at_once(db, outcomes, done, now, planning, Some(inboxed))
                    .await
                    .map(|at_once| match at_once {
                        outbox::AtOnce::Recorded(recorded) => Ok(recorded),
                        declined => Err(declined),
                    })
            }
            None => outbox::record_outcomes(db, outcomes, done, now, planning)
                .await
                .map(Ok),
        };
        let recorded = match recorded {
            Ok(Ok(recorded)) => recorded,
            Ok(Err(declined)) => {
                let moved = matches!(declined, outbox::AtOnce::EndpointsMoved);
                fanout::committed(&self.core, plan, None, moved).await;
                return Ok(false);
            }
            Err(err) => {
                fanout::committed(&self.core, plan, None, false).await;
                return Err(err);
            }
        };
        let (decided, queued) = (recorded.decided, recorded.queued);
        let handed = recorded.leased.len();
        let written = fanout::Written {
            leased: recorded.leased,
            queued,
        };
        fanout::committed(&self.core, plan, Some(written), recorded.endpoints_moved).await;
        tracing::debug!(
            messages = outcomes.len(),
            recorded = decided,
            queued,
            handed,
            "message outcomes recorded"
        );
        Ok(true)
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
                    .is_some_and(|(status, mode)| rules::require_live(*status, *mode).is_ok());
                let follow = follows.get(&(message.business_id, message.recipient_user_id));
                let consents = rules::check_consent(
                    follow.map(|(status, _)| *status),
                    follow.is_some_and(|(_, opt_in)| *opt_in),
                    message.category,
                )
                .is_ok();
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
                Some(reason) => refused.push((message, Outcome::Failed(reason))),
                None => go.push(message),
            }
        }
        Ok((go, refused))
    }
}

/// The pause after a batch of `count` messages before the next lease: a little longer after a
/// small one, so that each lease and its transaction serve several messages; none when idle
/// (`count` 0: wait for a send or the poll).
fn linger(count: usize) -> Option<Duration> {
    match count {
        0 => None,
        n if n < 8 => Some(LINGER * 3),
        n if n < BATCH / 4 => Some(LINGER),
        _ => Some(Duration::ZERO),
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
