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
            one_server(url)?;
            return Ok(Backend::Postgres);
        }
        anyhow::bail!("DATABASE_URL must start with sqlite:// or postgres://")
    }
}

/// Refuses a PostgreSQL URL that names several servers or asks libpq to choose among them:
/// sqlx connects to exactly one host and ignores `target_session_attrs`, so such a URL would
/// either fail obscurely or, worse, write to whichever server answers first, a replica included.
/// A cluster is reached through a proxy that routes to its primary (HAProxy with Patroni's
/// `/primary` check: core-service/README.md).
fn one_server(url: &str) -> anyhow::Result<()> {
    const HINT: &str = "point DATABASE_URL at one address that always reaches the primary, \
        such as HAProxy routing by Patroni's /primary check (core-service/README.md, \
        \"A PostgreSQL cluster\")";
    let rest = url.split_once("://").map_or(url, |(_, rest)| rest);
    let (before_query, query) = rest.split_once('?').unwrap_or((rest, ""));
    let authority = before_query.split('/').next().unwrap_or_default();
    let hosts = authority
        .rsplit_once('@')
        .map_or(authority, |(_, hosts)| hosts);
    if hosts.contains(',') {
        anyhow::bail!(
            "DATABASE_URL names several PostgreSQL servers ({hosts}); the service connects to \
             one and cannot tell which of several is the primary: {HINT}"
        );
    }
    for pair in query.split('&').filter(|p| !p.is_empty()) {
        let (key, value) = pair.split_once('=').unwrap_or((pair, ""));
        let value = percent_encoding::percent_decode_str(value).decode_utf8_lossy();
        match key {
            "target_session_attrs" | "load_balance_hosts" => anyhow::bail!(
                "DATABASE_URL sets {key}, which the service's PostgreSQL driver does not \
                 understand (it would be ignored, and a standby could be taken for the \
                 primary): remove it and {HINT}"
            ),
            "host" | "hostaddr" | "port" if value.contains(',') => anyhow::bail!(
                "DATABASE_URL's {key} names several PostgreSQL servers ({value}); the service \
                 connects to one and cannot tell which of several is the primary: {HINT}"
            ),
            _ => {}
        }
    }
    Ok(())
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
            // A server that turned read-only (a demoted primary, a standby reached while a
            // failover settles, default_transaction_read_only) never keeps a pooled connection.
            options.map_sqlx_postgres_pool_opts(|pool| {
                pool.after_connect(|conn, _| Box::pin(refuse_read_only(conn)))
                    .after_release(|conn, _| Box::pin(keep_unless_read_only(conn)))
            });
            options
                .map_sqlx_postgres_before_acquire(|conn, _| Box::pin(keep_unless_read_only(conn)));
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
    if matches!(backend, Backend::Sqlite { .. }) && !sqlite_plans_are_stable(&conn).await? {
        tracing::warn!(
            "this SQLite was built without SQLITE_ENABLE_QPSG (the workspace's .cargo/config.toml \
             sets it): statements whose plan reads a bound value are prepared again at every use"
        );
    }
    Ok(conn)
}

/// Whether SQLite keeps one plan per statement whatever values are bound (built with
/// `SQLITE_ENABLE_QPSG`, as `.cargo/config.toml` asks). Without it SQLite plans a statement
/// for the values bound when it is prepared wherever they could matter (a `LIMIT ?`, a bound
/// value against a partial index's condition, STAT4 samples) and prepares it again each time
/// one of them is rebound, so a cached statement such as the events' `commit_seq` read or a
/// lease costs a preparation at every use.
pub(crate) async fn sqlite_plans_are_stable(db: &DatabaseConnection) -> anyhow::Result<bool> {
    let options = db
        .query_all_raw(sea_orm::Statement::from_string(
            sea_orm::DbBackend::Sqlite,
            "PRAGMA compile_options",
        ))
        .await
        .context("reading SQLite's compile options")?;
    Ok(options.iter().any(|row| {
        row.try_get_by_index::<String>(0)
            .is_ok_and(|o| o == "ENABLE_QPSG")
    }))
}

/// How long after a statement was refused for a read-only server every pooled connection is
/// tested (a round trip) when it is handed out and when it comes back.
pub const READ_ONLY_SUSPECT: Duration = Duration::from_secs(30);

/// When this process last saw a statement refused because its server was read-only
/// (milliseconds since the Unix epoch; 0: never).
static READ_ONLY_SEEN_MS: AtomicU64 = AtomicU64::new(0);

/// Records that a statement failed with SQLSTATE 25006 (read-only transaction): for
/// [`READ_ONLY_SUSPECT`], the pool tests its connections at checkout and at return and closes
/// those whose server is read-only, so the one that failed never serves again.
pub fn read_only_seen() {
    READ_ONLY_SEEN_MS.store(unix_millis(), Ordering::Relaxed);
}

pub(crate) fn read_only_suspected() -> bool {
    let seen = READ_ONLY_SEEN_MS.load(Ordering::Relaxed);
    seen != 0 && unix_millis().saturating_sub(seen) < READ_ONLY_SUSPECT.as_millis() as u64
}

fn unix_millis() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_millis() as u64)
        .unwrap_or_default()
}

/// Whether the connection's server takes no writes: a standby in recovery (including a
/// primary being promoted, which Patroni's `/primary` already answers for), or one whose
/// `default_transaction_read_only` is on.
async fn server_is_read_only(conn: &mut sqlx::PgConnection) -> Result<bool, sqlx::Error> {
    sqlx::query_scalar(
        "SELECT pg_is_in_recovery() OR current_setting('transaction_read_only') = 'on'",
    )
    .fetch_one(conn)
    .await
}

/// `after_connect`: a new connection to a read-only server is refused (the pool tries again
/// until its acquire timeout, so a call answers 503 if no writable server appears by then).
async fn refuse_read_only(conn: &mut sqlx::PgConnection) -> Result<(), sqlx::Error> {
    if server_is_read_only(conn).await? {
        read_only_seen();
        return Err(sqlx::Error::Configuration(
            "the PostgreSQL server is read-only (in recovery, or default_transaction_read_only \
             is on): connection refused"
                .into(),
        ));
    }
    Ok(())
}

/// `after_release` and `before_acquire`: while a read-only refusal is recent, a connection is
/// kept only if its server takes writes (at other times nothing is sent: one atomic load).
async fn keep_unless_read_only(conn: &mut sqlx::PgConnection) -> Result<bool, sqlx::Error> {
    if !read_only_suspected() {
        return Ok(true);
    }
    let read_only = server_is_read_only(conn).await?;
    if read_only {
        tracing::warn!("a pooled connection's server is read-only; connection closed");
    }
    Ok(!read_only)
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

    #[tokio::test]
    async fn sqlite_keeps_one_plan_per_statement() {
        let db = connect("sqlite::memory:", 1).await.unwrap();
        assert!(
            sqlite_plans_are_stable(&db).await.unwrap(),
            "the bundled SQLite is built with SQLITE_ENABLE_QPSG (.cargo/config.toml)"
        );
    }

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
        assert_eq!(
            Backend::of("postgres://u:p@h:5000/db?sslmode=require&application_name=a%2Cb").unwrap(),
            Backend::Postgres
        );
        assert_eq!(redact("postgres://u:secret@h/db"), "postgres://u:***@h/db");
    }

    #[test]
    fn a_url_naming_several_servers_or_target_session_attrs_is_refused_with_a_sentence() {
        for (url, names) in [
            (
                "postgres://u@h1:5432,h2:5432/db",
                "several PostgreSQL servers (h1:5432,h2:5432)",
            ),
            (
                "postgresql://h1,h2/db",
                "several PostgreSQL servers (h1,h2)",
            ),
            (
                "postgres://u@h/db?target_session_attrs=read-write",
                "sets target_session_attrs",
            ),
            (
                "postgres://h/db?sslmode=disable&target_session_attrs=primary",
                "target_session_attrs",
            ),
            (
                "postgres://h/db?load_balance_hosts=random",
                "sets load_balance_hosts",
            ),
            (
                "postgres:///db?host=a%2Cb",
                "host names several PostgreSQL servers (a,b)",
            ),
            (
                "postgres:///db?host=a&port=1,2",
                "port names several PostgreSQL servers (1,2)",
            ),
        ] {
            let err = Backend::of(url).unwrap_err().to_string();
            assert!(err.contains(names), "{url}: {err}");
            assert!(err.contains("HAProxy"), "{url}: {err}");
        }
    }
}
