//! QR web sign-in and its limits.

use std::sync::Arc;
use std::time::Duration;

use serde_json::Value;

use crate::e2e;
use crate::harness::{Options, Reply, TestApp};

const CHROME: &str = "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Safari/537.36";

async fn call(
    app: &TestApp,
    method: reqwest::Method,
    path: &str,
    secret: Option<&str>,
    token: Option<&str>,
) -> Reply {
    let mut request = app
        .http
        .request(method, format!("{}{path}", app.base))
        .header("user-agent", CHROME);
    if let Some(secret) = secret {
        request = request.header("x-service-qr-secret", secret);
    }
    if let Some(token) = token {
        request = request.header("authorization", format!("Bearer {token}"));
    }
    crate::harness::into_reply(request.send().await.unwrap()).await
}

async fn create(app: &TestApp) -> Value {
    let reply = call(app, reqwest::Method::POST, "/auth/qr/sessions", None, None).await;
    reply.assert_ok(201);
    reply.data().clone()
}

fn id(session: &Value) -> String {
    session["id"].as_str().unwrap().to_string()
}

fn secret(session: &Value) -> String {
    session["exchange_secret"].as_str().unwrap().to_string()
}

async fn preview(app: &TestApp, id: &str) -> Reply {
    call(
        app,
        reqwest::Method::GET,
        &format!("/auth/qr/sessions/{id}/preview"),
        None,
        None,
    )
    .await
}

async fn status(app: &TestApp, id: &str, secret: Option<&str>) -> Reply {
    call(
        app,
        reqwest::Method::GET,
        &format!("/auth/qr/sessions/{id}"),
        secret,
        None,
    )
    .await
}

async fn approve(app: &TestApp, id: &str, token: Option<&str>) -> Reply {
    call(
        app,
        reqwest::Method::POST,
        &format!("/auth/qr/sessions/{id}/approve"),
        None,
        token,
    )
    .await
}

async fn exchange(app: &TestApp, id: &str, secret: Option<&str>) -> Reply {
    call(
        app,
        reqwest::Method::POST,
        &format!("/auth/qr/sessions/{id}/exchange"),
        secret,
        None,
    )
    .await
}

e2e!(
    a_browser_signs_in_by_qr_with_a_phone_side_approval,
    |app| async move {
        let (owner_id, phone_token) = app.business_owner("+14155550100").await;
        let session = create(&app).await;
        let sid = id(&session);
        assert_eq!(
            session["qr_payload"],
            format!("service://business-login/{sid}")
        );
        assert!(secret(&session).len() >= 32);

        let shown = preview(&app, &sid).await;
        shown.assert_ok(200);
        assert!(
            shown.data()["client_name"]
                .as_str()
                .unwrap()
                .starts_with("Chrome 120")
        );
        assert_eq!(shown.data()["expires_at"], session["expires_at"]);
        assert_eq!(shown.data()["origin_hint"], "127.0.0.x");
        let created =
            chrono::DateTime::parse_from_rfc3339(shown.data()["created_at"].as_str().unwrap())
                .unwrap();
        let expires =
            chrono::DateTime::parse_from_rfc3339(session["expires_at"].as_str().unwrap()).unwrap();
        assert_eq!((expires - created).num_seconds(), 120);
        assert!(shown.data().get("exchange_secret").is_none());

        let polled = status(&app, &sid, Some(&secret(&session))).await;
        polled.assert_ok(200);
        assert_eq!(polled.data()["status"], "pending");
        approve(&app, &sid, Some(&phone_token)).await.assert_ok(200);
        assert_eq!(
            status(&app, &sid, Some(&secret(&session))).await.data()["status"],
            "approved"
        );

        let exchanged = exchange(&app, &sid, Some(&secret(&session))).await;
        exchanged.assert_ok(200);
        let token = exchanged.data()["token"].as_str().unwrap().to_string();
        let me = app.get("/business/me", Some(&token)).await;
        me.assert_ok(200);
        assert_eq!(me.data()["user_id"], owner_id.as_str());
        assert_eq!(crate::fixtures::claims(&token)["sub"], owner_id.as_str());
    }
);

e2e!(qr_refusals_have_their_statuses, |app| async move {
    let (_, phone) = app.business_owner("+14155550100").await;
    let (_, plain_user) = app.user("+14155550101").await;
    let session = create(&app).await;
    let (sid, good) = (id(&session), secret(&session));
    let unknown = uuid::Uuid::new_v4().to_string();

    status(&app, &sid, None)
        .await
        .assert_error(401, "invalid_qr_secret");
    status(&app, &sid, Some("wrong"))
        .await
        .assert_error(401, "invalid_qr_secret");
    exchange(&app, &sid, Some("wrong"))
        .await
        .assert_error(401, "invalid_qr_secret");
    for reply in [
        preview(&app, &unknown).await,
        status(&app, &unknown, Some(&good)).await,
        approve(&app, &unknown, Some(&phone)).await,
        exchange(&app, &unknown, Some(&good)).await,
        preview(&app, "not-a-uuid").await,
    ] {
        reply.assert_error(404, "qr_session_not_found");
    }
    exchange(&app, &sid, Some(&good))
        .await
        .assert_error(409, "qr_session_not_approved");
    approve(&app, &sid, None)
        .await
        .assert_error(401, "unauthorized");
    approve(&app, &sid, Some(&plain_user))
        .await
        .assert_error(403, "console_access_required");
    approve(&app, &sid, Some(&phone)).await.assert_ok(200);
    approve(&app, &sid, Some(&phone))
        .await
        .assert_error(409, "qr_session_not_pending");
    exchange(&app, &sid, Some(&good)).await.assert_ok(200);
    exchange(&app, &sid, Some(&good))
        .await
        .assert_error(409, "qr_session_already_exchanged");
    approve(&app, &sid, Some(&phone))
        .await
        .assert_error(409, "qr_session_not_pending");
});

e2e!(qr_sessions_expire_after_two_minutes, |app| async move {
    let (_, phone) = app.business_owner("+14155550100").await;
    let session = create(&app).await;
    let (sid, good) = (id(&session), secret(&session));
    app.clock.advance(Duration::from_secs(119));
    preview(&app, &sid).await.assert_ok(200);
    approve(&app, &sid, Some(&phone)).await.assert_ok(200);
    app.clock.advance(Duration::from_secs(1));
    preview(&app, &sid)
        .await
        .assert_error(404, "qr_session_not_found");
    status(&app, &sid, Some(&good))
        .await
        .assert_error(404, "qr_session_not_found");
    exchange(&app, &sid, Some(&good))
        .await
        .assert_error(404, "qr_session_not_found");
    let fresh = create(&app).await;
    app.clock.advance(Duration::from_secs(120));
    approve(&app, &id(&fresh), Some(&phone))
        .await
        .assert_error(404, "qr_session_not_found");
});

e2e!(
    polling_status_once_a_second_for_a_sessions_whole_life_is_never_refused,
    |app| async move {
        let session = create(&app).await;
        let (sid, good) = (id(&session), secret(&session));
        for _ in 0..119 {
            status(&app, &sid, Some(&good)).await.assert_ok(200);
            app.clock.advance(Duration::from_secs(1));
        }
    }
);

fn tight_qr_limits() -> Options {
    Options {
        configure: Some(Arc::new(|c| {
            c.limits.qr_sessions_per_ip_per_hour = 3;
            c.limits.qr_reads_per_session = 4;
            c.limits.qr_exchanges_per_session = 2;
        })),
        ..Default::default()
    }
}

e2e!(
    each_qr_limit_answers_429_with_a_retry_after_that_is_right,
    tight_qr_limits(),
    |app| async move {
        // Creation per IP.
        let session = create(&app).await;
        create(&app).await;
        create(&app).await;
        let refused = call(&app, reqwest::Method::POST, "/auth/qr/sessions", None, None).await;
        refused.assert_error(429, "rate_limited");
        let wait = refused.retry_after().unwrap();
        assert_eq!(wait, 1200, "a third of an hour for 3 per hour");
        app.clock.advance(Duration::from_secs(wait - 1));
        call(&app, reqwest::Method::POST, "/auth/qr/sessions", None, None)
            .await
            .assert_error(429, "rate_limited");
        app.clock.advance(Duration::from_secs(1));
        let session2 = create(&app).await;

        // Reads (preview and status) per session.
        let (sid, good) = (id(&session2), secret(&session2));
        preview(&app, &sid).await.assert_ok(200);
        for _ in 0..3 {
            status(&app, &sid, Some(&good)).await.assert_ok(200);
        }
        let refused = status(&app, &sid, Some(&good)).await;
        refused.assert_error(429, "rate_limited");
        let wait = refused.retry_after().unwrap();
        assert_eq!(wait, 30, "120 s / 4");
        app.clock.advance(Duration::from_secs(wait));
        status(&app, &sid, Some(&good)).await.assert_ok(200);

        // Exchanges (and wrong secrets) per session.
        exchange(&app, &sid, Some("guess-1"))
            .await
            .assert_error(401, "invalid_qr_secret");
        exchange(&app, &sid, Some("guess-2"))
            .await
            .assert_error(401, "invalid_qr_secret");
        let refused = exchange(&app, &sid, Some(&good)).await;
        refused.assert_error(429, "rate_limited");
        let wait = refused.retry_after().unwrap();
        app.clock.advance(Duration::from_secs(wait));
        exchange(&app, &sid, Some(&good))
            .await
            .assert_error(409, "qr_session_not_approved");
        let _ = session;
    }
);

fn tight_qr_ip_limits() -> Options {
    Options {
        configure: Some(Arc::new(|c| {
            c.limits.qr_reads_per_ip_per_hour = 3;
            c.limits.qr_exchanges_per_ip_per_hour = 2;
        })),
        ..Default::default()
    }
}

e2e!(
    the_per_ip_qr_read_and_exchange_limits_answer_429_with_a_right_retry_after,
    tight_qr_ip_limits(),
    |app| async move {
        let a = create(&app).await;
        let b = create(&app).await;
        // Reads per IP span sessions.
        preview(&app, &id(&a)).await.assert_ok(200);
        status(&app, &id(&a), Some(&secret(&a)))
            .await
            .assert_ok(200);
        preview(&app, &id(&b)).await.assert_ok(200);
        let refused = preview(&app, &id(&b)).await;
        refused.assert_error(429, "rate_limited");
        assert_eq!(refused.retry_after(), Some(1200));
        // Exchanges per IP span sessions too.
        exchange(&app, &id(&a), Some(&secret(&a)))
            .await
            .assert_error(409, "qr_session_not_approved");
        exchange(&app, &id(&b), Some(&secret(&b)))
            .await
            .assert_error(409, "qr_session_not_approved");
        let refused = exchange(&app, &id(&b), Some(&secret(&b))).await;
        refused.assert_error(429, "rate_limited");
        let wait = refused.retry_after().unwrap();
        assert_eq!(wait, 1800);
        // Both sessions are long expired by then, so new ones show the limits have reset.
        app.clock.advance(Duration::from_secs(wait));
        let c = create(&app).await;
        preview(&app, &id(&c)).await.assert_ok(200);
        exchange(&app, &id(&c), Some(&secret(&c)))
            .await
            .assert_error(409, "qr_session_not_approved");
    }
);

/// Creates a QR session straight over gRPC with forwarded-client metadata, and returns the
/// origin hint the core recorded.
async fn origin_hint_via_grpc(app: &TestApp, internal_token: Option<&str>) -> String {
    use proto::v1::qr_service_client::QrServiceClient;
    let mut client = QrServiceClient::connect(app.grpc_url.clone())
        .await
        .unwrap();
    let mut request = tonic::Request::new(proto::v1::CreateQrSessionRequest {});
    request
        .metadata_mut()
        .insert("x-client-ip", "203.0.113.9".parse().unwrap());
    if let Some(token) = internal_token {
        request
            .metadata_mut()
            .insert("x-internal-token", token.parse().unwrap());
    }
    let id = client
        .create_session(request)
        .await
        .unwrap()
        .into_inner()
        .id;
    let shown = preview(app, &id).await;
    shown.assert_ok(200);
    shown.data()["origin_hint"].as_str().unwrap().to_string()
}

fn internal_token() -> Options {
    Options {
        internal_token: Some("gateway-secret".into()),
        ..Default::default()
    }
}

e2e!(
    the_core_trusts_a_forwarded_client_ip_only_from_a_caller_with_the_internal_token,
    internal_token(),
    |app| async move {
        // Another gRPC caller cannot choose the IP its per-IP limits count against.
        assert_eq!(origin_hint_via_grpc(&app, None).await, "127.0.0.x");
        assert_eq!(origin_hint_via_grpc(&app, Some("wrong")).await, "127.0.0.x");
        // The gateway (which presents the token) is believed.
        assert_eq!(
            origin_hint_via_grpc(&app, Some("gateway-secret")).await,
            "203.0.113.x"
        );
        let session = create(&app).await;
        let shown = preview(&app, &id(&session)).await;
        assert_eq!(shown.data()["origin_hint"], "127.0.0.x");
    }
);

e2e!(
    without_an_internal_token_the_core_trusts_forwarded_client_ips_from_loopback_only,
    |app| async move {
        // The test's gRPC client is on loopback: trusted, as a co-located gateway is.
        assert_eq!(origin_hint_via_grpc(&app, None).await, "203.0.113.x");
    }
);
