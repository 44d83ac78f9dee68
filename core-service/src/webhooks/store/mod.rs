//! Queries for webhook endpoints and deliveries. Every console query takes the business.

use chrono::{DateTime, Utc};
use proto::vocabulary::{DeliveryStatus, EventType};
use sea_orm::sea_query::{ArrayType, Expr, ExprTrait as _};
use sea_orm::{
    ActiveModelTrait, ColumnTrait, ConnectionTrait, DatabaseConnection, EntityTrait,
    PaginatorTrait, QueryFilter, QueryOrder, QuerySelect, TransactionTrait, Value,
};
use uuid::Uuid;

mod endpoints;
pub mod health;
mod log;
mod pg;

pub use endpoints::{
    Rotation, delete, find, insert_capped, list, rotate_secret, update, url_taken,
};
pub use log::{
    DeliveryFilter, attempts_of, deliveries_by_ids, delivery_page, find_delivery, requeue_failed,
};
pub use pg::record_successes_at_once;

use crate::entities::{business_accounts, webhook_attempts, webhook_deliveries, webhooks};
use crate::error::AppResult;
use crate::usage::Tally;

/// A leased delivery: what signing its attempt needs.
#[derive(Debug, Clone)]
pub struct Leased {
    pub id: Uuid,
    pub webhook_id: Uuid,
    /// The event it announces (the same for every endpoint and attempt).
    pub event_id: Uuid,
    pub event_type: EventType,
    pub data: String,
    pub created_at: DateTime<Utc>,
    /// The job queue's class: 1 for a broadcast message's event.
    pub class: i32,
}

/// Leases up to `limit` due deliveries of active endpoints under `token` until
/// `lease_until_ms`, with one statement that reads the queue index in order (`FOR UPDATE SKIP
/// LOCKED` on PostgreSQL, so concurrent streams never wait on each other). A leased delivery's
/// next attempt moves to its lease's end, so in-flight rows are not scanned again and a lapsed
/// lease makes the delivery due again. Deliveries of broadcast messages (class 1) are taken only
/// after every other due delivery (class 0).
///
/// With `per_endpoint` > 0 and `any_slow` (some endpoint is marked slow), fair between
/// endpoints: no slow endpoint gets more than `per_endpoint` deliveries in flight (over every
/// stream and core), so slow endpoints already at the cap are skipped and the oldest due
/// deliveries of the others are taken instead. A slow receiver with a large backlog holds at
/// most `per_endpoint` worker slots; everyone else's deliveries wait at most one lease round.
/// Endpoints that answer quickly are never capped (a cap would bound their throughput to about
/// `per_endpoint` per round trip), and with no slow endpoint the plain queue order is used.
pub async fn lease_due(
    db: &impl ConnectionTrait,
    now_ms: i64,
    lease_until_ms: i64,
    token: &str,
    limit: u64,
    per_endpoint: u32,
    any_slow: bool,
) -> AppResult<Vec<Leased>> {
    let lock = match db.get_database_backend() {
        sea_orm::DbBackend::Postgres => " FOR UPDATE OF d SKIP LOCKED",
        _ => "",
    };
    // In flight: leased (lease in the future) and not yet reported. Such rows have
    // next_attempt_at_ms = lease_until_ms > now, so the queue index finds them (one range per
    // class).
    let busy = "SELECT l.webhook_id, COUNT(*) AS busy FROM webhook_deliveries l \
         WHERE l.queued = 1 AND l.class IN (0, 1) AND l.next_attempt_at_ms > $3 \
         AND l.lease_until_ms > $3 GROUP BY l.webhook_id";
    // Each class is read in its own index range, the broadcast class after the other: a
    // broadcast's backlog is never scanned past, and never taken before another due delivery.
    let due = if per_endpoint == 0 || !any_slow {
        let class = |class: i32, limit: &str| {
            format!(
                "SELECT id FROM (SELECT d.id FROM webhook_deliveries d \
                 WHERE d.queued = 1 AND d.class = {class} AND d.next_attempt_at_ms <= $3 \
                 AND EXISTS (SELECT 1 FROM webhooks w WHERE w.id = d.webhook_id AND w.active = $4) \
                 ORDER BY d.next_attempt_at_ms LIMIT {limit}{lock}) AS c{class}"
            )
        };
        format!(
            "SELECT id FROM ({} UNION ALL {}) AS due LIMIT $5",
            class(crate::events::DELIVERY_CLASS, "$5"),
            class(crate::events::BROADCAST_DELIVERY_CLASS, "$5"),
        )
    } else {
        // Only slow endpoints (slow_until_ms in the future) are held to the cap: their rows
        // are numbered per endpoint and kept while number + in flight <= cap.
        let class = |class: i32, limit: &str| {
            format!(
                "SELECT * FROM (SELECT d.id, d.webhook_id, d.next_attempt_at_ms, d.class, \
                   CASE WHEN w.slow_until_ms > $3 THEN 1 ELSE 0 END AS slow \
                 FROM webhook_deliveries d JOIN webhooks w ON w.id = d.webhook_id \
                 WHERE d.queued = 1 AND d.class = {class} AND d.next_attempt_at_ms <= $3 \
                 AND w.active = $4 \
                 AND (w.slow_until_ms <= $3 OR d.webhook_id NOT IN \
                   (SELECT s.webhook_id FROM ({busy}) s WHERE s.busy >= $6)) \
                 ORDER BY d.next_attempt_at_ms LIMIT {limit}{lock}) AS c{class}"
            )
        };
        format!(
            "SELECT r.id FROM (\
           SELECT c.id, c.next_attempt_at_ms, c.class, c.slow, COALESCE(b.busy, 0) AS busy, \
             ROW_NUMBER() OVER (PARTITION BY c.webhook_id \
               ORDER BY c.class, c.next_attempt_at_ms, c.id) AS rn \
           FROM ({} UNION ALL {}) c \
           LEFT JOIN ({busy}) b ON b.webhook_id = c.webhook_id\
         ) r WHERE r.slow = 0 OR r.rn + r.busy <= $6 \
         ORDER BY r.class, r.next_attempt_at_ms LIMIT $5",
            class(crate::events::DELIVERY_CLASS, "$7"),
            class(crate::events::BROADCAST_DELIVERY_CLASS, "$7"),
        )
    };
    let set = "lease_until_ms = $1, next_attempt_at_ms = $1, lease_token = $2";
    let returning = "u.id, u.webhook_id, u.event_id, u.event_type, u.data, u.created_at, u.class";
    let sql = match db.get_database_backend() {
        // Picked (and locked) once, then updated through the primary key whatever the planner
        // believes of the table's size (see `messaging::outbox::lease_due`).
        sea_orm::DbBackend::Postgres => format!(
            "WITH due AS MATERIALIZED ({due}) \
             UPDATE webhook_deliveries u SET {set} WHERE u.id = ANY(ARRAY(SELECT id FROM due)) \
             RETURNING {returning}"
        ),
        _ => format!(
            "UPDATE webhook_deliveries SET {set} WHERE id IN ({due}) \
             RETURNING id, webhook_id, event_id, event_type, data, created_at, class"
        ),
    };
    let mut values: Vec<sea_orm::Value> = vec![
        lease_until_ms.into(),
        token.into(),
        now_ms.into(),
        true.into(),
        (limit as i64).into(),
    ];
    if per_endpoint > 0 && any_slow {
        values.push(i64::from(per_endpoint).into());
        // Candidates: enough that a few endpoints at their cap do not hide the others.
        values.push((limit as i64 * 4).into());
    }
    let statement =
        sea_orm::Statement::from_sql_and_values(db.get_database_backend(), &sql, values);
    db.query_all_raw(statement)
        .await?
        .iter()
        .map(|row| {
            Ok(Leased {
                id: row.try_get("", "id")?,
                webhook_id: row.try_get("", "webhook_id")?,
                event_id: row.try_get("", "event_id")?,
                event_type: row.try_get("", "event_type")?,
                data: row.try_get("", "data")?,
                created_at: row.try_get("", "created_at")?,
                class: row.try_get("", "class")?,
            })
        })
        .collect()
}

/// Whether any endpoint is slow at `now_ms` (the job stream then leases with the cap).
pub async fn any_slow(db: &impl ConnectionTrait, now_ms: i64) -> AppResult<bool> {
    Ok(webhooks::Entity::find()
        .filter(webhooks::Column::SlowUntilMs.gt(now_ms))
        .one(db)
        .await?
        .is_some())
}

/// Marks endpoints slow until `until_ms`; a row already marked until nearly then is not
/// written again (a slow endpoint is one write every few seconds, not one per attempt).
pub async fn mark_slow(db: &impl ConnectionTrait, ids: &[Uuid], until_ms: i64) -> AppResult<()> {
    if ids.is_empty() {
        return Ok(());
    }
    webhooks::Entity::update_many()
        .col_expr(webhooks::Column::SlowUntilMs, Expr::value(until_ms))
        .filter(crate::db::bulk::uuid_in(
            db.get_database_backend(),
            webhooks::Column::Id,
            ids.iter().copied(),
        ))
        .filter(webhooks::Column::SlowUntilMs.lt(until_ms - 5_000))
        .exec(db)
        .await?;
    Ok(())
}

/// The endpoints with these ids.
pub async fn by_ids(db: &impl ConnectionTrait, ids: &[Uuid]) -> AppResult<Vec<webhooks::Model>> {
    Ok(webhooks::Entity::find()
        .filter(crate::db::bulk::uuid_in(
            db.get_database_backend(),
            webhooks::Column::Id,
            ids.iter().copied(),
        ))
        .all(db)
        .await?)
}

/// Takes an endpoint's open deliveries out of the job queue (paused) or puts them back.
pub async fn set_queued(
    db: &impl ConnectionTrait,
    webhook_id: Uuid,
    queued: bool,
) -> AppResult<()> {
    webhook_deliveries::Entity::update_many()
        .col_expr(
            webhook_deliveries::Column::Queued,
            Expr::value(i32::from(queued)),
        )
        .filter(webhook_deliveries::Column::WebhookId.eq(webhook_id))
        .filter(
            webhook_deliveries::Column::Status
                .is_in([DeliveryStatus::Pending, DeliveryStatus::Retrying]),
        )
        .exec(db)
        .await?;
    Ok(())
}

/// Records successful attempts whose leases (`(id, token)`) still hold, with one statement.
/// Returns the deliveries it recorded, as they are now.
pub async fn record_successes(
    db: &impl ConnectionTrait,
    leases: &[(Uuid, &str)],
    http_status: i32,
    now: DateTime<Utc>,
) -> AppResult<Vec<webhook_deliveries::Model>> {
    let any = crate::db::bulk::pairs_in(
        db.get_database_backend(),
        (
            webhook_deliveries::Column::Id,
            webhook_deliveries::Column::LeaseToken,
        ),
        (ArrayType::Uuid, ArrayType::String),
        leases
            .iter()
            .map(|(id, token)| (Value::from(*id), Value::from(token.to_string()))),
    );
    let updated = webhook_deliveries::Entity::update_many()
        .col_expr(
            webhook_deliveries::Column::Status,
            Expr::value(DeliveryStatus::Succeeded),
        )
        .col_expr(
            webhook_deliveries::Column::Attempts,
            Expr::col(webhook_deliveries::Column::Attempts).add(1),
        )
        .col_expr(
            webhook_deliveries::Column::LastHttpStatus,
            Expr::value(http_status),
        )
        .col_expr(
            webhook_deliveries::Column::LastError,
            Expr::value(Option::<String>::None),
        )
        .col_expr(webhook_deliveries::Column::Queued, Expr::value(0))
        .col_expr(webhook_deliveries::Column::LeaseUntilMs, Expr::value(0))
        .col_expr(
            webhook_deliveries::Column::LeaseToken,
            Expr::value(Option::<String>::None),
        )
        .col_expr(webhook_deliveries::Column::UpdatedAt, Expr::value(now))
        .filter(any)
        .exec_with_returning(db)
        .await?;
    Ok(updated)
}

/// A successful attempt as its worker reported it.
pub struct Success<'a> {
    pub id: Uuid,
    pub lease_token: &'a str,
    pub http_status: i32,
    pub duration_ms: i64,
    /// What the attempt sent and what the receiver answered (see `webhook_attempts`).
    pub payload: Option<String>,
    pub response_body: Option<String>,
}

/// Appends attempts to their deliveries' logs (an attempt already logged is kept).
pub async fn log_attempts(
    db: &impl ConnectionTrait,
    attempts: Vec<webhook_attempts::Model>,
) -> AppResult<()> {
    for chunk in attempts.chunks(500) {
        crate::db::bulk::insert_all(
            db,
            chunk
                .iter()
                .cloned()
                .map(webhook_attempts::ActiveModel::from)
                .collect(),
            &[
                webhook_attempts::Column::DeliveryId,
                webhook_attempts::Column::Attempt,
            ],
        )
        .await?;
    }
    Ok(())
}

/// Gives a lease back unused (the worker went away before the job was sent).
pub async fn release(db: &impl ConnectionTrait, id: Uuid, token: &str) -> AppResult<()> {
    webhook_deliveries::Entity::update_many()
        .col_expr(webhook_deliveries::Column::LeaseUntilMs, Expr::value(0))
        .col_expr(
            webhook_deliveries::Column::LeaseToken,
            Expr::value(Option::<String>::None),
        )
        .filter(webhook_deliveries::Column::Id.eq(id))
        .filter(webhook_deliveries::Column::LeaseToken.eq(token))
        .exec(db)
        .await?;
    Ok(())
}

/// An UPDATE that gives leased deliveries back: no lease, due at `now_ms`, no attempt counted.
fn given_back(now_ms: i64) -> sea_orm::UpdateMany<webhook_deliveries::Entity> {
    webhook_deliveries::Entity::update_many()
        .col_expr(webhook_deliveries::Column::LeaseUntilMs, Expr::value(0))
        .col_expr(
            webhook_deliveries::Column::LeaseToken,
            Expr::value(Option::<String>::None),
        )
        .col_expr(
            webhook_deliveries::Column::NextAttemptAtMs,
            Expr::value(now_ms),
        )
}

/// Gives back every delivery still leased under `tokens` (a job stream closed while its core
/// keeps running): due at `now_ms`, the same delivery, no attempt counted. Returns how many.
pub async fn release_leases(
    db: &impl ConnectionTrait,
    tokens: &[String],
    now_ms: i64,
) -> AppResult<u64> {
    let released = given_back(now_ms)
        .filter(crate::db::bulk::text_in(
            db.get_database_backend(),
            webhook_deliveries::Column::LeaseToken,
            tokens.iter().cloned(),
        ))
        .filter(webhook_deliveries::Column::Queued.eq(1))
        .exec(db)
        .await?;
    Ok(released.rows_affected)
}

/// Gives back every delivery leased under a token that begins with `mark` (one worker's, see
/// `flow::worker_mark`) and not in `held`, whose lease is current: due at `now_ms`, no
/// attempt counted. Returns how many. Leased rows have `next_attempt_at_ms` = their lease's
/// end, so the queue index finds them (one range per class).
pub async fn release_worker_leases(
    db: &impl ConnectionTrait,
    mark: &str,
    held: &[Uuid],
    now_ms: i64,
) -> AppResult<u64> {
    let mut update = given_back(now_ms)
        .filter(webhook_deliveries::Column::Queued.eq(1))
        .filter(webhook_deliveries::Column::Class.is_in([
            crate::events::DELIVERY_CLASS,
            crate::events::BROADCAST_DELIVERY_CLASS,
        ]))
        .filter(webhook_deliveries::Column::NextAttemptAtMs.gt(now_ms))
        .filter(webhook_deliveries::Column::LeaseUntilMs.gt(now_ms))
        .filter(webhook_deliveries::Column::LeaseToken.starts_with(mark));
    if !held.is_empty() {
        update = update.filter(
            crate::db::bulk::uuid_in(
                db.get_database_backend(),
                webhook_deliveries::Column::Id,
                held.iter().copied(),
            )
            .not(),
        );
    }
    Ok(update.exec(db).await?.rows_affected)
}

/// Gives back deliveries `ids` leased under `token` (never handed to a worker): due at
/// `now_ms`, no attempt counted. Returns how many.
pub async fn release_unsent(
    db: &impl ConnectionTrait,
    token: &str,
    ids: &[Uuid],
    now_ms: i64,
) -> AppResult<u64> {
    let released = given_back(now_ms)
        .filter(crate::db::bulk::uuid_in(
            db.get_database_backend(),
            webhook_deliveries::Column::Id,
            ids.iter().copied(),
        ))
        .filter(webhook_deliveries::Column::LeaseToken.eq(token))
        .filter(webhook_deliveries::Column::Queued.eq(1))
        .exec(db)
        .await?;
    Ok(released.rows_affected)
}

/// What an attempt's report changes.
pub struct AttemptResult {
    pub status: DeliveryStatus,
    pub attempts: i32,
    pub last_http_status: Option<i32>,
    pub last_error: Option<String>,
    pub next_attempt_at_ms: i64,
}

/// Records an attempt, if the lease `token` still holds it. Returns whether it did.
pub async fn record_attempt(
    db: &impl ConnectionTrait,
    id: Uuid,
    token: &str,
    result: AttemptResult,
    now: DateTime<Utc>,
) -> AppResult<bool> {
    let updated = webhook_deliveries::Entity::update_many()
        .col_expr(
            webhook_deliveries::Column::Status,
            Expr::value(result.status),
        )
        .col_expr(
            webhook_deliveries::Column::Attempts,
            Expr::value(result.attempts),
        )
        .col_expr(
            webhook_deliveries::Column::LastHttpStatus,
            Expr::value(result.last_http_status),
        )
        .col_expr(
            webhook_deliveries::Column::LastError,
            Expr::value(result.last_error),
        )
        .col_expr(
            webhook_deliveries::Column::NextAttemptAtMs,
            Expr::value(result.next_attempt_at_ms),
        )
        .col_expr(
            webhook_deliveries::Column::Queued,
            Expr::value(i32::from(result.status == DeliveryStatus::Retrying)),
        )
        .col_expr(webhook_deliveries::Column::LeaseUntilMs, Expr::value(0))
        .col_expr(
            webhook_deliveries::Column::LeaseToken,
            Expr::value(Option::<String>::None),
        )
        .col_expr(webhook_deliveries::Column::UpdatedAt, Expr::value(now))
        .filter(webhook_deliveries::Column::Id.eq(id))
        .filter(webhook_deliveries::Column::LeaseToken.eq(token))
        .exec(db)
        .await?;
    Ok(updated.rows_affected == 1)
}
