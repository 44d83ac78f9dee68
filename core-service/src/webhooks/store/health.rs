//! Queries for endpoints' delivery health: their health rows (locked for a report on
//! PostgreSQL), their per-day counters, and the alert SMS waiting to go out.

use std::collections::HashMap;

use proto::vocabulary::{Role, UserStatus, WebhookHealthState};
use sea_orm::sea_query::{Alias, Expr, ExprTrait as _, OnConflict};
use sea_orm::{
    ActiveModelTrait, ColumnTrait, ConnectionTrait, DbBackend, EntityTrait, FromQueryResult,
    QueryFilter, QueryOrder, QuerySelect, Set, Statement,
};
use uuid::Uuid;

use crate::entities::{team_members, users, webhook_alerts, webhook_daily, webhook_health};
use crate::error::AppResult;

/// A new endpoint's row: healthy, nothing seen yet.
pub fn fresh(webhook_id: Uuid) -> webhook_health::Model {
    webhook_health::Model {
        webhook_id,
        state: WebhookHealthState::Healthy,
        consecutive_failures: 0,
        failing_since: None,
        last_success_at: None,
        last_failure_at: None,
        last_failure_status: None,
        last_failure_error: None,
        alerted_at: None,
    }
}

/// The health rows of these endpoints, by endpoint; with `lock`, locked for the transaction in
/// endpoint order on PostgreSQL (SQLite's one writer is alone anyway), as every writer of them
/// takes them.
pub async fn rows(
    db: &impl ConnectionTrait,
    ids: Vec<Uuid>,
    lock: bool,
) -> AppResult<HashMap<Uuid, webhook_health::Model>> {
    if ids.is_empty() {
        return Ok(HashMap::new());
    }
    let mut query = webhook_health::Entity::find()
        .filter(crate::db::bulk::uuid_in(
            db.get_database_backend(),
            webhook_health::Column::WebhookId,
            ids,
        ))
        .order_by_asc(webhook_health::Column::WebhookId);
    if lock && db.get_database_backend() == DbBackend::Postgres {
        query = query.lock_exclusive();
    }
    Ok(query
        .all(db)
        .await?
        .into_iter()
        .map(|h| (h.webhook_id, h))
        .collect())
}

/// Writes health rows as they are now.
pub async fn save(
    db: &impl ConnectionTrait,
    rows: impl IntoIterator<Item = webhook_health::Model>,
) -> AppResult<()> {
    for row in rows {
        webhook_health::ActiveModel::from(row)
            .reset_all()
            .update(db)
            .await?;
    }
    Ok(())
}

/// One endpoint's counts to add to a day: attempts, succeeded, failed, exhausted.
pub type DayCounts = [i64; 4];

/// Adds `counts` to `day`'s counters in `slot`: one upsert, rows in endpoint order.
pub async fn add_to_day(
    db: &impl ConnectionTrait,
    counts: Vec<(Uuid, DayCounts)>,
    day: i32,
    slot: i32,
) -> AppResult<()> {
    if counts.is_empty() {
        return Ok(());
    }
    let rows = counts
        .into_iter()
        .map(
            |(webhook_id, [attempts, succeeded, failed, exhausted])| webhook_daily::ActiveModel {
                webhook_id: Set(webhook_id),
                day: Set(day),
                slot: Set(slot),
                attempts: Set(attempts),
                succeeded_attempts: Set(succeeded),
                failed_attempts: Set(failed),
                exhausted: Set(exhausted),
            },
        );
    let add = |column: webhook_daily::Column| {
        (
            column,
            Expr::col((webhook_daily::Entity, column))
                .add(Expr::col((Alias::new("excluded"), column))),
        )
    };
    webhook_daily::Entity::insert_many(rows)
        .on_conflict(
            OnConflict::columns([
                webhook_daily::Column::WebhookId,
                webhook_daily::Column::Day,
                webhook_daily::Column::Slot,
            ])
            .values([
                add(webhook_daily::Column::Attempts),
                add(webhook_daily::Column::SucceededAttempts),
                add(webhook_daily::Column::FailedAttempts),
                add(webhook_daily::Column::Exhausted),
            ])
            .to_owned(),
        )
        .exec_without_returning(db)
        .await?;
    Ok(())
}

/// One UTC day of an endpoint's counters.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Day {
    /// Days since 1970-01-01.
    pub day: i32,
    pub attempts: i64,
    pub succeeded_attempts: i64,
    pub failed_attempts: i64,
    pub exhausted: i64,
}

/// An endpoint's counters of days `first` to `last`, summed over their slots, oldest first,
/// every day present (zeros where nothing happened).
pub async fn days(
    db: &impl ConnectionTrait,
    webhook_id: Uuid,
    first: i32,
    last: i32,
) -> AppResult<Vec<Day>> {
    let sql = "SELECT day, CAST(SUM(attempts) AS BIGINT) AS attempts, \
         CAST(SUM(succeeded_attempts) AS BIGINT) AS succeeded_attempts, \
         CAST(SUM(failed_attempts) AS BIGINT) AS failed_attempts, \
         CAST(SUM(exhausted) AS BIGINT) AS exhausted \
         FROM webhook_daily WHERE webhook_id = $1 AND day >= $2 AND day <= $3 GROUP BY day";
    let rows = db
        .query_all_raw(Statement::from_sql_and_values(
            db.get_database_backend(),
            sql,
            [webhook_id.into(), first.into(), last.into()],
        ))
        .await?;
    let mut found: HashMap<i32, Day> = HashMap::with_capacity(rows.len());
    for row in rows {
        let day: i32 = row.try_get("", "day")?;
        found.insert(
            day,
            Day {
                day,
                attempts: row.try_get("", "attempts")?,
                succeeded_attempts: row.try_get("", "succeeded_attempts")?,
                failed_attempts: row.try_get("", "failed_attempts")?,
                exhausted: row.try_get("", "exhausted")?,
            },
        );
    }
    Ok((first..=last)
        .map(|day| {
            found.remove(&day).unwrap_or(Day {
                day,
                attempts: 0,
                succeeded_attempts: 0,
                failed_attempts: 0,
                exhausted: 0,
            })
        })
        .collect())
}

/// The numbers of a business's owner and admins who get alert SMS (active, alerts on), in
/// order.
pub async fn alert_phones(db: &impl ConnectionTrait, business_id: Uuid) -> AppResult<Vec<String>> {
    let mut to: Vec<Uuid> = team_members::Entity::find()
        .select_only()
        .column(team_members::Column::UserId)
        .filter(team_members::Column::BusinessId.eq(business_id))
        .filter(team_members::Column::Role.is_in([Role::Owner, Role::Admin]))
        .into_tuple()
        .all(db)
        .await?;
    // The owner's user id is the business's.
    to.push(business_id);
    to.sort();
    to.dedup();
    Ok(users::Entity::find()
        .select_only()
        .column(users::Column::PhoneNumber)
        .filter(crate::db::bulk::uuid_in(
            db.get_database_backend(),
            users::Column::Id,
            to,
        ))
        .filter(users::Column::WebhookAlerts.eq(true))
        .filter(users::Column::Status.eq(UserStatus::Active))
        .order_by_asc(users::Column::PhoneNumber)
        .into_tuple()
        .all(db)
        .await?)
}

/// Queues alert SMS.
pub async fn queue_alerts(
    db: &impl ConnectionTrait,
    alerts: Vec<webhook_alerts::Model>,
) -> AppResult<()> {
    if alerts.is_empty() {
        return Ok(());
    }
    webhook_alerts::Entity::insert_many(alerts.into_iter().map(webhook_alerts::ActiveModel::from))
        .exec_without_returning(db)
        .await?;
    Ok(())
}

/// Up to `limit` alert SMS due at `now_ms` and not held, held now until `until_ms` (their
/// attempts counted): `FOR UPDATE SKIP LOCKED` on PostgreSQL, so two cores never take one.
pub async fn claim_alerts(
    db: &impl ConnectionTrait,
    now_ms: i64,
    until_ms: i64,
    limit: u64,
) -> AppResult<Vec<webhook_alerts::Model>> {
    let skip_locked = if db.get_database_backend() == DbBackend::Postgres {
        " FOR UPDATE SKIP LOCKED"
    } else {
        ""
    };
    let sql = format!(
        "UPDATE webhook_alerts SET lease_until_ms = $1, attempts = attempts + 1 \
         WHERE id IN (SELECT id FROM webhook_alerts WHERE due_at_ms <= $2 \
         AND lease_until_ms <= $2 ORDER BY due_at_ms LIMIT {limit}{skip_locked}) \
         RETURNING id, webhook_id, phone_number, text, due_at_ms, lease_until_ms, attempts"
    );
    let rows = db
        .query_all_raw(Statement::from_sql_and_values(
            db.get_database_backend(),
            sql,
            [until_ms.into(), now_ms.into()],
        ))
        .await?;
    let mut claimed = Vec::with_capacity(rows.len());
    for row in rows {
        claimed.push(webhook_alerts::Model::from_query_result(&row, "")?);
    }
    Ok(claimed)
}

/// An alert SMS sent (or given up): it goes.
pub async fn alert_done(db: &impl ConnectionTrait, id: Uuid) -> AppResult<()> {
    webhook_alerts::Entity::delete_by_id(id).exec(db).await?;
    Ok(())
}

/// An alert SMS that failed: due again at `due_at_ms`, held by nobody.
pub async fn alert_again(db: &impl ConnectionTrait, id: Uuid, due_at_ms: i64) -> AppResult<()> {
    webhook_alerts::Entity::update_many()
        .col_expr(webhook_alerts::Column::DueAtMs, Expr::value(due_at_ms))
        .col_expr(webhook_alerts::Column::LeaseUntilMs, Expr::value(0i64))
        .filter(webhook_alerts::Column::Id.eq(id))
        .exec(db)
        .await?;
    Ok(())
}
