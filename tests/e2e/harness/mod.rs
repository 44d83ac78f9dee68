//! The end-to-end harness: the real core and gateway in-process on port 0, against a fresh
//! SQLite file or a fresh PostgreSQL database (dropped afterwards), with an SMS outbox and a
//! clock the test moves.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use core_service::clock::ManualClock;
use core_service::sms::{SmsError, SmsSender};
use core_service::state::Core;
use core_service::{CoreApp, CoreConfig, Overrides};
use futures::future::BoxFuture;
use proto::v1 as pb;
use proto::v1::admin_service_client::AdminServiceClient;
use rest_gateway::{GatewayApp, GatewayConfig};
use sea_orm::{ConnectionTrait, Database};
use serde_json::Value;
use tokio::task::JoinHandle;
use tokio_util::sync::CancellationToken;

mod db;
mod reply;

pub use db::Backend;
use db::{TestDb, create_database};
pub use reply::{RawBody, Reply, into_reply};

pub const JWT_SECRET: &str = "test-jwt-secret-that-is-at-least-32-bytes-long";
pub const MASTER_KEY: &str = "00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff";

/// Texts the core "sent", a switch that makes the provider fail, and how long (on the test
/// clock) each send takes.
#[derive(Default)]
pub struct Outbox {
    sent: Mutex<Vec<(String, String)>>,
    failing: AtomicBool,
    latency: Mutex<Option<(ManualClock, Duration)>>,
}

impl Outbox {
    /// Makes every send take `latency` of `clock`'s time (the clock moves forward by it).
    pub fn take(&self, clock: &ManualClock, latency: Duration) {
        *self.latency.lock().unwrap() = Some((clock.clone(), latency));
    }

    pub fn fail(&self, on: bool) {
        self.failing.store(on, Ordering::SeqCst);
    }

    pub fn sent_to(&self, phone: &str) -> Vec<String> {
        self.sent
            .lock()
            .unwrap()
            .iter()
            .filter(|(to, _)| to == phone)
            .map(|(_, text)| text.clone())
            .collect()
    }

    pub fn count(&self) -> usize {
        self.sent.lock().unwrap().len()
    }

    /// The six-digit code of the last text sent to `phone`.
    pub fn last_code(&self, phone: &str) -> String {
        let texts = self.sent_to(phone);
        let text = texts.last().unwrap_or_else(|| panic!("no SMS to {phone}"));
        text.split(|c: char| !c.is_ascii_digit())
            .find(|w| w.len() == 6)
            .unwrap_or_else(|| panic!("no code in {text:?}"))
            .to_string()
    }
}

impl SmsSender for Outbox {
    fn send<'a>(&'a self, to: &'a str, text: &'a str) -> BoxFuture<'a, Result<(), SmsError>> {
        Box::pin(async move {
            if let Some((clock, latency)) = self.latency.lock().unwrap().clone() {
                clock.advance(latency);
            }
            if self.failing.load(Ordering::SeqCst) {
                return Err(SmsError("provider down".into()));
            }
            self.sent
                .lock()
                .unwrap()
                .push((to.to_string(), text.to_string()));
            Ok(())
        })
    }
}

/// Changes a test applies to the core's configuration.
pub type Configure = Arc<dyn Fn(&mut CoreConfig) + Send + Sync>;
pub type ConfigureHttp = Arc<dyn Fn(&mut rest_gateway::HttpSettings) + Send + Sync>;

/// Options for one test's stack.
#[derive(Default, Clone)]
pub struct Options {
    pub internal_token: Option<String>,
    /// DNS for the webhook worker (default: the system's).
    pub resolver: Option<Arc<dyn reqwest::dns::Resolve>>,
    /// Use the configured SMS provider instead of the harness's outbox.
    pub real_sms: bool,
    /// Run the core on the wall clock (benchmarks); `TestApp::clock` then moves nothing.
    pub wall_clock: bool,
    pub configure: Option<Configure>,
    /// Changes to the gateway's HTTP settings.
    pub http: Option<ConfigureHttp>,
    /// The webhook worker's concurrency (default: the worker's own).
    pub worker_concurrency: Option<usize>,
    /// Serve the core's gRPC over TLS (the test certificate of `tests/tls`): the gateway, the
    /// workers and the admin client reach it at `https://localhost:port` trusting the test CA.
    pub grpc_tls: bool,
    /// How often the core's idle job streams poll (default: the core's own).
    pub job_poll: Option<Duration>,
}

/// The test CA and the core certificate it signed (for `localhost` and 127.0.0.1): test-only
/// keys, committed so that no test needs a tool to make them.
pub fn test_tls_file(name: &str) -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tls")
        .join(name)
}

/// Where clients reach a core listening on `addr`, and the CA they trust for it.
fn core_url(
    config: &CoreConfig,
    addr: std::net::SocketAddr,
) -> (String, Option<std::path::PathBuf>) {
    match config.grpc_tls {
        Some(_) => (
            format!("https://localhost:{}", addr.port()),
            Some(test_tls_file("ca.pem")),
        ),
        None => (format!("http://{addr}"), None),
    }
}

pub struct TestApp {
    pub config: CoreConfig,
    pub base: String,
    pub grpc_url: String,
    pub http: reqwest::Client,
    pub clock: ManualClock,
    pub sms: Arc<Outbox>,
    pub core: Arc<Core>,
    core_cancel: CancellationToken,
    core_task: Option<JoinHandle<anyhow::Result<()>>>,
    gateway_cancel: CancellationToken,
    worker_cancel: Mutex<Vec<CancellationToken>>,
    resolver: Option<Arc<dyn reqwest::dns::Resolve>>,
    worker_concurrency: Option<usize>,
    /// The CA the clients trust when the core serves TLS.
    pub core_tls_ca: Option<std::path::PathBuf>,
    _db: TestDb,
}

impl TestApp {
    /// The stack on `backend`, or None when PostgreSQL is unreachable outside CI.
    pub async fn spawn_with(backend: Backend, options: Options) -> Option<TestApp> {
        let (url, db) = create_database(backend).await?;
        let mut config = CoreConfig::for_database(url);
        config.jwt_secret = Some(JWT_SECRET.to_string());
        config.master_key = Some(MASTER_KEY.to_string());
        config.internal_token = options.internal_token.clone();
        // Receivers in tests listen on loopback over http.
        config.webhooks.webhook_allow_insecure = true;
        config.database.database_max_connections = 5;
        // Tests move the clock by days: a background purge would race their reads. The
        // retention tests run passes themselves (and one turns the background purge on).
        config.retention.purge_interval_secs = 0;
        if options.grpc_tls {
            config.grpc_tls = core_service::config::GrpcTlsArgs {
                grpc_tls_cert: Some(test_tls_file("core.pem")),
                grpc_tls_key: Some(test_tls_file("core.key")),
            }
            .load()
            .expect("the test certificate loads");
        }
        if let Some(configure) = &options.configure {
            configure(&mut config);
        }
        let clock = ManualClock::starting_now();
        let sms = Arc::new(Outbox::default());
        let overrides = Overrides {
            clock: (!options.wall_clock)
                .then(|| Arc::new(clock.clone()) as core_service::clock::SharedClock),
            sms: (!options.real_sms).then(|| sms.clone() as Arc<dyn SmsSender>),
            delivery: None,
            job_poll: options.job_poll,
        };
        let core_app = CoreApp::build(config.clone(), overrides)
            .await
            .expect("core builds");
        let (grpc_url, core_tls_ca) = core_url(&config, core_app.local_addr());
        let core = core_app.core();
        let core_cancel = CancellationToken::new();
        let core_task = tokio::spawn(core_app.run_until_stopped(core_cancel.clone()));

        let mut gateway_config = GatewayConfig::for_core(grpc_url.clone());
        gateway_config.core_tls_ca = core_tls_ca.clone();
        gateway_config.internal_token = options.internal_token.clone();
        if let Some(http) = &options.http {
            http(&mut gateway_config.http);
        }
        let gateway = GatewayApp::build(gateway_config)
            .await
            .expect("gateway builds");
        let base = format!("http://{}", gateway.local_addr());
        let gateway_cancel = CancellationToken::new();
        tokio::spawn(gateway.run_until_stopped(gateway_cancel.clone()));

        let http = reqwest::Client::builder()
            .no_proxy()
            .timeout(Duration::from_secs(30))
            .build()
            .expect("client");
        Some(TestApp {
            config,
            base,
            grpc_url,
            http,
            clock,
            sms,
            core,
            core_cancel,
            core_task: Some(core_task),
            gateway_cancel,
            worker_cancel: Mutex::new(Vec::new()),
            resolver: options.resolver.clone(),
            worker_concurrency: options.worker_concurrency,
            core_tls_ca,
            _db: db,
        })
        .inspect(|app| {
            app.start_worker();
        })
    }

    /// Starts one more webhook worker on this core's job stream; returns its stop switch.
    pub fn start_worker(&self) -> CancellationToken {
        self.start_worker_for(&self.grpc_url.clone())
    }

    /// Starts one more webhook worker whose `CORE_URL` is `core_url` (one core or several);
    /// returns its stop switch.
    pub fn start_worker_for(&self, core_url: &str) -> CancellationToken {
        let mut config = webhook_worker::WorkerConfig::for_core(core_url);
        config.core_tls_ca = self.core_tls_ca.clone();
        config.internal_token = self.config.internal_token.clone();
        if let Some(n) = self.worker_concurrency {
            config.settings.concurrency = n;
        }
        // Workers of several cores compare stream counts every 200 ms or so, not every 10 s.
        let mut worker = webhook_worker::Worker::new(config)
            .with_rebalance_every(std::time::Duration::from_millis(200));
        if let Some(resolver) = &self.resolver {
            worker = worker.with_resolver(resolver.clone());
        }
        let cancel = CancellationToken::new();
        tokio::spawn(worker.run_until_stopped(cancel.clone()));
        self.worker_cancel.lock().unwrap().push(cancel.clone());
        cancel
    }

    /// Stops every webhook worker (a crash: in-flight jobs are never reported).
    pub fn stop_workers(&self) {
        for cancel in self.worker_cancel.lock().unwrap().drain(..) {
            cancel.cancel();
        }
    }

    /// Another core and gateway on the same database, clock and SMS outbox (a second instance
    /// of a fleet, or a restart after a crash). `configure` adjusts the new core's settings.
    pub async fn second_stack(&self, configure: impl FnOnce(&mut CoreConfig)) -> Stack {
        let mut config = self.config.clone();
        configure(&mut config);
        let overrides = Overrides {
            clock: Some(Arc::new(self.clock.clone())),
            sms: Some(self.sms.clone()),
            ..Default::default()
        };
        let core_app = CoreApp::build(config.clone(), overrides)
            .await
            .expect("core builds");
        let (grpc_url, core_tls_ca) = core_url(&config, core_app.local_addr());
        let cancel = CancellationToken::new();
        tokio::spawn(core_app.run_until_stopped(cancel.clone()));
        let mut gateway_config = GatewayConfig::for_core(grpc_url.clone());
        gateway_config.core_tls_ca = core_tls_ca;
        gateway_config.internal_token = self.config.internal_token.clone();
        let gateway = GatewayApp::build(gateway_config)
            .await
            .expect("gateway builds");
        let base = format!("http://{}", gateway.local_addr());
        tokio::spawn(gateway.run_until_stopped(cancel.clone()));
        Stack {
            base,
            grpc_url,
            cancel,
        }
    }

    /// A gateway of its own whose `CORE_URL` is `core_url` (one core or several, comma
    /// separated); stopped when the returned stack is dropped.
    pub async fn gateway_for(&self, core_url: &str) -> Stack {
        self.gateway_with(core_url, |_| {}).await
    }

    /// [`TestApp::gateway_for`], its configuration changed by `configure` first.
    pub async fn gateway_with(
        &self,
        core_url: &str,
        configure: impl FnOnce(&mut GatewayConfig),
    ) -> Stack {
        let mut config = GatewayConfig::for_core(core_url);
        config.core_tls_ca = self.core_tls_ca.clone();
        config.internal_token = self.config.internal_token.clone();
        configure(&mut config);
        let gateway = GatewayApp::build(config).await.expect("gateway builds");
        let base = format!("http://{}", gateway.local_addr());
        let cancel = CancellationToken::new();
        tokio::spawn(gateway.run_until_stopped(cancel.clone()));
        Stack {
            base,
            grpc_url: core_url.to_string(),
            cancel,
        }
    }

    /// Another core on the same database and clock, on its own runtime (no gateway): dropping
    /// it drops that runtime, as a crash would stop the process, with nothing handed back.
    pub fn crashable_core(&self, configure: impl FnOnce(&mut CoreConfig)) -> CrashableCore {
        let mut config = self.config.clone();
        configure(&mut config);
        let overrides = Overrides {
            clock: Some(Arc::new(self.clock.clone())),
            sms: Some(self.sms.clone()),
            ..Default::default()
        };
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(1)
            .enable_all()
            .build()
            .expect("a runtime");
        let cancel = CancellationToken::new();
        let stop = cancel.clone();
        runtime.spawn(async move {
            let core = CoreApp::build(config, overrides)
                .await
                .expect("core builds");
            if let Err(err) = core.run_until_stopped(stop).await {
                eprintln!("the crashable core stopped: {err:#}");
            }
        });
        CrashableCore {
            runtime: Some(runtime),
            _cancel: cancel,
        }
    }

    /// Starts a webhook worker on another stack's core (stopped with that stack).
    pub fn start_worker_at(&self, stack: &Stack) {
        let mut config = webhook_worker::WorkerConfig::for_core(stack.grpc_url.clone());
        config.core_tls_ca = self.core_tls_ca.clone();
        config.internal_token = self.config.internal_token.clone();
        tokio::spawn(webhook_worker::Worker::new(config).run_until_stopped(stack.cancel.clone()));
    }

    /// The same request against another stack's gateway.
    pub async fn request_at(
        &self,
        base: &str,
        method: reqwest::Method,
        path: &str,
        token: Option<&str>,
        body: Option<Value>,
    ) -> Reply {
        let mut request = self.http.request(method, format!("{base}{path}"));
        if let Some(token) = token {
            request = request.header("authorization", format!("Bearer {token}"));
        }
        if let Some(body) = body {
            request = request.json(&body);
        }
        into_reply(request.send().await.expect("request sent")).await
    }

    /// Stops the core (the gateway keeps running and must answer 503).
    pub async fn stop_core(&mut self) {
        self.core_cancel.cancel();
        if let Some(task) = self.core_task.take() {
            let _ = task.await;
        }
    }

    pub async fn request(
        &self,
        method: reqwest::Method,
        path: &str,
        token: Option<&str>,
        body: Option<RawBody>,
    ) -> Reply {
        let mut request = self.http.request(method, format!("{}{}", self.base, path));
        if let Some(token) = token {
            request = request.header("authorization", format!("Bearer {token}"));
        }
        match body {
            Some(RawBody::Json(value)) => request = request.json(&value),
            Some(RawBody::Text(text)) => {
                request = request
                    .header("content-type", "application/json")
                    .body(text)
            }
            None => {}
        }
        into_reply(request.send().await.expect("request sent")).await
    }

    pub async fn get(&self, path: &str, token: Option<&str>) -> Reply {
        self.request(reqwest::Method::GET, path, token, None).await
    }

    pub async fn post(&self, path: &str, token: Option<&str>, body: Value) -> Reply {
        self.request(
            reqwest::Method::POST,
            path,
            token,
            Some(RawBody::Json(body)),
        )
        .await
    }

    pub async fn patch(&self, path: &str, token: Option<&str>, body: Value) -> Reply {
        self.request(
            reqwest::Method::PATCH,
            path,
            token,
            Some(RawBody::Json(body)),
        )
        .await
    }

    pub async fn admin(&self) -> AdminServiceClient<tonic::transport::Channel> {
        let channel = proto::channel::endpoint(&self.grpc_url, self.core_tls_ca.as_deref())
            .expect("admin endpoint")
            .connect()
            .await
            .expect("admin client");
        AdminServiceClient::new(channel)
    }

    pub async fn privacy(
        &self,
    ) -> proto::v1::privacy_service_client::PrivacyServiceClient<tonic::transport::Channel> {
        let channel = proto::channel::endpoint(&self.grpc_url, self.core_tls_ca.as_deref())
            .expect("privacy endpoint")
            .connect()
            .await
            .expect("privacy client");
        proto::v1::privacy_service_client::PrivacyServiceClient::new(channel)
    }

    /// A request to the admin service, with the internal token when the core has one.
    pub fn admin_request<T>(&self, body: T) -> tonic::Request<T> {
        let mut request = tonic::Request::new(body);
        if let Some(token) = &self.config.internal_token {
            request
                .metadata_mut()
                .insert("authorization", format!("Bearer {token}").parse().unwrap());
        }
        request
    }

    /// Creates an active user through the admin service; returns its id.
    pub async fn create_user(&self, phone: &str) -> String {
        self.admin()
            .await
            .create_user(self.admin_request(pb::CreateUserRequest {
                phone_number: phone.to_string(),
            }))
            .await
            .expect("create user")
            .into_inner()
            .id
    }

    pub async fn set_user_status(&self, phone: &str, status: &str) {
        self.admin()
            .await
            .set_user_status(self.admin_request(pb::SetUserStatusRequest {
                phone_number: phone.to_string(),
                status: status.to_string(),
            }))
            .await
            .expect("set user status");
    }

    pub async fn set_business(&self, id: &str, mode: Option<&str>, status: Option<&str>) {
        self.admin()
            .await
            .set_business(self.admin_request(pb::SetBusinessRequest {
                id: id.to_string(),
                mode: mode.map(str::to_string),
                status: status.map(str::to_string),
            }))
            .await
            .expect("set business");
    }

    /// Requests a code for `phone` and returns it from the outbox.
    pub async fn request_code(&self, phone: &str) -> String {
        self.post(
            "/auth/business/otp/request",
            None,
            serde_json::json!({ "phone_number": phone }),
        )
        .await
        .assert_ok(200);
        self.sms.last_code(phone)
    }

    /// Signs in by one-time code; returns the token-pair data.
    pub async fn login(&self, phone: &str) -> Value {
        let code = self.request_code(phone).await;
        let reply = self
            .post(
                "/auth/business/otp/verify",
                None,
                serde_json::json!({ "phone_number": phone, "code": code }),
            )
            .await;
        reply.assert_ok(200);
        reply.data().clone()
    }

    /// PostgreSQL only: refuses new connections to this test's database and ends the open ones
    /// (`down`), or allows them again: for the core, the database is away. False on SQLite.
    pub async fn postgres_down(&self, down: bool) -> bool {
        let TestDb::Postgres { admin_url, name } = &self._db else {
            return false;
        };
        let admin = Database::connect(admin_url.as_str())
            .await
            .expect("admin connection");
        admin
            .execute_unprepared(&format!(
                "ALTER DATABASE \"{name}\" ALLOW_CONNECTIONS {}",
                !down
            ))
            .await
            .expect("ALTER DATABASE");
        if down {
            admin
                .execute_unprepared(&format!(
                    "SELECT pg_terminate_backend(pid) FROM pg_stat_activity \
                     WHERE datname = '{name}' AND pid <> pg_backend_pid()"
                ))
                .await
                .expect("terminating connections");
        }
        let _ = admin.close().await;
        true
    }

    /// A new user, signed in; returns (user id, access token).
    pub async fn user(&self, phone: &str) -> (String, String) {
        let id = self.create_user(phone).await;
        let tokens = self.login(phone).await;
        (id, tokens["access_token"].as_str().unwrap().to_string())
    }

    /// A new user who owns a sandbox business; returns (business id, access token).
    pub async fn business_owner(&self, phone: &str) -> (String, String) {
        let (id, token) = self.user(phone).await;
        self.post(
            "/business/sandbox",
            Some(&token),
            serde_json::json!({ "business_name": "Acme" }),
        )
        .await
        .assert_ok(201);
        (id, token)
    }
}

impl Drop for TestApp {
    fn drop(&mut self) {
        self.stop_workers();
        self.gateway_cancel.cancel();
        self.core_cancel.cancel();
    }
}

/// A core started by [`TestApp::crashable_core`].
pub struct CrashableCore {
    runtime: Option<tokio::runtime::Runtime>,
    _cancel: CancellationToken,
}

impl CrashableCore {
    /// Stops the core as a crash would: its runtime goes, its tasks with it, mid-transaction or
    /// not, and no lease is given back.
    pub fn crash(mut self) {
        if let Some(runtime) = self.runtime.take() {
            runtime.shutdown_background();
        }
    }
}

impl Drop for CrashableCore {
    fn drop(&mut self) {
        if let Some(runtime) = self.runtime.take() {
            runtime.shutdown_background();
        }
    }
}

/// A second stack started by [`TestApp::second_stack`]; stopped when dropped.
pub struct Stack {
    pub base: String,
    pub grpc_url: String,
    pub cancel: CancellationToken,
}

impl Drop for Stack {
    fn drop(&mut self) {
        self.cancel.cancel();
    }
}

/// How long [`eventually`] waits before it gives up: long enough for a slow, busy machine
/// (a webhook's retries, a health check every 2 s), never a timing the test asserts.
pub const EVENTUALLY_WITHIN: Duration = Duration::from_secs(60);
const EVENTUALLY_EVERY: Duration = Duration::from_millis(20);

/// Polls `probe` every 20 ms until it gives a value, and returns it; panics naming `what` when
/// [`EVENTUALLY_WITHIN`] has passed. The one wait of the suite: a test asserts what it waited
/// for afterwards, never how long it took.
pub async fn eventually<T>(what: &str, mut probe: impl AsyncFnMut() -> Option<T>) -> T {
    let deadline = std::time::Instant::now() + EVENTUALLY_WITHIN;
    loop {
        if let Some(value) = probe().await {
            return value;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "{what}: not within {EVENTUALLY_WITHIN:?}"
        );
        tokio::time::sleep(EVENTUALLY_EVERY).await;
    }
}

/// Lets `d` of real time pass, for a test that shows that nothing happens meanwhile (a message
/// not sent before its time, a retry not made early, no second delivery, nothing created after
/// a cancel). The core's background loops run on real time (the dispatcher polls every
/// 500 ms at most, the job streams and the broadcast runner every second), so `d` spans at
/// least one of their rounds; business time (send times, retry waits) is moved with the
/// test's clock before it. What a test waits *for* it polls with [`eventually`].
pub async fn quiet_for(d: Duration) {
    tokio::time::sleep(d).await;
}

/// Defines one test per backend: `e2e!(name, |app| async move { ... });`, optionally with
/// [`Options`] before the closure.
#[macro_export]
macro_rules! e2e {
    ($name:ident, |$app:ident| $body:expr) => {
        $crate::e2e!($name, $crate::harness::Options::default(), |$app| $body);
    };
    ($name:ident, $options:expr, |$app:ident| $body:expr) => {
        mod $name {
            #[allow(unused_imports)]
            use super::*;

            #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
            async fn sqlite() {
                let Some($app) = $crate::harness::TestApp::spawn_with(
                    $crate::harness::Backend::Sqlite,
                    $options,
                )
                .await
                else {
                    return;
                };
                $body.await
            }

            #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
            async fn postgres() {
                let Some($app) = $crate::harness::TestApp::spawn_with(
                    $crate::harness::Backend::Postgres,
                    $options,
                )
                .await
                else {
                    return;
                };
                $body.await
            }
        }
    };
}
