//! `rest-gateway`: the public HTTP API in front of a core.

use clap::Parser;
use rest_gateway::{GatewayApp, GatewayConfig};
use tokio_util::sync::CancellationToken;

/// mimalloc rather than glibc's malloc: the service allocates and frees many small buffers per
/// request on every thread, where glibc's arenas spent about a quarter of its CPU.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

#[derive(Parser)]
#[command(
    name = "rest-gateway",
    version,
    about = "The business messaging REST gateway"
)]
struct Cli {
    #[command(flatten)]
    config: GatewayConfig,
    #[command(flatten)]
    runtime: proto::runtime::RuntimeArgs,
}

fn main() -> std::process::ExitCode {
    rest_gateway_telemetry();
    let cli = Cli::parse();
    cli.runtime.clone().block_on(run(cli))
}

async fn run(cli: Cli) -> std::process::ExitCode {
    let result = async {
        let app = GatewayApp::build(cli.config.clone()).await?;
        let cancel = CancellationToken::new();
        // Before the line saying it listens: a SIGTERM from then on is a graceful stop.
        proto::shutdown::cancel_on_signal(cancel.clone());
        tracing::info!(addr = %app.local_addr(), core = %cli.config.core_url, "gateway listening");
        if let Some(addr) = cli.config.metrics_addr.serve(cancel.clone()).await? {
            tracing::info!("metrics at http://{addr}/metrics");
        }
        app.run_until_stopped(cancel).await
    }
    .await;
    match result {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(err) => {
            eprintln!("error: {err:#}");
            std::process::ExitCode::FAILURE
        }
    }
}

fn rest_gateway_telemetry() {
    proto::telemetry::init_logging(proto::telemetry::DEFAULT_FILTER);
}
