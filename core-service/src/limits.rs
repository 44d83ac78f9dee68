//! Request limits kept in the database, so they hold across every core sharing it.
//!
//! Rates use GCRA (the generic cell rate algorithm): one stored "theoretical arrival time" per
//! key (in microseconds) gives both the decision and the exact wait until the next request would
//! pass, which is what `Retry-After` reports. Taking a unit is one conditional UPDATE, atomic on
//! both databases, so two cores never both spend the last unit and a hot key needs no retry
//! loop.

use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;

use sea_orm::sea_query::{Expr, ExprTrait as _, OnConflict};
use sea_orm::{
    ColumnTrait, ConnectionTrait, DatabaseConnection, EntityTrait, QueryFilter, Set,
    TransactionTrait,
};

use crate::clock::SharedClock;
use crate::entities::rate_limits;
use crate::error::{AppError, AppResult};

/// `count` requests per `period`, with bursts of up to `count`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Rate {
    pub count: u32,
    pub period: Duration,
}

impl Rate {
    pub const fn per(count: u32, period: Duration) -> Rate {
        Rate { count, period }
    }

    fn interval_us(&self) -> i64 {
        Ord::max(
            self.period.as_micros() as i64 / i64::from(Ord::max(self.count, 1)),
            1,
        )
    }
}

/// The wait before `units` units of a key holding `stored` would pass, if any.
fn wait(stored: i64, now: i64, rate: Rate, units: u32) -> Option<Duration> {
    let allow_at =
        stored - (rate.period.as_micros() as i64 - rate.interval_us() * i64::from(units));
    (now < allow_at).then(|| Duration::from_micros((allow_at - now) as u64))
}

/// Counts a refusal by a limit, labelled by the kind of limit (the key's prefix, such as
/// `otp_request` or `send`: never the phone number or address in the key).
pub fn count_refusal(limit: &str) {
    metrics::counter!("rate_limit_refusals_total", "limit" => limit.to_string()).increment(1);
}

/// The kind of a limit key: its first two `:`-separated parts (`otp_request:cooldown` of
/// `otp_request:cooldown:+14155550123`).
fn kind(key: &str) -> &str {
    match key.match_indices(':').nth(1) {
        Some((end, _)) => &key[..end],
        None => key,
    }
}

/// A clock reading older than this when a limit refuses is read again and the limit retried.
const STALE_AFTER_US: i64 = 20_000;

/// A unit taken on one key: the key and the arrival time it moved to.
#[derive(Debug, Clone)]
pub struct Taken {
    key: String,
    interval_us: i64,
}

#[derive(Clone)]
pub struct Limiter {
    db: DatabaseConnection,
    clock: SharedClock,
}

impl Limiter {
    pub fn new(db: DatabaseConnection, clock: SharedClock) -> Self {
        Limiter { db, clock }
    }

    /// Takes one unit from every `(key, rate)` or none: when any key is exhausted, nothing is
    /// taken and the error is `code` with the longest wait among the exhausted keys.
    pub async fn acquire(
        &self,
        limits: &[(String, Rate)],
        code: proto::ErrorCode,
    ) -> AppResult<Vec<Taken>> {
        let units: Vec<(&str, Rate, u32)> = limits
            .iter()
            .map(|(key, rate)| (key.as_str(), *rate, 1))
            .collect();
        self.take_all(&units, code).await?;
        Ok(limits
            .iter()
            .map(|(key, rate)| Taken {
                key: key.clone(),
                interval_us: rate.interval_us(),
            })
            .collect())
    }

    /// Takes `units` units of `key` at once, all or none, with one conditional UPDATE (`units`
    /// at most the rate's count). When they do not all fit, nothing is taken and the error is
    /// `code` with the wait until they do.
    pub async fn acquire_units(
        &self,
        key: &str,
        rate: Rate,
        units: u32,
        code: proto::ErrorCode,
    ) -> AppResult<()> {
        self.take_all(&[(key, rate, units)], code).await
    }

    /// Takes every `(key, rate, units)` in one transaction, or nothing: refused with `code` and
    /// the longest wait among the keys that do not fit.
    async fn take_all(
        &self,
        limits: &[(&str, Rate, u32)],
        code: proto::ErrorCode,
    ) -> AppResult<()> {
        let mut retried = false;
        loop {
            // The clock is read once the transaction holds a connection (a wait for the pool
            // must not make "now" stale), and read again before a refusal stands: a request
            // is never refused against arrivals recorded after its clock was read.
            let txn = self.db.begin().await?;
            let now = self.clock.now().timestamp_micros();
            let mut refused: Option<Duration> = None;
            for (key, rate, units) in limits {
                if let Err(w) = take_units(&txn, key, *rate, *units, now).await? {
                    refused = Some(refused.map_or(w, |cur| cur.max(w)));
                }
            }
            let Some(wait) = refused else {
                txn.commit().await?;
                return Ok(());
            };
            txn.rollback().await?;
            if !retried && self.went_stale(now) {
                retried = true;
                continue;
            }
            if let Some((key, _, _)) = limits.first() {
                count_refusal(kind(key));
            }
            return Err(AppError::retry_after(code, wait, "request limit reached"));
        }
    }

    /// Whether the clock moved on noticeably since `now_us` was read (a slow database call in
    /// between): a refusal computed at `now_us` is then checked again at the current time.
    fn went_stale(&self, now_us: i64) -> bool {
        self.clock.now().timestamp_micros() - now_us > STALE_AFTER_US
    }

    /// Gives back units taken by [`Limiter::acquire`], for a request that failed for a reason
    /// that must not count (the SMS provider was down, a later check refused the send).
    pub async fn release(&self, taken: &[Taken]) {
        for t in taken {
            let result = rate_limits::Entity::update_many()
                .col_expr(
                    rate_limits::Column::Value,
                    Expr::col(rate_limits::Column::Value).sub(t.interval_us),
                )
                .filter(rate_limits::Column::Key.eq(t.key.clone()))
                .exec(&self.db)
                .await;
            if let Err(err) = result {
                tracing::warn!(error = %err, key = %t.key, "could not release a rate-limit unit");
            }
        }
    }

    /// Takes one of the `cap` units of a counter that lives until `expires_at_ms` (a daily
    /// budget of failures, say), with one conditional UPDATE: of concurrent requests at most
    /// `cap` get a unit, whatever their timing. Returns false when the counter is spent.
    pub async fn take_counted(&self, key: &str, cap: i64, expires_at_ms: i64) -> AppResult<bool> {
        if cap <= 0 {
            return Ok(false);
        }
        let now = self.clock.now_ms();
        for _ in 0..5 {
            let taken = rate_limits::Entity::update_many()
                .col_expr(
                    rate_limits::Column::Value,
                    Expr::col(rate_limits::Column::Value).add(1),
                )
                .filter(rate_limits::Column::Key.eq(key))
                .filter(rate_limits::Column::Value.lt(cap))
                .filter(rate_limits::Column::ExpiresAtMs.gt(now))
                .exec(&self.db)
                .await?;
            if taken.rows_affected == 1 {
                return Ok(true);
            }
            match rate_limits::Entity::find_by_id(key.to_string())
                .one(&self.db)
                .await?
            {
                Some(row) if row.expires_at_ms > now => {
                    if row.value >= cap {
                        return Ok(false);
                    }
                    // Created or changed under us between the UPDATE and the read: again.
                }
                Some(row) => {
                    // A counter of a past period: start it again, once.
                    let restarted = rate_limits::Entity::update_many()
                        .col_expr(rate_limits::Column::Value, Expr::value(1))
                        .col_expr(rate_limits::Column::ExpiresAtMs, Expr::value(expires_at_ms))
                        .filter(rate_limits::Column::Key.eq(key))
                        .filter(rate_limits::Column::ExpiresAtMs.eq(row.expires_at_ms))
                        .exec(&self.db)
                        .await?;
                    if restarted.rows_affected == 1 {
                        return Ok(true);
                    }
                }
                None => {
                    let row = rate_limits::ActiveModel {
                        key: Set(key.to_string()),
                        value: Set(1),
                        expires_at_ms: Set(expires_at_ms),
                    };
                    let inserted = rate_limits::Entity::insert(row)
                        .on_conflict(
                            OnConflict::column(rate_limits::Column::Key)
                                .do_nothing()
                                .to_owned(),
                        )
                        .exec_without_returning(&self.db)
                        .await?;
                    if inserted == 1 {
                        return Ok(true);
                    }
                }
            }
        }
        Err(AppError::internal("counter contention"))
    }

    /// Gives back a unit taken by [`Limiter::take_counted`] for a request that turned out not
    /// to count (a correct code).
    pub async fn give_back_counted(&self, key: &str) -> AppResult<()> {
        rate_limits::Entity::update_many()
            .col_expr(
                rate_limits::Column::Value,
                Expr::col(rate_limits::Column::Value).sub(1),
            )
            .filter(rate_limits::Column::Key.eq(key))
            .filter(rate_limits::Column::Value.gt(0))
            .exec(&self.db)
            .await?;
        Ok(())
    }
}

/// Locks `key`'s row until the end of `txn`, creating it (kept until `expires_at_ms`): the
/// transactions that check one thing against stored rows (the service limit of a recipient)
/// take turns on it, so each sees what the one before it wrote. One statement.
pub(crate) async fn hold(
    txn: &impl ConnectionTrait,
    key: &str,
    expires_at_ms: i64,
) -> AppResult<()> {
    let row = rate_limits::ActiveModel {
        key: Set(key.to_string()),
        value: Set(0),
        expires_at_ms: Set(expires_at_ms),
    };
    rate_limits::Entity::insert(row)
        .on_conflict(
            OnConflict::column(rate_limits::Column::Key)
                .update_column(rate_limits::Column::ExpiresAtMs)
                .to_owned(),
        )
        .exec_without_returning(txn)
        .await?;
    Ok(())
}

/// Takes `units` units of `key` at once (`units` at most the rate's count), or none. Returns
/// the wait before all of them would pass when refused.
/// Takes `units` units of `key` inside the caller's transaction (all or none), at `now_us`:
/// `Ok` with the units taken, or the wait until they fit. The units are spent only if the
/// transaction commits, so they go exactly with what it stores.
pub async fn take_in(
    txn: &impl ConnectionTrait,
    key: &str,
    rate: Rate,
    units: u32,
    now_us: i64,
) -> AppResult<Result<u32, Duration>> {
    take_units(txn, key, rate, units, now_us).await
}

/// [`take_in`] of one unit of each of `keys` (distinct), with one read and one write for all:
/// each key's answer, in `keys`' order. Exact only while the caller's transaction holds what
/// serializes these keys' takers (the conversation rows of the inbound limit); a key nobody
/// took yet is inserted.
pub async fn take_each_in(
    txn: &impl ConnectionTrait,
    keys: &[String],
    rate: Rate,
    now_us: i64,
) -> AppResult<Vec<Result<u32, Duration>>> {
    if keys.is_empty() {
        return Ok(Vec::new());
    }
    let stored: HashMap<String, i64> = rate_limits::Entity::find()
        .filter(crate::db::bulk::text_in(
            txn.get_database_backend(),
            rate_limits::Column::Key,
            keys.iter().cloned(),
        ))
        .all(txn)
        .await?
        .into_iter()
        .map(|row| (row.key, row.value))
        .collect();
    let interval = rate.interval_us();
    let mut answers = Vec::with_capacity(keys.len());
    let mut taken: Vec<(String, i64)> = Vec::with_capacity(keys.len());
    for key in keys {
        match stored.get(key) {
            Some(&value) if let Some(wait) = wait(value, now_us, rate, 1) => {
                answers.push(Err(wait));
            }
            value => {
                let next = Ord::max(value.copied().unwrap_or(now_us), now_us) + interval;
                taken.push((key.clone(), next));
                answers.push(Ok(1));
            }
        }
    }
    if taken.is_empty() {
        return Ok(answers);
    }
    crate::db::bulk::upsert_all(
        txn,
        taken
            .into_iter()
            .map(|(key, value)| rate_limits::ActiveModel {
                key: Set(key),
                value: Set(value),
                expires_at_ms: Set(value / 1000),
            })
            .collect(),
        &[rate_limits::Column::Key],
        &[rate_limits::Column::Value, rate_limits::Column::ExpiresAtMs],
    )
    .await?;
    Ok(answers)
}

/// Whether [`take_in`] would take one unit of `key` at `now_us`, taking nothing: None, or the
/// wait it would answer (a send check). One read.
pub async fn peek_in(
    db: &impl ConnectionTrait,
    key: &str,
    rate: Rate,
    now_us: i64,
) -> AppResult<Option<Duration>> {
    let stored = rate_limits::Entity::find_by_id(key.to_string())
        .one(db)
        .await?;
    Ok(stored.and_then(|row| wait(row.value, now_us, rate, 1)))
}

async fn take_units(
    db: &impl ConnectionTrait,
    key: &str,
    rate: Rate,
    units: u32,
    now: i64,
) -> AppResult<Result<u32, Duration>> {
    let units = Ord::clamp(units, 1, Ord::max(rate.count, 1));
    let interval = rate.interval_us() * i64::from(units);
    // Taking `units` at once is allowed while the new arrival time stays within one period.
    let limit = now + rate.period.as_micros() as i64 - interval;
    for _ in 0..3 {
        // value' = max(value, now) + units * interval, only where value <= limit.
        let next = Expr::case(
            Expr::col(rate_limits::Column::Value).gt(now),
            Expr::col(rate_limits::Column::Value),
        )
        .finally(Expr::val(now))
        .add(interval);
        let expires = next.clone().div(1000);
        let updated = rate_limits::Entity::update_many()
            .col_expr(rate_limits::Column::Value, next)
            .col_expr(rate_limits::Column::ExpiresAtMs, expires)
            .filter(rate_limits::Column::Key.eq(key))
            .filter(Expr::col(rate_limits::Column::Value).lte(limit))
            .exec(db)
            .await?;
        if updated.rows_affected == 1 {
            return Ok(Ok(units));
        }
        match rate_limits::Entity::find_by_id(key.to_string())
            .one(db)
            .await?
        {
            Some(row) => {
                if row.value > limit {
                    // Until all `units` fit.
                    return Ok(Err(
                        wait(row.value, now, rate, units).unwrap_or(Duration::from_micros(1))
                    ));
                }
                // Moved under us between the UPDATE and the read: try again.
            }
            None => {
                let row = rate_limits::ActiveModel {
                    key: Set(key.to_string()),
                    value: Set(now + interval),
                    expires_at_ms: Set((now + interval) / 1000),
                };
                let inserted = rate_limits::Entity::insert(row)
                    .on_conflict(
                        OnConflict::column(rate_limits::Column::Key)
                            .do_nothing()
                            .to_owned(),
                    )
                    .exec_without_returning(db)
                    .await?;
                if inserted == 1 {
                    return Ok(Ok(units));
                }
            }
        }
    }
    Err(AppError::internal("rate limiter contention"))
}

/// A capacity limit spent in memory from chunks taken in the database (DESIGN.md, "Capacity
/// limits"): a core takes a tenth of the per-period rate with one UPDATE and hands the units
/// out locally, so a busy key is not one row every request waits on. Across all cores the limit
/// holds to within one chunk per core. Near the limit chunks fail and single units are taken,
/// exactly as [`Limiter::acquire`] would.
pub struct Budget {
    limiter: Limiter,
    buckets: std::sync::Mutex<HashMap<String, Arc<tokio::sync::Mutex<Local>>>>,
}

#[derive(Debug, Default)]
struct Local {
    units: u32,
    /// Units not spent by then are dropped: they belonged to that period.
    valid_until_us: i64,
}

impl Budget {
    pub fn new(limiter: Limiter) -> Self {
        Budget {
            limiter,
            buckets: std::sync::Mutex::new(HashMap::new()),
        }
    }

    fn bucket(&self, key: &str) -> Arc<tokio::sync::Mutex<Local>> {
        let mut buckets = self.buckets.lock().unwrap_or_else(|e| e.into_inner());
        if buckets.len() > 10_000 {
            // Forget idle keys now and then (an empty local bucket holds nothing).
            buckets.retain(|_, b| Arc::strong_count(b) > 1);
        }
        buckets.entry(key.to_string()).or_default().clone()
    }

    /// Takes one unit of `key`, refusing with `code` and the wait when the limit is reached.
    pub async fn take(&self, key: &str, rate: Rate, code: proto::ErrorCode) -> AppResult<()> {
        let bucket = self.bucket(key);
        let mut local = bucket.lock().await;
        let mut now = self.limiter.clock.now().timestamp_micros();
        if local.units > 0 && now < local.valid_until_us {
            local.units -= 1;
            return Ok(());
        }
        let chunk = Ord::max(rate.count / 10, 1);
        let mut retried = false;
        let taken = loop {
            let mut taken = take_units(&self.limiter.db, key, rate, chunk, now).await?;
            if taken.is_err() && chunk > 1 {
                taken = take_units(&self.limiter.db, key, rate, 1, now).await?;
            }
            // A refusal computed with a clock read before slow database calls is checked
            // again at the current time (see `Limiter::acquire`).
            if taken.is_err() && !retried && self.limiter.went_stale(now) {
                retried = true;
                now = self.limiter.clock.now().timestamp_micros();
                continue;
            }
            break taken;
        };
        match taken {
            Ok(units) => {
                local.units = units - 1;
                local.valid_until_us = now + rate.period.as_micros() as i64;
                Ok(())
            }
            Err(wait) => {
                count_refusal(kind(key));
                Err(AppError::retry_after(code, wait, "request limit reached"))
            }
        }
    }

    /// Whether [`Budget::take`] would take a unit of `key` now, taking nothing: `Ok`, or the
    /// refusal it would answer (a send check). One read at most.
    pub async fn peek(&self, key: &str, rate: Rate, code: proto::ErrorCode) -> AppResult<()> {
        let bucket = self.bucket(key);
        let local = bucket.lock().await;
        let now = self.limiter.clock.now().timestamp_micros();
        if local.units > 0 && now < local.valid_until_us {
            return Ok(());
        }
        drop(local);
        let stored = rate_limits::Entity::find_by_id(key.to_string())
            .one(&self.limiter.db)
            .await?;
        match stored.and_then(|row| wait(row.value, now, rate, 1)) {
            Some(wait) => Err(AppError::retry_after(code, wait, "request limit reached")),
            None => Ok(()),
        }
    }

    /// Gives back a unit of `key` taken by [`Budget::take`] for a request that did not go
    /// through after all.
    pub async fn refund(&self, key: &str) {
        let bucket = self.bucket(key);
        let mut local = bucket.lock().await;
        local.units += 1;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn after(stored: Option<i64>, now: i64, rate: Rate) -> Result<i64, Duration> {
        let stored = stored.unwrap_or(now);
        match wait(stored, now, rate, 1) {
            Some(w) => Err(w),
            None => Ok(Ord::max(stored, now) + rate.interval_us()),
        }
    }

    #[test]
    fn a_cooldown_allows_one_request_per_period_and_says_how_long_to_wait() {
        let rate = Rate::per(1, Duration::from_secs(60));
        let tat = after(None, 0, rate).unwrap();
        assert_eq!(
            after(Some(tat), 1_000_000, rate),
            Err(Duration::from_secs(59))
        );
        assert!(after(Some(tat), 60_000_000, rate).is_ok());
    }

    #[test]
    fn an_hourly_cap_allows_a_burst_then_refills_steadily() {
        let rate = Rate::per(5, Duration::from_secs(3600));
        let mut tat = None;
        for _ in 0..5 {
            tat = Some(after(tat, 0, rate).unwrap());
        }
        assert_eq!(after(tat, 0, rate), Err(Duration::from_secs(720)));
        assert!(after(tat, 720_000_000, rate).is_ok());
    }

    #[test]
    fn a_refusal_is_labelled_by_the_kind_of_limit_never_by_its_subject() {
        assert_eq!(
            kind("otp_request:cooldown:+14155550123"),
            "otp_request:cooldown"
        );
        assert_eq!(kind("otp_request:ip:2001:db8::1"), "otp_request:ip");
        assert_eq!(kind("send:business"), "send:business");
        assert_eq!(kind("plain"), "plain");
    }

    #[test]
    fn several_units_wait_until_all_of_them_fit() {
        // 100 an hour (one every 36 s), 60 taken at once: 50 more fit in 360 s, 40 now.
        let rate = Rate::per(100, Duration::from_secs(3600));
        let stored = 60 * 36_000_000;
        assert_eq!(wait(stored, 0, rate, 50), Some(Duration::from_secs(360)));
        assert_eq!(wait(stored, 0, rate, 40), None);
        assert_eq!(wait(stored, 0, rate, 1), None);
    }

    #[test]
    fn high_rates_keep_sub_millisecond_precision() {
        let rate = Rate::per(2_000, Duration::from_secs(1));
        assert_eq!(rate.interval_us(), 500);
    }

    /// A clock whose first reading is `stale` and every later one `fresh`: a request that read
    /// the time, then waited on a slow database.
    struct StaleFirst {
        readings: std::sync::Mutex<u32>,
        stale: chrono::DateTime<chrono::Utc>,
        fresh: chrono::DateTime<chrono::Utc>,
    }

    impl crate::clock::Clock for StaleFirst {
        fn now(&self) -> chrono::DateTime<chrono::Utc> {
            let mut n = self.readings.lock().unwrap();
            *n += 1;
            if *n == 1 { self.stale } else { self.fresh }
        }
    }

    async fn database() -> DatabaseConnection {
        let db = crate::db::connect("sqlite::memory:", 1).await.unwrap();
        crate::db::migrate(&db, "sqlite::memory:").await.unwrap();
        db
    }

    fn stale_first(fresh: chrono::DateTime<chrono::Utc>) -> SharedClock {
        Arc::new(StaleFirst {
            readings: std::sync::Mutex::new(0),
            stale: fresh - chrono::TimeDelta::seconds(17),
            fresh,
        })
    }

    #[tokio::test]
    async fn a_limiter_never_refuses_because_its_clock_was_read_before_a_slow_database_call() {
        let db = database().await;
        let fresh = chrono::Utc::now();
        let rate = Rate::per(2_000, Duration::from_secs(1));
        // Another request, whose clock was read after the outage, took a unit just now.
        let current = Limiter::new(db.clone(), Arc::new(crate::clock::ManualClock::new(fresh)));
        current
            .acquire(&[("k".into(), rate)], proto::ErrorCode::RateLimited)
            .await
            .unwrap();
        let budget = Budget::new(Limiter::new(
            db.clone(),
            Arc::new(crate::clock::ManualClock::new(fresh)),
        ));
        budget
            .take("b", rate, proto::ErrorCode::BusinessSendRateLimited)
            .await
            .unwrap();

        // This one read "now" 17 s before that, then waited: it is not refused for it.
        let late = Limiter::new(db.clone(), stale_first(fresh));
        late.acquire(&[("k".into(), rate)], proto::ErrorCode::RateLimited)
            .await
            .expect("not refused against a later arrival");
        let late = Budget::new(Limiter::new(db.clone(), stale_first(fresh)));
        late.take("b", rate, proto::ErrorCode::BusinessSendRateLimited)
            .await
            .expect("not refused against a later chunk");

        // A limit that is really spent still refuses.
        let cooldown = Rate::per(1, Duration::from_secs(60));
        current
            .acquire(&[("c".into(), cooldown)], proto::ErrorCode::RateLimited)
            .await
            .unwrap();
        let again = Limiter::new(db.clone(), stale_first(fresh));
        let refused = again
            .acquire(&[("c".into(), cooldown)], proto::ErrorCode::RateLimited)
            .await
            .unwrap_err();
        assert_eq!(refused.code, proto::ErrorCode::RateLimited);
    }
}
