//! Usage counters (DESIGN, "Usage"): totals and daily figures kept in the transactions that
//! change what they count, so reading them is a sum over a few rows, never a scan.
//!
//! `usage_counters` holds, per business, one row set for the totals (`day` = [`TOTALS`]) and one
//! per UTC day (`day` = days since 1970-01-01) that saw activity, each split into [`SLOTS`]
//! slots that readers sum. A transaction gathers its changes in a [`Tally`] and writes them
//! last, just before its commit, with one multi-row upsert into one slot, rows in (business,
//! day) order: concurrent batches of one business mostly land on different slots (they do not
//! queue on one row), and those that meet take their rows in the same order (they do not
//! deadlock). Nothing else is locked after the counters, so a transaction that waits for a
//! counter row never holds one another waits for.
//!
//! The totals count what is kept (the purge decrements them in its transaction); the daily
//! figures count what happened that day and are never decremented.

use std::collections::BTreeMap;

use proto::vocabulary::{Category, DeliveryStatus, MessageStatus};
use sea_orm::{ConnectionTrait, Statement, Value};
use uuid::Uuid;

use crate::error::AppResult;

mod pg;

pub use pg::{accepted_in, succeeded_in};

/// The `day` of the totals rows.
pub const TOTALS: i32 = 0;

/// Rows per (business, day).
pub const SLOTS: i32 = 8;

const DAY_MS: i64 = 86_400_000;

/// The counters, as `usage_counters` names its columns.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Counter {
    /// Messages by category: kept (totals), accepted that day (daily).
    Authentication,
    Utility,
    Marketing,
    Service,
    /// Kept messages by status (totals only).
    Accepted,
    Scheduled,
    Canceled,
    /// Kept messages by status (totals); outcomes that day (daily).
    Delivered,
    Failed,
    /// Deliveries not settled yet: pending or retrying (totals only).
    WebhooksPending,
    /// Kept deliveries by status (totals); settled that day (daily).
    WebhooksSucceeded,
    WebhooksFailed,
    /// Active followers, and those of them opted in to marketing (totals only).
    FollowersActive,
    FollowersOptIn,
    /// Follows that became active, and that became unfollowed, that day (daily only).
    Follows,
    Unfollows,
    /// User messages: kept (totals), received that day (daily).
    Received,
    /// Conversations with user messages after the business's read mark (totals only).
    UnreadConversations,
}

/// Column names, in [`Counter`] order.
pub const COLUMNS: [&str; 18] = [
    "authentication",
    "utility",
    "marketing",
    "service",
    "accepted",
    "scheduled",
    "canceled",
    "delivered",
    "failed",
    "webhooks_pending",
    "webhooks_succeeded",
    "webhooks_failed",
    "followers_active",
    "followers_opt_in",
    "follows",
    "unfollows",
    "received",
    "unread_conversations",
];

/// One row's worth of counters.
pub type Counts = [i64; COLUMNS.len()];

/// A counter row's changes: its (business, day) and counts.
type Row = ((Uuid, i32), Counts);

/// The counter of a message category.
fn category(category: Category) -> Counter {
    match category {
        Category::Authentication => Counter::Authentication,
        Category::Utility => Counter::Utility,
        Category::Marketing => Counter::Marketing,
        Category::Service => Counter::Service,
    }
}

/// The counter of a kept message's status.
fn message_status(status: MessageStatus) -> Counter {
    match status {
        MessageStatus::Accepted => Counter::Accepted,
        MessageStatus::Scheduled => Counter::Scheduled,
        MessageStatus::Canceled => Counter::Canceled,
        MessageStatus::Delivered => Counter::Delivered,
        MessageStatus::Failed => Counter::Failed,
    }
}

/// A random slot for a transaction's counter rows.
pub fn random_slot() -> i32 {
    rand::random_range(0..SLOTS)
}

/// The UTC day of a Unix time in milliseconds, as days since 1970-01-01.
pub fn day_of(ms: i64) -> i32 {
    ms.div_euclid(DAY_MS) as i32
}

/// What a follow counts as: (active, active and opted in).
fn follower(active: bool, marketing_opt_in: bool) -> (i64, i64) {
    (i64::from(active), i64::from(active && marketing_opt_in))
}

/// The changes one transaction makes to the counters, written by [`Tally::apply`].
#[derive(Debug, Default, Clone)]
pub struct Tally {
    rows: BTreeMap<(Uuid, i32), Counts>,
}

impl Tally {
    pub fn new() -> Tally {
        Tally::default()
    }

    pub fn is_empty(&self) -> bool {
        self.rows.is_empty()
    }

    /// Adds `n` to `counter` of `business` on `day` ([`TOTALS`] for the totals).
    pub fn add(&mut self, business: Uuid, day: i32, counter: Counter, n: i64) {
        if n != 0 {
            self.rows
                .entry((business, day))
                .or_insert([0; COLUMNS.len()])[counter as usize] += n;
        }
    }

    fn both(&mut self, business: Uuid, now_ms: i64, counter: Counter, n: i64) {
        self.add(business, TOTALS, counter, n);
        self.add(business, day_of(now_ms), counter, n);
    }

    /// A message accepted (stored with `status`) at `now_ms`.
    pub fn accepted(
        &mut self,
        business: Uuid,
        category_of: Category,
        status: MessageStatus,
        now_ms: i64,
    ) {
        self.both(business, now_ms, category(category_of), 1);
        self.add(business, TOTALS, message_status(status), 1);
    }

    /// A scheduled message leased for hand-out: it is `accepted` from now on.
    pub fn started(&mut self, business: Uuid) {
        self.add(business, TOTALS, Counter::Scheduled, -1);
        self.add(business, TOTALS, Counter::Accepted, 1);
    }

    /// A scheduled message canceled.
    pub fn canceled(&mut self, business: Uuid) {
        self.add(business, TOTALS, Counter::Scheduled, -1);
        self.add(business, TOTALS, Counter::Canceled, 1);
    }

    /// An accepted message's outcome, recorded at `now_ms`.
    pub fn decided(&mut self, business: Uuid, delivered: bool, now_ms: i64) {
        let counter = if delivered {
            Counter::Delivered
        } else {
            Counter::Failed
        };
        self.add(business, TOTALS, Counter::Accepted, -1);
        self.both(business, now_ms, counter, 1);
    }

    /// `n` webhook deliveries queued.
    pub fn queued(&mut self, business: Uuid, n: i64) {
        self.add(business, TOTALS, Counter::WebhooksPending, n);
    }

    /// `n` deliveries settled at `now_ms`, succeeded or failed.
    pub fn settled(&mut self, business: Uuid, succeeded: bool, n: i64, now_ms: i64) {
        let counter = if succeeded {
            Counter::WebhooksSucceeded
        } else {
            Counter::WebhooksFailed
        };
        self.add(business, TOTALS, Counter::WebhooksPending, -n);
        self.both(business, now_ms, counter, n);
    }

    /// `n` failed deliveries queued again.
    pub fn requeued(&mut self, business: Uuid, n: i64) {
        self.add(business, TOTALS, Counter::WebhooksFailed, -n);
        self.add(business, TOTALS, Counter::WebhooksPending, n);
    }

    /// A follow changed at `now_ms` from `before` ((active, marketing_opt_in), None: never
    /// followed) to `after`.
    pub fn follow(
        &mut self,
        business: Uuid,
        before: Option<(bool, bool)>,
        after: (bool, bool),
        now_ms: i64,
    ) {
        let (was, was_opted) = before.map_or((0, 0), |(a, o)| follower(a, o));
        let (is, is_opted) = follower(after.0, after.1);
        self.add(business, TOTALS, Counter::FollowersActive, is - was);
        self.add(
            business,
            TOTALS,
            Counter::FollowersOptIn,
            is_opted - was_opted,
        );
        match is - was {
            1 => self.add(business, day_of(now_ms), Counter::Follows, 1),
            -1 => self.add(business, day_of(now_ms), Counter::Unfollows, 1),
            _ => {}
        }
    }

    /// A follow ended by its user's erasure, from `before` ((active, marketing_opt_in)): the
    /// follower totals move, but no daily unfollow is counted.
    pub fn erased_follow(&mut self, business: Uuid, before: (bool, bool)) {
        let (was, was_opted) = follower(before.0, before.1);
        self.add(business, TOTALS, Counter::FollowersActive, -was);
        self.add(business, TOTALS, Counter::FollowersOptIn, -was_opted);
    }

    /// A user message received at `now_ms`.
    pub fn received(&mut self, business: Uuid, now_ms: i64) {
        self.both(business, now_ms, Counter::Received, 1);
    }

    /// A kept user message purged.
    pub fn purged_received(&mut self, business: Uuid) {
        self.add(business, TOTALS, Counter::Received, -1);
    }

    /// `n` conversations turned unread (1) or read (-1).
    pub fn unread_conversations(&mut self, business: Uuid, n: i64) {
        self.add(business, TOTALS, Counter::UnreadConversations, n);
    }

    /// A kept message purged.
    pub fn purged_message(&mut self, business: Uuid, category_of: Category, status: MessageStatus) {
        self.add(business, TOTALS, category(category_of), -1);
        self.add(business, TOTALS, message_status(status), -1);
    }

    /// A settled delivery purged.
    pub fn purged_delivery(&mut self, business: Uuid, status: DeliveryStatus) {
        let counter = match status {
            DeliveryStatus::Succeeded => Counter::WebhooksSucceeded,
            DeliveryStatus::Failed => Counter::WebhooksFailed,
            DeliveryStatus::Pending | DeliveryStatus::Retrying => Counter::WebhooksPending,
        };
        self.add(business, TOTALS, counter, -1);
    }

    /// Adds another tally's changes to this one.
    pub fn merge(&mut self, other: Tally) {
        for (key, counts) in other.rows {
            let row = self.rows.entry(key).or_insert([0; COLUMNS.len()]);
            for (total, n) in row.iter_mut().zip(counts) {
                *total += n;
            }
        }
    }

    /// PostgreSQL: the tally's upsert into a random slot as a statement of its own or a
    /// data-modifying `WITH` part, its rows read from parameter `$param` (the returned value)
    /// and written only where `condition` (SQL, may be empty) holds. None when it is empty.
    pub fn pg_upsert(self, param: usize, condition: &str) -> Option<(String, Value)> {
        let (rows, used) = self.changed()?;
        Some(pg::upsert(&rows, &used, random_slot(), param, condition))
    }

    /// The rows that change something, and the columns some row changes (the statement's
    /// text depends on which, so the statement cache holds a few shapes). None when nothing
    /// changes.
    fn changed(self) -> Option<(Vec<Row>, Vec<usize>)> {
        let rows: Vec<Row> = self
            .rows
            .into_iter()
            .filter(|(_, counts)| counts.iter().any(|n| *n != 0))
            .collect();
        if rows.is_empty() {
            return None;
        }
        let used: Vec<usize> = (0..COLUMNS.len())
            .filter(|&c| rows.iter().any(|(_, counts)| counts[c] != 0))
            .collect();
        Some((rows, used))
    }

    /// Writes the tally with one statement into a random slot (nothing when it is empty). Call
    /// it last in the transaction, right before the commit.
    pub async fn apply(self, db: &impl ConnectionTrait) -> AppResult<()> {
        self.apply_to_slot(db, random_slot()).await
    }

    /// [`Tally::apply`] into `slot`.
    pub async fn apply_to_slot(self, db: &impl ConnectionTrait, slot: i32) -> AppResult<()> {
        let Some((rows, used)) = self.changed() else {
            return Ok(());
        };
        if db.get_database_backend() == sea_orm::DbBackend::Postgres {
            return pg::apply(db, &rows, &used, slot).await;
        }
        let names: Vec<&str> = used.iter().map(|&c| COLUMNS[c]).collect();
        let updates: Vec<String> = names
            .iter()
            .map(|name| format!("{name} = usage_counters.{name} + excluded.{name}"))
            .collect();
        let mut values: Vec<Value> = Vec::with_capacity(rows.len() * (3 + used.len()));
        let mut tuples = Vec::with_capacity(rows.len());
        for ((business, day), counts) in &rows {
            let first = values.len() + 1;
            values.push((*business).into());
            values.push((*day).into());
            values.push(slot.into());
            values.extend(used.iter().map(|&c| Value::from(counts[c])));
            let placeholders: Vec<String> =
                (first..=values.len()).map(|i| format!("${i}")).collect();
            tuples.push(format!("({})", placeholders.join(", ")));
        }
        let sql = format!(
            "INSERT INTO usage_counters (business_id, day, slot, {}) VALUES {} \
             ON CONFLICT (business_id, day, slot) DO UPDATE SET {}",
            names.join(", "),
            tuples.join(", "),
            updates.join(", ")
        );
        db.execute_raw(Statement::from_sql_and_values(
            db.get_database_backend(),
            sql,
            values,
        ))
        .await?;
        Ok(())
    }
}

fn sums() -> String {
    COLUMNS
        .iter()
        .map(|c| format!("CAST(COALESCE(SUM({c}), 0) AS BIGINT)"))
        .collect::<Vec<_>>()
        .join(", ")
}

fn counts_of(row: &sea_orm::QueryResult, first: usize) -> AppResult<Counts> {
    let mut counts = [0; COLUMNS.len()];
    for (i, n) in counts.iter_mut().enumerate() {
        *n = row.try_get_by_index::<i64>(first + i)?;
    }
    Ok(counts)
}

/// The totals of a business.
pub async fn totals(db: &impl ConnectionTrait, business: Uuid) -> AppResult<Counts> {
    let sql = format!(
        "SELECT {} FROM usage_counters WHERE business_id = $1 AND day = $2",
        sums()
    );
    let row = db
        .query_one_raw(Statement::from_sql_and_values(
            db.get_database_backend(),
            sql,
            [business.into(), TOTALS.into()],
        ))
        .await?;
    match row {
        Some(row) => counts_of(&row, 0),
        None => Ok([0; COLUMNS.len()]),
    }
}

/// The daily figures of a business from day `first` to day `last` (both included), for the
/// days that have any, oldest first.
pub async fn daily(
    db: &impl ConnectionTrait,
    business: Uuid,
    first: i32,
    last: i32,
) -> AppResult<Vec<(i32, Counts)>> {
    let sql = format!(
        "SELECT day, {} FROM usage_counters WHERE business_id = $1 AND day >= $2 AND day <= $3 \
         GROUP BY day ORDER BY day",
        sums()
    );
    let rows = db
        .query_all_raw(Statement::from_sql_and_values(
            db.get_database_backend(),
            sql,
            [business.into(), first.max(TOTALS + 1).into(), last.into()],
        ))
        .await?;
    rows.iter()
        .map(|row| Ok((row.try_get_by_index::<i32>(0)?, counts_of(row, 1)?)))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_day_is_a_utc_day() {
        assert_eq!(day_of(0), 0);
        assert_eq!(day_of(DAY_MS - 1), 0);
        assert_eq!(day_of(DAY_MS), 1);
        assert_eq!(day_of(-1), -1);
        // 2026-11-24T08:00:00Z
        assert_eq!(day_of(1_795_507_200_000), 20_781);
    }

    #[test]
    fn a_no_op_follow_change_counts_nothing() {
        let b = Uuid::nil();
        let mut tally = Tally::new();
        tally.follow(b, Some((false, true)), (false, false), 0);
        tally.follow(b, Some((true, true)), (true, true), 0);
        assert!(
            tally
                .rows
                .values()
                .all(|counts| counts.iter().all(|n| *n == 0))
        );
    }

    #[test]
    fn follows_move_totals_and_days() {
        let b = Uuid::nil();
        let mut tally = Tally::new();
        tally.follow(b, None, (true, true), DAY_MS * 3);
        tally.follow(b, Some((true, true)), (true, false), DAY_MS * 3);
        tally.follow(b, Some((true, false)), (false, false), DAY_MS * 4);
        let totals = tally.rows[&(b, TOTALS)];
        assert_eq!(totals[Counter::FollowersActive as usize], 0);
        assert_eq!(totals[Counter::FollowersOptIn as usize], 0);
        assert_eq!(tally.rows[&(b, 3)][Counter::Follows as usize], 1);
        assert_eq!(tally.rows[&(b, 4)][Counter::Unfollows as usize], 1);
    }

    #[test]
    fn an_outcome_moves_a_message_between_statuses() {
        let b = Uuid::nil();
        let mut tally = Tally::new();
        tally.accepted(b, Category::Utility, MessageStatus::Accepted, DAY_MS);
        tally.decided(b, true, DAY_MS * 2);
        let totals = tally.rows[&(b, TOTALS)];
        assert_eq!(totals[Counter::Utility as usize], 1);
        assert_eq!(totals[Counter::Accepted as usize], 0);
        assert_eq!(totals[Counter::Delivered as usize], 1);
        assert_eq!(tally.rows[&(b, 1)][Counter::Utility as usize], 1);
        assert_eq!(tally.rows[&(b, 2)][Counter::Delivered as usize], 1);
    }
}
