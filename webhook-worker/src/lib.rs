//! The webhook worker: stateless, holding no secret and no database connection. It pulls signed
//! jobs from a core's `WebhookJobService` stream, POSTs each one (never following redirects,
//! connecting only to public addresses unless the core allows private targets) and reports the
//! outcome. The core owns the retry policy and every state, so a worker can be stopped at any
//! moment: when its stream closes, the core gives its unreported jobs back (due at once), and
//! another worker gets them. With several cores in `CORE_URL` it holds one stream to any core
//! that answers and moves when that stream ends.

pub mod guard;

use std::collections::HashSet;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use clap::Args;
use futures::StreamExt;
use proto::cores::{CoreChannel, CoreIndex, Cores};
use proto::v1 as pb;
use proto::v1::webhook_job_service_client::WebhookJobServiceClient;
use tokio::sync::{Semaphore, mpsc};
use tokio_util::sync::CancellationToken;

use crate::guard::{GuardedResolver, SystemResolver, check_literal};

#[derive(Debug, Clone, Args)]
pub struct WorkerConfig {
    /// The core's gRPC address; several cores separated by commas (the worker holds one job
    /// stream to any core that answers, and moves when it ends).
    #[arg(long, env = "CORE_URL", default_value = "http://127.0.0.1:50051")]
    pub core_url: String,

    /// PEM CA certificate to trust for an https:// CORE_URL (default: the system's roots).
    #[arg(long, env = "CORE_TLS_CA")]
    pub core_tls_ca: Option<std::path::PathBuf>,

    /// The core's INTERNAL_TOKEN, presented on the job stream.
    #[arg(long, env = "INTERNAL_TOKEN", hide_env_values = true)]
    pub internal_token: Option<String>,

    /// Where `GET /metrics` (Prometheus text) is served; `off` for nowhere.
    #[arg(long, env = "METRICS_ADDR", default_value = "127.0.0.1:9466")]
    pub metrics_addr: proto::metrics::MetricsAddr,

    #[command(flatten)]
    pub settings: WorkerSettings,
}

/// What the standalone worker and the all-in-one both take.
#[derive(Debug, Clone, clap::Args)]
pub struct WorkerSettings {
    /// Deliveries this worker POSTs at once.
    #[arg(long, env = "WORKER_CONCURRENCY", default_value_t = 64)]
    pub concurrency: usize,
}

impl Default for WorkerSettings {
    fn default() -> Self {
        WorkerSettings { concurrency: 64 }
    }
}

impl WorkerConfig {
    pub fn for_core(core_url: impl Into<String>) -> Self {
        WorkerConfig {
            core_url: core_url.into(),
            core_tls_ca: None,
            internal_token: None,
            metrics_addr: proto::metrics::MetricsAddr(None),
            settings: WorkerSettings::default(),
        }
    }
}

/// A worker: its configuration and how it resolves receiver host names.
pub struct Worker {
    config: WorkerConfig,
    resolver: Arc<dyn reqwest::dns::Resolve>,
    id: String,
    rebalance_every: Duration,
    jobs_held: HeldJobs,
}

/// The jobs this worker holds across its streams: received and not yet reported (the report's
/// call unanswered), and whether it has opened a stream before. Each stream after the first
/// names them (`JobsRequest.resumed`, `held`), so that its core gives back at once the other
/// deliveries leased to this worker: those the earlier stream's core leased and never sent
/// (it was stopping, killed or cut off), which would otherwise wait for their leases to lapse.
#[derive(Debug, Default)]
pub struct HeldJobs {
    ids: std::sync::Mutex<HashSet<String>>,
    streamed: AtomicBool,
}

impl HeldJobs {
    fn ids(&self) -> std::sync::MutexGuard<'_, HashSet<String>> {
        self.ids.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// A job came in on a stream.
    pub fn received(&self, delivery_id: &str) {
        self.ids().insert(delivery_id.to_string());
    }

    /// These jobs are off this worker's hands: reported (or given up), or left unstarted on
    /// a stream's core.
    pub fn done<'a>(&self, delivery_ids: impl IntoIterator<Item = &'a str>) {
        let mut ids = self.ids();
        for id in delivery_ids {
            ids.remove(id);
        }
    }

    /// A stream opened: the next one resumes.
    pub fn opened(&self) {
        self.streamed.store(true, Ordering::Relaxed);
    }

    /// `(resumed, held)` for the next `JobsRequest`.
    pub fn for_request(&self) -> (bool, Vec<String>) {
        if !self.streamed.load(Ordering::Relaxed) {
            return (false, Vec::new());
        }
        let ids = self.ids();
        // A worker holding more than a stream may name (it never does: its concurrency and
        // the reports on their way bound them) resumes nothing, so nothing it holds is given
        // back.
        if ids.len() > proto::MAX_HELD_JOBS {
            return (false, Vec::new());
        }
        let mut held: Vec<String> = ids.iter().cloned().collect();
        held.sort();
        (true, held)
    }
}

impl Worker {
    pub fn new(config: WorkerConfig) -> Self {
        Worker {
            config,
            resolver: Arc::new(SystemResolver),
            id: format!("worker-{}", uuid::Uuid::new_v4()),
            rebalance_every: REBALANCE_EVERY,
            jobs_held: HeldJobs::default(),
        }
    }

    /// How often (plus a random part as long again at most) the worker compares its core's
    /// job streams with the other cores' (tests shorten it).
    pub fn with_rebalance_every(mut self, every: Duration) -> Self {
        self.rebalance_every = every;
        self
    }

    /// Replaces DNS (tests use a stub so that no traffic ever goes to private ranges).
    pub fn with_resolver(mut self, resolver: Arc<dyn reqwest::dns::Resolve>) -> Self {
        self.resolver = resolver;
        self
    }

    fn client(&self, allow_private: bool) -> reqwest::Client {
        reqwest::Client::builder()
            .redirect(reqwest::redirect::Policy::none())
            .dns_resolver(Arc::new(GuardedResolver::new(
                self.resolver.clone(),
                allow_private,
            )))
            .no_proxy()
            .build()
            .expect("a reqwest client")
    }

    fn request<T>(&self, message: T) -> tonic::Request<T> {
        let mut request = tonic::Request::new(message);
        if let Some(value) = self
            .config
            .internal_token
            .as_deref()
            .filter(|t| !t.is_empty())
            .and_then(|t| format!("Bearer {t}").parse().ok())
        {
            request.metadata_mut().insert("authorization", value);
        }
        request
    }

    /// Pulls and delivers jobs until `cancel` fires, reconnecting with a capped backoff when
    /// the core goes away.
    pub async fn run_until_stopped(self, cancel: CancellationToken) -> anyhow::Result<()> {
        let cores = Cores::new(
            &self.config.core_url,
            self.config.core_tls_ca.as_deref(),
            |e| e.connect_timeout(Duration::from_secs(3)).tcp_nodelay(true),
        )
        .map_err(|e| anyhow::anyhow!(e))?;
        let this = Arc::new(self);
        let strict = this.client(false);
        let permissive = this.client(true);
        let mut wait = FIRST_WAIT;
        if cores.len() > 1 {
            // Workers started together would all see the same stream counts and choose the
            // same core (see `quietest`): each waits a random moment first.
            let jitter = uuid::Uuid::new_v4().as_u128() % START_JITTER.as_millis();
            tokio::select! {
                () = cancel.cancelled() => return Ok(()),
                () = tokio::time::sleep(Duration::from_millis(jitter as u64)) => {}
            }
        }
        loop {
            let mut held = false;
            let session = this.clone().session(
                &cores,
                strict.clone(),
                permissive.clone(),
                cancel.clone(),
                &mut held,
            );
            match session.await {
                Ok(()) if cancel.is_cancelled() => return Ok(()),
                Ok(()) => {}
                Err(err) => {
                    tracing::warn!(error = %err, core = %cores.describe(), "job stream unavailable")
                }
            }
            // A stream that was open has ended (its core stopped, or dropped it): straight to
            // another core. Else wait, longer each time, up to 5 s.
            let pause = if held { Duration::ZERO } else { wait };
            wait = if held {
                FIRST_WAIT
            } else {
                (wait * 2).min(Duration::from_secs(5))
            };
            tokio::select! {
                () = cancel.cancelled() => return Ok(()),
                () = tokio::time::sleep(pause) => {}
            }
        }
    }

    /// Of several cores, the one (not marked down) holding the fewest job streams, asked of
    /// each: workers spread over the cores, and each core hands the deliveries it writes to a
    /// stream of its own in memory instead of leaving them to another core's lease. Ties go
    /// by this process's id; None (the picker's turn) with one core, or when none answers.
    async fn quietest(&self, cores: &Cores) -> Option<usize> {
        if cores.len() < 2 {
            return None;
        }
        let answers = self.stream_counts(cores).await;
        let fewest = answers.iter().map(|(open, _)| *open).min()?;
        let ties: Vec<usize> = answers
            .iter()
            .filter(|(open, _)| *open == fewest)
            .map(|(_, i)| *i)
            .collect();
        Some(ties[std::process::id() as usize % ties.len()])
    }

    /// The job streams each core not marked down holds, as (streams, core), of those that
    /// answer within [`STREAM_COUNT_TIMEOUT`].
    async fn stream_counts(&self, cores: &Cores) -> Vec<(u32, usize)> {
        let asks = (0..cores.len()).filter(|&i| !cores.is_down(i)).map(|i| {
            let mut client = WebhookJobServiceClient::new(cores.only(i));
            let request = self.request(pb::Empty {});
            async move {
                let answer =
                    tokio::time::timeout(STREAM_COUNT_TIMEOUT, client.job_streams(request))
                        .await
                        .ok()?
                        .ok()?;
                Some((answer.into_inner().open, i))
            }
        });
        futures::future::join_all(asks)
            .await
            .into_iter()
            .flatten()
            .collect()
    }

    /// Now and then, whether the core of this worker's stream (`core`) holds two streams or
    /// more than another core: then `moving` fires and the session moves its stream (a core
    /// that came back, or that the workers missed when they chose, gets streams again). The
    /// random part of the wait keeps workers from moving together.
    async fn balance(self: Arc<Self>, cores: Cores, core: usize, moving: CancellationToken) {
        if cores.len() < 2 {
            return;
        }
        let every = self.rebalance_every.max(Duration::from_millis(1));
        loop {
            let jitter = uuid::Uuid::new_v4().as_u128() % every.as_millis();
            tokio::time::sleep(every + Duration::from_millis(jitter as u64)).await;
            let counts = self.stream_counts(&cores).await;
            let mine = counts.iter().find(|(_, i)| *i == core).map(|(n, _)| *n);
            let fewest = counts
                .iter()
                .filter(|(_, i)| *i != core)
                .map(|(n, _)| *n)
                .min();
            if let (Some(mine), Some(fewest)) = (mine, fewest)
                && mine >= fewest + 2
            {
                tracing::info!(
                    worker = %self.id,
                    core = %cores.urls()[core],
                    streams = mine,
                    fewest,
                    "moving the job stream to a core with fewer"
                );
                moving.cancel();
                return;
            }
        }
    }

    /// One job stream, to the core with the fewest (or the next that answers), until it ends.
    async fn session(
        self: Arc<Self>,
        cores: &Cores,
        strict: reqwest::Client,
        permissive: reqwest::Client,
        cancel: CancellationToken,
        held: &mut bool,
    ) -> anyhow::Result<()> {
        let channel = match self.quietest(cores).await {
            Some(core) => cores.preferring(core),
            None => cores.channel(),
        };
        let mut client = WebhookJobServiceClient::new(channel);
        let slots = Arc::new(Semaphore::new(self.config.settings.concurrency.max(1)));
        let (resumed, held_ids) = self.jobs_held.for_request();
        let request = self.request(pb::JobsRequest {
            worker_id: self.id.clone(),
            max_in_flight: self.config.settings.concurrency as u32,
            resumed,
            held: held_ids,
        });
        let response = client.jobs(request).await?;
        *held = true;
        self.jobs_held.opened();
        let core = response.extensions().get::<CoreIndex>().map_or(0, |c| c.0);
        let mut stream = response.into_inner();
        // Reports go out through one task that batches them; it ends once every delivery of
        // this session has handed in its report. They go to the stream's core, which counts
        // them as room for more jobs; to another core only when that one is gone (a core
        // accepts any report whose lease is still current).
        let (reports, pending) = mpsc::unbounded_channel();
        let reporter = WebhookJobServiceClient::new(cores.preferring(core));
        let reporting = tokio::spawn(self.clone().report_loop(reporter, pending));
        // Fired when this stream should move to a core with fewer (see `balance`).
        let moving = CancellationToken::new();
        // Jobs are read as they come (the core sends no more than the room it gave this
        // worker) into two queues: a broadcast's deliveries wait behind every other job.
        let (urgent_tx, mut urgent) = mpsc::unbounded_channel::<pb::Job>();
        let (bulk_tx, mut bulk) = mpsc::unbounded_channel::<pb::Job>();
        let stop_reading = moving.clone();
        let this = self.clone();
        let reader = tokio::spawn(async move {
            loop {
                let next = tokio::select! {
                    biased;
                    // Moving: the stream stays open, unread, until the session lets it go.
                    () = stop_reading.cancelled() => return Ok(Some(stream)),
                    next = stream.next() => next,
                };
                let Some(job) = next else { break };
                let job = job?;
                this.jobs_held.received(&job.delivery_id);
                let queue = if job.bulk { &bulk_tx } else { &urgent_tx };
                if queue.send(job).is_err() {
                    break;
                }
            }
            Ok::<_, tonic::Status>(None)
        });
        // The reader goes with the session.
        struct Abort(tokio::task::AbortHandle);
        impl Drop for Abort {
            fn drop(&mut self) {
                self.0.abort();
            }
        }
        let _reader = Abort(reader.abort_handle());
        let balancer = tokio::spawn(self.clone().balance(cores.clone(), core, moving.clone()));
        let _balancer = Abort(balancer.abort_handle());
        tracing::info!(worker = %self.id, core = %cores.urls()[core], "pulling webhook jobs");
        loop {
            // Take the next job only when a slot is free.
            let permit = tokio::select! {
                () = cancel.cancelled() => return Ok(()),
                () = moving.cancelled() => break,
                permit = slots.clone().acquire_owned() => permit?,
            };
            let job = tokio::select! {
                biased;
                () = cancel.cancelled() => return Ok(()),
                () = moving.cancelled() => break,
                job = next_job(&mut urgent, &mut bulk) => job,
            };
            let Some(job) = job else {
                // The stream ended (both queues drained): with the core's error, if it sent one.
                reader.await??;
                return Ok(());
            };
            let http = if job.allow_private_targets {
                permissive.clone()
            } else {
                strict.clone()
            };
            let reports = reports.clone();
            let cancel = cancel.clone();
            // Every line about this delivery names it.
            let span = tracing::info_span!("delivery", delivery_id = %job.delivery_id);
            tokio::spawn(tracing::Instrument::instrument(
                async move {
                    let _permit = permit;
                    let report = tokio::select! {
                        () = cancel.cancelled() => return,
                        report = deliver(&http, &job) => report,
                    };
                    let result = match (report.http_status, report.error.as_deref()) {
                        (Some(status), _) if (200..300).contains(&status) => "2xx",
                        (Some(_), _) => "non_2xx",
                        (None, Some("timeout")) => "timeout",
                        (None, _) => "connection_error",
                    };
                    metrics::counter!("webhook_worker_deliveries_total", "result" => result)
                        .increment(1);
                    match (report.http_status, &report.error) {
                        (Some(status), _) if (200..300).contains(&status) => {
                            tracing::debug!(status, "delivered");
                        }
                        (status, error) => {
                            tracing::info!(
                                ?status,
                                error = error.as_deref().unwrap_or(""),
                                duration_ms = report.duration_ms,
                                "attempt failed"
                            );
                        }
                    }
                    let _ = reports.send(report);
                },
                span,
            ));
        }
        // Moving. The deliveries under way finish and are reported while the stream is still
        // open; the jobs it holds that were not started are given back by the core when it
        // closes (due at once, no attempt counted), so nothing is attempted twice.
        let stream = match reader.await {
            Ok(Ok(stream)) => stream,
            _ => None,
        };
        for queue in [&mut urgent, &mut bulk] {
            while let Ok(job) = queue.try_recv() {
                self.jobs_held.done([job.delivery_id.as_str()]);
            }
        }
        drop((urgent, bulk, reports));
        tokio::select! {
            () = cancel.cancelled() => {}
            _ = tokio::time::timeout(DRAIN_LIMIT, reporting) => {}
        }
        drop(stream);
        Ok(())
    }

    /// Sends reports in batches (one call and one transaction in the core for many
    /// deliveries): a batch with no call on its way first waits up to [`REPORT_LINGER`] for
    /// [`PIPELINE_AT`] reports, and those that arrive while a call is on its way go in the
    /// next. While a call is on its way, another starts only once [`PIPELINE_AT`] reports wait
    /// (up to [`REPORTS_IN_FLIGHT`] calls): the core gives the stream room for more jobs as
    /// each call arrives, so under a heavy load a report does not wait behind another's
    /// transaction, and under a light one the batches stay whole.
    async fn report_loop(
        self: Arc<Self>,
        client: WebhookJobServiceClient<CoreChannel>,
        mut reports: mpsc::UnboundedReceiver<pb::JobReport>,
    ) {
        let mut calls = tokio::task::JoinSet::new();
        let mut batch = Vec::with_capacity(REPORT_BATCH);
        let mut open = true;
        loop {
            if calls.is_empty() {
                if batch.is_empty()
                    && (!open || reports.recv_many(&mut batch, REPORT_BATCH).await == 0)
                {
                    break;
                }
            } else {
                let room = REPORT_BATCH - batch.len();
                tokio::select! {
                    _ = calls.join_next() => {}
                    n = reports.recv_many(&mut batch, room), if open && room > 0 => {
                        open = n > 0;
                    }
                }
                if batch.len() < PIPELINE_AT || calls.len() >= REPORTS_IN_FLIGHT {
                    continue;
                }
            }
            if calls.is_empty() && open && batch.len() < PIPELINE_AT {
                open = linger(&mut reports, &mut batch).await;
            }
            let sent = std::mem::take(&mut batch);
            calls.spawn(self.clone().report(client.clone(), sent));
        }
        while calls.join_next().await.is_some() {}
    }

    /// One report call, tried again (through any live core) when it fails: a report is
    /// idempotent (the core applies it only while its lease token is current, and an attempt
    /// is logged once), so a call lost with a core that died is simply sent again rather than
    /// left to the lease's lapse, which would deliver the webhook a second time.
    async fn report(
        self: Arc<Self>,
        mut client: WebhookJobServiceClient<CoreChannel>,
        reports: Vec<pb::JobReport>,
    ) {
        let count = reports.len();
        // Answered or given up, these jobs are no longer this worker's to name.
        struct Done<'a>(&'a HeldJobs, &'a [pb::JobReport]);
        impl Drop for Done<'_> {
            fn drop(&mut self) {
                self.0.done(self.1.iter().map(|r| r.delivery_id.as_str()));
            }
        }
        let _done = Done(&self.jobs_held, &reports);
        for (n, pause) in REPORT_RETRIES.iter().enumerate() {
            let request = self.request(pb::JobReports {
                reports: reports.clone(),
            });
            match client.report_batch(request).await {
                Ok(_) => return,
                Err(err) if n + 1 < REPORT_RETRIES.len() => {
                    tracing::info!(error = %err, reports = count, "report failed; sending it again");
                    tokio::time::sleep(*pause).await;
                }
                Err(err) => {
                    tracing::warn!(error = %err, reports = count, "could not report; the leases will lapse");
                }
            }
        }
    }
}

/// The pauses after each failed report call before the next try (its length is the tries).
const REPORT_RETRIES: [Duration; 4] = [
    Duration::from_millis(100),
    Duration::from_millis(500),
    Duration::from_secs(2),
    Duration::ZERO,
];

/// The next job to attempt: one of `urgent` first, else one of `bulk`; `None` once both are
/// closed and empty (the job stream ended).
async fn next_job(
    urgent: &mut mpsc::UnboundedReceiver<pb::Job>,
    bulk: &mut mpsc::UnboundedReceiver<pb::Job>,
) -> Option<pb::Job> {
    tokio::select! {
        biased;
        Some(job) = urgent.recv() => Some(job),
        Some(job) = bulk.recv() => Some(job),
        else => None,
    }
}

/// The first pause before opening a job stream again after a failure.
const FIRST_WAIT: Duration = Duration::from_millis(200);

/// How often a worker of several cores compares its core's job streams with the others' (plus
/// a random part as long again at most).
const REBALANCE_EVERY: Duration = Duration::from_secs(10);

/// The most a moving stream waits for the deliveries under way to be reported before it closes.
const DRAIN_LIMIT: Duration = Duration::from_secs(60);

/// The most a worker of several cores waits before its first stream (start-up jitter).
const START_JITTER: Duration = Duration::from_millis(500);

/// How long a core has to say how many job streams it holds before the worker chooses without
/// it.
const STREAM_COUNT_TIMEOUT: Duration = Duration::from_secs(1);

/// The most reports sent in one call.
const REPORT_BATCH: usize = 256;

/// The most report calls on their way at once.
const REPORTS_IN_FLIGHT: usize = 3;

/// Reports waiting that start a call beside one already on its way, and that end a batch's
/// linger.
const PIPELINE_AT: usize = 32;

/// The longest a report waits for others before its call. A report is off every user's path
/// (the receiver has its webhook already), so waiting costs nothing seen, while a call per
/// report costs the core a transaction each: at 500 sends/s one call per 3.4 deliveries
/// without it against 13.8 with it. (The core's job stream sends each job as it comes; the
/// batches used to come from Nagle's algorithm holding jobs back in the core's socket, a
/// delayed ACK at a time.) Leases last far longer, and an endpoint's in-flight cap counts
/// only slow endpoints, whose attempts take a second or more.
const REPORT_LINGER: Duration = Duration::from_millis(20);

/// Adds to `batch` the reports that arrive within [`REPORT_LINGER`], until it holds
/// [`PIPELINE_AT`]; false when the queue has closed (the stream is over: report at once).
async fn linger(
    reports: &mut mpsc::UnboundedReceiver<pb::JobReport>,
    batch: &mut Vec<pb::JobReport>,
) -> bool {
    let until = tokio::time::Instant::now() + REPORT_LINGER;
    while batch.len() < PIPELINE_AT {
        let room = PIPELINE_AT - batch.len();
        tokio::select! {
            n = reports.recv_many(batch, room) => {
                if n == 0 {
                    return false;
                }
            }
            () = tokio::time::sleep_until(until) => break,
        }
    }
    true
}

/// The most of a receiver's answer body read (and dropped) so that its connection is kept for
/// the next delivery; a longer body closes the connection instead.
const DRAIN_BODY: usize = 64 * 1024;

/// POSTs one job and describes what happened.
pub async fn deliver(http: &reqwest::Client, job: &pb::Job) -> pb::JobReport {
    let mut report = pb::JobReport {
        delivery_id: job.delivery_id.clone(),
        lease_token: job.lease_token.clone(),
        http_status: None,
        error: None,
        duration_ms: None,
    };
    let started = std::time::Instant::now();
    if !job.allow_private_targets
        && let Err(err) = check_literal(&job.url)
    {
        report.error = Some(err);
        return report;
    }
    let mut request = http
        .post(&job.url)
        .timeout(Duration::from_millis(u64::from(job.timeout_ms.max(1))))
        .body(job.body.clone());
    for header in &job.headers {
        request = request.header(&header.name, &header.value);
    }
    match request.send().await {
        Ok(mut response) => {
            report.http_status = Some(u32::from(response.status().as_u16()));
            // Read a short answer to its end: only then does the connection go back to the
            // pool for the endpoint's next delivery (the request's timeout bounds this too).
            let mut read = 0;
            while read <= DRAIN_BODY {
                match response.chunk().await {
                    Ok(Some(chunk)) => read += chunk.len(),
                    _ => break,
                }
            }
        }
        Err(err) if err.is_timeout() => report.error = Some("timeout".to_string()),
        Err(err) => report.error = Some(describe(&err)),
    }
    report.duration_ms = Some(started.elapsed().as_millis().min(u128::from(u32::MAX)) as u32);
    report
}

fn describe(err: &reqwest::Error) -> String {
    let mut text = String::from(if err.is_connect() {
        "connection failed"
    } else {
        "request failed"
    });
    let mut source = std::error::Error::source(err);
    while let Some(cause) = source {
        let cause_text = cause.to_string();
        if cause_text.contains(guard::BLOCKED) {
            return cause_text;
        }
        source = cause.source();
        if source.is_none() {
            text = format!("{text}: {cause_text}");
        }
    }
    text
}

/// Runs a worker until `cancel` fires.
pub async fn run_until_stopped(
    config: WorkerConfig,
    cancel: CancellationToken,
) -> anyhow::Result<()> {
    Worker::new(config).run_until_stopped(cancel).await
}

#[cfg(test)]
mod tests {
    use super::*;

    fn report(n: u32) -> pb::JobReport {
        pb::JobReport {
            http_status: Some(n),
            ..Default::default()
        }
    }

    #[tokio::test(start_paused = true)]
    async fn a_report_waits_for_those_that_come_within_the_linger() {
        let (tx, mut rx) = mpsc::unbounded_channel();
        tx.send(report(1)).unwrap();
        let late = tx.clone();
        tokio::spawn(async move {
            tokio::time::sleep(REPORT_LINGER / 4).await;
            late.send(report(2)).unwrap();
            tokio::time::sleep(REPORT_LINGER).await;
            late.send(report(3)).unwrap();
        });
        let mut batch = Vec::new();
        let started = tokio::time::Instant::now();
        assert!(linger(&mut rx, &mut batch).await);
        assert_eq!(
            started.elapsed(),
            REPORT_LINGER,
            "the whole linger, no longer"
        );
        let statuses: Vec<_> = batch.iter().map(|r| r.http_status).collect();
        assert_eq!(statuses, vec![Some(1), Some(2)], "the third came after it");
        assert_eq!(rx.recv().await.unwrap().http_status, Some(3));
    }

    #[tokio::test(start_paused = true)]
    async fn a_full_batch_or_a_closed_queue_ends_the_linger_at_once() {
        let (tx, mut rx) = mpsc::unbounded_channel();
        for n in 0..PIPELINE_AT as u32 + 1 {
            tx.send(report(n)).unwrap();
        }
        let mut batch = Vec::new();
        let started = tokio::time::Instant::now();
        assert!(linger(&mut rx, &mut batch).await);
        assert_eq!(batch.len(), PIPELINE_AT);
        assert_eq!(started.elapsed(), Duration::ZERO);

        drop(tx);
        let mut rest = Vec::new();
        assert!(!linger(&mut rx, &mut rest).await, "the stream is over");
        assert_eq!(rest.len(), 1);
        assert_eq!(started.elapsed(), Duration::ZERO);
    }

    #[test]
    fn a_stream_after_the_first_names_the_jobs_still_held() {
        let held = HeldJobs::default();
        assert_eq!(
            held.for_request(),
            (false, vec![]),
            "the first stream resumes nothing"
        );
        held.opened();
        assert_eq!(held.for_request(), (true, vec![]));
        for id in ["c", "a", "b"] {
            held.received(id);
        }
        held.done(["b", "unknown"]);
        assert_eq!(
            held.for_request(),
            (true, vec!["a".to_string(), "c".to_string()])
        );
        held.done(["a", "c"]);
        assert_eq!(held.for_request(), (true, vec![]));
    }

    #[test]
    fn a_worker_holding_more_than_a_stream_can_name_resumes_nothing() {
        let held = HeldJobs::default();
        held.opened();
        for i in 0..=proto::MAX_HELD_JOBS {
            held.received(&i.to_string());
        }
        assert_eq!(
            held.for_request(),
            (false, vec![]),
            "nothing it holds is given back"
        );
    }
}
