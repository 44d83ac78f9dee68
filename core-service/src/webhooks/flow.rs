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
//! **Whose lease.** A token begins with its worker's mark ([`worker_mark`]), so that when a
//! worker comes back on another core after its stream ended, that core can give back the
//! worker's leases it does not hold (the jobs its stream's core leased and never sent: that
//! core may have been killed) without waiting for them to lapse.
//!
//! **Slow endpoints.** An endpoint whose attempt took [`SLOW_ATTEMPT`] or more (or got no
//! answer) is slow for [`SLOW_FOR`], in the database so every core sees it; while any endpoint
//! is slow, leases cap each endpoint's deliveries in flight. [`SlowEndpoints`] answers "is any
//! endpoint slow?" from a read at most a second old, so the common case keeps the plain queue
//! order without a read per lease.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, Weak};
use std::time::{Duration, Instant};

use proto::v1 as pb;
use sea_orm::DatabaseConnection;
use sha2::{Digest, Sha256};
use tokio::sync::{Notify, mpsc};
use uuid::Uuid;

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
pub struct SlowEndpoints {
    /// The last answer and when it was read (or learned).
    cached: Mutex<Option<(Instant, bool)>>,
    /// Held while the answer is read again, so concurrent callers share one read.
    reading: tokio::sync::Mutex<()>,
}

impl SlowEndpoints {
    const FRESH: Duration = Duration::from_secs(1);

    fn cached(&self) -> std::sync::MutexGuard<'_, Option<(Instant, bool)>> {
        self.cached.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn fresh(&self) -> Option<bool> {
        self.cached()
            .filter(|(read, _)| read.elapsed() < Self::FRESH)
            .map(|(_, any)| any)
    }

    pub async fn any(&self, db: &DatabaseConnection, now_ms: i64) -> AppResult<bool> {
        if let Some(any) = self.fresh() {
            return Ok(any);
        }
        let _reading = self.reading.lock().await;
        if let Some(any) = self.fresh() {
            return Ok(any);
        }
        let any = store::any_slow(db, now_ms).await?;
        *self.cached() = Some((Instant::now(), any));
        Ok(any)
    }

    /// The last answer, however old, without reading (false before the first read): for hints
    /// on hot paths, where the next read corrects a stale one.
    pub fn last_known(&self) -> bool {
        self.cached().is_some_and(|(_, any)| any)
    }

    /// This core just marked an endpoint slow: lease with the cap from now on.
    pub fn learned(&self) {
        *self.cached() = Some((Instant::now(), true));
    }
}

/// The mark every lease token of one worker begins with: 16 hex digits of its `worker_id`'s
/// SHA-256 and a dot (an id of any length or alphabet makes a token of fixed form); None for a
/// worker that names none.
pub fn worker_mark(worker_id: &str) -> Option<String> {
    if worker_id.is_empty() {
        return None;
    }
    let digest = Sha256::digest(worker_id.as_bytes());
    let mut mark: String = digest[..8].iter().map(|b| format!("{b:02x}")).collect();
    mark.push('.');
    Some(mark)
}

/// A new lease token: the worker's mark and a UUID, or a bare UUID for a worker without one.
pub fn lease_token(mark: Option<&str>) -> String {
    format!("{}{}", mark.unwrap_or_default(), Uuid::new_v4())
}

/// A stream keeps this share of its room (1/KEPT) for its own leases (due retries, other cores'
/// deliveries): deliveries handed over in memory take only the rest.
const KEPT: usize = 4;

/// One stream's credit: how many of its jobs are unreported, by lease token.
#[derive(Debug)]
pub struct Credits {
    room: usize,
    /// The mark of this stream's worker, which its lease tokens begin with.
    mark: Option<String>,
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
    pub fn new(room: usize, mark: Option<String>) -> Arc<Credits> {
        Arc::new(Credits {
            room: room.max(1),
            mark,
            state: Mutex::new(State::default()),
            freed: Notify::new(),
        })
    }

    fn state(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// A new token for a lease of this stream.
    pub fn token(&self) -> String {
        lease_token(self.mark.as_deref())
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

/// The open lease tokens of this core's streams, for the reports to find their stream, and the
/// streams that take deliveries handed over in memory.
#[derive(Debug, Default)]
pub struct JobCredits {
    tokens: Mutex<HashMap<String, Weak<Credits>>>,
    inlets: Mutex<Vec<Inlet>>,
}

/// A stream's way in for deliveries handed over in memory.
#[derive(Debug)]
struct Inlet {
    credits: Weak<Credits>,
    jobs: mpsc::Sender<pb::Job>,
}

/// Credit taken from one stream for deliveries about to be written leased to it (see
/// [`JobCredits::reserve`]): `count` jobs under `token`.
#[derive(Debug)]
pub struct Reservation {
    pub token: String,
    pub count: usize,
    pub jobs: mpsc::Sender<pb::Job>,
}

impl JobCredits {
    fn map(&self) -> std::sync::MutexGuard<'_, HashMap<String, Weak<Credits>>> {
        self.tokens.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn inlets(&self) -> std::sync::MutexGuard<'_, Vec<Inlet>> {
        self.inlets.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// `stream` takes jobs handed over in memory on `jobs` (its worker's channel) too.
    pub fn open_inlet(&self, stream: &Arc<Credits>, jobs: mpsc::Sender<pb::Job>) {
        let mut inlets = self.inlets();
        inlets.retain(|i| i.credits.strong_count() > 0 && !i.jobs.is_closed());
        inlets.push(Inlet {
            credits: Arc::downgrade(stream),
            jobs,
        });
    }

    /// The job streams open on this core.
    pub fn streams(&self) -> usize {
        let mut inlets = self.inlets();
        inlets.retain(|i| i.credits.strong_count() > 0 && !i.jobs.is_closed());
        inlets.len()
    }

    /// The most jobs [`JobCredits::reserve`] could take now.
    pub fn spare(&self) -> usize {
        let inlets = self.inlets();
        inlets
            .iter()
            .filter(|i| !i.jobs.is_closed())
            .filter_map(|i| i.credits.upgrade())
            .map(|c| c.free().saturating_sub(c.room / KEPT))
            .max()
            .unwrap_or(0)
    }

    /// Takes credit for up to `want` jobs for `lease` from the stream of this core with the
    /// most room, under a new token of that stream's worker, leaving a share of each stream's
    /// room (1/[`KEPT`]) to its own leases (due retries, other cores' deliveries); None when no
    /// stream has more than that.
    pub fn reserve(&self, want: usize, lease: Duration) -> Option<Reservation> {
        if want == 0 {
            return None;
        }
        let (credits, jobs, room) = {
            let mut inlets = self.inlets();
            inlets.retain(|i| i.credits.strong_count() > 0 && !i.jobs.is_closed());
            inlets
                .iter()
                .filter_map(|i| {
                    let credits = i.credits.upgrade()?;
                    let room = credits.free().saturating_sub(credits.room / KEPT);
                    Some((credits, i.jobs.clone(), room))
                })
                .max_by_key(|(_, _, room)| *room)?
        };
        let count = want.min(room);
        if count == 0 {
            return None;
        }
        let token = credits.token();
        self.leased(&credits, &token, count, lease);
        Some(Reservation { token, count, jobs })
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

    /// Gives back the credit of `unused` jobs of `reservation` that were not handed over.
    pub fn give_back(&self, reservation: &Reservation, unused: usize) {
        let token = reservation.token.as_str();
        self.reported(std::iter::repeat_n(token, unused.min(reservation.count)));
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
        self.inlets().retain(|i| !Weak::ptr_eq(&i.credits, &stream));
        open
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_stream_has_credit_for_what_its_worker_has_not_reported() {
        let credits = JobCredits::default();
        let stream = Credits::new(4, None);
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
    fn handed_jobs_take_credit_from_the_stream_with_most_room_and_leave_it_a_quarter() {
        let credits = JobCredits::default();
        let lease = Duration::from_secs(60);
        assert!(
            credits.reserve(4, lease).is_none(),
            "no stream, no hand-off"
        );
        let busy = Credits::new(8, Some("b0b0b0b0b0b0b0b0.".into()));
        let idle = Credits::new(8, Some("1d1e1d1e1d1e1d1e.".into()));
        let (busy_tx, busy_rx) = mpsc::channel(8);
        let (idle_tx, mut idle_rx) = mpsc::channel(8);
        credits.open_inlet(&busy, busy_tx);
        credits.open_inlet(&idle, idle_tx);
        credits.leased(&busy, "own", 3, lease);
        // The idle stream has 8 free, of which a quarter is kept for its own leases.
        assert_eq!(credits.spare(), 6);
        let reservation = credits.reserve(10, lease).expect("room");
        assert_eq!(reservation.count, 6);
        assert!(
            reservation.token.starts_with("1d1e1d1e1d1e1d1e."),
            "the token is the chosen stream's worker's: {}",
            reservation.token
        );
        reservation
            .jobs
            .try_send(pb::Job::default())
            .expect("its channel");
        assert!(idle_rx.try_recv().is_ok(), "the idle stream's channel");
        assert_eq!(idle.free(), 2);
        // Then the busy one (5 free, 3 to spare); then neither has any to spare.
        let second = credits.reserve(10, lease).expect("room");
        assert_eq!(second.count, 3);
        assert!(second.token.starts_with("b0b0b0b0b0b0b0b0."));
        assert_eq!(credits.spare(), 0);
        assert!(credits.reserve(10, lease).is_none());
        // Credit not used is given back, and a report frees the rest.
        credits.give_back(&reservation, 5);
        assert_eq!(idle.free(), 7);
        credits.reported([reservation.token.as_str()]);
        assert_eq!(idle.free(), 8);
        assert!(
            !credits.map().contains_key(&reservation.token),
            "a spent token is forgotten"
        );
        // A closed stream takes nothing more.
        drop(busy_rx);
        credits.give_back(&second, 3);
        assert_eq!(busy.free(), 5);
        let third = credits.reserve(10, lease).expect("the idle stream");
        assert_eq!(third.count, 6);
        assert_eq!(idle.free(), 2);
    }

    #[test]
    fn a_lease_never_reported_gives_its_credit_back_when_it_lapses() {
        let credits = JobCredits::default();
        let stream = Credits::new(2, None);
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

    #[test]
    fn a_workers_tokens_begin_with_its_mark() {
        let mark = worker_mark("worker-1").expect("a mark");
        assert_eq!(mark.len(), 17);
        assert!(mark[..16].bytes().all(|b| b.is_ascii_hexdigit()));
        assert!(mark.ends_with('.'));
        assert_eq!(
            worker_mark("worker-1"),
            Some(mark.clone()),
            "the same each time"
        );
        assert_ne!(worker_mark("worker-2"), Some(mark.clone()));
        assert_eq!(worker_mark(""), None, "no id, no mark");
        let token = lease_token(Some(&mark));
        assert!(token.starts_with(&mark));
        assert!(Uuid::parse_str(&token[17..]).is_ok());
        assert_ne!(lease_token(Some(&mark)), token, "each lease its own token");
        assert!(Uuid::parse_str(&lease_token(None)).is_ok());
        let stream = Credits::new(1, Some(mark.clone()));
        assert!(stream.token().starts_with(&mark));
    }
}
