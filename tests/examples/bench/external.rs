//! The stack as users run it, in processes of its own (`--external`, and `--topology split`):
//!
//! - `all-in-one`: the all-in-one release binary (core, gateway and worker in one process);
//! - `split`: two gateways, `--cores` cores and `--workers` webhook workers as separate processes,
//!   every gateway and worker listing every core in `CORE_URL`;
//!
//! each on the benchmark's database with its metrics served (as shipped), and the webhook
//! receiver as a process of the bench's own binary (`Receiver`) that answers 204 and writes each
//! `message_send_id` with its arrival time to a file the bench reads. CPU is read per process
//! from `/proc`, SQL statements from the cores' `db_statements_total`.

use std::collections::BTreeMap;
use std::io::{BufRead, Seek};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::Arc;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use crate::Arrivals;
use crate::harness::{JWT_SECRET, MASTER_KEY};

pub struct Process {
    pub role: &'static str,
    child: Child,
    metrics: Option<String>,
    /// Runs a core (serves `db_statements_total`).
    core: bool,
}

/// The stack's processes; killed when dropped.
pub struct External {
    pub processes: Vec<Process>,
    /// The gateways' `host:port`: the load is spread over them.
    pub gateways: Vec<String>,
    /// The cores' gRPC URLs.
    pub cores: Vec<String>,
    /// The processes' `RUNTIME_THREADS`, when set (each is started with it).
    pub runtime_threads: Option<String>,
}

/// `RUNTIME_THREADS` of each process of the split topology, unless `--stack-env` sets it.
pub const SPLIT_RUNTIME_THREADS: &str = "1";

/// What every stack process is started with beyond its addresses.
pub struct StackEnv {
    pub database_url: String,
    pub pool: u32,
    pub internal_token: Option<String>,
    /// `--stack-env KEY=VALUE`: given to every process of the stack.
    pub extra: Vec<(String, String)>,
    /// Webhook workers of the split topology.
    pub workers: usize,
    /// Cores of the split topology.
    pub cores: usize,
}

/// A port nothing listens on now, never one this process handed out before: the kernel may
/// give a just-released ephemeral port again, and two processes of a stack must not be told
/// the same one.
fn free_port() -> u16 {
    static GIVEN: std::sync::Mutex<Vec<u16>> = std::sync::Mutex::new(Vec::new());
    let mut given = GIVEN.lock().unwrap();
    loop {
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        if !given.contains(&port) {
            given.push(port);
            return port;
        }
    }
}

/// Where the release binaries are: beside the examples' folder (`target/release`), unless
/// given.
pub fn bin_dir(given: Option<&Path>) -> PathBuf {
    if let Some(dir) = given {
        return dir.to_path_buf();
    }
    let exe = std::env::current_exe().expect("the benchmark's path");
    exe.parent()
        .and_then(Path::parent)
        .expect("target/<profile>/examples")
        .to_path_buf()
}

fn require(bin_dir: &Path, bins: &[&str]) {
    for bin in bins {
        assert!(
            bin_dir.join(bin).exists(),
            "{} is missing: build the binaries first (cargo build --release -p core-service -p rest-gateway -p webhook-worker)",
            bin_dir.join(bin).display()
        );
    }
}

/// The settings a core reads, as the benchmark runs it.
fn core_env(env: &StackEnv, grpc_port: u16) -> Vec<(String, String)> {
    let mut vars = vec![
        ("DATABASE_URL".into(), env.database_url.clone()),
        ("DATABASE_MAX_CONNECTIONS".into(), env.pool.to_string()),
        ("GRPC_ADDR".into(), format!("127.0.0.1:{grpc_port}")),
        ("JWT_SECRET".into(), JWT_SECRET.to_string()),
        ("MASTER_KEY".into(), MASTER_KEY.to_string()),
        ("WEBHOOK_ALLOW_INSECURE".into(), "true".into()),
        // The benchmark measures the pipeline, not the limit.
        ("BUSINESS_SENDS_PER_SECOND".into(), "1000000".into()),
    ];
    if let Some(token) = &env.internal_token {
        vars.push(("INTERNAL_TOKEN".into(), token.clone()));
    }
    vars
}

impl StackEnv {
    /// `RUNTIME_THREADS` as `--stack-env` sets it.
    fn runtime_threads(&self) -> Option<String> {
        self.extra
            .iter()
            .rev()
            .find(|(k, _)| k == "RUNTIME_THREADS")
            .map(|(_, v)| v.clone())
    }
}

impl External {
    fn spawn(
        &mut self,
        bin_dir: &Path,
        role: &'static str,
        bin: &str,
        core: bool,
        mut vars: Vec<(String, String)>,
        env: &StackEnv,
    ) {
        let metrics_port = free_port();
        vars.push(("METRICS_ADDR".into(), format!("127.0.0.1:{metrics_port}")));
        if !core && let Some(token) = &env.internal_token {
            vars.push(("INTERNAL_TOKEN".into(), token.clone()));
        }
        if let Some(threads) = &self.runtime_threads {
            vars.push(("RUNTIME_THREADS".into(), threads.clone()));
        }
        let mut command = Command::new(bin_dir.join(bin));
        command
            .env_clear()
            .env("PATH", std::env::var("PATH").unwrap_or_default())
            .env("RUST_LOG", "error")
            .stdout(Stdio::null())
            .stderr(Stdio::inherit())
            .envs(vars)
            .envs(env.extra.iter().cloned());
        self.processes.push(Process {
            role,
            child: command.spawn().expect("a binary starts"),
            metrics: Some(format!("127.0.0.1:{metrics_port}")),
            core,
        });
    }

    /// The all-in-one binary on `env.database_url`; waits until its gateway is ready.
    pub async fn all_in_one(bin_dir: &Path, env: &StackEnv) -> External {
        require(bin_dir, &["all-in-one"]);
        let (grpc, http) = (free_port(), free_port());
        let mut stack = External {
            processes: Vec::new(),
            gateways: vec![format!("127.0.0.1:{http}")],
            cores: vec![format!("http://127.0.0.1:{grpc}")],
            runtime_threads: env.runtime_threads(),
        };
        let mut vars = core_env(env, grpc);
        vars.push(("HTTP_ADDR".into(), format!("127.0.0.1:{http}")));
        stack.spawn(bin_dir, "all-in-one", "all-in-one", true, vars, env);
        stack.wait_ready().await;
        stack
    }

    /// `env.cores` cores, two gateways and `env.workers` workers on `env.database_url`; waits
    /// until both gateways are ready.
    pub async fn split(bin_dir: &Path, env: &StackEnv) -> External {
        require(bin_dir, &["core-service", "rest-gateway", "webhook-worker"]);
        let grpc: Vec<u16> = (0..env.cores.max(1)).map(|_| free_port()).collect();
        let cores: Vec<String> = grpc
            .iter()
            .map(|p| format!("http://127.0.0.1:{p}"))
            .collect();
        let core_url = cores.join(",");
        let mut stack = External {
            processes: Vec::new(),
            gateways: Vec::new(),
            cores,
            // Six processes share the machine's CPUs: each gets one runtime thread, as an
            // operator would size them (core-service/README.md, Several cores), unless `--stack-env` says.
            runtime_threads: Some(
                env.runtime_threads()
                    .unwrap_or_else(|| SPLIT_RUNTIME_THREADS.into()),
            ),
        };
        for port in &grpc {
            stack.spawn(
                bin_dir,
                "cores",
                "core-service",
                true,
                core_env(env, *port),
                env,
            );
        }
        for _ in 0..2 {
            let port = free_port();
            stack.gateways.push(format!("127.0.0.1:{port}"));
            let vars = vec![
                ("CORE_URL".into(), core_url.clone()),
                ("HTTP_ADDR".into(), format!("127.0.0.1:{port}")),
            ];
            stack.spawn(bin_dir, "gateways", "rest-gateway", false, vars, env);
        }
        for _ in 0..env.workers {
            let vars = vec![("CORE_URL".into(), core_url.clone())];
            stack.spawn(bin_dir, "workers", "webhook-worker", false, vars, env);
        }
        stack.wait_ready().await;
        stack
    }

    async fn wait_ready(&self) {
        let deadline = Instant::now() + Duration::from_secs(120);
        for gateway in &self.gateways {
            while !ready(gateway).await {
                assert!(Instant::now() < deadline, "the stack is not ready");
                tokio::time::sleep(Duration::from_millis(100)).await;
            }
        }
    }

    /// User + system CPU seconds of each role's processes so far.
    pub fn cpu(&self) -> BTreeMap<&'static str, f64> {
        let mut by_role = BTreeMap::new();
        for process in &self.processes {
            let secs = crate::cpu_secs(&process.child.id().to_string()).unwrap_or(0.0);
            *by_role.entry(process.role).or_insert(0.0) += secs;
        }
        by_role
    }

    /// The stack's process ids.
    pub fn pids(&self) -> Vec<String> {
        self.processes
            .iter()
            .map(|p| p.child.id().to_string())
            .collect()
    }

    /// The stack's resident memory, summed over its processes.
    pub fn rss_mb(&self) -> f64 {
        self.processes
            .iter()
            .map(|p| crate::rss_mb_of(&p.child.id().to_string()))
            .sum()
    }

    /// SQL statements the cores ran so far (`db_statements_total`).
    pub async fn statements(&self) -> u64 {
        let mut total = 0.0;
        for process in self.processes.iter().filter(|p| p.core) {
            if let Some(metrics) = &process.metrics {
                total += scrape(metrics, "db_statements_total").await.unwrap_or(0.0);
            }
        }
        total as u64
    }

    /// What the topology is called in the report.
    pub fn describe(&self) -> String {
        let count = |role| self.processes.iter().filter(|p| p.role == role).count();
        let threads = match &self.runtime_threads {
            Some(n) => format!(", RUNTIME_THREADS={n}"),
            None => String::new(),
        };
        if count("all-in-one") > 0 {
            format!("all-in-one binary{threads}")
        } else {
            format!(
                "split: {} gateways, {} cores, {} workers{threads} each",
                count("gateways"),
                count("cores"),
                count("workers")
            )
        }
    }
}

impl Drop for External {
    fn drop(&mut self) {
        for process in &mut self.processes {
            let _ = process.child.kill();
            let _ = process.child.wait();
        }
    }
}

async fn get(addr: &str, path: &str) -> Option<(u16, String)> {
    let response = reqwest::Client::new()
        .get(format!("http://{addr}{path}"))
        .timeout(Duration::from_secs(5))
        .send()
        .await
        .ok()?;
    let status = response.status().as_u16();
    Some((status, response.text().await.ok()?))
}

async fn ready(gateway: &str) -> bool {
    matches!(get(gateway, "/readyz").await, Some((200, _)))
}

/// The sum of a counter's series in a Prometheus text page.
async fn scrape(addr: &str, name: &str) -> Option<f64> {
    let (_, text) = get(addr, "/metrics").await?;
    Some(
        text.lines()
            .filter(|l| {
                l.strip_prefix(name)
                    .is_some_and(|rest| rest.starts_with(' ') || rest.starts_with('{'))
            })
            .filter_map(|l| l.rsplit(' ').next()?.parse::<f64>().ok())
            .sum(),
    )
}

fn unix_micros(at: SystemTime) -> i64 {
    at.duration_since(UNIX_EPOCH)
        .unwrap_or_default()
        .as_micros() as i64
}

/// The webhook receiver as a process of its own: this binary with `--serve-receiver`.
pub struct Receiver {
    child: Child,
    pub base: String,
    tail: tokio::task::JoinHandle<()>,
}

impl Receiver {
    /// Starts the receiver process and a task that reads its log into `arrivals`, each arrival
    /// time mapped onto this process's `Instant`s (both processes read the same wall clock).
    pub async fn start(arrivals: Arc<Arrivals>, delay_ms: u64) -> Receiver {
        let port = free_port();
        let log =
            std::env::temp_dir().join(format!("bench-receiver-{}-{port}.log", std::process::id()));
        let _ = std::fs::remove_file(&log);
        let child = Command::new(std::env::current_exe().expect("the benchmark's path"))
            .args([
                "--serve-receiver",
                &format!("127.0.0.1:{port}"),
                "--receiver-log",
                &log.display().to_string(),
                "--receiver-delay-ms",
                &delay_ms.to_string(),
            ])
            .stdout(Stdio::null())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("the receiver starts");
        let base = format!("http://127.0.0.1:{port}");
        let deadline = Instant::now() + Duration::from_secs(30);
        while tokio::net::TcpStream::connect(("127.0.0.1", port))
            .await
            .is_err()
        {
            assert!(Instant::now() < deadline, "the receiver did not start");
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        let tail = tokio::spawn(async move {
            let anchor = (Instant::now(), unix_micros(SystemTime::now()));
            let mut offset = 0u64;
            let mut pending = String::new();
            loop {
                tokio::time::sleep(Duration::from_millis(20)).await;
                let Ok(mut file) = std::fs::File::open(&log) else {
                    continue;
                };
                if file.seek(std::io::SeekFrom::Start(offset)).is_err() {
                    continue;
                }
                let mut reader = std::io::BufReader::new(file);
                let mut fresh = Vec::new();
                loop {
                    let mut line = String::new();
                    match reader.read_line(&mut line) {
                        Ok(0) | Err(_) => break,
                        Ok(n) => {
                            offset += n as u64;
                            pending.push_str(&line);
                            if !pending.ends_with('\n') {
                                continue;
                            }
                            let whole = std::mem::take(&mut pending);
                            let mut parts = whole.trim_end().split(' ');
                            let (Some(id), Some(at)) = (parts.next(), parts.next()) else {
                                continue;
                            };
                            let Ok(at) = at.parse::<i64>() else { continue };
                            let delta = at - anchor.1;
                            let instant = if delta >= 0 {
                                anchor.0 + Duration::from_micros(delta as u64)
                            } else {
                                anchor.0 - Duration::from_micros(delta.unsigned_abs())
                            };
                            fresh.push((id.to_string(), instant));
                        }
                    }
                }
                if !fresh.is_empty() {
                    arrivals.log.lock().unwrap().extend(fresh);
                }
            }
        });
        Receiver { child, base, tail }
    }

    pub fn cpu_secs(&self) -> f64 {
        crate::cpu_secs(&self.child.id().to_string()).unwrap_or(0.0)
    }
}

impl Drop for Receiver {
    fn drop(&mut self) {
        self.tail.abort();
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The receiver process's body: answers every POST with 204 (after `delay_ms`) and appends
/// `<message_send_id> <unix micros>` to `log` for each delivery id it sees first.
pub async fn serve_receiver(addr: String, log: PathBuf, delay_ms: u64) {
    use axum::body::Bytes;
    use axum::extract::State;
    use axum::http::{HeaderMap, StatusCode};
    use std::collections::HashSet;
    use std::io::Write;
    use std::sync::Mutex;

    struct Shared {
        seen: Mutex<HashSet<String>>,
        out: Mutex<std::io::BufWriter<std::fs::File>>,
        delay: Duration,
    }
    async fn receive(
        State(shared): State<Arc<Shared>>,
        headers: HeaderMap,
        body: Bytes,
    ) -> StatusCode {
        let at = unix_micros(SystemTime::now());
        if !shared.delay.is_zero() {
            tokio::time::sleep(shared.delay).await;
        }
        let Some(id) = crate::first_message_id(&shared.seen, &headers, &body) else {
            return StatusCode::NO_CONTENT;
        };
        let _ = writeln!(shared.out.lock().unwrap(), "{id} {at}");
        StatusCode::NO_CONTENT
    }
    let file = std::fs::File::create(&log).expect("the receiver's log");
    let shared = Arc::new(Shared {
        seen: Mutex::new(HashSet::new()),
        out: Mutex::new(std::io::BufWriter::new(file)),
        delay: Duration::from_millis(delay_ms),
    });
    tokio::spawn({
        let shared = shared.clone();
        async move {
            loop {
                tokio::time::sleep(Duration::from_millis(10)).await;
                let _ = shared.out.lock().unwrap().flush();
            }
        }
    });
    let app = axum::Router::new()
        .route("/{*path}", axum::routing::post(receive))
        .with_state(shared);
    let listener = tokio::net::TcpListener::bind(&addr)
        .await
        .expect("the receiver's address");
    axum::serve(listener, app).await.expect("the receiver");
}
