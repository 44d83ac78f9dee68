//! Time as a dependency: every rule reads the time from a [`Clock`], so tests can move it.

use std::sync::{Arc, Mutex};

use chrono::{DateTime, DurationRound, TimeDelta, Utc};
use futures::future::BoxFuture;

/// The source of "now" for every time-dependent rule (expiry, cooldowns, limits).
pub trait Clock: Send + Sync + 'static {
    /// The current time, at microsecond precision (what both databases store).
    fn now(&self) -> DateTime<Utc>;

    /// The current time in Unix milliseconds, for columns compared in SQL.
    fn now_ms(&self) -> i64 {
        self.now().timestamp_millis()
    }

    /// Waits `for_` of this clock's time. The wall clock sleeps; a test clock moves itself
    /// forward and returns at once, so a rule that waits can be checked without waiting.
    fn sleep(&self, for_: std::time::Duration) -> BoxFuture<'static, ()> {
        Box::pin(tokio::time::sleep(for_))
    }
}

fn micros(t: DateTime<Utc>) -> DateTime<Utc> {
    t.duration_trunc(TimeDelta::microseconds(1)).unwrap_or(t)
}

/// The wall clock.
#[derive(Debug, Clone, Copy, Default)]
pub struct SystemClock;

impl Clock for SystemClock {
    fn now(&self) -> DateTime<Utc> {
        micros(Utc::now())
    }
}

/// A clock that only moves when told to; for tests.
#[derive(Debug, Clone)]
pub struct ManualClock(Arc<Mutex<DateTime<Utc>>>);

impl ManualClock {
    pub fn new(start: DateTime<Utc>) -> Self {
        ManualClock(Arc::new(Mutex::new(micros(start))))
    }

    /// Starts at the current wall-clock time.
    pub fn starting_now() -> Self {
        Self::new(Utc::now())
    }

    pub fn advance(&self, by: std::time::Duration) {
        let mut now = self.0.lock().unwrap_or_else(|e| e.into_inner());
        *now += TimeDelta::from_std(by).unwrap_or(TimeDelta::MAX);
    }

    pub fn set(&self, to: DateTime<Utc>) {
        *self.0.lock().unwrap_or_else(|e| e.into_inner()) = micros(to);
    }
}

impl Clock for ManualClock {
    fn now(&self) -> DateTime<Utc> {
        *self.0.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn sleep(&self, for_: std::time::Duration) -> BoxFuture<'static, ()> {
        self.advance(for_);
        Box::pin(std::future::ready(()))
    }
}

/// A shared clock.
pub type SharedClock = Arc<dyn Clock>;

/// RFC 3339 in UTC with millisecond precision and a `Z`, the format of every time on the wire.
pub fn rfc3339(t: DateTime<Utc>) -> String {
    t.to_rfc3339_opts(chrono::SecondsFormat::Millis, true)
}
