//! The all-in-one runner: core, gateway and a webhook worker in one process (SQLite under
//! `./data/` by default), talking over real gRPC on loopback. A composition root and nothing
//! more.

use clap::Parser;
use core_service::{CoreApp, CoreConfig, Overrides, telemetry};
use rest_gateway::{GatewayApp, GatewayConfig};
use tokio_util::sync::CancellationToken;

#[derive(Parser)]
#[command(
    name = "all-in-one",
    version,
    about = "Core, gateway and worker in one process (development and single-node use)"
)]
struct Cli {
    #[command(flatten)]
    core: CoreConfig,
    /// Address of the HTTP server.
    #[arg(long, env = "HTTP_ADDR", default_value = "127.0.0.1:8080")]
    http_addr: std::net::SocketAddr,
    /// Take the client IP from the last `X-Forwarded-For` entry.
    #[arg(long, env = "TRUST_PROXY", default_value = "false", action = clap::ArgAction::Set,
        value_parser = clap::builder::BoolishValueParser::new())]
    trust_proxy: bool,
}

#[tokio::main]
async fn main() -> std::process::ExitCode {
    telemetry::init();
    let cli = Cli::parse();
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
    let core = CoreApp::build(cli.core, Overrides::default()).await?;
    let grpc = core.local_addr();
    let mut gateway_config = GatewayConfig::for_core(format!("http://{grpc}"));
    gateway_config.http_addr = cli.http_addr;
    gateway_config.trust_proxy = cli.trust_proxy;
    let gateway = GatewayApp::build(gateway_config).await?;
    let http = gateway.local_addr();

    let mut worker_config = webhook_worker::WorkerConfig::for_core(format!("http://{grpc}"));
    worker_config.internal_token = internal_token;

    let cancel = CancellationToken::new();
    let core_task = tokio::spawn(core.run_until_stopped(cancel.clone()));
    let gateway_task = tokio::spawn(gateway.run_until_stopped(cancel.clone()));
    let worker_task = tokio::spawn(webhook_worker::run_until_stopped(
        worker_config,
        cancel.clone(),
    ));
    tracing::info!(%database, "database");
    tracing::info!("core gRPC listening on {grpc}");
    tracing::info!("gateway listening on http://{http} (OpenAPI at http://{http}/openapi.json)");
    println!("business messaging: http://{http}  (gRPC {grpc}, database {database})");

    telemetry::shutdown_signal().await;
    cancel.cancel();
    let (core_result, gateway_result, worker_result) =
        tokio::join!(core_task, gateway_task, worker_task);
    core_result??;
    gateway_result??;
    worker_result??;
    Ok(())
}
