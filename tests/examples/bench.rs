//! The send pipeline benchmark: the whole stack in one process (gateway, core, dispatcher and a
//! webhook worker, as the all-in-one runs them) on SQLite or PostgreSQL, a loopback webhook
//! receiver that records when each `message.sent` arrives, a live business with followers and
//! N endpoints, and HTTP load with unique Idempotency-Keys:
//!
//! - closed loop: C connections sending back to back for D seconds;
//! - fixed rate: R sends per second for D seconds (latency counted from each send's scheduled
//!   time, so a stall is not hidden);
//! - baseline: the machine's limit for a minimal accept transaction (4 indexed reads, 3 inserts,
//!   one commit) driven at the same concurrency straight through sqlx, on the same database.
//!
//! It prints accepted sends/s, accept latency, send-to-webhook latency, deliveries/s during and
//! after the load, the drain time, the process's RSS, SQL statements per message, the CPU time
//! per accepted send (`cpu_us_per_send stack=... database=...`) and, on PostgreSQL, commits per
//! message. The `reads` phase (`bench/reads.rs`) times the audience and usage reads on a large
//! demo audience and a seeded history:
//!
//!     bench --db postgres --phases reads --audience 100000 --seed-messages 1000000
//!
//! The `scheduled` phase (`bench/scheduled.rs`) hands out a backlog due at once beside single
//! sends; the `broadcast` phase (`bench/broadcast.rs`) broadcasts to a demo audience beside
//! another business's sends:
//!
//!     bench --db postgres --phases closed,broadcast --audience 100000
//!
//! The `erasure` phase (`bench/erasure.rs`) erases a user with a long history alone, then
//! beside closed loops of sends:
//!
//!     bench --db postgres --external --phases erasure
//!
//!     cargo run --release -p e2e-tests --example bench -- --help
#![allow(dead_code)]

#[path = "bench/broadcast.rs"]
mod broadcast;
#[path = "bench/conversations.rs"]
mod conversations;
#[path = "bench/erasure.rs"]
mod erasure;
#[path = "bench/external.rs"]
mod external;
#[path = "../e2e/fixtures/mod.rs"]
mod fixtures;
#[path = "../e2e/harness/mod.rs"]
mod harness;
#[path = "bench/reads.rs"]
mod reads;
#[path = "bench/scheduled.rs"]
mod scheduled;

use std::collections::{HashMap, HashSet};
use std::sync::atomic::Ordering;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use axum::body::Bytes;
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode};
use clap::Parser;
use sea_orm::ConnectionTrait;
use serde_json::json;

use fixtures::{ALL_SCOPES, Business, follower, live_business};
use harness::{Backend, Options, TestApp};

#[derive(Debug, Parser)]
#[command(about = "Send pipeline benchmark: accept rate, latencies and webhook delivery")]
struct Args {
    /// `sqlite` (a fresh file) or `postgres` (a fresh database on TEST_DATABASE_URL).
    #[arg(long, default_value = "sqlite")]
    db: String,
    /// Closed-loop connections.
    #[arg(long, default_value_t = 32)]
    connections: usize,
    /// Seconds of load per phase.
    #[arg(long, default_value_t = 15)]
    duration: u64,
    /// Sends per second of the fixed-rate phase.
    #[arg(long, default_value_t = 500)]
    rate: u32,
    /// Webhook endpoints subscribed to `message.sent` (each event goes to every one).
    #[arg(long, default_value_t = 1)]
    endpoints: usize,
    /// Followers the sends rotate over.
    #[arg(long, default_value_t = 10)]
    followers: usize,
    /// Phases to run, in order: closed, templated (the closed loop sending a two-locale template,
    /// half the followers reading the second locale), rate, baseline, reads (the audience and usage reads on a
    /// demo business of `--audience` followers, every fifth unfollowed, and `--seed-messages`),
    /// scheduled (`--scheduled` messages due in one second, single sends at `--rate` around it),
    /// broadcast (a utility and a marketing broadcast to a demo business of `--audience`
    /// followers, another business's authentication sends at `--auth-rate` around the first),
    /// inbound (`--inbound-users` followers writing to one business in a closed loop, then the
    /// reply round trip at `--rtt-rate`), conversations (the conversation reads after seeding
    /// `--seed-conversations` conversations and `--seed-inbound` user messages), erasure (a
    /// user of `--erasure-messages` over `--erasure-businesses` erased alone, then
    /// `--erasure-pairs` closed loops without and with an erasure running).
    #[arg(long, value_delimiter = ',', default_value = "closed,rate,baseline")]
    phases: Vec<String>,
    /// Messages of the erasure phase's user (each delivered, with its inbox copy).
    #[arg(long, default_value_t = 100_000)]
    erasure_messages: u64,
    /// Businesses the erasure phase's user follows, their messages spread over them.
    #[arg(long, default_value_t = 10)]
    erasure_businesses: u32,
    /// Pairs of closed loops, without and with an erasure running, of the erasure phase.
    #[arg(long, default_value_t = 5)]
    erasure_pairs: usize,
    /// Followers of the inbound phase's business, each writing to it in turn.
    #[arg(long, default_value_t = 10_000)]
    inbound_users: u32,
    /// Conversations per second of the inbound phase's reply round trip.
    #[arg(long, default_value_t = 200)]
    rtt_rate: u32,
    /// Conversations the conversations phase seeds (one per follower of `--audience`).
    #[arg(long, default_value_t = 100_000)]
    seed_conversations: u32,
    /// User messages the conversations phase seeds over them.
    #[arg(long, default_value_t = 1_000_000)]
    seed_inbound: u64,
    /// Followers of the reads phase's demo business (`admin demo --followers N`).
    #[arg(long, default_value_t = 100_000)]
    audience: u32,
    /// Messages (with outcomes and webhook deliveries) the reads phase seeds over 90 days.
    #[arg(long, default_value_t = 0)]
    seed_messages: u64,
    /// Requests per second of each read.
    #[arg(long, default_value_t = 200)]
    read_rate: u32,
    /// Connections the reads are spread over.
    #[arg(long, default_value_t = 20)]
    read_connections: usize,
    /// Seconds of each read.
    #[arg(long, default_value_t = 10)]
    read_duration: u64,
    /// The core's PostgreSQL pool size (DATABASE_MAX_CONNECTIONS).
    #[arg(long, default_value_t = 10)]
    pool: u32,
    /// Messages of the scheduled phase, all due in the same second.
    #[arg(long, default_value_t = 10_000)]
    scheduled: usize,
    /// Seconds ahead the scheduled phase's messages are due (time to accept them all first).
    #[arg(long, default_value_t = 30)]
    lead: u64,
    /// Authentication sends per second of the bench's business during the broadcast phase.
    #[arg(long, default_value_t = 50)]
    auth_rate: u32,
    /// Seconds of closed-loop sends before the first phase of each topology, after which the
    /// database's statistics are gathered (`ANALYZE`), as a running deployment has them (the
    /// inbound phase warms up the same way with its own load); 0 to measure a fresh database's
    /// first seconds instead.
    #[arg(long, default_value_t = 5)]
    warmup: u64,
    /// Seconds to wait for the webhook backlog to drain after a phase.
    #[arg(long, default_value_t = 120)]
    drain_timeout: u64,
    /// Deployments to run the phases on, in order: `all-in-one` (the stack in this process, as
    /// the all-in-one binary runs it) and `split` (two gateways, `--cores` cores and `--workers`
    /// workers as separate processes of the release binaries, each with `RUNTIME_THREADS=1`
    /// unless `--stack-env` sets it, PostgreSQL only; the phases closed, rate and baseline).
    #[arg(long, value_delimiter = ',', default_value = "all-in-one")]
    topology: Vec<String>,
    /// Where the release binaries of `--external` and the split topology are (default: beside
    /// the examples).
    #[arg(long)]
    bin_dir: Option<std::path::PathBuf>,
    /// The stack as users run it: the all-in-one topology as the all-in-one release binary in a
    /// process of its own, and the webhook receiver as another process (the load generator
    /// stays in this one); CPU per send then counts the stack's processes and the database
    /// only.
    #[arg(long)]
    external: bool,
    /// Webhook workers of the split topology.
    #[arg(long, default_value_t = 2)]
    workers: usize,
    /// Cores of the split topology (every gateway and worker lists them all in `CORE_URL`);
    /// 1 measures the processes' cost apart from the cores' smaller batches.
    #[arg(long, default_value_t = 2)]
    cores: usize,
    /// `KEY=VALUE` given to every process of an external stack (for example
    /// `WORKER_CONCURRENCY=128`); repeatable.
    #[arg(long, value_parser = parse_env)]
    stack_env: Vec<(String, String)>,
    /// Milliseconds the external receiver waits before each answer (a receiver's latency).
    #[arg(long, default_value_t = 0)]
    receiver_delay_ms: u64,
    /// Internal: serve the external receiver on this address and exit when killed.
    #[arg(long, hide = true)]
    serve_receiver: Option<String>,
    /// Internal: where the external receiver writes its arrivals.
    #[arg(long, hide = true)]
    receiver_log: Option<std::path::PathBuf>,
}

fn parse_env(value: &str) -> Result<(String, String), String> {
    value
        .split_once('=')
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .filter(|(k, _)| !k.is_empty())
        .ok_or_else(|| format!("{value}: expected KEY=VALUE"))
}

/// Every `message.sent` delivery that reached the receiver: message id and arrival.
#[derive(Default)]
struct Arrivals {
    seen: Mutex<HashSet<String>>,
    log: Mutex<Vec<(String, Instant)>>,
    /// The message ids accepted sends were answered with, over every phase: an id given again
    /// is a replay of an earlier key, not a new send.
    accepted: Mutex<HashSet<String>>,
}

async fn receive(
    State(arrivals): State<Arc<Arrivals>>,
    headers: HeaderMap,
    body: Bytes,
) -> StatusCode {
    let at = Instant::now();
    let Some(id) = first_message_id(&arrivals.seen, &headers, &body) else {
        return StatusCode::OK;
    };
    arrivals.log.lock().unwrap().push((id, at));
    StatusCode::OK
}

/// The `message_send_id` of a delivery the receiver sees for the first time (deliveries are at
/// least once: a delivery id counts once), `None` for a repeat.
fn first_message_id(
    seen: &Mutex<HashSet<String>>,
    headers: &HeaderMap,
    body: &[u8],
) -> Option<String> {
    let delivery = headers
        .get("x-service-delivery")
        .and_then(|v| v.to_str().ok())
        .unwrap_or_default()
        .to_string();
    if !seen.lock().unwrap().insert(delivery) {
        return None;
    }
    Some(
        serde_json::from_slice::<serde_json::Value>(body)
            .ok()
            .and_then(|v| v["data"]["message_send_id"].as_str().map(str::to_string))
            .unwrap_or_default(),
    )
}

async fn start_receiver() -> (Arc<Arrivals>, String) {
    let arrivals = Arc::new(Arrivals::default());
    let app = axum::Router::new()
        .route("/hook/{n}", axum::routing::post(receive))
        .with_state(arrivals.clone());
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    tokio::spawn(async move { axum::serve(listener, app).await });
    (arrivals, base)
}

/// One accepted send: its id and when the answer came.
type Accepted = (String, Instant);

struct Load {
    /// The gateways: new connections go to each in turn.
    addrs: Vec<String>,
    next: std::sync::atomic::AtomicUsize,
    path: String,
    token: String,
    bodies: Vec<Bytes>,
}

/// One keep-alive HTTP/1.1 connection to a gateway (a wrk-like client: no pool, no
/// redirects, no per-request timers).
struct Connection {
    sender: hyper::client::conn::http1::SendRequest<http_body_util::Full<Bytes>>,
    addr: String,
}

impl Load {
    fn new(addrs: Vec<String>, path: String, token: String, bodies: Vec<Bytes>) -> Load {
        Load {
            addrs,
            next: std::sync::atomic::AtomicUsize::new(0),
            path,
            token,
            bodies,
        }
    }

    /// The same load (gateways, path, token) with other bodies.
    fn with_bodies(&self, bodies: Vec<Bytes>) -> Load {
        Load::new(
            self.addrs.clone(),
            self.path.clone(),
            self.token.clone(),
            bodies,
        )
    }

    async fn connect(&self) -> Connection {
        let n = self.next.fetch_add(1, Ordering::Relaxed);
        let addr = self.addrs[n % self.addrs.len()].clone();
        let stream = tokio::net::TcpStream::connect(&addr).await.unwrap();
        stream.set_nodelay(true).unwrap();
        let (sender, connection) =
            hyper::client::conn::http1::handshake(hyper_util::rt::TokioIo::new(stream))
                .await
                .unwrap();
        tokio::spawn(connection);
        Connection { sender, addr }
    }

    /// Sends one message on `connection`; returns the id when accepted.
    async fn send(&self, connection: &mut Connection, key: &str, n: usize) -> Option<String> {
        use http_body_util::BodyExt;
        if connection.sender.ready().await.is_err() {
            // The gateway closed an idle keep-alive connection (HEADER_READ_TIMEOUT_SECS), as
            // servers do: a client opens a new one.
            *connection = self.connect().await;
            connection.sender.ready().await.ok()?;
        }
        let request = hyper::Request::post(&self.path)
            .header("host", &connection.addr)
            .header("authorization", &self.token)
            .header("idempotency-key", key)
            .header("content-type", "application/json")
            .body(http_body_util::Full::new(
                self.bodies[n % self.bodies.len()].clone(),
            ))
            .ok()?;
        let response = match connection.sender.send_request(request).await {
            Ok(response) => response,
            Err(err) => {
                eprintln!("send failed: {err}");
                return None;
            }
        };
        let status = response.status();
        let body = response.into_body().collect().await.ok()?.to_bytes();
        if status != 200 {
            eprintln!("send refused: {status} {}", String::from_utf8_lossy(&body));
            return None;
        }
        let body: serde_json::Value = serde_json::from_slice(&body).ok()?;
        body["data"]["id"].as_str().map(str::to_string)
    }
}

/// The bench's two-locale template (made once; a second topology finds it made), half the
/// followers set to read its second locale, and a templated send body per follower.
async fn templated_bodies(app: &TestApp, biz: &Business, phones: &[String]) -> Vec<Bytes> {
    let made = app
        .post(
            "/business/templates",
            Some(&biz.owner_token),
            bench_template(),
        )
        .await;
    assert!(
        made.status == 201 || made.message() == "template_name_taken",
        "{:?}",
        made.body
    );
    set_language(app, phones.iter().step_by(2), "pt-BR").await;
    phones
        .iter()
        .enumerate()
        .map(|(i, to)| {
            Bytes::from(
                json!({ "to": to, "category": "utility", "template": {
                    "name": "bench_notice", "variables": { "order": format!("A-{i}") },
                } })
                .to_string(),
            )
        })
        .collect()
}

/// A utility template of two locales and one variable.
fn bench_template() -> serde_json::Value {
    json!({
        "name": "bench_notice",
        "category": "utility",
        "variables": { "order": { "max_length": 20 } },
        "variants": {
            "en": { "body": "Order {{order}} has shipped." },
            "pt-BR": { "body": "O pedido {{order}} foi enviado." },
        },
        "default_locale": "en",
    })
}

/// Sets the language of the users with `phones`, as their own `PATCH /me` would.
async fn set_language<'a>(app: &TestApp, phones: impl Iterator<Item = &'a String>, language: &str) {
    use core_service::entities::users;
    use sea_orm::{ColumnTrait, EntityTrait, QueryFilter, sea_query::Expr};
    let phones: Vec<String> = phones.cloned().collect();
    users::Entity::update_many()
        .col_expr(users::Column::Language, Expr::value(language))
        .filter(users::Column::PhoneNumber.is_in(phones))
        .exec(&app.core.db)
        .await
        .unwrap();
}

struct PhaseResult {
    accepted: Vec<Accepted>,
    /// For the fixed rate: each accepted send's index in the load (its scheduled time).
    keys: HashMap<String, usize>,
    refused: usize,
    latencies: Vec<Duration>,
    started: Instant,
    ended: Instant,
}

async fn closed_loop(
    load: Arc<Load>,
    connections: usize,
    duration: Duration,
    tag: &str,
) -> PhaseResult {
    let started = Instant::now();
    let end = started + duration;
    let tasks: Vec<_> = (0..connections)
        .map(|c| {
            let load = load.clone();
            let tag = tag.to_string();
            tokio::spawn(async move {
                let mut accepted = Vec::new();
                let mut latencies = Vec::new();
                let mut refused = 0;
                let mut i = 0usize;
                let mut connection = load.connect().await;
                while Instant::now() < end {
                    let t = Instant::now();
                    let key = format!("{tag}-{c}-{i}");
                    match load.send(&mut connection, &key, c + i).await {
                        Some(id) => {
                            let done = Instant::now();
                            latencies.push(done - t);
                            accepted.push((id, done));
                        }
                        None => {
                            refused += 1;
                            connection = load.connect().await;
                        }
                    }
                    i += 1;
                }
                (accepted, latencies, refused)
            })
        })
        .collect();
    let mut result = PhaseResult {
        accepted: Vec::new(),
        keys: HashMap::new(),
        refused: 0,
        latencies: Vec::new(),
        started,
        ended: started,
    };
    for task in tasks {
        let (accepted, latencies, refused) = task.await.unwrap();
        result.accepted.extend(accepted);
        result.latencies.extend(latencies);
        result.refused += refused;
    }
    result.ended = Instant::now();
    result
}

async fn fixed_rate(load: Arc<Load>, rate: u32, duration: Duration, tag: &str) -> PhaseResult {
    let started = Instant::now();
    let total = (u64::from(rate) * duration.as_secs()) as usize;
    let interval = Duration::from_secs_f64(1.0 / f64::from(rate.max(1)));
    let results = Arc::new(Mutex::new((Vec::new(), Vec::new(), 0usize, HashMap::new())));
    // Idle keep-alive connections, opened as the rate needs them.
    let connections: Arc<Mutex<Vec<Connection>>> = Arc::new(Mutex::new(Vec::new()));
    let mut tasks = Vec::with_capacity(total);
    for i in 0..total {
        let scheduled = started + interval * i as u32;
        tokio::time::sleep_until(scheduled.into()).await;
        let load = load.clone();
        let results = results.clone();
        let key = format!("{tag}-{i}");
        let connections = connections.clone();
        tasks.push(tokio::spawn(async move {
            let connection = connections.lock().unwrap().pop();
            let mut connection = match connection {
                Some(c) => c,
                None => load.connect().await,
            };
            let sent = load.send(&mut connection, &key, i).await;
            if sent.is_some() {
                connections.lock().unwrap().push(connection);
            }
            let done = Instant::now();
            let mut results = results.lock().unwrap();
            match sent {
                Some(id) => {
                    results.1.push(done - scheduled);
                    results.3.insert(id.clone(), i);
                    results.0.push((id, done));
                }
                None => results.2 += 1,
            }
        }));
    }
    for task in tasks {
        task.await.unwrap();
    }
    let ended = Instant::now();
    let (accepted, latencies, refused, keys) = std::mem::take(&mut *results.lock().unwrap());
    PhaseResult {
        accepted,
        keys,
        refused,
        latencies,
        started,
        ended,
    }
}

fn percentile(sorted: &[Duration], p: f64) -> f64 {
    if sorted.is_empty() {
        return f64::NAN;
    }
    let index = ((sorted.len() as f64 - 1.0) * p).round() as usize;
    sorted[index].as_secs_f64() * 1e3
}

fn rss_mb() -> f64 {
    rss_mb_of("self")
}

/// Resident memory of process `pid` (`self` for this one), in MB.
fn rss_mb_of(pid: &str) -> f64 {
    std::fs::read_to_string(format!("/proc/{pid}/status"))
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("VmRSS:"))
                .and_then(|l| l.split_whitespace().nth(1))
                .and_then(|kb| kb.parse::<f64>().ok())
        })
        .map_or(f64::NAN, |kb| kb / 1024.0)
}

/// The kernel's clock ticks per second for `/proc/*/stat` times (USER_HZ, 100 on Linux).
const TICKS_PER_SEC: f64 = 100.0;

/// User + system CPU seconds of process `pid` (`self` for this one) from `/proc/<pid>/stat`,
/// threads included.
fn cpu_secs(pid: &str) -> Option<f64> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // The command name may hold spaces: the fields after it start behind the last ')'.
    let fields: Vec<&str> = stat.rsplit_once(')')?.1.split_whitespace().collect();
    let utime: f64 = fields.get(11)?.parse().ok()?;
    let stime: f64 = fields.get(12)?.parse().ok()?;
    Some((utime + stime) / TICKS_PER_SEC)
}

/// The whole machine's CPU time so far from `/proc/stat`, in ticks: (busy, stolen, all). Busy
/// is user, nice, system, irq and softirq; stolen is what the hypervisor gave to other guests;
/// all adds idle and iowait. `None` where `/proc/stat` cannot be read.
fn machine_ticks() -> Option<(f64, f64, f64)> {
    let stat = std::fs::read_to_string("/proc/stat").ok()?;
    let line = stat.lines().find(|l| l.starts_with("cpu "))?;
    let v: Vec<f64> = line
        .split_whitespace()
        .skip(1)
        .take(8)
        .map(|f| f.parse().ok())
        .collect::<Option<_>>()?;
    let [user, nice, system, idle, iowait, irq, softirq, steal] = v[..] else {
        return None;
    };
    let busy = user + nice + system + irq + softirq;
    Some((busy, steal, busy + steal + idle + iowait))
}

/// CPU seconds so far of every PostgreSQL backend serving this database, by pid (read from
/// `/proc`, so only for a server on this machine). `None` on SQLite, or when no backend's
/// `/proc` entry can be read.
async fn pg_backend_cpu(app: &TestApp) -> Option<HashMap<i32, f64>> {
    if app.core.db.get_database_backend() != sea_orm::DbBackend::Postgres {
        return None;
    }
    let rows = app
        .core
        .db
        .query_all_raw(sea_orm::Statement::from_string(
            sea_orm::DbBackend::Postgres,
            "SELECT pid FROM pg_stat_activity WHERE datname = current_database()",
        ))
        .await
        .ok()?;
    let cpu: HashMap<i32, f64> = rows
        .iter()
        .filter_map(|row| row.try_get::<i32>("", "pid").ok())
        .filter_map(|pid| Some((pid, cpu_secs(&pid.to_string())?)))
        .collect();
    (!cpu.is_empty()).then_some(cpu)
}

/// CPU time at a phase's start: this process's, an external stack's processes' by role, the
/// external receiver's, and the database backends'.
struct CpuMark {
    bench: Option<f64>,
    processes: std::collections::BTreeMap<&'static str, f64>,
    receiver: Option<f64>,
    database: Option<HashMap<i32, f64>>,
    machine: Option<(f64, f64, f64)>,
}

/// CPU seconds spent during a phase.
struct CpuSpent {
    /// The stack's: its processes' when external, else this process's (load generator and
    /// receiver included).
    stack: Option<f64>,
    database: Option<f64>,
    /// By role, for an external stack.
    roles: Vec<(&'static str, f64)>,
    /// This process (load generator, and the receiver unless external).
    bench: Option<f64>,
    receiver: Option<f64>,
    /// The machine's busy and stolen shares of its CPU time (every CPU, this process and all
    /// others): a closed loop near 100% busy is limited by CPU, so its rate follows CPU per send.
    machine: Option<(f64, f64)>,
}

impl CpuMark {
    async fn now(
        app: &TestApp,
        external: Option<&external::External>,
        receiver: Option<&external::Receiver>,
    ) -> Self {
        Self {
            bench: cpu_secs("self"),
            processes: external.map(external::External::cpu).unwrap_or_default(),
            receiver: receiver.map(external::Receiver::cpu_secs),
            database: pg_backend_cpu(app).await,
            machine: machine_ticks(),
        }
    }

    /// CPU seconds spent since `self` (a backend that connected during the phase counts whole;
    /// one that left during it is not seen).
    fn since(&self, end: &CpuMark) -> CpuSpent {
        let roles: Vec<(&'static str, f64)> = end
            .processes
            .iter()
            .map(|(role, e)| (*role, e - self.processes.get(role).copied().unwrap_or(0.0)))
            .collect();
        let bench = end.bench.zip(self.bench).map(|(e, s)| e - s);
        let stack = if roles.is_empty() {
            bench
        } else {
            Some(roles.iter().map(|(_, s)| s).sum())
        };
        let database = match (&self.database, &end.database) {
            (Some(start), Some(end)) => Some(
                end.iter()
                    .map(|(pid, e)| e - start.get(pid).copied().unwrap_or(0.0))
                    .sum(),
            ),
            _ => None,
        };
        CpuSpent {
            stack,
            database,
            roles,
            bench,
            receiver: end.receiver.zip(self.receiver).map(|(e, s)| e - s),
            machine: match (self.machine, end.machine) {
                (Some((b0, s0, a0)), Some((b1, s1, a1))) if a1 > a0 => {
                    Some(((b1 - b0) / (a1 - a0), (s1 - s0) / (a1 - a0)))
                }
                _ => None,
            },
        }
    }
}

/// Transactions committed (or rolled back) in this database so far, once the server's counters
/// have settled (backends flush their statistics lazily).
async fn pg_transactions(app: &TestApp) -> Option<i64> {
    if app.core.db.get_database_backend() != sea_orm::DbBackend::Postgres {
        return None;
    }
    let read = async || -> Option<i64> {
        let row = app
            .core
            .db
            .query_one_raw(sea_orm::Statement::from_string(
                sea_orm::DbBackend::Postgres,
                "SELECT (xact_commit + xact_rollback)::bigint AS n FROM pg_stat_database \
                 WHERE datname = current_database()",
            ))
            .await
            .ok()??;
        row.try_get::<i64>("", "n").ok()
    };
    let mut last = read().await?;
    for _ in 0..15 {
        tokio::time::sleep(Duration::from_secs(1)).await;
        let now = read().await?;
        if now - last <= 8 {
            return Some(now);
        }
        last = now;
    }
    Some(last)
}

/// Rows written and index or sequential scans so far, by table (PostgreSQL's
/// `pg_stat_user_tables`; read after `pg_transactions`, which waits for the counters to settle).
async fn pg_table_stats(app: &TestApp) -> HashMap<String, (i64, i64)> {
    if app.core.db.get_database_backend() != sea_orm::DbBackend::Postgres {
        return HashMap::new();
    }
    let rows = app
        .core
        .db
        .query_all_raw(sea_orm::Statement::from_string(
            sea_orm::DbBackend::Postgres,
            "SELECT relname::text AS t, (n_tup_ins + n_tup_upd + n_tup_del)::bigint AS w, \
             (COALESCE(idx_scan, 0) + COALESCE(seq_scan, 0))::bigint AS r FROM pg_stat_user_tables",
        ))
        .await
        .unwrap_or_default();
    rows.iter()
        .filter_map(|row| {
            Some((
                row.try_get::<String>("", "t").ok()?,
                (
                    row.try_get::<i64>("", "w").ok()?,
                    row.try_get::<i64>("", "r").ok()?,
                ),
            ))
        })
        .collect()
}

/// What a phase's figures are counted from: SQL statements, transactions, webhook arrivals,
/// CPU time, and table counters.
type Before = (
    u64,
    Option<i64>,
    usize,
    CpuMark,
    HashMap<String, (i64, i64)>,
);

/// SQL statements the core or cores ran so far.
async fn statements(stack: Option<&external::External>) -> u64 {
    match stack {
        Some(stack) => stack.statements().await,
        None => core_service::db::STATEMENTS.load(Ordering::Relaxed),
    }
}

/// Brings the stack and the database to a running deployment's state before anything is
/// measured: closed-loop sends for `--warmup` seconds, their webhooks delivered, then `ANALYZE`
/// (and on PostgreSQL a `CHECKPOINT`, when the bench's role may).
/// A fresh database has no statistics, and PostgreSQL keeps each connection's plans of a
/// prepared statement made while the tables were empty (sequential scans) until the tables are
/// analyzed, which autovacuum does about a minute after their first rows: without this the
/// first phase would measure that minute, not the service.
async fn warm_up(app: &TestApp, load: Arc<Load>, arrivals: &Arrivals, args: &Args, tag: &str) {
    let before = arrivals.log.lock().unwrap().len();
    let result = closed_loop(
        load,
        args.connections,
        Duration::from_secs(args.warmup),
        tag,
    )
    .await;
    let expected = result.accepted.len() * args.endpoints;
    let deadline = Instant::now() + Duration::from_secs(args.drain_timeout);
    while arrivals.log.lock().unwrap().len() - before < expected && Instant::now() < deadline {
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let settled = settle(app).await;
    println!(
        "\nwarm-up: {} sends in {} s, their webhooks delivered, then {settled}",
        result.accepted.len(),
        args.warmup,
    );
}

/// After a warm-up: `ANALYZE`, and on PostgreSQL a `CHECKPOINT` when the bench's role may
/// (every run's phases start just after one, so one that falls inside a phase, and the
/// full-page writes after it, does not make one run cost more than another). Says what ran.
pub async fn settle(app: &TestApp) -> &'static str {
    app.core
        .db
        .execute_unprepared("ANALYZE")
        .await
        .expect("ANALYZE after the warm-up");
    let checkpoint = app.core.db.get_database_backend() == sea_orm::DbBackend::Postgres
        && app.core.db.execute_unprepared("CHECKPOINT").await.is_ok();
    if checkpoint {
        "ANALYZE and CHECKPOINT"
    } else {
        "ANALYZE"
    }
}

async fn report(
    name: &str,
    app: &TestApp,
    args: &Args,
    arrivals: &Arrivals,
    (stack, receiver): (Option<&external::External>, Option<&external::Receiver>),
    before: Before,
    mut result: PhaseResult,
) -> f64 {
    let load_secs = (result.ended - result.started).as_secs_f64();
    let expected = result.accepted.len() * args.endpoints;
    let drain_deadline = result.ended + Duration::from_secs(args.drain_timeout);
    // CPU per send counts the drain too: delivering the webhooks is part of a send's cost.
    let drained = loop {
        let got = arrivals.log.lock().unwrap().len() - before.2;
        if got >= expected {
            break true;
        }
        if Instant::now() > drain_deadline {
            break false;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    };
    let log: Vec<(String, Instant)> = arrivals.log.lock().unwrap()[before.2..].to_vec();
    let last_arrival = log.iter().map(|(_, at)| *at).max().unwrap_or(result.ended);
    let drain = last_arrival.saturating_duration_since(result.ended);
    let during = log.iter().filter(|(_, at)| *at <= result.ended).count();
    let after = log.len() - during;
    let accepted_at: HashMap<&str, Instant> = result
        .accepted
        .iter()
        .map(|(id, at)| (id.as_str(), *at))
        .collect();
    let mut webhook: Vec<Duration> = log
        .iter()
        .filter_map(|(id, at)| {
            accepted_at
                .get(id.as_str())
                .map(|a| at.saturating_duration_since(*a))
        })
        .collect();
    webhook.sort();
    result.latencies.sort();
    let end_mark = CpuMark::now(app, stack, receiver).await;
    let spent = before.3.since(&end_mark);
    if stack.is_some() {
        // The cores publish db_statements_total every 5 s.
        tokio::time::sleep(Duration::from_secs(6)).await;
    }
    let statements = statements(stack).await.saturating_sub(before.0);
    let transactions = match before.1 {
        Some(start) => pg_transactions(app).await.map(|end| end - start),
        None => None,
    };
    let tables_after = pg_table_stats(app).await;
    let messages = result.accepted.len().max(1) as f64;

    let topology = stack.map_or_else(
        || "all-in-one, in the bench's process".to_string(),
        |s| s.describe(),
    );
    println!(
        "\n== {name} ({:?}, {topology}) ==",
        app.core.db.get_database_backend()
    );
    println!(
        "accepted: {} sends in {:.1} s = {:.0} sends/s (refused or failed: {})",
        result.accepted.len(),
        load_secs,
        result.accepted.len() as f64 / load_secs,
        result.refused
    );
    println!(
        "accept latency: p50 {:.1} ms, p99 {:.1} ms, max {:.1} ms",
        percentile(&result.latencies, 0.50),
        percentile(&result.latencies, 0.99),
        percentile(&result.latencies, 1.0)
    );
    println!(
        "send-to-webhook latency: p50 {:.1} ms, p99 {:.1} ms, max {:.1} ms",
        percentile(&webhook, 0.50),
        percentile(&webhook, 0.99),
        percentile(&webhook, 1.0)
    );
    let replayed = {
        let mut ids = arrivals.accepted.lock().unwrap();
        result
            .accepted
            .iter()
            .filter(|(id, _)| !ids.insert(id.clone()))
            .count()
    };
    if replayed > 0 {
        println!(
            "REPLAYED: {replayed} accepted sends were answered with an earlier send's message (a key used before): they wrote nothing and owe no webhook"
        );
    }
    println!(
        "webhook deliveries: {} of {} expected ({} endpoint(s)); {:.0}/s during the load, {} after it; drained {} {:.2} s after the load",
        log.len(),
        expected,
        args.endpoints,
        during as f64 / load_secs,
        after,
        if drained { "in" } else { "NOT within" },
        drain.as_secs_f64()
    );
    match stack {
        Some(stack) => println!(
            "RSS after the load: the stack's processes {:.0} MB (the bench's {:.0} MB)",
            stack.rss_mb(),
            rss_mb()
        ),
        None => println!("RSS after the load: {:.0} MB", rss_mb()),
    }
    println!(
        "SQL statements per message (the core's, BEGIN/COMMIT not counted): {:.2}",
        statements as f64 / messages
    );
    let per_send = |secs: Option<f64>| {
        secs.map_or_else(|| "-".to_string(), |s| format!("{:.0}", s * 1e6 / messages))
    };
    let stack_is = if stack.is_some() {
        "the stack's processes"
    } else {
        "this process with its load generator and receiver"
    };
    println!(
        "cpu_us_per_send stack={} database={} (user+system CPU per accepted send, drain included: {stack_is}; the PostgreSQL backends of this database)",
        per_send(spent.stack),
        per_send(spent.database)
    );
    if let Some((busy, stolen)) = spent.machine {
        println!(
            "machine: {:.0}% busy, {:.0}% stolen by the hypervisor ({} CPUs, every process, load and drain)",
            busy * 100.0,
            stolen * 100.0,
            std::thread::available_parallelism().map_or(0, |n| n.get())
        );
    }
    if !spent.roles.is_empty() {
        let mut line: Vec<String> = spent
            .roles
            .iter()
            .map(|(role, secs)| format!("{role} {}", per_send(Some(*secs))))
            .collect();
        match spent.receiver {
            Some(receiver) => {
                line.push(format!("bench (load generator) {}", per_send(spent.bench)));
                line.push(format!("receiver {}", per_send(Some(receiver))));
            }
            None => line.push(format!(
                "bench (load generator and receiver) {}",
                per_send(spent.bench)
            )),
        }
        println!("cpu_us_per_send by process: {}", line.join(", "));
    }
    if let Some(transactions) = transactions {
        println!(
            "commits per message (pg_stat_database): {:.2}; statements including BEGIN/COMMIT at most {:.2}",
            transactions as f64 / messages,
            (statements as f64 + 2.0 * transactions as f64) / messages
        );
        let mut tables: Vec<(String, f64, f64)> = tables_after
            .iter()
            .map(|(t, (w, r))| {
                let (w0, r0) = before.4.get(t).copied().unwrap_or((0, 0));
                (
                    t.clone(),
                    (w - w0) as f64 / messages,
                    (r - r0) as f64 / messages,
                )
            })
            .filter(|(_, w, r)| *w >= 0.05 || *r >= 0.05)
            .collect();
        tables.sort_by(|a, b| (b.1 + b.2).total_cmp(&(a.1 + a.2)));
        println!(
            "per message, rows written / scans by table (pg_stat_user_tables): {}",
            tables
                .iter()
                .take(8)
                .map(|(t, w, r)| format!("{t} {w:.2}/{r:.2}"))
                .collect::<Vec<_>>()
                .join(", ")
        );
    }
    result.accepted.len() as f64 / load_secs.max(1e-9)
}

macro_rules! minimal_accept {
    ($pool:expr, $c:expr, $i:expr, $ctx:expr) => {async {
        let (token_hash, business_id, phone) = $ctx;
        let mut tx = $pool.begin().await?;
        let app: (sqlx::types::Uuid,) =
            sqlx::query_as("SELECT business_id FROM developer_apps WHERE token_hash = $1")
                .bind(token_hash)
                .fetch_one(&mut *tx)
                .await?;
        let _: (String, String) =
            sqlx::query_as("SELECT status, mode FROM business_accounts WHERE id = $1")
                .bind(app.0)
                .fetch_one(&mut *tx)
                .await?;
        let user: (sqlx::types::Uuid,) =
            sqlx::query_as("SELECT id FROM users WHERE phone_number = $1")
                .bind(phone)
                .fetch_one(&mut *tx)
                .await?;
        let _: (String, bool) = sqlx::query_as(
            "SELECT status, marketing_opt_in FROM follows WHERE business_id = $1 AND user_id = $2",
        )
        .bind(business_id)
        .bind(user.0)
        .fetch_one(&mut *tx)
        .await?;
        let id = uuid::Uuid::now_v7().to_string();
        sqlx::query("INSERT INTO bench_keys (business_id, key, request_hash, message_id, expires_at_ms) VALUES ($1, $2, $3, $4, $5)")
            .bind(business_id.to_string())
            .bind(format!("baseline-{}-{}-{}", uuid::Uuid::new_v4().simple(), $c, $i))
            .bind("0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef")
            .bind(&id)
            .bind(0i64)
            .execute(&mut *tx)
            .await?;
        sqlx::query("INSERT INTO bench_messages (id, business_id, recipient_user_id, to_phone, category, body, status, created_at_ms) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)")
            .bind(&id)
            .bind(business_id.to_string())
            .bind(user.0.to_string())
            .bind(phone)
            .bind("utility")
            .bind("benchmark")
            .bind("accepted")
            .bind(0i64)
            .execute(&mut *tx)
            .await?;
        sqlx::query("INSERT INTO bench_outbox (message_id, due_at_ms) VALUES ($1, $2)")
            .bind(&id)
            .bind(0i64)
            .execute(&mut *tx)
            .await?;
        tx.commit().await?;
        Ok::<(), sqlx::Error>(())
    }.await};
}

/// The machine's limit: minimal accept transactions per second at the same concurrency.
async fn baseline(
    app: &TestApp,
    biz: &Business,
    phone: &str,
    connections: usize,
    duration: Duration,
) {
    for sql in [
        "CREATE TABLE IF NOT EXISTS bench_keys (business_id VARCHAR(64) NOT NULL, key VARCHAR(255) NOT NULL, request_hash VARCHAR(64) NOT NULL, message_id VARCHAR(64), expires_at_ms BIGINT NOT NULL, PRIMARY KEY (business_id, key))",
        "CREATE TABLE IF NOT EXISTS bench_messages (id VARCHAR(64) PRIMARY KEY, business_id VARCHAR(64) NOT NULL, recipient_user_id VARCHAR(64) NOT NULL, to_phone VARCHAR(20) NOT NULL, category VARCHAR(32) NOT NULL, body TEXT, status VARCHAR(16) NOT NULL, created_at_ms BIGINT NOT NULL)",
        "CREATE TABLE IF NOT EXISTS bench_outbox (message_id VARCHAR(64) PRIMARY KEY, due_at_ms BIGINT NOT NULL)",
    ] {
        app.core
            .db
            .execute_unprepared(sql)
            .await
            .expect("baseline tables");
    }
    let token = biz.app_token.clone();
    let token_hash = core_service::identity::tokens::hash_token(&token);
    let business_id: sqlx::types::Uuid = biz.id.parse().unwrap();
    let started = Instant::now();
    let end = started + duration;
    let backend = app.core.db.get_database_backend();
    let tasks: Vec<_> = (0..connections)
        .map(|c| {
            let db = app.core.db.clone();
            let token_hash = token_hash.clone();
            let phone = phone.to_string();
            tokio::spawn(async move {
                let mut done = 0usize;
                let mut latencies = Vec::new();
                let mut i = 0usize;
                while Instant::now() < end {
                    let t = Instant::now();
                    let ctx = (token_hash.as_str(), business_id, phone.as_str());
                    let result = match backend {
                        sea_orm::DbBackend::Postgres => {
                            let pool = db.get_postgres_connection_pool();
                            minimal_accept!(pool, c, i, ctx)
                        }
                        _ => {
                            let pool = db.get_sqlite_connection_pool();
                            minimal_accept!(pool, c, i, ctx)
                        }
                    };
                    match result {
                        Ok(()) => {
                            done += 1;
                            latencies.push(t.elapsed());
                        }
                        Err(err) => eprintln!("baseline transaction failed: {err}"),
                    }
                    i += 1;
                }
                (done, latencies)
            })
        })
        .collect();
    let mut done = 0;
    let mut latencies = Vec::new();
    for task in tasks {
        let (n, l) = task.await.unwrap();
        done += n;
        latencies.extend(l);
    }
    latencies.sort();
    let secs = started.elapsed().as_secs_f64();
    println!(
        "\n== baseline ({backend:?}): minimal accept transaction (4 indexed reads, 3 inserts, 1 commit), {connections} tasks straight through sqlx =="
    );
    println!(
        "{} transactions in {:.1} s = {:.0}/s; p50 {:.1} ms, p99 {:.1} ms",
        done,
        secs,
        done as f64 / secs,
        percentile(&latencies, 0.5),
        percentile(&latencies, 0.99)
    );
}

#[tokio::main]
async fn main() {
    let args = Args::parse();
    if let Some(addr) = &args.serve_receiver {
        let log = args.receiver_log.clone().expect("--receiver-log");
        external::serve_receiver(addr.clone(), log, args.receiver_delay_ms).await;
        return;
    }
    // Errors of the stack on stderr (RUST_LOG to see more).
    proto::telemetry::init_logging("error");
    // Record metrics as the binaries do, so their cost is in the figures.
    let _ = proto::metrics::handle();
    let backend = match args.db.as_str() {
        "postgres" | "pg" => Backend::Postgres,
        "sqlite" => Backend::Sqlite,
        other => panic!("--db takes sqlite or postgres, not {other}"),
    };
    let pool = args.pool;
    let options = Options {
        wall_clock: true,
        configure: Some(Arc::new(move |config: &mut core_service::CoreConfig| {
            // The benchmark measures the pipeline, not the limit.
            config.limits.business_sends_per_second = 1_000_000;
            config.database.database_max_connections = pool;
        })),
        ..Default::default()
    };
    let app = TestApp::spawn_with(backend, options)
        .await
        .expect("database reachable");
    let biz = live_business(&app, "+14155550100", ALL_SCOPES).await;
    let phones: Vec<String> = (0..args.followers.max(1))
        .map(|i| format!("+1415555{:04}", 2000 + i))
        .collect();
    for phone in &phones {
        follower(&app, &biz, phone, false).await;
    }
    let (arrivals, receiver, receiver_process) = if args.external {
        let arrivals = Arc::new(Arrivals::default());
        let process = external::Receiver::start(arrivals.clone(), args.receiver_delay_ms).await;
        (arrivals, process.base.clone(), Some(process))
    } else {
        assert_eq!(
            args.receiver_delay_ms, 0,
            "--receiver-delay-ms needs --external"
        );
        let (arrivals, base) = start_receiver().await;
        (arrivals, base, None)
    };
    for n in 0..args.endpoints {
        app.post(
            "/business/webhooks",
            Some(&biz.owner_token),
            json!({ "url": format!("{receiver}/hook/{n}"), "events": ["message.sent"] }),
        )
        .await
        .assert_ok(201);
    }
    let bodies: Vec<Bytes> = phones
        .iter()
        .map(|to| {
            Bytes::from(json!({ "to": to, "category": "utility", "body": "benchmark" }).to_string())
        })
        .collect();
    let load = Arc::new(Load::new(
        vec![app.base.trim_start_matches("http://").to_string()],
        format!("/v1/{}/messages", biz.id),
        format!("Bearer {}", biz.app_token),
        bodies.clone(),
    ));
    println!(
        "stack up: {:?}, {} followers, {} endpoint(s), {} connections, {} s per phase",
        backend, args.followers, args.endpoints, args.connections, args.duration
    );
    let duration = Duration::from_secs(args.duration);
    let mut closed_rate = None;
    // The closed-loop rate of each topology, for the split's ratio to the all-in-one.
    let mut closed_rates: Vec<(String, f64)> = Vec::new();
    // The templated phase's bodies, made with the template at its first run (a later run
    // reuses them: the owner's access token may have expired by then).
    let mut templated: Option<Vec<Bytes>> = None;
    let mut stack: Option<external::External> = None;
    let mut load = load;
    let mut app = app;
    let stack_env = external::StackEnv {
        database_url: app.config.database.database_url.clone(),
        pool,
        internal_token: app.config.internal_token.clone(),
        extra: args.stack_env.clone(),
        workers: args.workers,
        cores: args.cores,
    };
    let bin_dir = external::bin_dir(args.bin_dir.as_deref());
    for topology in &args.topology {
        let started = match topology.as_str() {
            "all-in-one" => {
                assert!(stack.is_none(), "--topology: all-in-one comes before split");
                if args.external {
                    Some(external::External::all_in_one(&bin_dir, &stack_env).await)
                } else {
                    None
                }
            }
            "split" => {
                assert_eq!(
                    backend,
                    Backend::Postgres,
                    "the split topology needs PostgreSQL (--db postgres)"
                );
                // The previous external stack goes first.
                drop(stack.take());
                Some(external::External::split(&bin_dir, &stack_env).await)
            }
            other => panic!("--topology takes all-in-one and split, not {other}"),
        };
        if let Some(started) = started {
            // The in-process core and worker stop: the stack's processes do all the work, and
            // the phases' HTTP and admin calls go to them.
            app.stop_workers();
            app.stop_core().await;
            app.base = format!("http://{}", started.gateways[0]);
            app.grpc_url = started.cores[0].clone();
            load = Arc::new(Load::new(
                started.gateways.clone(),
                load.path.clone(),
                load.token.clone(),
                load.bodies.clone(),
            ));
            println!(
                "\n{} up: gateways {}",
                started.describe(),
                started.gateways.join(", ")
            );
            // The cores publish db_statements_total every 5 s: let it settle first.
            tokio::time::sleep(Duration::from_secs(6)).await;
            stack = Some(started);
        }
        let stack = stack.as_ref();
        let receiver_process = receiver_process.as_ref();
        if args.warmup > 0 {
            warm_up(
                &app,
                load.clone(),
                &arrivals,
                &args,
                &format!("warmup-{topology}"),
            )
            .await;
        }
        for (index, phase) in args.phases.iter().enumerate() {
            // Each run of a phase sends with keys of its own: a phase named twice would
            // otherwise replay the first run's keys (each answered with the original message,
            // nothing written, no webhook owed).
            let tag = format!("{topology}-{index}");
            let statements = statements(stack).await;
            let transactions = pg_transactions(&app).await;
            let arrived = arrivals.log.lock().unwrap().len();
            let before = (
                statements,
                transactions,
                arrived,
                CpuMark::now(&app, stack, receiver_process).await,
                pg_table_stats(&app).await,
            );
            let phase_report = async |name: &str, before: Before, result: PhaseResult| {
                report(
                    name,
                    &app,
                    &args,
                    &arrivals,
                    (stack, receiver_process),
                    before,
                    result,
                )
                .await
            };
            match phase.as_str() {
                "closed" => {
                    let result = closed_loop(
                        load.clone(),
                        args.connections,
                        duration,
                        &format!("closed-{tag}"),
                    )
                    .await;
                    let name = format!("closed loop, {} connections", args.connections);
                    let rate = phase_report(&name, before, result).await;
                    closed_rate = Some(rate);
                    closed_rates.push((topology.clone(), rate));
                }
                "templated" => {
                    let bodies = match &templated {
                        Some(bodies) => bodies.clone(),
                        None => templated
                            .insert(templated_bodies(&app, &biz, &phones).await)
                            .clone(),
                    };
                    let result = closed_loop(
                        Arc::new(load.with_bodies(bodies)),
                        args.connections,
                        duration,
                        &format!("templated-{tag}"),
                    )
                    .await;
                    let name = format!("templated closed loop, {} connections", args.connections);
                    phase_report(&name, before, result).await;
                }
                "rate" => {
                    let result =
                        fixed_rate(load.clone(), args.rate, duration, &format!("rate-{tag}")).await;
                    let name = format!("fixed rate, {} sends/s", args.rate);
                    phase_report(&name, before, result).await;
                }
                "baseline" => baseline(&app, &biz, &phones[0], args.connections, duration).await,
                "reads" => {
                    let reads = reads::ReadArgs {
                        audience: args.audience,
                        seed_messages: args.seed_messages,
                        rate: args.read_rate,
                        connections: args.read_connections,
                        duration: Duration::from_secs(args.read_duration),
                        receiver: receiver.clone(),
                    };
                    reads::run(&app, &reads).await;
                }
                "scheduled" => {
                    let phase = scheduled::ScheduledArgs {
                        count: args.scheduled,
                        lead: Duration::from_secs(args.lead),
                        rate: args.rate,
                        duration,
                        connections: args.connections,
                    };
                    scheduled::run(&app, load.clone(), &phase).await;
                }
                "broadcast" => {
                    let auth = Arc::new(load.with_bodies(
                    phones
                        .iter()
                        .map(|to| {
                            Bytes::from(
                                json!({ "to": to, "category": "authentication", "message_content": {"code": "482913"} })
                                    .to_string(),
                            )
                        })
                        .collect(),
                ));
                    let phase = broadcast::BroadcastArgs {
                        audience: args.audience,
                        auth_rate: args.auth_rate,
                        closed_rate,
                        receiver: receiver.clone(),
                        drain_timeout: Duration::from_secs(args.drain_timeout.max(600)),
                        stack_pids: stack.map(external::External::pids).unwrap_or_default(),
                    };
                    broadcast::run(&app, auth, &arrivals, &phase).await;
                }
                "inbound" | "conversations" => {
                    let conv = conversations::ConversationArgs {
                        inbound_users: args.inbound_users,
                        connections: args.connections,
                        duration,
                        warmup: Duration::from_secs(args.warmup),
                        closed_rate,
                        rtt_rate: args.rtt_rate,
                        audience: args.audience,
                        seed_conversations: args.seed_conversations,
                        seed_inbound: args.seed_inbound,
                        reads: reads::ReadArgs {
                            audience: args.audience,
                            seed_messages: 0,
                            rate: args.read_rate,
                            connections: args.read_connections,
                            duration: Duration::from_secs(args.read_duration),
                            receiver: receiver.clone(),
                        },
                    };
                    if phase == "inbound" {
                        conversations::inbound(&app, &conv).await;
                    } else {
                        conversations::reads(&app, &conv).await;
                    }
                }
                "erasure" => {
                    let phase = erasure::ErasureArgs {
                        messages: args.erasure_messages,
                        businesses: args.erasure_businesses,
                        pairs: args.erasure_pairs,
                        connections: args.connections,
                        duration,
                    };
                    erasure::run(&app, load.clone(), &phase).await;
                }
                other => eprintln!("unknown phase {other}"),
            }
        }
    }
    // The stack's processes go before the database does.
    drop(stack);
    if let [(first, base), .., (last, rate)] = closed_rates.as_slice()
        && first != last
    {
        println!(
            "\nclosed loop: {last} {rate:.0} sends/s = {:.2}x {first} {base:.0} sends/s",
            rate / base
        );
    }
}
