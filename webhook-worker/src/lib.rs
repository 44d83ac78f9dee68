//! The webhook worker: stateless, holding no secret and no database connection. It pulls signed
//! jobs from a core's `WebhookJobService` stream, POSTs each one (never following redirects,
//! connecting only to public addresses unless the core allows private targets) and reports the
//! outcome. The core owns the retry policy and every state, so a worker can be stopped at any
//! moment: when its stream closes, the core gives its unreported jobs back (due at once), and
//! another worker gets them. With several cores in `CORE_URL` it holds one stream to any core
//! that answers and moves when that stream ends.

mod deliver;
pub mod guard;
mod report;
mod session;

pub use deliver::deliver;

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
}

/// The pauses after each failed report call before the next try (its length is the tries).
const REPORT_RETRIES: [Duration; 4] = [
    Duration::from_millis(100),
    Duration::from_millis(500),
    Duration::from_secs(2),
    Duration::ZERO,
];

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

/// Runs a worker until `cancel` fires.
pub async fn run_until_stopped(
    config: WorkerConfig,
    cancel: CancellationToken,
) -> anyhow::Result<()> {
    Worker::new(config).run_until_stopped(cancel).await
}
