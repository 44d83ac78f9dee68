//! The gateway's state: gRPC clients of the core. No database, no rule.

use std::time::Duration;

use proto::v1::app_service_client::AppServiceClient;
use proto::v1::audience_service_client::AudienceServiceClient;
use proto::v1::broadcast_service_client::BroadcastServiceClient;
use proto::v1::business_service_client::BusinessServiceClient;
use proto::v1::consent_service_client::ConsentServiceClient;
use proto::v1::grant_service_client::GrantServiceClient;
use proto::v1::identity_service_client::IdentityServiceClient;
use proto::v1::messaging_service_client::MessagingServiceClient;
use proto::v1::qr_service_client::QrServiceClient;
use proto::v1::team_service_client::TeamServiceClient;
use proto::v1::webhook_service_client::WebhookServiceClient;
use tonic::transport::Channel;
use tonic_health::pb::health_client::HealthClient;

use crate::config::GatewayConfig;

#[derive(Clone)]
pub struct AppState {
    pub identity: IdentityServiceClient<Channel>,
    pub business: BusinessServiceClient<Channel>,
    pub team: TeamServiceClient<Channel>,
    pub consent: ConsentServiceClient<Channel>,
    pub audience: AudienceServiceClient<Channel>,
    pub apps: AppServiceClient<Channel>,
    pub messaging: MessagingServiceClient<Channel>,
    pub broadcasts: BroadcastServiceClient<Channel>,
    pub webhooks: WebhookServiceClient<Channel>,
    pub grants: GrantServiceClient<Channel>,
    pub qr: QrServiceClient<Channel>,
    pub health: HealthClient<Channel>,
    pub trust_proxy: bool,
    /// `x-internal-token` for the core: vouches for the forwarded client IP and User-Agent.
    pub internal_token: Option<tonic::metadata::AsciiMetadataValue>,
}

impl AppState {
    /// Clients over one lazily connected channel: the gateway starts (and answers 503) while
    /// the core is down, and reconnects when it is back.
    pub fn new(config: &GatewayConfig) -> anyhow::Result<AppState> {
        let channel = proto::channel::endpoint(&config.core_url, config.core_tls_ca.as_deref())
            .map_err(|e| anyhow::anyhow!(e))?
            .connect_timeout(Duration::from_secs(3))
            .timeout(Duration::from_secs(config.http.core_timeout_secs.max(1)))
            .tcp_nodelay(true)
            .connect_lazy();
        Ok(AppState {
            identity: IdentityServiceClient::new(channel.clone()),
            business: BusinessServiceClient::new(channel.clone()),
            team: TeamServiceClient::new(channel.clone()),
            consent: ConsentServiceClient::new(channel.clone()),
            audience: AudienceServiceClient::new(channel.clone()),
            apps: AppServiceClient::new(channel.clone()),
            messaging: MessagingServiceClient::new(channel.clone()),
            broadcasts: BroadcastServiceClient::new(channel.clone()),
            webhooks: WebhookServiceClient::new(channel.clone()),
            grants: GrantServiceClient::new(channel.clone()),
            qr: QrServiceClient::new(channel.clone()),
            health: HealthClient::new(channel),
            trust_proxy: config.http.trust_proxy,
            internal_token: config
                .internal_token
                .as_deref()
                .filter(|t| !t.is_empty())
                .map(|t| {
                    tonic::metadata::AsciiMetadataValue::try_from(t)
                        .map_err(|_| anyhow::anyhow!("INTERNAL_TOKEN: visible ASCII only"))
                })
                .transpose()?,
        })
    }
}
