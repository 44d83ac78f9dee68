//! Recording events: the event row and, in the same transaction, one webhook delivery per
//! active endpoint of the business subscribed to it. Nothing lives only in memory.

use chrono::{DateTime, Utc};
use sea_orm::{ActiveModelTrait, ColumnTrait, ConnectionTrait, EntityTrait, QueryFilter, Set};
use uuid::Uuid;

use crate::entities::{events, webhook_deliveries, webhooks};
use crate::error::AppResult;
use crate::usage::Tally;

/// Events a webhook can subscribe to.
pub const SUBSCRIBABLE: &[&str] = &[
    "message.sent",
    "message.failed",
    "grant.revoked",
    "follow.created",
    "follow.updated",
    "follow.deleted",
    "broadcast.completed",
];

/// The job queue's classes: deliveries of broadcast messages' events wait behind every other
/// due delivery.
pub const DELIVERY_CLASS: i32 = 0;
pub const BROADCAST_DELIVERY_CLASS: i32 = 1;

/// An event to record: for which business, its type and its `data`.
#[derive(Debug, Clone)]
pub struct NewEvent {
    pub business_id: Uuid,
    pub event_type: &'static str,
    pub data: serde_json::Value,
    /// The outcome of a broadcast message: its deliveries are leased after every other due one.
    pub broadcast: bool,
}

/// Records an event for `business_id` and queues its deliveries (counted in `tally`); returns
/// how many were queued. Call inside the transaction that records what the event announces.
pub async fn record(
    db: &impl ConnectionTrait,
    business_id: Uuid,
    event_type: &'static str,
    data: serde_json::Value,
    now: DateTime<Utc>,
    tally: &mut Tally,
) -> AppResult<usize> {
    let event = NewEvent {
        business_id,
        event_type,
        data,
        broadcast: false,
    };
    record_many(db, vec![event], now, tally).await
}

/// Records many events and queues one delivery per active subscribed endpoint of each, with
/// one statement per table (the endpoints of all their businesses are read at once), counting
/// the deliveries in `tally`. Returns how many deliveries were queued.
pub async fn record_many(
    db: &impl ConnectionTrait,
    new: Vec<NewEvent>,
    now: DateTime<Utc>,
    tally: &mut Tally,
) -> AppResult<usize> {
    if new.is_empty() {
        return Ok(0);
    }
    let classes: Vec<i32> = new
        .iter()
        .map(|e| {
            if e.broadcast {
                BROADCAST_DELIVERY_CLASS
            } else {
                DELIVERY_CLASS
            }
        })
        .collect();
    let rows: Vec<events::Model> = new
        .into_iter()
        .map(|e| events::Model {
            id: Uuid::now_v7(),
            business_id: e.business_id,
            event_type: e.event_type.to_string(),
            data: e.data.to_string(),
            created_at: now,
        })
        .collect();
    let mut businesses: Vec<Uuid> = rows.iter().map(|e| e.business_id).collect();
    businesses.sort();
    businesses.dedup();
    for chunk in rows.chunks(500) {
        events::Entity::insert_many(chunk.iter().cloned().map(events::ActiveModel::from))
            .exec_without_returning(db)
            .await?;
    }
    let endpoints = webhooks::Entity::find()
        .filter(webhooks::Column::BusinessId.is_in(businesses))
        .filter(webhooks::Column::Active.eq(true))
        .all(db)
        .await?;
    let mut deliveries = Vec::new();
    for (event, class) in rows.iter().zip(classes) {
        for endpoint in endpoints.iter().filter(|w| {
            w.business_id == event.business_id && w.events.split(',').any(|e| e == event.event_type)
        }) {
            deliveries.push(delivery(endpoint, event, now, class));
            tally.queued(endpoint.business_id, 1);
        }
    }
    for chunk in deliveries.chunks(500) {
        webhook_deliveries::Entity::insert_many(chunk.iter().cloned())
            .exec_without_returning(db)
            .await?;
    }
    Ok(deliveries.len())
}

/// Records an event meant for one endpoint only (`webhook.test`) and queues its delivery,
/// counted in `tally`.
pub async fn record_for(
    db: &impl ConnectionTrait,
    endpoint: &webhooks::Model,
    event_type: &str,
    data: serde_json::Value,
    now: DateTime<Utc>,
    tally: &mut Tally,
) -> AppResult<()> {
    let event = insert_event(db, endpoint.business_id, event_type, &data, now).await?;
    tally.queued(endpoint.business_id, 1);
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

fn delivery(
    endpoint: &webhooks::Model,
    event: &events::Model,
    now: DateTime<Utc>,
    class: i32,
) -> webhook_deliveries::ActiveModel {
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
        queued: Set(1),
        attempts_base: Set(0),
        class: Set(class),
    }
}

async fn queue(
    db: &impl ConnectionTrait,
    endpoint: &webhooks::Model,
    event: &events::Model,
    now: DateTime<Utc>,
) -> AppResult<()> {
    delivery(endpoint, event, now, DELIVERY_CLASS)
        .insert(db)
        .await?;
    Ok(())
}
