//! The deliveries log: attempts, pages of deliveries, one delivery, and recovery's requeue.

use proto::vocabulary::{DeliveryStatus, EventType};

use super::*;

/// The attempts of a delivery, oldest first.
pub async fn attempts_of(
    db: &impl ConnectionTrait,
    delivery_id: Uuid,
) -> AppResult<Vec<webhook_attempts::Model>> {
    Ok(webhook_attempts::Entity::find()
        .filter(webhook_attempts::Column::DeliveryId.eq(delivery_id))
        .order_by_asc(webhook_attempts::Column::Attempt)
        .all(db)
        .await?)
}

/// Filters of the deliveries log (None: any).
#[derive(Debug, Clone, Default)]
pub struct DeliveryFilter {
    pub webhook_id: Option<Uuid>,
    pub status: Option<DeliveryStatus>,
    pub event_type: Option<EventType>,
    /// The deliveries announcing this message (`idx_webhook_deliveries_message`).
    pub message_id: Option<Uuid>,
}

/// Up to `limit` deliveries of a business, newest first, older than `after` (a delivery's
/// `(created_at, id)`) when given.
pub async fn delivery_page(
    db: &impl ConnectionTrait,
    business_id: Uuid,
    filter: &DeliveryFilter,
    after: Option<(DateTime<Utc>, Uuid)>,
    limit: u64,
) -> AppResult<Vec<webhook_deliveries::Model>> {
    let mut query = webhook_deliveries::Entity::find()
        .filter(webhook_deliveries::Column::BusinessId.eq(business_id));
    if let Some(webhook_id) = filter.webhook_id {
        query = query.filter(webhook_deliveries::Column::WebhookId.eq(webhook_id));
    }
    if let Some(status) = filter.status {
        query = query.filter(webhook_deliveries::Column::Status.eq(status));
    }
    if let Some(message_id) = filter.message_id {
        query = query.filter(webhook_deliveries::Column::MessageId.eq(message_id));
    }
    if let Some(event_type) = filter.event_type {
        query = query.filter(webhook_deliveries::Column::EventType.eq(event_type));
    }
    if let Some(after) = after {
        query = query.filter(crate::db::older_than(
            webhook_deliveries::Column::CreatedAt,
            webhook_deliveries::Column::Id,
            after,
        ));
    }
    Ok(query
        .order_by_desc(webhook_deliveries::Column::CreatedAt)
        .order_by_desc(webhook_deliveries::Column::Id)
        .limit(limit)
        .all(db)
        .await?)
}

/// Re-queues failed deliveries of endpoint `webhook_id` (all of them, or only `only`, or those
/// created at or after `since`): pending, due at once, with a fresh budget of attempts counted
/// from their current `attempts`, in one transaction with the usage counters. Returns them as
/// re-queued.
pub async fn requeue_failed(
    db: &DatabaseConnection,
    webhook_id: Uuid,
    only: Option<Uuid>,
    since: Option<DateTime<Utc>>,
    now: DateTime<Utc>,
) -> AppResult<Vec<webhook_deliveries::Model>> {
    let mut update = webhook_deliveries::Entity::update_many()
        .col_expr(
            webhook_deliveries::Column::Status,
            Expr::value(DeliveryStatus::Pending),
        )
        .col_expr(
            webhook_deliveries::Column::AttemptsBase,
            Expr::col(webhook_deliveries::Column::Attempts),
        )
        .col_expr(
            webhook_deliveries::Column::NextAttemptAtMs,
            Expr::value(now.timestamp_millis()),
        )
        .col_expr(webhook_deliveries::Column::Queued, Expr::value(1))
        .col_expr(webhook_deliveries::Column::LeaseUntilMs, Expr::value(0))
        .col_expr(
            webhook_deliveries::Column::LeaseToken,
            Expr::value(Option::<String>::None),
        )
        .col_expr(webhook_deliveries::Column::UpdatedAt, Expr::value(now))
        .filter(webhook_deliveries::Column::WebhookId.eq(webhook_id))
        .filter(webhook_deliveries::Column::Status.eq(DeliveryStatus::Failed));
    if let Some(id) = only {
        update = update.filter(webhook_deliveries::Column::Id.eq(id));
    }
    if let Some(since) = since {
        update = update.filter(webhook_deliveries::Column::CreatedAt.gte(since));
    }
    let txn = db.begin().await?;
    let requeued = update.exec_with_returning(&txn).await?;
    let mut tally = Tally::new();
    for delivery in &requeued {
        tally.requeued(delivery.business_id, 1);
    }
    tally.apply(&txn).await?;
    txn.commit().await?;
    Ok(requeued)
}

/// Delivery `id` of `business_id` (None for another business's).
pub async fn find_delivery(
    db: &impl ConnectionTrait,
    business_id: Uuid,
    id: Uuid,
) -> AppResult<Option<webhook_deliveries::Model>> {
    Ok(webhook_deliveries::Entity::find_by_id(id)
        .filter(webhook_deliveries::Column::BusinessId.eq(business_id))
        .one(db)
        .await?)
}

/// The deliveries with these ids.
pub async fn deliveries_by_ids(
    db: &impl ConnectionTrait,
    ids: &[Uuid],
) -> AppResult<Vec<webhook_deliveries::Model>> {
    Ok(webhook_deliveries::Entity::find()
        .filter(crate::db::bulk::uuid_in(
            db.get_database_backend(),
            webhook_deliveries::Column::Id,
            ids.iter().copied(),
        ))
        .all(db)
        .await?)
}
