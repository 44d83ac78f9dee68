//! The erasure job: every core runs one runner. It leases a running erasure (a new one at
//! once, one whose runner stopped renewing its lease for 30 s after that), and goes through
//! its phases batch after batch, each batch one short transaction that also moves the
//! erasure's phase and cursor on, on the condition that the lease is still this runner's (a
//! core that took over finds the erasure where the last committed batch left it). Every
//! batch changes what it finds still to change, so a batch repeated after a crash changes
//! nothing twice. The runner paces itself to `ERASURE_ROWS_PER_SECOND` rows changed.

use std::sync::Arc;
use std::time::Duration;

use chrono::{DateTime, Utc};
use proto::vocabulary::{ErasureStatus, EventType, FailureReason, MessageStatus};
use sea_orm::sea_query::{Expr, ExprTrait as _};
use sea_orm::{
    ColumnTrait, ConnectionTrait, EntityTrait, QueryFilter, QueryOrder, QuerySelect,
    TransactionTrait, Value,
};
use tokio::time::Instant;
use tokio_util::sync::CancellationToken;
use uuid::Uuid;

use crate::entities::{
    conversations, erasure_businesses, erasures, events, inbound_messages, inbox_messages,
    message_outbox, messages, webhook_attempts, webhook_deliveries,
};
use crate::error::AppResult;
use crate::messaging::outbox::{self, Outcome, Planning};
use crate::state::Core;
use crate::usage::Tally;

/// How long a lease holds without renewal; every batch renews it.
pub const LEASE: Duration = Duration::from_secs(30);
/// How often an idle runner looks for erasures requested on other cores.
const POLL: Duration = Duration::from_secs(1);
/// The most rows one batch changes.
const BATCH: u64 = 500;
/// Businesses one discovery batch looks at.
const DISCOVER_PAGE: u64 = 200;
/// How long the job waits for messages being handed out.
const IN_FLIGHT_WAIT: Duration = Duration::from_secs(1);
/// `due_at_ms` of an erasure no runner takes again.
const NEVER: i64 = i64::MAX;

/// The job's phases, in order (the `phase` column).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(i32)]
pub enum Phase {
    /// Finds the businesses that knew the user: sent to them, heard from them, or had them
    /// as a follower (one page of businesses per batch).
    Discover = 0,
    /// Per business: cancels the user's scheduled messages, fails those accepted but not yet
    /// handed out (`recipient_erased`), and waits for those being handed out.
    Pending = 1,
    /// Per business: the messages to the user lose their text, content and `to`; their inbox
    /// copies go.
    Messages = 2,
    /// Per conversation: the user's own messages go; the label goes; it counts as read.
    Conversations = 3,
    /// Per business: the `message.received` events of the user lose their `body`.
    Events = 4,
    /// Per business: so do those events' deliveries; their attempts lose the payload sent and
    /// the receiver's answer.
    Deliveries = 5,
    /// `user.redacted` to every business found, once, and the erasure completed.
    Finish = 6,
    Done = 7,
}

impl Phase {
    pub fn of(value: i32) -> Phase {
        match value {
            0 => Phase::Discover,
            1 => Phase::Pending,
            2 => Phase::Messages,
            3 => Phase::Conversations,
            4 => Phase::Events,
            5 => Phase::Deliveries,
            6 => Phase::Finish,
            _ => Phase::Done,
        }
    }

    /// The phase's name, as `GetErasure` reports it.
    pub fn name(self) -> &'static str {
        match self {
            Phase::Discover => "discovering",
            Phase::Pending => "pending_messages",
            Phase::Messages => "messages",
            Phase::Conversations => "conversations",
            Phase::Events => "events",
            Phase::Deliveries => "deliveries",
            Phase::Finish => "finishing",
            Phase::Done => "done",
        }
    }

    fn next(self) -> Phase {
        Phase::of(self as i32 + 1)
    }
}

/// What one batch came to.
enum Step {
    /// Rows changed (the pace counts them).
    Rows(u64),
    /// Messages are being handed out: again after the wait.
    Wait(Duration),
    /// The erasure is completed.
    Done,
    /// No longer this runner's (taken over).
    Lost,
}

/// Where a batch leaves the erasure.
struct Advance {
    phase: Phase,
    business: Option<Uuid>,
    position: Option<(DateTime<Utc>, Uuid)>,
    rows: u64,
}

pub struct Runner {
    core: Arc<Core>,
    owner: String,
}

impl Runner {
    pub fn new(core: Arc<Core>) -> Runner {
        Runner {
            core,
            owner: format!("eraser-{}", Uuid::new_v4()),
        }
    }

    /// Runs until `cancel` fires: leases a running erasure (woken when this core starts one,
    /// polling for the others') and runs it to its end, one at a time.
    pub async fn run(self, cancel: CancellationToken) {
        loop {
            let now = self.core.clock.now_ms();
            match lease_due(
                &self.core.db,
                &self.owner,
                now,
                now + LEASE.as_millis() as i64,
            )
            .await
            {
                Ok(Some(erasure)) => {
                    tracing::info!(erasure = %erasure.id, phase = Phase::of(erasure.phase).name(), "running an erasure");
                    self.run_one(erasure.id, &cancel).await;
                    continue;
                }
                Ok(None) => {}
                Err(err) => tracing::warn!(error = %err, "leasing an erasure failed"),
            }
            tokio::select! {
                () = cancel.cancelled() => return,
                () = self.core.erasure_wakeup.notified() => {}
                () = tokio::time::sleep(POLL) => {}
            }
        }
    }

    async fn run_one(&self, id: Uuid, cancel: &CancellationToken) {
        let pace = f64::from(Ord::max(self.core.retention.erasure_rows_per_second, 1));
        let mut next = Instant::now();
        loop {
            tokio::select! {
                () = cancel.cancelled() => {
                    if let Err(err) = release(&self.core.db, id, &self.owner, self.core.clock.now_ms()).await {
                        tracing::warn!(error = %err, erasure = %id, "could not give an erasure back");
                    }
                    return;
                }
                () = tokio::time::sleep_until(next) => {}
            }
            let started = Instant::now();
            next = match self.batch(id).await {
                Ok(Step::Rows(n)) => started + Duration::from_secs_f64(n as f64 / pace),
                Ok(Step::Wait(wait)) => started + wait,
                Ok(Step::Done) => {
                    tracing::info!(erasure = %id, "erasure completed");
                    return;
                }
                Ok(Step::Lost) => {
                    tracing::info!(erasure = %id, "erasure no longer ours (taken over)");
                    return;
                }
                Err(err) => {
                    tracing::warn!(error = %err, erasure = %id, "an erasure batch failed; will retry");
                    started + Duration::from_secs(1)
                }
            };
        }
    }

    fn batch_size(&self) -> u64 {
        Ord::min(
            BATCH,
            u64::from(Ord::max(self.core.retention.erasure_rows_per_second, 1)),
        )
    }

    async fn batch(&self, id: Uuid) -> AppResult<Step> {
        let Some(erasure) = erasures::Entity::find_by_id(id)
            .filter(erasures::Column::LeaseOwner.eq(&self.owner))
            .filter(erasures::Column::Status.eq(ErasureStatus::Running))
            .one(&self.core.db)
            .await?
        else {
            return Ok(Step::Lost);
        };
        match Phase::of(erasure.phase) {
            Phase::Discover => self.discover(&erasure).await,
            Phase::Pending => self.pending(&erasure).await,
            Phase::Messages => self.messages(&erasure).await,
            Phase::Conversations => self.conversations(&erasure).await,
            phase @ (Phase::Events | Phase::Deliveries) => self.redact(&erasure, phase).await,
            Phase::Finish => self.finish(&erasure).await,
            Phase::Done => Ok(Step::Done),
        }
    }

    /// Moves the erasure on (and renews the lease) in `txn`, then commits; rolls back and
    /// answers `Lost` when the lease is no longer this runner's.
    async fn advance(
        &self,
        txn: sea_orm::DatabaseTransaction,
        erasure: &erasures::Model,
        to: Advance,
    ) -> AppResult<Step> {
        let lease_until = self.core.clock.now_ms() + LEASE.as_millis() as i64;
        let moved = erasures::Entity::update_many()
            .col_expr(erasures::Column::Phase, Expr::value(to.phase as i32))
            .col_expr(erasures::Column::CursorBusiness, Expr::value(to.business))
            .col_expr(
                erasures::Column::CursorAt,
                Expr::value(to.position.map(|p| p.0)),
            )
            .col_expr(
                erasures::Column::CursorId,
                Expr::value(to.position.map(|p| p.1)),
            )
            .col_expr(
                erasures::Column::RowsChanged,
                Expr::col(erasures::Column::RowsChanged).add(to.rows as i64),
            )
            .col_expr(erasures::Column::LeaseUntilMs, Expr::value(lease_until))
            .col_expr(erasures::Column::DueAtMs, Expr::value(lease_until))
            .filter(erasures::Column::Id.eq(erasure.id))
            .filter(erasures::Column::LeaseOwner.eq(&self.owner))
            .filter(erasures::Column::Status.eq(ErasureStatus::Running))
            .exec(&txn)
            .await?;
        if moved.rows_affected == 0 {
            txn.rollback().await?;
            return Ok(Step::Lost);
        }
        txn.commit().await?;
        Ok(Step::Rows(to.rows))
    }

    /// Moves the erasure to the start of `phase`.
    async fn start(&self, erasure: &erasures::Model, phase: Phase) -> AppResult<Step> {
        let txn = self.core.db.begin().await?;
        let to = Advance {
            phase,
            business: None,
            position: None,
            rows: 0,
        };
        self.advance(txn, erasure, to).await
    }

    /// One page of businesses: those that knew the user are kept.
    async fn discover(&self, erasure: &erasures::Model) -> AppResult<Step> {
        let db = &self.core.db;
        let after = erasure.cursor_business.unwrap_or(Uuid::nil());
        let page = knew_page(db, erasure.user_id, after).await?;
        let txn = db.begin().await?;
        let Some(&(last, _)) = page.last() else {
            let to = Advance {
                phase: Phase::Pending,
                business: None,
                position: None,
                rows: 0,
            };
            return self.advance(txn, erasure, to).await;
        };
        let knew: Vec<erasure_businesses::ActiveModel> = page
            .iter()
            .filter(|(_, knew)| *knew)
            .map(|(business_id, _)| {
                erasure_businesses::ActiveModel::from(erasure_businesses::Model {
                    erasure_id: erasure.id,
                    business_id: *business_id,
                    done: false,
                })
            })
            .collect();
        if !knew.is_empty() {
            crate::db::bulk::insert_all(
                &txn,
                knew,
                &[
                    erasure_businesses::Column::ErasureId,
                    erasure_businesses::Column::BusinessId,
                ],
            )
            .await?;
        }
        let to = Advance {
            phase: Phase::Discover,
            business: Some(last),
            position: None,
            rows: 0,
        };
        self.advance(txn, erasure, to).await
    }

    /// The next business found after `after` (from the first without one), with its `done`.
    async fn next_business(
        &self,
        erasure: &erasures::Model,
        after: Option<Uuid>,
    ) -> AppResult<Option<erasure_businesses::Model>> {
        let mut query = erasure_businesses::Entity::find()
            .filter(erasure_businesses::Column::ErasureId.eq(erasure.id));
        if let Some(after) = after {
            query = query.filter(erasure_businesses::Column::BusinessId.gt(after));
        }
        Ok(query
            .order_by_asc(erasure_businesses::Column::BusinessId)
            .one(&self.core.db)
            .await?)
    }

    /// One business's messages not yet handed out: scheduled ones canceled, accepted ones not
    /// being handed out failed `recipient_erased`; those being handed out are waited for.
    async fn pending(&self, erasure: &erasures::Model) -> AppResult<Step> {
        let core = &self.core;
        let Some(business) = self.next_business(erasure, erasure.cursor_business).await? else {
            return self.start(erasure, Phase::Messages).await;
        };
        let pending = messages::Entity::find()
            .filter(messages::Column::BusinessId.eq(business.business_id))
            .filter(messages::Column::RecipientUserId.eq(erasure.user_id))
            .filter(
                messages::Column::Status.is_in([MessageStatus::Scheduled, MessageStatus::Accepted]),
            )
            .limit(self.batch_size())
            .all(&core.db)
            .await?;
        let now = core.clock.now();
        let now_ms = now.timestamp_millis();
        let mut changed = 0;
        let mut queued = 0;
        let mut accepted = Vec::new();
        for message in &pending {
            if message.status == MessageStatus::Scheduled {
                if let Some((_, q)) = outbox::cancel(&core.db, message.id, now).await? {
                    changed += 1;
                    queued += q;
                }
            } else {
                accepted.push(message.id);
            }
        }
        // Taken as a dispatcher takes them (only those due: none being handed out), so that no
        // dispatcher hands them out meanwhile; one without an outbox row (none holds it, and
        // none ever will) is decided too, or the job would wait for it for ever.
        let mut claimed = claim_due(&core.db, &accepted, &self.owner, now_ms).await?;
        claimed.extend(without_outbox(&core.db, &accepted).await?);
        if !claimed.is_empty() {
            let decided: Vec<(messages::Model, Outcome)> = pending
                .iter()
                .filter(|m| claimed.contains(&m.id))
                .map(|m| (m.clone(), Outcome::Failed(FailureReason::RecipientErased)))
                .collect();
            let recorded =
                outbox::record_outcomes(&core.db, &decided, &claimed, now, Planning::default())
                    .await?;
            changed += recorded.decided as u64;
            queued += recorded.queued;
        }
        if queued > 0 {
            core.webhook_wakeup.wake();
        }
        let txn = core.db.begin().await?;
        if claimed.len() < accepted.len() {
            // Being handed out: their outcomes come soon.
            let to = Advance {
                phase: Phase::Pending,
                business: erasure.cursor_business,
                position: None,
                rows: changed,
            };
            return match self.advance(txn, erasure, to).await? {
                Step::Rows(_) => Ok(Step::Wait(IN_FLIGHT_WAIT)),
                other => Ok(other),
            };
        }
        let whole = pending.len() as u64 == self.batch_size();
        let to = Advance {
            phase: Phase::Pending,
            // A full page: the business may have more.
            business: if whole {
                erasure.cursor_business
            } else {
                Some(business.business_id)
            },
            position: None,
            rows: changed,
        };
        self.advance(txn, erasure, to).await
    }

    /// One page of one business's messages to the user: text, content and `to` removed, the
    /// inbox copies deleted.
    async fn messages(&self, erasure: &erasures::Model) -> AppResult<Step> {
        let core = &self.core;
        let business = erasure_businesses::Entity::find()
            .filter(erasure_businesses::Column::ErasureId.eq(erasure.id))
            .filter(erasure_businesses::Column::Done.eq(false))
            .order_by_asc(erasure_businesses::Column::BusinessId)
            .one(&core.db)
            .await?;
        let Some(business) = business else {
            return self.start(erasure, Phase::Conversations).await;
        };
        let from = match (
            erasure.cursor_business,
            erasure.cursor_at,
            erasure.cursor_id,
        ) {
            (Some(b), Some(at), Some(id)) if b == business.business_id => Some((at, id)),
            _ => None,
        };
        let effective = || Expr::cust(crate::messaging::store::EFFECTIVE_TIME_SQL);
        let mut query = messages::Entity::find()
            .select_only()
            .column(messages::Column::Id)
            .column(messages::Column::SendAt)
            .column(messages::Column::CreatedAt)
            .filter(messages::Column::BusinessId.eq(business.business_id))
            .filter(messages::Column::RecipientUserId.eq(erasure.user_id));
        if let Some((at, id)) = from {
            query = query.filter(
                Expr::tuple([effective(), messages::Column::Id.into_expr()])
                    .gt(Expr::tuple([Expr::value(at), Expr::value(id)])),
            );
        }
        let page: Vec<(Uuid, Option<DateTime<Utc>>, DateTime<Utc>)> = query
            .order_by_asc(effective())
            .order_by_asc(messages::Column::Id)
            .limit(self.batch_size())
            .into_tuple()
            .all(&core.db)
            .await?;
        let ids: Vec<Uuid> = page.iter().map(|(id, _, _)| *id).collect();
        let txn = core.db.begin().await?;
        let mut rows = 0;
        if !ids.is_empty() {
            let backend = txn.get_database_backend();
            rows += messages::Entity::update_many()
                .col_expr(messages::Column::ToPhone, Expr::value(String::new()))
                .col_expr(messages::Column::Body, Expr::value(None::<String>))
                .col_expr(
                    messages::Column::MessageContent,
                    Expr::value(None::<String>),
                )
                .filter(crate::db::bulk::uuid_in(
                    backend,
                    messages::Column::Id,
                    ids.iter().copied(),
                ))
                .filter(
                    messages::Column::ToPhone
                        .ne("")
                        .or(messages::Column::Body.is_not_null())
                        .or(messages::Column::MessageContent.is_not_null()),
                )
                .exec(&txn)
                .await?
                .rows_affected;
            rows += inbox_messages::Entity::delete_many()
                .filter(crate::db::bulk::uuid_in(
                    backend,
                    inbox_messages::Column::MessageId,
                    ids.iter().copied(),
                ))
                .exec(&txn)
                .await?
                .rows_affected;
        }
        let to = match page.last() {
            Some(&(id, send_at, created_at)) if page.len() as u64 == self.batch_size() => {
                let at = send_at.map_or(created_at, |s| Ord::max(s, created_at));
                Advance {
                    phase: Phase::Messages,
                    business: Some(business.business_id),
                    position: Some((at, id)),
                    rows,
                }
            }
            _ => {
                erasure_businesses::Entity::update_many()
                    .col_expr(erasure_businesses::Column::Done, Expr::value(true))
                    .filter(erasure_businesses::Column::ErasureId.eq(erasure.id))
                    .filter(erasure_businesses::Column::BusinessId.eq(business.business_id))
                    .exec(&txn)
                    .await?;
                Advance {
                    phase: Phase::Messages,
                    business: None,
                    position: None,
                    rows,
                }
            }
        };
        self.advance(txn, erasure, to).await
    }

    /// One page of the user's own messages in one conversation deleted; once none is left,
    /// the conversation loses its label and counts as read.
    async fn conversations(&self, erasure: &erasures::Model) -> AppResult<Step> {
        let core = &self.core;
        let mut query =
            conversations::Entity::find().filter(conversations::Column::UserId.eq(erasure.user_id));
        if let Some(after) = erasure.cursor_business {
            query = query.filter(conversations::Column::BusinessId.gt(after));
        }
        let conversation = query
            .order_by_asc(conversations::Column::BusinessId)
            .one(&core.db)
            .await?;
        let txn = core.db.begin().await?;
        let Some(conversation) = conversation else {
            let to = Advance {
                phase: Phase::Events,
                business: None,
                position: None,
                rows: 0,
            };
            return self.advance(txn, erasure, to).await;
        };
        let ids: Vec<Uuid> = inbound_messages::Entity::find()
            .select_only()
            .column(inbound_messages::Column::Id)
            .filter(inbound_messages::Column::ConversationId.eq(conversation.id))
            .order_by_asc(inbound_messages::Column::Sequence)
            .limit(self.batch_size())
            .into_tuple()
            .all(&txn)
            .await?;
        let mut tally = Tally::new();
        let mut rows = 0;
        if !ids.is_empty() {
            rows = inbound_messages::Entity::delete_many()
                .filter(crate::db::bulk::uuid_in(
                    txn.get_database_backend(),
                    inbound_messages::Column::Id,
                    ids.iter().copied(),
                ))
                .exec(&txn)
                .await?
                .rows_affected;
            for _ in 0..rows {
                tally.purged_received(conversation.business_id);
            }
        }
        let whole = ids.len() as u64 == self.batch_size();
        if !whole {
            conversations::Entity::update_many()
                .col_expr(conversations::Column::Label, Expr::value(None::<String>))
                .col_expr(
                    conversations::Column::BusinessReadSeq,
                    Expr::col(conversations::Column::InboundCount),
                )
                .filter(conversations::Column::Id.eq(conversation.id))
                .exec(&txn)
                .await?;
            if conversation.inbound_count > conversation.business_read_seq {
                tally.unread_conversations(conversation.business_id, -1);
            }
            rows += 1;
        }
        tally.apply(&txn).await?;
        let to = Advance {
            phase: Phase::Conversations,
            business: if whole {
                erasure.cursor_business
            } else {
                Some(conversation.business_id)
            },
            position: None,
            rows,
        };
        self.advance(txn, erasure, to).await
    }

    /// One page of one business's `message.received` events (or their deliveries) of the user
    /// whose `body` is still there: it becomes null; the deliveries' attempts lose the payload
    /// they sent and what the receiver answered.
    async fn redact(&self, erasure: &erasures::Model, phase: Phase) -> AppResult<Step> {
        let core = &self.core;
        let Some(business) = self.next_business(erasure, erasure.cursor_business).await? else {
            return self.start(erasure, phase.next()).await;
        };
        // The data is compact JSON written by serde_json: the user's id appears as
        // `"user_id":"<id>"`, and a body already removed as `"body":null` (a body's own
        // quotes are escaped, so no body text matches it).
        let of_user = format!("%\"user_id\":\"{}\"%", erasure.user_id);
        let redacted = "%\"body\":null%";
        let limit = self.batch_size();
        let txn = core.db.begin().await?;
        let mut rows = 0;
        let found = if phase == Phase::Events {
            let found = events::Entity::find()
                .filter(events::Column::BusinessId.eq(business.business_id))
                .filter(events::Column::EventType.eq(EventType::MessageReceived))
                .filter(events::Column::Data.like(&of_user))
                .filter(events::Column::Data.not_like(redacted))
                .limit(limit)
                .all(&txn)
                .await?;
            for event in &found {
                events::Entity::update_many()
                    .col_expr(events::Column::Data, Expr::value(without_body(&event.data)))
                    .filter(events::Column::Id.eq(event.id))
                    .exec(&txn)
                    .await?;
            }
            rows += found.len() as u64;
            found.len()
        } else {
            let found = webhook_deliveries::Entity::find()
                .filter(webhook_deliveries::Column::BusinessId.eq(business.business_id))
                .filter(webhook_deliveries::Column::EventType.eq(EventType::MessageReceived))
                .filter(webhook_deliveries::Column::Data.like(&of_user))
                .filter(webhook_deliveries::Column::Data.not_like(redacted))
                .limit(limit)
                .all(&txn)
                .await?;
            for delivery in &found {
                webhook_deliveries::Entity::update_many()
                    .col_expr(
                        webhook_deliveries::Column::Data,
                        Expr::value(without_body(&delivery.data)),
                    )
                    .filter(webhook_deliveries::Column::Id.eq(delivery.id))
                    .exec(&txn)
                    .await?;
            }
            rows += found.len() as u64;
            if !found.is_empty() {
                rows += webhook_attempts::Entity::update_many()
                    .col_expr(
                        webhook_attempts::Column::Payload,
                        Expr::value(None::<String>),
                    )
                    .col_expr(
                        webhook_attempts::Column::ResponseBody,
                        Expr::value(None::<String>),
                    )
                    .filter(crate::db::bulk::uuid_in(
                        txn.get_database_backend(),
                        webhook_attempts::Column::DeliveryId,
                        found.iter().map(|d| d.id),
                    ))
                    .exec(&txn)
                    .await?
                    .rows_affected;
            }
            found.len()
        };
        let to = Advance {
            phase,
            business: if found as u64 == limit {
                erasure.cursor_business
            } else {
                Some(business.business_id)
            },
            position: None,
            rows,
        };
        self.advance(txn, erasure, to).await
    }

    /// `user.redacted` to every business found, and the erasure completed, in one
    /// transaction held to the lease: sent once.
    async fn finish(&self, erasure: &erasures::Model) -> AppResult<Step> {
        let core = &self.core;
        let now = core.clock.now();
        let txn = core.db.begin().await?;
        let businesses = erasure_businesses::Entity::find()
            .filter(erasure_businesses::Column::ErasureId.eq(erasure.id))
            .order_by_asc(erasure_businesses::Column::BusinessId)
            .all(&txn)
            .await?;
        let completed = erasures::Entity::update_many()
            .col_expr(
                erasures::Column::Status,
                Expr::value(ErasureStatus::Completed),
            )
            .col_expr(erasures::Column::Phase, Expr::value(Phase::Done as i32))
            .col_expr(erasures::Column::CompletedAt, Expr::value(Some(now)))
            .col_expr(erasures::Column::CursorBusiness, Expr::value(None::<Uuid>))
            .col_expr(erasures::Column::LeaseOwner, Expr::value(None::<String>))
            .col_expr(erasures::Column::DueAtMs, Expr::value(NEVER))
            .filter(erasures::Column::Id.eq(erasure.id))
            .filter(erasures::Column::LeaseOwner.eq(&self.owner))
            .filter(erasures::Column::Status.eq(ErasureStatus::Running))
            .exec(&txn)
            .await?;
        if completed.rows_affected == 0 {
            txn.rollback().await?;
            return Ok(Step::Lost);
        }
        let erased_at = crate::clock::rfc3339(erasure.erased_at);
        let events = businesses
            .iter()
            .map(|b| crate::events::NewEvent {
                business_id: b.business_id,
                event_type: EventType::UserRedacted,
                data: serde_json::json!({ "user_id": erasure.user_id, "erased_at": erased_at }),
                broadcast: false,
            })
            .collect();
        let mut tally = Tally::new();
        let queued = crate::events::record_many(&txn, events, now, &mut tally).await?;
        tally.apply(&txn).await?;
        txn.commit().await?;
        if queued > 0 {
            core.webhook_wakeup.wake();
        }
        Ok(Step::Done)
    }
}

/// The next page of businesses after `after` (by id), each with whether it knew user
/// `user_id`: sent them a message, heard from them, or had them as a follower. One probe of
/// an index per business and table.
pub(super) async fn knew_page(
    db: &impl ConnectionTrait,
    user_id: Uuid,
    after: Uuid,
) -> AppResult<Vec<(Uuid, bool)>> {
    let sql = format!(
        "SELECT b.id, (\
           EXISTS (SELECT 1 FROM messages m WHERE m.business_id = b.id AND m.recipient_user_id = $2) \
           OR EXISTS (SELECT 1 FROM follows f WHERE f.business_id = b.id AND f.user_id = $2) \
           OR EXISTS (SELECT 1 FROM conversations c WHERE c.business_id = b.id AND c.user_id = $2)\
         ) AS knew \
         FROM (SELECT id FROM business_accounts WHERE id > $1 ORDER BY id LIMIT {DISCOVER_PAGE}) b \
         ORDER BY b.id"
    );
    let rows = db
        .query_all_raw(statement(db, &sql, vec![after.into(), user_id.into()]))
        .await?;
    let mut page = Vec::with_capacity(rows.len());
    for row in &rows {
        page.push((
            row.try_get::<Uuid>("", "id")?,
            row.try_get::<bool>("", "knew")?,
        ));
    }
    Ok(page)
}

fn statement(db: &impl ConnectionTrait, sql: &str, values: Vec<Value>) -> sea_orm::Statement {
    sea_orm::Statement::from_sql_and_values(db.get_database_backend(), sql, values)
}

/// Event data without the user's text: `body` null (data that is not a JSON object is left
/// as it is; the core writes none).
fn without_body(data: &str) -> String {
    match serde_json::from_str::<serde_json::Value>(data) {
        Ok(serde_json::Value::Object(mut map)) => {
            map.insert("body".to_string(), serde_json::Value::Null);
            serde_json::Value::Object(map).to_string()
        }
        _ => data.to_string(),
    }
}

/// Takes the outbox rows of `ids` that are due (none being handed out) as a dispatcher's
/// lease would; returns the ids taken.
async fn claim_due(
    db: &impl ConnectionTrait,
    ids: &[Uuid],
    owner: &str,
    now_ms: i64,
) -> AppResult<Vec<Uuid>> {
    if ids.is_empty() {
        return Ok(Vec::new());
    }
    let until = now_ms + LEASE.as_millis() as i64;
    let taken = message_outbox::Entity::update_many()
        .col_expr(message_outbox::Column::LeaseOwner, Expr::value(Some(owner)))
        .col_expr(message_outbox::Column::LeaseUntilMs, Expr::value(until))
        .col_expr(message_outbox::Column::DueAtMs, Expr::value(until))
        .filter(crate::db::bulk::uuid_in(
            db.get_database_backend(),
            message_outbox::Column::MessageId,
            ids.iter().copied(),
        ))
        .filter(message_outbox::Column::DueAtMs.lte(now_ms))
        .exec_with_returning(db)
        .await?;
    Ok(taken.into_iter().map(|row| row.message_id).collect())
}

/// Those of `ids` that have no outbox row.
async fn without_outbox(db: &impl ConnectionTrait, ids: &[Uuid]) -> AppResult<Vec<Uuid>> {
    if ids.is_empty() {
        return Ok(Vec::new());
    }
    let held: std::collections::HashSet<Uuid> = message_outbox::Entity::find()
        .select_only()
        .column(message_outbox::Column::MessageId)
        .filter(crate::db::bulk::uuid_in(
            db.get_database_backend(),
            message_outbox::Column::MessageId,
            ids.iter().copied(),
        ))
        .into_tuple()
        .all(db)
        .await?
        .into_iter()
        .collect();
    Ok(ids
        .iter()
        .copied()
        .filter(|id| !held.contains(id))
        .collect())
}

/// Leases one running erasure that is due (new, or its runner's lease lapsed).
async fn lease_due(
    db: &impl ConnectionTrait,
    owner: &str,
    now_ms: i64,
    lease_until_ms: i64,
) -> AppResult<Option<erasures::Model>> {
    let Some(due) = erasures::Entity::find()
        .filter(erasures::Column::Status.eq(ErasureStatus::Running))
        .filter(erasures::Column::DueAtMs.lte(now_ms))
        .order_by_asc(erasures::Column::DueAtMs)
        .one(db)
        .await?
    else {
        return Ok(None);
    };
    // Conditional: of two runners that read it, one takes it.
    Ok(erasures::Entity::update_many()
        .col_expr(erasures::Column::LeaseOwner, Expr::value(Some(owner)))
        .col_expr(erasures::Column::LeaseUntilMs, Expr::value(lease_until_ms))
        .col_expr(erasures::Column::DueAtMs, Expr::value(lease_until_ms))
        .filter(erasures::Column::Id.eq(due.id))
        .filter(erasures::Column::Status.eq(ErasureStatus::Running))
        .filter(erasures::Column::DueAtMs.lte(now_ms))
        .exec_with_returning(db)
        .await?
        .pop())
}

/// Gives an erasure back (due at once) when this core stops.
async fn release(db: &impl ConnectionTrait, id: Uuid, owner: &str, now_ms: i64) -> AppResult<()> {
    erasures::Entity::update_many()
        .col_expr(erasures::Column::LeaseOwner, Expr::value(None::<String>))
        .col_expr(erasures::Column::DueAtMs, Expr::value(now_ms))
        .col_expr(erasures::Column::LeaseUntilMs, Expr::value(now_ms))
        .filter(erasures::Column::Id.eq(id))
        .filter(erasures::Column::LeaseOwner.eq(owner))
        .filter(erasures::Column::Status.eq(ErasureStatus::Running))
        .exec(db)
        .await?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_body_goes_and_the_rest_of_the_data_stays() {
        let data = r#"{"message_id":"m","user_id":"u","body":"hi \"body\":null","sequence":3}"#;
        let out: serde_json::Value = serde_json::from_str(&without_body(data)).unwrap();
        assert_eq!(out["body"], serde_json::Value::Null);
        assert_eq!(out["sequence"], 3);
        assert_eq!(out["user_id"], "u");
        assert!(without_body(data).contains("\"body\":null"));
    }

    #[test]
    fn phases_go_in_order_and_name_themselves() {
        let mut phase = Phase::Discover;
        let mut names = vec![phase.name()];
        while phase != Phase::Done {
            phase = phase.next();
            names.push(phase.name());
        }
        assert_eq!(names.len(), 8);
        assert_eq!(Phase::of(99), Phase::Done);
    }
}
