//! The job side of webhooks: leasing due deliveries, signing each attempt just before it is
//! handed to a worker, and applying the retry policy to each reported outcome.
//!
//! Policy: 2xx succeeds; a timeout, a connection error, 408, 429, 3xx (redirects are never
//! followed) and 5xx are retried after 1, 2, 4, 8 and 16 units (counted from the previous
//! attempt's outcome), 6 attempts in all; any other 4xx fails at once.

use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;

use proto::v1 as pb;
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;
use uuid::Uuid;

use super::flow::{Credits, Reservation};
use super::{secret, store};
use crate::clock::rfc3339;
use crate::entities::webhooks;
use crate::error::{AppError, AppResult};
use crate::events::LeasedDelivery;
use crate::state::Core;

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
        delivery.event_type.as_str(),
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
        header("X-Service-Event", delivery.event_type.to_string()),
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
