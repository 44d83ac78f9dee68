//! The retry policy applied to workers' reports: what an attempt's answer means, when the next
//! one is due, and recording many reports at once (one statement for plain successes on
//! PostgreSQL). The reports' credits go back to the streams first.

use std::collections::{BTreeMap, HashMap};
use std::time::Duration;

use proto::v1 as pb;
use proto::vocabulary::DeliveryStatus;
use sea_orm::TransactionTrait;
use uuid::Uuid;

use super::flow::{SLOW_ATTEMPT, SLOW_FOR};
use super::{health, store};
use crate::entities::{webhook_attempts, webhook_deliveries};
use crate::error::AppResult;
use crate::state::Core;
use crate::usage::Tally;

use super::jobs::MAX_ATTEMPTS;

/// How an attempt ended, as far as the policy cares.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verdict {
    Succeeded,
    Retry,
    Permanent,
}

pub fn classify(http_status: Option<u32>) -> Verdict {
    match http_status {
        Some(200..=299) => Verdict::Succeeded,
        Some(408 | 429) | Some(300..=399) | Some(500..) | None => Verdict::Retry,
        Some(_) => Verdict::Permanent,
    }
}

/// The wait after attempt number `attempt` (1-based) failed: 1, 2, 4, 8, 16 units.
pub fn backoff(unit: Duration, attempt: i32) -> Duration {
    unit * 2u32.pow((attempt - 1).clamp(0, 4) as u32)
}

/// Applies the policy to a worker's report. A report whose lease is no longer current (it
/// lapsed and another worker took the delivery) changes nothing.
pub async fn report(core: &Core, report: &pb::JobReport) -> AppResult<()> {
    report_many(core, std::slice::from_ref(report)).await
}

/// Applies the policy to many reports in one transaction: successes with one statement per
/// HTTP status, the others one by one (each needs its attempt count for the schedule). The
/// reports' credits go back to the streams that leased them first, whatever the recording
/// comes to (a job reported is no longer in flight).
pub async fn report_many(core: &Core, reports: &[pb::JobReport]) -> AppResult<()> {
    core.job_credits
        .reported(reports.iter().map(|r| r.lease_token.as_str()));
    let now = core.clock.now();
    let parsed: Vec<(Uuid, &pb::JobReport)> = reports
        .iter()
        .filter_map(|r| Uuid::parse_str(&r.delivery_id).ok().map(|id| (id, r)))
        .collect();
    let succeeded = |report: &pb::JobReport| {
        report.http_status.is_some() && classify(report.http_status) == Verdict::Succeeded
    };
    for (_, report) in &parsed {
        metrics::counter!("webhook_attempts_total", "result" => attempt_label(report)).increment(1);
        metrics::histogram!("webhook_attempt_duration_seconds")
            .record(f64::from(report.duration_ms.unwrap_or(0)) / 1000.0);
    }
    // PostgreSQL, every report a success that was not slow (the common case): one statement.
    if core.tuning.one_statement && parsed.iter().all(|(_, r)| succeeded(r) && !slow(r)) {
        let successes: Vec<store::Success<'_>> = parsed
            .iter()
            .map(|(id, r)| store::Success {
                id: *id,
                lease_token: r.lease_token.as_str(),
                http_status: r.http_status.unwrap_or(0) as i32,
                duration_ms: i64::from(r.duration_ms.unwrap_or(0)),
                payload: payload(r),
                response_body: response_body(r),
            })
            .collect();
        let (recorded, failing) =
            store::record_successes_at_once(&core.db, &successes, now).await?;
        reported(core, reports.len(), recorded);
        // The endpoints it found failing turn healthy with their events. The attempts are
        // recorded already: a turn that could not be recorded now is made at the next success.
        match health::recovered(core, &failing, now).await {
            Ok(queued) => health::wake(core, queued),
            Err(err) => tracing::warn!(
                error = %err.detail,
                "a failing endpoint's recovery was not recorded; its next success records it"
            ),
        }
        return Ok(());
    }
    let mut successes: BTreeMap<u32, Vec<(Uuid, &str)>> = BTreeMap::new();
    let mut others = Vec::new();
    for (id, report) in &parsed {
        match report.http_status {
            Some(status) if succeeded(report) => successes
                .entry(status)
                .or_default()
                .push((*id, report.lease_token.as_str())),
            _ => others.push((*id, *report)),
        }
    }
    let by_id: HashMap<Uuid, &pb::JobReport> = parsed.iter().map(|(id, r)| (*id, *r)).collect();
    let log = |id: Uuid, attempt: i32, http_status: Option<i32>, error: Option<String>| {
        let report = by_id.get(&id);
        webhook_attempts::Model {
            delivery_id: id,
            attempt,
            at: now,
            http_status,
            error,
            duration_ms: report.map_or(0, |r| i64::from(r.duration_ms.unwrap_or(0))),
            payload: report.and_then(|r| payload(r)),
            response_body: report.and_then(|r| response_body(r)),
        }
    };
    let mut logged = Vec::with_capacity(parsed.len());
    let txn = core.db.begin().await?;
    let mut recorded = 0;
    let mut tally = Tally::new();
    let now_ms = now.timestamp_millis();
    // What each recorded attempt counts for the endpoint's health, by delivery.
    let mut counted: HashMap<Uuid, health::Counted> = HashMap::new();
    for (status, leases) in &successes {
        for delivery in store::record_successes(&txn, leases, *status as i32, now).await? {
            logged.push(log(
                delivery.id,
                delivery.attempts,
                Some(*status as i32),
                None,
            ));
            tally.settled(delivery.business_id, true, 1, now_ms);
            if let Some(c) = health::Counted::of(&delivery, true, Some(*status as i32), None, false)
            {
                counted.insert(delivery.id, c);
            }
            recorded += 1;
        }
    }
    if !others.is_empty() {
        let ids: Vec<Uuid> = others.iter().map(|(id, _)| *id).collect();
        let current: HashMap<Uuid, webhook_deliveries::Model> =
            store::deliveries_by_ids(&txn, &ids)
                .await?
                .into_iter()
                .map(|d| (d.id, d))
                .collect();
        for (id, report) in others {
            let Some(delivery) = current.get(&id) else {
                continue;
            };
            if delivery.lease_token.as_deref() != Some(report.lease_token.as_str()) {
                tracing::info!(delivery = %id, "stale report ignored");
                continue;
            }
            let result = attempt_result(
                core,
                delivery.attempts + 1,
                delivery.attempts_base,
                report,
                now,
            );
            tracing::info!(delivery = %id, attempts = result.attempts, status = result.status.as_str(), "webhook attempt failed");
            let entry = log(
                id,
                result.attempts,
                result.last_http_status,
                result.last_error.clone(),
            );
            let settled = result.status == DeliveryStatus::Failed;
            let count = health::Counted::of(
                delivery,
                false,
                result.last_http_status,
                result.last_error.clone(),
                settled,
            );
            if store::record_attempt(&txn, id, &report.lease_token, result, now).await? {
                logged.push(entry);
                if settled {
                    tally.settled(delivery.business_id, false, 1, now_ms);
                }
                if let Some(c) = count {
                    counted.insert(id, c);
                }
                recorded += 1;
            }
        }
    }
    store::log_attempts(&txn, logged).await?;
    let slow_endpoints = slow_endpoints(&txn, &parsed).await?;
    let until = now.timestamp_millis() + SLOW_FOR.as_millis() as i64;
    store::mark_slow(&txn, &slow_endpoints, until).await?;
    // In the order the worker reported them.
    let counted: Vec<health::Counted> = parsed
        .iter()
        .filter_map(|(id, _)| counted.remove(id))
        .collect();
    let queued = health::record(core, &txn, &counted, true, now, &mut tally).await?;
    tally.apply(&txn).await?;
    txn.commit().await?;
    health::wake(core, queued);
    if !slow_endpoints.is_empty() {
        core.slow_endpoints.learned();
    }
    reported(core, reports.len(), recorded);
    Ok(())
}

/// The most of a receiver's answer kept with an attempt.
pub const RESPONSE_BODY_KEPT: usize = 1024;

/// What the attempt sent, as text (the core's own JSON).
fn payload(report: &pb::JobReport) -> Option<String> {
    report
        .payload
        .as_deref()
        .map(|bytes| String::from_utf8_lossy(bytes).into_owned())
}

/// The start of the receiver's answer, decoded as UTF-8 with invalid sequences replaced.
fn response_body(report: &pb::JobReport) -> Option<String> {
    report.response_body.as_deref().map(|bytes| {
        String::from_utf8_lossy(&bytes[..bytes.len().min(RESPONSE_BODY_KEPT)]).into_owned()
    })
}

/// After `reports` reports were recorded, `recorded` of them current.
fn reported(core: &Core, reports: usize, recorded: usize) {
    // While an endpoint is slow the streams lease it with the per-endpoint cap, counted in the
    // database: the slots these reports freed are taken at once (by this core's streams and,
    // on PostgreSQL, every other core's), not at a stream's next poll, so a capped endpoint
    // that answers keeps its pace. (Whether one is slow, as this core last read it: the leases
    // and hand-offs read it again every second.)
    if recorded > 0
        && core.webhooks.max_in_flight_per_endpoint > 0
        && core.slow_endpoints.last_known()
    {
        core.webhook_wakeup.wake();
    }
    tracing::debug!(reports, recorded, "webhook attempts recorded");
}

/// How a reported attempt went, as the `result` label of `webhook_attempts_total`: `2xx`,
/// `retryable` (408, 429, 3xx, 5xx), `permanent` (other 4xx), `timeout` or `connection_error`.
fn attempt_label(report: &pb::JobReport) -> &'static str {
    match (report.http_status, classify(report.http_status)) {
        (Some(_), Verdict::Succeeded) => "2xx",
        (Some(_), Verdict::Permanent) => "permanent",
        (Some(_), Verdict::Retry) => "retryable",
        (None, _) if report.error.as_deref() == Some("timeout") => "timeout",
        (None, _) => "connection_error",
    }
}

/// Whether an attempt took [`SLOW_ATTEMPT`] or more, or got no answer at all.
fn slow(report: &pb::JobReport) -> bool {
    report.http_status.is_none()
        || report.duration_ms.unwrap_or(0) >= SLOW_ATTEMPT.as_millis() as u32
}

/// The endpoints of reports that took [`SLOW_ATTEMPT`] or more, or got no answer at all.
async fn slow_endpoints(
    db: &impl sea_orm::ConnectionTrait,
    reports: &[(Uuid, &pb::JobReport)],
) -> AppResult<Vec<Uuid>> {
    let slow: Vec<Uuid> = reports
        .iter()
        .filter(|(_, r)| slow(r))
        .map(|(id, _)| *id)
        .collect();
    if slow.is_empty() {
        return Ok(Vec::new());
    }
    let mut endpoints: Vec<Uuid> = store::deliveries_by_ids(db, &slow)
        .await?
        .into_iter()
        .map(|d| d.webhook_id)
        .collect();
    endpoints.sort();
    endpoints.dedup();
    Ok(endpoints)
}

/// What an unsuccessful attempt (number `attempts`; the budget counts from `base`) changes.
fn attempt_result(
    core: &Core,
    attempts: i32,
    base: i32,
    report: &pb::JobReport,
    now: chrono::DateTime<chrono::Utc>,
) -> store::AttemptResult {
    let verdict = classify(report.http_status);
    let last_error = match (verdict, report.http_status, &report.error) {
        (Verdict::Succeeded, _, _) => None,
        (_, _, Some(error)) => Some(error.chars().take(500).collect()),
        (_, Some(status), None) => Some(format!("receiver answered {status}")),
        (_, None, None) => Some("no answer".to_string()),
    };
    let (status, next) = match verdict {
        Verdict::Succeeded => (DeliveryStatus::Succeeded, 0),
        Verdict::Permanent => (DeliveryStatus::Failed, 0),
        Verdict::Retry if attempts - base >= MAX_ATTEMPTS => (DeliveryStatus::Failed, 0),
        Verdict::Retry => {
            let wait = backoff(core.webhooks.retry_unit, attempts - base);
            (
                DeliveryStatus::Retrying,
                now.timestamp_millis() + wait.as_millis() as i64,
            )
        }
    };
    store::AttemptResult {
        status,
        attempts,
        last_http_status: report.http_status.map(|s| s as i32),
        last_error,
        next_attempt_at_ms: next,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn outcomes_are_classified_as_the_spec_says() {
        assert_eq!(classify(Some(200)), Verdict::Succeeded);
        assert_eq!(classify(Some(204)), Verdict::Succeeded);
        for retry in [
            None,
            Some(408),
            Some(429),
            Some(500),
            Some(503),
            Some(301),
            Some(302),
        ] {
            assert_eq!(classify(retry), Verdict::Retry, "{retry:?}");
        }
        for permanent in [Some(400), Some(401), Some(404), Some(410), Some(422)] {
            assert_eq!(classify(permanent), Verdict::Permanent, "{permanent:?}");
        }
    }

    #[test]
    fn the_waits_are_1_2_4_8_16_units() {
        let unit = Duration::from_secs(60);
        let waits: Vec<u64> = (1..=5).map(|a| backoff(unit, a).as_secs() / 60).collect();
        assert_eq!(waits, vec![1, 2, 4, 8, 16]);
    }
}
