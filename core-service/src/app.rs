//! Building and running the core: connect, migrate, bind, then serve until cancelled.

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use anyhow::Context;
use proto::v1 as pb;
use tokio::net::TcpListener;
use tokio_util::sync::CancellationToken;
use tonic::transport::server::TcpIncoming;

use crate::admin::grpc::AdminGrpc;
use crate::apps::grpc::AppGrpc;
use crate::broadcasts::grpc::BroadcastGrpc;
use crate::business::grpc::{BusinessGrpc, TeamGrpc};
use crate::caller::internal_guard;
use crate::clock::{SharedClock, SystemClock};
use crate::config::{CoreConfig, DeliveryProviderKind, SmsProviderKind};
use crate::consent::grpc::{AudienceGrpc, ConsentGrpc};
use crate::conversations::grpc::{ConversationGrpc, UserConversationGrpc};
use crate::db::{self, Backend};
use crate::grants::grpc::GrantGrpc;
use crate::identity::grpc::IdentityGrpc;
use crate::messaging::delivery::{DeliveryProvider, HttpDelivery, InboxDelivery};
use crate::messaging::dispatcher::Dispatcher;
use crate::messaging::grpc::MessagingGrpc;
use crate::privacy::grpc::PrivacyGrpc;
use crate::qr::grpc::QrGrpc;
use crate::secrets::Keys;
use crate::sms::{HttpSms, LogSms, SmsSender};
use crate::state::Core;
use crate::templates::grpc::TemplateGrpc;
use crate::webhooks::grpc::{JobGrpc, WebhookGrpc};

/// Replacements for the outside world, for tests and embedding.
#[derive(Default, Clone)]
pub struct Overrides {
    pub clock: Option<SharedClock>,
    pub sms: Option<Arc<dyn SmsSender>>,
    pub delivery: Option<Arc<dyn DeliveryProvider>>,
    /// How often an idle job stream looks for deliveries that became due (250 ms). Tests
    /// lengthen it to show that a stream is woken when there is work, not found by its poll.
    pub job_poll: Option<Duration>,
}

/// A core whose listener is bound and whose database is migrated.
pub struct CoreApp {
    listener: TcpListener,
    core: Arc<Core>,
    delivery: Arc<dyn DeliveryProvider>,
    dispatch_concurrency: usize,
    grpc_tls: Option<crate::config::TlsIdentity>,
}

impl CoreApp {
    /// Connects to the database, applies pending migrations, loads the keys and binds the gRPC
    /// listener (port 0 picks a free port).
    pub async fn build(config: CoreConfig, overrides: Overrides) -> anyhow::Result<CoreApp> {
        let url = &config.database.database_url;
        let backend = Backend::of(url)?;
        // Connecting creates a SQLite file's folder, where generated keys are kept.
        let delivery: Arc<dyn DeliveryProvider> = match overrides.delivery {
            Some(delivery) => delivery,
            None => match config.delivery.delivery_provider {
                DeliveryProviderKind::Inbox => Arc::new(InboxDelivery),
                DeliveryProviderKind::Http => {
                    let url = config
                        .delivery
                        .delivery_http_url
                        .clone()
                        .context("DELIVERY_PROVIDER=http needs DELIVERY_HTTP_URL")?;
                    Arc::new(HttpDelivery::new(url)?)
                }
            },
        };
        let conn = db::connect(url, config.database.database_max_connections).await?;
        let keys = Keys::load(&config, &backend)?;
        let sms: Arc<dyn SmsSender> = match overrides.sms {
            Some(sms) => sms,
            None => match config.sms.sms_provider {
                SmsProviderKind::Log => Arc::new(LogSms),
                SmsProviderKind::Http => {
                    let url = config
                        .sms
                        .sms_http_url
                        .clone()
                        .context("SMS_PROVIDER=http needs SMS_HTTP_URL")?;
                    Arc::new(HttpSms::new(url)?)
                }
            },
        };
        db::migrate(&conn, url)
            .await
            .context("applying migrations")?;
        if config.internal_token.as_deref().is_none_or(str::is_empty) {
            tracing::warn!(
                "INTERNAL_TOKEN is not set: the admin service accepts loopback callers only"
            );
        }
        let upgraded = crate::webhooks::secret::upgrade(&conn, &keys.webhook_key)
            .await
            .map_err(|e| anyhow::anyhow!("upgrading stored webhook secrets: {}", e.detail))?;
        if upgraded > 0 {
            tracing::info!(upgraded, "webhook secrets re-sealed in the current format");
        }
        let clock = overrides.clock.unwrap_or_else(|| Arc::new(SystemClock));
        let mut core = Core::new(&config, conn, clock, keys, sms);
        if let Some(poll) = overrides.job_poll {
            core.webhooks.poll = poll;
        }
        let core = Arc::new(core);
        let listener = TcpListener::bind(config.grpc_addr)
            .await
            .with_context(|| format!("binding gRPC on {}", config.grpc_addr))?;
        Ok(CoreApp {
            listener,
            core,
            delivery,
            dispatch_concurrency: config.delivery.dispatch_concurrency,
            grpc_tls: config.grpc_tls.clone(),
        })
    }

    pub fn local_addr(&self) -> SocketAddr {
        self.listener
            .local_addr()
            .expect("a bound listener has an address")
    }

    /// The shared state (tests read the database through it).
    pub fn core(&self) -> Arc<Core> {
        self.core.clone()
    }

    /// Serves gRPC (with health and reflection) until `cancel` fires, then drains in-flight
    /// calls.
    pub async fn run_until_stopped(self, cancel: CancellationToken) -> anyhow::Result<()> {
        let core = self.core;
        let (health_reporter, health_service) = tonic_health::server::health_reporter();
        set_health(&health_reporter, tonic_health::ServingStatus::Serving).await;
        let reflection = tonic_reflection::server::Builder::configure()
            .register_encoded_file_descriptor_set(pb::FILE_DESCRIPTOR_SET)
            .build_v1()?;
        let reflection_v1alpha = tonic_reflection::server::Builder::configure()
            .register_encoded_file_descriptor_set(pb::FILE_DESCRIPTOR_SET)
            .build_v1alpha()?;
        let health_watch = tokio::spawn(watch_database(
            core.clone(),
            health_reporter.clone(),
            cancel.clone(),
        ));

        let janitor = tokio::spawn(crate::retention::run(core.clone(), cancel.clone()));
        let sampler = tokio::spawn(crate::metrics::sample(core.clone(), cancel.clone()));
        let alerts = tokio::spawn(crate::webhooks::health::send_alerts(
            core.clone(),
            cancel.clone(),
        ));
        let listener = tokio::spawn({
            let (core, cancel) = (core.clone(), cancel.clone());
            async move { core.webhook_wakeup.listen(cancel).await }
        });
        let dispatcher = (self.dispatch_concurrency > 0).then(|| {
            let dispatcher = Dispatcher::new(
                core.clone(),
                self.delivery.clone(),
                self.dispatch_concurrency,
            );
            tokio::spawn(dispatcher.run(cancel.clone()))
        });
        // Broadcasts are run where messages are handed out.
        let broadcaster = (self.dispatch_concurrency > 0).then(|| {
            let runner = crate::broadcasts::runner::Runner::new(core.clone());
            tokio::spawn(runner.run(cancel.clone()))
        });
        // Erasure jobs too (one at a time per core).
        let eraser = (self.dispatch_concurrency > 0).then(|| {
            let runner = crate::privacy::job::Runner::new(core.clone());
            tokio::spawn(runner.run(cancel.clone()))
        });
        // The user messages' writer stops after the server, whose calls in flight wait for it.
        let intake_stop = CancellationToken::new();
        let intake = tokio::spawn(crate::conversations::intake::run(
            core.clone(),
            intake_stop.clone(),
        ));
        let mut server = tonic::transport::Server::builder();
        if let Some(tls) = &self.grpc_tls {
            server = server
                .tls_config(tls.server_config())
                .context("GRPC_TLS_CERT / GRPC_TLS_KEY")?;
        }
        let result = server
            .timeout(Duration::from_secs(30))
            // A gateway cancels a call whenever its HTTP client hangs up; a burst of such
            // cancellations is normal traffic here, not an attack to answer with GOAWAY (which
            // would fail the other calls in flight on that connection).
            .http2_max_pending_accept_reset_streams(Some(10_000))
            .layer(crate::layers::access_log())
            .layer(crate::layers::GrpcMetricsLayer)
            .layer(crate::layers::DetachLayer)
            .add_service(health_service)
            .add_service(reflection)
            .add_service(reflection_v1alpha)
            .add_service(pb::identity_service_server::IdentityServiceServer::new(
                IdentityGrpc { core: core.clone() },
            ))
            .add_service(pb::business_service_server::BusinessServiceServer::new(
                BusinessGrpc { core: core.clone() },
            ))
            .add_service(
                pb::admin_service_server::AdminServiceServer::with_interceptor(
                    AdminGrpc { core: core.clone() },
                    internal_guard(core.clone()),
                ),
            )
            .add_service(pb::team_service_server::TeamServiceServer::new(TeamGrpc {
                core: core.clone(),
            }))
            .add_service(pb::consent_service_server::ConsentServiceServer::new(
                ConsentGrpc { core: core.clone() },
            ))
            .add_service(pb::audience_service_server::AudienceServiceServer::new(
                AudienceGrpc { core: core.clone() },
            ))
            .add_service(pb::app_service_server::AppServiceServer::new(AppGrpc {
                core: core.clone(),
            }))
            .add_service(pb::messaging_service_server::MessagingServiceServer::new(
                MessagingGrpc { core: core.clone() },
            ))
            .add_service(pb::broadcast_service_server::BroadcastServiceServer::new(
                BroadcastGrpc { core: core.clone() },
            ))
            .add_service(
                pb::conversation_service_server::ConversationServiceServer::new(ConversationGrpc {
                    core: core.clone(),
                }),
            )
            .add_service(
                pb::user_conversation_service_server::UserConversationServiceServer::new(
                    UserConversationGrpc { core: core.clone() },
                ),
            )
            .add_service(pb::template_service_server::TemplateServiceServer::new(
                TemplateGrpc { core: core.clone() },
            ))
            .add_service(pb::webhook_service_server::WebhookServiceServer::new(
                WebhookGrpc { core: core.clone() },
            ))
            .add_service(
                pb::webhook_job_service_server::WebhookJobServiceServer::with_interceptor(
                    JobGrpc {
                        core: core.clone(),
                        shutdown: cancel.clone(),
                    },
                    internal_guard(core.clone()),
                ),
            )
            .add_service(pb::grant_service_server::GrantServiceServer::new(
                GrantGrpc { core: core.clone() },
            ))
            .add_service(pb::qr_service_server::QrServiceServer::new(QrGrpc {
                core: core.clone(),
            }))
            .add_service(
                pb::privacy_service_server::PrivacyServiceServer::with_interceptor(
                    PrivacyGrpc { core: core.clone() },
                    internal_guard(core.clone()),
                ),
            )
            .serve_with_incoming_shutdown(incoming(self.listener), cancel.clone().cancelled_owned())
            .await;
        cancel.cancel();
        intake_stop.cancel();
        let _ = intake.await;
        let _ = health_watch.await;
        let _ = janitor.await;
        let _ = sampler.await;
        let _ = alerts.await;
        let _ = listener.await;
        if let Some(dispatcher) = dispatcher {
            let _ = dispatcher.await;
        }
        if let Some(broadcaster) = broadcaster {
            let _ = broadcaster.await;
        }
        if let Some(eraser) = eraser {
            let _ = eraser.await;
        }
        result.context("gRPC server")
    }
}

/// The gRPC services of the core, as gRPC health names them.
pub const SERVICE_NAMES: &[&str] = &[
    <pb::identity_service_server::IdentityServiceServer<IdentityGrpc> as tonic::server::NamedService>::NAME,
    <pb::business_service_server::BusinessServiceServer<BusinessGrpc> as tonic::server::NamedService>::NAME,
    <pb::admin_service_server::AdminServiceServer<AdminGrpc> as tonic::server::NamedService>::NAME,
    <pb::team_service_server::TeamServiceServer<TeamGrpc> as tonic::server::NamedService>::NAME,
    <pb::consent_service_server::ConsentServiceServer<ConsentGrpc> as tonic::server::NamedService>::NAME,
    <pb::audience_service_server::AudienceServiceServer<AudienceGrpc> as tonic::server::NamedService>::NAME,
    <pb::app_service_server::AppServiceServer<AppGrpc> as tonic::server::NamedService>::NAME,
    <pb::messaging_service_server::MessagingServiceServer<MessagingGrpc> as tonic::server::NamedService>::NAME,
    <pb::broadcast_service_server::BroadcastServiceServer<BroadcastGrpc> as tonic::server::NamedService>::NAME,
    <pb::conversation_service_server::ConversationServiceServer<ConversationGrpc> as tonic::server::NamedService>::NAME,
    <pb::user_conversation_service_server::UserConversationServiceServer<UserConversationGrpc> as tonic::server::NamedService>::NAME,
    <pb::template_service_server::TemplateServiceServer<TemplateGrpc> as tonic::server::NamedService>::NAME,
    <pb::webhook_service_server::WebhookServiceServer<WebhookGrpc> as tonic::server::NamedService>::NAME,
    <pb::webhook_job_service_server::WebhookJobServiceServer<JobGrpc> as tonic::server::NamedService>::NAME,
    <pb::grant_service_server::GrantServiceServer<GrantGrpc> as tonic::server::NamedService>::NAME,
    <pb::qr_service_server::QrServiceServer<QrGrpc> as tonic::server::NamedService>::NAME,
    <pb::privacy_service_server::PrivacyServiceServer<PrivacyGrpc> as tonic::server::NamedService>::NAME,
];

/// How often the core checks that its database answers, and how long it waits for it.
const HEALTH_INTERVAL: Duration = Duration::from_secs(2);

async fn set_health(
    reporter: &tonic_health::server::HealthReporter,
    status: tonic_health::ServingStatus,
) {
    reporter.set_service_status("", status).await;
    for name in SERVICE_NAMES {
        reporter.set_service_status(*name, status).await;
    }
}

/// gRPC health follows the database: every service (and `""`) is NOT_SERVING while the
/// database does not answer, SERVING again once it does. The gateway's `/readyz` reads `""`.
async fn watch_database(
    core: Arc<Core>,
    reporter: tonic_health::server::HealthReporter,
    cancel: CancellationToken,
) {
    let mut serving = true;
    loop {
        tokio::select! {
            () = cancel.cancelled() => return,
            () = tokio::time::sleep(HEALTH_INTERVAL) => {}
        }
        let answers = tokio::time::timeout(HEALTH_INTERVAL, core.db.ping())
            .await
            .is_ok_and(|r| r.is_ok());
        if answers == serving {
            continue;
        }
        serving = answers;
        if serving {
            tracing::info!("the database answers again: gRPC health SERVING");
            set_health(&reporter, tonic_health::ServingStatus::Serving).await;
        } else {
            tracing::error!("the database does not answer: gRPC health NOT_SERVING");
            set_health(&reporter, tonic_health::ServingStatus::NotServing).await;
        }
    }
}

/// The gRPC connections the listener accepts, with `TCP_NODELAY` set as tonic's own `serve`
/// sets it (`serve_with_incoming` leaves the sockets as they come). Without it a reply, or a
/// job on a worker's stream, written while the peer has not acknowledged the last one waits
/// for that acknowledgement: on loopback a delayed ACK, tens of milliseconds.
fn incoming(listener: TcpListener) -> TcpIncoming {
    TcpIncoming::from(listener).with_nodelay(Some(true))
}

#[cfg(test)]
mod tests {
    use tokio_stream::StreamExt;

    #[tokio::test]
    async fn accepted_grpc_connections_have_nodelay_set() {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let mut incoming = super::incoming(listener);
        let _client = tokio::net::TcpStream::connect(addr).await.unwrap();
        let accepted = incoming.next().await.unwrap().unwrap();
        assert!(accepted.nodelay().unwrap());
    }
}
