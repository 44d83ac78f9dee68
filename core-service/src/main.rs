//! `core-service`: serve (default), `migrate`, or `admin ...`.

use clap::{Parser, Subcommand};
use core_service::admin::cli::{self, AdminArgs};
use core_service::config::{DEFAULT_DATABASE_URL, GrpcTlsArgs};
use core_service::{CoreApp, CoreConfig, Overrides, db, telemetry};
use tokio_util::sync::CancellationToken;

/// mimalloc rather than glibc's malloc: the service allocates and frees many small buffers per
/// request on every thread, where glibc's arenas spent about a quarter of its CPU.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

#[derive(Parser)]
#[command(
    name = "core-service",
    version,
    about = "The business messaging core (gRPC)"
)]
#[command(args_conflicts_with_subcommands = true)]
struct Cli {
    #[command(subcommand)]
    command: Option<Command>,
    #[command(flatten)]
    serve: ServeArgs,
}

#[derive(clap::Args)]
struct ServeArgs {
    #[command(flatten)]
    config: CoreConfig,
    #[command(flatten)]
    tls: GrpcTlsArgs,
    #[command(flatten)]
    runtime: proto::runtime::RuntimeArgs,
}

#[derive(Subcommand)]
enum Command {
    /// Serve gRPC (the default when no command is given).
    Serve(Box<ServeArgs>),
    /// Apply pending database migrations and exit (`--status`: list applied and pending ones).
    Migrate(MigrateArgs),
    /// Operator commands against a running core; each prints JSON.
    Admin(AdminArgs),
}

#[derive(clap::Args)]
struct MigrateArgs {
    /// `sqlite://path/to/file.db` or `postgres://user@host/db`.
    #[arg(long, env = "DATABASE_URL", default_value = DEFAULT_DATABASE_URL)]
    database_url: String,
    /// Print the applied and the pending migrations (JSON) and change nothing.
    #[arg(long)]
    status: bool,
}

fn main() -> std::process::ExitCode {
    telemetry::init();
    let cli = Cli::parse();
    // Serving takes RUNTIME_THREADS; the one-shot commands need one thread.
    match &cli.command {
        None => cli.serve.runtime.clone().block_on(run(cli)),
        Some(Command::Serve(args)) => args.runtime.clone().block_on(run(cli)),
        Some(_) => proto::runtime::one_shot(run(cli)),
    }
}

async fn run(cli: Cli) -> std::process::ExitCode {
    let result = match cli.command {
        None => serve(cli.serve).await,
        Some(Command::Serve(args)) => serve(*args).await,
        Some(Command::Migrate(args)) if args.status => migration_status(&args.database_url).await,
        Some(Command::Migrate(args)) => migrate(&args.database_url).await,
        Some(Command::Admin(args)) => match cli::run(args).await {
            Ok(value) => {
                println!("{value}");
                Ok(())
            }
            Err(err) => Err(err),
        },
    };
    match result {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(err) => {
            eprintln!("error: {err:#}");
            std::process::ExitCode::FAILURE
        }
    }
}

async fn serve(args: ServeArgs) -> anyhow::Result<()> {
    let mut config = args.config;
    config.grpc_tls = args.tls.load()?;
    let tls = config.grpc_tls.is_some();
    let metrics_addr = config.metrics_addr;
    let app = CoreApp::build(config, Overrides::default()).await?;
    let cancel = CancellationToken::new();
    // Before the line saying it listens: a SIGTERM from then on is a graceful stop.
    proto::shutdown::cancel_on_signal(cancel.clone());
    if let Some(addr) = metrics_addr.serve(cancel.clone()).await? {
        tracing::info!("metrics at http://{addr}/metrics");
    }
    tracing::info!(addr = %app.local_addr(), tls, "core gRPC listening");
    app.run_until_stopped(cancel).await
}

async fn migration_status(database_url: &str) -> anyhow::Result<()> {
    use migrations::{Migrator, MigratorTrait};
    let conn = db::connect(database_url, 2).await?;
    let names = |list: Vec<sea_orm_migration::Migration>| -> Vec<String> {
        list.iter().map(|m| m.name().to_string()).collect()
    };
    let applied = names(Migrator::get_applied_migrations(&conn).await?);
    let pending = names(Migrator::get_pending_migrations(&conn).await?);
    conn.close().await?;
    println!(
        "{}",
        serde_json::json!({ "applied": applied, "pending": pending })
    );
    Ok(())
}

async fn migrate(database_url: &str) -> anyhow::Result<()> {
    let conn = db::connect(database_url, 2).await?;
    db::migrate(&conn, database_url).await?;
    conn.close().await?;
    println!("{{\"migrated\":true}}");
    Ok(())
}
