//! Webhook endpoints: the console's reads and writes, every query taking the business.

use proto::vocabulary::DeliveryStatus;

use super::*;

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

/// Inserts an endpoint unless its business already has `max`; None when it has. The business's
/// row is written first, so creations for one business run one after another on every core (a
/// row lock on PostgreSQL, the write lock on SQLite) and none can be counted past the cap.
pub async fn insert_capped(
    db: &sea_orm::DatabaseConnection,
    business_id: Uuid,
    webhook: webhooks::ActiveModel,
    max: u32,
) -> Result<Option<webhooks::Model>, sea_orm::DbErr> {
    let txn = db.begin().await?;
    business_accounts::Entity::update_many()
        .col_expr(
            business_accounts::Column::Id,
            Expr::col(business_accounts::Column::Id),
        )
        .filter(business_accounts::Column::Id.eq(business_id))
        .exec(&txn)
        .await?;
    let count = webhooks::Entity::find()
        .filter(webhooks::Column::BusinessId.eq(business_id))
        .count(&txn)
        .await?;
    if count >= u64::from(max) {
        txn.rollback().await?;
        return Ok(None);
    }
    let row = webhook.insert(&txn).await?;
    crate::entities::webhook_health::ActiveModel::from(super::health::fresh(row.id))
        .insert(&txn)
        .await?;
    txn.commit().await?;
    Ok(Some(row))
}

pub async fn update(
    db: &impl ConnectionTrait,
    webhook: webhooks::ActiveModel,
) -> Result<webhooks::Model, sea_orm::DbErr> {
    webhook.update(db).await
}

/// A rotation's new secret columns.
#[derive(Debug, Clone)]
pub struct Rotation {
    pub secret_ciphertext: String,
    pub previous_secret_ciphertext: Option<String>,
    pub previous_secret_standard: bool,
    pub previous_secret_expires_at_ms: i64,
    pub at: DateTime<Utc>,
}

/// Rotates `webhook`'s secret as it was read: one conditional UPDATE that applies only while
/// the stored secret is still the one read. `None` when the row moved (or was deleted).
pub async fn rotate_secret(
    db: &impl ConnectionTrait,
    webhook: &webhooks::Model,
    rotation: Rotation,
) -> AppResult<Option<webhooks::Model>> {
    let updated = webhooks::Entity::update_many()
        .col_expr(
            webhooks::Column::SecretCiphertext,
            Expr::value(rotation.secret_ciphertext),
        )
        .col_expr(webhooks::Column::SecretStandard, Expr::value(true))
        .col_expr(
            webhooks::Column::PreviousSecretCiphertext,
            Expr::value(rotation.previous_secret_ciphertext),
        )
        .col_expr(
            webhooks::Column::PreviousSecretStandard,
            Expr::value(rotation.previous_secret_standard),
        )
        .col_expr(
            webhooks::Column::PreviousSecretExpiresAtMs,
            Expr::value(rotation.previous_secret_expires_at_ms),
        )
        .col_expr(webhooks::Column::UpdatedAt, Expr::value(rotation.at))
        .filter(webhooks::Column::Id.eq(webhook.id))
        .filter(webhooks::Column::SecretCiphertext.eq(webhook.secret_ciphertext.clone()))
        .exec(db)
        .await?;
    if updated.rows_affected != 1 {
        return Ok(None);
    }
    find(db, webhook.business_id, webhook.id).await
}

/// Deletes an endpoint; its unfinished deliveries end as failed (settled now, in the usage
/// counters). Call it last in its transaction.
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
    // Its health, counters and alerts not sent yet go with it.
    for sql in [
        "DELETE FROM webhook_health WHERE webhook_id = $1",
        "DELETE FROM webhook_daily WHERE webhook_id = $1",
        "DELETE FROM webhook_alerts WHERE webhook_id = $1",
    ] {
        db.execute_raw(sea_orm::Statement::from_sql_and_values(
            db.get_database_backend(),
            sql,
            [id.into()],
        ))
        .await?;
    }
    let failed = webhook_deliveries::Entity::update_many()
        .col_expr(
            webhook_deliveries::Column::Status,
            Expr::value(DeliveryStatus::Failed),
        )
        .col_expr(
            webhook_deliveries::Column::LastError,
            Expr::value("endpoint deleted"),
        )
        .col_expr(webhook_deliveries::Column::Queued, Expr::value(0))
        .col_expr(webhook_deliveries::Column::UpdatedAt, Expr::value(now))
        // A worker's report of an attempt in flight finds no lease: the failure is final.
        .col_expr(webhook_deliveries::Column::LeaseUntilMs, Expr::value(0))
        .col_expr(
            webhook_deliveries::Column::LeaseToken,
            Expr::value(Option::<String>::None),
        )
        .filter(webhook_deliveries::Column::WebhookId.eq(id))
        .filter(
            webhook_deliveries::Column::Status
                .is_in([DeliveryStatus::Pending, DeliveryStatus::Retrying]),
        )
        .exec(db)
        .await?;
    let mut tally = Tally::new();
    let ended = failed.rows_affected as i64;
    tally.settled(business_id, false, ended, now.timestamp_millis());
    tally.apply(db).await?;
    Ok(true)
}
