//! `--topology split`: two gateways, two cores and two webhook workers as separate processes
//! (the release binaries) on the benchmark's PostgreSQL database, every gateway and worker
//! listing both cores in `CORE_URL`, each with its metrics served (as shipped). The load is
//! spread over both gateways; CPU is read per process from `/proc`, and SQL statements from the
//! cores' `db_statements_total`.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use crate::harness::{JWT_SECRET, MASTER_KEY};

pub struct Process {
    pub role: &'static str,
    child: Child,
    metrics: String,
}

/// The split deployment's processes; killed when dropped.
pub struct Split {
    pub processes: Vec<Process>,
    pub gateways: Vec<String>,
}

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
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

impl Split {
    /// Starts the six processes on `database_url` and waits until both gateways are ready.
    pub async fn start(bin_dir: &Path, database_url: &str, pool: u32) -> Split {
        for bin in ["core-service", "rest-gateway", "webhook-worker"] {
            assert!(
                bin_dir.join(bin).exists(),
                "{} is missing: build the binaries first (cargo build --release -p core-service -p rest-gateway -p webhook-worker)",
                bin_dir.join(bin).display()
            );
        }
        let grpc: Vec<u16> = (0..2).map(|_| free_port()).collect();
        let core_url = grpc
            .iter()
            .map(|p| format!("http://127.0.0.1:{p}"))
            .collect::<Vec<_>>()
            .join(",");
        let mut processes = Vec::new();
        let mut spawn = |role: &'static str, bin: &str, env: Vec<(&str, String)>| {
            let metrics_port = free_port();
            let mut command = Command::new(bin_dir.join(bin));
            command
                .env_clear()
                .env("PATH", std::env::var("PATH").unwrap_or_default())
                .env("RUST_LOG", "error")
                .env("METRICS_ADDR", format!("127.0.0.1:{metrics_port}"))
                .stdout(Stdio::null())
                .stderr(Stdio::inherit());
            for (k, v) in env {
                command.env(k, v);
            }
            processes.push(Process {
                role,
                child: command.spawn().expect("a binary starts"),
                metrics: format!("127.0.0.1:{metrics_port}"),
            });
        };
        for port in &grpc {
            spawn(
                "cores",
                "core-service",
                vec![
                    ("DATABASE_URL", database_url.to_string()),
                    ("DATABASE_MAX_CONNECTIONS", pool.to_string()),
                    ("GRPC_ADDR", format!("127.0.0.1:{port}")),
                    ("JWT_SECRET", JWT_SECRET.to_string()),
                    ("MASTER_KEY", MASTER_KEY.to_string()),
                    ("WEBHOOK_ALLOW_INSECURE", "true".to_string()),
                    // The benchmark measures the pipeline, not the limit.
                    ("BUSINESS_SENDS_PER_SECOND", "1000000".to_string()),
                ],
            );
        }
        let mut gateways = Vec::new();
        for _ in 0..2 {
            let port = free_port();
            gateways.push(format!("127.0.0.1:{port}"));
            spawn(
                "gateways",
                "rest-gateway",
                vec![
                    ("CORE_URL", core_url.clone()),
                    ("HTTP_ADDR", format!("127.0.0.1:{port}")),
                ],
            );
        }
        for _ in 0..2 {
            spawn(
                "workers",
                "webhook-worker",
                vec![("CORE_URL", core_url.clone())],
            );
        }
        let split = Split {
            processes,
            gateways,
        };
        let deadline = Instant::now() + Duration::from_secs(120);
        for gateway in &split.gateways {
            while !ready(gateway).await {
                assert!(Instant::now() < deadline, "the split stack is not ready");
                tokio::time::sleep(Duration::from_millis(100)).await;
            }
        }
        split
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

    /// SQL statements the cores ran so far (`db_statements_total`).
    pub async fn statements(&self) -> u64 {
        let mut total = 0.0;
        for process in self.processes.iter().filter(|p| p.role == "cores") {
            total += scrape(&process.metrics, "db_statements_total")
                .await
                .unwrap_or(0.0);
        }
        total as u64
    }
}

impl Drop for Split {
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
