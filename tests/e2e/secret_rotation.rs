//! Webhook secret rotation and the Standard Webhooks headers end to end: new endpoints sign
//! both ways; a rotation signs with both secrets during its grace and with the new one after
//! it (injected clock); a second rotation ends the first grace; a legacy endpoint gets the
//! Standard headers from its first rotation; no answer carries a secret; bad input is refused.
//! Every signature is recomputed here as a receiver would, without the service's code.

use std::time::Duration;

use base64::Engine as _;
use hmac::{Hmac, KeyInit, Mac};
use serde_json::{Value, json};
use sha2::Sha256;

use core_service::clock::Clock;

use crate::e2e;
use crate::fixtures::{
    ALL_SCOPES, Business, Received, Receiver, add_member, caller_secret, deliveries_log,
    live_business, register_webhook, v1_values, verify_signature,
};
use crate::harness::{TestApp, eventually};

const BIZ: &str = "+14155550100";
const B64: base64::engine::GeneralPurpose = base64::engine::general_purpose::STANDARD;

/// Which of `secrets` the Standard Webhooks `webhook-signature` of `received` verifies with,
/// in its order (each value checked over `<webhook-id>.<webhook-timestamp>.<body>`).
fn standard_signers(received: &Received, secrets: &[&str]) -> Vec<String> {
    let id = received.header("webhook-id");
    let t = received.header("webhook-timestamp");
    received
        .header("webhook-signature")
        .split(' ')
        .map(|value| {
            let signature = B64
                .decode(value.strip_prefix("v1,").expect("v1,<signature>"))
                .expect("base64");
            secrets
                .iter()
                .find(|secret| {
                    let key = B64.decode(secret.strip_prefix("whsec_").unwrap()).unwrap();
                    let mut mac = Hmac::<Sha256>::new_from_slice(&key).unwrap();
                    mac.update(format!("{id}.{t}.").as_bytes());
                    mac.update(&received.body);
                    mac.verify_slice(&signature).is_ok()
                })
                .unwrap_or_else(|| panic!("{value} verifies with none of the secrets"))
                .to_string()
        })
        .collect()
}

/// Which of `secrets` each `v1` of `X-Service-Signature` verifies with, in its order.
fn service_signers(received: &Received, secrets: &[&str]) -> Vec<String> {
    let header = received.header("x-service-signature");
    let t = header
        .split(',')
        .find_map(|p| p.strip_prefix("t="))
        .unwrap();
    v1_values(received)
        .iter()
        .map(|v1| {
            secrets
                .iter()
                .find(|secret| {
                    let mut mac = Hmac::<Sha256>::new_from_slice(secret.as_bytes()).unwrap();
                    mac.update(format!("{t}.").as_bytes());
                    mac.update(&received.body);
                    mac.verify_slice(&hex::decode(v1).unwrap()).is_ok()
                })
                .unwrap_or_else(|| panic!("v1={v1} verifies with none of the secrets"))
                .to_string()
        })
        .collect()
}

async fn rotate(app: &TestApp, biz: &Business, hook: &str, body: Value) -> crate::harness::Reply {
    app.post(
        &format!("/business/webhooks/{hook}/rotate-secret"),
        Some(&biz.owner_token),
        body,
    )
    .await
}

/// Queues a `webhook.test` to `hook` and returns the `n`th delivery the receiver got.
async fn test_delivery(
    app: &TestApp,
    biz: &Business,
    hook: &str,
    rx: &Receiver,
    n: usize,
) -> Received {
    app.post(
        &format!("/business/webhooks/{hook}/test"),
        Some(&biz.owner_token),
        json!({}),
    )
    .await
    .assert_ok(200);
    let received = rx.wait_for(n).await[n - 1].clone();
    // Its outcome recorded before the test moves the clock on: a lease that lapsed under the
    // moved clock before the worker's report came in would deliver it again, signed anew.
    eventually(&format!("{n} test deliveries succeeded"), async || {
        let log = deliveries_log(app, biz).await;
        (log.iter().filter(|d| d["status"] == "succeeded").count() >= n).then_some(())
    })
    .await;
    received
}

/// A live business with one endpoint at a fresh receiver: (receiver, business, secret, id).
async fn endpoint(app: &TestApp) -> (std::sync::Arc<Receiver>, Business, String, String) {
    let rx = Receiver::start().await;
    let biz = live_business(app, BIZ, ALL_SCOPES).await;
    let created = register_webhook(app, &biz, &rx.url(), &["message.sent"]).await;
    let secret = created["secret"].as_str().unwrap().to_string();
    let hook = created["id"].as_str().unwrap().to_string();
    (rx, biz, secret, hook)
}

fn no_secret_in(reply: &crate::harness::Reply, secrets: &[&str]) {
    let text = reply.body.to_string();
    assert!(reply.data().get("secret").is_none(), "{text}");
    for secret in secrets {
        assert!(!text.contains(secret), "an answer carried a secret: {text}");
    }
}

e2e!(
    a_new_endpoint_has_a_standard_secret_and_signs_both_ways,
    |app| async move {
        let rx = Receiver::start().await;
        let biz = live_business(&app, BIZ, ALL_SCOPES).await;
        let created = register_webhook(&app, &biz, &rx.url(), &["message.sent"]).await;
        let secret = created["secret"].as_str().unwrap().to_string();
        // `whsec_` + the standard base64 (with padding) of 32 bytes.
        let key = B64.decode(secret.strip_prefix("whsec_").unwrap()).unwrap();
        assert_eq!(key.len(), 32);
        assert_eq!(secret.len(), 6 + 44);
        assert!(created["previous_secret_expires_at"].is_null());
        let hook = created["id"].as_str().unwrap();
        let received = test_delivery(&app, &biz, hook, &rx, 1).await;
        let t = verify_signature(&secret, &received);
        assert_eq!(v1_values(&received).len(), 1);
        assert_eq!(
            received.header("webhook-id"),
            received.header("x-service-delivery")
        );
        assert_eq!(received.header("webhook-timestamp"), t.to_string());
        assert_eq!(standard_signers(&received, &[&secret]), [secret.as_str()]);
    }
);

e2e!(
    a_rotation_signs_with_both_secrets_during_its_grace_and_the_new_one_after,
    |app| async move {
        let (rx, biz, old, hook) = endpoint(&app).await;
        let new = caller_secret(32);
        let before = app.clock.now();
        let rotated = rotate(
            &app,
            &biz,
            &hook,
            json!({ "secret": new, "grace_seconds": 3600 }),
        )
        .await;
        rotated.assert_ok(200);
        no_secret_in(&rotated, &[&old, &new]);
        let expires = chrono::DateTime::parse_from_rfc3339(
            rotated.data()["previous_secret_expires_at"]
                .as_str()
                .unwrap(),
        )
        .unwrap();
        assert_eq!(
            expires.timestamp_millis(),
            (before + chrono::Duration::seconds(3600)).timestamp_millis()
        );
        // The list shows the grace too, and never a secret.
        let listed = app.get("/business/webhooks", Some(&biz.owner_token)).await;
        listed.assert_ok(200);
        no_secret_in(&listed, &[&old, &new]);
        assert_eq!(
            listed.data()[0]["previous_secret_expires_at"],
            rotated.data()["previous_secret_expires_at"]
        );

        // During the grace: the new secret first, then the old one, in both schemes.
        let during = test_delivery(&app, &biz, &hook, &rx, 1).await;
        assert_eq!(
            service_signers(&during, &[&new, &old]),
            [new.as_str(), old.as_str()]
        );
        assert_eq!(
            standard_signers(&during, &[&new, &old]),
            [new.as_str(), old.as_str()]
        );

        // After it: the new one only.
        app.clock.advance(Duration::from_secs(3601));
        let token = app.login(BIZ).await["access_token"]
            .as_str()
            .unwrap()
            .to_string();
        let biz = Business {
            owner_token: token,
            ..biz
        };
        let after = test_delivery(&app, &biz, &hook, &rx, 2).await;
        assert_eq!(service_signers(&after, &[&new, &old]), [new.as_str()]);
        assert_eq!(standard_signers(&after, &[&new, &old]), [new.as_str()]);
        let listed = app.get("/business/webhooks", Some(&biz.owner_token)).await;
        assert!(listed.data()[0]["previous_secret_expires_at"].is_null());

        // A rotation with no grace: only the new secret signs at once.
        let newer = caller_secret(64);
        let rotated = rotate(
            &app,
            &biz,
            &hook,
            json!({ "secret": newer, "grace_seconds": 0 }),
        )
        .await;
        rotated.assert_ok(200);
        assert!(rotated.data()["previous_secret_expires_at"].is_null());
        let now = test_delivery(&app, &biz, &hook, &rx, 3).await;
        assert_eq!(service_signers(&now, &[&newer, &new]), [newer.as_str()]);
        assert_eq!(standard_signers(&now, &[&newer, &new]), [newer.as_str()]);
    }
);

e2e!(
    a_second_rotation_ends_the_first_grace_so_at_most_two_secrets_sign,
    |app| async move {
        let (rx, biz, first, hook) = endpoint(&app).await;
        let second = caller_secret(32);
        let third = caller_secret(24);
        // The default grace is a day.
        let before = app.clock.now();
        let rotated = rotate(&app, &biz, &hook, json!({ "secret": second })).await;
        rotated.assert_ok(200);
        let expires = chrono::DateTime::parse_from_rfc3339(
            rotated.data()["previous_secret_expires_at"]
                .as_str()
                .unwrap(),
        )
        .unwrap();
        assert_eq!(
            expires.timestamp_millis(),
            (before + chrono::Duration::seconds(86_400)).timestamp_millis()
        );
        app.clock.advance(Duration::from_secs(60));
        rotate(
            &app,
            &biz,
            &hook,
            json!({ "secret": third, "grace_seconds": 600 }),
        )
        .await
        .assert_ok(200);
        let all = [first.as_str(), second.as_str(), third.as_str()];
        let received = test_delivery(&app, &biz, &hook, &rx, 1).await;
        assert_eq!(
            service_signers(&received, &all),
            [third.as_str(), second.as_str()]
        );
        assert_eq!(
            standard_signers(&received, &all),
            [third.as_str(), second.as_str()]
        );
    }
);

e2e!(
    a_legacy_endpoint_gets_the_standard_headers_from_its_first_rotation,
    |app| async move {
        let rx = Receiver::start().await;
        let biz = live_business(&app, BIZ, ALL_SCOPES).await;
        let created = register_webhook(&app, &biz, &rx.url(), &["message.sent"]).await;
        let hook = created["id"].as_str().unwrap().to_string();
        // An endpoint made before the standard form: its secret looks alike but is recorded
        // legacy.
        let legacy = core_service::webhooks::secret::generate_legacy();
        {
            use core_service::entities::webhooks;
            use sea_orm::{ColumnTrait, EntityTrait, QueryFilter, sea_query::Expr};
            let id: uuid::Uuid = hook.parse().unwrap();
            let sealed =
                core_service::webhooks::secret::encrypt(&app.core.keys.webhook_key, id, &legacy)
                    .unwrap();
            webhooks::Entity::update_many()
                .col_expr(webhooks::Column::SecretCiphertext, Expr::value(sealed))
                .col_expr(webhooks::Column::SecretStandard, Expr::value(false))
                .filter(webhooks::Column::Id.eq(id))
                .exec(&app.core.db)
                .await
                .unwrap();
        }
        let plain = test_delivery(&app, &biz, &hook, &rx, 1).await;
        verify_signature(&legacy, &plain);
        for name in ["webhook-id", "webhook-timestamp", "webhook-signature"] {
            assert!(
                plain.headers.get(name).is_none(),
                "{name} on a legacy endpoint"
            );
        }
        let new = caller_secret(32);
        rotate(
            &app,
            &biz,
            &hook,
            json!({ "secret": new, "grace_seconds": 3600 }),
        )
        .await
        .assert_ok(200);
        let during = test_delivery(&app, &biz, &hook, &rx, 2).await;
        assert_eq!(
            service_signers(&during, &[&new, &legacy]),
            [new.as_str(), legacy.as_str()]
        );
        // The legacy secret has no standard key: the new one signs alone there.
        assert_eq!(standard_signers(&during, &[&new]), [new.as_str()]);
    }
);

e2e!(
    a_rotation_refuses_bad_secrets_and_graces_and_needs_a_manager,
    |app| async move {
        let biz = live_business(&app, BIZ, ALL_SCOPES).await;
        let created =
            register_webhook(&app, &biz, "https://hooks.example.com/x", &["message.sent"]).await;
        let hook = created["id"].as_str().unwrap().to_string();
        let good = caller_secret(32);
        let short = caller_secret(23);
        let long = caller_secret(65);
        let unpadded = caller_secret(32).trim_end_matches('=').to_string();
        for body in [
            json!({}),
            json!({ "secret": "" }),
            json!({ "secret": "whsec_" }),
            json!({ "secret": short }),
            json!({ "secret": long }),
            json!({ "secret": unpadded }),
            json!({ "secret": core_service::webhooks::secret::generate_legacy() }),
            json!({ "secret": good.trim_start_matches("whsec_") }),
            json!({ "secret": good, "grace_seconds": -1 }),
            json!({ "secret": good, "grace_seconds": 86_401 }),
            json!({ "secret": good, "grace_seconds": "60" }),
            json!({ "secret": good, "other": 1 }),
        ] {
            rotate(&app, &biz, &hook, body.clone())
                .await
                .assert_error(400, "invalid_request");
        }
        rotate(
            &app,
            &biz,
            &uuid::Uuid::new_v4().to_string(),
            json!({ "secret": good }),
        )
        .await
        .assert_error(404, "webhook_not_found");
        let other = live_business(&app, "+14155550101", ALL_SCOPES).await;
        rotate(&app, &other, &hook, json!({ "secret": good }))
            .await
            .assert_error(404, "webhook_not_found");
        let (_, member_token) = app.user("+14155550300").await;
        add_member(&app, &biz.owner_token, "+14155550300", "member").await;
        app.post(
            &format!("/business/webhooks/{hook}/rotate-secret"),
            Some(&member_token),
            json!({ "secret": good }),
        )
        .await
        .assert_error(403, "insufficient_role");
        // A paused endpoint rotates too; the bounds of the grace are allowed.
        app.patch(
            &format!("/business/webhooks/{hook}"),
            Some(&biz.owner_token),
            json!({ "active": false }),
        )
        .await
        .assert_ok(200);
        for grace in [0, 86_400] {
            let reply = rotate(
                &app,
                &biz,
                &hook,
                json!({ "secret": caller_secret(40), "grace_seconds": grace }),
            )
            .await;
            reply.assert_ok(200);
            assert_eq!(reply.data()["active"], false);
        }
    }
);

e2e!(
    endpoints_and_events_from_before_the_migration_are_legacy_and_listed_first,
    |app| async move {
        let (rx, biz, secret, hook) = endpoint(&app).await;
        crate::fixtures::follower(&app, &biz, "+14155550200", false).await;
        crate::fixtures::redo_migrations_from(&app, "m20261130_000014_integrator").await;
        // The form is recorded, never read off the string: this endpoint counts as legacy
        // although its secret looks standard.
        let received = test_delivery(&app, &biz, &hook, &rx, 1).await;
        verify_signature(&secret, &received);
        assert!(received.headers.get("webhook-signature").is_none());
        // An event from before the migration lists before every newer one.
        crate::fixtures::follower(&app, &biz, "+14155550201", false).await;
        // (On PostgreSQL an event is listed once older transactions on the server have ended.)
        let events = crate::harness::eventually("both events listed", async || {
            let listed = app.get("/business/events", Some(&biz.owner_token)).await;
            listed.assert_ok(200);
            let events = listed.data()["events"].as_array().unwrap().clone();
            (events.len() == 2).then_some(events)
        })
        .await;
        let old = events[1]["id"].as_str().unwrap();
        let after = app
            .get(
                &format!("/business/events?after={old}"),
                Some(&biz.owner_token),
            )
            .await;
        assert_eq!(after.data()["events"][0]["id"], events[0]["id"]);
    }
);
