//! Recording events: the event row and, in the same transaction, one webhook delivery per
//! active endpoint of the business subscribed to it. Nothing lives only in memory.

use chrono::{DateTime, Utc};
use sea_orm::sea_query::Expr;
use sea_orm::{
    ActiveModelTrait, ActiveValue, ColumnTrait, Condition, ConnectionTrait, DbBackend, EntityTrait,
    QueryFilter, QueryOrder, QuerySelect,
};
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
    Ok(record_many_leased(db, new, now, tally, None, None).await?.0)
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

/// The active endpoints of these businesses: the deliveries of their events go to those
/// subscribed ([`subscribed`]).
pub async fn active_endpoints(
    db: &impl ConnectionTrait,
    businesses: Vec<Uuid>,
) -> AppResult<Vec<webhooks::Model>> {
    Ok(webhooks::Entity::find()
        .filter(crate::bulk::uuid_in(
            db.get_database_backend(),
            webhooks::Column::BusinessId,
            businesses,
        ))
        .filter(webhooks::Column::Active.eq(true))
        .all(db)
        .await?)
}

/// PostgreSQL: [`active_endpoints`], each with its row version (`xmin`, which every update
/// of the row changes), for [`EndpointCache`].
pub async fn active_endpoints_versioned(
    db: &impl ConnectionTrait,
    businesses: &[Uuid],
) -> AppResult<Vec<(webhooks::Model, String)>> {
    use sea_orm::FromQueryResult;
    let rows = db
        .query_all_raw(sea_orm::Statement::from_sql_and_values(
            DbBackend::Postgres,
            "SELECT *, xmin::text AS row_version FROM webhooks \
             WHERE business_id = ANY($1) AND active",
            [crate::bulk::uuid_array(businesses.iter().copied())],
        ))
        .await?;
    rows.iter()
        .map(|row| {
            Ok((
                webhooks::Model::from_query_result(row, "")?,
                row.try_get::<String>("", "row_version")?,
            ))
        })
        .collect::<Result<_, sea_orm::DbErr>>()
        .map_err(Into::into)
}

/// PostgreSQL: the active endpoints of recently seen businesses as last read, so that the
/// dispatcher plans an outcome batch's deliveries without reading them first. Never trusted
/// alone: the statement that writes the deliveries checks that the endpoints are still those
/// read ([`EndpointCheck::sql`]) and writes nothing otherwise, so an endpoint created,
/// changed or removed by any core since is seen by the next batch.
#[derive(Debug, Default)]
pub struct EndpointCache {
    /// Each business's active endpoints, each with its `id:xmin`.
    businesses: std::sync::Mutex<std::collections::HashMap<Uuid, Vec<(webhooks::Model, String)>>>,
}

/// The most businesses [`EndpointCache`] holds; when full it starts again empty.
const CACHED_BUSINESSES: usize = 10_000;

impl EndpointCache {
    fn map(
        &self,
    ) -> std::sync::MutexGuard<'_, std::collections::HashMap<Uuid, Vec<(webhooks::Model, String)>>>
    {
        self.businesses
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// The active endpoints of `businesses` (sorted, no duplicates), with the check that they
    /// still hold; reads and keeps those of businesses not known yet.
    pub async fn endpoints(
        &self,
        db: &impl ConnectionTrait,
        businesses: Vec<Uuid>,
    ) -> AppResult<(Vec<webhooks::Model>, EndpointCheck)> {
        let missing: Vec<Uuid> = {
            let map = self.map();
            businesses
                .iter()
                .copied()
                .filter(|b| !map.contains_key(b))
                .collect()
        };
        if !missing.is_empty() {
            let read = active_endpoints_versioned(db, &missing).await?;
            let mut map = self.map();
            if map.len() + missing.len() > CACHED_BUSINESSES {
                map.clear();
            }
            for business in &missing {
                map.insert(*business, Vec::new());
            }
            for (endpoint, version) in read {
                // Kept as the check compares it.
                let version = format!("{}:{version}", endpoint.id);
                map.entry(endpoint.business_id)
                    .or_default()
                    .push((endpoint, version));
            }
        }
        let map = self.map();
        let mut endpoints = Vec::new();
        let mut versions = Vec::new();
        for business in &businesses {
            for (endpoint, version) in map.get(business).into_iter().flatten() {
                endpoints.push(endpoint.clone());
                versions.push((endpoint.id, version.clone()));
            }
        }
        versions.sort();
        Ok((
            endpoints,
            EndpointCheck {
                businesses,
                versions: versions.into_iter().map(|(_, version)| version).collect(),
            },
        ))
    }

    /// Drops what is known of `businesses` (their endpoints moved): the next batch reads them.
    pub fn forget(&self, businesses: &[Uuid]) {
        let mut map = self.map();
        for business in businesses {
            map.remove(business);
        }
    }
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
            crate::bulk::uuid_array(self.businesses.iter().copied()),
            sea_orm::Value::Array(
                sea_orm::sea_query::ArrayType::String,
                Some(Box::new(versions)),
            ),
        ]
    }
}

/// Those of `endpoints` that get `business_id`'s events of `event_type`.
pub fn subscribed<'a>(
    endpoints: &'a [webhooks::Model],
    business_id: Uuid,
    event_type: &'a str,
) -> impl Iterator<Item = &'a webhooks::Model> {
    endpoints.iter().filter(move |w| {
        w.business_id == business_id && w.events.split(',').any(|e| e == event_type)
    })
}

/// [`record_many`], writing up to `lease.room` of the deliveries leased (due when the lease
/// ends): returns how many deliveries were queued, and the leased ones. `endpoints`, when
/// given, are the [`active_endpoints`] of the events' businesses, read already.
pub async fn record_many_leased(
    db: &impl ConnectionTrait,
    new: Vec<NewEvent>,
    now: DateTime<Utc>,
    tally: &mut Tally,
    lease: Option<DeliveryLease<'_>>,
    endpoints: Option<&[webhooks::Model]>,
) -> AppResult<(usize, Vec<LeasedDelivery>)> {
    if new.is_empty() {
        return Ok((0, Vec::new()));
    }
    let mut businesses: Vec<Uuid> = new.iter().map(|e| e.business_id).collect();
    businesses.sort();
    businesses.dedup();
    let read;
    let endpoints = match endpoints {
        Some(endpoints) => endpoints,
        None => {
            read = active_endpoints(db, businesses.clone()).await?;
            &read
        }
    };
    let mut planned = plan(new, now, tally, lease, endpoints);
    number(db, &mut planned.events, &businesses).await?;
    for chunk in planned.events.chunks(500) {
        crate::bulk::insert_all(db, chunk.iter().map(|e| active(db, e)).collect(), &[]).await?;
    }
    for chunk in planned.deliveries.chunks(500) {
        crate::bulk::insert_all(db, chunk.to_vec(), &[]).await?;
    }
    Ok((planned.deliveries.len(), planned.leased))
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
            id: Uuid::now_v7(),
            business_id: e.business_id,
            event_type: e.event_type.to_string(),
            data: e.data.to_string(),
            created_at: now,
            commit_seq: 0,
        };
        for endpoint in subscribed(endpoints, event.business_id, &event.event_type) {
            let mut row = delivery(endpoint, &event, now, class);
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
    let mut rows = vec![events::Model {
        id: Uuid::now_v7(),
        business_id,
        event_type: event_type.to_string(),
        data: data.to_string(),
        created_at: now,
        commit_seq: 0,
    }];
    number(db, &mut rows, &[business_id]).await?;
    Ok(active(db, &rows[0]).insert(db).await?)
}

/// On SQLite (one writer, so insertion order is commit order) numbers `rows` after the
/// business's last event, in order; on PostgreSQL the column's default (the transaction's id)
/// does it.
async fn number(
    db: &impl ConnectionTrait,
    rows: &mut [events::Model],
    businesses: &[Uuid],
) -> AppResult<()> {
    if db.get_database_backend() != DbBackend::Sqlite {
        return Ok(());
    }
    for business in businesses {
        let last: Option<i64> = events::Entity::find()
            .select_only()
            .column(events::Column::CommitSeq)
            .filter(events::Column::BusinessId.eq(*business))
            .order_by_desc(events::Column::CommitSeq)
            .limit(1)
            .into_tuple()
            .one(db)
            .await?;
        let mut next = last.unwrap_or(0);
        for row in rows.iter_mut().filter(|r| r.business_id == *business) {
            next += 1;
            row.commit_seq = next;
        }
    }
    Ok(())
}

/// The row to insert: `commit_seq` left to the column's default on PostgreSQL.
pub fn active(db: &impl ConnectionTrait, event: &events::Model) -> events::ActiveModel {
    let mut row = events::ActiveModel::from(event.clone());
    if db.get_database_backend() != DbBackend::Sqlite {
        row.commit_seq = ActiveValue::NotSet;
    }
    row
}

/// Where a page of the events list starts.
#[derive(Debug, Clone, Copy)]
pub enum Position {
    /// Newest first, from the newest event or from below this one.
    Newest(Option<(i64, Uuid)>),
    /// Oldest first, from just after this one (a poller's cursor).
    After((i64, Uuid)),
}

/// The types an events list shows (every recorded type but `webhook.test`).
pub const LISTED: &[&str] = SUBSCRIBABLE;

/// One event of `business_id` that a list shows, to start a page from.
pub async fn find_listed(
    db: &impl ConnectionTrait,
    business_id: Uuid,
    id: Uuid,
) -> AppResult<Option<events::Model>> {
    Ok(events::Entity::find_by_id(id)
        .filter(events::Column::BusinessId.eq(business_id))
        .filter(events::Column::EventType.is_in(LISTED.iter().copied()))
        .one(db)
        .await?)
}

/// A page of the business's events in commit order (`commit_seq`, then id), of one type or
/// all listed ones, up to `limit` rows. On PostgreSQL only events of transactions older than
/// every transaction still open are shown: one committed later cannot sort before them.
pub async fn page(
    db: &impl ConnectionTrait,
    business_id: Uuid,
    event_type: Option<&str>,
    position: Position,
    limit: u64,
) -> AppResult<Vec<events::Model>> {
    use events::Column::{CommitSeq, Id};
    let mut query = events::Entity::find().filter(events::Column::BusinessId.eq(business_id));
    query = match event_type {
        Some(t) => query.filter(events::Column::EventType.eq(t)),
        None => query.filter(events::Column::EventType.is_in(LISTED.iter().copied())),
    };
    if db.get_database_backend() == DbBackend::Postgres {
        query = query.filter(Expr::cust(
            "commit_seq < txid_snapshot_xmin(txid_current_snapshot())",
        ));
    }
    let beyond = |(seq, id): (i64, Uuid), newer: bool| {
        if newer {
            Condition::any()
                .add(CommitSeq.gt(seq))
                .add(Condition::all().add(CommitSeq.eq(seq)).add(Id.gt(id)))
        } else {
            Condition::any()
                .add(CommitSeq.lt(seq))
                .add(Condition::all().add(CommitSeq.eq(seq)).add(Id.lt(id)))
        }
    };
    query = match position {
        Position::Newest(before) => {
            if let Some(cursor) = before {
                query = query.filter(beyond(cursor, false));
            }
            query.order_by_desc(CommitSeq).order_by_desc(Id)
        }
        Position::After(cursor) => query
            .filter(beyond(cursor, true))
            .order_by_asc(CommitSeq)
            .order_by_asc(Id),
    };
    Ok(query.limit(limit).all(db).await?)
}

fn delivery(
    endpoint: &webhooks::Model,
    event: &events::Model,
    now: DateTime<Utc>,
    class: i32,
) -> webhook_deliveries::Model {
    webhook_deliveries::Model {
        id: Uuid::now_v7(),
        webhook_id: endpoint.id,
        business_id: endpoint.business_id,
        event_id: event.id,
        event_type: event.event_type.clone(),
        data: event.data.clone(),
        status: "pending".to_string(),
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
    }
}

async fn queue(
    db: &impl ConnectionTrait,
    endpoint: &webhooks::Model,
    event: &events::Model,
    now: DateTime<Utc>,
) -> AppResult<()> {
    webhook_deliveries::ActiveModel::from(delivery(endpoint, event, now, DELIVERY_CLASS))
        .insert(db)
        .await?;
    Ok(())
}
