//! The webhook endpoint rules: who may read and change endpoints, what a valid endpoint is,
//! pausing and reactivating, and the test event.

use std::time::Duration;

use proto::ErrorCode;
use proto::vocabulary::EventType;
use sea_orm::{Set, TransactionTrait};
use uuid::Uuid;

use super::health::{self, Health};
use super::{secret, store};
use crate::caller::{Manager, Member};
use crate::entities::{webhook_health, webhooks};
use crate::error::{AppError, AppResult, is_unique_violation};
use crate::events::SubscribableEvent;
use crate::limits::Rate;
use crate::state::Core;

/// The fixed text of `webhook.test` events.
pub const TEST_MESSAGE: &str = "This is a test event from Business Messaging.";

/// An endpoint, its subscribed events and its delivery health.
#[derive(Debug, Clone)]
pub struct Endpoint {
    pub webhook: webhooks::Model,
    pub events: Vec<String>,
    pub health: Health,
}

/// An endpoint with its health row as read.
pub fn with_health(webhook: webhooks::Model, row: Option<webhook_health::Model>) -> Endpoint {
    Endpoint {
        events: webhook
            .events
            .split(',')
            .filter(|e| !e.is_empty())
            .map(str::to_string)
            .collect(),
        health: Health::of(&webhook, row),
        webhook,
    }
}

/// An endpoint, its health read now.
pub async fn endpoint(core: &Core, webhook: webhooks::Model) -> AppResult<Endpoint> {
    let mut rows = health::rows_of(&core.db, vec![webhook.id]).await?;
    let row = rows.remove(&webhook.id);
    Ok(with_health(webhook, row))
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
        if SubscribableEvent::from_wire(event).is_none() {
            return Err(err(&format!(
                "must be one of {}",
                SubscribableEvent::WIRE.join(", ")
            )));
        }
        if events.contains(event) {
            return Err(err("must be unique"));
        }
        events.push(event.clone());
    }
    Ok(events)
}

pub(super) fn not_found() -> AppError {
    AppError::new(ErrorCode::WebhookNotFound, "no such webhook")
}

fn conflict() -> AppError {
    AppError::new(
        ErrorCode::WebhookUrlConflict,
        "this business already has a webhook with this URL",
    )
}

pub(super) fn webhook_id(id: &str) -> AppResult<Uuid> {
    Uuid::parse_str(id.trim()).map_err(|_| not_found())
}

/// The business's endpoints (never with secrets).
///
/// Errors: `unauthorized`, `account_suspended`, `not_a_business_account`, `business_suspended`.
pub async fn list(core: &Core, console: &Member) -> AppResult<Vec<Endpoint>> {
    of_business(core, console.business.id).await
}

/// Registers an endpoint; the secret is returned here and never again.
///
/// Errors: as [`list`], `insufficient_role`, `invalid_webhook_url`, `invalid_webhook_events`,
/// `webhook_url_conflict`.
pub async fn create(
    core: &Core,
    console: &Manager,
    url: &str,
    events: &[String],
) -> AppResult<(Endpoint, String)> {
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
        secret_standard: Set(true),
        previous_secret_ciphertext: Set(None),
        previous_secret_standard: Set(false),
        previous_secret_expires_at_ms: Set(0),
        slow_until_ms: Set(0),
        created_at: Set(now),
        updated_at: Set(now),
    };
    let max = core.webhooks.endpoints_per_business;
    match store::insert_capped(&core.db, console.business.id, row, max).await {
        Ok(Some(webhook)) => Ok((endpoint(core, webhook).await?, plain)),
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
    console: &Manager,
    id: &str,
    patch: EndpointPatch,
) -> AppResult<Endpoint> {
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
    let was_active = webhook.active;
    let mut row: webhooks::ActiveModel = webhook.into();
    if let Some(url) = url {
        row.url = Set(url);
    }
    if let Some(events) = events {
        row.events = Set(events.join(","));
    }
    endpoint(core, save(core, row, was_active, patch.active).await?).await
}

/// Saves a change to an endpoint that was `was_active`, setting it `active` when given, with
/// the pause rule in the same transaction: a pause takes the endpoint's open deliveries out of
/// the job queue, a reactivation puts them back and wakes the workers.
///
/// Errors: `webhook_url_conflict`, `webhook_not_found` (deleted meanwhile).
async fn save(
    core: &Core,
    mut row: webhooks::ActiveModel,
    was_active: bool,
    active: Option<bool>,
) -> AppResult<webhooks::Model> {
    if let Some(active) = active {
        row.active = Set(active);
    }
    row.updated_at = Set(core.clock.now());
    let reactivated = active == Some(true) && !was_active;
    let paused = active == Some(false) && was_active;
    let txn = core.db.begin().await?;
    let saved = match store::update(&txn, row).await {
        Ok(saved) => saved,
        Err(err) if is_unique_violation(&err) => return Err(conflict()),
        // Deleted meanwhile.
        Err(sea_orm::DbErr::RecordNotUpdated) => return Err(not_found()),
        Err(err) => return Err(err.into()),
    };
    if reactivated || paused {
        store::set_queued(&txn, saved.id, reactivated).await?;
    }
    txn.commit().await?;
    if reactivated {
        core.webhook_wakeup.wake();
    }
    Ok(saved)
}

/// The longest grace of a rotation, and the default.
pub const MAX_GRACE: Duration = Duration::from_secs(86_400);

/// Replaces the endpoint's signing secret with `new_secret`, which the caller generated (so no
/// answer ever carries a secret). The secret it replaces signs beside it for `grace_seconds`
/// (default [`MAX_GRACE`]); a rotation during another's grace ends that grace at once, so at
/// most two secrets sign. A paused endpoint too.
///
/// Errors: as [`delete`], `invalid_request` (the secret's form, a grace outside 0-86,400).
pub async fn rotate_secret(
    core: &Core,
    console: &Manager,
    id: &str,
    new_secret: &str,
    grace_seconds: Option<i64>,
) -> AppResult<Endpoint> {
    let id = webhook_id(id)?;
    let new_secret = secret::parse_caller_secret(new_secret)?;
    let grace = grace_seconds.unwrap_or(MAX_GRACE.as_secs() as i64);
    if !(0..=MAX_GRACE.as_secs() as i64).contains(&grace) {
        return Err(AppError::new(
            ErrorCode::InvalidRequest,
            "grace_seconds: 0 to 86400",
        ));
    }
    let sealed = secret::encrypt(&core.keys.webhook_key, id, &new_secret)?;
    // A concurrent rotation (or rekey) moves the row under us: read it again and retry.
    for _ in 0..5 {
        let webhook = store::find(&core.db, console.business.id, id)
            .await?
            .ok_or_else(not_found)?;
        let now = core.clock.now();
        let expires_at_ms = now.timestamp_millis() + grace * 1000;
        let previous = (grace > 0).then(|| webhook.secret_ciphertext.clone());
        if let Some(rotated) = store::rotate_secret(
            &core.db,
            &webhook,
            store::Rotation {
                secret_ciphertext: sealed.clone(),
                previous_secret_ciphertext: previous,
                previous_secret_standard: grace > 0 && webhook.secret_standard,
                previous_secret_expires_at_ms: if grace > 0 { expires_at_ms } else { 0 },
                at: now,
            },
        )
        .await?
        {
            tracing::info!(webhook = %id, grace_seconds = grace, "webhook secret rotated");
            return endpoint(core, rotated).await;
        }
    }
    Err(AppError::new(
        ErrorCode::ServiceUnavailable,
        "the endpoint kept changing during the rotation; try again",
    ))
}

/// Until when the secret a rotation replaced still signs, when it does at `now`.
pub fn previous_secret_expires_at(
    webhook: &webhooks::Model,
    now: chrono::DateTime<chrono::Utc>,
) -> Option<chrono::DateTime<chrono::Utc>> {
    (webhook.previous_secret_ciphertext.is_some()
        && webhook.previous_secret_expires_at_ms > now.timestamp_millis())
    .then(|| chrono::DateTime::from_timestamp_millis(webhook.previous_secret_expires_at_ms))
    .flatten()
}

/// Deletes an endpoint. Errors: as [`list`], `insufficient_role`, `webhook_not_found`.
pub async fn delete(core: &Core, console: &Manager, id: &str) -> AppResult<()> {
    let id = webhook_id(id)?;
    let txn = core.db.begin().await?;
    let deleted = store::delete(&txn, console.business.id, id, core.clock.now()).await?;
    txn.commit().await?;
    if deleted { Ok(()) } else { Err(not_found()) }
}

/// Queues a signed `webhook.test` for this endpoint only, whatever its event list.
///
/// Errors: as [`delete`], `webhook_paused`.
pub async fn test(core: &Core, console: &Manager, id: &str) -> AppResult<()> {
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
    let mut tally = crate::usage::Tally::new();
    crate::events::record_for(
        &txn,
        &webhook,
        EventType::WebhookTest,
        data,
        core.clock.now(),
        &mut tally,
    )
    .await?;
    tally.apply(&txn).await?;
    txn.commit().await?;
    core.webhook_wakeup.wake();
    Ok(())
}

/// Pauses one endpoint of any business (an operator's action), by the same rule as a
/// business pausing its own.
///
/// Errors: `webhook_not_found`.
pub async fn pause(core: &Core, id: &str) -> AppResult<Endpoint> {
    let missing = || AppError::new(ErrorCode::WebhookNotFound, "no such webhook endpoint");
    let id = Uuid::parse_str(id.trim()).map_err(|_| missing())?;
    let webhook = store::by_ids(&core.db, &[id])
        .await?
        .pop()
        .ok_or_else(missing)?;
    // A pause of a paused endpoint still takes whatever is queued out of the queue.
    let row: webhooks::ActiveModel = webhook.into();
    match save(core, row, true, Some(false)).await {
        Ok(saved) => endpoint(core, saved).await,
        Err(err) if err.code == ErrorCode::WebhookNotFound => Err(missing()),
        Err(err) => Err(err),
    }
}

/// The endpoints of a business (what an operator looks at).
pub async fn of_business(core: &Core, business_id: Uuid) -> AppResult<Vec<Endpoint>> {
    let list = store::list(&core.db, business_id).await?;
    let mut rows = health::rows_of(&core.db, list.iter().map(|w| w.id).collect()).await?;
    Ok(list
        .into_iter()
        .map(|w| {
            let row = rows.remove(&w.id);
            with_health(w, row)
        })
        .collect())
}

/// The most days [`stats`] reads back.
pub const STATS_DAYS: i32 = 90;

/// An endpoint's attempts per UTC day for the last `days` days (1-90, default 7), oldest
/// first, every day present.
///
/// Errors: as [`list`], `invalid_request` (days), `webhook_not_found`.
pub async fn stats(
    core: &Core,
    console: &Member,
    id: &str,
    days: Option<i32>,
) -> AppResult<Vec<health::Day>> {
    let days = days.unwrap_or(7);
    if !(1..=STATS_DAYS).contains(&days) {
        return Err(AppError::new(
            ErrorCode::InvalidRequest,
            "days: a number of days from 1 to 90",
        ));
    }
    let webhook = store::find(&core.db, console.business.id, webhook_id(id)?)
        .await?
        .ok_or_else(not_found)?;
    health::days(&core.db, webhook.id, days, core.clock.now()).await
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
