//! Recording events: the event row and, in the same transaction, one webhook delivery per
//! active endpoint of the business subscribed to it. Nothing lives only in memory.

use chrono::{DateTime, Utc};
use sea_orm::{ActiveModelTrait, ColumnTrait, ConnectionTrait, EntityTrait, QueryFilter, Set};
use uuid::Uuid;

use crate::entities::{events, webhook_deliveries, webhooks};
use crate::error::AppResult;

/// Events a webhook can subscribe to.
pub const SUBSCRIBABLE: &[&str] = &["message.sent", "message.failed", "grant.revoked"];

/// Records an event for `business_id` and queues its deliveries; returns how many were queued.
/// Call inside the transaction that records what the event announces.
pub async fn record(
    db: &impl ConnectionTrait,
    business_id: Uuid,
    event_type: &str,
    data: serde_json::Value,
    now: DateTime<Utc>,
) -> AppResult<usize> {
    let event = insert_event(db, business_id, event_type, &data, now).await?;
    let endpoints = webhooks::Entity::find()
        .filter(webhooks::Column::BusinessId.eq(business_id))
        .filter(webhooks::Column::Active.eq(true))
        .all(db)
        .await?;
    let mut queued = 0;
    for endpoint in endpoints
        .iter()
        .filter(|w| w.events.split(',').any(|e| e == event_type))
    {
        queue(db, endpoint, &event, now).await?;
        queued += 1;
    }
    Ok(queued)
}

/// Records an event meant for one endpoint only (`webhook.test`) and queues its delivery.
pub async fn record_for(
    db: &impl ConnectionTrait,
    endpoint: &webhooks::Model,
    event_type: &str,
    data: serde_json::Value,
    now: DateTime<Utc>,
) -> AppResult<()> {
    let event = insert_event(db, endpoint.business_id, event_type, &data, now).await?;
    queue(db, endpoint, &event, now).await
}

async fn insert_event(
    db: &impl ConnectionTrait,
    business_id: Uuid,
    event_type: &str,
    data: &serde_json::Value,
    now: DateTime<Utc>,
) -> AppResult<events::Model> {
    Ok(events::ActiveModel {
        id: Set(Uuid::now_v7()),
        business_id: Set(business_id),
        event_type: Set(event_type.to_string()),
        data: Set(data.to_string()),
        created_at: Set(now),
    }
    .insert(db)
    .await?)
}

async fn queue(
    db: &impl ConnectionTrait,
    endpoint: &webhooks::Model,
    event: &events::Model,
    now: DateTime<Utc>,
) -> AppResult<()> {
    webhook_deliveries::ActiveModel {
        id: Set(Uuid::now_v7()),
        webhook_id: Set(endpoint.id),
        business_id: Set(endpoint.business_id),
        event_id: Set(event.id),
        event_type: Set(event.event_type.clone()),
        data: Set(event.data.clone()),
        status: Set("pending".to_string()),
        attempts: Set(0),
        last_http_status: Set(None),
        last_error: Set(None),
        next_attempt_at_ms: Set(now.timestamp_millis()),
        lease_until_ms: Set(0),
        lease_token: Set(None),
        created_at: Set(event.created_at),
        updated_at: Set(now),
    }
    .insert(db)
    .await?;
    Ok(())
}
