//! The deliveries log and its recovery: a business reads its deliveries and their attempts,
//! retries one failed delivery or recovers an endpoint's failed deliveries since a time; an
//! operator recovers a whole business.

use proto::ErrorCode;
use proto::vocabulary::{DeliveryStatus, EventType};
use uuid::Uuid;

use super::endpoints::{not_found, webhook_id};
use super::store;
use crate::caller::{Manager, Member};
use crate::entities::{webhook_attempts, webhook_deliveries};
use crate::error::{AppError, AppResult};
use crate::state::Core;

/// A page of the deliveries log: filters and where the previous page ended.
#[derive(Debug, Clone, Default)]
pub struct DeliveryQuery {
    pub limit: Option<i64>,
    pub starting_after: Option<String>,
    pub webhook_id: Option<String>,
    pub status: Option<String>,
    pub event_type: Option<String>,
    pub message_send_id: Option<String>,
}

/// The business's deliveries, newest first, a page at a time, filtered by endpoint, status,
/// event type and the message they announce. Returns the page and whether more follow.
///
/// Errors: as [`list`], `invalid_limit`, `invalid_request` (an unknown filter value, or a cursor
/// that is not a delivery of this business), `webhook_not_found` (the `webhook_id` filter names
/// no endpoint of this business).
pub async fn deliveries(
    core: &Core,
    console: &Member,
    query: DeliveryQuery,
) -> AppResult<(Vec<webhook_deliveries::Model>, bool)> {
    let limit = crate::domain::page_limit(query.limit)?;
    let webhook_id = match query.webhook_id.as_deref() {
        None => None,
        Some(id) => {
            let id = webhook_id(id)?;
            store::find(&core.db, console.business.id, id)
                .await?
                .ok_or_else(not_found)?;
            Some(id)
        }
    };
    let filter = store::DeliveryFilter {
        webhook_id,
        status: crate::domain::filter("status", query.status.as_deref(), DeliveryStatus::parse)?,
        event_type: crate::domain::filter(
            "event_type",
            query.event_type.as_deref(),
            EventType::parse,
        )?,
        message_id: query
            .message_send_id
            .as_deref()
            .map(|id| {
                Uuid::parse_str(id.trim()).map_err(|_| {
                    AppError::new(ErrorCode::InvalidRequest, "message_send_id: a message id")
                })
            })
            .transpose()?,
    };
    let after = match crate::domain::cursor_id(query.starting_after.as_deref(), "a delivery")? {
        None => None,
        Some(id) => {
            let cursor = store::find_delivery(&core.db, console.business.id, id)
                .await?
                .ok_or_else(|| crate::domain::bad_cursor("a delivery"))?;
            Some((cursor.created_at, cursor.id))
        }
    };
    let rows =
        store::delivery_page(&core.db, console.business.id, &filter, after, limit + 1).await?;
    let (page, has_more) = crate::domain::split_page(rows, limit);
    Ok((page, has_more))
}

/// One delivery of the business with every attempt, oldest first.
///
/// Errors: as [`list`], `delivery_not_found`.
pub async fn delivery(
    core: &Core,
    console: &Member,
    id: &str,
) -> AppResult<(webhook_deliveries::Model, Vec<webhook_attempts::Model>)> {
    let missing = || AppError::new(ErrorCode::DeliveryNotFound, "no such delivery");
    let id = Uuid::parse_str(id.trim()).map_err(|_| missing())?;
    let delivery = store::find_delivery(&core.db, console.business.id, id)
        .await?
        .ok_or_else(missing)?;
    let attempts = store::attempts_of(&core.db, id).await?;
    Ok((delivery, attempts))
}

fn paused() -> AppError {
    AppError::new(
        ErrorCode::WebhookPaused,
        "this webhook is paused; reactivate it first",
    )
}

/// Re-queues one failed delivery: pending, due at once, a fresh budget of attempts on the same
/// schedule, the same id (= `X-Service-Delivery`); `attempts` keeps counting.
///
/// Errors: as [`delete`], `delivery_not_found`, `delivery_not_failed`, `webhook_paused`,
/// `webhook_not_found` (its endpoint was deleted).
pub async fn retry_delivery(
    core: &Core,
    console: &Manager,
    id: &str,
) -> AppResult<webhook_deliveries::Model> {
    let missing = || AppError::new(ErrorCode::DeliveryNotFound, "no such delivery");
    let id = Uuid::parse_str(id.trim()).map_err(|_| missing())?;
    let delivery = store::find_delivery(&core.db, console.business.id, id)
        .await?
        .ok_or_else(missing)?;
    let webhook = store::find(&core.db, console.business.id, delivery.webhook_id)
        .await?
        .ok_or_else(not_found)?;
    if !webhook.active {
        return Err(paused());
    }
    let now = core.clock.now();
    let Some(requeued) = store::requeue_failed(&core.db, webhook.id, Some(id), None, now)
        .await?
        .pop()
    else {
        return Err(AppError::new(
            ErrorCode::DeliveryNotFailed,
            "only a failed delivery can be retried",
        ));
    };
    core.webhook_wakeup.wake();
    Ok(requeued)
}

/// Re-queues every failed delivery of endpoint `id` created at or after `since` (RFC 3339, at
/// most 7 days back, not in the future), as [`retry_delivery`] does for one. Returns how many.
///
/// Errors: as [`delete`], `invalid_request` (`since`), `webhook_paused`.
pub async fn recover(
    core: &Core,
    console: &Manager,
    id: &str,
    since: Option<&str>,
) -> AppResult<u64> {
    let webhook = store::find(&core.db, console.business.id, webhook_id(id)?)
        .await?
        .ok_or_else(not_found)?;
    let now = core.clock.now();
    let since = recover_since(since, now, core.retention.recover_window())?;
    if !webhook.active {
        return Err(paused());
    }
    let requeued = store::requeue_failed(&core.db, webhook.id, None, Some(since), now)
        .await?
        .len() as u64;
    if requeued > 0 {
        core.webhook_wakeup.wake();
    }
    Ok(requeued)
}

/// `since` of a recovery: an RFC 3339 time, not in the future, at most `window` back (7 days,
/// or the deliveries' retention when shorter: older deliveries may be gone).
fn recover_since(
    since: Option<&str>,
    now: chrono::DateTime<chrono::Utc>,
    window: chrono::TimeDelta,
) -> AppResult<chrono::DateTime<chrono::Utc>> {
    let bad_since = |why: &str| AppError::new(ErrorCode::InvalidRequest, format!("since: {why}"));
    let since = since.ok_or_else(|| bad_since("required (an RFC 3339 date-time)"))?;
    let since = chrono::DateTime::parse_from_rfc3339(since.trim())
        .map_err(|_| bad_since("an RFC 3339 date-time"))?
        .with_timezone(&chrono::Utc);
    if since > now {
        return Err(bad_since("in the future"));
    }
    if since < now - window {
        let days = window.num_days();
        return Err(bad_since(&if days == 7 {
            "at most 7 days back".to_string()
        } else {
            format!("at most {days} days back (deliveries are kept {days} days)")
        }));
    }
    Ok(since)
}

/// What an operator's recovery over a whole business did: deliveries re-queued per active
/// endpoint, and the paused endpoints it skipped.
pub struct BusinessRecovery {
    pub requeued: Vec<(Uuid, u64)>,
    pub skipped_paused: Vec<Uuid>,
}

/// The recovery of DESIGN.md's "Webhook recovery" over every endpoint of a business (an
/// operator's step after an outage of the receivers): failed deliveries created at or after
/// `since` go back to the queue with a fresh budget; paused endpoints are skipped and listed.
///
/// Errors: `invalid_request` (`since`), `business_not_found`.
pub async fn recover_business(
    core: &Core,
    business_id: &str,
    since: Option<&str>,
) -> AppResult<BusinessRecovery> {
    let not_found = || AppError::new(ErrorCode::BusinessNotFound, "no such business account");
    let business_id = Uuid::parse_str(business_id.trim()).map_err(|_| not_found())?;
    crate::business::store::business(&core.db, business_id)
        .await?
        .ok_or_else(not_found)?;
    let now = core.clock.now();
    let since = recover_since(since, now, core.retention.recover_window())?;
    let mut recovery = BusinessRecovery {
        requeued: Vec::new(),
        skipped_paused: Vec::new(),
    };
    for webhook in store::list(&core.db, business_id).await? {
        if !webhook.active {
            recovery.skipped_paused.push(webhook.id);
            continue;
        }
        let n = store::requeue_failed(&core.db, webhook.id, None, Some(since), now)
            .await?
            .len() as u64;
        recovery.requeued.push((webhook.id, n));
    }
    if recovery.requeued.iter().any(|(_, n)| *n > 0) {
        core.webhook_wakeup.wake();
    }
    Ok(recovery)
}
