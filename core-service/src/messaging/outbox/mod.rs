//! Queries of the dispatcher: leasing due outbox rows, postponing them, recording outcomes
//! (with their events and webhook deliveries) and filling inboxes. No rules here.

use std::collections::HashMap;

use chrono::{DateTime, Utc};
use proto::vocabulary::{EventType, FailureReason, MessageStatus, UserStatus};
use sea_orm::sea_query::{Expr, ExprTrait as _};
use sea_orm::{
    ColumnTrait, ConnectionTrait, DatabaseConnection, EntityTrait, QueryFilter, QuerySelect, Set,
    TransactionTrait,
};
use uuid::Uuid;

mod pg;

pub use pg::record_outcomes_at_once;

use super::store::statement;
use crate::entities::{broadcasts, inbox_messages, message_outbox, messages};
use crate::error::AppResult;
use crate::usage::Tally;

/// The outbox's classes, in the order the dispatcher takes them.
pub const SINGLE: i32 = 0;
pub const SCHEDULED: i32 = 1;
pub const BROADCAST: i32 = 2;

/// How many rows one lease takes: in all, and at most of scheduled and of broadcast messages.
#[derive(Debug, Clone, Copy)]
pub struct LeaseLimits {
    pub total: u64,
    pub scheduled: u64,
    pub broadcast: u64,
}

/// Leases up to `limits.total` due outbox rows to `owner` until `lease_until_ms`, with one
/// statement: single sends due now first, then due scheduled messages, then broadcast messages,
/// each class read in its `(class, due_at_ms)` index order (`FOR UPDATE SKIP LOCKED` on
/// PostgreSQL, so cores never wait on each other's rows). A leased row's due time moves to its
/// lease's end: the due index serves only rows that can be taken, and a dispatcher that died
/// lets its rows come back when the lease lapses. At most `limits.scheduled` are scheduled
/// messages and `limits.broadcast` broadcast messages, so a due backlog is handed out in short
/// transactions that leave room for single sends. Returns each leased message with its class.
pub async fn lease_due(
    db: &impl ConnectionTrait,
    owner: &str,
    now_ms: i64,
    lease_until_ms: i64,
    limits: LeaseLimits,
) -> AppResult<Vec<(Uuid, i32)>> {
    let lock = match db.get_database_backend() {
        sea_orm::DbBackend::Postgres => " FOR UPDATE SKIP LOCKED",
        _ => "",
    };
    let class = |class: i32, limit: &str| {
        format!(
            "SELECT message_id FROM (SELECT message_id FROM message_outbox \
             WHERE class = {class} AND due_at_ms <= $3 ORDER BY due_at_ms LIMIT {limit}{lock}) AS c{class}"
        )
    };
    let due = format!(
        "SELECT message_id FROM ({} UNION ALL {} UNION ALL {}) AS due LIMIT $4",
        class(SINGLE, "$4"),
        class(SCHEDULED, "$5"),
        class(BROADCAST, "$6"),
    );
    let set = "lease_until_ms = $1, due_at_ms = $1, lease_owner = $2, attempts = attempts + 1";
    let sql = match db.get_database_backend() {
        // The due rows are picked (and locked) once, then updated through the primary key,
        // whatever the planner believes of the table's size. A queue table is often analyzed
        // while empty of live rows but not of pages, and then estimated at one row however
        // large it grows: as `IN (subquery)` it was planned as a nested loop that ran the
        // locking subquery once per row of the table, and as `UPDATE ... FROM due` as a scan
        // of the whole table joined to the picked rows (a broadcast's 100,000 rows were handed
        // out at 234 messages/s). The ids as one array (an InitPlan run once) leave only the
        // primary key's index condition.
        sea_orm::DbBackend::Postgres => format!(
            "WITH due AS MATERIALIZED ({due}) \
             UPDATE message_outbox SET {set} \
             WHERE message_id = ANY(ARRAY(SELECT message_id FROM due)) \
             RETURNING message_id, class"
        ),
        _ => format!(
            "UPDATE message_outbox SET {set} WHERE message_id IN ({due}) \
             RETURNING message_id, class"
        ),
    };
    let values = vec![
        lease_until_ms.into(),
        owner.into(),
        now_ms.into(),
        (limits.total as i64).into(),
        (Ord::min(limits.scheduled, limits.total) as i64).into(),
        (Ord::min(limits.broadcast, limits.total) as i64).into(),
    ];
    db.query_all_raw(statement(db, &sql, values))
        .await?
        .iter()
        .map(|row| {
            Ok((
                row.try_get::<Uuid>("", "message_id")?,
                row.try_get::<i32>("", "class")?,
            ))
        })
        .collect()
}

/// Starts leased scheduled messages: `scheduled` becomes `accepted` (a conditional UPDATE, so
/// a cancel and this lease never both win) with the usage totals, in one transaction. Those no
/// longer scheduled (canceled meanwhile) lose their outbox rows. Returns the started ones.
pub async fn start_scheduled(db: &DatabaseConnection, ids: &[Uuid]) -> AppResult<Vec<Uuid>> {
    if ids.is_empty() {
        return Ok(Vec::new());
    }
    let txn = db.begin().await?;
    let started = messages::Entity::update_many()
        .col_expr(
            messages::Column::Status,
            Expr::value(MessageStatus::Accepted),
        )
        .filter(crate::db::bulk::uuid_in(
            txn.get_database_backend(),
            messages::Column::Id,
            ids.iter().copied(),
        ))
        .filter(messages::Column::Status.eq(MessageStatus::Scheduled))
        .exec_with_returning(&txn)
        .await?;
    let started_ids: Vec<Uuid> = started.iter().map(|m| m.id).collect();
    let gone: Vec<Uuid> = ids
        .iter()
        .copied()
        .filter(|id| !started_ids.contains(id))
        .collect();
    if !gone.is_empty() {
        message_outbox::Entity::delete_many()
            .filter(crate::db::bulk::uuid_in(
                txn.get_database_backend(),
                message_outbox::Column::MessageId,
                gone,
            ))
            .exec(&txn)
            .await?;
    }
    let mut tally = Tally::new();
    for message in &started {
        tally.started(message.business_id);
    }
    tally.apply(&txn).await?;
    txn.commit().await?;
    Ok(started_ids)
}

/// The messages with these ids.
pub async fn messages(db: &impl ConnectionTrait, ids: &[Uuid]) -> AppResult<Vec<messages::Model>> {
    if ids.is_empty() {
        return Ok(Vec::new());
    }
    Ok(messages::Entity::find()
        .filter(crate::db::bulk::uuid_in(
            db.get_database_backend(),
            messages::Column::Id,
            ids.iter().copied(),
        ))
        .all(db)
        .await?)
}

/// Puts leased rows back, due at `due_at_ms` (deliveries that could not be attempted).
pub async fn postpone(db: &impl ConnectionTrait, ids: &[Uuid], due_at_ms: i64) -> AppResult<()> {
    message_outbox::Entity::update_many()
        .col_expr(message_outbox::Column::DueAtMs, Expr::value(due_at_ms))
        .col_expr(message_outbox::Column::LeaseUntilMs, Expr::value(0))
        .filter(crate::db::bulk::uuid_in(
            db.get_database_backend(),
            message_outbox::Column::MessageId,
            ids.iter().copied(),
        ))
        .exec(db)
        .await?;
    Ok(())
}

/// The terminal outcome of a message: delivered, or failed for a reason.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    Delivered,
    Failed(FailureReason),
}

impl Outcome {
    pub fn is_delivered(self) -> bool {
        self == Outcome::Delivered
    }

    /// The message's status once it has this outcome.
    pub fn status(self) -> MessageStatus {
        match self {
            Outcome::Delivered => MessageStatus::Delivered,
            Outcome::Failed(_) => MessageStatus::Failed,
        }
    }

    /// The message's `failure_reason`.
    pub fn reason(self) -> Option<FailureReason> {
        match self {
            Outcome::Delivered => None,
            Outcome::Failed(reason) => Some(reason),
        }
    }

    /// The event it announces: `message.sent` or `message.failed`.
    pub fn event_type(self) -> EventType {
        match self {
            Outcome::Delivered => EventType::MessageSent,
            Outcome::Failed(_) => EventType::MessageFailed,
        }
    }
}

/// What recording outcomes did.
#[derive(Debug)]
pub struct Recorded {
    /// How many messages this call decided.
    pub decided: usize,
    /// How many webhook deliveries it queued.
    pub queued: usize,
    /// Those written leased.
    pub leased: Vec<crate::events::LeasedDelivery>,
    /// The endpoints given with a check no longer held: the deliveries were planned from a
    /// fresh read instead (see `events::EndpointCache`).
    pub endpoints_moved: bool,
}

/// How the deliveries of the outcomes' events are planned.
#[derive(Debug, Clone, Copy, Default)]
pub struct Planning<'a> {
    /// Up to its room of the deliveries are written leased (see `events::record_many_leased`).
    pub lease: Option<crate::events::DeliveryLease<'a>>,
    /// The outcome businesses' active endpoints when read already.
    pub endpoints: Option<&'a [crate::entities::webhooks::Model]>,
    /// When `endpoints` were read before (kept by `events::EndpointCache`): that they still
    /// hold. PostgreSQL only.
    pub check: Option<&'a crate::events::EndpointCheck>,
}

/// Records outcomes once each, in one transaction (on PostgreSQL usually one statement, see
/// `record_outcomes_at_once`): a message moves from `accepted` to
/// `delivered` or `failed` (never back, never twice: a conditional UPDATE per kind of outcome),
/// the events of those that emit one are stored with their webhook deliveries, the outbox
/// rows of every message in `done` go (also those decided before, whose lease lapsed), and the
/// usage counters move. The deliveries are planned as `planning` says.
pub async fn record_outcomes(
    db: &DatabaseConnection,
    decided: &[(messages::Model, Outcome)],
    done: &[Uuid],
    now: DateTime<Utc>,
    mut planning: Planning<'_>,
) -> AppResult<Recorded> {
    let mut endpoints_moved = false;
    if db.get_database_backend() == sea_orm::DbBackend::Postgres
        && !decided.is_empty()
        && decided.iter().all(|(m, _)| m.broadcast_id.is_none())
    {
        match record_outcomes_at_once(db, decided, done, now, planning, None).await? {
            AtOnce::Recorded(recorded) => return Ok(recorded),
            AtOnce::EndpointsMoved => endpoints_moved = true,
            AtOnce::Decided | AtOnce::RecipientInactive => {}
        }
    }
    // Endpoints read before this call are not checked in the transaction: read them again.
    if planning.check.is_some() {
        planning.endpoints = None;
        planning.check = None;
    }
    let mut recorded = record_outcomes_in_transaction(db, decided, done, now, planning).await?;
    recorded.endpoints_moved = endpoints_moved;
    Ok(recorded)
}

async fn record_outcomes_in_transaction(
    db: &DatabaseConnection,
    decided: &[(messages::Model, Outcome)],
    done: &[Uuid],
    now: DateTime<Utc>,
    planning: Planning<'_>,
) -> AppResult<Recorded> {
    let Planning {
        lease, endpoints, ..
    } = planning;
    let txn = db.begin().await?;
    let mut groups: Vec<(&Outcome, Vec<Uuid>)> = Vec::new();
    for (message, outcome) in decided {
        match groups.iter_mut().find(|(o, _)| *o == outcome) {
            Some((_, ids)) => ids.push(message.id),
            None => groups.push((outcome, vec![message.id])),
        }
    }
    let mut recorded = std::collections::HashSet::new();
    for (outcome, ids) in groups {
        let updated = messages::Entity::update_many()
            .col_expr(messages::Column::Status, Expr::value(outcome.status()))
            .col_expr(
                messages::Column::FailureReason,
                Expr::value(outcome.reason()),
            )
            .col_expr(messages::Column::CompletedAt, Expr::value(now))
            .filter(crate::db::bulk::uuid_in(
                txn.get_database_backend(),
                messages::Column::Id,
                ids,
            ))
            .filter(messages::Column::Status.eq(MessageStatus::Accepted))
            .exec_with_returning(&txn)
            .await?;
        recorded.extend(updated.into_iter().map(|m| m.id));
    }
    let mut tally = Tally::new();
    let mut events = Vec::new();
    for (message, outcome) in decided {
        if !recorded.contains(&message.id) {
            continue;
        }
        tally.decided(
            message.business_id,
            outcome.is_delivered(),
            now.timestamp_millis(),
        );
        if !message.emits_event {
            continue;
        }
        events.push(outcome_event(message, outcome));
    }
    // Broadcast messages count in their broadcast, which completes with its last outcome.
    let mut per_broadcast: std::collections::BTreeMap<Uuid, (i64, i64)> = Default::default();
    for (message, outcome) in decided {
        if let Some(broadcast) = message.broadcast_id
            && recorded.contains(&message.id)
        {
            let counts = per_broadcast.entry(broadcast).or_default();
            if outcome.is_delivered() {
                counts.0 += 1;
            } else {
                counts.1 += 1;
            }
        }
    }
    let (mut queued, leased) =
        crate::events::record_many_leased(&txn, events, now, &mut tally, lease, endpoints).await?;
    if !done.is_empty() {
        message_outbox::Entity::delete_many()
            .filter(crate::db::bulk::uuid_in(
                txn.get_database_backend(),
                message_outbox::Column::MessageId,
                done.iter().copied(),
            ))
            .exec(&txn)
            .await?;
    }
    // The broadcasts' rows last (before the usage counters, in the order the runner takes
    // them too): every batch of a broadcast's outcomes and its runner update that row, so each
    // holds it only until its commit rather than through its inserts.
    let mut completed = Vec::new();
    for (broadcast, (delivered, failed)) in per_broadcast {
        let counted = broadcasts::Entity::update_many()
            .col_expr(
                broadcasts::Column::Delivered,
                Expr::col(broadcasts::Column::Delivered).add(delivered),
            )
            .col_expr(
                broadcasts::Column::Failed,
                Expr::col(broadcasts::Column::Failed).add(failed),
            )
            .filter(broadcasts::Column::Id.eq(broadcast))
            .exec_with_returning(&txn)
            .await?;
        if counted.first().is_some_and(completes) {
            completed.extend(complete_broadcast(&txn, broadcast, now).await?);
        }
    }
    if !completed.is_empty() {
        let (more, _) =
            crate::events::record_many_leased(&txn, completed, now, &mut tally, None, endpoints)
                .await?;
        queued += more;
    }
    tally.apply(&txn).await?;
    txn.commit().await?;
    count_outcomes(
        decided
            .iter()
            .filter(|(m, _)| recorded.contains(&m.id))
            .map(|(_, o)| o),
    );
    Ok(Recorded {
        decided: recorded.len(),
        queued,
        leased,
        endpoints_moved: false,
    })
}

fn count_outcomes<'a>(recorded: impl Iterator<Item = &'a Outcome>) {
    for outcome in recorded {
        metrics::counter!("message_outcomes_total", "outcome" => outcome.status().as_str())
            .increment(1);
    }
}

/// Messages that [`record_outcomes_at_once`] delivers to their recipients' inboxes, while every
/// recipient's status is `active_status`.
#[derive(Debug, Clone, Copy)]
pub struct Inboxed<'a> {
    pub messages: &'a [&'a messages::Model],
    pub active_status: UserStatus,
}

/// What [`record_outcomes_at_once`] came to.
#[derive(Debug)]
pub enum AtOnce {
    /// Everything written.
    Recorded(Recorded),
    /// Nothing written: an outcome was decided already (by a dispatcher whose lease lapsed).
    Decided,
    /// Nothing written: the endpoints checked no longer hold.
    EndpointsMoved,
    /// Nothing written: a recipient of an inbox message is not active.
    RecipientInactive,
}

/// Whether `b`, as just read with its row locked, is what [`complete_broadcast`] completes
/// (the same condition as its UPDATE's, so the UPDATE is sent only when it will apply).
fn completes(b: &broadcasts::Model) -> bool {
    b.creation_done && b.completed_at.is_none() && b.delivered + b.failed == b.accepted
}

/// Completes the broadcast when every message it created has its outcome and it creates no
/// more (it ran to its end, or was canceled): a running one becomes `completed`, a canceled one
/// keeps its status, and `completed_at` is set. One conditional UPDATE, so it happens once;
/// returns its `broadcast.completed` event then (to record in the same transaction).
pub async fn complete_broadcast(
    txn: &impl ConnectionTrait,
    id: Uuid,
    now: DateTime<Utc>,
) -> AppResult<Option<crate::events::NewEvent>> {
    let done = Expr::col(broadcasts::Column::Delivered)
        .add(Expr::col(broadcasts::Column::Failed))
        .eq(Expr::col(broadcasts::Column::Accepted));
    let Some(completed) = broadcasts::Entity::update_many()
        .col_expr(
            broadcasts::Column::Status,
            Expr::cust("CASE WHEN status = 'running' THEN 'completed' ELSE status END"),
        )
        .col_expr(broadcasts::Column::CompletedAt, Expr::value(now))
        .col_expr(
            broadcasts::Column::LeaseOwner,
            Expr::value(Option::<String>::None),
        )
        .filter(broadcasts::Column::Id.eq(id))
        .filter(broadcasts::Column::CreationDone.eq(true))
        .filter(broadcasts::Column::CompletedAt.is_null())
        .filter(done)
        .exec_with_returning(txn)
        .await?
        .pop()
    else {
        return Ok(None);
    };
    Ok(Some(crate::events::NewEvent {
        business_id: completed.business_id,
        event_type: EventType::BroadcastCompleted,
        data: serde_json::json!({
            "broadcast_id": completed.id,
            "status": completed.status,
            "counts": broadcast_counts(&completed),
        }),
        broadcast: false,
    }))
}

/// A broadcast's `counts`, as its API and its `broadcast.completed` event show them.
pub fn broadcast_counts(b: &broadcasts::Model) -> serde_json::Value {
    serde_json::json!({
        "audience": b.audience,
        "accepted": b.accepted,
        "skipped": b.skipped,
        "not_created": b.not_created,
        "delivered": b.delivered,
        "failed": b.failed,
    })
}

/// The `message.sent` or `message.failed` event of a message's outcome.
fn outcome_event(message: &messages::Model, outcome: &Outcome) -> crate::events::NewEvent {
    let mut data = serde_json::json!({
        "message_send_id": message.id,
        "category": message.category,
        "recipient_user_id": message.recipient_user_id,
        "status": outcome.status(),
        "broadcast_id": message.broadcast_id,
        "conversation_id": message.conversation_id,
    });
    if let Some(reason) = outcome.reason() {
        data["reason"] = serde_json::json!(reason);
    }
    crate::events::NewEvent {
        business_id: message.business_id,
        event_type: outcome.event_type(),
        data,
        broadcast: message.broadcast_id.is_some(),
    }
}

/// Cancels a scheduled message, in one transaction: a conditional UPDATE from `scheduled` to
/// `canceled` (so a cancel and a dispatcher's lease never both win), its outbox row gone, its
/// `message.failed` (`reason` `canceled`) when it emits events, and the usage totals. Returns
/// the message as canceled and how many deliveries were queued; None when it was no longer
/// scheduled.
pub async fn cancel(
    db: &DatabaseConnection,
    id: Uuid,
    now: DateTime<Utc>,
) -> AppResult<Option<(messages::Model, usize)>> {
    let txn = db.begin().await?;
    let Some(canceled) = messages::Entity::update_many()
        .col_expr(
            messages::Column::Status,
            Expr::value(MessageStatus::Canceled),
        )
        .col_expr(
            messages::Column::FailureReason,
            Expr::value(FailureReason::Canceled),
        )
        .col_expr(messages::Column::CompletedAt, Expr::value(now))
        .filter(messages::Column::Id.eq(id))
        .filter(messages::Column::Status.eq(MessageStatus::Scheduled))
        .exec_with_returning(&txn)
        .await?
        .pop()
    else {
        return Ok(None);
    };
    message_outbox::Entity::delete_many()
        .filter(message_outbox::Column::MessageId.eq(id))
        .exec(&txn)
        .await?;
    let mut tally = Tally::new();
    tally.canceled(canceled.business_id);
    let mut queued = 0;
    if canceled.emits_event {
        let event = outcome_event(&canceled, &Outcome::Failed(FailureReason::Canceled));
        queued = crate::events::record_many(&txn, vec![event], now, &mut tally).await?;
    }
    tally.apply(&txn).await?;
    txn.commit().await?;
    Ok(Some((canceled, queued)))
}

/// The statuses of the recipients of `messages`, with the inbox rows written of those whose
/// recipient's status is `active_status` (once each: a row already there stays). One statement
/// on PostgreSQL (its insert sees the statuses it answers with); a read, then an insert, on
/// SQLite (one connection: nothing changes in between).
pub async fn put_in_active_inboxes(
    db: &impl ConnectionTrait,
    messages: &[messages::Model],
    now: DateTime<Utc>,
    active_status: UserStatus,
) -> AppResult<HashMap<Uuid, UserStatus>> {
    let recipients: Vec<Uuid> = messages.iter().map(|m| m.recipient_user_id).collect();
    if db.get_database_backend() == sea_orm::DbBackend::Postgres {
        return pg::read_and_put_in_inboxes(db, recipients, messages, now, active_status).await;
    }
    let statuses: HashMap<Uuid, UserStatus> = crate::entities::users::Entity::find()
        .select_only()
        .column(crate::entities::users::Column::Id)
        .column(crate::entities::users::Column::Status)
        .filter(crate::db::bulk::uuid_in(
            db.get_database_backend(),
            crate::entities::users::Column::Id,
            recipients,
        ))
        .into_tuple::<(Uuid, UserStatus)>()
        .all(db)
        .await?
        .into_iter()
        .collect();
    let active: Vec<&messages::Model> = messages
        .iter()
        .filter(|m| statuses.get(&m.recipient_user_id) == Some(&active_status))
        .collect();
    put_in_inboxes(db, &active, now).await?;
    Ok(statuses)
}

/// Stores messages in their recipients' inboxes (once each, whatever the retries).
pub async fn put_in_inboxes(
    db: &impl ConnectionTrait,
    messages: &[&messages::Model],
    now: DateTime<Utc>,
) -> AppResult<()> {
    for chunk in messages.chunks(500) {
        let rows = chunk.iter().map(|message| inbox_row(message, now));
        crate::db::bulk::insert_all(db, rows.collect(), &[inbox_messages::Column::MessageId])
            .await?;
    }
    Ok(())
}

/// The inbox row of a message delivered at `now`.
pub fn inbox_row(message: &messages::Model, now: DateTime<Utc>) -> inbox_messages::ActiveModel {
    inbox_messages::ActiveModel {
        message_id: Set(message.id),
        user_id: Set(message.recipient_user_id),
        business_id: Set(message.business_id),
        category: Set(message.category),
        body: Set(message.body.clone()),
        message_content: Set(message.message_content.clone()),
        delivered_at: Set(now),
    }
}
