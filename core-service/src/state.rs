//! The core's shared state, handed to every gRPC service.

use std::sync::Arc;
use std::time::Duration;

use sea_orm::DatabaseConnection;

use crate::clock::SharedClock;
use crate::config::{CoreConfig, LimitsConfig};
use crate::limits::Limiter;
use crate::secrets::Keys;
use crate::sms::SmsSender;

/// Token settings taken from the configuration.
#[derive(Debug, Clone)]
pub struct TokenSettings {
    pub issuer: String,
    pub audience: String,
    pub access_ttl: Duration,
    pub refresh_ttl: Duration,
}

pub struct Core {
    pub db: DatabaseConnection,
    pub clock: SharedClock,
    pub keys: Keys,
    pub sms: Arc<dyn SmsSender>,
    pub limiter: Limiter,
    pub tokens: TokenSettings,
    pub limits: LimitsConfig,
    pub internal_token: Option<String>,
    /// Wakes this core's dispatcher when it accepts a message.
    pub dispatch_wakeup: tokio::sync::Notify,
}

impl Core {
    pub fn new(
        config: &CoreConfig,
        db: DatabaseConnection,
        clock: SharedClock,
        keys: Keys,
        sms: Arc<dyn SmsSender>,
    ) -> Core {
        Core {
            limiter: Limiter::new(db.clone(), clock.clone()),
            db,
            clock,
            keys,
            sms,
            tokens: TokenSettings {
                issuer: config.jwt_issuer.clone(),
                audience: config.jwt_audience.clone(),
                access_ttl: Duration::from_secs(config.access_token_ttl_secs),
                refresh_ttl: Duration::from_secs(config.refresh_token_ttl_secs),
            },
            limits: config.limits.clone(),
            internal_token: config.internal_token.clone().filter(|t| !t.is_empty()),
            dispatch_wakeup: tokio::sync::Notify::new(),
        }
    }
}

pub type SharedCore = Arc<Core>;
