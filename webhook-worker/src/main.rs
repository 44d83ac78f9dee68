//! `webhook-worker`: delivers webhooks for a core.

use clap::Parser;
use tokio_util::sync::CancellationToken;
use webhook_worker::WorkerConfig;

/// mimalloc rather than glibc's malloc: the service allocates and frees many small buffers per
/// request on every thread, where glibc's arenas spent about a quarter of its CPU.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

#[derive(Parser)]
#[command(
    name = "webhook-worker",
    version,
    about = "The business messaging webhook worker"
)]
struct Cli {
    #[command(flatten)]
    config: WorkerConfig,
    #[command(flatten)]
    runtime: proto::runtime::RuntimeArgs,
}

fn main() -> std::process::ExitCode {
    proto::telemetry::init_logging(proto::telemetry::DEFAULT_FILTER);
    let cli = Cli::parse();
    cli.runtime.clone().block_on(run(cli))
}

async fn run(cli: Cli) -> std::process::ExitCode {
    let cancel = CancellationToken::new();
    proto::shutdown::cancel_on_signal(cancel.clone());
    match cli.config.metrics_addr.serve(cancel.clone()).await {
        Ok(Some(addr)) => tracing::info!("metrics at http://{addr}/metrics"),
        Ok(None) => {}
        Err(err) => {
            eprintln!("error: binding METRICS_ADDR: {err}");
            return std::process::ExitCode::FAILURE;
        }
    }
    match webhook_worker::run_until_stopped(cli.config, cancel).await {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(err) => {
            eprintln!("error: {err:#}");
            std::process::ExitCode::FAILURE
        }
    }
}
