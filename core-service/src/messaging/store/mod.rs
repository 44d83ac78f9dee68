//! Queries of the intake (the reads an accept needs, the group-committed write of messages,
//! their key claims and outbox rows) and of the history (a business's messages and usage
//! counts). The dispatcher's queries are in `outbox/`. No rules here.

use chrono::{DateTime, Utc};
use proto::vocabulary::MessageStatus;
use sea_orm::sea_query::{ArrayType, Expr, ExprTrait as _};
use std::collections::{HashMap, HashSet};

use sea_orm::{
    ColumnTrait, Condition, ConnectionTrait, DatabaseConnection, DatabaseTransaction, EntityTrait,
    QueryFilter, QueryOrder, QuerySelect, Set, Statement, TransactionTrait, Value,
};
use uuid::Uuid;

mod context;
mod history;
mod pg;

pub use context::{
    AppSendContext, BusinessState, ContextCheck, RecipientState, app_send_contexts, live_key,
    recipient_state,
};
pub use history::{HistoryFilter, due_states, find_message, history};

use crate::entities::{conversations, idempotency_keys, message_outbox, messages};
use crate::error::{AppError, AppResult};

pub(super) fn statement(db: &impl ConnectionTrait, sql: &str, values: Vec<Value>) -> Statement {
    Statement::from_sql_and_values(db.get_database_backend(), sql, values)
}

/// A send ready to be written: the message and, with an Idempotency-Key, its claim.
#[derive(Debug, Clone)]
pub struct NewSend {
    pub message: messages::Model,
    pub key: Option<KeyClaim>,
    /// For a service send, the service limit it is checked against in the same transaction.
    pub service_limit: Option<ServiceLimit>,
    /// For a send decided from a context read earlier, what must still hold when it is written.
    pub check: Option<ContextCheck>,
    /// For a message sent through a conversation route: its conversation's limit and activity,
    /// taken and moved in the same transaction.
    pub thread: Option<ThreadSend>,
}

/// A conversation message's share of its write: one unit of the conversation's replies rate
/// (`key`, exact in the database), and the conversation's `last_message_at` moved to the
/// message's time.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ThreadSend {
    pub conversation_id: Uuid,
    pub reply_to: Option<Uuid>,
    pub key: String,
    pub rate: crate::limits::Rate,
}

/// The service limit of a send: its recipient's limit row (held while the send is checked, so
/// that concurrent batches take turns) and how far apart in effective time the business's
/// service messages to the recipient must be (a canceled one not counting).
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct ServiceLimit {
    pub key: String,
    pub spacing: std::time::Duration,
}

/// An Idempotency-Key claimed by a send.
#[derive(Debug, Clone)]
pub struct KeyClaim {
    pub key: String,
    pub request_hash: String,
    pub keep_until_ms: i64,
}

/// What writing a send came to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Written {
    /// The message and its outbox row are stored (once the transaction commits).
    Accepted,
    /// The key was accepted before with the same content: this message.
    Replay(Uuid),
    /// The key holds other content.
    Conflict,
    /// The key is held by a request that has not finished (a claim of an older version).
    InProgress,
    /// The service limit refused: the effective time of the message too near.
    Limited(DateTime<Utc>),
    /// The conversation's replies rate refused: the wait until a unit is free.
    RepliesLimited(std::time::Duration),
    /// The send's [`ContextCheck`] failed (or could not be made): nothing was stored; decide
    /// it again from a fresh read.
    Stale,
}

fn existing_answer(existing: &idempotency_keys::Model, request_hash: &str) -> Written {
    if existing.request_hash != request_hash {
        return Written::Conflict;
    }
    match existing.message_id {
        Some(id) => Written::Replay(id),
        None => Written::InProgress,
    }
}

/// The key claims of the sends at `indices` that carry a key, in the fixed order they are
/// claimed in (business, key), so concurrent batches on PostgreSQL wait rather than deadlock;
/// with those sends' indices in the same order.
fn claims(
    sends: &[NewSend],
    indices: impl Iterator<Item = usize>,
) -> (Vec<usize>, Vec<idempotency_keys::ActiveModel>) {
    let mut keyed: Vec<(usize, &KeyClaim)> = indices
        .filter_map(|i| sends[i].key.as_ref().map(|claim| (i, claim)))
        .collect();
    keyed.sort_by(|(a, x), (b, y)| {
        (sends[*a].message.business_id, &x.key).cmp(&(sends[*b].message.business_id, &y.key))
    });
    keyed
        .into_iter()
        .map(|(i, claim)| {
            let claim = idempotency_keys::ActiveModel {
                business_id: Set(sends[i].message.business_id),
                key: Set(claim.key.clone()),
                request_hash: Set(claim.request_hash.clone()),
                message_id: Set(Some(sends[i].message.id)),
                expires_at_ms: Set(claim.keep_until_ms),
                broadcast_id: Set(None),
            };
            (i, claim)
        })
        .unzip()
}

/// Outbox rows a batch writes already leased to this core's dispatcher, which is handed their
/// messages in memory after the commit (`writer.rs`): at most `room` of them, single sends due
/// now only.
#[derive(Debug, Clone, Copy)]
pub struct OutboxLease<'a> {
    pub owner: &'a str,
    pub until_ms: i64,
    pub room: usize,
}

/// Writes a batch of sends inside `txn`: claims their keys with one multi-row insert (a key
/// already held answers replay or conflict, and writes nothing for that send), takes exact
/// limits, then inserts the messages and their outbox rows with one statement each, and counts
/// them in the usage counters (one statement, last). One send's refusal never fails another.
/// Keys must be unique within the batch. With `lease`, the outbox rows of up to `lease.room`
/// accepted single sends due now are written leased (due when the lease ends); their indices
/// in `sends` are returned beside the answers.
async fn write_sends(
    txn: &DatabaseTransaction,
    sends: &[NewSend],
    now_ms: i64,
    lease: Option<OutboxLease<'_>>,
) -> AppResult<(Vec<Written>, Vec<usize>)> {
    let mut written = vec![Written::Accepted; sends.len()];
    let (keyed, claims) = claims(sends, 0..sends.len());
    if !keyed.is_empty() {
        let inserted = crate::db::bulk::insert_all(
            txn,
            claims,
            &[
                idempotency_keys::Column::BusinessId,
                idempotency_keys::Column::Key,
            ],
        )
        .await?;
        if inserted as usize != keyed.len() {
            // Some keys were held already: find out which, and what they hold.
            let mut any = Condition::any();
            for &i in &keyed {
                let send = &sends[i];
                any = any.add(
                    Condition::all()
                        .add(idempotency_keys::Column::BusinessId.eq(send.message.business_id))
                        .add(
                            idempotency_keys::Column::Key.eq(send
                                .key
                                .as_ref()
                                .expect("keyed")
                                .key
                                .clone()),
                        ),
                );
            }
            let held: HashMap<(Uuid, String), idempotency_keys::Model> =
                idempotency_keys::Entity::find()
                    .filter(any)
                    .all(txn)
                    .await?
                    .into_iter()
                    .map(|k| ((k.business_id, k.key.clone()), k))
                    .collect();
            for &i in &keyed {
                let send = &sends[i];
                let claim = send.key.as_ref().expect("keyed");
                let Some(existing) = held.get(&(send.message.business_id, claim.key.clone()))
                else {
                    written[i] = Written::InProgress;
                    continue;
                };
                if existing.message_id == Some(send.message.id) {
                    continue;
                }
                if existing.expires_at_ms > now_ms {
                    written[i] = existing_answer(existing, &claim.request_hash);
                    continue;
                }
                // Past its retention (or a dead claim): take it over.
                let taken = idempotency_keys::Entity::update_many()
                    .col_expr(
                        idempotency_keys::Column::RequestHash,
                        Expr::value(claim.request_hash.clone()),
                    )
                    .col_expr(
                        idempotency_keys::Column::MessageId,
                        Expr::value(send.message.id),
                    )
                    .col_expr(
                        idempotency_keys::Column::ExpiresAtMs,
                        Expr::value(claim.keep_until_ms),
                    )
                    .filter(idempotency_keys::Column::BusinessId.eq(send.message.business_id))
                    .filter(idempotency_keys::Column::Key.eq(claim.key.clone()))
                    .filter(idempotency_keys::Column::ExpiresAtMs.lte(now_ms))
                    .exec(txn)
                    .await?;
                if taken.rows_affected != 1 {
                    written[i] = Written::InProgress;
                }
            }
        }
    }
    // The service limit, recipient by recipient in a fixed order (rows are locked in it).
    let mut limited: Vec<usize> = (0..sends.len())
        .filter(|&i| sends[i].service_limit.is_some() && written[i] == Written::Accepted)
        .collect();
    limited.sort_by(|&a, &b| sends[a].service_limit.cmp(&sends[b].service_limit));
    let mut held: Option<&ServiceLimit> = None;
    // The times this batch accepted for the held recipient (not inserted yet).
    let mut accepted_here: Vec<DateTime<Utc>> = Vec::new();
    for i in limited {
        let send = &sends[i];
        let limit = send.service_limit.as_ref().expect("limited");
        let spacing_ms = limit.spacing.as_millis() as i64;
        let at = effective_time(&send.message);
        if held != Some(limit) {
            let keep_until = Ord::max(at.timestamp_millis(), now_ms) + spacing_ms;
            crate::limits::hold(txn, &limit.key, keep_until).await?;
            held = Some(limit);
            accepted_here.clear();
        }
        let message = &send.message;
        let in_batch = accepted_here
            .iter()
            .filter(|other| (**other - at).num_milliseconds().abs() < spacing_ms)
            .max()
            .copied();
        let stored = service_conflict(
            txn,
            message.business_id,
            message.recipient_user_id,
            at,
            limit.spacing,
        )
        .await?;
        match Ord::max(in_batch, stored) {
            Some(other) => {
                written[i] = Written::Limited(other);
                if let Some(claim) = &send.key {
                    idempotency_keys::Entity::delete_many()
                        .filter(idempotency_keys::Column::BusinessId.eq(message.business_id))
                        .filter(idempotency_keys::Column::Key.eq(claim.key.clone()))
                        .filter(idempotency_keys::Column::MessageId.eq(message.id))
                        .exec(txn)
                        .await?;
                }
            }
            None => accepted_here.push(at),
        }
    }
    // Conversation replies, conversation by conversation in a fixed order (their rate rows and
    // conversation rows are locked in it).
    let mut threaded: Vec<usize> = (0..sends.len())
        .filter(|&i| sends[i].thread.is_some() && written[i] == Written::Accepted)
        .collect();
    threaded.sort_by_key(|&i| sends[i].thread.as_ref().map(|t| t.conversation_id));
    for &i in &threaded {
        let send = &sends[i];
        let thread = send.thread.as_ref().expect("threaded");
        if let Err(wait) =
            crate::limits::take_in(txn, &thread.key, thread.rate, 1, now_ms * 1000).await?
        {
            written[i] = Written::RepliesLimited(wait);
            if let Some(claim) = &send.key {
                idempotency_keys::Entity::delete_many()
                    .filter(idempotency_keys::Column::BusinessId.eq(send.message.business_id))
                    .filter(idempotency_keys::Column::Key.eq(claim.key.clone()))
                    .filter(idempotency_keys::Column::MessageId.eq(send.message.id))
                    .exec(txn)
                    .await?;
            }
        }
    }
    let accepted: Vec<(usize, &NewSend)> = sends
        .iter()
        .enumerate()
        .zip(&written)
        .filter(|(_, w)| **w == Written::Accepted)
        .map(|(s, _)| s)
        .collect();
    let mut handed = Vec::new();
    if !accepted.is_empty() {
        crate::db::bulk::insert_all(
            txn,
            accepted
                .iter()
                .map(|(_, s)| messages::ActiveModel::from(s.message.clone()))
                .collect(),
            &[],
        )
        .await?;
        let outbox = accepted.iter().map(|&(i, s)| {
            let (row, leased) = outbox_row(&s.message, now_ms, lease, handed.len());
            if leased {
                handed.push(i);
            }
            row
        });
        let outbox = outbox.collect();
        crate::db::bulk::insert_all(txn, outbox, &[]).await?;
        for &i in &threaded {
            if written[i] == Written::Accepted {
                let message = &sends[i].message;
                let thread = sends[i].thread.as_ref().expect("threaded");
                touch_conversation(txn, thread.conversation_id, effective_time(message)).await?;
            }
        }
        let mut tally = crate::usage::Tally::new();
        for (_, send) in &accepted {
            let message = &send.message;
            tally.accepted(
                message.business_id,
                message.category,
                message.status,
                now_ms,
            );
        }
        tally.apply(txn).await?;
    }
    Ok((written, handed))
}

/// Moves a conversation's activity to `at` unless it is later already: a message sent through a
/// conversation route, in the transaction that writes it.
async fn touch_conversation(
    txn: &DatabaseTransaction,
    id: Uuid,
    at: DateTime<Utc>,
) -> AppResult<()> {
    conversations::Entity::update_many()
        .col_expr(conversations::Column::LastMessageAt, Expr::value(at))
        .filter(conversations::Column::Id.eq(id))
        .filter(conversations::Column::LastMessageAt.lt(at))
        .exec(txn)
        .await?;
    Ok(())
}

/// What writing a batch came to: each send's answer where it was stored (None where a
/// failure left it unstored), the indices of the sends handed out under the lease, and the
/// failure, if any.
#[derive(Debug)]
pub struct Batch {
    pub written: Vec<Option<Written>>,
    pub handed: Vec<usize>,
    pub error: Option<AppError>,
}

/// Writes a batch of sends and commits it. On PostgreSQL the sends without a service limit and
/// outside conversations go first, in one statement ([`pg::write_at_once`]), and only those it
/// did not write (their key was held, or they have a limit) take [`write_sends`]' transaction.
/// The two commit apart, so a failure of the second leaves the first's sends stored and
/// answered: only the sends it left unstored are None, to be tried again or refused.
pub async fn write_batch(
    db: &DatabaseConnection,
    sends: &[NewSend],
    now_ms: i64,
    lease: Option<OutboxLease<'_>>,
) -> Batch {
    let mut batch = Batch {
        written: vec![None; sends.len()],
        handed: Vec::new(),
        error: None,
    };
    let at_once = db.get_database_backend() == sea_orm::DbBackend::Postgres
        && crate::usage::day_of(now_ms) != crate::usage::TOTALS;
    // A context check is made by the one statement only: a checked send that would not take it
    // is not written, to be decided again from a fresh read.
    let mut rest: Vec<usize> = (0..sends.len())
        .filter(|&i| {
            let unchecked = sends[i].check.is_some()
                && !(at_once && sends[i].service_limit.is_none() && sends[i].thread.is_none());
            if unchecked {
                batch.written[i] = Some(Written::Stale);
            }
            !unchecked
        })
        .collect();
    if at_once {
        let plain: Vec<usize> = rest
            .iter()
            .copied()
            .filter(|&i| sends[i].service_limit.is_none() && sends[i].thread.is_none())
            .collect();
        if !plain.is_empty() {
            match pg::write_at_once(db, sends, &plain, now_ms, lease).await {
                Ok(pg::AtOnce {
                    done,
                    stale,
                    leased,
                }) => {
                    rest.retain(|&i| {
                        let id = &sends[i].message.id;
                        let answer = if done.contains(id) {
                            Written::Accepted
                        } else if stale.contains(id) {
                            Written::Stale
                        } else {
                            return true;
                        };
                        batch.written[i] = Some(answer);
                        false
                    });
                    batch.handed = leased;
                }
                Err(err) => {
                    batch.error = Some(err);
                    return batch;
                }
            }
        }
        if rest.is_empty() {
            return batch;
        }
    }
    let subset: Vec<NewSend> = rest.iter().map(|&i| sends[i].clone()).collect();
    let lease = lease.map(|lease| OutboxLease {
        room: lease.room - batch.handed.len(),
        ..lease
    });
    match write_in_transaction(db, &subset, now_ms, lease).await {
        Ok((answers, leased)) => {
            for (&i, answer) in rest.iter().zip(answers) {
                batch.written[i] = Some(answer);
            }
            batch.handed.extend(leased.into_iter().map(|j| rest[j]));
        }
        Err(err) => batch.error = Some(err),
    }
    batch
}

/// [`write_sends`] in a transaction of its own, committed.
async fn write_in_transaction(
    db: &DatabaseConnection,
    sends: &[NewSend],
    now_ms: i64,
    lease: Option<OutboxLease<'_>>,
) -> AppResult<(Vec<Written>, Vec<usize>)> {
    let txn = db.begin().await?;
    let written = write_sends(&txn, sends, now_ms, lease).await?;
    txn.commit().await?;
    Ok(written)
}

/// A written message's outbox row: leased to this core's dispatcher under `lease` when it is
/// a single send due now and `taken` rows have not filled the lease's room (the `bool`), due
/// at its send time when scheduled, due now otherwise.
fn outbox_row(
    message: &messages::Model,
    now_ms: i64,
    lease: Option<OutboxLease<'_>>,
    taken: usize,
) -> (message_outbox::ActiveModel, bool) {
    // A scheduled message is due at its send time, behind single sends due now.
    let scheduled = message.status == MessageStatus::Scheduled;
    let due = match message.send_at {
        Some(at) if scheduled => at.timestamp_millis(),
        _ => now_ms,
    };
    match lease {
        Some(lease) if !scheduled && taken < lease.room => (
            message_outbox::ActiveModel {
                message_id: Set(message.id),
                due_at_ms: Set(lease.until_ms),
                lease_until_ms: Set(lease.until_ms),
                lease_owner: Set(Some(lease.owner.to_string())),
                attempts: Set(1),
                class: Set(0), // a single send (`outbox::SINGLE`)
            },
            true,
        ),
        _ => (
            message_outbox::ActiveModel {
                message_id: Set(message.id),
                due_at_ms: Set(due),
                lease_until_ms: Set(0),
                lease_owner: Set(None),
                attempts: Set(0),
                class: Set(i32::from(scheduled)),
            },
            false,
        ),
    }
}

/// A message's effective time: its `send_at`, or when it was accepted when that is later (no
/// `send_at`, or one already past).
fn effective_time(message: &messages::Model) -> DateTime<Utc> {
    message
        .send_at
        .map_or(message.created_at, |at| Ord::max(at, message.created_at))
}

/// The stored expression of [`effective_time`], spelled as the index `idx_messages_thread`
/// spells it so both databases read that index.
pub(crate) const EFFECTIVE_TIME_SQL: &str =
    "CASE WHEN send_at > created_at THEN send_at ELSE created_at END";

/// The latest effective time among the stored service messages of `business_id` to
/// `recipient` sent outside any conversation, not canceled, less than `spacing` from `at`
/// (None: the service limit allows a message at `at`). One range read of the thread index;
/// no lock, nothing written (a send check reads it so).
pub async fn service_conflict(
    txn: &impl ConnectionTrait,
    business_id: Uuid,
    recipient: Uuid,
    at: DateTime<Utc>,
    spacing: std::time::Duration,
) -> AppResult<Option<DateTime<Utc>>> {
    let spacing = chrono::TimeDelta::milliseconds(spacing.as_millis() as i64);
    let effective = || Expr::cust(EFFECTIVE_TIME_SQL);
    let times: Vec<DateTime<Utc>> = messages::Entity::find()
        .select_only()
        .column_as(effective(), "effective_at")
        .filter(messages::Column::BusinessId.eq(business_id))
        .filter(messages::Column::RecipientUserId.eq(recipient))
        .filter(Expr::cust("category = 'service'"))
        // Conversation replies neither count nor are counted.
        .filter(messages::Column::ConversationId.is_null())
        .filter(effective().gt(at - spacing))
        .filter(effective().lt(at + spacing))
        .filter(messages::Column::Status.ne(MessageStatus::Canceled))
        .into_tuple()
        .all(txn)
        .await?;
    Ok(times.into_iter().max())
}
