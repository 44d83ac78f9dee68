//! Queries for messages, their outbox, idempotency keys, inboxes and events. No rules here.

use chrono::{DateTime, Utc};
use sea_orm::sea_query::{Expr, ExprTrait as _, OnConflict};
use sea_orm::{
    ActiveModelTrait, ColumnTrait, ConnectionTrait, DatabaseConnection, EntityTrait, QueryFilter,
    QueryOrder, QuerySelect, Set, TransactionTrait,
};
use uuid::Uuid;

use crate::entities::{idempotency_keys, inbox_messages, message_outbox, messages};
use crate::error::AppResult;

/// What an Idempotency-Key already holds.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Claim {
    /// The key is now ours while we accept the request.
    Claimed,
    /// Accepted before with the same content: this message.
    Replay(Uuid),
    /// Accepted (or being accepted) with other content.
    Conflict,
    /// Being accepted by another request right now.
    InProgress,
}

/// Claims `key` for `business_id` until `claim_until_ms`. An expired record (a finished key
/// older than its retention, or a claim whose request died) is replaced.
pub async fn claim_key(
    db: &impl ConnectionTrait,
    business_id: Uuid,
    key: &str,
    request_hash: &str,
    now_ms: i64,
    claim_until_ms: i64,
) -> AppResult<Claim> {
    for _ in 0..3 {
        let row = idempotency_keys::ActiveModel {
            business_id: Set(business_id),
            key: Set(key.to_string()),
            request_hash: Set(request_hash.to_string()),
            message_id: Set(None),
            expires_at_ms: Set(claim_until_ms),
        };
        let inserted = idempotency_keys::Entity::insert(row)
            .on_conflict(
                OnConflict::columns([
                    idempotency_keys::Column::BusinessId,
                    idempotency_keys::Column::Key,
                ])
                .do_nothing()
                .to_owned(),
            )
            .exec_without_returning(db)
            .await?;
        if inserted == 1 {
            return Ok(Claim::Claimed);
        }
        let Some(existing) = idempotency_keys::Entity::find_by_id((business_id, key.to_string()))
            .one(db)
            .await?
        else {
            continue;
        };
        if existing.expires_at_ms <= now_ms {
            idempotency_keys::Entity::delete_many()
                .filter(idempotency_keys::Column::BusinessId.eq(business_id))
                .filter(idempotency_keys::Column::Key.eq(key))
                .filter(idempotency_keys::Column::ExpiresAtMs.eq(existing.expires_at_ms))
                .exec(db)
                .await?;
            continue;
        }
        if existing.request_hash != request_hash {
            return Ok(Claim::Conflict);
        }
        return Ok(match existing.message_id {
            Some(id) => Claim::Replay(id),
            None => Claim::InProgress,
        });
    }
    Ok(Claim::InProgress)
}

/// Gives up a claim that did not lead to a message (a later check refused the request).
pub async fn release_key(db: &impl ConnectionTrait, business_id: Uuid, key: &str) -> AppResult<()> {
    idempotency_keys::Entity::delete_many()
        .filter(idempotency_keys::Column::BusinessId.eq(business_id))
        .filter(idempotency_keys::Column::Key.eq(key))
        .filter(idempotency_keys::Column::MessageId.is_null())
        .exec(db)
        .await?;
    Ok(())
}

/// Accepts a message: the message, its outbox row and (with a key) the key's record, in one
/// transaction.
pub async fn accept(
    db: &DatabaseConnection,
    message: messages::Model,
    key: Option<(&str, i64)>,
    now_ms: i64,
) -> AppResult<()> {
    let txn = db.begin().await?;
    let id = message.id;
    let business_id = message.business_id;
    messages::ActiveModel::from(message).insert(&txn).await?;
    message_outbox::ActiveModel {
        message_id: Set(id),
        due_at_ms: Set(now_ms),
        lease_until_ms: Set(0),
        lease_owner: Set(None),
        attempts: Set(0),
    }
    .insert(&txn)
    .await?;
    if let Some((key, keep_until_ms)) = key {
        idempotency_keys::Entity::update_many()
            .col_expr(idempotency_keys::Column::MessageId, Expr::value(id))
            .col_expr(
                idempotency_keys::Column::ExpiresAtMs,
                Expr::value(keep_until_ms),
            )
            .filter(idempotency_keys::Column::BusinessId.eq(business_id))
            .filter(idempotency_keys::Column::Key.eq(key))
            .exec(&txn)
            .await?;
    }
    txn.commit().await?;
    Ok(())
}

pub async fn message(db: &impl ConnectionTrait, id: Uuid) -> AppResult<Option<messages::Model>> {
    Ok(messages::Entity::find_by_id(id).one(db).await?)
}

/// The newest `limit` messages of a business.
pub async fn recent(
    db: &impl ConnectionTrait,
    business_id: Uuid,
    limit: u64,
) -> AppResult<Vec<messages::Model>> {
    Ok(messages::Entity::find()
        .filter(messages::Column::BusinessId.eq(business_id))
        .order_by_desc(messages::Column::CreatedAt)
        .order_by_desc(messages::Column::Id)
        .limit(limit)
        .all(db)
        .await?)
}

/// Message counts of a business by (status, category).
pub async fn counts(
    db: &impl ConnectionTrait,
    business_id: Uuid,
) -> AppResult<Vec<(String, String, i64)>> {
    Ok(messages::Entity::find()
        .select_only()
        .column(messages::Column::Status)
        .column(messages::Column::Category)
        .column_as(Expr::col(messages::Column::Id).count(), "n")
        .filter(messages::Column::BusinessId.eq(business_id))
        .group_by(messages::Column::Status)
        .group_by(messages::Column::Category)
        .into_tuple::<(String, String, i64)>()
        .all(db)
        .await?)
}

/// Leases up to `limit` due outbox rows to `owner` until `lease_until_ms`. A row is due when
/// its time has come and no live lease holds it (a dispatcher that died lets its lease lapse).
pub async fn lease_due(
    db: &impl ConnectionTrait,
    owner: &str,
    now_ms: i64,
    lease_until_ms: i64,
    limit: u64,
) -> AppResult<Vec<Uuid>> {
    let candidates = message_outbox::Entity::find()
        .filter(message_outbox::Column::DueAtMs.lte(now_ms))
        .filter(message_outbox::Column::LeaseUntilMs.lt(now_ms))
        .order_by_asc(message_outbox::Column::DueAtMs)
        .limit(limit)
        .all(db)
        .await?;
    let mut leased = Vec::with_capacity(candidates.len());
    for row in candidates {
        let won = message_outbox::Entity::update_many()
            .col_expr(
                message_outbox::Column::LeaseUntilMs,
                Expr::value(lease_until_ms),
            )
            .col_expr(message_outbox::Column::LeaseOwner, Expr::value(owner))
            .col_expr(
                message_outbox::Column::Attempts,
                Expr::col(message_outbox::Column::Attempts).add(1),
            )
            .filter(message_outbox::Column::MessageId.eq(row.message_id))
            .filter(message_outbox::Column::LeaseUntilMs.eq(row.lease_until_ms))
            .exec(db)
            .await?;
        if won.rows_affected == 1 {
            leased.push(row.message_id);
        }
    }
    Ok(leased)
}

/// Puts a leased row back, due at `due_at_ms` (a delivery that could not be attempted).
pub async fn postpone(db: &impl ConnectionTrait, id: Uuid, due_at_ms: i64) -> AppResult<()> {
    message_outbox::Entity::update_many()
        .col_expr(message_outbox::Column::DueAtMs, Expr::value(due_at_ms))
        .col_expr(message_outbox::Column::LeaseUntilMs, Expr::value(0))
        .filter(message_outbox::Column::MessageId.eq(id))
        .exec(db)
        .await?;
    Ok(())
}

/// The terminal outcome of a message.
#[derive(Debug, Clone)]
pub struct Outcome {
    pub delivered: bool,
    pub reason: Option<String>,
}

/// Records an outcome once: the message moves from `accepted` to `delivered` or `failed` (never
/// back, never twice), its event (when it emits one) is stored, and its outbox row goes, all in
/// one transaction with the event's webhook deliveries. Returns whether this call recorded it
/// and how many deliveries it queued.
pub async fn record_outcome(
    db: &DatabaseConnection,
    message: &messages::Model,
    outcome: &Outcome,
    now: DateTime<Utc>,
) -> AppResult<(bool, usize)> {
    let txn = db.begin().await?;
    let status = if outcome.delivered {
        "delivered"
    } else {
        "failed"
    };
    let updated = messages::Entity::update_many()
        .col_expr(messages::Column::Status, Expr::value(status))
        .col_expr(
            messages::Column::FailureReason,
            Expr::value(outcome.reason.clone()),
        )
        .col_expr(messages::Column::CompletedAt, Expr::value(now))
        .filter(messages::Column::Id.eq(message.id))
        .filter(messages::Column::Status.eq("accepted"))
        .exec(&txn)
        .await?;
    let recorded = updated.rows_affected == 1;
    let mut queued = 0;
    if recorded && message.emits_event {
        let mut data = serde_json::json!({
            "message_send_id": message.id,
            "category": message.category,
            "recipient_user_id": message.recipient_user_id,
            "status": status,
        });
        if let Some(reason) = &outcome.reason {
            data["reason"] = serde_json::Value::String(reason.clone());
        }
        let event_type = if outcome.delivered {
            "message.sent"
        } else {
            "message.failed"
        };
        queued = crate::events::record(&txn, message.business_id, event_type, data, now).await?;
    }
    message_outbox::Entity::delete_by_id(message.id)
        .exec(&txn)
        .await?;
    txn.commit().await?;
    Ok((recorded, queued))
}

/// Stores a message in its recipient's inbox (once, whatever the retries).
pub async fn put_in_inbox(
    db: &impl ConnectionTrait,
    message: &messages::Model,
    now: DateTime<Utc>,
) -> AppResult<()> {
    let row = inbox_messages::ActiveModel {
        message_id: Set(message.id),
        user_id: Set(message.recipient_user_id),
        business_id: Set(message.business_id),
        category: Set(message.category.clone()),
        body: Set(message.body.clone()),
        message_content: Set(message.message_content.clone()),
        delivered_at: Set(now),
    };
    inbox_messages::Entity::insert(row)
        .on_conflict(
            OnConflict::column(inbox_messages::Column::MessageId)
                .do_nothing()
                .to_owned(),
        )
        .exec_without_returning(db)
        .await?;
    Ok(())
}

/// Deletes idempotency records past their retention.
pub async fn purge_expired_keys(db: &impl ConnectionTrait, now_ms: i64) -> AppResult<u64> {
    let deleted = idempotency_keys::Entity::delete_many()
        .filter(idempotency_keys::Column::ExpiresAtMs.lt(now_ms))
        .exec(db)
        .await?;
    Ok(deleted.rows_affected)
}
