//! Request limits kept in the database, so they hold across every core sharing it.
//!
//! Rates use GCRA (the generic cell rate algorithm): one stored "theoretical arrival time" per
//! key (in microseconds) gives both the decision and the exact wait until the next request would
//! pass, which is what `Retry-After` reports. Taking a unit is one conditional UPDATE, atomic on
//! both databases, so two cores never both spend the last unit and a hot key needs no retry
//! loop.

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

    fn tolerance_us(&self) -> i64 {
        self.period.as_micros() as i64 - self.interval_us()
    }
}

/// The wait before a request on a key holding `stored` would pass, if any.
fn wait(stored: i64, now: i64, rate: Rate) -> Option<Duration> {
    let allow_at = stored - rate.tolerance_us();
    (now < allow_at).then(|| Duration::from_micros((allow_at - now) as u64))
}

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

enum Attempt {
    Taken,
    Refused(Duration),
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
        let now = self.clock.now().timestamp_micros();
        let txn = self.db.begin().await?;
        let mut refused: Option<Duration> = None;
        for (key, rate) in limits {
            if let Attempt::Refused(w) = take(&txn, key, *rate, now).await? {
                refused = Some(refused.map_or(w, |cur| cur.max(w)));
            }
        }
        if let Some(wait) = refused {
            txn.rollback().await?;
            return Err(AppError::retry_after(code, wait, "request limit reached"));
        }
        txn.commit().await?;
        Ok(limits
            .iter()
            .map(|(key, rate)| Taken {
                key: key.clone(),
                interval_us: rate.interval_us(),
            })
            .collect())
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

    /// The value of a counter (0 when absent or expired).
    pub async fn counter(&self, key: &str) -> AppResult<i64> {
        let now = self.clock.now_ms();
        Ok(rate_limits::Entity::find_by_id(key.to_string())
            .one(&self.db)
            .await?
            .filter(|row| row.expires_at_ms > now)
            .map_or(0, |row| row.value))
    }

    /// Adds one to a counter that lives until `expires_at_ms`.
    pub async fn increment(&self, key: &str, expires_at_ms: i64) -> AppResult<()> {
        let row = rate_limits::ActiveModel {
            key: Set(key.to_string()),
            value: Set(1),
            expires_at_ms: Set(expires_at_ms),
        };
        rate_limits::Entity::insert(row)
            .on_conflict(
                OnConflict::column(rate_limits::Column::Key)
                    .value(
                        rate_limits::Column::Value,
                        Expr::col((rate_limits::Entity, rate_limits::Column::Value)).add(1),
                    )
                    .to_owned(),
            )
            .exec_without_returning(&self.db)
            .await?;
        Ok(())
    }

    /// Deletes state that no longer limits anything.
    pub async fn purge_expired(&self) -> AppResult<u64> {
        let now = self.clock.now_ms();
        let deleted = rate_limits::Entity::delete_many()
            .filter(rate_limits::Column::ExpiresAtMs.lt(now))
            .exec(&self.db)
            .await?;
        Ok(deleted.rows_affected)
    }
}

/// Takes one unit of `key` at `now` (µs) with one conditional UPDATE, inserting the key when it
/// is new.
async fn take(db: &impl ConnectionTrait, key: &str, rate: Rate, now: i64) -> AppResult<Attempt> {
    let interval = rate.interval_us();
    for _ in 0..3 {
        // value' = max(value, now) + interval, only where value - tolerance <= now.
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
            .filter(Expr::col(rate_limits::Column::Value).lte(now + rate.tolerance_us()))
            .exec(db)
            .await?;
        if updated.rows_affected == 1 {
            return Ok(Attempt::Taken);
        }
        match rate_limits::Entity::find_by_id(key.to_string())
            .one(db)
            .await?
        {
            Some(row) => {
                if let Some(w) = wait(row.value, now, rate) {
                    return Ok(Attempt::Refused(w));
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
                    return Ok(Attempt::Taken);
                }
            }
        }
    }
    Err(AppError::internal("rate limiter contention"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn after(stored: Option<i64>, now: i64, rate: Rate) -> Result<i64, Duration> {
        let stored = stored.unwrap_or(now);
        match wait(stored, now, rate) {
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
    fn high_rates_keep_sub_millisecond_precision() {
        let rate = Rate::per(2_000, Duration::from_secs(1));
        assert_eq!(rate.interval_us(), 500);
    }
}
