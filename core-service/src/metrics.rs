//! The core's gauges, sampled from the database every few seconds: what is waiting and for how
//! long, and the connection pool. (Counters are recorded where things happen: sends accepted
//! in `messaging`, outcomes in the dispatcher's store, webhook attempts in `webhooks::jobs`,
//! limit refusals in `limits`, gRPC calls in `layers`.)
//!
//! With several cores on one database each reports the same backlog: graph it with `max`.

use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::Duration;

use proto::vocabulary::DeliveryStatus;
use sea_orm::{ConnectionTrait, Statement};
use tokio_util::sync::CancellationToken;

use crate::state::Core;

/// How often the gauges are sampled.
pub const SAMPLE_EVERY: Duration = Duration::from_secs(5);

/// Samples the gauges until `cancel` fires.
pub async fn sample(core: Arc<Core>, cancel: CancellationToken) {
    loop {
        if let Err(err) = sample_once(&core).await {
            tracing::debug!(error = %err, "sampling the metrics failed");
        }
        tokio::select! {
            () = cancel.cancelled() => return,
            () = tokio::time::sleep(SAMPLE_EVERY) => {}
        }
    }
}

async fn count(
    core: &Core,
    sql: &str,
    values: Vec<sea_orm::Value>,
) -> Result<Option<i64>, sea_orm::DbErr> {
    let backend = core.db.get_database_backend();
    let row = core
        .db
        .query_one_raw(Statement::from_sql_and_values(backend, sql, values))
        .await?;
    Ok(row.and_then(|r| r.try_get_by_index::<Option<i64>>(0).ok().flatten()))
}

/// Reads every gauge once.
pub async fn sample_once(core: &Core) -> Result<(), sea_orm::DbErr> {
    // The pool (and the statement counters) first: they need no database.
    let (size, idle) = crate::db::pool_connections(&core.db);
    metrics::gauge!("db_pool_connections", "state" => "in_use")
        .set(f64::from(size.saturating_sub(idle)));
    metrics::gauge!("db_pool_connections", "state" => "idle").set(f64::from(idle));
    metrics::counter!("db_statements_total")
        .absolute(crate::db::STATEMENTS.load(Ordering::Relaxed));
    metrics::counter!("db_statement_failures_total")
        .absolute(crate::db::FAILED_STATEMENTS.load(Ordering::Relaxed));

    let now = core.clock.now_ms();
    let backlog = count(core, "SELECT COUNT(*) FROM message_outbox", vec![]).await?;
    metrics::gauge!("messages_backlog").set(backlog.unwrap_or(0) as f64);
    let oldest_message = count(
        core,
        "SELECT MIN(due_at_ms) FROM message_outbox WHERE due_at_ms <= $1",
        vec![now.into()],
    )
    .await?;
    metrics::gauge!("oldest_due_age_seconds", "queue" => "messages")
        .set(oldest_message.map_or(0.0, |t| (now - t).max(0) as f64 / 1000.0));
    for status in [DeliveryStatus::Pending, DeliveryStatus::Retrying] {
        let n = count(
            core,
            "SELECT COUNT(*) FROM webhook_deliveries WHERE status = $1",
            vec![status.into()],
        )
        .await?;
        metrics::gauge!("webhook_deliveries_open", "status" => status.as_str())
            .set(n.unwrap_or(0) as f64);
    }
    let oldest_delivery = count(
        core,
        "SELECT MIN(next_attempt_at_ms) FROM webhook_deliveries \
         WHERE queued = 1 AND class IN (0, 1) AND next_attempt_at_ms <= $1",
        vec![now.into()],
    )
    .await?;
    metrics::gauge!("oldest_due_age_seconds", "queue" => "webhook_deliveries")
        .set(oldest_delivery.map_or(0.0, |t| (now - t).max(0) as f64 / 1000.0));
    let failing = count(
        core,
        "SELECT COUNT(*) FROM webhook_health h JOIN webhooks w ON w.id = h.webhook_id \
         WHERE h.state = 'failing' AND w.active",
        vec![],
    )
    .await?;
    metrics::gauge!("webhook_endpoints_failing").set(failing.unwrap_or(0) as f64);
    Ok(())
}
