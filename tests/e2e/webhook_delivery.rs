//! Webhook delivery end to end: signed deliveries to a real receiver on loopback, the retry
//! policy, grant.revoked, workers that die, share work or must authenticate, the SSRF guard,
//! old secrets, and fairness between endpoints.

use std::sync::Arc;
use std::time::Duration;

use reqwest::Method;
use serde_json::{Value, json};

use crate::e2e;
use crate::fixtures::{
    ALL_SCOPES, Receiver, follower, live_business, register_webhook, send_utility, send_v1,
    verify_signature, wait_delivery,
};
use crate::harness::{Options, quiet_for};

const BIZ: &str = "+14155550100";
const FAN: &str = "+14155550200";

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

/// One slot for a slow endpoint, and job streams that never poll: a delivery that waits for a
/// slot is leased only when something wakes the streams.
fn capped_and_never_polled() -> Options {
    Options {
        configure: Some(Arc::new(|c| {
            c.webhooks.webhook_max_in_flight_per_endpoint = 1;
        })),
        worker_concurrency: Some(4),
        job_poll: Some(Duration::from_secs(3600)),
        ..Default::default()
    }
}

fn with_internal_token() -> Options {
    Options {
        internal_token: Some("stream-secret".into()),
        ..Default::default()
    }
}

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

fn short_timeout() -> Options {
    Options {
        configure: Some(Arc::new(|c| c.webhooks.webhook_timeout_secs = 0.5)),
        ..Default::default()
    }
}

fn long_sessions() -> Options {
    // The schedule spans 31 minutes of the test clock: keep the console token valid.
    Options {
        configure: Some(Arc::new(|c| c.access_token_ttl_secs = 86_400)),
        ..Default::default()
    }
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
        let id = send_utility(&app, &biz, FAN).await;

        let got = rx.wait_for(1).await;
        let request = &got[0];
        let t = verify_signature(&secret, request);
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
        assert!(
            payload["event_id"]
                .as_str()
                .unwrap()
                .parse::<uuid::Uuid>()
                .is_ok()
        );
        assert_eq!(payload["data"]["message_send_id"], id.as_str());
        assert_eq!(payload["data"]["category"], "utility");
        assert_eq!(payload["data"]["recipient_user_id"], fan_id.as_str());
        assert_eq!(payload["data"]["status"], "delivered");

        let entry = wait_delivery(&app, &biz, |d| d["status"] == "succeeded").await;
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
        send_utility(&app, &biz, FAN).await;
        for (attempt, wait_units) in [(1, 1), (2, 2), (3, 4), (4, 8), (5, 16)] {
            rx.wait_for(attempt).await;
            let entry = wait_delivery(&app, &biz, |d| d["attempts"] == attempt).await;
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
            quiet_for(Duration::from_millis(600)).await;
            assert_eq!(
                rx.received().len(),
                attempt,
                "too early after attempt {attempt}"
            );
            // ...and on time.
            app.clock.advance(Duration::from_secs(1));
        }
        let all = rx.wait_for(6).await;
        let entry = wait_delivery(&app, &biz, |d| d["status"] == "failed").await;
        assert_eq!(entry["attempts"], 6);
        assert!(entry["next_attempt_at"].is_null());
        // Every attempt: same delivery id, new payload id, its own valid signature.
        let delivery = all[0].header("x-service-delivery");
        let mut ids = std::collections::HashSet::new();
        for request in &all {
            assert_eq!(request.header("x-service-delivery"), delivery);
            assert!(ids.insert(request.json()["id"].as_str().unwrap().to_string()));
            verify_signature(&secret, request);
        }
        app.clock.advance(Duration::from_secs(3600));
        quiet_for(Duration::from_millis(600)).await;
        assert_eq!(rx.received().len(), 6, "no seventh attempt");
    }
);

e2e!(
    event_id_is_the_same_for_every_endpoint_and_every_attempt_of_one_event,
    |app| async move {
        let first = Receiver::start().await;
        let second = Receiver::start().await;
        first.queue(&[500]);
        let biz = live_business(&app, BIZ, ALL_SCOPES).await;
        follower(&app, &biz, FAN, false).await;
        register_webhook(&app, &biz, &first.url(), &["message.sent"]).await;
        register_webhook(&app, &biz, &second.url(), &["message.sent"]).await;
        send_utility(&app, &biz, FAN).await;
        let failed = first.wait_for(1).await[0].json();
        let other = second.wait_for(1).await[0].json();
        // The retry is counted from the first attempt's recorded outcome.
        wait_delivery(&app, &biz, |d| d["status"] == "retrying").await;
        app.clock.advance(Duration::from_secs(60));
        let retried = first.wait_for(2).await[1].json();
        // One event: one id everywhere; a delivery per endpoint, kept across attempts.
        assert_eq!(failed["event_id"], other["event_id"]);
        assert_eq!(failed["event_id"], retried["event_id"]);
        assert_eq!(failed["delivery_id"], retried["delivery_id"]);
        assert_ne!(failed["delivery_id"], other["delivery_id"]);
        assert_ne!(failed["id"], retried["id"]);
        let stored = crate::fixtures::outcome_events(&app, &biz).await;
        assert_eq!(stored.len(), 1);
        assert_eq!(failed["event_id"], stored[0].id.to_string().as_str());
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
        send_utility(&app, &biz, FAN).await;
        rx.wait_for(1).await;
        let entry = wait_delivery(&app, &biz, |d| d["attempts"] == 1).await;
        assert_eq!(
            entry["status"], "retrying",
            "a redirect is a failed attempt"
        );
        assert_eq!(entry["last_http_status"], 302);
        app.clock.advance(Duration::from_secs(60));
        rx.wait_for(2).await;
        let entry = wait_delivery(&app, &biz, |d| d["status"] == "failed").await;
        assert_eq!(entry["attempts"], 2);
        assert_eq!(entry["last_http_status"], 404);
        app.clock.advance(Duration::from_secs(3600));
        quiet_for(Duration::from_millis(600)).await;
        assert_eq!(rx.received().len(), 2);
    }
);

e2e!(
    a_receiver_that_hangs_times_out_and_is_retried,
    short_timeout(),
    |app| async move {
        let rx = Receiver::start().await;
        rx.hang(true);
        let biz = live_business(&app, BIZ, ALL_SCOPES).await;
        follower(&app, &biz, FAN, false).await;
        register_webhook(&app, &biz, &rx.url(), &["message.sent"]).await;
        send_utility(&app, &biz, FAN).await;
        let entry = wait_delivery(&app, &biz, |d| d["attempts"] == 1).await;
        assert_eq!(entry["status"], "retrying");
        assert_eq!(entry["last_error"], "timeout");
        assert!(entry["last_http_status"].is_null());
        rx.hang(false);
        app.clock.advance(Duration::from_secs(60));
        let entry = wait_delivery(&app, &biz, |d| d["status"] == "succeeded").await;
        assert_eq!(entry["attempts"], 2);
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
        verify_signature(hook["secret"].as_str().unwrap(), &got[0]);
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
    a_worker_stopped_mid_delivery_loses_nothing_and_the_retry_keeps_the_delivery_id,
    |app| async move {
        let rx = Receiver::start().await;
        rx.hang(true);
        let biz = live_business(&app, BIZ, ALL_SCOPES).await;
        follower(&app, &biz, FAN, false).await;
        register_webhook(&app, &biz, &rx.url(), &["message.sent"]).await;
        send_utility(&app, &biz, FAN).await;
        rx.wait_for(1).await;
        app.stop_workers();
        rx.hang(false);
        // Its stream closed: the core gives the unreported job back at once (the clock does
        // not move), and the next worker delivers it with the same delivery id.
        app.start_worker();
        let got = rx.wait_for(2).await;
        assert_eq!(
            got[0].header("x-service-delivery"),
            got[1].header("x-service-delivery")
        );
        assert_ne!(got[0].json()["id"], got[1].json()["id"]);
        let done = wait_delivery(&app, &biz, |d| d["status"] == "succeeded").await;
        assert_eq!(
            done["attempts"], 1,
            "the attempt never reported is not counted"
        );
    }
);

e2e!(
    a_lease_held_through_a_core_that_stopped_lapses_and_the_retry_keeps_the_delivery_id,
    |app| async move {
        let rx = Receiver::start().await;
        rx.hang(true);
        app.stop_workers();
        let second = app.second_stack(|_| {}).await;
        let biz = live_business(&app, BIZ, ALL_SCOPES).await;
        follower(&app, &biz, FAN, false).await;
        register_webhook(&app, &biz, &rx.url(), &["message.sent"]).await;
        // A worker on the second core takes the job; that core stops (a core shutting down
        // gives nothing back), and the worker goes with it before reporting.
        app.start_worker_at(&second);
        send_utility(&app, &biz, FAN).await;
        rx.wait_for(1).await;
        drop(second);
        rx.hang(false);
        app.start_worker();
        // Not while the lease is valid...
        quiet_for(Duration::from_millis(600)).await;
        assert_eq!(rx.received().len(), 1);
        // ...but once it lapses (receiver timeout + 30 s).
        app.clock.advance(Duration::from_secs(41));
        let got = rx.wait_for(2).await;
        assert_eq!(
            got[0].header("x-service-delivery"),
            got[1].header("x-service-delivery")
        );
        wait_delivery(&app, &biz, |d| d["status"] == "succeeded").await;
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
            send_utility(&app, &biz, FAN).await;
        }
        let got = rx.wait_for(12).await;
        quiet_for(Duration::from_millis(300)).await;
        let got_after = rx.received();
        assert_eq!(got_after.len(), 12, "no delivery sent twice");
        let ids: std::collections::HashSet<String> =
            got.iter().map(|r| r.header("x-service-delivery")).collect();
        assert_eq!(ids.len(), 12);
    }
);

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
        send_utility(&app, &biz, FAN).await;
        let entry = wait_delivery(&app, &biz, |d| d["attempts"] == 1).await;
        assert_eq!(entry["status"], "retrying");
        assert!(
            entry["last_error"].as_str().unwrap().contains("blocked"),
            "{entry}"
        );
    }
);

e2e!(
    workers_authenticate_to_the_job_stream_with_the_internal_token,
    with_internal_token(),
    |app| async move {
        // The harness's worker presents the token: deliveries flow.
        let rx = Receiver::start().await;
        let biz = live_business(&app, BIZ, ALL_SCOPES).await;
        follower(&app, &biz, FAN, false).await;
        register_webhook(&app, &biz, &rx.url(), &["message.sent"]).await;
        send_utility(&app, &biz, FAN).await;
        rx.wait_for(1).await;
        // A caller without it is refused on every RPC.
        let mut client = proto::v1::webhook_job_service_client::WebhookJobServiceClient::connect(
            app.grpc_url.clone(),
        )
        .await
        .unwrap();
        let err = client
            .jobs(proto::v1::JobsRequest {
                worker_id: "rogue".into(),
                max_in_flight: 1,
                ..Default::default()
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
                ..Default::default()
            })
            .await
            .unwrap_err();
        assert_eq!(
            proto::RemoteError::from_status(&err).code,
            proto::ErrorCode::Unauthorized
        );
        let err = client
            .report_batch(proto::v1::JobReports { reports: vec![] })
            .await
            .unwrap_err();
        assert_eq!(
            proto::RemoteError::from_status(&err).code,
            proto::ErrorCode::Unauthorized
        );
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
        quiet_for(Duration::from_millis(300)).await;
        assert_eq!(rx.received().len(), 1, "one delivery");
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
        send_utility(&app, &biz, FAN).await;
        let got = rx.wait_for(1).await;
        verify_signature(&plain, &got[0]);
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
        let now = || core_service::clock::Clock::now_ms(&app.clock);

        // Forty deliveries queue for the receiver that never answers (each attempt waits for the
        // 1 s timeout); the worker (4 slots) starts once they are all queued, however long the
        // sends took, and the endpoint is marked slow by its first attempts.
        app.stop_workers();
        for _ in 0..40 {
            send_utility(&app, &slow, FAN).await;
        }
        app.start_worker();
        crate::harness::eventually("the slow endpoint is marked slow", async || {
            (slow_until(&slow_endpoint).await > now()).then_some(())
        })
        .await;
        // Then five deliveries for the endpoint that answers at once.
        let slow_before = slow_rx.received().len();
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
        // the rest of its backlog (measured: every attempt of it); with it, the fast deliveries
        // went through after the slow jobs the worker already held (leased before the endpoint
        // was marked slow) and a few more, 2 at a time (measured: 12-15 of 32-36).
        let backlog = 40 - slow_before.min(40);
        let slow_attempts = slow_rx.received().len() - slow_before;
        assert!(
            slow_attempts * 3 < backlog * 2,
            "{slow_attempts} slow attempts (of a backlog of {backlog}) before 5 fast deliveries"
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
        assert!(slow_until(&slow_endpoint).await > now());
        assert_eq!(slow_until(&fast_endpoint).await, 0);
    }
);

e2e!(
    a_slow_endpoint_at_its_cap_gets_its_next_delivery_when_a_report_frees_the_slot,
    capped_and_never_polled(),
    |app| async move {
        use core_service::entities::webhooks;
        use sea_orm::{ColumnTrait, EntityTrait, QueryFilter, sea_query::Expr};

        let rx = Receiver::start().await;
        let business = live_business(&app, BIZ, ALL_SCOPES).await;
        follower(&app, &business, FAN, false).await;
        let endpoint = register_webhook(&app, &business, &rx.url(), &["message.sent"]).await;
        // The endpoint was slow a moment ago (an attempt took over a second): it is held to one
        // delivery in flight for the next minute, though it now answers at once.
        let id: uuid::Uuid = endpoint["id"].as_str().unwrap().parse().unwrap();
        let until = core_service::clock::Clock::now_ms(&app.clock) + 600_000;
        webhooks::Entity::update_many()
            .col_expr(webhooks::Column::SlowUntilMs, Expr::value(until))
            .filter(webhooks::Column::Id.eq(id))
            .exec(&app.core.db)
            .await
            .unwrap();
        app.core.slow_endpoints.learned();

        for _ in 0..6 {
            send_utility(&app, &business, FAN).await;
        }
        // Each delivery after the first waits for the slot its predecessor holds, and no stream
        // polls: it is leased because the commit of that report woke the streams.
        let got = rx.wait_for(6).await;
        let mut deliveries: Vec<_> = got.iter().map(|r| r.header("x-service-delivery")).collect();
        deliveries.sort();
        deliveries.dedup();
        assert_eq!(deliveries.len(), 6, "six distinct deliveries");
    }
);

e2e!(
    a_receiver_that_answers_with_a_body_keeps_its_connection_for_the_next_delivery,
    |app| async move {
        // A receiver answering 200 with a body of a few kilobytes (more than arrives with the
        // head), behind a proxy that counts connections.
        let app_rx = axum::Router::new().route(
            "/hook",
            axum::routing::post(|| async { (axum::http::StatusCode::OK, "ok ".repeat(10_000)) }),
        );
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let target = listener.local_addr().unwrap();
        tokio::spawn(async move { axum::serve(listener, app_rx).await });
        let proxy = crate::fixtures::proxy::Proxy::start(target).await;
        let biz = live_business(&app, BIZ, ALL_SCOPES).await;
        follower(&app, &biz, FAN, false).await;
        register_webhook(
            &app,
            &biz,
            &format!("{}/hook", proxy.url()),
            &["message.sent"],
        )
        .await;
        for n in 1..=3 {
            send_utility(&app, &biz, FAN).await;
            crate::harness::eventually("the delivery succeeded", async || {
                let log = crate::fixtures::deliveries_log(&app, &biz).await;
                (log.iter().filter(|d| d["status"] == "succeeded").count() >= n).then_some(())
            })
            .await;
        }
        // The worker read each answer to its end, so the pool kept the connection.
        assert_eq!(
            proxy.connections(),
            1,
            "one connection for three deliveries"
        );
    }
);

/// The job streams' LISTEN connection lost (a failover, a restarted server): once it listens
/// again the streams look for work at once, so a delivery that became due meanwhile goes out
/// without waiting for their next poll (here an hour away). PostgreSQL only: SQLite has no
/// other cores to hear from.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn postgres_the_job_streams_look_for_work_at_once_when_listen_connects_again() {
    let Some(app) = crate::harness::TestApp::spawn_with(
        crate::harness::Backend::Postgres,
        capped_and_never_polled(),
    )
    .await
    else {
        return;
    };
    let rx = crate::fixtures::Receiver::start().await;
    rx.queue(&[500]);
    let biz = live_business(&app, BIZ, ALL_SCOPES).await;
    follower(&app, &biz, FAN, false).await;
    register_webhook(&app, &biz, &rx.url(), &["message.sent"]).await;
    send_utility(&app, &biz, FAN).await;
    rx.wait_for(1).await;
    wait_delivery(&app, &biz, |d| d["status"] == "retrying").await;
    // The retry is due, but nothing wakes the streams and their poll is an hour away.
    app.clock.advance(Duration::from_secs(61));
    quiet_for(Duration::from_millis(1500)).await;
    assert_eq!(rx.received().len(), 1, "retried without a wake-up");
    // The server ends the LISTEN session; the core listens again and the streams look.
    let db = sea_orm::Database::connect(app.config.database.database_url.as_str())
        .await
        .unwrap();
    let ended = crate::harness::eventually("the LISTEN session ended", async || {
        let row = sea_orm::ConnectionTrait::query_one_raw(
            &db,
            sea_orm::Statement::from_string(
                sea_orm::DbBackend::Postgres,
                "SELECT count(pg_terminate_backend(pid)) AS n FROM pg_stat_activity \
                 WHERE datname = current_database() AND query LIKE 'LISTEN%'",
            ),
        )
        .await
        .unwrap()
        .unwrap();
        let n = row.try_get::<i64>("", "n").unwrap();
        (n > 0).then_some(n)
    })
    .await;
    assert_eq!(ended, 1);
    rx.wait_for(2).await;
    wait_delivery(&app, &biz, |d| d["status"] == "succeeded").await;
}
