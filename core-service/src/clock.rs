//! Time as a dependency: every rule reads the time from a [`Clock`], so tests can move it.

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};

use chrono::{DateTime, DurationRound, TimeDelta, Utc};
use futures::future::BoxFuture;
use uuid::Uuid;

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

/// A UUIDv7 made at `at`: its first 48 bits are `at` in Unix milliseconds, then a counter
/// and random bits.
///
/// Rows the purge ages by their creation (messages, users' messages, events, webhook
/// deliveries) take their id from the clock that stamps them, so that walking the primary key
/// up to [`ids_before`] visits exactly the rows made before a time and no index of that time
/// is needed. Ids made by this process at one millisecond count up, as `Uuid::now_v7`'s do, so
/// rows stamped with the same time still sort in the order they were made (lists ordered by
/// time, then id, rely on it).
pub fn id_at(at: DateTime<Utc>) -> Uuid {
    let ms = u64::try_from(at.timestamp_millis()).unwrap_or(0);
    let counter = {
        let mut counters = ID_COUNTERS.lock().unwrap_or_else(|e| e.into_inner());
        match counters.get_mut(&ms) {
            Some(count) if *count + 1 < 1 << ID_COUNTER_BITS => {
                *count += 1;
                *count
            }
            _ => {
                // A millisecond's first id starts its counter at a random point of the lower
                // half.
                let start = rand::random::<u64>() >> (64 - ID_COUNTER_BITS + 1);
                counters.insert(ms, start);
                if counters.len() > ID_MILLISECONDS_KEPT {
                    counters.pop_first();
                }
                start
            }
        }
    };
    Uuid::new_v7(uuid::Timestamp::from_unix_time(
        ms / 1000,
        (ms % 1000) as u32 * 1_000_000,
        u128::from(counter),
        ID_COUNTER_BITS,
    ))
}

/// Bits of [`id_at`]'s counter (the rest of the id after its time and version is random).
const ID_COUNTER_BITS: u8 = 42;

/// The counters of the latest milliseconds [`id_at`] made ids at (one clock's time moves
/// forward; a test process holds many clocks, each at its own time).
static ID_COUNTERS: Mutex<BTreeMap<u64, u64>> = Mutex::new(BTreeMap::new());

/// Milliseconds whose counters [`id_at`] keeps.
const ID_MILLISECONDS_KEPT: usize = 4096;

/// The least id [`id_at`] can give at `at`'s millisecond or later: the ids made before that
/// millisecond are exactly those below it.
pub fn ids_before(at: DateTime<Utc>) -> Uuid {
    Uuid::from_u128(u128::from(u64::try_from(at.timestamp_millis()).unwrap_or(0)) << 80)
}

/// A shared clock.
pub type SharedClock = Arc<dyn Clock>;

/// RFC 3339 in UTC with millisecond precision and a `Z`, the format of every time on the wire.
pub fn rfc3339(t: DateTime<Utc>) -> String {
    t.to_rfc3339_opts(chrono::SecondsFormat::Millis, true)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_made_before_a_millisecond_sort_below_its_bound_and_later_ones_above() {
        let at = DateTime::parse_from_rfc3339("2026-11-29T12:00:00.250Z")
            .unwrap()
            .with_timezone(&Utc);
        let bound = ids_before(at);
        let ms = TimeDelta::milliseconds(1);
        for _ in 0..100 {
            assert!(id_at(at - ms) < bound);
            assert!(id_at(at) >= bound);
            assert!(id_at(at + TimeDelta::microseconds(999)) >= bound);
        }
        let id = id_at(at);
        assert_eq!(id.get_version_num(), 7);
        let (secs, nanos) = id.get_timestamp().unwrap().to_unix();
        assert_eq!((secs, nanos), (at.timestamp() as u64, 250_000_000));
        // Ids of one millisecond count up in the order they are made.
        let made: Vec<Uuid> = (0..1000).map(|_| id_at(at)).collect();
        assert!(made.windows(2).all(|w| w[0] < w[1]));
        assert!(
            made.iter()
                .all(|id| *id >= bound && *id < ids_before(at + ms))
        );
        // So do another millisecond's, made between them.
        let (a, b, c) = (id_at(at - ms), id_at(at + ms), id_at(at - ms));
        assert!(a < c && c < bound && b >= ids_before(at + ms));
        assert!(id_at(at) > made[999]);
    }
}
