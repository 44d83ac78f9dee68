//! Events: what a business can subscribe to, and how a batch of events becomes rows (the
//! event, and one webhook delivery per active subscribed endpoint). The rows are written by
//! `store.rs` in the transaction that records what the events announce: nothing lives only in
//! memory.

use chrono::{DateTime, Utc};
use proto::vocabulary::{DeliveryStatus, EventType};
use uuid::Uuid;

use crate::entities::{events, webhook_deliveries, webhooks};
use crate::usage::Tally;

mod cache;
mod pg;
mod store;

pub use cache::EndpointCache;
pub use store::{
    Position, active, active_endpoints, find_listed, page, record, record_for, record_many,
    record_many_leased,
};

/// Events a webhook can subscribe to.
pub use proto::vocabulary::SubscribableEvent;

/// The job queue's classes: deliveries of broadcast messages' events wait behind every other
/// due delivery.
pub const DELIVERY_CLASS: i32 = 0;
pub const BROADCAST_DELIVERY_CLASS: i32 = 1;

/// An event to record: for which business, its type and its `data`.
#[derive(Debug, Clone)]
pub struct NewEvent {
    pub business_id: Uuid,
    pub event_type: EventType,
    pub data: serde_json::Value,
    /// The outcome of a broadcast message: its deliveries are leased after every other due one.
    pub broadcast: bool,
}

/// Deliveries an event batch writes already leased to a job stream of this core, which is
/// handed them in memory after the commit (`webhooks::jobs::hand_over`): at most `room`, of
/// the first class only (those of broadcast messages wait in the queue behind every other).
#[derive(Debug, Clone, Copy)]
pub struct DeliveryLease<'a> {
    pub token: &'a str,
    pub until_ms: i64,
    pub room: usize,
}

/// A delivery written leased, with its endpoint (to sign it after the commit).
#[derive(Debug, Clone)]
pub struct LeasedDelivery {
    pub delivery: webhook_deliveries::Model,
    pub endpoint: webhooks::Model,
}

/// That the active endpoints of some businesses are still those read: their ids and row
/// versions.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EndpointCheck {
    pub businesses: Vec<Uuid>,
    /// `id:xmin` of each endpoint, in id order.
    pub versions: Vec<String>,
}

impl EndpointCheck {
    /// PostgreSQL: a query answering `ok`, true when the active endpoints of the businesses
    /// in parameter `$businesses` (a uuid array) are exactly those of parameter `$versions`
    /// (a text array from [`Self::values`]).
    pub fn sql(businesses: usize, versions: usize) -> String {
        format!(
            "SELECT coalesce(array_agg(id::text || ':' || xmin::text ORDER BY id), '{{}}') \
             = ${versions}::text[] AS ok FROM webhooks \
             WHERE business_id = ANY(${businesses}) AND active"
        )
    }

    /// The two parameters of [`Self::sql`]: the businesses, then the versions.
    pub fn values(&self) -> [sea_orm::Value; 2] {
        let versions: Vec<sea_orm::Value> =
            self.versions.iter().map(|v| v.clone().into()).collect();
        [
            crate::db::bulk::uuid_array(self.businesses.iter().copied()),
            sea_orm::Value::Array(
                sea_orm::sea_query::ArrayType::String,
                Some(Box::new(versions)),
            ),
        ]
    }
}

/// Those of `endpoints` that get `business_id`'s events of `event_type`.
pub fn subscribed(
    endpoints: &[webhooks::Model],
    business_id: Uuid,
    event_type: EventType,
) -> impl Iterator<Item = &webhooks::Model> {
    endpoints.iter().filter(move |w| {
        w.business_id == business_id && w.events.split(',').any(|e| e == event_type.as_str())
    })
}

/// The rows recording a batch of events writes: the events (numbered on SQLite by
/// [`record_many_leased`]), one delivery per active subscribed endpoint of each, up to
/// `lease.room` of them leased.
pub struct Planned {
    pub events: Vec<events::Model>,
    pub deliveries: Vec<webhook_deliveries::ActiveModel>,
    pub leased: Vec<LeasedDelivery>,
}

/// The [`Planned`] rows of `new`, given the [`active_endpoints`] of their businesses; the
/// deliveries are counted in `tally`.
pub fn plan(
    new: Vec<NewEvent>,
    now: DateTime<Utc>,
    tally: &mut Tally,
    lease: Option<DeliveryLease<'_>>,
    endpoints: &[webhooks::Model],
) -> Planned {
    let mut events = Vec::with_capacity(new.len());
    let mut deliveries = Vec::new();
    let mut leased = Vec::new();
    for e in new {
        let class = if e.broadcast {
            BROADCAST_DELIVERY_CLASS
        } else {
            DELIVERY_CLASS
        };
        let event = events::Model {
            id: crate::clock::id_at(now),
            business_id: e.business_id,
            event_type: e.event_type,
            data: e.data.to_string(),
            created_at: now,
            commit_seq: 0,
        };
        let message_id = announced_message(e.event_type, &e.data);
        for endpoint in subscribed(endpoints, event.business_id, event.event_type) {
            let mut row = delivery(endpoint, &event, now, class);
            row.message_id = message_id;
            if let Some(lease) = lease
                && class == DELIVERY_CLASS
                && leased.len() < lease.room
            {
                row.next_attempt_at_ms = lease.until_ms;
                row.lease_until_ms = lease.until_ms;
                row.lease_token = Some(lease.token.to_string());
                leased.push(LeasedDelivery {
                    delivery: row.clone(),
                    endpoint: endpoint.clone(),
                });
            }
            deliveries.push(webhook_deliveries::ActiveModel::from(row));
            tally.queued(endpoint.business_id, 1);
        }
        events.push(event);
    }
    Planned {
        events,
        deliveries,
        leased,
    }
}

/// The message an outcome event announces (its `message_send_id`); None for other events.
pub(crate) fn announced_message(event_type: EventType, data: &serde_json::Value) -> Option<Uuid> {
    match event_type {
        EventType::MessageSent | EventType::MessageFailed => data
            .get("message_send_id")
            .and_then(serde_json::Value::as_str)
            .and_then(|id| Uuid::parse_str(id).ok()),
        _ => None,
    }
}

/// A new delivery of `event` to `endpoint` (its `message_id` unset: see [`announced_message`]).
pub(crate) fn delivery(
    endpoint: &webhooks::Model,
    event: &events::Model,
    now: DateTime<Utc>,
    class: i32,
) -> webhook_deliveries::Model {
    webhook_deliveries::Model {
        // Aged by `created_at` (the event's time): see `clock::id_at`.
        id: crate::clock::id_at(event.created_at),
        webhook_id: endpoint.id,
        business_id: endpoint.business_id,
        event_id: event.id,
        event_type: event.event_type,
        data: event.data.clone(),
        status: DeliveryStatus::Pending,
        attempts: 0,
        last_http_status: None,
        last_error: None,
        next_attempt_at_ms: now.timestamp_millis(),
        lease_until_ms: 0,
        lease_token: None,
        created_at: event.created_at,
        updated_at: now,
        queued: 1,
        attempts_base: 0,
        class,
        message_id: None,
    }
}

/// The types an events list shows (every recorded type but `webhook.test`).
pub use proto::vocabulary::SubscribableEvent as Listed;
