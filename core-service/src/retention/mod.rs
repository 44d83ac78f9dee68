//! Retention: what the core keeps, and the background purge that deletes the rest.
//!
//! Every core runs the purge (there is no leader to elect): each pass deletes, class by class,
//! rows past their retention in small batches, each batch one short transaction ordered by the
//! column that ages it. On PostgreSQL a batch locks the rows it picked with `FOR UPDATE SKIP
//! LOCKED`, so two cores purging at once take different rows instead of waiting on each other;
//! on SQLite the single writer serialises them. Deleting is idempotent, so a pass cut short (a
//! crash, a failed statement) is simply finished by the next one.
//!
//! Nothing that is still in play is ever purged: an undecided message, a delivery that is
//! pending or retrying, an idempotency key inside its 24-hour window, a code or QR session that
//! has not expired, a refresh family with a live token.

use std::sync::Arc;
use std::time::{Duration, Instant};

use sea_orm::{DbErr, Value};
use tokio_util::sync::CancellationToken;

mod store;

use store::{Batch, Counted};

use crate::config::RetentionConfig;
use crate::state::Core;

const HOUR_MS: i64 = 3_600_000;
const DAY_MS: i64 = 24 * HOUR_MS;

/// The kinds of data the purge deletes, as the metrics label them.
pub const CLASSES: &[&str] = &[
    "messages",
    "received",
    "inbox",
    "events",
    "deliveries",
    "idempotency_keys",
    "otp_codes",
    "qr_sessions",
    "refresh_families",
    "rate_limits",
];

/// Most batches of one class in one pass, so that a large backlog (the first pass after
/// shortening a retention) is worked off over several passes rather than in one long run.
const MAX_BATCHES_PER_PASS: usize = 200;

/// Rows deleted by one pass, per class (in [`CLASSES`] order; attempt logs and refresh tokens
/// are counted with their delivery or family).
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Purged(pub Vec<(&'static str, u64)>);

/// Purges now and then until `cancel` fires.
pub async fn run(core: Arc<Core>, cancel: CancellationToken) {
    let every = core.retention.purge_interval_secs;
    if every == 0 {
        tracing::info!("this core does not purge (PURGE_INTERVAL_SECS=0)");
        return;
    }
    // Cores started together should not purge in lockstep: the first pass waits a random part
    // of the interval.
    let first = Duration::from_millis(rand::random_range(0..=every * 1000));
    let mut wait = first.min(Duration::from_secs(every));
    loop {
        tokio::select! {
            () = cancel.cancelled() => return,
            () = tokio::time::sleep(wait) => {}
        }
        wait = Duration::from_secs(every);
        match purge(&core, &cancel).await {
            Ok(purged) => {
                let total: u64 = purged.0.iter().map(|(_, n)| n).sum();
                if total > 0 {
                    tracing::info!(rows = total, detail = ?purged.0, "retention purge");
                }
            }
            Err(err) => {
                tracing::warn!(error = %err, "retention purge failed; the next pass resumes")
            }
        }
    }
}

/// One pass over every class. Records its progress in the metrics.
pub async fn purge(core: &Core, cancel: &CancellationToken) -> Result<Purged, DbErr> {
    let started = Instant::now();
    let result = purge_classes(core, cancel).await;
    metrics::histogram!("retention_purge_duration_seconds").record(started.elapsed());
    let outcome = if result.is_ok() { "ok" } else { "error" };
    metrics::counter!("retention_purge_runs_total", "result" => outcome).increment(1);
    if result.is_ok() {
        metrics::gauge!("retention_purge_last_success_timestamp_seconds")
            .set(core.clock.now_ms() as f64 / 1000.0);
    }
    result
}

async fn purge_classes(core: &Core, cancel: &CancellationToken) -> Result<Purged, DbErr> {
    let mut purged = Purged::default();
    for &class in CLASSES {
        let mut total = 0;
        for _ in 0..MAX_BATCHES_PER_PASS {
            if cancel.is_cancelled() {
                break;
            }
            let Some(deleted) = purge_batch(core, class).await? else {
                break;
            };
            total += deleted;
            metrics::counter!("retention_purged_rows_total", "data" => class).increment(deleted);
            if deleted < u64::from(core.retention.purge_batch_size) {
                break;
            }
        }
        purged.0.push((class, total));
    }
    Ok(purged)
}

/// How a class's rows age: what `$1` (and `$2`) of its condition compare with.
enum Age {
    /// A timestamp this many days back; 0 keeps the class forever.
    Days(u32),
    /// Rows whose id is made from the time that ages them (`clock::id_at`): a timestamp this many
    /// days back and the least id made then (`clock::ids_before`), so the batch walks the
    /// primary key; 0 keeps the class forever.
    DaysById(u32),
    /// Unix milliseconds this many hours back.
    Hours(u32),
    /// Refresh families: a timestamp and Unix milliseconds this many days back.
    DaysBoth(u32),
}

/// What one batch of `class` deletes, and how its rows age.
fn class_batch(r: &RetentionConfig, class: &str) -> (Batch, Age) {
    let batch = |table, key, condition, order, children| Batch {
        table,
        key,
        condition,
        order,
        children,
        counted: None,
    };
    // `id < $2` bounds the primary key's range the batch walks; `created_at < $1` is what
    // decides (the same rows for every id the core made).
    let decided = "id < $2 AND created_at < $1 AND status IN ('delivered', 'failed', 'canceled')";
    let expired = "expires_at_ms < $1";
    match class {
        "messages" => (
            Batch {
                counted: Some(Counted::Messages),
                ..batch("messages", "id", decided, "id", &[])
            },
            Age::DaysById(r.retention_messages_days),
        ),
        // The users' own messages follow the messages' retention.
        "received" => (
            Batch {
                counted: Some(Counted::Received),
                ..batch(
                    "inbound_messages",
                    "id",
                    "id < $2 AND received_at < $1",
                    "id",
                    &[],
                )
            },
            Age::DaysById(r.retention_messages_days),
        ),
        "inbox" => (
            batch(
                "inbox_messages",
                "message_id",
                "delivered_at < $1",
                "delivered_at",
                &[],
            ),
            Age::Days(r.retention_inbox_days),
        ),
        "events" => (
            batch("events", "id", "id < $2 AND created_at < $1", "id", &[]),
            Age::DaysById(r.retention_events_days),
        ),
        "deliveries" => (
            Batch {
                counted: Some(Counted::Deliveries),
                ..batch(
                    "webhook_deliveries",
                    "id",
                    "id < $2 AND created_at < $1 AND status IN ('succeeded', 'failed')",
                    "id",
                    &[("webhook_attempts", "delivery_id")],
                )
            },
            Age::DaysById(r.retention_deliveries_days),
        ),
        "idempotency_keys" => (
            // Two-column key: deleted by the pair.
            batch(
                "idempotency_keys",
                "business_id, \"key\"",
                expired,
                "expires_at_ms",
                &[],
            ),
            Age::Hours(r.retention_idempotency_keys_hours),
        ),
        "otp_codes" => (
            batch("otp_codes", "id", expired, "expires_at_ms", &[]),
            Age::Hours(r.retention_otp_codes_hours),
        ),
        "qr_sessions" => (
            batch("qr_sessions", "id", expired, "expires_at_ms", &[]),
            Age::Hours(r.retention_qr_sessions_hours),
        ),
        // A family is dead when it was revoked, or when none of its tokens can still be used;
        // it goes (with its tokens) once it has been dead for the retention.
        "refresh_families" => (
            batch(
                "refresh_families",
                "id",
                "(revoked_at IS NOT NULL AND revoked_at < $1) OR (created_at < $1 \
                 AND NOT EXISTS (SELECT 1 FROM refresh_tokens t \
                 WHERE t.family_id = refresh_families.id AND t.expires_at_ms >= $2))",
                "created_at",
                &[("refresh_tokens", "family_id")],
            ),
            Age::DaysBoth(r.retention_refresh_families_days),
        ),
        // Expired limiter state limits nothing any more.
        "rate_limits" => (
            batch("rate_limits", "\"key\"", expired, "expires_at_ms", &[]),
            Age::Hours(0),
        ),
        other => unreachable!("unknown retention class {other}"),
    }
}

/// Deletes one batch of `class`; None when the class is kept forever.
async fn purge_batch(core: &Core, class: &str) -> Result<Option<u64>, DbErr> {
    let now_ms = core.clock.now_ms();
    let (batch, age) = class_batch(&core.retention, class);
    let at = |ms: i64| chrono::DateTime::from_timestamp_millis(ms).unwrap_or_default();
    let values: Vec<Value> = match age {
        Age::Days(0) | Age::DaysById(0) => return Ok(None),
        Age::Days(days) => vec![at(now_ms - i64::from(days) * DAY_MS).into()],
        Age::DaysById(days) => {
            let cutoff = at(now_ms - i64::from(days) * DAY_MS);
            vec![cutoff.into(), crate::clock::ids_before(cutoff).into()]
        }
        Age::Hours(hours) => vec![(now_ms - i64::from(hours) * HOUR_MS).into()],
        Age::DaysBoth(days) => {
            let cutoff = now_ms - i64::from(days) * DAY_MS;
            vec![at(cutoff).into(), cutoff.into()]
        }
    };
    store::delete_batch(&core.db, core.retention.purge_batch_size, &batch, values)
        .await
        .map(Some)
}
