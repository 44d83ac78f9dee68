//! The webhook worker: stateless, it holds no secret and no database connection. It talks to a
//! core over gRPC; the job stream it pumps (pull signed deliveries, POST them, report each
//! outcome) is served by the core's webhook service.

use std::time::Duration;

use clap::Args;
use tokio_util::sync::CancellationToken;
use tonic::transport::Endpoint;
use tonic_health::pb::HealthCheckRequest;
use tonic_health::pb::health_client::HealthClient;

#[derive(Debug, Clone, Args)]
pub struct WorkerConfig {
    /// The core's gRPC address.
    #[arg(long, env = "CORE_URL", default_value = "http://127.0.0.1:50051")]
    pub core_url: String,

    /// The core's INTERNAL_TOKEN, presented on the job stream.
    #[arg(long, env = "INTERNAL_TOKEN", hide_env_values = true)]
    pub internal_token: Option<String>,
}

/// Waits until the core answers its health check, retrying with a capped backoff; returns
/// early (false) when cancelled.
pub async fn wait_for_core(
    config: &WorkerConfig,
    cancel: &CancellationToken,
) -> anyhow::Result<bool> {
    let endpoint =
        Endpoint::from_shared(config.core_url.clone())?.connect_timeout(Duration::from_secs(3));
    let mut wait = Duration::from_millis(200);
    loop {
        let attempt = async {
            let channel = endpoint.connect().await?;
            HealthClient::new(channel)
                .check(HealthCheckRequest {
                    service: String::new(),
                })
                .await?;
            anyhow::Ok(())
        };
        match attempt.await {
            Ok(()) => return Ok(true),
            Err(err) => {
                tracing::warn!(error = %err, core = %config.core_url, "core not reachable yet")
            }
        }
        tokio::select! {
            () = cancel.cancelled() => return Ok(false),
            () = tokio::time::sleep(wait) => {}
        }
        wait = (wait * 2).min(Duration::from_secs(5));
    }
}

/// Runs the worker until `cancel` fires.
pub async fn run_until_stopped(
    config: WorkerConfig,
    cancel: CancellationToken,
) -> anyhow::Result<()> {
    if !wait_for_core(&config, &cancel).await? {
        return Ok(());
    }
    tracing::info!(core = %config.core_url, "worker connected to the core");
    cancel.cancelled().await;
    Ok(())
}
