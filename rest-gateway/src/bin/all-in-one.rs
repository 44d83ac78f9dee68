//! The all-in-one runner: core, gateway and a webhook worker in one process (SQLite under
//! `./data/` by default), talking over real gRPC on loopback. A composition root and nothing
//! more.

use clap::Parser;
use core_service::{CoreApp, CoreConfig, Overrides, telemetry};
use rest_gateway::{GatewayApp, GatewayConfig, HttpSettings};
use tokio_util::sync::CancellationToken;

/// mimalloc rather than glibc's malloc: the service allocates and frees many small buffers per
/// request on every thread, where glibc's arenas spent about a quarter of its CPU.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

#[derive(Parser)]
#[command(
    name = "all-in-one",
    version,
    about = "Core, gateway and worker in one process (development and single-node use)"
)]
struct Cli {
    #[command(flatten)]
    core: CoreConfig,
    /// The gateway's settings (the gateway calls the core in this process).
    #[command(flatten)]
    http: HttpSettings,
    /// The worker's settings (the worker takes jobs from the core in this process).
    #[command(flatten)]
    worker: webhook_worker::WorkerSettings,
    #[command(flatten)]
    runtime: proto::runtime::RuntimeArgs,
}

fn main() -> std::process::ExitCode {
    telemetry::init();
    let cli = Cli::parse();
    cli.runtime.clone().block_on(main_async(cli))
}

async fn main_async(cli: Cli) -> std::process::ExitCode {
    match run(cli).await {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(err) => {
            eprintln!("error: {err:#}");
            std::process::ExitCode::FAILURE
        }
    }
}

async fn run(cli: Cli) -> anyhow::Result<()> {
    let database = core_service::db::redact(&cli.core.database.database_url);
    let internal_token = cli.core.internal_token.clone();
    let metrics_addr = cli.core.metrics_addr;
    let core = CoreApp::build(cli.core, Overrides::default()).await?;
    let grpc = core.local_addr();
    let gateway_config = GatewayConfig {
        core_url: format!("http://{grpc}"),
        // One core: no turns to take.
        core_turn_ms: 0,
        core_tls_ca: None,
        internal_token: internal_token.clone(),
        // One listener for the whole process: the core's METRICS_ADDR, below.
        metrics_addr: proto::metrics::MetricsAddr(None),
        http: cli.http,
    };
    let gateway = GatewayApp::build(gateway_config).await?;
    let http = gateway.local_addr();

    let mut worker_config = webhook_worker::WorkerConfig::for_core(format!("http://{grpc}"));
    worker_config.internal_token = internal_token;
    worker_config.settings = cli.worker;

    let cancel = CancellationToken::new();
    // Installed before the start-up line: a SIGTERM from then on is a graceful stop.
    let signals = proto::shutdown::listen();
    if let Some(addr) = metrics_addr
        .serve(cancel.clone())
        .await
        .map_err(|e| anyhow::anyhow!("binding METRICS_ADDR: {e}"))?
    {
        tracing::info!("metrics at http://{addr}/metrics");
    }
    let core_task = tokio::spawn(core.run_until_stopped(cancel.clone()));
    let gateway_task = tokio::spawn(gateway.run_until_stopped(cancel.clone()));
    let worker_task = tokio::spawn(webhook_worker::run_until_stopped(
        worker_config,
        cancel.clone(),
    ));
    tracing::info!(%database, "database");
    tracing::info!("core gRPC listening on {grpc}");
    tracing::info!(
        "gateway listening on http://{http} (console at http://{http}/console/, API reference at http://{http}/docs)"
    );
    // The start-up line, on standard output for launchers to read: text, or with
    // LOG_FORMAT=json one JSON object shaped like the log lines.
    if proto::telemetry::LogFormat::from_env() == Some(proto::telemetry::LogFormat::Json) {
        let line = serde_json::json!({
            "timestamp": chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Micros, true),
            "level": "INFO",
            "fields": {
                "message": "business messaging",
                "url": format!("http://{http}"),
                "grpc": grpc.to_string(),
                "database": database,
            },
            "target": "all_in_one",
        });
        println!("{line}");
    } else {
        println!("business messaging: http://{http}  (gRPC {grpc}, database {database})");
    }

    signals.recv().await;
    cancel.cancel();
    let (core_result, gateway_result, worker_result) =
        tokio::join!(core_task, gateway_task, worker_task);
    core_result??;
    gateway_result??;
    worker_result??;
    Ok(())
}
