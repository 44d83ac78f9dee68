//! Queries for webhook endpoints and deliveries. Every console query takes the business.

use chrono::{DateTime, Utc};
use sea_orm::sea_query::{Expr, ExprTrait as _, Query};
use sea_orm::{
    ActiveModelTrait, ColumnTrait, Condition, ConnectionTrait, EntityTrait, QueryFilter,
    QueryOrder, QuerySelect,
};
use uuid::Uuid;

use crate::entities::{webhook_deliveries, webhooks};
use crate::error::AppResult;

pub async fn list(db: &impl ConnectionTrait, business_id: Uuid) -> AppResult<Vec<webhooks::Model>> {
    Ok(webhooks::Entity::find()
        .filter(webhooks::Column::BusinessId.eq(business_id))
        .order_by_asc(webhooks::Column::CreatedAt)
        .order_by_asc(webhooks::Column::Id)
        .all(db)
        .await?)
}

pub async fn find(
    db: &impl ConnectionTrait,
    business_id: Uuid,
    id: Uuid,
) -> AppResult<Option<webhooks::Model>> {
    Ok(webhooks::Entity::find_by_id(id)
        .filter(webhooks::Column::BusinessId.eq(business_id))
        .one(db)
        .await?)
}

pub async fn by_id(db: &impl ConnectionTrait, id: Uuid) -> AppResult<Option<webhooks::Model>> {
    Ok(webhooks::Entity::find_by_id(id).one(db).await?)
}

/// Whether another endpoint of the business has this URL.
pub async fn url_taken(
    db: &impl ConnectionTrait,
    business_id: Uuid,
    url: &str,
    except: Option<Uuid>,
) -> AppResult<bool> {
    let mut query = webhooks::Entity::find()
        .filter(webhooks::Column::BusinessId.eq(business_id))
        .filter(webhooks::Column::Url.eq(url));
    if let Some(id) = except {
        query = query.filter(webhooks::Column::Id.ne(id));
    }
    Ok(query.one(db).await?.is_some())
}

pub async fn insert(
    db: &impl ConnectionTrait,
    webhook: webhooks::ActiveModel,
) -> Result<webhooks::Model, sea_orm::DbErr> {
    webhook.insert(db).await
}

pub async fn update(
    db: &impl ConnectionTrait,
    webhook: webhooks::ActiveModel,
) -> Result<webhooks::Model, sea_orm::DbErr> {
    webhook.update(db).await
}

/// Deletes an endpoint; its unfinished deliveries end as failed.
pub async fn delete(
    db: &impl ConnectionTrait,
    business_id: Uuid,
    id: Uuid,
    now: DateTime<Utc>,
) -> AppResult<bool> {
    let deleted = webhooks::Entity::delete_many()
        .filter(webhooks::Column::Id.eq(id))
        .filter(webhooks::Column::BusinessId.eq(business_id))
        .exec(db)
        .await?;
    if deleted.rows_affected == 0 {
        return Ok(false);
    }
    webhook_deliveries::Entity::update_many()
        .col_expr(webhook_deliveries::Column::Status, Expr::value("failed"))
        .col_expr(
            webhook_deliveries::Column::LastError,
            Expr::value("endpoint deleted"),
        )
        .col_expr(webhook_deliveries::Column::UpdatedAt, Expr::value(now))
        .filter(webhook_deliveries::Column::WebhookId.eq(id))
        .filter(webhook_deliveries::Column::Status.is_in(["pending", "retrying"]))
        .exec(db)
        .await?;
    Ok(true)
}

/// The newest deliveries of a business.
pub async fn deliveries(
    db: &impl ConnectionTrait,
    business_id: Uuid,
    limit: u64,
) -> AppResult<Vec<webhook_deliveries::Model>> {
    Ok(webhook_deliveries::Entity::find()
        .filter(webhook_deliveries::Column::BusinessId.eq(business_id))
        .order_by_desc(webhook_deliveries::Column::CreatedAt)
        .order_by_desc(webhook_deliveries::Column::Id)
        .limit(limit)
        .all(db)
        .await?)
}

/// Delivery counts of a business by status.
pub async fn delivery_counts(
    db: &impl ConnectionTrait,
    business_id: Uuid,
) -> AppResult<Vec<(String, i64)>> {
    Ok(webhook_deliveries::Entity::find()
        .select_only()
        .column(webhook_deliveries::Column::Status)
        .column_as(Expr::col(webhook_deliveries::Column::Id).count(), "n")
        .filter(webhook_deliveries::Column::BusinessId.eq(business_id))
        .group_by(webhook_deliveries::Column::Status)
        .into_tuple::<(String, i64)>()
        .all(db)
        .await?)
}

/// Leases up to `limit` due deliveries of active endpoints, each under a fresh token, until
/// `lease_until_ms`. Returns the leased rows (with their new token).
pub async fn lease_due(
    db: &impl ConnectionTrait,
    now_ms: i64,
    lease_until_ms: i64,
    limit: u64,
) -> AppResult<Vec<webhook_deliveries::Model>> {
    let active = Query::select()
        .column(webhooks::Column::Id)
        .from(webhooks::Entity)
        .and_where(Expr::col(webhooks::Column::Active).eq(true))
        .to_owned();
    let candidates = webhook_deliveries::Entity::find()
        .filter(webhook_deliveries::Column::Status.is_in(["pending", "retrying"]))
        .filter(webhook_deliveries::Column::NextAttemptAtMs.lte(now_ms))
        .filter(webhook_deliveries::Column::LeaseUntilMs.lt(now_ms))
        .filter(Condition::all().add(webhook_deliveries::Column::WebhookId.in_subquery(active)))
        .order_by_asc(webhook_deliveries::Column::NextAttemptAtMs)
        .limit(limit)
        .all(db)
        .await?;
    let mut leased = Vec::with_capacity(candidates.len());
    for mut row in candidates {
        let token = Uuid::new_v4().to_string();
        let won = webhook_deliveries::Entity::update_many()
            .col_expr(
                webhook_deliveries::Column::LeaseUntilMs,
                Expr::value(lease_until_ms),
            )
            .col_expr(
                webhook_deliveries::Column::LeaseToken,
                Expr::value(token.clone()),
            )
            .filter(webhook_deliveries::Column::Id.eq(row.id))
            .filter(webhook_deliveries::Column::LeaseUntilMs.eq(row.lease_until_ms))
            .filter(webhook_deliveries::Column::Status.is_in(["pending", "retrying"]))
            .exec(db)
            .await?;
        if won.rows_affected == 1 {
            row.lease_until_ms = lease_until_ms;
            row.lease_token = Some(token);
            leased.push(row);
        }
    }
    Ok(leased)
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

pub async fn delivery(
    db: &impl ConnectionTrait,
    id: Uuid,
) -> AppResult<Option<webhook_deliveries::Model>> {
    Ok(webhook_deliveries::Entity::find_by_id(id).one(db).await?)
}

/// What an attempt's report changes.
pub struct AttemptResult {
    pub status: &'static str,
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
