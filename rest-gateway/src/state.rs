//! The gateway's state: gRPC clients of the core. No database, no rule.

use std::ops::Deref;
use std::sync::Arc;
use std::time::Duration;

use proto::cores::{CoreChannel, Cores};
use proto::v1::app_service_client::AppServiceClient;
use proto::v1::audience_service_client::AudienceServiceClient;
use proto::v1::broadcast_service_client::BroadcastServiceClient;
use proto::v1::business_service_client::BusinessServiceClient;
use proto::v1::consent_service_client::ConsentServiceClient;
use proto::v1::conversation_service_client::ConversationServiceClient;
use proto::v1::grant_service_client::GrantServiceClient;
use proto::v1::identity_service_client::IdentityServiceClient;
use proto::v1::messaging_service_client::MessagingServiceClient;
use proto::v1::qr_service_client::QrServiceClient;
use proto::v1::team_service_client::TeamServiceClient;
use proto::v1::template_service_client::TemplateServiceClient;
use proto::v1::user_conversation_service_client::UserConversationServiceClient;
use proto::v1::webhook_service_client::WebhookServiceClient;

use crate::config::GatewayConfig;

/// What every handler is given: one shared [`Clients`], so that each request clones a pointer
/// rather than every client (eleven of them, each with its channel and origin `Uri`).
#[derive(Clone)]
pub struct AppState(Arc<Clients>);

impl Deref for AppState {
    type Target = Clients;

    fn deref(&self) -> &Clients {
        &self.0
    }
}

/// The gRPC clients of the core, and the little the extractors need besides.
pub struct Clients {
    pub identity: IdentityServiceClient<CoreChannel>,
    pub business: BusinessServiceClient<CoreChannel>,
    pub team: TeamServiceClient<CoreChannel>,
    pub consent: ConsentServiceClient<CoreChannel>,
    pub audience: AudienceServiceClient<CoreChannel>,
    pub apps: AppServiceClient<CoreChannel>,
    pub messaging: MessagingServiceClient<CoreChannel>,
    pub broadcasts: BroadcastServiceClient<CoreChannel>,
    pub conversations: ConversationServiceClient<CoreChannel>,
    pub user_conversations: UserConversationServiceClient<CoreChannel>,
    pub templates: TemplateServiceClient<CoreChannel>,
    pub webhooks: WebhookServiceClient<CoreChannel>,
    pub grants: GrantServiceClient<CoreChannel>,
    pub qr: QrServiceClient<CoreChannel>,
    /// Every listed core: readiness asks each in turn.
    pub cores: Cores,
    pub trust_proxy: bool,
    /// `x-internal-token` for the core: vouches for the forwarded client IP and User-Agent.
    pub internal_token: Option<tonic::metadata::AsciiMetadataValue>,
}

impl AppState {
    /// Clients over lazily connected channels, one per core of `CORE_URL` behind the picker
    /// ([`proto::cores`]): the gateway starts (and answers 503) while every core is down, and
    /// uses each again when it is back.
    pub fn new(config: &GatewayConfig) -> anyhow::Result<AppState> {
        let timeout = Duration::from_secs(config.http.core_timeout_secs.max(1));
        let cores = Cores::new(&config.core_url, config.core_tls_ca.as_deref(), |e| {
            e.connect_timeout(Duration::from_secs(3))
                .timeout(timeout)
                .tcp_nodelay(true)
        })
        .map_err(|e| anyhow::anyhow!(e))?
        .with_turn(Duration::from_millis(config.core_turn_ms));
        let channel = cores.channel();
        Ok(AppState(Arc::new(Clients {
            identity: IdentityServiceClient::new(channel.clone()),
            business: BusinessServiceClient::new(channel.clone()),
            team: TeamServiceClient::new(channel.clone()),
            consent: ConsentServiceClient::new(channel.clone()),
            audience: AudienceServiceClient::new(channel.clone()),
            apps: AppServiceClient::new(channel.clone()),
            messaging: MessagingServiceClient::new(channel.clone()),
            broadcasts: BroadcastServiceClient::new(channel.clone()),
            conversations: ConversationServiceClient::new(channel.clone()),
            user_conversations: UserConversationServiceClient::new(channel.clone()),
            templates: TemplateServiceClient::new(channel.clone()),
            webhooks: WebhookServiceClient::new(channel.clone()),
            grants: GrantServiceClient::new(channel.clone()),
            qr: QrServiceClient::new(channel),
            cores,
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
        })))
    }
}
