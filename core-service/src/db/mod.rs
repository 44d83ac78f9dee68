//! Connecting to SQLite or PostgreSQL (chosen by the URL), applying migrations, and the
//! keyset condition the paged lists share.

use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

pub mod bulk;
mod tuning;

pub use tuning::Tuning;

use anyhow::Context;
use migrations::{Migrator, MigratorTrait};
use sea_orm::{ConnectOptions, ConnectionTrait, Database, DatabaseConnection};

/// Which database a URL names.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Backend {
    /// `file` is None for an in-memory database.
    Sqlite {
        file: Option<PathBuf>,
    },
    Postgres,
}

impl Backend {
    pub fn of(url: &str) -> anyhow::Result<Backend> {
        if let Some(rest) = url.strip_prefix("sqlite:") {
            let path = rest.trim_start_matches("//");
            let path = path.split('?').next().unwrap_or_default();
            if path.is_empty() || path == ":memory:" || rest.contains("mode=memory") {
                return Ok(Backend::Sqlite { file: None });
            }
            return Ok(Backend::Sqlite {
                file: Some(PathBuf::from(path)),
            });
        }
        if url.starts_with("postgres://") || url.starts_with("postgresql://") {
            return Ok(Backend::Postgres);
        }
        anyhow::bail!("DATABASE_URL must start with sqlite:// or postgres://")
    }
}

/// How long a PostgreSQL call waits for a pooled connection (or a new one) before it fails.
pub const POSTGRES_ACQUIRE_TIMEOUT: Duration = Duration::from_secs(3);

/// A pooled PostgreSQL connection idle at least this long is tested (a round trip) before it
/// is handed out; one used more recently is not. Testing every checkout, sqlx's default, cost
/// a round trip per statement; a connection that broke since its last use fails that use
/// instead, as a statement in flight when the database goes away does.
pub const IDLE_BEFORE_TEST: Duration = Duration::from_secs(1);

/// Opens the pool. A SQLite file (and its folder) is created when missing; SQLite runs in WAL
/// mode with one pooled connection, so writers never race for the lock.
pub async fn connect(url: &str, max_connections: u32) -> anyhow::Result<DatabaseConnection> {
    let backend = Backend::of(url)?;
    let mut options = ConnectOptions::new(url.to_string());
    options
        .sqlx_logging(false)
        .connect_timeout(Duration::from_secs(10))
        .acquire_timeout(Duration::from_secs(10));
    match &backend {
        Backend::Sqlite { file } => {
            if let Some(dir) = file.as_ref().and_then(|f| f.parent())
                && !dir.as_os_str().is_empty()
            {
                std::fs::create_dir_all(dir)
                    .with_context(|| format!("creating {}", dir.display()))?;
            }
            // An in-memory database lives as long as its one connection.
            // Nothing can cut an in-process connection: it is never tested before use.
            options
                .max_connections(1)
                .min_connections(1)
                .idle_timeout(None)
                .max_lifetime(None)
                .test_before_acquire(false);
            options.map_sqlx_sqlite_opts(|o| {
                o.create_if_missing(true)
                    .journal_mode(sqlx::sqlite::SqliteJournalMode::Wal)
                    .synchronous(sqlx::sqlite::SqliteSynchronous::Normal)
                    .busy_timeout(Duration::from_secs(10))
                    .foreign_keys(true)
            });
        }
        Backend::Postgres => {
            // While the database is away, a call waits at most this long for a connection and
            // is then answered 503 by the core itself (and logged with its request id), well
            // within the gateway's CORE_TIMEOUT_SECS, instead of being abandoned by the gateway.
            options
                .max_connections(max_connections.max(2))
                .connect_timeout(POSTGRES_ACQUIRE_TIMEOUT)
                .acquire_timeout(POSTGRES_ACQUIRE_TIMEOUT)
                .test_before_acquire_if_idle_for(IDLE_BEFORE_TEST);
        }
    }
    let mut conn = Database::connect(options)
        .await
        .with_context(|| format!("connecting to {}", redact(url)))?;
    conn.set_metric_callback(|info| {
        STATEMENTS.fetch_add(1, Ordering::Relaxed);
        if info.failed {
            FAILED_STATEMENTS.fetch_add(1, Ordering::Relaxed);
        }
    });
    Ok(conn)
}

/// The pool's connections: how many are open, and how many of those are idle.
pub fn pool_connections(db: &DatabaseConnection) -> (u32, u32) {
    let (size, idle) = match db.get_database_backend() {
        sea_orm::DbBackend::Postgres => {
            let pool = db.get_postgres_connection_pool();
            (pool.size(), pool.num_idle())
        }
        _ => {
            let pool = db.get_sqlite_connection_pool();
            (pool.size(), pool.num_idle())
        }
    };
    (size, idle as u32)
}

/// SQL statements this process has sent through its pools (BEGIN and COMMIT not counted), for
/// benchmarks and metrics.
pub static STATEMENTS: AtomicU64 = AtomicU64::new(0);
/// Of those, the ones that failed.
pub static FAILED_STATEMENTS: AtomicU64 = AtomicU64::new(0);

/// Applies pending migrations through `conn`. On PostgreSQL, cores starting at once serialise on
/// an advisory lock held by a dedicated connection.
pub async fn migrate(conn: &DatabaseConnection, url: &str) -> anyhow::Result<()> {
    if Backend::of(url)? == Backend::Postgres {
        let mut options = ConnectOptions::new(url.to_string());
        options
            .max_connections(1)
            .min_connections(1)
            .sqlx_logging(false);
        let lock = Database::connect(options).await?;
        lock.execute_unprepared("SELECT pg_advisory_lock(7248150391)")
            .await?;
        let result = Migrator::up(conn, None).await;
        lock.execute_unprepared("SELECT pg_advisory_unlock(7248150391)")
            .await?;
        lock.close().await?;
        result?;
    } else {
        Migrator::up(conn, None).await?;
    }
    Ok(())
}

/// The URL without its password, for logs.
pub fn redact(url: &str) -> String {
    match url::Url::parse(url) {
        Ok(mut parsed) if parsed.password().is_some() => {
            let _ = parsed.set_password(Some("***"));
            parsed.to_string()
        }
        _ => url.to_string(),
    }
}

/// Rows that come after `(created_at, id)` in a newest-first list ordered by both columns: the
/// keyset condition of every paged list. Written as a row-value comparison, `(created_at, id) <
/// (…, …)`, which both databases use as a bound of an index on those columns (an `OR` of the
/// two cases is not, and a page deep in a long list would scan every row before it).
pub fn older_than<C: sea_orm::ColumnTrait>(
    created_at: C,
    id: C,
    (after_created, after_id): (chrono::DateTime<chrono::Utc>, uuid::Uuid),
) -> sea_orm::Condition {
    use sea_orm::sea_query::{Expr, ExprTrait as _};
    sea_orm::Condition::all().add(Expr::tuple([created_at.into_expr(), id.into_expr()]).lt(
        Expr::tuple([Expr::value(after_created), Expr::value(after_id)]),
    ))
}

/// Rows a load must hold to count as a bulk load (see [`analyze_after_load`]).
pub const BULK_LOAD: u64 = 1_000;

/// Gathers the planner's statistics of `tables` after a bulk load, as PostgreSQL advises
/// (elsewhere nothing). Without it, until autovacuum next looks (a minute or more), the planner
/// keeps the sizes it saw before the load: a table of ten users that just received 100,000 is
/// still planned as ten rows, so lookups by key scan it whole, and prepared plans made before
/// the load stay in use. A load of fewer than [`BULK_LOAD`] rows changes no plan and is left to
/// autovacuum. Best effort: a role that may not analyze is only logged.
pub async fn analyze_after_load(db: &DatabaseConnection, tables: &[&str], rows: u64) {
    if db.get_database_backend() != sea_orm::DbBackend::Postgres
        || tables.is_empty()
        || rows < BULK_LOAD
    {
        return;
    }
    let sql = format!("ANALYZE {}", tables.join(", "));
    if let Err(err) = db.execute_unprepared(&sql).await {
        tracing::debug!(error = %err, tables = ?tables, "could not analyze after a bulk load");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn backend_is_chosen_by_the_url() {
        assert_eq!(
            Backend::of("sqlite://data/core.db?mode=rwc").unwrap(),
            Backend::Sqlite {
                file: Some(PathBuf::from("data/core.db"))
            }
        );
        assert_eq!(
            Backend::of("sqlite::memory:").unwrap(),
            Backend::Sqlite { file: None }
        );
        assert_eq!(Backend::of("postgres://u@h/db").unwrap(), Backend::Postgres);
        assert!(Backend::of("mysql://x").is_err());
        assert_eq!(redact("postgres://u:secret@h/db"), "postgres://u:***@h/db");
    }
}
