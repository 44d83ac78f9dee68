//! Queries of broadcasts: creating one with its Idempotency-Key, reading and listing them,
//! canceling, and the runner's lease, start and batches. No rules here.

use chrono::{DateTime, Utc};
use proto::vocabulary::{
    BroadcastStatus, BusinessMode, BusinessStatus, FollowStatus, MessageStatus, UserStatus,
};
use sea_orm::sea_query::{Expr, ExprTrait as _, OnConflict};
use sea_orm::{
    ColumnTrait, ConnectionTrait, DatabaseTransaction, EntityTrait, FromQueryResult, QueryFilter,
    QueryOrder, QuerySelect, Set, Statement, Value,
};
use uuid::Uuid;

use crate::entities::{
    broadcast_recipients, broadcasts, idempotency_keys, message_outbox, messages,
};
use crate::error::AppResult;
use crate::events::NewEvent;
use crate::messaging::outbox::{self, BROADCAST};
use crate::usage::Tally;

/// `due_at_ms` of a broadcast no runner takes again (its creation is over).
pub const NEVER: i64 = i64::MAX;

fn statement(db: &impl ConnectionTrait, sql: &str, values: Vec<Value>) -> Statement {
    Statement::from_sql_and_values(db.get_database_backend(), sql, values)
}

/// An Idempotency-Key claimed by a new broadcast.
#[derive(Debug, Clone)]
pub struct KeyClaim {
    pub key: String,
    pub request_hash: String,
    pub keep_until_ms: i64,
}

/// What creating a broadcast came to.
#[derive(Debug, Clone)]
pub enum Created {
    New(broadcasts::Model),
    /// The key named this broadcast, created before with the same content.
    Replay(broadcasts::Model),
    /// The key holds other content (a send, or another broadcast).
    Conflict,
    /// The key is held by a send that has not finished.
    InProgress,
}

/// Stores a new broadcast and, with an Idempotency-Key, claims the key for it in the same
/// transaction (the business's one key space, shared with sends). A key already held answers
/// what it holds and stores nothing.
pub async fn create(
    txn: &DatabaseTransaction,
    broadcast: broadcasts::Model,
    key: Option<KeyClaim>,
    now_ms: i64,
) -> AppResult<Created> {
    if let Some(claim) = key {
        let inserted = idempotency_keys::Entity::insert(idempotency_keys::ActiveModel {
            business_id: Set(broadcast.business_id),
            key: Set(claim.key.clone()),
            request_hash: Set(claim.request_hash.clone()),
            message_id: Set(None),
            expires_at_ms: Set(claim.keep_until_ms),
            broadcast_id: Set(Some(broadcast.id)),
        })
        .on_conflict(
            OnConflict::columns([
                idempotency_keys::Column::BusinessId,
                idempotency_keys::Column::Key,
            ])
            .do_nothing()
            .to_owned(),
        )
        .exec_without_returning(txn)
        .await?;
        if inserted == 0 {
            match earlier(txn, broadcast.business_id, &claim, now_ms).await? {
                Some(answer) => return Ok(answer),
                // Past its retention: the key is free again.
                None => {
                    let taken = idempotency_keys::Entity::update_many()
                        .col_expr(
                            idempotency_keys::Column::RequestHash,
                            Expr::value(claim.request_hash.clone()),
                        )
                        .col_expr(
                            idempotency_keys::Column::MessageId,
                            Expr::value(Option::<Uuid>::None),
                        )
                        .col_expr(
                            idempotency_keys::Column::BroadcastId,
                            Expr::value(broadcast.id),
                        )
                        .col_expr(
                            idempotency_keys::Column::ExpiresAtMs,
                            Expr::value(claim.keep_until_ms),
                        )
                        .filter(idempotency_keys::Column::BusinessId.eq(broadcast.business_id))
                        .filter(idempotency_keys::Column::Key.eq(claim.key.clone()))
                        .filter(idempotency_keys::Column::ExpiresAtMs.lte(now_ms))
                        .exec(txn)
                        .await?;
                    if taken.rows_affected != 1 {
                        return Ok(Created::InProgress);
                    }
                }
            }
        }
    }
    broadcasts::Entity::insert(broadcasts::ActiveModel::from(broadcast.clone()))
        .exec_without_returning(txn)
        .await?;
    Ok(Created::New(broadcast))
}

/// What a live Idempotency-Key already holds for `claim`: the broadcast it made (a replay), a
/// conflict, or a creation still in progress; None when the key is free (absent or past its
/// retention).
pub async fn earlier(
    db: &impl ConnectionTrait,
    business_id: Uuid,
    claim: &KeyClaim,
    now_ms: i64,
) -> AppResult<Option<Created>> {
    let held = idempotency_keys::Entity::find_by_id((business_id, claim.key.clone()))
        .one(db)
        .await?;
    let Some(existing) = held.filter(|k| k.expires_at_ms > now_ms) else {
        return Ok(None);
    };
    if existing.request_hash != claim.request_hash {
        return Ok(Some(Created::Conflict));
    }
    let Some(id) = existing.broadcast_id else {
        return Ok(Some(Created::InProgress));
    };
    Ok(Some(match find(db, business_id, id).await? {
        Some(earlier) => Created::Replay(earlier),
        None => Created::InProgress,
    }))
}

/// Broadcast `id` of `business_id` (None for another business's).
pub async fn find(
    db: &impl ConnectionTrait,
    business_id: Uuid,
    id: Uuid,
) -> AppResult<Option<broadcasts::Model>> {
    Ok(broadcasts::Entity::find_by_id(id)
        .filter(broadcasts::Column::BusinessId.eq(business_id))
        .one(db)
        .await?)
}

/// Up to `limit` broadcasts of a business, newest first, older than `after` (a broadcast's
/// `(created_at, id)`) when given, with `status` when given.
pub async fn list(
    db: &impl ConnectionTrait,
    business_id: Uuid,
    status: Option<BroadcastStatus>,
    after: Option<(DateTime<Utc>, Uuid)>,
    limit: u64,
) -> AppResult<Vec<broadcasts::Model>> {
    let mut query =
        broadcasts::Entity::find().filter(broadcasts::Column::BusinessId.eq(business_id));
    if let Some(status) = status {
        query = query.filter(broadcasts::Column::Status.eq(status));
    }
    if let Some(after) = after {
        query = query.filter(crate::db::older_than(
            broadcasts::Column::CreatedAt,
            broadcasts::Column::Id,
            after,
        ));
    }
    Ok(query
        .order_by_desc(broadcasts::Column::CreatedAt)
        .order_by_desc(broadcasts::Column::Id)
        .limit(limit)
        .all(db)
        .await?)
}

/// Ends a broadcast `canceled` when it is `scheduled` or `running` (one conditional UPDATE, so
/// a runner's batch and a cancel take turns on its row): the recipients not handled yet are
/// `not_created`, its audience is dropped, and it completes at once when every created message
/// has its outcome. Returns it as it is then, and the `broadcast.completed` event to record in
/// the same transaction; None when it was neither.
pub async fn cancel(
    txn: &DatabaseTransaction,
    id: Uuid,
    now: DateTime<Utc>,
) -> AppResult<Option<(broadcasts::Model, Option<NewEvent>)>> {
    let canceled = broadcasts::Entity::update_many()
        .col_expr(
            broadcasts::Column::Status,
            Expr::value(BroadcastStatus::Canceled),
        )
        .col_expr(
            broadcasts::Column::NotCreated,
            Expr::cust("CASE WHEN audience IS NULL THEN 0 ELSE audience - accepted - skipped END"),
        )
        .col_expr(broadcasts::Column::CreationDone, Expr::value(true))
        .col_expr(broadcasts::Column::DueAtMs, Expr::value(NEVER))
        .col_expr(
            broadcasts::Column::LeaseOwner,
            Expr::value(Option::<String>::None),
        )
        .filter(broadcasts::Column::Id.eq(id))
        .filter(
            broadcasts::Column::Status
                .is_in([BroadcastStatus::Scheduled, BroadcastStatus::Running]),
        )
        .exec_with_returning(txn)
        .await?
        .pop();
    let Some(canceled) = canceled else {
        return Ok(None);
    };
    drop_audience(txn, id).await?;
    let event = outbox::complete_broadcast(txn, id, now).await?;
    let now_row = broadcasts::Entity::find_by_id(id)
        .one(txn)
        .await?
        .unwrap_or(canceled);
    Ok(Some((now_row, event)))
}

async fn drop_audience(txn: &impl ConnectionTrait, id: Uuid) -> AppResult<()> {
    broadcast_recipients::Entity::delete_many()
        .filter(broadcast_recipients::Column::BroadcastId.eq(id))
        .exec(txn)
        .await?;
    Ok(())
}

/// Leases one broadcast due at `now_ms` (a scheduled one whose time has come, or a running one
/// whose runner's lease lapsed) to `owner` until `lease_until_ms`: a scheduled one turns
/// `running`. One statement (`FOR UPDATE SKIP LOCKED` on PostgreSQL, so cores never wait on
/// each other).
pub async fn lease_due(
    db: &impl ConnectionTrait,
    owner: &str,
    now_ms: i64,
    lease_until_ms: i64,
) -> AppResult<Option<broadcasts::Model>> {
    let lock = match db.get_database_backend() {
        sea_orm::DbBackend::Postgres => " FOR UPDATE SKIP LOCKED",
        _ => "",
    };
    let sql = format!(
        "UPDATE broadcasts SET lease_owner = $1, lease_until_ms = $2, due_at_ms = $2, \
         status = CASE WHEN status = 'scheduled' THEN 'running' ELSE status END \
         WHERE id IN (SELECT id FROM broadcasts WHERE status IN ('scheduled', 'running') \
         AND due_at_ms <= $3 ORDER BY due_at_ms LIMIT 1{lock}) RETURNING *"
    );
    let values = vec![owner.into(), lease_until_ms.into(), now_ms.into()];
    match db.query_one_raw(statement(db, &sql, values)).await? {
        Some(row) => Ok(Some(broadcasts::Model::from_query_result(&row, "")?)),
        None => Ok(None),
    }
}

/// The running broadcast `id` while it is `owner`'s to run (not canceled, not taken over),
/// read without a lock: a batch works from it and moves it on with [`advance`], which checks
/// that nothing moved it meanwhile.
pub async fn ours(
    db: &impl ConnectionTrait,
    id: Uuid,
    owner: &str,
) -> AppResult<Option<broadcasts::Model>> {
    Ok(broadcasts::Entity::find_by_id(id)
        .filter(broadcasts::Column::LeaseOwner.eq(owner))
        .filter(broadcasts::Column::Status.eq(BroadcastStatus::Running))
        .filter(broadcasts::Column::CreationDone.eq(false))
        .one(db)
        .await?)
}

/// The condition that `broadcast` is still as `owner` read it: running, leased to it, its
/// cursor where it was.
fn unchanged(
    update: sea_orm::UpdateMany<broadcasts::Entity>,
    broadcast: &broadcasts::Model,
    owner: &str,
) -> sea_orm::UpdateMany<broadcasts::Entity> {
    let update = update
        .filter(broadcasts::Column::Id.eq(broadcast.id))
        .filter(broadcasts::Column::LeaseOwner.eq(owner))
        .filter(broadcasts::Column::Status.eq(BroadcastStatus::Running))
        .filter(broadcasts::Column::CreationDone.eq(false));
    match broadcast.cursor {
        Some(cursor) => update.filter(broadcasts::Column::Cursor.eq(cursor)),
        None => update.filter(broadcasts::Column::Cursor.is_null()),
    }
}

/// `update` also renewing the lease until `lease_until_ms` (due again for a takeover then).
fn renewing(
    update: sea_orm::UpdateMany<broadcasts::Entity>,
    lease_until_ms: i64,
) -> sea_orm::UpdateMany<broadcasts::Entity> {
    update
        .col_expr(
            broadcasts::Column::LeaseUntilMs,
            Expr::value(lease_until_ms),
        )
        .col_expr(broadcasts::Column::DueAtMs, Expr::value(lease_until_ms))
}

/// Renews `owner`'s lease (a runner waiting for the send budget). False when it is no longer
/// `owner`'s.
pub async fn renew(
    db: &impl ConnectionTrait,
    broadcast: &broadcasts::Model,
    owner: &str,
    lease_until_ms: i64,
) -> AppResult<bool> {
    let renewed = unchanged(
        renewing(broadcasts::Entity::update_many(), lease_until_ms),
        broadcast,
        owner,
    )
    .exec(db)
    .await?;
    Ok(renewed.rows_affected == 1)
}

/// Gives a lease back (a core shutting down): another core may take the broadcast at once.
pub async fn release(
    db: &impl ConnectionTrait,
    id: Uuid,
    owner: &str,
    now_ms: i64,
) -> AppResult<()> {
    broadcasts::Entity::update_many()
        .col_expr(broadcasts::Column::LeaseUntilMs, Expr::value(0))
        .col_expr(broadcasts::Column::DueAtMs, Expr::value(now_ms))
        .col_expr(
            broadcasts::Column::LeaseOwner,
            Expr::value(Option::<String>::None),
        )
        .filter(broadcasts::Column::Id.eq(id))
        .filter(broadcasts::Column::LeaseOwner.eq(owner))
        .filter(broadcasts::Column::CreationDone.eq(false))
        .exec(db)
        .await?;
    Ok(())
}

/// Fixes a broadcast's audience inside `txn`: its business's active followers now, one row each
/// (one INSERT ... SELECT), counted into `audience`, and renews the lease. Returns the audience,
/// or None when the broadcast is no longer `owner`'s (the transaction must then roll back).
pub async fn fix_audience(
    txn: &DatabaseTransaction,
    broadcast: &broadcasts::Model,
    owner: &str,
    lease_until_ms: i64,
) -> AppResult<Option<i64>> {
    let inserted = txn
        .execute_raw(statement(
            txn,
            "INSERT INTO broadcast_recipients (broadcast_id, user_id) \
             SELECT $1, user_id FROM follows WHERE business_id = $2 AND status = 'active'",
            vec![broadcast.id.into(), broadcast.business_id.into()],
        ))
        .await?
        .rows_affected() as i64;
    let fixed = unchanged(
        renewing(broadcasts::Entity::update_many(), lease_until_ms)
            .col_expr(broadcasts::Column::Audience, Expr::value(inserted)),
        broadcast,
        owner,
    )
    .filter(broadcasts::Column::Audience.is_null())
    .exec(txn)
    .await?;
    Ok((fixed.rows_affected == 1).then_some(inserted))
}

/// A recipient of a broadcast, as the runner reads them: their number and their follow now.
#[derive(Debug, Clone)]
pub struct Recipient {
    pub user_id: Uuid,
    /// None when the user is gone.
    pub phone: Option<String>,
    pub follow_status: Option<FollowStatus>,
    pub marketing_opt_in: bool,
    /// The user's own language (a template's variant for them).
    pub language: Option<String>,
}

/// The next `limit` recipients of a broadcast after `cursor` (a user id), in user id order,
/// with their numbers and their follows of the business as they are now: one read.
pub async fn recipients_after(
    db: &impl ConnectionTrait,
    broadcast: &broadcasts::Model,
    limit: u64,
) -> AppResult<Vec<Recipient>> {
    let sql = "SELECT r.user_id, u.phone_number, u.language, f.status AS follow_status, \
         f.marketing_opt_in \
         FROM broadcast_recipients r \
         LEFT JOIN users u ON u.id = r.user_id \
         LEFT JOIN follows f ON f.business_id = $2 AND f.user_id = r.user_id \
         WHERE r.broadcast_id = $1 AND r.user_id > $3 ORDER BY r.user_id LIMIT $4";
    let values = vec![
        broadcast.id.into(),
        broadcast.business_id.into(),
        broadcast.cursor.unwrap_or(Uuid::nil()).into(),
        (limit as i64).into(),
    ];
    db.query_all_raw(statement(db, sql, values))
        .await?
        .iter()
        .map(|row| {
            Ok(Recipient {
                user_id: row.try_get("", "user_id")?,
                phone: row.try_get("", "phone_number")?,
                follow_status: row.try_get("", "follow_status")?,
                marketing_opt_in: row
                    .try_get::<Option<bool>>("", "marketing_opt_in")?
                    .unwrap_or(false),
                language: row.try_get("", "language")?,
            })
        })
        .collect()
}

/// Stores one batch's messages and their outbox rows (broadcast class, due now) inside `txn`,
/// with one statement each.
pub async fn insert_messages(
    txn: &DatabaseTransaction,
    created: &[messages::Model],
    now_ms: i64,
) -> AppResult<()> {
    if created.is_empty() {
        return Ok(());
    }
    crate::db::bulk::insert_all(
        txn,
        created
            .iter()
            .cloned()
            .map(messages::ActiveModel::from)
            .collect(),
        &[],
    )
    .await?;
    crate::db::bulk::insert_all(
        txn,
        created
            .iter()
            .map(|m| message_outbox::ActiveModel {
                message_id: Set(m.id),
                due_at_ms: Set(now_ms),
                lease_until_ms: Set(0),
                lease_owner: Set(None),
                attempts: Set(0),
                class: Set(BROADCAST),
            })
            .collect(),
        &[],
    )
    .await?;
    Ok(())
}

/// Moves a broadcast past one batch inside `txn`, last before the usage counters (so its row is
/// held only until the commit): its counts and cursor, and its lease renewed, on the condition
/// that it is still as `owner` read it. False when it is not (canceled or taken over
/// meanwhile): the transaction must then roll back, and nothing of the batch is stored.
pub async fn advance(
    txn: &DatabaseTransaction,
    broadcast: &broadcasts::Model,
    owner: &str,
    (created, skipped): (&[messages::Model], i64),
    cursor: Uuid,
    (now_ms, lease_until_ms): (i64, i64),
) -> AppResult<bool> {
    let moved = unchanged(
        renewing(broadcasts::Entity::update_many(), lease_until_ms)
            .col_expr(
                broadcasts::Column::Accepted,
                Expr::col(broadcasts::Column::Accepted).add(created.len() as i64),
            )
            .col_expr(
                broadcasts::Column::Skipped,
                Expr::col(broadcasts::Column::Skipped).add(skipped),
            )
            .col_expr(broadcasts::Column::Cursor, Expr::value(cursor)),
        broadcast,
        owner,
    )
    .exec(txn)
    .await?;
    if moved.rows_affected != 1 {
        return Ok(false);
    }
    let mut tally = Tally::new();
    for message in created {
        tally.accepted(
            message.business_id,
            message.category,
            MessageStatus::Accepted,
            now_ms,
        );
    }
    tally.apply(txn).await?;
    Ok(true)
}

/// Ends a broadcast's creation inside `txn`: every recipient was handled (`canceled` false) or
/// its business is no longer live and active (`canceled` true: it ends `canceled`, the rest
/// `not_created`). Its audience rows go; it completes at once when every created message has
/// its outcome, and the `broadcast.completed` event is returned to record in `txn`. Err(()) when
/// the broadcast is no longer as `owner` read it (the transaction must then roll back).
pub async fn finish(
    txn: &DatabaseTransaction,
    broadcast: &broadcasts::Model,
    owner: &str,
    canceled: bool,
    now: DateTime<Utc>,
) -> AppResult<Result<Option<NewEvent>, ()>> {
    let id = broadcast.id;
    let mut update = broadcasts::Entity::update_many()
        .col_expr(broadcasts::Column::CreationDone, Expr::value(true))
        .col_expr(broadcasts::Column::DueAtMs, Expr::value(NEVER))
        .col_expr(
            broadcasts::Column::LeaseOwner,
            Expr::value(Option::<String>::None),
        );
    if canceled {
        update = update
            .col_expr(
                broadcasts::Column::Status,
                Expr::value(BroadcastStatus::Canceled),
            )
            .col_expr(
                broadcasts::Column::NotCreated,
                Expr::cust("COALESCE(audience, 0) - accepted - skipped"),
            );
    }
    if unchanged(update, broadcast, owner)
        .exec(txn)
        .await?
        .rows_affected
        != 1
    {
        return Ok(Err(()));
    }
    drop_audience(txn, id).await?;
    Ok(Ok(outbox::complete_broadcast(txn, id, now).await?))
}

/// A business's status and mode, and its owner's status (None when the owner is gone): what
/// decides whether it may still broadcast. None when the business is gone.
pub async fn business_state(
    db: &impl ConnectionTrait,
    business_id: Uuid,
) -> AppResult<Option<(BusinessStatus, BusinessMode, Option<UserStatus>)>> {
    let row = db
        .query_one_raw(statement(
            db,
            "SELECT b.status, b.mode, o.status AS owner_status FROM business_accounts b \
             LEFT JOIN users o ON o.id = b.id WHERE b.id = $1",
            vec![business_id.into()],
        ))
        .await?;
    let Some(row) = row else {
        return Ok(None);
    };
    Ok(Some((
        row.try_get("", "status")?,
        row.try_get("", "mode")?,
        row.try_get("", "owner_status")?,
    )))
}
