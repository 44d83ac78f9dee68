//! The events table's store: recording events with their deliveries, and reading them back.

use chrono::{DateTime, Utc};
use proto::vocabulary::EventType;
use sea_orm::sea_query::Expr;
use sea_orm::{
    ActiveModelTrait, ActiveValue, ColumnTrait, Condition, ConnectionTrait, DbBackend, EntityTrait,
    QueryFilter, QueryOrder, QuerySelect,
};
use uuid::Uuid;

use super::{DELIVERY_CLASS, DeliveryLease, LeasedDelivery, Listed, NewEvent, delivery, plan};
use crate::entities::{events, webhook_deliveries, webhooks};
use crate::error::AppResult;
use crate::usage::Tally;

/// Records an event for `business_id` and queues its deliveries (counted in `tally`); returns
/// how many were queued. Call inside the transaction that records what the event announces.
pub async fn record(
    db: &impl ConnectionTrait,
    business_id: Uuid,
    event_type: EventType,
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

/// The active endpoints of these businesses: the deliveries of their events go to those
/// subscribed ([`subscribed`]).
pub async fn active_endpoints(
    db: &impl ConnectionTrait,
    businesses: Vec<Uuid>,
) -> AppResult<Vec<webhooks::Model>> {
    Ok(webhooks::Entity::find()
        .filter(crate::db::bulk::uuid_in(
            db.get_database_backend(),
            webhooks::Column::BusinessId,
            businesses,
        ))
        .filter(webhooks::Column::Active.eq(true))
        .all(db)
        .await?)
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
        crate::db::bulk::insert_all(db, chunk.iter().map(|e| active(db, e)).collect(), &[]).await?;
    }
    for chunk in planned.deliveries.chunks(500) {
        crate::db::bulk::insert_all(db, chunk.to_vec(), &[]).await?;
    }
    Ok((planned.deliveries.len(), planned.leased))
}

/// Records an event meant for one endpoint only (`webhook.test`) and queues its delivery,
/// counted in `tally`.
pub async fn record_for(
    db: &impl ConnectionTrait,
    endpoint: &webhooks::Model,
    event_type: EventType,
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
    event_type: EventType,
    data: &serde_json::Value,
    now: DateTime<Utc>,
) -> AppResult<events::Model> {
    let mut rows = vec![events::Model {
        id: crate::clock::id_at(now),
        business_id,
        event_type,
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

/// One event of `business_id` that a list shows, to start a page from.
pub async fn find_listed(
    db: &impl ConnectionTrait,
    business_id: Uuid,
    id: Uuid,
) -> AppResult<Option<events::Model>> {
    Ok(events::Entity::find_by_id(id)
        .filter(events::Column::BusinessId.eq(business_id))
        .filter(events::Column::EventType.is_in(Listed::ALL.iter().map(|listed| listed.widen())))
        .one(db)
        .await?)
}

/// A page of the business's events in commit order (`commit_seq`, then id), of one type or
/// all listed ones, up to `limit` rows. On PostgreSQL only events of transactions older than
/// every transaction still open are shown: one committed later cannot sort before them.
pub async fn page(
    db: &impl ConnectionTrait,
    business_id: Uuid,
    event_type: Option<Listed>,
    position: Position,
    limit: u64,
) -> AppResult<Vec<events::Model>> {
    use events::Column::{CommitSeq, Id};
    let mut query = events::Entity::find().filter(events::Column::BusinessId.eq(business_id));
    query = match event_type {
        Some(t) => query.filter(events::Column::EventType.eq(t.widen())),
        None => query.filter(
            events::Column::EventType.is_in(Listed::ALL.iter().map(|listed| listed.widen())),
        ),
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

async fn queue(
    db: &impl ConnectionTrait,
    endpoint: &webhooks::Model,
    event: &events::Model,
    now: DateTime<Utc>,
) -> AppResult<()> {
    let mut row = delivery(endpoint, event, now, DELIVERY_CLASS);
    row.message_id = serde_json::from_str(&event.data)
        .ok()
        .and_then(|data| super::announced_message(event.event_type, &data));
    webhook_deliveries::ActiveModel::from(row)
        .insert(db)
        .await?;
    Ok(())
}
