//! The webhook endpoint rules: who may read and change endpoints, what a valid endpoint is, the
//! test event, and the deliveries log.

use std::time::Duration;

use proto::ErrorCode;
use sea_orm::{Set, TransactionTrait};
use uuid::Uuid;

use super::{secret, store};
use crate::business::service::{Console, console};
use crate::entities::{webhook_attempts, webhook_deliveries, webhooks};
use crate::error::{AppError, AppResult, is_unique_violation};
use crate::events::SUBSCRIBABLE;
use crate::limits::Rate;
use crate::state::Core;

/// The fixed text of `webhook.test` events.
pub const TEST_MESSAGE: &str = "This is a test event from Business Messaging.";

/// An endpoint and its subscribed events.
#[derive(Debug, Clone)]
pub struct Endpoint {
    pub webhook: webhooks::Model,
    pub events: Vec<String>,
}

pub fn endpoint(webhook: webhooks::Model) -> Endpoint {
    Endpoint {
        events: webhook
            .events
            .split(',')
            .filter(|e| !e.is_empty())
            .map(str::to_string)
            .collect(),
        webhook,
    }
}

/// A receiver URL: absolute https (http too when insecure targets are allowed), with a host and
/// no credentials, at most 2048 characters; with insecure targets off, an IP-literal host must be
/// public.
pub fn parse_url(input: &str, allow_insecure: bool) -> AppResult<String> {
    let err = |why: &str| AppError::new(ErrorCode::InvalidWebhookUrl, format!("url: {why}"));
    let text = input.trim();
    if text.len() > 2048 {
        return Err(err("at most 2048 characters"));
    }
    let url = url::Url::parse(text).map_err(|_| err("must be an absolute URL"))?;
    match url.scheme() {
        "https" => {}
        "http" if allow_insecure => {}
        _ => return Err(err("must be https")),
    }
    let Some(host) = url.host() else {
        return Err(err("must have a host"));
    };
    // Every team member can read an endpoint's URL: credentials do not belong in it (sign-in
    // secrets for the receiver go in a path or query token the receiver checks, or not at all:
    // the signature already authenticates the sender).
    if !url.username().is_empty() || url.password().is_some() {
        return Err(err("must not contain a user name or password"));
    }
    if !allow_insecure {
        let ip = match host {
            url::Host::Ipv4(ip) => Some(std::net::IpAddr::V4(ip)),
            url::Host::Ipv6(ip) => Some(std::net::IpAddr::V6(ip)),
            url::Host::Domain(d)
                if d.eq_ignore_ascii_case("localhost") || d.ends_with(".localhost") =>
            {
                return Err(err("must be a public address"));
            }
            url::Host::Domain(_) => None,
        };
        if ip.is_some_and(|ip| !proto::net::is_public_ip(ip)) {
            return Err(err("must be a public address"));
        }
    }
    Ok(url.to_string())
}

/// Subscribed events: at least one, unique, each a subscribable name.
pub fn parse_events(input: &[String]) -> AppResult<Vec<String>> {
    let err = |why: &str| AppError::new(ErrorCode::InvalidWebhookEvents, format!("events: {why}"));
    if input.is_empty() {
        return Err(err("at least one is required"));
    }
    let mut events: Vec<String> = Vec::with_capacity(input.len());
    for event in input {
        if !SUBSCRIBABLE.contains(&event.as_str()) {
            return Err(err("must be message.sent, message.failed or grant.revoked"));
        }
        if events.contains(event) {
            return Err(err("must be unique"));
        }
        events.push(event.clone());
    }
    Ok(events)
}

async fn reader(core: &Core, authorization: Option<&str>) -> AppResult<Console> {
    let console = console(core, authorization).await?;
    console.require_active_business()?;
    Ok(console)
}

async fn manager(core: &Core, authorization: Option<&str>) -> AppResult<Console> {
    let console = reader(core, authorization).await?;
    console.require_manager()?;
    Ok(console)
}

fn not_found() -> AppError {
    AppError::new(ErrorCode::WebhookNotFound, "no such webhook")
}

fn conflict() -> AppError {
    AppError::new(
        ErrorCode::WebhookUrlConflict,
        "this business already has a webhook with this URL",
    )
}

fn webhook_id(id: &str) -> AppResult<Uuid> {
    Uuid::parse_str(id.trim()).map_err(|_| not_found())
}

/// The business's endpoints (never with secrets).
///
/// Errors: `unauthorized`, `account_suspended`, `not_a_business_account`, `business_suspended`.
pub async fn list(core: &Core, authorization: Option<&str>) -> AppResult<Vec<Endpoint>> {
    let console = reader(core, authorization).await?;
    Ok(store::list(&core.db, console.business.id)
        .await?
        .into_iter()
        .map(endpoint)
        .collect())
}

/// Registers an endpoint; the secret is returned here and never again.
///
/// Errors: as [`list`], `insufficient_role`, `invalid_webhook_url`, `invalid_webhook_events`,
/// `webhook_url_conflict`.
pub async fn create(
    core: &Core,
    authorization: Option<&str>,
    url: &str,
    events: &[String],
) -> AppResult<(Endpoint, String)> {
    let console = manager(core, authorization).await?;
    let url = parse_url(url, core.webhooks.allow_insecure)?;
    let events = parse_events(events)?;
    if store::url_taken(&core.db, console.business.id, &url, None).await? {
        return Err(conflict());
    }
    let plain = secret::generate();
    let now = core.clock.now();
    let id = Uuid::now_v7();
    let row = webhooks::ActiveModel {
        id: Set(id),
        business_id: Set(console.business.id),
        url: Set(url),
        events: Set(events.join(",")),
        active: Set(true),
        secret_ciphertext: Set(secret::encrypt(&core.keys.webhook_key, id, &plain)?),
        slow_until_ms: Set(0),
        created_at: Set(now),
        updated_at: Set(now),
    };
    let max = core.webhooks.endpoints_per_business;
    match store::insert_capped(&core.db, console.business.id, row, max).await {
        Ok(Some(webhook)) => Ok((endpoint(webhook), plain)),
        Ok(None) => Err(AppError::new(
            ErrorCode::WebhookLimitReached,
            format!("a business has at most {max} webhook endpoints; delete one first"),
        )),
        Err(err) if is_unique_violation(&err) => Err(conflict()),
        Err(err) => Err(err.into()),
    }
}

/// A change to an endpoint; `None` leaves a field unchanged.
#[derive(Debug, Clone, Default)]
pub struct EndpointPatch {
    pub url: Option<String>,
    pub events: Option<Vec<String>>,
    pub active: Option<bool>,
}

/// Changes an endpoint. Pausing (`active: false`) stops its deliveries; reactivating resumes
/// the retries that were pending.
///
/// Errors: as [`create`], `webhook_not_found`.
pub async fn update(
    core: &Core,
    authorization: Option<&str>,
    id: &str,
    patch: EndpointPatch,
) -> AppResult<Endpoint> {
    let console = manager(core, authorization).await?;
    let id = webhook_id(id)?;
    let url = patch
        .url
        .as_deref()
        .map(|u| parse_url(u, core.webhooks.allow_insecure))
        .transpose()?;
    let events = patch.events.as_deref().map(parse_events).transpose()?;
    let webhook = store::find(&core.db, console.business.id, id)
        .await?
        .ok_or_else(not_found)?;
    if let Some(url) = &url
        && store::url_taken(&core.db, console.business.id, url, Some(id)).await?
    {
        return Err(conflict());
    }
    let reactivated = patch.active == Some(true) && !webhook.active;
    let paused = patch.active == Some(false) && webhook.active;
    let mut row: webhooks::ActiveModel = webhook.into();
    if let Some(url) = url {
        row.url = Set(url);
    }
    if let Some(events) = events {
        row.events = Set(events.join(","));
    }
    if let Some(active) = patch.active {
        row.active = Set(active);
    }
    row.updated_at = Set(core.clock.now());
    let txn = core.db.begin().await?;
    let saved = match store::update(&txn, row).await {
        Ok(saved) => saved,
        Err(err) if is_unique_violation(&err) => return Err(conflict()),
        // Deleted meanwhile.
        Err(sea_orm::DbErr::RecordNotUpdated) => return Err(not_found()),
        Err(err) => return Err(err.into()),
    };
    if reactivated || paused {
        store::set_queued(&txn, id, reactivated).await?;
    }
    txn.commit().await?;
    if reactivated {
        core.wake_webhook_workers().await;
    }
    Ok(endpoint(saved))
}

/// Deletes an endpoint. Errors: as [`list`], `insufficient_role`, `webhook_not_found`.
pub async fn delete(core: &Core, authorization: Option<&str>, id: &str) -> AppResult<()> {
    let console = manager(core, authorization).await?;
    let id = webhook_id(id)?;
    let txn = core.db.begin().await?;
    let deleted = store::delete(&txn, console.business.id, id, core.clock.now()).await?;
    txn.commit().await?;
    if deleted { Ok(()) } else { Err(not_found()) }
}

/// Queues a signed `webhook.test` for this endpoint only, whatever its event list.
///
/// Errors: as [`delete`], `webhook_paused`.
pub async fn test(core: &Core, authorization: Option<&str>, id: &str) -> AppResult<()> {
    let console = manager(core, authorization).await?;
    let webhook = store::find(&core.db, console.business.id, webhook_id(id)?)
        .await?
        .ok_or_else(not_found)?;
    if !webhook.active {
        return Err(AppError::new(
            ErrorCode::WebhookPaused,
            "this webhook is paused; reactivate it to test it",
        ));
    }
    // At most a few test events per endpoint per minute, counted in the database for every core:
    // a test is an outbound request this service makes on the business's word.
    let per_minute = core.webhooks.tests_per_endpoint_per_minute.max(1);
    core.limiter
        .acquire(
            &[(
                format!("webhook_test:{}", webhook.id),
                Rate::per(per_minute, Duration::from_secs(60)),
            )],
            ErrorCode::RateLimited,
        )
        .await?;
    let txn = core.db.begin().await?;
    let data = serde_json::json!({ "message": TEST_MESSAGE });
    crate::events::record_for(&txn, &webhook, "webhook.test", data, core.clock.now()).await?;
    txn.commit().await?;
    core.wake_webhook_workers().await;
    Ok(())
}

/// A page of the deliveries log: filters and where the previous page ended.
#[derive(Debug, Clone, Default)]
pub struct DeliveryQuery {
    pub limit: Option<i64>,
    pub starting_after: Option<String>,
    pub webhook_id: Option<String>,
    pub status: Option<String>,
    pub event_type: Option<String>,
}

/// The business's deliveries, newest first, a page at a time, filtered by endpoint, status and
/// event type. Returns the page and whether more follow.
///
/// Errors: as [`list`], `invalid_limit`, `invalid_request` (an unknown filter value, or a cursor
/// that is not a delivery of this business), `webhook_not_found` (the `webhook_id` filter names
/// no endpoint of this business).
pub async fn deliveries(
    core: &Core,
    authorization: Option<&str>,
    query: DeliveryQuery,
) -> AppResult<(Vec<webhook_deliveries::Model>, bool)> {
    let console = reader(core, authorization).await?;
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
        status: crate::domain::one_of(
            "status",
            query.status.as_deref(),
            &["pending", "retrying", "succeeded", "failed"],
        )?,
        event_type: crate::domain::one_of(
            "event_type",
            query.event_type.as_deref(),
            &[
                "message.sent",
                "message.failed",
                "grant.revoked",
                "webhook.test",
            ],
        )?,
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
    authorization: Option<&str>,
    id: &str,
) -> AppResult<(webhook_deliveries::Model, Vec<webhook_attempts::Model>)> {
    let console = reader(core, authorization).await?;
    let missing = || AppError::new(ErrorCode::DeliveryNotFound, "no such delivery");
    let id = Uuid::parse_str(id.trim()).map_err(|_| missing())?;
    let delivery = store::find_delivery(&core.db, console.business.id, id)
        .await?
        .ok_or_else(missing)?;
    let attempts = store::attempts_of(&core.db, id).await?;
    Ok((delivery, attempts))
}

/// Webhook delivery totals of a business.
#[derive(Debug, Clone, Copy, Default)]
pub struct DeliveryUsage {
    pub deliveries: i64,
    pub succeeded: i64,
    pub failed: i64,
    pub pending: i64,
}

pub async fn usage(core: &Core, business_id: Uuid) -> AppResult<DeliveryUsage> {
    let mut usage = DeliveryUsage::default();
    for (status, n) in store::delivery_counts(&core.db, business_id).await? {
        usage.deliveries += n;
        match status.as_str() {
            "succeeded" => usage.succeeded += n,
            "failed" => usage.failed += n,
            _ => usage.pending += n,
        }
    }
    Ok(usage)
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
    authorization: Option<&str>,
    id: &str,
) -> AppResult<webhook_deliveries::Model> {
    let console = manager(core, authorization).await?;
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
    core.wake_webhook_workers().await;
    Ok(requeued)
}

/// Re-queues every failed delivery of endpoint `id` created at or after `since` (RFC 3339, at
/// most 7 days back, not in the future), as [`retry_delivery`] does for one. Returns how many.
///
/// Errors: as [`delete`], `invalid_request` (`since`), `webhook_paused`.
pub async fn recover(
    core: &Core,
    authorization: Option<&str>,
    id: &str,
    since: Option<&str>,
) -> AppResult<u64> {
    let console = manager(core, authorization).await?;
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
        core.wake_webhook_workers().await;
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
        core.wake_webhook_workers().await;
    }
    Ok(recovery)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn urls_must_be_https_and_public_unless_insecure_targets_are_allowed() {
        assert!(parse_url("https://hooks.example.com/x", false).is_ok());
        for bad in [
            "http://hooks.example.com",
            "https://127.0.0.1/x",
            "https://[::1]/x",
            "https://10.0.0.1",
            "https://169.254.169.254/latest",
            "https://localhost/x",
            "ftp://x.example",
            "not a url",
            "https://",
            "https://user:pass@hooks.example.com/x",
            "https://user@hooks.example.com/x",
            "https://:pass@hooks.example.com/x",
        ] {
            let err = parse_url(bad, false).unwrap_err();
            assert_eq!(err.code, ErrorCode::InvalidWebhookUrl, "{bad}");
        }
        assert!(parse_url("http://127.0.0.1:9000/hook", true).is_ok());
    }

    #[test]
    fn events_are_known_unique_and_at_least_one() {
        let ok = parse_events(&["message.sent".into(), "grant.revoked".into()]).unwrap();
        assert_eq!(ok.join(","), "message.sent,grant.revoked");
        for bad in [
            vec![],
            vec!["message.sent".to_string(), "message.sent".to_string()],
            vec!["webhook.test".to_string()],
            vec!["nope".to_string()],
        ] {
            assert_eq!(
                parse_events(&bad).unwrap_err().code,
                ErrorCode::InvalidWebhookEvents
            );
        }
    }
}
