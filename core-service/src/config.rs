//! The core's configuration: command-line flags with environment-variable fallbacks.

use std::net::SocketAddr;
use std::path::PathBuf;
use std::time::Duration;

use clap::{Args, ValueEnum};

/// Settings of the core service (`core-service serve`).
#[derive(Debug, Clone, Args)]
pub struct CoreConfig {
    #[command(flatten)]
    pub database: DatabaseConfig,

    /// Address of the gRPC server (port 0 picks a free port).
    #[arg(long, env = "GRPC_ADDR", default_value = "127.0.0.1:50051")]
    pub grpc_addr: SocketAddr,

    /// HMAC key for access tokens (at least 32 bytes). Generated beside a SQLite database when
    /// unset; required on PostgreSQL.
    #[arg(long, env = "JWT_SECRET", hide_env_values = true)]
    pub jwt_secret: Option<String>,

    /// The JWT secret being retired: access tokens it signed are still accepted (new ones are
    /// signed with JWT_SECRET). Remove it once ACCESS_TOKEN_TTL_SECS have passed.
    #[arg(long, env = "JWT_SECRET_PREVIOUS", hide_env_values = true)]
    pub jwt_secret_previous: Option<String>,

    /// `iss` of issued access tokens, checked on every request.
    #[arg(long, env = "JWT_ISSUER", default_value = "business-messaging")]
    pub jwt_issuer: String,

    /// `aud` of issued access tokens, checked on every request.
    #[arg(long, env = "JWT_AUDIENCE", default_value = "business-messaging-api")]
    pub jwt_audience: String,

    /// Access-token lifetime in seconds.
    #[arg(long, env = "ACCESS_TOKEN_TTL_SECS", default_value_t = 900)]
    pub access_token_ttl_secs: u64,

    /// Refresh-token lifetime in seconds (30 days).
    #[arg(long, env = "REFRESH_TOKEN_TTL_SECS", default_value_t = 30 * 24 * 3600)]
    pub refresh_token_ttl_secs: u64,

    /// At least 32 random bytes, hex or base64: derives the OTP HMAC key and the webhook-secret
    /// encryption key. Generated beside a SQLite database when unset; required on PostgreSQL.
    #[arg(long, env = "MASTER_KEY", hide_env_values = true)]
    pub master_key: Option<String>,

    /// The master key being retired: webhook secrets sealed with it still open, until
    /// `core-service admin rekey` re-seals them with MASTER_KEY.
    #[arg(long, env = "MASTER_KEY_PREVIOUS", hide_env_values = true)]
    pub master_key_previous: Option<String>,

    /// Guards the internal AdminService (and the workers' job stream). When unset, only
    /// loopback peers are accepted.
    #[arg(long, env = "INTERNAL_TOKEN", hide_env_values = true)]
    pub internal_token: Option<String>,

    /// Where `GET /metrics` (Prometheus text) is served, on a listener of its own; `off` for
    /// nowhere. The all-in-one serves its core's, gateway's and worker's metrics there.
    #[arg(long, env = "METRICS_ADDR", default_value = "127.0.0.1:9464")]
    pub metrics_addr: proto::metrics::MetricsAddr,

    #[command(flatten)]
    pub sms: SmsConfig,

    #[command(flatten)]
    pub delivery: DeliveryConfig,

    #[command(flatten)]
    pub webhooks: WebhookConfig,

    #[command(flatten)]
    pub limits: LimitsConfig,

    #[command(flatten)]
    pub retention: RetentionConfig,

    /// The gRPC listener's TLS identity (the standalone core's `GRPC_TLS_CERT` and
    /// `GRPC_TLS_KEY`); plain gRPC when None.
    #[arg(skip)]
    pub grpc_tls: Option<TlsIdentity>,
}

/// TLS for the core's gRPC listener: what the standalone `core-service` takes (the all-in-one's
/// gateway and worker reach its core in-process, so it has none).
#[derive(Debug, Clone, Args)]
pub struct GrpcTlsArgs {
    /// PEM certificate chain of the gRPC listener; with GRPC_TLS_KEY the core serves gRPC over
    /// TLS only (clients use an https:// CORE_URL).
    #[arg(long, env = "GRPC_TLS_CERT", requires = "grpc_tls_key")]
    pub grpc_tls_cert: Option<PathBuf>,

    /// PEM private key of GRPC_TLS_CERT.
    #[arg(long, env = "GRPC_TLS_KEY", requires = "grpc_tls_cert")]
    pub grpc_tls_key: Option<PathBuf>,
}

impl GrpcTlsArgs {
    /// Reads and checks the certificate and key; None without them.
    pub fn load(&self) -> anyhow::Result<Option<TlsIdentity>> {
        let (Some(cert), Some(key)) = (&self.grpc_tls_cert, &self.grpc_tls_key) else {
            return Ok(None);
        };
        let read = |path: &PathBuf, name: &str| {
            std::fs::read(path).map_err(|e| anyhow::anyhow!("{name} {}: {e}", path.display()))
        };
        let identity = TlsIdentity {
            cert_pem: read(cert, "GRPC_TLS_CERT")?,
            key_pem: read(key, "GRPC_TLS_KEY")?,
        };
        // The PEM is only parsed when a server takes the settings: try one now, so a bad file
        // stops the start with its name rather than failing the listener later.
        tonic::transport::Server::builder()
            .tls_config(identity.server_config())
            .map_err(|e| anyhow::anyhow!("GRPC_TLS_CERT / GRPC_TLS_KEY: {e}"))?;
        Ok(Some(identity))
    }
}

/// A PEM certificate chain and its key.
#[derive(Clone)]
pub struct TlsIdentity {
    pub cert_pem: Vec<u8>,
    pub key_pem: Vec<u8>,
}

impl std::fmt::Debug for TlsIdentity {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("TlsIdentity(..)")
    }
}

impl TlsIdentity {
    /// The gRPC server's TLS settings.
    pub fn server_config(&self) -> tonic::transport::ServerTlsConfig {
        tonic::transport::ServerTlsConfig::new().identity(tonic::transport::Identity::from_pem(
            &self.cert_pem,
            &self.key_pem,
        ))
    }
}

#[derive(Debug, Clone, Args)]
pub struct WebhookConfig {
    /// Seconds in one unit of the retry schedule (waits of 1, 2, 4, 8 and 16 units).
    #[arg(long, env = "WEBHOOK_RETRY_UNIT_SECS", default_value_t = 60.0)]
    pub webhook_retry_unit_secs: f64,

    /// Seconds a receiver has to answer.
    #[arg(long, env = "WEBHOOK_TIMEOUT_SECS", default_value_t = 10.0)]
    pub webhook_timeout_secs: f64,

    /// Allow http:// URLs and private, loopback and link-local targets (development and tests
    /// only).
    #[arg(
        long,
        env = "WEBHOOK_ALLOW_INSECURE",
        default_value = "false",
        action = clap::ArgAction::Set,
        value_parser = clap::builder::BoolishValueParser::new()
    )]
    pub webhook_allow_insecure: bool,

    /// Most webhook endpoints one business may have (over it: 409 `webhook_limit_reached`).
    #[arg(long, env = "WEBHOOK_ENDPOINTS_PER_BUSINESS", default_value_t = 20)]
    pub webhook_endpoints_per_business: u32,

    /// Most test events one endpoint may be sent per minute (over it: 429 `rate_limited`).
    #[arg(
        long,
        env = "WEBHOOK_TESTS_PER_ENDPOINT_PER_MINUTE",
        default_value_t = 5
    )]
    pub webhook_tests_per_endpoint_per_minute: u32,

    /// Most deliveries of a slow endpoint in flight at once, over all workers (0: no cap). An
    /// endpoint is slow for a minute after an attempt took a second or more, timed out or could
    /// not connect: it then holds at most this many worker slots while every other endpoint
    /// keeps flowing. Endpoints that answer quickly are never capped.
    #[arg(long, env = "WEBHOOK_MAX_IN_FLIGHT_PER_ENDPOINT", default_value_t = 8)]
    pub webhook_max_in_flight_per_endpoint: u32,

    /// Failed attempts in a row after which an endpoint turns `failing` (a delivery that ends
    /// failed turns it at once). Nothing is paused or disabled: the endpoint keeps receiving.
    #[arg(long, env = "WEBHOOK_FAILING_AFTER", default_value_t = 5)]
    pub webhook_failing_after: u32,

    /// Whether an endpoint turning `failing` sends its business's owner and admins an SMS (one
    /// per endpoint per 24 h; each can turn theirs off with `PATCH /me {"webhook_alerts"}`).
    #[arg(
        long,
        env = "WEBHOOK_ALERT_SMS",
        default_value_t = true,
        action = clap::ArgAction::Set
    )]
    pub webhook_alert_sms: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum DeliveryProviderKind {
    /// Stores messages in the recipients' inboxes.
    Inbox,
    /// POSTs each message to DELIVERY_HTTP_URL.
    Http,
}

#[derive(Debug, Clone, Args)]
pub struct DeliveryConfig {
    /// Where accepted messages go.
    #[arg(long, env = "DELIVERY_PROVIDER", value_enum, default_value = "inbox")]
    pub delivery_provider: DeliveryProviderKind,

    /// Endpoint of the `http` delivery provider.
    #[arg(long, env = "DELIVERY_HTTP_URL")]
    pub delivery_http_url: Option<String>,

    /// Messages this core delivers at once; 0 makes it accept only (others deliver).
    #[arg(long, env = "DISPATCH_CONCURRENCY", default_value_t = 8)]
    pub dispatch_concurrency: usize,
}

/// The embedded default: a SQLite file under `./data/`.
pub const DEFAULT_DATABASE_URL: &str = "sqlite://data/core.db";

#[derive(Debug, Clone, Args)]
pub struct DatabaseConfig {
    /// `sqlite://path/to/file.db` or `postgres://user@host/db`.
    #[arg(long, env = "DATABASE_URL", default_value = DEFAULT_DATABASE_URL)]
    pub database_url: String,

    /// Connections in the pool (PostgreSQL; SQLite always uses one writer connection).
    #[arg(long, env = "DATABASE_MAX_CONNECTIONS", default_value_t = 10)]
    pub database_max_connections: u32,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum SmsProviderKind {
    /// Writes codes to the log (development).
    Log,
    /// POSTs `{"to","text"}` to SMS_HTTP_URL.
    Http,
}

#[derive(Debug, Clone, Args)]
pub struct SmsConfig {
    /// Where one-time codes go.
    #[arg(long, env = "SMS_PROVIDER", value_enum, default_value = "log")]
    pub sms_provider: SmsProviderKind,

    /// Endpoint of the `http` SMS provider.
    #[arg(long, env = "SMS_HTTP_URL")]
    pub sms_http_url: Option<String>,
}

/// Request limits. The per-phone limits hold across every core sharing the database.
#[derive(Debug, Clone, Args)]
pub struct LimitsConfig {
    /// Seconds between two code requests for one phone number.
    #[arg(long, env = "OTP_COOLDOWN_SECS", default_value_t = 60)]
    pub otp_cooldown_secs: u64,

    /// Code requests per phone number per hour.
    #[arg(long, env = "OTP_REQUESTS_PER_PHONE_PER_HOUR", default_value_t = 5)]
    pub otp_requests_per_phone_per_hour: u32,

    /// Code requests per client IP per hour.
    #[arg(long, env = "OTP_REQUESTS_PER_IP_PER_HOUR", default_value_t = 30)]
    pub otp_requests_per_ip_per_hour: u32,

    /// Code verifications per client IP per hour.
    #[arg(long, env = "OTP_VERIFIES_PER_IP_PER_HOUR", default_value_t = 60)]
    pub otp_verifies_per_ip_per_hour: u32,

    /// Failed verifications after which a phone number is locked until the end of the UTC day.
    #[arg(long, env = "OTP_DAILY_FAILURES_PER_PHONE", default_value_t = 20)]
    pub otp_daily_failures_per_phone: u32,

    /// QR sessions created per client IP per hour.
    #[arg(long, env = "QR_SESSIONS_PER_IP_PER_HOUR", default_value_t = 60)]
    pub qr_sessions_per_ip_per_hour: u32,

    /// QR previews, status polls and approvals per client IP per hour.
    #[arg(long, env = "QR_READS_PER_IP_PER_HOUR", default_value_t = 7200)]
    pub qr_reads_per_ip_per_hour: u32,

    /// QR previews and status polls per session (over its two-minute life).
    #[arg(long, env = "QR_READS_PER_SESSION", default_value_t = 300)]
    pub qr_reads_per_session: u32,

    /// QR exchanges per client IP per hour.
    #[arg(long, env = "QR_EXCHANGES_PER_IP_PER_HOUR", default_value_t = 60)]
    pub qr_exchanges_per_ip_per_hour: u32,

    /// QR exchanges (and wrong secrets) per session.
    #[arg(long, env = "QR_EXCHANGES_PER_SESSION", default_value_t = 10)]
    pub qr_exchanges_per_session: u32,

    /// Sends per business per second (all paths together), with bursts of as many.
    #[arg(long, env = "BUSINESS_SENDS_PER_SECOND", default_value_t = 2000)]
    pub business_sends_per_second: u32,

    /// Phone numbers a business may look up among its followers per hour (each distinct number
    /// of a request counts; a request takes all its numbers or none). At least 100, the most
    /// one request holds.
    #[arg(long, env = "FOLLOWER_LOOKUPS_PER_HOUR", default_value_t = 10_000,
          value_parser = clap::value_parser!(u32).range(100..))]
    pub follower_lookups_per_hour: u32,

    /// Hours a conversation's service window stays open after the user's last message: free
    /// text may be sent to the user only inside it.
    #[arg(long, env = "SERVICE_WINDOW_HOURS", default_value_t = 24,
          value_parser = clap::value_parser!(u32).range(1..=168))]
    pub service_window_hours: u32,

    /// Messages a user may write to one business per minute (exact across cores).
    #[arg(long, env = "INBOUND_PER_MINUTE", default_value_t = 20,
          value_parser = clap::value_parser!(u32).range(1..))]
    pub inbound_per_minute: u32,

    /// Messages a business may send through one conversation per minute (exact across cores),
    /// beside BUSINESS_SENDS_PER_SECOND.
    #[arg(long, env = "REPLIES_PER_MINUTE", default_value_t = 30,
          value_parser = clap::value_parser!(u32).range(1..))]
    pub replies_per_minute: u32,
}

impl CoreConfig {
    /// A configuration for tests and embedding: every default, the given database, port 0.
    pub fn for_database(database_url: impl Into<String>) -> Self {
        use clap::Parser;
        #[derive(Parser)]
        struct Wrapper {
            #[command(flatten)]
            config: CoreConfig,
        }
        // An empty command line yields the documented defaults (environment variables still
        // apply; callers set what they depend on).
        let mut config = Wrapper::try_parse_from(["core"])
            .map(|w| w.config)
            .unwrap_or_else(|e| panic!("defaults must parse: {e}"));
        config.database.database_url = database_url.into();
        config.grpc_addr = SocketAddr::from(([127, 0, 0, 1], 0));
        config.metrics_addr = proto::metrics::MetricsAddr(None);
        config
    }
}

/// Token settings taken from the configuration.
#[derive(Debug, Clone)]
pub struct TokenSettings {
    pub issuer: String,
    pub audience: String,
    pub access_ttl: Duration,
    pub refresh_ttl: Duration,
}

/// Webhook delivery settings taken from the configuration.
#[derive(Debug, Clone)]
pub struct WebhookSettings {
    pub retry_unit: Duration,
    pub timeout: Duration,
    pub allow_insecure: bool,
    pub endpoints_per_business: u32,
    pub tests_per_endpoint_per_minute: u32,
    pub max_in_flight_per_endpoint: u32,
    /// `WEBHOOK_FAILING_AFTER`.
    pub failing_after: u32,
    /// `WEBHOOK_ALERT_SMS`.
    pub alert_sms: bool,
    /// How often an idle job stream looks for deliveries that became due (retries, and other
    /// cores' deliveries when a wake-up was missed): [`WebhookSettings::POLL`].
    pub poll: Duration,
}

impl WebhookSettings {
    /// The job streams' poll interval (tests may build a core with another).
    pub const POLL: Duration = Duration::from_millis(250);
}

/// How long the core keeps each kind of data, and how it purges the rest.
#[derive(Debug, Clone, Args)]
pub struct RetentionConfig {
    /// Days a decided message (delivered, failed or canceled) stays in the history, counted
    /// from its acceptance; 0 keeps them forever. Scheduled and undecided messages are never
    /// purged. Usage totals count the messages kept.
    #[arg(long, env = "RETENTION_MESSAGES_DAYS", default_value_t = 90)]
    pub retention_messages_days: u32,

    /// Days a message stays in its recipient's inbox, counted from its delivery; 0 keeps them
    /// forever.
    #[arg(long, env = "RETENTION_INBOX_DAYS", default_value_t = 90)]
    pub retention_inbox_days: u32,

    /// Days an event (the record behind webhook deliveries, listed and polled by
    /// `GET /business/events`) is kept; 0 keeps them forever.
    #[arg(long, env = "RETENTION_EVENTS_DAYS", default_value_t = 30)]
    pub retention_events_days: u32,

    /// Days a finished webhook delivery (succeeded or failed) is kept with its attempt log,
    /// counted from its creation; 0 keeps them forever. Recovery (`recover` since a time)
    /// reaches back at most this far (and never more than 7 days).
    #[arg(long, env = "RETENTION_DELIVERIES_DAYS", default_value_t = 30)]
    pub retention_deliveries_days: u32,

    /// Hours an Idempotency-Key's record is kept once its 24-hour window has passed (it no
    /// longer answers then).
    #[arg(long, env = "RETENTION_IDEMPOTENCY_KEYS_HOURS", default_value_t = 1)]
    pub retention_idempotency_keys_hours: u32,

    /// Hours a one-time code is kept after it expired (used or not).
    #[arg(long, env = "RETENTION_OTP_CODES_HOURS", default_value_t = 24)]
    pub retention_otp_codes_hours: u32,

    /// Hours a QR sign-in session is kept after it expired.
    #[arg(long, env = "RETENTION_QR_SESSIONS_HOURS", default_value_t = 1)]
    pub retention_qr_sessions_hours: u32,

    /// Days a refresh-token family is kept after it died (revoked, or its last token
    /// expired); its used tokens, kept to detect reuse, go with it.
    #[arg(long, env = "RETENTION_REFRESH_FAMILIES_DAYS", default_value_t = 7)]
    pub retention_refresh_families_days: u32,

    /// Seconds between two purge passes of this core (0: this core does not purge).
    #[arg(long, env = "PURGE_INTERVAL_SECS", default_value_t = 60)]
    pub purge_interval_secs: u64,

    /// Rows one purge batch deletes (one short transaction each).
    #[arg(long, env = "PURGE_BATCH_SIZE", default_value_t = 500,
          value_parser = clap::value_parser!(u32).range(1..=10_000))]
    pub purge_batch_size: u32,

    /// Rows an erasure job changes or removes per second at most (in batches of up to 500,
    /// one short transaction each), so that erasing a user with a long history leaves the
    /// database to the sends.
    #[arg(long, env = "ERASURE_ROWS_PER_SECOND", default_value_t = 5_000,
          value_parser = clap::value_parser!(u32).range(1..=1_000_000))]
    pub erasure_rows_per_second: u32,
}

impl RetentionConfig {
    /// The oldest `created_at` a recovery may reach: 7 days, or less when deliveries are kept
    /// for less.
    pub fn recover_window(&self) -> chrono::TimeDelta {
        let seven = chrono::TimeDelta::days(7);
        match self.retention_deliveries_days {
            0 => seven,
            days => seven.min(chrono::TimeDelta::days(i64::from(days))),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tls_file(name: &str) -> PathBuf {
        PathBuf::from(env!("CARGO_MANIFEST_DIR"))
            .join("../tests/tls")
            .join(name)
    }

    fn tls(cert: &str, key: &str) -> GrpcTlsArgs {
        GrpcTlsArgs {
            grpc_tls_cert: Some(tls_file(cert)),
            grpc_tls_key: Some(tls_file(key)),
        }
    }

    #[test]
    fn grpc_tls_loads_a_certificate_and_names_the_setting_at_fault() {
        assert!(tls("core.pem", "core.key").load().unwrap().is_some());
        let none = GrpcTlsArgs {
            grpc_tls_cert: None,
            grpc_tls_key: None,
        };
        assert!(none.load().unwrap().is_none());
        let missing = tls("absent.pem", "core.key")
            .load()
            .unwrap_err()
            .to_string();
        assert!(missing.starts_with("GRPC_TLS_CERT "), "{missing}");
        let missing = tls("core.pem", "absent.key")
            .load()
            .unwrap_err()
            .to_string();
        assert!(missing.starts_with("GRPC_TLS_KEY "), "{missing}");
        // A key that is no key.
        let swapped = tls("core.pem", "ca.pem").load().unwrap_err().to_string();
        assert!(
            swapped.starts_with("GRPC_TLS_CERT / GRPC_TLS_KEY"),
            "{swapped}"
        );
        // Debug output never shows the key.
        let loaded = tls("core.pem", "core.key").load().unwrap().unwrap();
        assert_eq!(format!("{loaded:?}"), "TlsIdentity(..)");
    }

    fn retention(deliveries_days: u32) -> RetentionConfig {
        use clap::Parser;
        #[derive(Parser)]
        struct Wrapper {
            #[command(flatten)]
            retention: RetentionConfig,
        }
        let mut config = Wrapper::try_parse_from(["core"]).unwrap().retention;
        config.retention_deliveries_days = deliveries_days;
        config
    }

    #[test]
    fn recovery_reaches_back_seven_days_or_the_deliveries_retention_if_shorter() {
        assert_eq!(retention(30).recover_window(), chrono::TimeDelta::days(7));
        assert_eq!(retention(0).recover_window(), chrono::TimeDelta::days(7));
        assert_eq!(retention(3).recover_window(), chrono::TimeDelta::days(3));
    }
}
