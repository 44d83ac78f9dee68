//! Several cores behind one client: the gateway, the workers and the operator commands take
//! `CORE_URL` as a comma-separated list and reach the cores through a [`Cores`] picker.
//!
//! - One lazily connected channel per core; calls go over the cores not marked down: round
//!   robin call by call, or (the gateway, [`Cores::with_turn`]) in turns of a few
//!   milliseconds, every call of one turn to the same core, that core a fixed hash of the
//!   turn's number. Turns follow the wall clock, so every gateway whose clock agrees sends the
//!   calls of a turn to the same core: the sends that arrive together stay together, and that
//!   core's reads and writes carry them in the same batches instead of half of them each on
//!   two cores. The hash (not the number itself) lets a client sending at a steady rate whose
//!   period is a whole number of turns still reach every core.
//! - A core is marked down when a call to it fails to connect, and probed every second (a new
//!   connection) until it accepts one again; then it takes calls again.
//! - A call that failed to connect was never sent, so it is sent to another core (one not
//!   marked down when there is one), each core tried at most once. A call that reached a core that then died answers
//!   its error (503 at the gateway): it may have been carried out.
//! - With every core marked down, calls still go round robin over all of them (a mark may be
//!   stale), and answer `Unavailable` when none connects.
//!
//! Every call of `bm.v1` sends one request message (the job stream streams only its answers),
//! so with several cores a request's body is read whole before it is sent, to be sent again.
//! With one core, requests pass straight through.
//!
//! tonic's `balance_list` neither sends a failed call elsewhere nor reliably takes a recovered
//! core back, hence this small picker.

use std::error::Error as StdError;
use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::task::{Context, Poll};
use std::time::Duration;

use http_body_util::BodyExt;
use tonic::body::Body;
use tonic::transport::{Channel, Endpoint};
use tower::ServiceExt;

type BoxError = Box<dyn StdError + Send + Sync>;
type BoxFuture<T> = std::pin::Pin<Box<dyn std::future::Future<Output = T> + Send>>;

/// How often a core marked down is tried again.
pub const PROBE_EVERY: Duration = Duration::from_secs(1);

/// The cores of one `CORE_URL`, with what this process knows of each.
#[derive(Clone)]
pub struct Cores {
    inner: Arc<Inner>,
}

struct Inner {
    cores: Vec<Core>,
    next: AtomicUsize,
    /// The length of a turn in microseconds; 0 for call by call.
    turn_us: u64,
    probing: AtomicBool,
}

struct Core {
    url: String,
    endpoint: Endpoint,
    channel: Channel,
    down: AtomicBool,
}

/// Which core answered a call (in the response's extensions): the worker sends its reports to
/// the core that holds its job stream.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CoreIndex(pub usize);

impl Cores {
    /// The cores of `core_url` (one URL, or several separated by commas), each endpoint made by
    /// [`crate::channel::endpoint`] and then `configure` (timeouts, keep-alive).
    ///
    /// Errors name the setting at fault, as [`crate::channel::endpoint`] does, and an empty or
    /// repeated entry.
    pub fn new(
        core_url: &str,
        tls_ca: Option<&Path>,
        configure: impl Fn(Endpoint) -> Endpoint,
    ) -> Result<Cores, String> {
        let urls: Vec<&str> = core_url.split(',').map(str::trim).collect();
        if urls.iter().any(|u| u.is_empty()) {
            return Err(format!(
                "CORE_URL {core_url}: one URL, or several separated by commas (an entry is empty)"
            ));
        }
        let mut cores = Vec::with_capacity(urls.len());
        for (i, url) in urls.iter().enumerate() {
            if urls[..i].contains(url) {
                return Err(format!("CORE_URL {core_url}: {url} is listed twice"));
            }
            // A CA is refused only when no listed core uses TLS.
            let ca = tls_ca.filter(|_| url.starts_with("https://") || !any_https(&urls));
            let endpoint = configure(crate::channel::endpoint(url, ca)?);
            cores.push(Core {
                url: url.to_string(),
                channel: endpoint.connect_lazy(),
                endpoint,
                down: AtomicBool::new(false),
            });
        }
        Ok(Cores {
            inner: Arc::new(Inner {
                cores,
                // Processes that make one call each (operator commands) start at different
                // cores.
                next: AtomicUsize::new(std::process::id() as usize),
                turn_us: 0,
                probing: AtomicBool::new(false),
            }),
        })
    }

    /// Calls go round robin in turns of `turn` (by the wall clock) instead of call by call;
    /// a zero turn keeps call by call. Only on a picker not yet shared.
    pub fn with_turn(mut self, turn: Duration) -> Cores {
        if let Some(inner) = Arc::get_mut(&mut self.inner) {
            inner.turn_us = turn.as_micros().min(u64::MAX as u128) as u64;
        }
        self
    }

    /// The length of a turn (zero: call by call).
    pub fn turn(&self) -> Duration {
        Duration::from_micros(self.inner.turn_us)
    }

    /// How many cores are listed.
    pub fn len(&self) -> usize {
        self.inner.cores.len()
    }

    /// Never: a `CORE_URL` names at least one core.
    pub fn is_empty(&self) -> bool {
        self.inner.cores.is_empty()
    }

    /// The listed URLs, in order.
    pub fn urls(&self) -> Vec<&str> {
        self.inner.cores.iter().map(|c| c.url.as_str()).collect()
    }

    /// The URLs as one string for logs.
    pub fn describe(&self) -> String {
        self.urls().join(",")
    }

    /// Whether core `index` is marked down.
    pub fn is_down(&self, index: usize) -> bool {
        self.inner.cores[index].down.load(Ordering::Relaxed)
    }

    /// A transport for generated clients: each call goes to the next core not marked down.
    pub fn channel(&self) -> CoreChannel {
        CoreChannel {
            inner: self.inner.clone(),
            prefer: None,
        }
    }

    /// A transport that sends every call to core `index` first, and to another core only when
    /// that one is marked down or fails to connect.
    pub fn preferring(&self, index: usize) -> CoreChannel {
        CoreChannel {
            inner: self.inner.clone(),
            prefer: Some(index.min(self.inner.cores.len() - 1)),
        }
    }

    /// A transport that reaches core `index` only (readiness asks each core in turn).
    pub fn only(&self, index: usize) -> Channel {
        self.inner.cores[index].channel.clone()
    }
}

/// Where the core of the turn that `now_us` (microseconds since the Unix epoch) falls in is
/// counted from, for turns of `turn_us`: a fixed hash of the turn's number, the same for every
/// process whose clock agrees. Hashed, not the number itself: with the number, a client whose
/// sends come every n turns (n a multiple of the cores' count, as a steady rate easily is)
/// would always reach the same core.
fn turn_at(turn_us: u64, now_us: u64) -> usize {
    spread(now_us / turn_us.max(1)) as usize
}

/// The core (an index into `cores` of them) that turn number `turn` goes to while none is
/// marked down: the same in every gateway.
pub fn core_of_turn(turn: u64, cores: usize) -> usize {
    spread(turn) as usize % cores.max(1)
}

/// SplitMix64's finalizer (Steele, Lea and Flood, 2014): consecutive numbers map to values
/// spread evenly over the whole range. A fixed function on purpose, never a randomly keyed
/// hasher (nor std's `DefaultHasher`, whose algorithm may change between releases): every
/// gateway must pick the same core for the same turn.
fn spread(turn: u64) -> u64 {
    let mut z = turn.wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

fn unix_micros() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_micros() as u64)
        .unwrap_or_default()
}

fn any_https(urls: &[&str]) -> bool {
    urls.iter().any(|u| u.starts_with("https://"))
}

impl Inner {
    /// The core for the next call: `prefer` when it is not marked down, else the next in turn
    /// not marked down, else the next in turn; never one of `tried`, when there is another.
    fn pick(&self, prefer: Option<usize>, tried: &[usize]) -> usize {
        self.pick_from(prefer, tried, || match self.turn_us {
            0 => self.next.fetch_add(1, Ordering::Relaxed),
            turn => turn_at(turn, unix_micros()),
        })
    }

    /// [`Inner::pick`], the turn's first core given by `start` (asked only when needed).
    fn pick_from(
        &self,
        prefer: Option<usize>,
        tried: &[usize],
        start: impl FnOnce() -> usize,
    ) -> usize {
        let n = self.cores.len();
        let all_tried = (0..n).all(|i| tried.contains(&i));
        let usable = |i: usize| all_tried || !tried.contains(&i);
        if let Some(i) = prefer
            && usable(i)
            && !self.cores[i].down.load(Ordering::Relaxed)
        {
            return i;
        }
        let start = start();
        let candidates = (0..n).map(|k| (start + k) % n).filter(|&i| usable(i));
        let mut first = None;
        for i in candidates {
            if !self.cores[i].down.load(Ordering::Relaxed) {
                return i;
            }
            first.get_or_insert(i);
        }
        first.unwrap_or(start % n)
    }

    fn mark_down(self: &Arc<Self>, index: usize, err: &BoxError) {
        let core = &self.cores[index];
        if !core.down.swap(true, Ordering::Relaxed) {
            tracing::warn!(core = %core.url, error = %describe(err.as_ref()), "core unreachable; marked down, probed every second");
        }
        if !self.probing.swap(true, Ordering::AcqRel) {
            let inner = self.clone();
            tokio::spawn(async move { inner.probe().await });
        }
    }

    /// Tries each core marked down every second until none is.
    async fn probe(self: Arc<Self>) {
        loop {
            tokio::time::sleep(PROBE_EVERY).await;
            let mut still_down = false;
            for core in &self.cores {
                if !core.down.load(Ordering::Relaxed) {
                    continue;
                }
                match core.endpoint.connect().await {
                    Ok(_) => {
                        core.down.store(false, Ordering::Relaxed);
                        tracing::info!(core = %core.url, "core reachable again");
                    }
                    Err(_) => still_down = true,
                }
            }
            if !still_down {
                self.probing.store(false, Ordering::Release);
                // A core marked down between the last look and the flag: probe it too.
                if self.cores.iter().any(|c| c.down.load(Ordering::Relaxed))
                    && !self.probing.swap(true, Ordering::AcqRel)
                {
                    continue;
                }
                return;
            }
        }
    }

    async fn send(
        &self,
        index: usize,
        request: http::Request<Body>,
    ) -> Result<http::Response<Body>, BoxError> {
        let channel = self.cores[index].channel.clone();
        let mut response = channel.oneshot(request).await.map_err(BoxError::from)?;
        response.extensions_mut().insert(CoreIndex(index));
        Ok(response)
    }
}

/// Whether `err` (or what caused it) is a failure to connect: the request was never sent.
pub fn is_connect_error(err: &(dyn StdError + 'static)) -> bool {
    let mut cause: Option<&(dyn StdError + 'static)> = Some(err);
    while let Some(e) = cause {
        if e.downcast_ref::<tonic::ConnectError>().is_some() {
            return true;
        }
        cause = e.source();
    }
    false
}

/// What went wrong, in words: the error and its deepest cause ("transport error: Connection
/// refused (os error 111)").
pub fn describe(err: &(dyn StdError + 'static)) -> String {
    let mut deepest = err;
    while let Some(cause) = deepest.source() {
        deepest = cause;
    }
    if std::ptr::addr_eq(deepest, err) {
        err.to_string()
    } else {
        format!("{err}: {deepest}")
    }
}

/// The transport that [`Cores::channel`] and [`Cores::preferring`] give to generated clients.
#[derive(Clone)]
pub struct CoreChannel {
    inner: Arc<Inner>,
    prefer: Option<usize>,
}

impl tower::Service<http::Request<Body>> for CoreChannel {
    type Response = http::Response<Body>;
    type Error = BoxError;
    type Future = BoxFuture<Result<http::Response<Body>, BoxError>>;

    fn poll_ready(&mut self, _cx: &mut Context<'_>) -> Poll<Result<(), Self::Error>> {
        // Each call waits for its own core's channel.
        Poll::Ready(Ok(()))
    }

    fn call(&mut self, request: http::Request<Body>) -> Self::Future {
        let inner = self.inner.clone();
        let prefer = self.prefer;
        Box::pin(async move {
            let n = inner.cores.len();
            let first = inner.pick(prefer, &[]);
            if n == 1 {
                return inner.send(first, request).await;
            }
            let (parts, body) = request.into_parts();
            let bytes = body.collect().await?.to_bytes();
            // A call that failed to connect goes to another core, each core tried once.
            let mut tried = Vec::with_capacity(n);
            let mut core = first;
            loop {
                let request =
                    http::Request::from_parts(parts.clone(), Body::new(full(bytes.clone())));
                match inner.send(core, request).await {
                    Err(err) if is_connect_error(err.as_ref()) => {
                        inner.mark_down(core, &err);
                        tried.push(core);
                        if tried.len() == n {
                            return Err(err);
                        }
                        core = inner.pick(None, &tried);
                    }
                    answer => return answer,
                }
            }
        })
    }
}

fn full(bytes: bytes::Bytes) -> http_body_util::Full<bytes::Bytes> {
    http_body_util::Full::new(bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cores(urls: &str) -> Cores {
        Cores::new(urls, None, |e| e).unwrap()
    }

    #[tokio::test]
    async fn a_list_is_parsed_and_each_entry_checked() {
        assert_eq!(cores("http://a:1").len(), 1);
        assert_eq!(
            cores(" http://a:1 , http://b:2").urls(),
            ["http://a:1", "http://b:2"]
        );
        let err = Cores::new("http://a:1,,http://b:2", None, |e| e)
            .err()
            .unwrap();
        assert!(err.contains("an entry is empty"), "{err}");
        let err = Cores::new("http://a:1,http://a:1", None, |e| e)
            .err()
            .unwrap();
        assert!(err.contains("listed twice"), "{err}");
        let err = Cores::new("http://a:1,not a url", None, |e| e)
            .err()
            .unwrap();
        assert!(err.starts_with("CORE_URL not a url"), "{err}");
        let ca = Path::new("/nonexistent/ca.pem");
        let err = Cores::new("http://a:1,http://b:2", Some(ca), |e| e)
            .err()
            .unwrap();
        assert!(err.starts_with("CORE_TLS_CA"), "{err}");
    }

    #[tokio::test]
    async fn calls_go_round_robin_over_the_cores_not_marked_down() {
        let cores = cores("http://a:1,http://b:2,http://c:3");
        let picks: Vec<usize> = (0..6).map(|_| cores.inner.pick(None, &[])).collect();
        for (i, pick) in picks.iter().enumerate() {
            assert_eq!(*pick, (picks[0] + i) % 3, "{picks:?}");
        }
        cores.inner.cores[1].down.store(true, Ordering::Relaxed);
        let picks: Vec<usize> = (0..4).map(|_| cores.inner.pick(None, &[])).collect();
        assert!(!picks.contains(&1), "{picks:?}");
        assert!(picks.contains(&0) && picks.contains(&2), "{picks:?}");
        // A preferred core, unless it is down; never the excluded one when there is another.
        assert_eq!(cores.inner.pick(Some(2), &[]), 2);
        assert_ne!(cores.inner.pick(Some(1), &[]), 1);
        for _ in 0..4 {
            assert_ne!(cores.inner.pick(None, &[0]), 0);
            assert_eq!(
                cores.inner.pick(None, &[0, 2]),
                1,
                "down, but the only one untried"
            );
        }
        assert!(cores.inner.pick(None, &[0, 1, 2]) < 3, "all tried: any");
        // All down: still round robin over all of them.
        for core in &cores.inner.cores {
            core.down.store(true, Ordering::Relaxed);
        }
        let picks: Vec<usize> = (0..3).map(|_| cores.inner.pick(None, &[])).collect();
        let mut sorted = picks.clone();
        sorted.sort();
        assert_eq!(sorted, [0, 1, 2], "{picks:?}");
    }

    #[tokio::test]
    async fn in_turns_every_call_of_a_turn_goes_to_one_core_and_the_turns_spread_over_the_cores() {
        let picker = cores("http://a:1,http://b:2,http://c:3").with_turn(Duration::from_millis(5));
        assert_eq!(picker.turn(), Duration::from_millis(5));
        let inner = &picker.inner;
        let at = |now_us: u64, tried: &[usize]| {
            inner.pick_from(None, tried, || turn_at(inner.turn_us, now_us))
        };
        // One turn: one core, whoever calls (the clock, not a counter, names it).
        let first = at(1_000_000, &[]);
        for now in [1_000_001, 1_002_500, 1_004_999] {
            assert_eq!(at(now, &[]), first);
        }
        // Over many turns every core takes about a third of them, each the one `core_of_turn`
        // names.
        let mut per_core = [0u32; 3];
        for turn in 0..3_000u64 {
            let core = at(turn * 5_000, &[]);
            assert_eq!(core, core_of_turn(turn, 3));
            per_core[core] += 1;
        }
        assert!(
            per_core.iter().all(|&n| (900..=1_100).contains(&n)),
            "{per_core:?}"
        );
        // A core marked down gives its turns to the next; a call that failed to connect goes
        // to another core within the turn.
        inner.cores[first].down.store(true, Ordering::Relaxed);
        assert_eq!(at(1_000_000, &[]), (first + 1) % 3);
        inner.cores[first].down.store(false, Ordering::Relaxed);
        assert_ne!(at(1_000_000, &[first]), first);
        // A zero turn is call by call.
        let per_call = cores("http://a:1,http://b:2").with_turn(Duration::ZERO);
        let picks: Vec<usize> = (0..4).map(|_| per_call.inner.pick(None, &[])).collect();
        assert_ne!(picks[0], picks[1], "{picks:?}");
        assert_eq!(picks[0], picks[2], "{picks:?}");
    }

    /// A client sending at a steady rate whose period is a whole number of turns (every 2
    /// turns to 2 cores, every 3 to 3, every 4 to 2): the turn's number alone would send all
    /// of its calls to one core; the hash of it reaches every core, about evenly.
    #[tokio::test]
    async fn a_client_sending_at_a_steady_rate_that_divides_the_turns_reaches_every_core() {
        for (urls, every_turns) in [
            ("http://a:1,http://b:2", 2u64),
            ("http://a:1,http://b:2,http://c:3", 3),
            ("http://a:1,http://b:2", 4),
            ("http://a:1,http://b:2,http://c:3", 6),
        ] {
            let picker = cores(urls).with_turn(Duration::from_millis(2));
            let inner = &picker.inner;
            let n = inner.cores.len();
            let mut per_core = vec![0u32; n];
            // 600 sends, one every `every_turns` turns, from an arbitrary moment.
            let start_us = 1_764_470_000_123_456u64;
            for k in 0..600u64 {
                let now_us = start_us + k * every_turns * 2_000;
                per_core[inner.pick_from(None, &[], || turn_at(inner.turn_us, now_us))] += 1;
            }
            let fair = 600 / n as u32;
            assert!(
                per_core
                    .iter()
                    .all(|&c| c > fair * 7 / 10 && c < fair * 13 / 10),
                "{urls}, a send every {every_turns} turns: {per_core:?}"
            );
        }
        // The same turn gives the same core in every process: the function has no key.
        assert_eq!(spread(0), 0xe220_a839_7b1d_cdaf);
        assert_eq!(spread(1), 0x910a_2dec_8902_5cc1);
    }
}
