//! Health that tells the truth: gRPC health names every service of the core and follows the
//! database, `/readyz` follows it too, `/healthz` only says the gateway runs; reflection
//! answers v1 and v1alpha clients.

use tonic_health::pb::HealthCheckRequest;
use tonic_health::pb::health_check_response::ServingStatus;
use tonic_health::pb::health_client::HealthClient;

use crate::e2e;
use crate::harness::{TestApp, eventually};

async fn channel(app: &TestApp) -> tonic::transport::Channel {
    tonic::transport::Endpoint::from_shared(app.grpc_url.clone())
        .unwrap()
        .connect()
        .await
        .unwrap()
}

async fn health(app: &TestApp, service: &str) -> ServingStatus {
    let mut client = HealthClient::new(channel(app).await);
    client
        .check(HealthCheckRequest {
            service: service.to_string(),
        })
        .await
        .unwrap()
        .into_inner()
        .status()
}

async fn wait_for(app: &TestApp, status: ServingStatus) {
    eventually(&format!("gRPC health {status:?}"), async || {
        (health(app, "").await == status).then_some(())
    })
    .await;
}

e2e!(
    grpc_health_names_every_service_and_follows_the_database_and_so_does_readyz,
    |app| async move {
        for service in core_service::app::SERVICE_NAMES.iter().chain(&[""]) {
            assert_eq!(
                health(&app, service).await,
                ServingStatus::Serving,
                "{service:?}"
            );
        }
        app.get("/readyz", None).await.assert_ok(200);
        if !app.postgres_down(true).await {
            return; // SQLite is in the process: it cannot be away.
        }
        wait_for(&app, ServingStatus::NotServing).await;
        for service in core_service::app::SERVICE_NAMES {
            assert_eq!(
                health(&app, service).await,
                ServingStatus::NotServing,
                "{service}"
            );
        }
        app.get("/readyz", None)
            .await
            .assert_error(503, "service_unavailable");
        app.get("/healthz", None).await.assert_ok(200);
        app.postgres_down(false).await;
        wait_for(&app, ServingStatus::Serving).await;
        app.get("/readyz", None).await.assert_ok(200);
    }
);

/// The services a reflection client of protocol `$version` (`v1`, `v1alpha`) is told about.
macro_rules! listed_services {
    ($app:expr, $version:ident) => {{
        use tokio_stream::StreamExt;
        use tonic_reflection::pb::$version::ServerReflectionRequest;
        use tonic_reflection::pb::$version::server_reflection_client::ServerReflectionClient;
        use tonic_reflection::pb::$version::server_reflection_request::MessageRequest;
        use tonic_reflection::pb::$version::server_reflection_response::MessageResponse;
        let mut client = ServerReflectionClient::new(channel($app).await);
        let request = ServerReflectionRequest {
            host: String::new(),
            message_request: Some(MessageRequest::ListServices(String::new())),
        };
        let mut answers = client
            .server_reflection_info(tokio_stream::iter([request]))
            .await
            .unwrap()
            .into_inner();
        let Some(Ok(answer)) = answers.next().await else {
            panic!("no {} answer", stringify!($version));
        };
        let Some(MessageResponse::ListServicesResponse(list)) = answer.message_response else {
            panic!("not a service list");
        };
        list.service.into_iter().map(|s| s.name).collect::<Vec<_>>()
    }};
}

e2e!(
    reflection_answers_v1_and_v1alpha_clients,
    |app| async move {
        let v1 = listed_services!(&app, v1);
        assert!(v1.iter().any(|s| s == "bm.v1.IdentityService"), "{v1:?}");
        let v1alpha = listed_services!(&app, v1alpha);
        assert!(
            v1alpha.iter().any(|s| s == "bm.v1.MessagingService"),
            "{v1alpha:?}"
        );
    }
);
