//! Webhooks end to end: endpoints, signed deliveries to a real receiver on loopback, retries,
//! pause, the test event, the deliveries log, grant.revoked, workers that die or share work,
//! and the SSRF guard.

use std::sync::Arc;
use std::time::Duration;

use hmac::{Hmac, KeyInit, Mac};
use reqwest::Method;
use serde_json::{Value, json};
use sha2::Sha256;

use crate::e2e;
use crate::fixtures::{ALL_SCOPES, Business, follower, live_business, register_webhook, send_v1};
use crate::harness::{Options, RawBody, Reply, TestApp};
use crate::receiver::{Received, Receiver};

const BIZ: &str = "+14155550100";
const FAN: &str = "+14155550200";

async fn send(app: &TestApp, biz: &Business) -> String {
    let reply = send_v1(
        app,
        biz,
        json!({ "to": FAN, "category": "utility", "body": "hi" }),
        None,
    )
    .await;
    reply.assert_ok(200);
    reply.data()["id"].as_str().unwrap().to_string()
}

async fn log(app: &TestApp, biz: &Business) -> Vec<Value> {
    let reply = app
        .get("/business/webhook-deliveries", Some(&biz.owner_token))
        .await;
    reply.assert_ok(200);
    reply.data()["deliveries"].as_array().unwrap().clone()
}

/// Recomputes the signature the way a receiver would, without the service's code.
pub fn verify(secret: &str, received: &Received) -> i64 {
    let header = received.header("x-service-signature");
    let mut t = None;
    let mut v1 = None;
    for part in header.split(',') {
        match part.split_once('=') {
            Some(("t", value)) => t = Some(value.to_string()),
            Some(("v1", value)) => v1 = Some(value.to_string()),
            _ => {}
        }
    }
    let (t, v1) = (t.expect("t"), v1.expect("v1"));
    let mut mac = Hmac::<Sha256>::new_from_slice(secret.as_bytes()).unwrap();
    mac.update(format!("{t}.").as_bytes());
    mac.update(&received.body);
    mac.verify_slice(&hex::decode(v1).unwrap())
        .expect("signature verifies");
    t.parse().unwrap()
}

/// Waits until the log's delivery settles into `status` (or has `attempts` attempts).
async fn wait_log(app: &TestApp, biz: &Business, check: impl Fn(&Value) -> bool) -> Value {
    for _ in 0..1500 {
        if let Some(d) = log(app, biz).await.into_iter().find(|d| check(d)) {
            return d;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    panic!(
        "the delivery never reached the expected state: {:?}",
        log(app, biz).await
    );
}

e2e!(
    a_send_delivers_a_signed_message_sent_with_the_spec_headers_and_payload,
    |app| async move {
        let rx = Receiver::start().await;
        let biz = live_business(&app, BIZ, ALL_SCOPES).await;
        let (fan_id, _) = follower(&app, &biz, FAN, false).await;
        let hook =
            register_webhook(&app, &biz, &rx.url(), &["message.sent", "message.failed"]).await;
        let secret = hook["secret"].as_str().unwrap().to_string();
        assert!(secret.len() >= 32);
        let id = send(&app, &biz).await;

        let got = rx.wait_for(1).await;
        let request = &got[0];
        let t = verify(&secret, request);
        assert!((t - core_service::clock::Clock::now(&app.clock).timestamp()).abs() <= 5);
        assert_eq!(request.header("x-service-event"), "message.sent");
        assert_eq!(request.header("content-type"), "application/json");
        assert_eq!(request.header("user-agent"), "Service-Webhooks/1.0");
        let payload = request.json();
        assert_eq!(payload["type"], "message.sent");
        assert_eq!(
            payload["delivery_id"],
            request.header("x-service-delivery").as_str()
        );
        assert!(payload["id"].is_string() && payload["created_at"].is_string());
        assert_eq!(payload["data"]["message_send_id"], id.as_str());
        assert_eq!(payload["data"]["category"], "utility");
        assert_eq!(payload["data"]["recipient_user_id"], fan_id.as_str());
        assert_eq!(payload["data"]["status"], "delivered");

        let entry = wait_log(&app, &biz, |d| d["status"] == "succeeded").await;
        assert_eq!(entry["id"], request.header("x-service-delivery").as_str());
        assert_eq!(entry["webhook_id"], hook["id"]);
        assert_eq!(entry["event_type"], "message.sent");
        assert_eq!(entry["attempts"], 1);
        assert_eq!(entry["last_http_status"], 200);
        assert!(entry["next_attempt_at"].is_null());
        let usage = app.get("/business/usage", Some(&biz.owner_token)).await;
        assert_eq!(usage.data()["webhooks"]["deliveries"], 1);
        assert_eq!(usage.data()["webhooks"]["succeeded"], 1);
    }
);

fn long_sessions() -> Options {
    // The schedule spans 31 minutes of the test clock: keep the console token valid.
    Options {
        configure: Some(Arc::new(|c| c.access_token_ttl_secs = 86_400)),
        ..Default::default()
    }
}

e2e!(
    retries_follow_1_2_4_8_16_units_then_fail_after_six_attempts,
    long_sessions(),
    |app| async move {
        let rx = Receiver::start().await;
        rx.answer(500);
        let biz = live_business(&app, BIZ, ALL_SCOPES).await;
        follower(&app, &biz, FAN, false).await;
        let hook = register_webhook(&app, &biz, &rx.url(), &["message.sent"]).await;
        let secret = hook["secret"].as_str().unwrap().to_string();
        send(&app, &biz).await;
        for (attempt, wait_units) in [(1, 1), (2, 2), (3, 4), (4, 8), (5, 16)] {
            rx.wait_for(attempt).await;
            let entry = wait_log(&app, &biz, |d| d["attempts"] == attempt).await;
            assert_eq!(entry["status"], "retrying");
            assert_eq!(entry["last_http_status"], 500);
            assert_eq!(entry["last_error"], "receiver answered 500");
            let next =
                chrono::DateTime::parse_from_rfc3339(entry["next_attempt_at"].as_str().unwrap())
                    .unwrap();
            let updated =
                chrono::DateTime::parse_from_rfc3339(entry["updated_at"].as_str().unwrap())
                    .unwrap();
            assert_eq!(
                (next - updated).num_seconds(),
                60 * wait_units,
                "attempt {attempt}"
            );
            // Not before its time...
            app.clock
                .advance(Duration::from_secs(60 * wait_units as u64 - 1));
            tokio::time::sleep(Duration::from_millis(600)).await;
            assert_eq!(
                rx.received().len(),
                attempt,
                "too early after attempt {attempt}"
            );
            // ...and on time.
            app.clock.advance(Duration::from_secs(1));
        }
        let all = rx.wait_for(6).await;
        let entry = wait_log(&app, &biz, |d| d["status"] == "failed").await;
        assert_eq!(entry["attempts"], 6);
        assert!(entry["next_attempt_at"].is_null());
        // Every attempt: same delivery id, new payload id, its own valid signature.
        let delivery = all[0].header("x-service-delivery");
        let mut ids = std::collections::HashSet::new();
        for request in &all {
            assert_eq!(request.header("x-service-delivery"), delivery);
            assert!(ids.insert(request.json()["id"].as_str().unwrap().to_string()));
            verify(&secret, request);
        }
        app.clock.advance(Duration::from_secs(3600));
        tokio::time::sleep(Duration::from_millis(600)).await;
        assert_eq!(rx.received().len(), 6, "no seventh attempt");
    }
);

e2e!(
    a_permanent_4xx_is_not_retried_and_a_3xx_is_not_followed,
    |app| async move {
        let rx = Receiver::start().await;
        rx.queue(&[302, 404]);
        let biz = live_business(&app, BIZ, ALL_SCOPES).await;
        follower(&app, &biz, FAN, false).await;
        register_webhook(&app, &biz, &rx.url(), &["message.sent"]).await;
        send(&app, &biz).await;
        rx.wait_for(1).await;
        let entry = wait_log(&app, &biz, |d| d["attempts"] == 1).await;
        assert_eq!(
            entry["status"], "retrying",
            "a redirect is a failed attempt"
        );
        assert_eq!(entry["last_http_status"], 302);
        app.clock.advance(Duration::from_secs(60));
        rx.wait_for(2).await;
        let entry = wait_log(&app, &biz, |d| d["status"] == "failed").await;
        assert_eq!(entry["attempts"], 2);
        assert_eq!(entry["last_http_status"], 404);
        app.clock.advance(Duration::from_secs(3600));
        tokio::time::sleep(Duration::from_millis(600)).await;
        assert_eq!(rx.received().len(), 2);
    }
);

fn short_timeout() -> Options {
    Options {
        configure: Some(Arc::new(|c| c.webhooks.webhook_timeout_secs = 0.5)),
        ..Default::default()
    }
}

e2e!(
    a_receiver_that_hangs_times_out_and_is_retried,
    short_timeout(),
    |app| async move {
        let rx = Receiver::start().await;
        rx.hang(true);
        let biz = live_business(&app, BIZ, ALL_SCOPES).await;
        follower(&app, &biz, FAN, false).await;
        register_webhook(&app, &biz, &rx.url(), &["message.sent"]).await;
        send(&app, &biz).await;
        let entry = wait_log(&app, &biz, |d| d["attempts"] == 1).await;
        assert_eq!(entry["status"], "retrying");
        assert_eq!(entry["last_error"], "timeout");
        assert!(entry["last_http_status"].is_null());
        rx.hang(false);
        app.clock.advance(Duration::from_secs(60));
        let entry = wait_log(&app, &biz, |d| d["status"] == "succeeded").await;
        assert_eq!(entry["attempts"], 2);
    }
);

e2e!(
    a_paused_endpoint_receives_nothing_and_resumes_its_pending_retries,
    |app| async move {
        let rx = Receiver::start().await;
        rx.queue(&[503]);
        let biz = live_business(&app, BIZ, ALL_SCOPES).await;
        follower(&app, &biz, FAN, false).await;
        let hook = register_webhook(&app, &biz, &rx.url(), &["message.sent"]).await;
        let path = format!("/business/webhooks/{}", hook["id"].as_str().unwrap());
        send(&app, &biz).await;
        wait_log(&app, &biz, |d| d["status"] == "retrying").await;
        let paused = app
            .patch(&path, Some(&biz.owner_token), json!({ "active": false }))
            .await;
        paused.assert_ok(200);
        assert_eq!(paused.data()["active"], false);
        assert!(paused.data().get("secret").is_none());
        // Events while paused are not queued for it; the pending retry waits.
        send(&app, &biz).await;
        app.clock.advance(Duration::from_secs(120));
        tokio::time::sleep(Duration::from_millis(600)).await;
        assert_eq!(rx.received().len(), 1);
        assert_eq!(log(&app, &biz).await.len(), 1);
        app.post(&format!("{path}/test"), Some(&biz.owner_token), json!({}))
            .await
            .assert_error(409, "webhook_paused");
        // Reactivated: the retry goes out.
        app.patch(&path, Some(&biz.owner_token), json!({ "active": true }))
            .await
            .assert_ok(200);
        rx.wait_for(2).await;
        let entry = wait_log(&app, &biz, |d| d["status"] == "succeeded").await;
        assert_eq!(entry["attempts"], 2);
    }
);

e2e!(
    the_test_operation_sends_webhook_test_whatever_the_event_list,
    |app| async move {
        let rx = Receiver::start().await;
        let biz = live_business(&app, BIZ, ALL_SCOPES).await;
        let hook = register_webhook(&app, &biz, &rx.url(), &["grant.revoked"]).await;
        let other = Receiver::start().await;
        register_webhook(&app, &biz, &other.url(), &["grant.revoked"]).await;
        let reply = app
            .post(
                &format!("/business/webhooks/{}/test", hook["id"].as_str().unwrap()),
                Some(&biz.owner_token),
                json!({}),
            )
            .await;
        reply.assert_ok(200);
        assert!(reply.data().is_null());
        let got = rx.wait_for(1).await;
        verify(hook["secret"].as_str().unwrap(), &got[0]);
        assert_eq!(got[0].header("x-service-event"), "webhook.test");
        let payload = got[0].json();
        assert_eq!(payload["type"], "webhook.test");
        assert!(payload["data"]["message"].as_str().unwrap().len() > 5);
        tokio::time::sleep(Duration::from_millis(300)).await;
        assert!(other.received().is_empty(), "only the tested endpoint");
        app.post(
            &format!("/business/webhooks/{}/test", uuid::Uuid::new_v4()),
            Some(&biz.owner_token),
            json!({}),
        )
        .await
        .assert_error(404, "webhook_not_found");
    }
);

e2e!(
    endpoints_validate_and_show_the_secret_only_once,
    |app| async move {
        let biz = live_business(&app, BIZ, ALL_SCOPES).await;
        let url = "https://hooks.example.com/in";
        let hook = register_webhook(&app, &biz, url, &["message.sent"]).await;
        assert!(hook["secret"].is_string());
        assert_eq!(hook["active"], true);
        assert_eq!(hook["events"], json!(["message.sent"]));
        let list = app.get("/business/webhooks", Some(&biz.owner_token)).await;
        list.assert_ok(200);
        assert!(list.data()[0].get("secret").is_none());
        assert!(
            !list
                .body
                .to_string()
                .contains(hook["secret"].as_str().unwrap())
        );
        let cases = [
            (
                json!({ "url": "not a url", "events": ["message.sent"] }),
                400,
                "invalid_webhook_url",
            ),
            (
                json!({ "url": "ftp://x.example", "events": ["message.sent"] }),
                400,
                "invalid_webhook_url",
            ),
            (
                json!({ "url": "https://x.example", "events": [] }),
                400,
                "invalid_webhook_events",
            ),
            (
                json!({ "url": "https://x.example", "events": ["message.sent", "message.sent"] }),
                400,
                "invalid_webhook_events",
            ),
            (
                json!({ "url": "https://x.example", "events": ["webhook.test"] }),
                400,
                "invalid_webhook_events",
            ),
            (
                json!({ "url": "https://x.example" }),
                400,
                "invalid_request",
            ),
            (
                json!({ "url": url, "events": ["message.failed"] }),
                409,
                "webhook_url_conflict",
            ),
        ];
        for (body, status, code) in cases {
            let reply = app
                .post("/business/webhooks", Some(&biz.owner_token), body.clone())
                .await;
            assert_eq!((reply.status, reply.message()), (status, code), "{body}");
        }
        let second = register_webhook(
            &app,
            &biz,
            "https://other.example.com/in",
            &["message.sent"],
        )
        .await;
        let path = format!("/business/webhooks/{}", second["id"].as_str().unwrap());
        app.patch(&path, Some(&biz.owner_token), json!({ "url": url }))
            .await
            .assert_error(409, "webhook_url_conflict");
        app.patch(&path, Some(&biz.owner_token), json!({ "events": [] }))
            .await
            .assert_error(400, "invalid_webhook_events");
        let changed = app
            .patch(
                &path,
                Some(&biz.owner_token),
                json!({ "events": ["grant.revoked", "message.failed"] }),
            )
            .await;
        changed.assert_ok(200);
        assert_eq!(
            changed.data()["events"],
            json!(["grant.revoked", "message.failed"])
        );
        app.request(Method::DELETE, &path, Some(&biz.owner_token), None)
            .await
            .assert_ok(200);
        app.request(Method::DELETE, &path, Some(&biz.owner_token), None)
            .await
            .assert_error(404, "webhook_not_found");
    }
);

e2e!(
    members_read_webhooks_and_the_log_but_cannot_change_them_and_other_businesses_see_nothing,
    |app| async move {
        let biz = live_business(&app, BIZ, ALL_SCOPES).await;
        let other = live_business(&app, "+14155550300", ALL_SCOPES).await;
        let (_, member) = app.user("+14155550101").await;
        app.post(
            "/business/team",
            Some(&biz.owner_token),
            json!({ "phone_number": "+14155550101", "role": "member" }),
        )
        .await
        .assert_ok(201);
        let hook =
            register_webhook(&app, &biz, "https://hooks.example.com/a", &["message.sent"]).await;
        let path = format!("/business/webhooks/{}", hook["id"].as_str().unwrap());
        app.get("/business/webhooks", Some(&member))
            .await
            .assert_ok(200);
        app.get("/business/webhook-deliveries", Some(&member))
            .await
            .assert_ok(200);
        app.post(
            "/business/webhooks",
            Some(&member),
            json!({ "url": "https://m.example", "events": ["message.sent"] }),
        )
        .await
        .assert_error(403, "insufficient_role");
        app.patch(&path, Some(&member), json!({ "active": false }))
            .await
            .assert_error(403, "insufficient_role");
        app.request(Method::DELETE, &path, Some(&member), None)
            .await
            .assert_error(403, "insufficient_role");
        app.post(&format!("{path}/test"), Some(&member), json!({}))
            .await
            .assert_error(403, "insufficient_role");
        // Another business: not found, and nothing listed.
        app.patch(&path, Some(&other.owner_token), json!({ "active": false }))
            .await
            .assert_error(404, "webhook_not_found");
        app.request(Method::DELETE, &path, Some(&other.owner_token), None)
            .await
            .assert_error(404, "webhook_not_found");
        app.post(&format!("{path}/test"), Some(&other.owner_token), json!({}))
            .await
            .assert_error(404, "webhook_not_found");
        let theirs = app
            .get("/business/webhooks", Some(&other.owner_token))
            .await;
        assert_eq!(theirs.data().as_array().unwrap().len(), 0);
        // The same URL in another business is no conflict.
        register_webhook(
            &app,
            &other,
            "https://hooks.example.com/a",
            &["message.sent"],
        )
        .await;
    }
);

e2e!(
    revoking_a_grant_sends_grant_revoked_to_the_apps_business,
    |app| async move {
        let rx = Receiver::start().await;
        let biz = live_business(&app, BIZ, ALL_SCOPES).await;
        let hook = register_webhook(&app, &biz, &rx.url(), &["grant.revoked"]).await;
        let (user_id, token) = app.user(FAN).await;
        let grant = proto::v1::GrantRequest {
            user_id: user_id.clone(),
            client_id: biz.app_id.clone(),
        };
        app.admin().await.create_grant(grant.clone()).await.unwrap();
        let path = format!("/me/grants/{}", biz.app_id);
        app.request(Method::DELETE, &path, Some(&token), None)
            .await
            .assert_ok(200);
        let got = rx.wait_for(1).await;
        verify(hook["secret"].as_str().unwrap(), &got[0]);
        let payload = got[0].json();
        assert_eq!(payload["type"], "grant.revoked");
        assert_eq!(payload["data"]["client_id"], biz.app_id.as_str());
        assert_eq!(payload["data"]["chatx_user_id"], user_id.as_str());
        app.request(Method::DELETE, &path, Some(&token), None)
            .await
            .assert_error(404, "grant_not_found");
        app.request(Method::DELETE, "/me/grants/not-a-uuid", Some(&token), None)
            .await
            .assert_error(404, "grant_not_found");
        // The operator path announces it too.
        app.admin().await.create_grant(grant.clone()).await.unwrap();
        let revoked = app
            .admin()
            .await
            .revoke_grant(grant)
            .await
            .unwrap()
            .into_inner();
        assert!(revoked.revoked_at.is_some());
        rx.wait_for(2).await;
    }
);

e2e!(
    a_worker_killed_mid_delivery_loses_nothing_and_the_retry_keeps_the_delivery_id,
    |app| async move {
        let rx = Receiver::start().await;
        rx.hang(true);
        let biz = live_business(&app, BIZ, ALL_SCOPES).await;
        follower(&app, &biz, FAN, false).await;
        register_webhook(&app, &biz, &rx.url(), &["message.sent"]).await;
        send(&app, &biz).await;
        rx.wait_for(1).await;
        app.stop_workers();
        rx.hang(false);
        app.start_worker();
        // Not while the dead worker's lease is valid...
        tokio::time::sleep(Duration::from_millis(600)).await;
        assert_eq!(rx.received().len(), 1);
        // ...but once it lapses (receiver timeout + 30 s).
        app.clock.advance(Duration::from_secs(41));
        let got = rx.wait_for(2).await;
        assert_eq!(
            got[0].header("x-service-delivery"),
            got[1].header("x-service-delivery")
        );
        assert_ne!(got[0].json()["id"], got[1].json()["id"]);
        wait_log(&app, &biz, |d| d["status"] == "succeeded").await;
    }
);

e2e!(
    two_workers_share_the_load_without_sending_a_delivery_twice,
    |app| async move {
        let rx = Receiver::start().await;
        app.start_worker();
        let biz = live_business(&app, BIZ, ALL_SCOPES).await;
        follower(&app, &biz, FAN, false).await;
        register_webhook(&app, &biz, &rx.url(), &["message.sent"]).await;
        for _ in 0..12 {
            send(&app, &biz).await;
        }
        let got = rx.wait_for(12).await;
        tokio::time::sleep(Duration::from_millis(300)).await;
        let got_after = rx.received();
        assert_eq!(got_after.len(), 12, "no delivery sent twice");
        let ids: std::collections::HashSet<String> =
            got.iter().map(|r| r.header("x-service-delivery")).collect();
        assert_eq!(ids.len(), 12);
    }
);

fn guarded() -> Options {
    struct PrivateDns;
    impl reqwest::dns::Resolve for PrivateDns {
        fn resolve(&self, _: reqwest::dns::Name) -> reqwest::dns::Resolving {
            Box::pin(async {
                let addrs: Vec<std::net::SocketAddr> = vec!["10.0.0.5:443".parse().unwrap()];
                Ok(Box::new(addrs.into_iter()) as reqwest::dns::Addrs)
            })
        }
    }
    Options {
        resolver: Some(Arc::new(PrivateDns)),
        configure: Some(Arc::new(|c| c.webhooks.webhook_allow_insecure = false)),
        ..Default::default()
    }
}

e2e!(
    without_insecure_targets_only_https_public_urls_are_accepted_and_dns_to_private_is_blocked,
    guarded(),
    |app| async move {
        let biz = live_business(&app, BIZ, ALL_SCOPES).await;
        follower(&app, &biz, FAN, false).await;
        for url in [
            "http://hooks.example.com/in",
            "https://127.0.0.1/in",
            "https://[::ffff:10.0.0.1]/in",
            "https://localhost/in",
        ] {
            app.post(
                "/business/webhooks",
                Some(&biz.owner_token),
                json!({ "url": url, "events": ["message.sent"] }),
            )
            .await
            .assert_error(400, "invalid_webhook_url");
        }
        // A name that (by the stub resolver) points at a private address: refused at connect time,
        // before any traffic.
        register_webhook(
            &app,
            &biz,
            "https://rebinding.example.com/in",
            &["message.sent"],
        )
        .await;
        send(&app, &biz).await;
        let entry = wait_log(&app, &biz, |d| d["attempts"] == 1).await;
        assert_eq!(entry["status"], "retrying");
        assert!(
            entry["last_error"].as_str().unwrap().contains("blocked"),
            "{entry}"
        );
    }
);

e2e!(the_deliveries_log_validates_its_limit, |app| async move {
    let biz = live_business(&app, BIZ, ALL_SCOPES).await;
    for bad in ["0", "201", "x"] {
        app.get(
            &format!("/business/webhook-deliveries?limit={bad}"),
            Some(&biz.owner_token),
        )
        .await
        .assert_error(400, "invalid_limit");
    }
    let _: Reply = app
        .request(
            Method::GET,
            "/business/webhook-deliveries?limit=5",
            Some(&biz.owner_token),
            None::<RawBody>,
        )
        .await;
});

fn with_internal_token() -> Options {
    Options {
        internal_token: Some("stream-secret".into()),
        ..Default::default()
    }
}

e2e!(
    workers_authenticate_to_the_job_stream_with_the_internal_token,
    with_internal_token(),
    |app| async move {
        // The harness's worker presents the token: deliveries flow.
        let rx = Receiver::start().await;
        let biz = live_business(&app, BIZ, ALL_SCOPES).await;
        follower(&app, &biz, FAN, false).await;
        register_webhook(&app, &biz, &rx.url(), &["message.sent"]).await;
        send(&app, &biz).await;
        rx.wait_for(1).await;
        // A caller without it is refused on both RPCs.
        let mut client = proto::v1::webhook_job_service_client::WebhookJobServiceClient::connect(
            app.grpc_url.clone(),
        )
        .await
        .unwrap();
        let err = client
            .jobs(proto::v1::JobsRequest {
                worker_id: "rogue".into(),
                max_in_flight: 1,
            })
            .await
            .unwrap_err();
        assert_eq!(
            proto::RemoteError::from_status(&err).code,
            proto::ErrorCode::Unauthorized
        );
        let err = client
            .report(proto::v1::JobReport {
                delivery_id: uuid::Uuid::new_v4().to_string(),
                lease_token: "x".into(),
                http_status: Some(200),
                error: None,
                duration_ms: None,
            })
            .await
            .unwrap_err();
        assert_eq!(
            proto::RemoteError::from_status(&err).code,
            proto::ErrorCode::Unauthorized
        );
    }
);

e2e!(
    a_delivery_is_read_with_every_attempt_and_the_message_it_announces,
    |app| async move {
        let rx = Receiver::start().await;
        rx.queue(&[503]);
        let biz = live_business(&app, BIZ, ALL_SCOPES).await;
        follower(&app, &biz, FAN, false).await;
        register_webhook(&app, &biz, &rx.url(), &["message.sent"]).await;
        let message_id = send(&app, &biz).await;
        rx.wait_for(1).await;
        wait_log(&app, &biz, |d| d["attempts"] == 1).await;
        app.clock.advance(Duration::from_secs(60));
        rx.wait_for(2).await;
        let entry = wait_log(&app, &biz, |d| d["status"] == "succeeded").await;
        assert_eq!(entry["message_send_id"], message_id.as_str());
        let id = entry["id"].as_str().unwrap();
        let one = app
            .get(
                &format!("/business/webhook-deliveries/{id}"),
                Some(&biz.owner_token),
            )
            .await;
        one.assert_ok(200);
        let data = one.data();
        assert_eq!(data["id"], id);
        assert_eq!(data["message_send_id"], message_id.as_str());
        assert_eq!(data["attempts"], 2);
        let log = data["attempts_log"].as_array().unwrap();
        assert_eq!(log.len(), 2, "{data}");
        assert_eq!(log[0]["attempt"], 1);
        assert_eq!(log[0]["http_status"], 503);
        assert_eq!(log[0]["error"], "receiver answered 503");
        assert_eq!(log[1]["attempt"], 2);
        assert_eq!(log[1]["http_status"], 200);
        assert!(log[1]["error"].is_null());
        for attempt in log {
            assert!(attempt["duration_ms"].as_i64().unwrap() >= 0);
            assert!(chrono::DateTime::parse_from_rfc3339(attempt["at"].as_str().unwrap()).is_ok());
        }
        // Another business's delivery, an unknown id, a path that is not an id.
        let other = live_business(&app, "+14155550101", ALL_SCOPES).await;
        app.get(
            &format!("/business/webhook-deliveries/{id}"),
            Some(&other.owner_token),
        )
        .await
        .assert_error(404, "delivery_not_found");
        app.get(
            &format!("/business/webhook-deliveries/{}", uuid::Uuid::new_v4()),
            Some(&biz.owner_token),
        )
        .await
        .assert_error(404, "delivery_not_found");
        app.get("/business/webhook-deliveries/nope", Some(&biz.owner_token))
            .await
            .assert_error(404, "not_found");
    }
);

e2e!(
    the_deliveries_log_pages_and_filters_by_endpoint_status_and_event,
    |app| async move {
        let rx = Receiver::start().await;
        let biz = live_business(&app, BIZ, ALL_SCOPES).await;
        follower(&app, &biz, FAN, false).await;
        let first =
            register_webhook(&app, &biz, &format!("{}?a", rx.url()), &["message.sent"]).await;
        let second =
            register_webhook(&app, &biz, &format!("{}?b", rx.url()), &["message.sent"]).await;
        for _ in 0..2 {
            send(&app, &biz).await;
        }
        rx.wait_for(4).await;
        for _ in 0..500 {
            if log(&app, &biz)
                .await
                .iter()
                .all(|d| d["status"] == "succeeded")
                && log(&app, &biz).await.len() == 4
            {
                break;
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        let get = |query: String| {
            let app = &app;
            let token = biz.owner_token.clone();
            async move {
                app.get(
                    &format!("/business/webhook-deliveries?{query}"),
                    Some(&token),
                )
                .await
            }
        };
        let ids = |reply: &Reply| -> Vec<String> {
            reply.data()["deliveries"]
                .as_array()
                .unwrap()
                .iter()
                .map(|d| d["id"].as_str().unwrap().to_string())
                .collect()
        };
        let everything = get("limit=200".into()).await;
        let all_ids = ids(&everything);
        assert_eq!(all_ids.len(), 4);
        assert_eq!(everything.data()["has_more"], false);
        let page = get("limit=3".into()).await;
        assert_eq!(ids(&page), all_ids[0..3]);
        assert_eq!(page.data()["has_more"], true);
        let rest = get(format!("limit=3&starting_after={}", all_ids[2])).await;
        assert_eq!(ids(&rest), all_ids[3..4]);
        assert_eq!(rest.data()["has_more"], false);
        let of_first = get(format!("webhook_id={}", first["id"].as_str().unwrap())).await;
        assert_eq!(ids(&of_first).len(), 2);
        for d in of_first.data()["deliveries"].as_array().unwrap() {
            assert_eq!(d["webhook_id"], first["id"]);
        }
        assert_eq!(
            ids(&get(format!(
                "webhook_id={}&status=succeeded",
                second["id"].as_str().unwrap()
            ))
            .await)
            .len(),
            2
        );
        assert!(ids(&get("status=failed".into()).await).is_empty());
        assert_eq!(ids(&get("event_type=message.sent".into()).await).len(), 4);
        assert!(ids(&get("event_type=grant.revoked".into()).await).is_empty());
        get(format!("webhook_id={}", uuid::Uuid::new_v4()))
            .await
            .assert_error(404, "webhook_not_found");
        for bad in [
            "status=done",
            "event_type=message.read",
            "starting_after=nope",
        ] {
            get(bad.into()).await.assert_error(400, "invalid_request");
        }
        let other = live_business(&app, "+14155550101", ALL_SCOPES).await;
        app.get(
            &format!(
                "/business/webhook-deliveries?webhook_id={}",
                first["id"].as_str().unwrap()
            ),
            Some(&other.owner_token),
        )
        .await
        .assert_error(404, "webhook_not_found");
    }
);

e2e!(
    a_failed_delivery_is_retried_by_hand_with_a_fresh_budget_and_the_same_id,
    |app| async move {
        let rx = Receiver::start().await;
        rx.queue(&[400]);
        let biz = live_business(&app, BIZ, ALL_SCOPES).await;
        follower(&app, &biz, FAN, false).await;
        let hook = register_webhook(&app, &biz, &rx.url(), &["message.sent"]).await;
        let hook_id = hook["id"].as_str().unwrap().to_string();
        send(&app, &biz).await;
        let first = rx.wait_for(1).await;
        let failed = wait_log(&app, &biz, |d| d["status"] == "failed").await;
        assert_eq!(failed["attempts"], 1);
        let id = failed["id"].as_str().unwrap().to_string();
        let retry_path = format!("/business/webhook-deliveries/{id}/retry");
        let retry = async |app: &TestApp| {
            app.post(&retry_path, Some(&biz.owner_token), json!({}))
                .await
        };
        // Not while the endpoint is paused.
        app.request(
            Method::PATCH,
            &format!("/business/webhooks/{hook_id}"),
            Some(&biz.owner_token),
            Some(RawBody::Json(json!({ "active": false }))),
        )
        .await
        .assert_ok(200);
        retry(&app).await.assert_error(409, "webhook_paused");
        app.request(
            Method::PATCH,
            &format!("/business/webhooks/{hook_id}"),
            Some(&biz.owner_token),
            Some(RawBody::Json(json!({ "active": true }))),
        )
        .await
        .assert_ok(200);
        // The retry fails again, but is retried on the schedule: a fresh budget.
        rx.queue(&[500]);
        let requeued = retry(&app).await;
        requeued.assert_ok(200);
        assert_eq!(requeued.data()["id"], id.as_str());
        assert_eq!(requeued.data()["status"], "pending");
        let again = rx.wait_for(2).await;
        assert_eq!(
            again[1].header("x-service-delivery"),
            first[0].header("x-service-delivery")
        );
        let retrying = wait_log(&app, &biz, |d| d["attempts"] == 2).await;
        assert_eq!(retrying["status"], "retrying");
        app.clock.advance(Duration::from_secs(60));
        rx.wait_for(3).await;
        let done = wait_log(&app, &biz, |d| d["status"] == "succeeded").await;
        assert_eq!(done["attempts"], 3);
        // Only a failed delivery can be retried.
        retry(&app).await.assert_error(409, "delivery_not_failed");
        app.post(
            &format!(
                "/business/webhook-deliveries/{}/retry",
                uuid::Uuid::new_v4()
            ),
            Some(&biz.owner_token),
            json!({}),
        )
        .await
        .assert_error(404, "delivery_not_found");
    }
);

e2e!(
    recover_requeues_an_endpoints_failed_deliveries_since_a_time,
    |app| async move {
        let rx = Receiver::start().await;
        rx.answer(410);
        let biz = live_business(&app, BIZ, ALL_SCOPES).await;
        follower(&app, &biz, FAN, false).await;
        let hook = register_webhook(&app, &biz, &rx.url(), &["message.sent"]).await;
        let path = format!(
            "/business/webhooks/{}/recover",
            hook["id"].as_str().unwrap()
        );
        let since = chrono::Utc::now() - chrono::TimeDelta::minutes(1);
        for _ in 0..3 {
            send(&app, &biz).await;
        }
        rx.wait_for(3).await;
        for _ in 0..500 {
            let all = log(&app, &biz).await;
            if all.len() == 3 && all.iter().all(|d| d["status"] == "failed") {
                break;
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        let at = |t: chrono::DateTime<chrono::Utc>| t.to_rfc3339();
        for body in [
            json!({}),
            json!({ "since": "yesterday" }),
            json!({ "since": at(chrono::Utc::now() + chrono::TimeDelta::hours(1)) }),
            json!({ "since": at(chrono::Utc::now() - chrono::TimeDelta::days(8)) }),
        ] {
            let reply = app.post(&path, Some(&biz.owner_token), body.clone()).await;
            reply.assert_error(400, "invalid_request");
            assert!(
                reply.body["detail"].as_str().unwrap().starts_with("since:"),
                "{body}"
            );
        }
        rx.answer(200);
        let recovered = app
            .post(&path, Some(&biz.owner_token), json!({ "since": at(since) }))
            .await;
        recovered.assert_ok(200);
        assert_eq!(recovered.data()["requeued"], 3);
        rx.wait_for(6).await;
        for _ in 0..500 {
            if log(&app, &biz)
                .await
                .iter()
                .all(|d| d["status"] == "succeeded")
            {
                break;
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        assert!(
            log(&app, &biz)
                .await
                .iter()
                .all(|d| d["status"] == "succeeded")
        );
        // Nothing failed is left.
        let none = app
            .post(&path, Some(&biz.owner_token), json!({ "since": at(since) }))
            .await;
        assert_eq!(none.data()["requeued"], 0);
        app.post(
            &format!("/business/webhooks/{}/recover", uuid::Uuid::new_v4()),
            Some(&biz.owner_token),
            json!({ "since": at(since) }),
        )
        .await
        .assert_error(404, "webhook_not_found");
    }
);

e2e!(
    concurrent_revocations_of_one_grant_emit_one_grant_revoked,
    |app| async move {
        use core_service::entities::events;
        use sea_orm::{ColumnTrait, EntityTrait, QueryFilter};
        let rx = Receiver::start().await;
        let biz = live_business(&app, BIZ, ALL_SCOPES).await;
        register_webhook(&app, &biz, &rx.url(), &["grant.revoked"]).await;
        let (user_id, token) = app.user(FAN).await;
        let grant = proto::v1::GrantRequest {
            user_id,
            client_id: biz.app_id.clone(),
        };
        app.admin().await.create_grant(grant).await.unwrap();
        let path = format!("/me/grants/{}", biz.app_id);
        let replies = futures::future::join_all(
            (0..6).map(|_| app.request(Method::DELETE, &path, Some(&token), None)),
        )
        .await;
        let ok = replies.iter().filter(|r| r.status == 200).count();
        assert_eq!(ok, 1, "exactly one revocation succeeds");
        for reply in replies.iter().filter(|r| r.status != 200) {
            reply.assert_error(404, "grant_not_found");
        }
        let business_id: uuid::Uuid = biz.id.parse().unwrap();
        let emitted = events::Entity::find()
            .filter(events::Column::BusinessId.eq(business_id))
            .filter(events::Column::EventType.eq("grant.revoked"))
            .all(&app.core.db)
            .await
            .unwrap();
        assert_eq!(emitted.len(), 1);
        rx.wait_for(1).await;
        tokio::time::sleep(Duration::from_millis(300)).await;
        assert_eq!(rx.received().len(), 1, "one delivery");
    }
);

e2e!(
    webhook_urls_with_credentials_are_refused_so_no_team_member_reads_them,
    |app| async move {
        let biz = live_business(&app, BIZ, ALL_SCOPES).await;
        for url in [
            "https://user:secret@hooks.example.com/in",
            "https://token@hooks.example.com/in",
        ] {
            let reply = app
                .post(
                    "/business/webhooks",
                    Some(&biz.owner_token),
                    json!({ "url": url, "events": ["message.sent"] }),
                )
                .await;
            reply.assert_error(400, "invalid_webhook_url");
            assert_eq!(
                reply.body["detail"],
                "url: must not contain a user name or password"
            );
        }
        let hook = register_webhook(
            &app,
            &biz,
            "https://hooks.example.com/in",
            &["message.sent"],
        )
        .await;
        let id = hook["id"].as_str().unwrap();
        app.patch(
            &format!("/business/webhooks/{id}"),
            Some(&biz.owner_token),
            json!({ "url": "https://user:secret@hooks.example.com/in" }),
        )
        .await
        .assert_error(400, "invalid_webhook_url");
        let list = app.get("/business/webhooks", Some(&biz.owner_token)).await;
        assert_eq!(list.data()[0]["url"], "https://hooks.example.com/in");
    }
);

fn three_endpoints() -> Options {
    Options {
        configure: Some(Arc::new(|c| c.webhooks.webhook_endpoints_per_business = 3)),
        ..Default::default()
    }
}

e2e!(
    a_business_has_at_most_the_configured_number_of_endpoints_even_when_created_at_once,
    three_endpoints(),
    |app| async move {
        let biz = live_business(&app, BIZ, ALL_SCOPES).await;
        // Eight creations at once: exactly three succeed, the rest are 409.
        let creations = (0..8).map(|i| {
            app.post(
                "/business/webhooks",
                Some(&biz.owner_token),
                json!({ "url": format!("https://hooks.example.com/{i}"), "events": ["message.sent"] }),
            )
        });
        let replies = futures::future::join_all(creations).await;
        let created = replies.iter().filter(|r| r.status == 201).count();
        assert_eq!(created, 3, "{replies:?}");
        for reply in replies.iter().filter(|r| r.status != 201) {
            reply.assert_error(409, "webhook_limit_reached");
            assert!(reply.body["detail"].as_str().unwrap().contains("at most 3"));
        }
        let list = app.get("/business/webhooks", Some(&biz.owner_token)).await;
        assert_eq!(list.data().as_array().unwrap().len(), 3);
        // Deleting one makes room for one.
        let id = list.data()[0]["id"].as_str().unwrap().to_string();
        app.request(
            Method::DELETE,
            &format!("/business/webhooks/{id}"),
            Some(&biz.owner_token),
            None,
        )
        .await
        .assert_ok(200);
        register_webhook(
            &app,
            &biz,
            "https://hooks.example.com/again",
            &["message.sent"],
        )
        .await;
        // Another business has its own allowance.
        let other = live_business(&app, "+14155550900", ALL_SCOPES).await;
        register_webhook(
            &app,
            &other,
            "https://hooks.example.com/0",
            &["message.sent"],
        )
        .await;
    }
);

e2e!(
    test_events_are_limited_per_endpoint_per_minute,
    |app| async move {
        let biz = live_business(&app, BIZ, ALL_SCOPES).await;
        let a =
            register_webhook(&app, &biz, "https://hooks.example.com/a", &["message.sent"]).await;
        let b =
            register_webhook(&app, &biz, "https://hooks.example.com/b", &["message.sent"]).await;
        let test = |hook: &Value| {
            let path = format!("/business/webhooks/{}/test", hook["id"].as_str().unwrap());
            let token = biz.owner_token.clone();
            let app = &app;
            async move { app.post(&path, Some(&token), json!({})).await }
        };
        for _ in 0..5 {
            test(&a).await.assert_ok(200);
        }
        let refused = test(&a).await;
        refused.assert_error(429, "rate_limited");
        assert!(refused.retry_after().is_some_and(|s| (1..=60).contains(&s)));
        // The other endpoint is not held back, and a minute later the first may test again.
        test(&b).await.assert_ok(200);
        app.clock.advance(Duration::from_secs(61));
        test(&a).await.assert_ok(200);
    }
);

e2e!(
    secrets_stored_in_the_first_format_still_sign_and_are_resealed_bound_to_their_endpoint,
    |app| async move {
        use core_service::entities::webhooks;
        use core_service::webhooks::secret;
        use sea_orm::{ActiveModelTrait, EntityTrait, Set};
        let rx = Receiver::start().await;
        let biz = live_business(&app, BIZ, ALL_SCOPES).await;
        follower(&app, &biz, FAN, false).await;
        let hook = register_webhook(&app, &biz, &rx.url(), &["message.sent"]).await;
        let id: uuid::Uuid = hook["id"].as_str().unwrap().parse().unwrap();
        let plain = hook["secret"].as_str().unwrap().to_string();
        let key = app.core.keys.webhook_key;
        let row = webhooks::Entity::find_by_id(id)
            .one(&app.core.db)
            .await
            .unwrap()
            .unwrap();
        assert!(secret::is_current(&row.secret_ciphertext));
        assert!(!row.secret_ciphertext.contains(&plain));

        // A row written before the current format...
        let mut old: webhooks::ActiveModel = row.into();
        old.secret_ciphertext = Set(secret::seal_first_format(&key, &plain).unwrap());
        old.update(&app.core.db).await.unwrap();
        // ...still signs deliveries,
        send(&app, &biz).await;
        let got = rx.wait_for(1).await;
        verify(&plain, &got[0]);
        // and a core starting on the database re-seals it in the current format.
        let _second = app.second_stack(|_| {}).await;
        let row = webhooks::Entity::find_by_id(id)
            .one(&app.core.db)
            .await
            .unwrap()
            .unwrap();
        assert!(
            secret::is_current(&row.secret_ciphertext),
            "{}",
            row.secret_ciphertext
        );
        assert_eq!(
            secret::decrypt(&key, id, &row.secret_ciphertext).unwrap(),
            plain
        );
        // Bound to its endpoint: the same ciphertext does not open as another endpoint's.
        assert!(secret::decrypt(&key, uuid::Uuid::new_v4(), &row.secret_ciphertext).is_err());
    }
);

fn slow_and_fast() -> Options {
    Options {
        configure: Some(Arc::new(|c| {
            c.webhooks.webhook_timeout_secs = 1.0;
            c.webhooks.webhook_max_in_flight_per_endpoint = 2;
        })),
        worker_concurrency: Some(4),
        ..Default::default()
    }
}

e2e!(
    a_slow_receiver_with_a_backlog_does_not_hold_up_another_businesss_deliveries,
    slow_and_fast(),
    |app| async move {
        let slow_rx = Receiver::start().await;
        slow_rx.hang(true);
        let fast_rx = Receiver::start().await;
        let slow = live_business(&app, BIZ, ALL_SCOPES).await;
        follower(&app, &slow, FAN, false).await;
        let slow_endpoint = register_webhook(&app, &slow, &slow_rx.url(), &["message.sent"]).await;
        let fast = live_business(&app, "+14155550900", ALL_SCOPES).await;
        follower(&app, &fast, "+14155550901", false).await;
        let fast_endpoint = register_webhook(&app, &fast, &fast_rx.url(), &["message.sent"]).await;

        // Forty deliveries queue for the receiver that never answers (each attempt waits for the
        // 1 s timeout), then five for the one that answers at once. The worker has 4 slots.
        for _ in 0..40 {
            send(&app, &slow).await;
        }
        for _ in 0..5 {
            send_v1(
                &app,
                &fast,
                json!({ "to": "+14155550901", "category": "utility", "body": "hi" }),
                None,
            )
            .await
            .assert_ok(200);
        }
        fast_rx.wait_for(5).await;
        // Without the cap the slow endpoint would hold every slot and the fast one would wait for
        // its whole backlog (40 attempts, 10 s); with it, the fast deliveries went through while
        // the slow endpoint had used only a few attempts.
        let slow_attempts = slow_rx.received().len();
        assert!(
            slow_attempts < 20,
            "{slow_attempts} slow attempts before 5 fast deliveries"
        );
        let log = app
            .get(
                "/business/webhook-deliveries?limit=200",
                Some(&slow.owner_token),
            )
            .await;
        let open = log.data()["deliveries"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|d| d["status"] == "pending")
            .count();
        assert!(open > 15, "the slow backlog is still large: {open} pending");
        // Only the endpoint whose attempts time out is marked slow (and so capped): one that
        // answers at once keeps the plain queue order and its full throughput.
        let slow_until = |endpoint: &Value| {
            let id: uuid::Uuid = endpoint["id"].as_str().unwrap().parse().unwrap();
            let core = app.core.clone();
            async move {
                use sea_orm::EntityTrait;
                core_service::entities::webhooks::Entity::find_by_id(id)
                    .one(&core.db)
                    .await
                    .unwrap()
                    .unwrap()
                    .slow_until_ms
            }
        };
        assert!(slow_until(&slow_endpoint).await > core_service::clock::Clock::now_ms(&app.clock));
        assert_eq!(slow_until(&fast_endpoint).await, 0);
    }
);
