//! Delivery health (DESIGN, "Delivery health: never silent, never disabled"): each endpoint's
//! state, kept by the transactions that record its attempts (no scan), its per-day counters,
//! and the turns between `healthy` and `failing`.
//!
//! A failed attempt is any attempt a worker made that was not answered 2xx; `webhook.test`
//! deliveries and jobs given back without an attempt count for nothing. An endpoint turns
//! `failing` after `WEBHOOK_FAILING_AFTER` failed attempts in a row (in the order the reports
//! commit: its health row is locked while a report is recorded) or when a delivery ends failed,
//! and `healthy` at its next success. Each turn is recorded once, with the row that changed:
//! `webhook.failing` / `webhook.recovered` to the business's other subscribed endpoints and
//! into the events API, and, turning failing, one alert SMS per owner and admin (at most one
//! per endpoint per 24 h) queued in `webhook_alerts` and sent by [`send_alerts`]. Nothing here
//! pauses or disables an endpoint: only a person does.

use std::collections::{BTreeMap, HashMap};
use std::time::Duration;

use chrono::{DateTime, Utc};
use proto::vocabulary::{EventType, WebhookHealthState};
use sea_orm::{ConnectionTrait, TransactionTrait};
use serde_json::json;
use tokio_util::sync::CancellationToken;
use uuid::Uuid;

pub use super::store::health::{Day, fresh};
use super::store::{self, health as health_store};
use crate::clock::rfc3339;
use crate::entities::{webhook_alerts, webhook_deliveries, webhook_health, webhooks};
use crate::error::AppResult;
use crate::state::Core;
use crate::usage::Tally;

/// An endpoint is alerted at most once per this long.
pub const ALERT_EVERY: chrono::TimeDelta = chrono::TimeDelta::hours(24);

/// How long a core holds an alert SMS while it sends it.
const ALERT_LEASE: Duration = Duration::from_secs(60);

/// Tries per alert SMS before it is dropped (with a warning in the log).
const ALERT_TRIES: i32 = 5;

/// One attempt that counts, as recorded.
#[derive(Debug, Clone)]
pub struct Counted {
    pub webhook_id: Uuid,
    pub business_id: Uuid,
    pub succeeded: bool,
    pub http_status: Option<i32>,
    pub error: Option<String>,
    /// The delivery ended failed with this attempt.
    pub exhausted: bool,
}

impl Counted {
    /// The attempt just recorded on `delivery` (None when it counts for nothing: a
    /// `webhook.test`).
    pub fn of(
        delivery: &webhook_deliveries::Model,
        succeeded: bool,
        http_status: Option<i32>,
        error: Option<String>,
        exhausted: bool,
    ) -> Option<Counted> {
        (delivery.event_type != EventType::WebhookTest).then_some(Counted {
            webhook_id: delivery.webhook_id,
            business_id: delivery.business_id,
            succeeded,
            http_status,
            error,
            exhausted,
        })
    }
}

/// A turn of one endpoint, to announce.
#[derive(Debug, Clone)]
struct Turn {
    business_id: Uuid,
    webhook_id: Uuid,
    to: WebhookHealthState,
    failing_since: Option<DateTime<Utc>>,
    consecutive_failures: i32,
    last_failure: serde_json::Value,
    /// Turning failing: whether its alert SMS go out now (none in the last 24 h).
    alert: bool,
}

/// What [`record`] queued: webhook deliveries (of the turns' events) and alert SMS.
#[derive(Debug, Default, Clone, Copy)]
pub struct Queued {
    pub deliveries: usize,
    pub alerts: usize,
}

/// Records counted attempts in the transaction that recorded them: the day's counters (when
/// `count_days`; the one-statement success path counts its own) and each endpoint's health,
/// walking its attempts in order; every turn is announced in the same transaction.
pub async fn record(
    core: &Core,
    txn: &impl ConnectionTrait,
    counted: &[Counted],
    count_days: bool,
    now: DateTime<Utc>,
    tally: &mut Tally,
) -> AppResult<Queued> {
    if counted.is_empty() {
        return Ok(Queued::default());
    }
    let mut endpoints: Vec<Uuid> = counted.iter().map(|c| c.webhook_id).collect();
    endpoints.sort();
    endpoints.dedup();
    // Locked in id order (every writer of these rows takes them so), so the turns are exact
    // under concurrent reports from any number of workers and cores.
    let mut rows = health_store::rows(txn, endpoints, true).await?;
    let failing_after = Ord::max(core.webhooks.failing_after, 1) as i32;
    let mut turns = Vec::new();
    let mut changed: BTreeMap<Uuid, webhook_health::Model> = BTreeMap::new();
    for attempt in counted {
        // An endpoint deleted meanwhile has no row left to keep.
        let Some(row) = rows.get_mut(&attempt.webhook_id) else {
            continue;
        };
        if let Some(turn) = step(row, attempt, failing_after, now) {
            turns.push(turn);
        }
        changed.insert(row.webhook_id, row.clone());
    }
    health_store::save(txn, changed.into_values()).await?;
    if count_days {
        count(txn, counted, now).await?;
    }
    announce(core, txn, turns, now, tally).await
}

/// One attempt applied to an endpoint's row; the turn it makes, if it makes one.
fn step(
    row: &mut webhook_health::Model,
    attempt: &Counted,
    failing_after: i32,
    now: DateTime<Utc>,
) -> Option<Turn> {
    let last_failure = |row: &webhook_health::Model| json!({ "http_status": row.last_failure_status, "error": row.last_failure_error });
    if attempt.succeeded {
        let turn = (row.state == WebhookHealthState::Failing).then(|| Turn {
            business_id: attempt.business_id,
            webhook_id: row.webhook_id,
            to: WebhookHealthState::Healthy,
            failing_since: row.failing_since,
            consecutive_failures: row.consecutive_failures,
            last_failure: last_failure(row),
            alert: false,
        });
        row.state = WebhookHealthState::Healthy;
        row.consecutive_failures = 0;
        row.failing_since = None;
        row.last_success_at = Some(now);
        return turn;
    }
    row.consecutive_failures += 1;
    row.last_failure_at = Some(now);
    row.last_failure_status = attempt.http_status;
    row.last_failure_error = attempt.error.clone();
    if row.state == WebhookHealthState::Failing
        || (row.consecutive_failures < failing_after && !attempt.exhausted)
    {
        return None;
    }
    row.state = WebhookHealthState::Failing;
    row.failing_since = Some(now);
    let alert = row.alerted_at.is_none_or(|at| at + ALERT_EVERY <= now);
    if alert {
        row.alerted_at = Some(now);
    }
    Some(Turn {
        business_id: attempt.business_id,
        webhook_id: row.webhook_id,
        to: WebhookHealthState::Failing,
        failing_since: row.failing_since,
        consecutive_failures: row.consecutive_failures,
        last_failure: last_failure(row),
        alert,
    })
}

/// The day's counters of `counted`: one upsert into a random slot, rows in endpoint order.
async fn count(
    txn: &impl ConnectionTrait,
    counted: &[Counted],
    now: DateTime<Utc>,
) -> AppResult<()> {
    let mut by_endpoint: BTreeMap<Uuid, health_store::DayCounts> = BTreeMap::new();
    for c in counted {
        let counts = by_endpoint.entry(c.webhook_id).or_default();
        counts[0] += 1;
        counts[usize::from(!c.succeeded) + 1] += 1;
        counts[3] += i64::from(c.exhausted);
    }
    health_store::add_to_day(
        txn,
        by_endpoint.into_iter().collect(),
        crate::usage::day_of(now.timestamp_millis()),
        crate::usage::random_slot(),
    )
    .await
}

/// Each turn's event, to the business's other active endpoints that subscribe (and into the
/// events API), and each alert's SMS rows.
async fn announce(
    core: &Core,
    txn: &impl ConnectionTrait,
    turns: Vec<Turn>,
    now: DateTime<Utc>,
    tally: &mut Tally,
) -> AppResult<Queued> {
    let mut queued = Queued::default();
    if turns.is_empty() {
        return Ok(queued);
    }
    let ids: Vec<Uuid> = turns.iter().map(|t| t.webhook_id).collect();
    let turned: HashMap<Uuid, webhooks::Model> = store::by_ids(txn, &ids)
        .await?
        .into_iter()
        .map(|w| (w.id, w))
        .collect();
    // The turns' businesses' active endpoints, read once for every turn of the batch.
    let mut businesses: Vec<Uuid> = turns.iter().map(|t| t.business_id).collect();
    businesses.sort();
    businesses.dedup();
    let active = crate::events::active_endpoints(txn, businesses).await?;
    for turn in turns {
        let Some(webhook) = turned.get(&turn.webhook_id) else {
            continue;
        };
        let event_type = match turn.to {
            WebhookHealthState::Failing => EventType::WebhookFailing,
            _ => EventType::WebhookRecovered,
        };
        tracing::warn!(
            webhook = %webhook.id,
            business = %webhook.business_id,
            state = turn.to.as_str(),
            consecutive_failures = turn.consecutive_failures,
            "webhook endpoint turned {}",
            turn.to
        );
        let data = json!({
            "webhook_id": webhook.id,
            "url": webhook.url,
            "failing_since": turn.failing_since.map(rfc3339),
            "consecutive_failures": turn.consecutive_failures,
            "last_failure": turn.last_failure,
        });
        let others: Vec<webhooks::Model> = active
            .iter()
            .filter(|w| w.business_id == turn.business_id && w.id != webhook.id)
            .cloned()
            .collect();
        let event = crate::events::NewEvent {
            business_id: turn.business_id,
            event_type,
            data,
            broadcast: false,
        };
        let (deliveries, _) =
            crate::events::record_many_leased(txn, vec![event], now, tally, None, Some(&others))
                .await?;
        queued.deliveries += deliveries;
        if turn.alert && core.webhooks.alert_sms {
            queued.alerts += queue_alerts(txn, webhook, &turn, now).await?;
        }
    }
    Ok(queued)
}

/// The alert SMS of an endpoint turned failing: one per owner and admin who did not turn them
/// off, naming the endpoint by id and host only (its path and query may hold a token).
async fn queue_alerts(
    txn: &impl ConnectionTrait,
    webhook: &webhooks::Model,
    turn: &Turn,
    now: DateTime<Utc>,
) -> AppResult<usize> {
    let phones = health_store::alert_phones(txn, webhook.business_id).await?;
    let host = url::Url::parse(&webhook.url)
        .ok()
        .and_then(|u| u.host_str().map(str::to_string))
        .unwrap_or_default();
    let text = alert_text(webhook.id, &host, turn.consecutive_failures);
    let alerts: Vec<webhook_alerts::Model> = phones
        .into_iter()
        .map(|phone_number| webhook_alerts::Model {
            id: Uuid::now_v7(),
            webhook_id: webhook.id,
            phone_number,
            text: text.clone(),
            due_at_ms: now.timestamp_millis(),
            lease_until_ms: 0,
            attempts: 0,
        })
        .collect();
    let n = alerts.len();
    health_store::queue_alerts(txn, alerts).await?;
    Ok(n)
}

/// An alert SMS: the endpoint by id and host only.
pub fn alert_text(webhook_id: Uuid, host: &str, consecutive_failures: i32) -> String {
    format!(
        "Business Messaging: webhook endpoint {webhook_id} ({host}) is failing \
         ({consecutive_failures} failed attempts in a row). Its events keep retrying; \
         see Webhooks in the console."
    )
}

/// After the one-statement success path: the endpoints among `endpoints` it found failing
/// (which it leaves to this) turn healthy, each once, with their events.
pub async fn recovered(
    core: &Core,
    endpoints: &[(Uuid, Uuid)],
    now: DateTime<Utc>,
) -> AppResult<Queued> {
    if endpoints.is_empty() {
        return Ok(Queued::default());
    }
    let counted: Vec<Counted> = endpoints
        .iter()
        .map(|&(webhook_id, business_id)| Counted {
            webhook_id,
            business_id,
            succeeded: true,
            http_status: None,
            error: None,
            exhausted: false,
        })
        .collect();
    let txn = core.db.begin().await?;
    let mut tally = Tally::new();
    let queued = record(core, &txn, &counted, false, now, &mut tally).await?;
    tally.apply(&txn).await?;
    txn.commit().await?;
    Ok(queued)
}

/// Wakes what `queued` needs: the job streams for deliveries, the alert sender for SMS.
pub fn wake(core: &Core, queued: Queued) {
    if queued.deliveries > 0 {
        core.webhook_wakeup.wake();
    }
    if queued.alerts > 0 {
        core.alert_wakeup.notify_one();
    }
}

/// An endpoint's health as read: its row, and whether it is paused.
#[derive(Debug, Clone)]
pub struct Health {
    pub state: WebhookHealthState,
    pub row: webhook_health::Model,
}

impl Health {
    /// `paused` while the endpoint is paused, else the kept state.
    pub fn of(webhook: &webhooks::Model, row: Option<webhook_health::Model>) -> Health {
        let row = row.unwrap_or_else(|| fresh(webhook.id));
        let state = if webhook.active {
            row.state
        } else {
            WebhookHealthState::Paused
        };
        Health { state, row }
    }
}

/// The health rows of these endpoints, by endpoint.
pub async fn rows_of(
    db: &impl ConnectionTrait,
    ids: Vec<Uuid>,
) -> AppResult<HashMap<Uuid, webhook_health::Model>> {
    health_store::rows(db, ids, false).await
}

/// The last `days` UTC days of an endpoint's counters up to today, oldest first, every day
/// present (zeros where nothing happened).
pub async fn days(
    db: &impl ConnectionTrait,
    webhook_id: Uuid,
    days: i32,
    now: DateTime<Utc>,
) -> AppResult<Vec<Day>> {
    let today = crate::usage::day_of(now.timestamp_millis());
    health_store::days(db, webhook_id, today - days + 1, today).await
}

/// Sends the alert SMS queued by any core, each held by one core while it sends, until
/// `cancel` fires. Through the SMS provider directly: the sign-in path's estimate and health
/// (`SmsGauge`) neither count them nor hold them up.
pub async fn send_alerts(core: std::sync::Arc<Core>, cancel: CancellationToken) {
    loop {
        match send_due_alerts(&core).await {
            // More may be due: go on at once.
            Ok(n) if n > 0 => continue,
            Ok(_) => {}
            Err(err) => tracing::warn!(error = %err, "sending webhook alert SMS failed"),
        }
        tokio::select! {
            () = cancel.cancelled() => return,
            () = core.alert_wakeup.notified() => {}
            () = tokio::time::sleep(Duration::from_secs(5)) => {}
        }
    }
}

/// Claims the alert SMS due now and sends them; returns how many it claimed.
pub async fn send_due_alerts(core: &Core) -> AppResult<usize> {
    let now_ms = core.clock.now_ms();
    let until = now_ms + ALERT_LEASE.as_millis() as i64;
    let claimed = health_store::claim_alerts(&core.db, now_ms, until, 16).await?;
    for alert in &claimed {
        let sent = core.sms.send(&alert.phone_number, &alert.text).await;
        match &sent {
            Ok(()) => health_store::alert_done(&core.db, alert.id).await?,
            Err(err) if alert.attempts >= ALERT_TRIES => {
                tracing::warn!(webhook = %alert.webhook_id, error = %err, "webhook alert SMS dropped after {ALERT_TRIES} tries");
                health_store::alert_done(&core.db, alert.id).await?;
            }
            Err(err) => {
                tracing::info!(webhook = %alert.webhook_id, error = %err, "webhook alert SMS failed; retrying");
                let wait = 30_000i64 << (alert.attempts.clamp(1, 6) - 1);
                health_store::alert_again(&core.db, alert.id, now_ms + wait).await?;
            }
        }
    }
    Ok(claimed.len())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn attempt(succeeded: bool, exhausted: bool) -> Counted {
        Counted {
            webhook_id: Uuid::nil(),
            business_id: Uuid::nil(),
            succeeded,
            http_status: (!succeeded).then_some(500),
            error: (!succeeded).then(|| "receiver answered 500".to_string()),
            exhausted,
        }
    }

    #[test]
    fn five_failures_in_a_row_turn_failing_once_and_a_success_turns_back() {
        let now = Utc::now();
        let mut row = fresh(Uuid::nil());
        let turns: Vec<Option<WebhookHealthState>> = (0..7)
            .map(|_| step(&mut row, &attempt(false, false), 5, now).map(|t| t.to))
            .collect();
        assert_eq!(
            turns,
            vec![
                None,
                None,
                None,
                None,
                Some(WebhookHealthState::Failing),
                None,
                None
            ]
        );
        assert_eq!(row.consecutive_failures, 7);
        assert_eq!(row.failing_since, Some(now));
        let back = step(&mut row, &attempt(true, false), 5, now).unwrap();
        assert_eq!(back.to, WebhookHealthState::Healthy);
        assert_eq!(back.consecutive_failures, 7);
        assert_eq!(back.failing_since, Some(now));
        assert_eq!(row.consecutive_failures, 0);
        assert!(step(&mut row, &attempt(true, false), 5, now).is_none());
    }

    #[test]
    fn a_success_between_failures_starts_the_count_again() {
        let now = Utc::now();
        let mut row = fresh(Uuid::nil());
        for _ in 0..4 {
            assert!(step(&mut row, &attempt(false, false), 5, now).is_none());
        }
        assert!(step(&mut row, &attempt(true, false), 5, now).is_none());
        for _ in 0..4 {
            assert!(step(&mut row, &attempt(false, false), 5, now).is_none());
        }
        assert_eq!(row.state, WebhookHealthState::Healthy);
    }

    #[test]
    fn a_delivery_that_ends_failed_turns_failing_at_once_and_alerts_once_a_day() {
        let now = Utc::now();
        let mut row = fresh(Uuid::nil());
        let turn = step(&mut row, &attempt(false, true), 5, now).unwrap();
        assert!(turn.alert);
        step(&mut row, &attempt(true, false), 5, now).unwrap();
        let again = step(
            &mut row,
            &attempt(false, true),
            5,
            now + chrono::TimeDelta::hours(23),
        );
        assert!(!again.unwrap().alert, "within 24 h of the last alert");
        step(&mut row, &attempt(true, false), 5, now).unwrap();
        let later = step(&mut row, &attempt(false, true), 5, now + ALERT_EVERY).unwrap();
        assert!(later.alert);
    }

    #[test]
    fn the_alert_names_the_endpoint_by_id_and_host_only() {
        let id = Uuid::now_v7();
        let text = alert_text(id, "hooks.example.com", 5);
        assert!(text.contains(&id.to_string()));
        assert!(text.contains("hooks.example.com"));
        assert!(text.len() < 320, "two SMS segments at most: {text}");
    }
}
