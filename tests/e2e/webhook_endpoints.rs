//! Webhook endpoints end to end: validation and the secret shown once, pause and resume, the
//! test event and its limit, roles, and the per-business cap; each outcome's deliveries go to
//! the endpoints as they stand when it is recorded.

use std::sync::Arc;
use std::time::Duration;

use reqwest::Method;
use serde_json::{Value, json};

use crate::e2e;
use crate::fixtures::{
    ALL_SCOPES, Receiver, add_member, caller_secret, deliveries_log, follower, live_business,
    register_webhook, send_utility, settled, verify_signature, wait_delivery,
};
use crate::harness::{Options, quiet_for};

const BIZ: &str = "+14155550100";
const FAN: &str = "+14155550200";

fn three_endpoints() -> Options {
    Options {
        configure: Some(Arc::new(|c| c.webhooks.webhook_endpoints_per_business = 3)),
        ..Default::default()
    }
}

e2e!(
    a_paused_endpoint_receives_nothing_and_resumes_its_pending_retries,
    |app| async move {
        let rx = Receiver::start().await;
        rx.queue(&[503]);
        let biz = live_business(&app, BIZ, ALL_SCOPES).await;
        follower(&app, &biz, FAN, false).await;
        let hook = register_webhook(&app, &biz, &rx.url(), &["message.sent"]).await;
        let path = format!("/business/webhooks/{}", hook["id"].as_str().unwrap());
        send_utility(&app, &biz, FAN).await;
        wait_delivery(&app, &biz, |d| d["status"] == "retrying").await;
        let paused = app
            .patch(&path, Some(&biz.owner_token), json!({ "active": false }))
            .await;
        paused.assert_ok(200);
        assert_eq!(paused.data()["active"], false);
        assert!(paused.data().get("secret").is_none());
        // Events while paused are not queued for it; the pending retry waits.
        send_utility(&app, &biz, FAN).await;
        app.clock.advance(Duration::from_secs(120));
        quiet_for(Duration::from_millis(600)).await;
        assert_eq!(rx.received().len(), 1);
        assert_eq!(deliveries_log(&app, &biz).await.len(), 1);
        app.post(&format!("{path}/test"), Some(&biz.owner_token), json!({}))
            .await
            .assert_error(409, "webhook_paused");
        // Reactivated: the retry goes out.
        app.patch(&path, Some(&biz.owner_token), json!({ "active": true }))
            .await
            .assert_ok(200);
        rx.wait_for(2).await;
        let entry = wait_delivery(&app, &biz, |d| d["status"] == "succeeded").await;
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
        verify_signature(hook["secret"].as_str().unwrap(), &got[0]);
        assert_eq!(got[0].header("x-service-event"), "webhook.test");
        let payload = got[0].json();
        assert_eq!(payload["type"], "webhook.test");
        assert!(payload["data"]["message"].as_str().unwrap().len() > 5);
        quiet_for(Duration::from_millis(300)).await;
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
        add_member(&app, &biz.owner_token, "+14155550101", "member").await;
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

/// How many deliveries the business's log holds for each endpoint, once message `id` has its
/// outcome (its deliveries are written with it).
async fn deliveries_by_endpoint(
    app: &crate::harness::TestApp,
    biz: &crate::fixtures::Business,
    id: &str,
    endpoints: &[&str],
) -> Vec<usize> {
    settled(app, &biz.owner_token, id).await;
    let log = deliveries_log(app, biz).await;
    endpoints
        .iter()
        .map(|e| log.iter().filter(|d| d["webhook_id"] == *e).count())
        .collect()
}

e2e!(
    each_outcome_goes_to_the_endpoints_as_they_stand_when_it_is_recorded,
    three_endpoints(),
    |app| async move {
        // A core plans an outcome's deliveries from the endpoints it knows of the business:
        // every change to them (here through this core, as through any other) is seen by the
        // next outcome.
        let (one, two) = (Receiver::start().await, Receiver::start().await);
        let biz = live_business(&app, BIZ, ALL_SCOPES).await;
        follower(&app, &biz, FAN, false).await;
        let first = register_webhook(&app, &biz, &one.url(), &["message.sent"]).await;
        let first_id = first["id"].as_str().unwrap().to_string();
        let id = send_utility(&app, &biz, FAN).await;
        assert_eq!(
            deliveries_by_endpoint(&app, &biz, &id, &[&first_id]).await,
            [1]
        );
        one.wait_for(1).await;

        // An endpoint added.
        let second = register_webhook(&app, &biz, &two.url(), &["message.sent"]).await;
        let second_id = second["id"].as_str().unwrap().to_string();
        let endpoints = [first_id.as_str(), second_id.as_str()];
        let id = send_utility(&app, &biz, FAN).await;
        assert_eq!(
            deliveries_by_endpoint(&app, &biz, &id, &endpoints).await,
            [2, 1]
        );
        verify_signature(
            second["secret"].as_str().unwrap(),
            &two.wait_for(1).await[0],
        );

        // One no longer subscribed to `message.sent`.
        app.patch(
            &format!("/business/webhooks/{first_id}"),
            Some(&biz.owner_token),
            json!({ "events": ["message.failed"] }),
        )
        .await
        .assert_ok(200);
        let id = send_utility(&app, &biz, FAN).await;
        assert_eq!(
            deliveries_by_endpoint(&app, &biz, &id, &endpoints).await,
            [2, 2]
        );

        // A new secret (no grace): the next delivery is signed with it alone.
        let secret = caller_secret(32);
        app.post(
            &format!("/business/webhooks/{second_id}/rotate-secret"),
            Some(&biz.owner_token),
            json!({ "secret": secret, "grace_seconds": 0 }),
        )
        .await
        .assert_ok(200);
        let id = send_utility(&app, &biz, FAN).await;
        assert_eq!(
            deliveries_by_endpoint(&app, &biz, &id, &endpoints).await,
            [2, 3]
        );
        let received = two.wait_for(3).await;
        verify_signature(&secret, &received[2]);
        assert_eq!(
            crate::fixtures::v1_values(&received[2]).len(),
            1,
            "signed with the new secret only"
        );

        // And removed.
        app.request(
            Method::DELETE,
            &format!("/business/webhooks/{second_id}"),
            Some(&biz.owner_token),
            None,
        )
        .await
        .assert_ok(200);
        let id = send_utility(&app, &biz, FAN).await;
        settled(&app, &biz.owner_token, &id).await;
        let events = crate::fixtures::outcome_events(&app, &biz).await;
        assert_eq!(events.len(), 5);
        let last = events
            .iter()
            .find(|e| e.data.contains(&id))
            .expect("the last outcome's event");
        use core_service::entities::webhook_deliveries;
        use sea_orm::{ColumnTrait, EntityTrait, PaginatorTrait, QueryFilter};
        let queued = webhook_deliveries::Entity::find()
            .filter(webhook_deliveries::Column::EventId.eq(last.id))
            .count(&app.core.db)
            .await
            .unwrap();
        assert_eq!(queued, 0, "no endpoint left for message.sent");
        one.wait_for(2).await;
        assert_eq!(one.received().len(), 2, "the first two messages only");
    }
);
