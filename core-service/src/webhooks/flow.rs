//! Flow control of the job stream: how much a stream may lease, and for whom.
//!
//! **Credits.** A stream hands its worker at most as many jobs as the worker said it can have
//! in flight (`max_in_flight`), counting a job from its lease until the worker reports it. The gRPC stream alone cannot bound this (HTTP/2 buffers whatever the
//! flow-control window allows), and a job leased into a buffer is a job no other worker can
//! take, and a slot an endpoint holds while the fairness rules cannot see it.
//!
//! Reports name their lease token; [`JobCredits`] maps each open token to the stream that
//! leased it. A lease that is never reported (the report call failed) gives its credit back
//! when it lapses.
//!
//! **Slow endpoints.** An endpoint whose attempt took [`SLOW_ATTEMPT`] or more (or got no
//! answer) is slow for [`SLOW_FOR`], in the database so every core sees it; while any endpoint
//! is slow, leases cap each endpoint's deliveries in flight. [`SlowEndpoints`] answers "is any
//! endpoint slow?" from a read at most a second old, so the common case keeps the plain queue
//! order without a read per lease.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, Weak};
use std::time::{Duration, Instant};

use sea_orm::DatabaseConnection;
use tokio::sync::Notify;

use super::store;
use crate::error::AppResult;

/// An attempt that took this long (or timed out, or could not connect) marks its endpoint slow.
pub const SLOW_ATTEMPT: Duration = Duration::from_secs(1);
/// How long an endpoint stays slow after its last slow attempt.
pub const SLOW_FOR: Duration = Duration::from_secs(60);

/// Whether any endpoint is slow, as this core last read it (at most a second ago) or learned
/// it from a report: the job stream leases with the per-endpoint cap only then, so the common
/// case keeps the plain queue order.
#[derive(Debug, Default)]
pub struct SlowEndpoints(tokio::sync::Mutex<Option<(Instant, bool)>>);

impl SlowEndpoints {
    const FRESH: Duration = Duration::from_secs(1);

    pub async fn any(&self, db: &DatabaseConnection, now_ms: i64) -> AppResult<bool> {
        let mut cached = self.0.lock().await;
        if let Some((read, any)) = *cached
            && read.elapsed() < Self::FRESH
        {
            return Ok(any);
        }
        let any = store::any_slow(db, now_ms).await?;
        *cached = Some((Instant::now(), any));
        Ok(any)
    }

    /// This core just marked an endpoint slow: lease with the cap from now on.
    pub async fn learned(&self) {
        *self.0.lock().await = Some((Instant::now(), true));
    }
}

/// One stream's credit: how many of its jobs are unreported, by lease token.
#[derive(Debug)]
pub struct Credits {
    room: usize,
    state: Mutex<State>,
    /// Signalled when jobs are reported.
    pub freed: Notify,
}

#[derive(Debug, Default)]
struct State {
    outstanding: usize,
    /// token -> (unreported jobs, when the lease lapses)
    leases: HashMap<String, (usize, Instant)>,
}

impl Credits {
    pub fn new(room: usize) -> Arc<Credits> {
        Arc::new(Credits {
            room: room.max(1),
            state: Mutex::new(State::default()),
            freed: Notify::new(),
        })
    }

    fn state(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// How many more jobs the worker can take now (lapsed leases are given back first).
    pub fn free(&self) -> usize {
        let mut state = self.state();
        let now = Instant::now();
        let mut lapsed = 0;
        state.leases.retain(|_, (count, until)| {
            let keep = *until > now;
            if !keep {
                lapsed += *count;
            }
            keep
        });
        state.outstanding = state.outstanding.saturating_sub(lapsed);
        self.room.saturating_sub(state.outstanding)
    }

    fn taken(&self, token: &str, count: usize, lease: Duration) {
        let mut state = self.state();
        state.outstanding += count;
        state
            .leases
            .insert(token.to_string(), (count, Instant::now() + lease));
    }

    /// One job of `token` was reported; returns whether the token has none left.
    fn returned(&self, token: &str) -> bool {
        let mut state = self.state();
        let Some((count, _)) = state.leases.get_mut(token) else {
            return true;
        };
        *count -= 1;
        let done = *count == 0;
        if done {
            state.leases.remove(token);
        }
        state.outstanding = state.outstanding.saturating_sub(1);
        drop(state);
        self.freed.notify_one();
        done
    }
}

/// The open lease tokens of this core's streams, for the reports to find their stream.
#[derive(Debug, Default)]
pub struct JobCredits(Mutex<HashMap<String, Weak<Credits>>>);

impl JobCredits {
    fn map(&self) -> std::sync::MutexGuard<'_, HashMap<String, Weak<Credits>>> {
        self.0.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// `stream` leased `count` jobs under `token` for `lease`.
    pub fn leased(&self, stream: &Arc<Credits>, token: &str, count: usize, lease: Duration) {
        if count == 0 {
            return;
        }
        stream.taken(token, count, lease);
        let mut map = self.map();
        map.retain(|_, s| s.strong_count() > 0);
        map.insert(token.to_string(), Arc::downgrade(stream));
    }

    /// Reports came in for these tokens (one entry per job): their streams get the credit.
    pub fn reported<'a>(&self, tokens: impl IntoIterator<Item = &'a str>) {
        let mut map = self.map();
        for token in tokens {
            let Some(stream) = map.get(token).and_then(Weak::upgrade) else {
                continue;
            };
            if stream.returned(token) {
                map.remove(token);
            }
        }
    }

    /// A stream ended: its tokens are forgotten. Returns those with jobs still unreported
    /// (leases not yet lapsed), for the stream to give back.
    pub fn closed(&self, stream: &Arc<Credits>) -> Vec<String> {
        let open = {
            // Lapsed leases go first: those jobs are due again already.
            stream.free();
            stream.state().leases.keys().cloned().collect()
        };
        let stream = Arc::downgrade(stream);
        self.map().retain(|_, s| !Weak::ptr_eq(s, &stream));
        open
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_stream_has_credit_for_what_its_worker_has_not_reported() {
        let credits = JobCredits::default();
        let stream = Credits::new(4);
        assert_eq!(stream.free(), 4);
        credits.leased(&stream, "a", 3, Duration::from_secs(60));
        assert_eq!(stream.free(), 1);
        credits.reported(["a", "unknown"]);
        assert_eq!(stream.free(), 2);
        credits.reported(["a", "a"]);
        assert_eq!(stream.free(), 4);
        assert!(
            credits.map().is_empty(),
            "a token with no job left is forgotten"
        );
    }

    #[test]
    fn a_lease_never_reported_gives_its_credit_back_when_it_lapses() {
        let credits = JobCredits::default();
        let stream = Credits::new(2);
        credits.leased(&stream, "a", 2, Duration::ZERO);
        assert_eq!(stream.free(), 2);
        credits.leased(&stream, "b", 1, Duration::from_secs(60));
        credits.leased(&stream, "c", 2, Duration::from_secs(60));
        credits.reported(["c", "c"]);
        assert_eq!(
            credits.closed(&stream),
            ["b"],
            "closing names the unreported, unlapsed leases"
        );
        assert!(credits.map().is_empty());
    }
}
