//! Request limits kept in the database, so they hold across every core sharing it.
//!
//! Rates use GCRA (the generic cell rate algorithm): one stored "theoretical arrival time" per
//! key gives both the decision and the exact wait until the next request would pass, which is
//! what `Retry-After` reports. Writes are conditional on the value read (optimistic
//! concurrency), so two cores never both spend the last unit.

use std::time::Duration;

use sea_orm::sea_query::{Expr, ExprTrait as _, OnConflict};
use sea_orm::{ColumnTrait, DatabaseConnection, EntityTrait, QueryFilter, Set};

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

    fn interval_ms(&self) -> i64 {
        Ord::max(
            self.period.as_millis() as i64 / i64::from(Ord::max(self.count, 1)),
            1,
        )
    }

    fn tolerance_ms(&self) -> i64 {
        self.period.as_millis() as i64 - self.interval_ms()
    }
}

/// Units taken by [`Limiter::acquire`]; hand them to [`Limiter::release`] to give them back.
#[derive(Debug, Clone)]
pub struct Taken {
    key: String,
    before: Option<i64>,
    after: i64,
}

#[derive(Clone)]
pub struct Limiter {
    db: DatabaseConnection,
    clock: SharedClock,
}

/// The outcome of checking one key: the new arrival time, or the wait.
fn gcra(stored: Option<i64>, now: i64, rate: Rate) -> Result<i64, Duration> {
    let tat = Ord::max(stored.unwrap_or(now), now);
    let allow_at = tat - rate.tolerance_ms();
    if now < allow_at {
        return Err(Duration::from_millis((allow_at - now) as u64));
    }
    Ok(tat + rate.interval_ms())
}

const MAX_RACES: usize = 16;

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
        for _ in 0..MAX_RACES {
            let now = self.clock.now_ms();
            let mut plan = Vec::with_capacity(limits.len());
            let mut wait: Option<Duration> = None;
            for (key, rate) in limits {
                let stored = rate_limits::Entity::find_by_id(key.clone())
                    .one(&self.db)
                    .await?
                    .map(|row| row.value);
                match gcra(stored, now, *rate) {
                    Ok(after) => plan.push(Taken {
                        key: key.clone(),
                        before: stored,
                        after,
                    }),
                    Err(w) => wait = Some(wait.map_or(w, |cur| cur.max(w))),
                }
            }
            if let Some(wait) = wait {
                return Err(AppError::retry_after(code, wait, "request limit reached"));
            }
            let mut done = Vec::with_capacity(plan.len());
            let mut raced = false;
            for taken in plan {
                if self.swap(&taken.key, taken.before, taken.after).await? {
                    done.push(taken);
                } else {
                    raced = true;
                    break;
                }
            }
            if !raced {
                return Ok(done);
            }
            self.release(&done).await;
        }
        Err(AppError::internal("rate limiter contention"))
    }

    /// Gives back units taken by [`Limiter::acquire`] (for a request that failed for a reason
    /// that must not count, such as the SMS provider being down). A unit spent again since is
    /// left alone.
    pub async fn release(&self, taken: &[Taken]) {
        for t in taken {
            let result = match t.before {
                Some(before) => rate_limits::Entity::update_many()
                    .col_expr(rate_limits::Column::Value, Expr::value(before))
                    .col_expr(rate_limits::Column::ExpiresAtMs, Expr::value(before))
                    .filter(rate_limits::Column::Key.eq(t.key.clone()))
                    .filter(rate_limits::Column::Value.eq(t.after))
                    .exec(&self.db)
                    .await
                    .map(|r| r.rows_affected),
                None => rate_limits::Entity::delete_many()
                    .filter(rate_limits::Column::Key.eq(t.key.clone()))
                    .filter(rate_limits::Column::Value.eq(t.after))
                    .exec(&self.db)
                    .await
                    .map(|r| r.rows_affected),
            };
            if let Err(err) = result {
                tracing::warn!(error = %err, key = %t.key, "could not release a rate-limit unit");
            }
        }
    }

    /// Sets `key` to `after` if it still holds `before`. Returns whether it did.
    async fn swap(&self, key: &str, before: Option<i64>, after: i64) -> AppResult<bool> {
        match before {
            None => {
                let row = rate_limits::ActiveModel {
                    key: Set(key.to_string()),
                    value: Set(after),
                    expires_at_ms: Set(after),
                };
                let inserted = rate_limits::Entity::insert(row)
                    .on_conflict(
                        OnConflict::column(rate_limits::Column::Key)
                            .do_nothing()
                            .to_owned(),
                    )
                    .exec_without_returning(&self.db)
                    .await?;
                Ok(inserted == 1)
            }
            Some(before) => {
                let updated = rate_limits::Entity::update_many()
                    .col_expr(rate_limits::Column::Value, Expr::value(after))
                    .col_expr(rate_limits::Column::ExpiresAtMs, Expr::value(after))
                    .filter(rate_limits::Column::Key.eq(key))
                    .filter(rate_limits::Column::Value.eq(before))
                    .exec(&self.db)
                    .await?;
                Ok(updated.rows_affected == 1)
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_cooldown_allows_one_request_per_period_and_says_how_long_to_wait() {
        let rate = Rate::per(1, Duration::from_secs(60));
        let tat = gcra(None, 0, rate).unwrap();
        assert_eq!(gcra(Some(tat), 1_000, rate), Err(Duration::from_secs(59)));
        assert!(gcra(Some(tat), 60_000, rate).is_ok());
    }

    #[test]
    fn an_hourly_cap_allows_a_burst_then_refills_steadily() {
        let rate = Rate::per(5, Duration::from_secs(3600));
        let mut tat = None;
        for _ in 0..5 {
            tat = Some(gcra(tat, 0, rate).unwrap());
        }
        let wait = gcra(tat, 0, rate).unwrap_err();
        assert_eq!(wait, Duration::from_secs(720));
        assert!(gcra(tat, 720_000, rate).is_ok());
    }
}
