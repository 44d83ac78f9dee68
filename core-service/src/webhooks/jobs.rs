//! The job side of webhooks: leasing due deliveries, signing each attempt just before it is
//! handed to a worker, and applying the retry policy to each reported outcome.
//!
//! Policy: 2xx succeeds; a timeout, a connection error, 408, 429, 3xx (redirects are never
//! followed) and 5xx are retried after 1, 2, 4, 8 and 16 units (counted from the previous
//! attempt's outcome), 6 attempts in all; any other 4xx fails at once.

use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;
use std::time::Duration;

use proto::v1 as pb;
use sea_orm::TransactionTrait;
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;
use uuid::Uuid;

use super::flow::{Credits, Reservation, SLOW_ATTEMPT, SLOW_FOR};
use super::{secret, store};
use crate::clock::rfc3339;
use crate::entities::{webhook_attempts, webhook_deliveries, webhooks};
use crate::error::{AppError, AppResult};
use crate::events::LeasedDelivery;
use crate::state::Core;
use crate::usage::Tally;

/// Attempts per delivery, the first included.
pub const MAX_ATTEMPTS: i32 = 6;
/// Margin beyond the receiver timeout before a silent worker's lease lapses.
const LEASE_MARGIN: Duration = Duration::from_secs(30);

pub const USER_AGENT: &str = "Service-Webhooks/1.0";

/// How long a worker holds a leased delivery before it is due again.
pub fn lease_duration(core: &Core) -> Duration {
    core.webhooks.timeout + LEASE_MARGIN
}

/// Leases up to `limit` due deliveries (those of broadcast messages after every other) for the
/// stream of `credits` and turns each into a signed job: one statement for the lease and one
/// read for the endpoints of the whole batch.
pub async fn lease(core: &Core, credits: &Credits, limit: u64) -> AppResult<Vec<pb::Job>> {
    let now = core.clock.now();
    let lease_until = now.timestamp_millis() + lease_duration(core).as_millis() as i64;
    let token = credits.token();
    let cap = core.webhooks.max_in_flight_per_endpoint;
    let any_slow = cap > 0
        && core
            .slow_endpoints
            .any(&core.db, now.timestamp_millis())
            .await?;

    let leased = store::lease_due(
        &core.db,
        now.timestamp_millis(),
        lease_until,
        &token,
        limit,
        cap,
        any_slow,
    )
    .await?;
    if leased.is_empty() {
        return Ok(Vec::new());
    }
    let mut endpoint_ids: Vec<Uuid> = leased.iter().map(|d| d.webhook_id).collect();
    endpoint_ids.sort();
    endpoint_ids.dedup();
    let endpoints: HashMap<Uuid, webhooks::Model> = store::by_ids(&core.db, &endpoint_ids)
        .await?
        .into_iter()
        .map(|w| (w.id, w))
        .collect();
    Ok(sign_all(core, leased, &endpoints, &token).await)
}

/// Signs leased deliveries into jobs; one that cannot be signed is logged and given back.
async fn sign_all(
    core: &Core,
    leased: Vec<store::Leased>,
    endpoints: &HashMap<Uuid, webhooks::Model>,
    token: &str,
) -> Vec<pb::Job> {
    let now_ms = core.clock.now_ms();
    let mut signers: HashMap<Uuid, secret::Signer> = HashMap::new();
    let mut jobs = Vec::with_capacity(leased.len());
    for delivery in leased {
        let signed = match endpoints.get(&delivery.webhook_id) {
            Some(webhook) => {
                let signer = match signers.get(&webhook.id) {
                    Some(signer) => Ok(signer.clone()),
                    None => secret::Signer::of(&core.keys, webhook, now_ms).inspect(|s| {
                        signers.insert(webhook.id, s.clone());
                    }),
                };
                signer.and_then(|signer| sign(core, &delivery, webhook, &signer, token))
            }
            None => Err(AppError::internal("delivery without endpoint")),
        };
        match signed {
            Ok(job) => jobs.push(job),
            Err(err) => {
                tracing::error!(error = %err, delivery = %delivery.id, "cannot sign a delivery");
                let _ = store::release(&core.db, delivery.id, token).await;
            }
        }
    }
    jobs
}

/// Credit from one of this core's job streams for up to `want` deliveries about to be written
/// leased to it (`events::record_many_leased`) and handed over after the commit
/// ([`hand_over`]); None when no stream has room to spare, or while an endpoint is slow (the
/// per-endpoint cap is then applied by the streams' own leases).
pub async fn reserve(core: &Core, want: usize) -> Option<Reservation> {
    if core.webhooks.max_in_flight_per_endpoint > 0
        && core
            .slow_endpoints
            .any(&core.db, core.clock.now_ms())
            .await
            .unwrap_or(true)
    {
        return None;
    }
    core.job_credits.reserve(want, lease_duration(core))
}

/// After the commit that wrote them: signs the deliveries leased under `reservation` and puts
/// them on its stream, giving back the credit left over. Deliveries the stream can no longer
/// take (its worker went away meanwhile) are due again at once. Returns how many were handed
/// over.
pub async fn hand_over(
    core: &Core,
    reservation: Reservation,
    handed: Vec<LeasedDelivery>,
) -> usize {
    let endpoints: HashMap<Uuid, webhooks::Model> = handed
        .iter()
        .map(|h| (h.endpoint.id, h.endpoint.clone()))
        .collect();
    let leased = handed
        .into_iter()
        .map(|h| store::Leased {
            id: h.delivery.id,
            webhook_id: h.delivery.webhook_id,
            event_id: h.delivery.event_id,
            event_type: h.delivery.event_type,
            data: h.delivery.data,
            created_at: h.delivery.created_at,
            class: h.delivery.class,
        })
        .collect();
    let jobs = sign_all(core, leased, &endpoints, &reservation.token).await;
    let mut sent = 0;
    let mut unsent = Vec::new();
    for job in jobs {
        if !unsent.is_empty() {
            unsent.push(job.delivery_id);
            continue;
        }
        match reservation.jobs.try_send(job) {
            Ok(()) => sent += 1,
            Err(err) => unsent.push(err.into_inner().delivery_id),
        }
    }
    core.job_credits
        .give_back(&reservation, reservation.count - sent);
    metrics::counter!("webhook_jobs_handed_total").increment(sent as u64);
    if !unsent.is_empty() {
        let ids: Vec<Uuid> = unsent.iter().filter_map(|id| id.parse().ok()).collect();
        let now_ms = core.clock.now_ms();
        match store::release_unsent(&core.db, &reservation.token, &ids, now_ms).await {
            Ok(n) if n > 0 => core.webhook_wakeup.wake(),
            Ok(_) => {}
            Err(err) => {
                tracing::warn!(error = %err, "could not give back deliveries a stream no longer takes; their leases will lapse");
            }
        }
    }
    sent
}

/// The payload of one attempt: a new `id` and `t` each time, the constant `delivery_id`, and
/// the `event_id` every endpoint's delivery of the event carries.
pub fn payload(
    delivery_id: Uuid,
    event_id: Uuid,
    event_type: &str,
    data: &str,
    created_at: chrono::DateTime<chrono::Utc>,
    attempt_id: Uuid,
) -> AppResult<Vec<u8>> {
    let data: serde_json::Value = serde_json::from_str(data)
        .map_err(|_| AppError::internal("stored event data is not JSON"))?;
    let body = serde_json::json!({
        "id": attempt_id,
        "type": event_type,
        "created_at": rfc3339(created_at),
        "delivery_id": delivery_id,
        "event_id": event_id,
        "data": data,
    });
    serde_json::to_vec(&body).map_err(|_| AppError::internal("serialising a payload"))
}

fn sign(
    core: &Core,
    delivery: &store::Leased,
    webhook: &webhooks::Model,
    signer: &secret::Signer,
    token: &str,
) -> AppResult<pb::Job> {
    let body = payload(
        delivery.id,
        delivery.event_id,
        &delivery.event_type,
        &delivery.data,
        delivery.created_at,
        Uuid::new_v4(),
    )?;
    let t = core.clock.now().timestamp();
    let header = |name: &str, value: String| pb::Header {
        name: name.to_string(),
        value,
    };
    let delivery_id = delivery.id.to_string();
    let mut headers = vec![
        header("X-Service-Event", delivery.event_type.clone()),
        header("X-Service-Delivery", delivery_id.clone()),
    ];
    for (name, value) in signer.headers(&delivery_id, t, &body) {
        headers.push(header(name, value));
    }
    headers.push(header("Content-Type", "application/json".to_string()));
    headers.push(header("User-Agent", USER_AGENT.to_string()));
    Ok(pb::Job {
        delivery_id,
        lease_token: token.to_string(),
        url: webhook.url.clone(),
        headers,
        body,
        timeout_ms: core.webhooks.timeout.as_millis() as u32,
        allow_private_targets: core.webhooks.allow_insecure,
        bulk: delivery.class == crate::events::BROADCAST_DELIVERY_CLASS,
    })
}

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
            })
            .collect();
        let recorded = store::record_successes_at_once(&core.db, &successes, now).await?;
        reported(core, reports.len(), recorded);
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
    let durations: HashMap<Uuid, i64> = parsed
        .iter()
        .map(|(id, r)| (*id, i64::from(r.duration_ms.unwrap_or(0))))
        .collect();
    let log = |id: Uuid, attempt: i32, http_status: Option<i32>, error: Option<String>| {
        webhook_attempts::Model {
            delivery_id: id,
            attempt,
            at: now,
            http_status,
            error,
            duration_ms: durations.get(&id).copied().unwrap_or(0),
        }
    };
    let mut logged = Vec::with_capacity(parsed.len());
    let txn = core.db.begin().await?;
    let mut recorded = 0;
    let mut tally = Tally::new();
    let now_ms = now.timestamp_millis();
    for (status, leases) in &successes {
        for (id, business, attempt) in
            store::record_successes(&txn, leases, *status as i32, now).await?
        {
            logged.push(log(id, attempt, Some(*status as i32), None));
            tally.settled(business, true, 1, now_ms);
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
            tracing::info!(delivery = %id, attempts = result.attempts, status = result.status, "webhook attempt failed");
            let entry = log(
                id,
                result.attempts,
                result.last_http_status,
                result.last_error.clone(),
            );
            let settled = result.status == "failed";
            if store::record_attempt(&txn, id, &report.lease_token, result, now).await? {
                logged.push(entry);
                if settled {
                    tally.settled(delivery.business_id, false, 1, now_ms);
                }
                recorded += 1;
            }
        }
    }
    store::log_attempts(&txn, logged).await?;
    let slow_endpoints = slow_endpoints(&txn, &parsed).await?;
    let until = now.timestamp_millis() + SLOW_FOR.as_millis() as i64;
    store::mark_slow(&txn, &slow_endpoints, until).await?;
    tally.apply(&txn).await?;
    txn.commit().await?;
    if !slow_endpoints.is_empty() {
        core.slow_endpoints.learned();
    }
    reported(core, reports.len(), recorded);
    Ok(())
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
        Verdict::Succeeded => ("succeeded", 0),
        Verdict::Permanent => ("failed", 0),
        Verdict::Retry if attempts - base >= MAX_ATTEMPTS => ("failed", 0),
        Verdict::Retry => {
            let wait = backoff(core.webhooks.retry_unit, attempts - base);
            ("retrying", now.timestamp_millis() + wait.as_millis() as i64)
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

/// The most unreported jobs one stream holds for its worker.
const MAX_IN_FLIGHT: u32 = 256;

/// Unreported jobs a stream may hold per slot of its worker: the slot's job, one more waiting
/// so the next job is there when a slot frees, and room for those done whose reports are on
/// their way (the worker gathers reports into batches, and the core counts a job until its
/// report arrives), so a busy worker's slots are not left idle for want of credit.
const PREFETCH: usize = 4;

/// How long a busy stream waits for more room before leasing for a few slots.
const LINGER: Duration = Duration::from_millis(2);

/// A worker back after its job stream ended (`JobsRequest.resumed`): the deliveries of its
/// earlier streams it still holds.
#[derive(Debug, Default)]
pub struct Resumed {
    pub held: Vec<Uuid>,
}

/// Gives back at once the deliveries leased to the worker of `mark` that it does not hold
/// (the jobs its earlier stream's core leased and never sent it: that core may be gone), due
/// now with no attempt counted; returns how many.
async fn release_unheld(core: &Core, mark: &str, held: &[Uuid]) -> u64 {
    let now_ms = core.clock.now_ms();
    match store::release_worker_leases(&core.db, mark, held, now_ms).await {
        Ok(n) => n,
        Err(err) => {
            tracing::warn!(error = %err, "could not give back a returning worker's unsent jobs; their leases will lapse");
            0
        }
    }
}

/// The job stream of one worker until it goes away or `shutdown` fires: leases due deliveries
/// as the worker has room for them (see `flow`), waking when deliveries are committed
/// ([`crate::webhooks::wakeup`]) and polling for those that became due. A worker that is back
/// (`resumed`) first gets the leases it does not hold given back.
pub fn stream(
    core: Arc<Core>,
    worker: String,
    max_in_flight: u32,
    resumed: Option<Resumed>,
    shutdown: CancellationToken,
) -> mpsc::Receiver<pb::Job> {
    // The stream holds at most PREFETCH times what the worker says it can have in flight,
    // counted from lease to report (see `flow`): the worker never waits for a lease
    // round, and no more than that waits leased on its way.
    let room = match max_in_flight {
        0 => 16,
        n => n.clamp(1, MAX_IN_FLIGHT),
    } as usize
        * PREFETCH;
    let (tx, rx) = mpsc::channel::<pb::Job>(room);
    tokio::spawn(async move {
        tracing::info!(worker = %worker, "worker connected to the job stream");
        let mark = super::flow::worker_mark(&worker);
        // Before this stream leases anything under the worker's mark.
        if let (Some(resumed), Some(mark)) = (&resumed, &mark) {
            let returned = release_unheld(&core, mark, &resumed.held).await;
            if returned > 0 {
                metrics::counter!("webhook_jobs_returned_total").increment(returned);
                core.webhook_wakeup.wake();
            }
            tracing::info!(worker = %worker, held = resumed.held.len(), returned, "worker back from an ended job stream");
        }
        let credits = Credits::new(room, mark);
        // Deliveries this core's dispatcher writes leased to this stream come in too.
        core.job_credits.open_inlet(&credits, tx.clone());
        loop {
            let notified = core.webhook_wakeup.notified();
            tokio::pin!(notified);
            notified.as_mut().enable();
            // Wait until the worker has reported enough to take at least one more job.
            let mut free = credits.free();
            while free == 0 {
                tokio::select! {
                    () = credits.freed.notified() => {}
                    () = tokio::time::sleep(core.webhooks.poll) => {}
                    () = tx.closed() => break,
                    () = shutdown.cancelled() => break,
                }
                free = credits.free();
            }
            if free == 0 {
                break;
            }
            if free < room / 2 {
                // The worker is busy and has just freed a slot: give it a moment to free
                // more, so one lease serves several jobs.
                tokio::time::sleep(LINGER).await;
                free = credits.free();
            }
            // Deliveries of broadcast messages come after every other due one; the worker, too,
            // attempts them after every other job it holds (`Job.bulk`).
            let leased = match lease(&core, &credits, free as u64).await {
                Ok(jobs) => jobs,
                Err(err) => {
                    tracing::warn!(error = %err, "leasing deliveries failed");
                    Vec::new()
                }
            };
            if leased.is_empty() {
                // Nothing due: wait for new deliveries. While an endpoint is slow, due
                // deliveries may be held back by its cap; the commit of a report that frees
                // one of its slots wakes the streams too (`report_many`).
                tokio::select! {
                    () = &mut notified => {}
                    () = tokio::time::sleep(core.webhooks.poll) => {}
                    () = tx.closed() => break,
                    () = shutdown.cancelled() => break,
                }
                continue;
            }
            core.job_credits.leased(
                &credits,
                &leased[0].lease_token,
                leased.len(),
                lease_duration(&core),
            );
            let mut gone = false;
            for job in leased {
                if tx.send(job).await.is_err() {
                    gone = true;
                    break;
                }
            }
            if gone {
                break;
            }
        }
        let open = core.job_credits.closed(&credits);
        if shutdown.is_cancelled() {
            // This core is stopping: the worker keeps its jobs and reports them through
            // another core, which accepts a report while its lease is current.
            tracing::info!(worker = %worker, "job stream closed by shutdown");
            return;
        }
        // The worker went away (stopped, crashed, cut off): what it held is due again now
        // rather than when the leases lapse.
        let released = if open.is_empty() {
            Ok(0)
        } else {
            let now = core.clock.now().timestamp_millis();
            store::release_leases(&core.db, &open, now).await
        };
        let returned = match released {
            Ok(n) => n,
            Err(err) => {
                tracing::warn!(error = %err, "could not give back a closed stream's jobs; their leases will lapse");
                0
            }
        };
        if returned > 0 {
            metrics::counter!("webhook_jobs_returned_total").increment(returned);
            core.webhook_wakeup.wake();
        }
        tracing::info!(worker = %worker, returned, "worker left the job stream");
    });
    rx
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
