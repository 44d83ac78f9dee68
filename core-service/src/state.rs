//! The core's shared state, handed to every gRPC service.

use std::sync::Arc;
use std::time::Duration;

use sea_orm::DatabaseConnection;

use crate::clock::SharedClock;
use crate::config::{CoreConfig, LimitsConfig, TokenSettings, WebhookSettings};
use crate::conversations::writer::InboundWriter;
use crate::db::Tuning;
use crate::limits::{Budget, Limiter};
use crate::messaging::reader::ContextReader;
use crate::messaging::writer::SendWriter;
use crate::secrets::Keys;
use crate::sms::{SmsGauge, SmsSender};
use crate::templates::reader::TemplateReader;
use crate::webhooks::flow::{JobCredits, SlowEndpoints};
use crate::webhooks::wakeup::WebhookWakeup;

pub struct Core {
    pub db: DatabaseConnection,
    /// What differs by database, decided once from `db`.
    pub tuning: Tuning,
    pub clock: SharedClock,
    pub keys: Keys,
    pub sms: Arc<dyn SmsSender>,
    /// The SMS provider's recent speed and health, shared by this core's OTP requests.
    pub sms_gauge: SmsGauge,
    pub limiter: Limiter,
    /// The per-business send limit, spent in memory from chunks (a capacity limit).
    pub send_budget: Budget,
    /// Batched reads for app-token sends.
    pub send_reads: ContextReader,
    /// Batched reads for sends naming a template.
    pub template_reads: TemplateReader,
    /// Group commit for accepted sends.
    pub sends: SendWriter,
    /// The queue of user messages to their group-commit writer (`conversations/intake.rs`).
    pub inbound: InboundWriter,
    pub tokens: TokenSettings,
    pub limits: LimitsConfig,
    /// What is kept how long (the purge, and how far recovery reaches).
    pub retention: crate::config::RetentionConfig,
    pub internal_token: Option<String>,
    /// Wakes this core's dispatcher when it accepts a message.
    pub dispatch_wakeup: tokio::sync::Notify,
    /// Wakes this core's alert SMS sender (`webhooks::health::send_alerts`) after a commit
    /// that queued alerts.
    pub alert_wakeup: tokio::sync::Notify,
    /// Wakes this core's broadcast runner when it creates a broadcast.
    pub broadcast_wakeup: tokio::sync::Notify,
    /// Wakes this core's erasure runner (an erasure was requested here).
    pub erasure_wakeup: tokio::sync::Notify,
    /// Wakes the job streams (of every core, on PostgreSQL) when deliveries are committed.
    pub webhook_wakeup: WebhookWakeup,
    pub webhooks: WebhookSettings,
    /// Whether some endpoint is slow (the job stream's fair lease).
    pub slow_endpoints: SlowEndpoints,
    /// Which job stream leased each open lease token (the streams' flow control).
    pub job_credits: JobCredits,
    /// The active endpoints of recently seen businesses (PostgreSQL; checked where used).
    pub endpoint_cache: crate::events::EndpointCache,
}

impl Core {
    pub fn new(
        config: &CoreConfig,
        db: DatabaseConnection,
        clock: SharedClock,
        keys: Keys,
        sms: Arc<dyn SmsSender>,
    ) -> Core {
        let tuning = Tuning::of(db.get_database_backend());
        let writers = tuning.send_writers;
        Core {
            tuning,
            limiter: Limiter::new(db.clone(), clock.clone()),
            send_budget: Budget::new(Limiter::new(db.clone(), clock.clone())),
            sends: SendWriter::spawn(db.clone(), clock.clone(), writers),
            send_reads: ContextReader::spawn(db.clone(), writers),
            template_reads: TemplateReader::spawn(db.clone(), writers),
            inbound: InboundWriter::default(),
            webhook_wakeup: WebhookWakeup::new(db.clone(), tuning.shared),
            db,
            clock,
            keys,
            sms,
            sms_gauge: SmsGauge::default(),
            tokens: TokenSettings {
                issuer: config.jwt_issuer.clone(),
                audience: config.jwt_audience.clone(),
                access_ttl: Duration::from_secs(config.access_token_ttl_secs),
                refresh_ttl: Duration::from_secs(config.refresh_token_ttl_secs),
            },
            limits: config.limits.clone(),
            retention: config.retention.clone(),
            internal_token: config.internal_token.clone().filter(|t| !t.is_empty()),
            dispatch_wakeup: tokio::sync::Notify::new(),
            broadcast_wakeup: tokio::sync::Notify::new(),
            erasure_wakeup: tokio::sync::Notify::new(),
            alert_wakeup: tokio::sync::Notify::new(),
            slow_endpoints: Default::default(),
            job_credits: Default::default(),
            endpoint_cache: Default::default(),
            webhooks: WebhookSettings {
                retry_unit: Duration::from_secs_f64(
                    config.webhooks.webhook_retry_unit_secs.max(0.001),
                ),
                timeout: Duration::from_secs_f64(config.webhooks.webhook_timeout_secs.max(0.1)),
                allow_insecure: config.webhooks.webhook_allow_insecure,
                endpoints_per_business: config.webhooks.webhook_endpoints_per_business,
                tests_per_endpoint_per_minute: config
                    .webhooks
                    .webhook_tests_per_endpoint_per_minute,
                max_in_flight_per_endpoint: config.webhooks.webhook_max_in_flight_per_endpoint,
                failing_after: config.webhooks.webhook_failing_after,
                alert_sms: config.webhooks.webhook_alert_sms,
                poll: WebhookSettings::POLL,
            },
        }
    }
}

pub type SharedCore = Arc<Core>;
