//! The broadcast runner: every core whose `DISPATCH_CONCURRENCY` is above 0 runs one. It leases
//! due broadcasts (a scheduled one at its `send_at`, a running one whose runner stopped renewing
//! its lease for 30 s), and for each one, batch after batch:
//!
//! - fixes the audience when it starts (its business's active followers then, one row each);
//! - reads the next page of recipients (by user id, never the whole audience in memory) with
//!   their follows as they are now: whoever no longer follows, or no longer consents to
//!   marketing, is `skipped`;
//! - creates the others' messages and outbox rows (broadcast class: handed out after single
//!   sends and scheduled messages) with one multi-row statement each, spends the business send
//!   budget for them, and moves the cursor and the counts and renews the lease, in one
//!   transaction whose last UPDATE holds only if nothing moved the broadcast meanwhile (a
//!   cancel, or a core taking over): otherwise nothing of the batch is stored;
//! - paces itself to `max_per_second`.
//!
//! A unique (broadcast, recipient) key in the schema backs the cursor: no follower ever gets
//! two messages of one broadcast. A business no longer live and active ends its broadcast
//! `canceled`. A core that stops gives its leases back; one that crashes loses them after 30 s.

use std::sync::Arc;
use std::time::Duration;

use proto::vocabulary::{Category, MessageSource, MessageStatus, UserStatus};
use sea_orm::TransactionTrait;
use tokio::task::JoinSet;
use tokio::time::Instant;
use tokio_util::sync::CancellationToken;
use uuid::Uuid;

use super::store::{self, Recipient};
use crate::entities::{broadcasts, messages};
use crate::error::AppResult;
use crate::limits::Rate;
use crate::messaging::rules;
use crate::state::Core;
use crate::templates::send::TemplateSend;
use crate::templates::service::Found;

/// How long a lease holds without renewal; every batch renews it (at least every 5 s).
pub const LEASE: Duration = Duration::from_secs(30);
/// How often an idle runner looks for due broadcasts created on other cores.
const POLL: Duration = Duration::from_secs(1);
/// The most broadcasts one core runs at once.
const RUNNING: usize = 4;
/// The longest pause between batches (so the lease is renewed well within [`LEASE`]).
const LONGEST_PAUSE: Duration = Duration::from_secs(5);

pub struct Runner {
    core: Arc<Core>,
    owner: String,
}

/// What one batch came to.
enum Step {
    /// Messages created (and recipients skipped): the pace counts the created ones.
    Created(u64),
    /// The business send budget is spent: try again after the wait.
    Wait(Duration),
    /// Nothing more to create (every recipient handled, or the business is no longer live).
    Done,
    /// No longer this runner's (canceled, or taken over).
    Lost,
}

impl Runner {
    pub fn new(core: Arc<Core>) -> Runner {
        Runner {
            core,
            owner: format!("broadcaster-{}", Uuid::new_v4()),
        }
    }

    /// Runs until `cancel` fires: leases due broadcasts (woken when this core creates one, and
    /// polling for the others') and runs up to a few at once.
    pub async fn run(self, cancel: CancellationToken) {
        let this = Arc::new(self);
        let mut running = JoinSet::new();
        loop {
            while running.len() < RUNNING {
                let now = this.core.clock.now_ms();
                let leased = store::lease_due(
                    &this.core.db,
                    &this.owner,
                    now,
                    now + LEASE.as_millis() as i64,
                )
                .await;
                match leased {
                    Ok(Some(broadcast)) => {
                        tracing::info!(broadcast = %broadcast.id, business = %broadcast.business_id, "running a broadcast");
                        running.spawn(this.clone().run_one(broadcast, cancel.clone()));
                    }
                    Ok(None) => break,
                    Err(err) => {
                        tracing::warn!(error = %err, "leasing a broadcast failed");
                        break;
                    }
                }
            }
            tokio::select! {
                () = cancel.cancelled() => break,
                () = this.core.broadcast_wakeup.notified() => {}
                () = tokio::time::sleep(POLL) => {}
                Some(_) = running.join_next(), if !running.is_empty() => {}
            }
        }
        while running.join_next().await.is_some() {}
    }

    fn batch_size(&self, broadcast: &broadcasts::Model) -> u64 {
        // The most recipients one batch (one transaction) handles.
        self.core
            .tuning
            .broadcast_batch
            .min(broadcast.max_per_second.max(1) as u64)
    }

    /// Creates one broadcast's messages, batch after batch, at its pace, until they are all
    /// created, it is canceled or taken over, or the core stops (the lease is then given back).
    async fn run_one(self: Arc<Self>, broadcast: broadcasts::Model, cancel: CancellationToken) {
        let pace = f64::from(broadcast.max_per_second.max(1));
        let mut next = Instant::now();
        loop {
            tokio::select! {
                () = cancel.cancelled() => {
                    let now = self.core.clock.now_ms();
                    if let Err(err) = store::release(&self.core.db, broadcast.id, &self.owner, now).await {
                        tracing::warn!(error = %err, broadcast = %broadcast.id, "could not give a broadcast back");
                    }
                    return;
                }
                () = tokio::time::sleep_until(next) => {}
            }
            let started = Instant::now();
            let step = self.batch(broadcast.id).await;
            next = match step {
                Ok(Step::Created(n)) => started + Duration::from_secs_f64(n as f64 / pace),
                Ok(Step::Wait(wait)) => started + wait.min(LONGEST_PAUSE),
                Ok(Step::Done) => {
                    tracing::info!(broadcast = %broadcast.id, "broadcast messages all created");
                    return;
                }
                Ok(Step::Lost) => {
                    tracing::info!(broadcast = %broadcast.id, "broadcast no longer ours (canceled or taken over)");
                    return;
                }
                Err(err) => {
                    tracing::warn!(error = %err, broadcast = %broadcast.id, "a broadcast batch failed; will retry");
                    started + Duration::from_secs(1)
                }
            };
        }
    }

    /// One batch, in one transaction. The broadcast is read without a lock and moved on at the
    /// end of the transaction on the condition that nothing moved it meanwhile (a cancel, a
    /// takeover): its row is held only from that UPDATE to the commit, so the dispatcher's
    /// outcome transactions, which count into it, never wait for a whole batch.
    async fn batch(&self, id: Uuid) -> AppResult<Step> {
        let core = &self.core;
        let now = core.clock.now();
        let now_ms = now.timestamp_millis();
        let lease_until = now_ms + LEASE.as_millis() as i64;
        let Some(current) = store::ours(&core.db, id, &self.owner).await? else {
            return Ok(Step::Lost);
        };
        // Read before the transaction: on SQLite it holds the one connection that writes.
        let template = match &current.template {
            Some(stored) => Some(crate::templates::service::of_broadcast(core, stored).await?),
            None => None,
        };
        let txn = core.db.begin().await?;
        if current.audience.is_none() {
            let Some(audience) =
                store::fix_audience(&txn, &current, &self.owner, lease_until).await?
            else {
                txn.rollback().await?;
                return Ok(Step::Lost);
            };
            txn.commit().await?;
            tracing::info!(broadcast = %current.id, audience, "broadcast audience fixed");
            // The audience was just bulk-loaded: statistics from before it would have its
            // pages read by a bitmap scan of every recipient left, and sorted, for each page.
            let rows = u64::try_from(audience).unwrap_or(0);
            crate::db::analyze_after_load(&core.db, &["broadcast_recipients"], rows).await;
            return Ok(Step::Created(0));
        }
        // A business may still broadcast while it is live and active and its owner (a
        // business is its owner's profile) is an active user.
        let live = store::business_state(&txn, current.business_id)
            .await?
            .is_some_and(|(status, mode, owner)| {
                rules::require_live(status, mode).is_ok()
                    && owner.is_none_or(|o| o == UserStatus::Active)
            });
        let page = if live {
            store::recipients_after(&txn, &current, self.batch_size(&current)).await?
        } else {
            Vec::new()
        };
        let Some(last) = page.last().map(|r| r.user_id) else {
            let Ok(event) = store::finish(&txn, &current, &self.owner, !live, now).await? else {
                txn.rollback().await?;
                return Ok(Step::Lost);
            };
            let queued = super::service::record(&txn, event, now).await?;
            txn.commit().await?;
            if queued > 0 {
                core.webhook_wakeup.wake();
            }
            return Ok(Step::Done);
        };
        let created: Vec<messages::Model> = page
            .iter()
            .filter(|r| consents(r, current.category))
            .map(|r| message(&current, r, template.as_ref(), now))
            .collect::<AppResult<_>>()?;
        let skipped = (page.len() - created.len()) as i64;
        store::insert_messages(&txn, &created, now_ms).await?;
        if !created.is_empty() {
            let key = format!("send:business:{}", current.business_id);
            let rate = Rate::per(
                core.limits.business_sends_per_second.max(1),
                Duration::from_secs(1),
            );
            let now_us = now.timestamp_micros();
            if let Err(wait) =
                crate::limits::take_in(&txn, &key, rate, created.len() as u32, now_us).await?
            {
                txn.rollback().await?;
                crate::limits::count_refusal(MessageSource::Broadcast.as_str());
                store::renew(&core.db, &current, &self.owner, lease_until).await?;
                return Ok(Step::Wait(wait));
            }
        }
        let counts = (created.as_slice(), skipped);
        if !store::advance(
            &txn,
            &current,
            &self.owner,
            counts,
            last,
            (now_ms, lease_until),
        )
        .await?
        {
            txn.rollback().await?;
            return Ok(Step::Lost);
        }
        txn.commit().await?;
        if !created.is_empty() {
            core.dispatch_wakeup.notify_one();
            metrics::counter!(
                "messages_accepted_total",
                "source" => MessageSource::Broadcast.as_str(),
                "category" => current.category.as_str(),
            )
            .increment(created.len() as u64);
        }
        if skipped > 0 {
            metrics::counter!("broadcast_recipients_skipped_total").increment(skipped as u64);
        }
        Ok(Step::Created(created.len() as u64))
    }
}

/// Whether a recipient still consents when their message is created: they follow the business,
/// and for marketing they are opted in.
fn consents(recipient: &Recipient, category: Category) -> bool {
    recipient.phone.is_some()
        && rules::check_consent(
            recipient.follow_status,
            recipient.marketing_opt_in,
            category,
        )
        .is_ok()
}

/// A recipient's message; a templated broadcast's rendered in the recipient's variant (they
/// follow the business: `consents` held).
fn message(
    broadcast: &broadcasts::Model,
    recipient: &Recipient,
    template: Option<&(Found, TemplateSend)>,
    now: chrono::DateTime<chrono::Utc>,
) -> AppResult<messages::Model> {
    let (body, message_content, template) = match template {
        None => (
            broadcast.body.clone(),
            broadcast.message_content.clone(),
            None,
        ),
        Some((found, send)) => {
            let resolved = found.render(send, recipient.language.as_deref())?;
            (
                resolved.body,
                resolved.content.map(|c| c.to_string()),
                Some(resolved.reference.to_string()),
            )
        }
    };
    Ok(messages::Model {
        id: crate::clock::id_at(now),
        business_id: broadcast.business_id,
        source: MessageSource::Broadcast,
        app_id: broadcast.app_id,
        sender_user_id: None,
        recipient_user_id: recipient.user_id,
        to_phone: recipient.phone.clone().unwrap_or_default(),
        category: broadcast.category,
        body,
        message_content,
        status: MessageStatus::Accepted,
        failure_reason: None,
        emits_event: true,
        created_at: now,
        completed_at: None,
        send_at: None,
        expires_at: None,
        broadcast_id: Some(broadcast.id),
        conversation_id: None,
        reply_to: None,
        template,
    })
}
