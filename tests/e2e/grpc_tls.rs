//! The core's gRPC over TLS (`GRPC_TLS_CERT`, `GRPC_TLS_KEY`): the gateway, the webhook worker
//! and the operator commands reach it at an `https://` CORE_URL trusting `CORE_TLS_CA`; plain
//! gRPC and clients that do not trust its certificate are turned away.

use serde_json::json;
use tonic_health::pb::HealthCheckRequest;
use tonic_health::pb::health_client::HealthClient;

use crate::e2e;
use crate::fixtures::Receiver;
use crate::fixtures::{ALL_SCOPES, follower, live_business, register_webhook, send_v1};
use crate::harness::Options;

e2e!(
    a_core_serving_grpc_over_tls_takes_sends_and_feeds_its_workers,
    Options {
        grpc_tls: true,
        ..Options::default()
    },
    |app| async move {
        assert!(
            app.grpc_url.starts_with("https://localhost:"),
            "{}",
            app.grpc_url
        );
        // The operator commands (live_business uses them), the gateway and the worker all
        // go through TLS.
        let receiver = Receiver::start().await;
        let biz = live_business(&app, "+14155552000", ALL_SCOPES).await;
        follower(&app, &biz, "+14155552001", false).await;
        register_webhook(&app, &biz, &receiver.url(), &["message.sent"]).await;
        send_v1(
            &app,
            &biz,
            json!({ "to": "+14155552001", "category": "utility", "body": "over tls" }),
            None,
        )
        .await
        .assert_ok(200);
        receiver.wait_for(1).await;
        app.get("/readyz", None).await.assert_ok(200);

        let port = app.grpc_url.rsplit(':').next().unwrap().to_string();
        // Plain gRPC to the TLS listener: no answer.
        let plain = tonic::transport::Endpoint::from_shared(format!("http://127.0.0.1:{port}"))
            .unwrap()
            .connect_timeout(std::time::Duration::from_secs(5))
            .timeout(std::time::Duration::from_secs(5))
            .connect_lazy();
        let refused = HealthClient::new(plain)
            .check(HealthCheckRequest::default())
            .await;
        assert!(refused.is_err(), "plain gRPC was answered: {refused:?}");
        // TLS without trusting the test CA (the system's roots only): the handshake fails.
        let untrusted = proto::channel::endpoint(&app.grpc_url, None)
            .unwrap()
            .connect()
            .await;
        assert!(untrusted.is_err(), "an untrusted certificate was accepted");
        // With the CA: served.
        let trusted = proto::channel::endpoint(&app.grpc_url, app.core_tls_ca.as_deref())
            .unwrap()
            .connect()
            .await
            .unwrap();
        let status = HealthClient::new(trusted)
            .check(HealthCheckRequest::default())
            .await
            .unwrap()
            .into_inner()
            .status;
        assert_eq!(status, 1, "SERVING");
    }
);
