//! Sends on all three paths: every rule and error code, idempotency, the limits, the durable
//! outcome and its events.

use std::time::Duration;

use core_service::entities::events;
use sea_orm::{ColumnTrait, EntityTrait, QueryFilter};
use serde_json::{Value, json};

use crate::e2e;
use crate::fixtures::{
    ALL_SCOPES, Business, follower, live_business, post_keyed, send_service, send_v1, settled,
};
use crate::harness::TestApp;

const BIZ: &str = "+14155550100";
const FAN: &str = "+14155550200";

fn utility(to: &str) -> Value {
    json!({ "to": to, "category": "utility", "body": "Your order shipped" })
}

async fn events_of(app: &TestApp, business: &Business) -> Vec<events::Model> {
    events::Entity::find()
        .filter(events::Column::BusinessId.eq(business.id.parse::<uuid::Uuid>().unwrap()))
        .all(&app.core.db)
        .await
        .unwrap()
}

e2e!(
    an_app_token_sends_utility_to_a_follower_and_the_outcome_is_recorded_with_its_event,
    |app| async move {
        let biz = live_business(&app, BIZ, ALL_SCOPES).await;
        let (fan_id, _) = follower(&app, &biz, FAN, false).await;
        let reply = send_v1(&app, &biz, utility(FAN), None).await;
        reply.assert_ok(200);
        assert_eq!(reply.message(), "message_sent");
        assert_eq!(reply.data()["status"], "sent");
        let id = reply.data()["id"].as_str().unwrap().to_string();

        let record = settled(&app, &biz.owner_token, &id).await;
        assert_eq!(record["status"], "delivered");
        assert_eq!(record["source"], "app");
        assert_eq!(record["app_id"], biz.app_id.as_str());
        assert_eq!(record["category"], "utility");
        assert_eq!(record["to"], FAN);
        assert_eq!(record["recipient_user_id"], fan_id.as_str());
        assert!(record["completed_at"].is_string());

        let events = events_of(&app, &biz).await;
        assert_eq!(events.len(), 1);
        assert_eq!(events[0].event_type, "message.sent");
        let data: Value = serde_json::from_str(&events[0].data).unwrap();
        assert_eq!(data["message_send_id"], id.as_str());
        assert_eq!(data["category"], "utility");
        assert_eq!(data["recipient_user_id"], fan_id.as_str());
        assert_eq!(data["status"], "delivered");

        let usage = app.get("/business/usage", Some(&biz.owner_token)).await;
        usage.assert_ok(200);
        assert_eq!(usage.data()["messages"]["total"], 1);
        assert_eq!(usage.data()["messages"]["delivered"], 1);
        assert_eq!(usage.data()["messages"]["by_category"]["utility"], 1);
        assert_eq!(usage.data()["messages"]["by_category"]["marketing"], 0);
    }
);

e2e!(
    marketing_needs_an_active_follow_and_opt_in,
    |app| async move {
        let biz = live_business(&app, BIZ, ALL_SCOPES).await;
        let marketing = |to: &str| json!({ "to": to, "category": "marketing", "body": "Sale!" });
        app.user("+14155550201").await;
        send_v1(&app, &biz, marketing("+14155550201"), None)
            .await
            .assert_error(403, "business_follow_required");
        follower(&app, &biz, FAN, false).await;
        send_v1(&app, &biz, marketing(FAN), None)
            .await
            .assert_error(403, "marketing_opt_in_required");
        follower(&app, &biz, "+14155550202", true).await;
        send_v1(&app, &biz, marketing("+14155550202"), None)
            .await
            .assert_ok(200);
        let content = json!({ "to": "+14155550202", "category": "marketing",
        "message_content": { "text": "Sale", "title": "Today", "buttons": [{ "label": "Shop", "url": "https://shop.example" }] } });
        send_v1(&app, &biz, content, None).await.assert_ok(200);
    }
);

e2e!(utility_needs_an_active_follow, |app| async move {
    let biz = live_business(&app, BIZ, ALL_SCOPES).await;
    let (_, fan) = follower(&app, &biz, FAN, false).await;
    send_v1(&app, &biz, utility(FAN), None).await.assert_ok(200);
    app.request(
        reqwest::Method::DELETE,
        &format!("/businesses/{}/follow", biz.id),
        Some(&fan),
        None,
    )
    .await
    .assert_ok(200);
    send_v1(&app, &biz, utility(FAN), None)
        .await
        .assert_error(403, "business_follow_required");
});

e2e!(
    authentication_needs_no_follow_with_an_app_token_and_is_reserved_on_the_console,
    |app| async move {
        let biz = live_business(&app, BIZ, ALL_SCOPES).await;
        app.user(FAN).await;
        let auth = json!({ "to": FAN, "category": "authentication", "message_content": { "code": "123456" } });
        let reply = send_v1(&app, &biz, auth.clone(), None).await;
        reply.assert_ok(200);
        let record = settled(&app, &biz.owner_token, reply.data()["id"].as_str().unwrap()).await;
        assert_eq!(record["status"], "delivered");
        post_keyed(&app, "/business/messages", &biz.owner_token, auth, None)
            .await
            .assert_error(403, "authentication_reserved");
    }
);

e2e!(every_shape_error_has_its_code, |app| async move {
    let biz = live_business(&app, BIZ, ALL_SCOPES).await;
    follower(&app, &biz, FAN, true).await;
    let cases = [
        (
            json!({ "to": FAN, "body": "x" }),
            "invalid_message_category",
        ),
        (
            json!({ "to": FAN, "category": "promo", "body": "x" }),
            "invalid_message_category",
        ),
        (
            json!({ "to": FAN, "category": 7, "body": "x" }),
            "invalid_message_category",
        ),
        (
            json!({ "category": "utility", "body": "x" }),
            "invalid_phone_number",
        ),
        (
            json!({ "to": "4155550200", "category": "utility", "body": "x" }),
            "invalid_phone_number",
        ),
        (
            json!({ "to": FAN, "category": "utility" }),
            "message_body_required",
        ),
        (
            json!({ "to": FAN, "category": "utility", "message_content": { "text": "x" } }),
            "message_body_required",
        ),
        (
            json!({ "to": FAN, "category": "utility", "body": "x", "message_content": { "text": "x" } }),
            "invalid_message_content",
        ),
        (
            json!({ "to": FAN, "category": "marketing" }),
            "invalid_message_content",
        ),
        (
            json!({ "to": FAN, "category": "marketing", "body": "x", "message_content": { "text": "x" } }),
            "invalid_message_content",
        ),
        (
            json!({ "to": FAN, "category": "marketing", "message_content": { "title": "no text" } }),
            "invalid_message_content",
        ),
        (
            json!({ "to": FAN, "category": "authentication" }),
            "invalid_message_content",
        ),
        (
            json!({ "to": FAN, "category": "authentication", "message_content": { "code": "12" } }),
            "invalid_message_content",
        ),
        (
            json!({ "to": FAN, "category": "authentication", "body": "123456" }),
            "invalid_message_content",
        ),
        (
            json!({ "to": FAN, "category": "utility", "body": "x".repeat(4097) }),
            "invalid_request",
        ),
        (
            json!({ "to": FAN, "category": "utility", "body": 5 }),
            "invalid_request",
        ),
        (
            json!({ "to": "+14155550999", "category": "utility", "body": "x" }),
            "recipient_not_found",
        ),
    ];
    for (body, code) in cases {
        let reply = send_v1(&app, &biz, body.clone(), None).await;
        assert_eq!((reply.status, reply.message()), (400, code), "{body}");
    }
    send_v1(&app, &biz, utility(FAN), Some(&"k".repeat(256)))
        .await
        .assert_error(400, "invalid_idempotency_key");
    send_v1(&app, &biz, utility(FAN), Some("has space"))
        .await
        .assert_error(400, "invalid_idempotency_key");
    let history = app.get("/business/messages", Some(&biz.owner_token)).await;
    assert_eq!(
        history.data()["messages"].as_array().unwrap().len(),
        0,
        "nothing was accepted"
    );
});

e2e!(the_token_must_carry_the_categorys_scope, |app| async move {
    let biz = live_business(&app, BIZ, &["utility"]).await;
    follower(&app, &biz, FAN, true).await;
    send_v1(&app, &biz, utility(FAN), None).await.assert_ok(200);
    send_v1(
        &app,
        &biz,
        json!({ "to": FAN, "category": "marketing", "body": "x" }),
        None,
    )
    .await
    .assert_error(403, "app_scope_required");
    send_v1(
        &app,
        &biz,
        json!({ "to": FAN, "category": "authentication", "message_content": { "code": "1234" } }),
        None,
    )
    .await
    .assert_error(403, "app_scope_required");
    send_service(&app, &biz, json!({ "to": FAN, "body": "hi" }), None)
        .await
        .assert_error(403, "app_scope_required");
});

e2e!(sends_need_a_live_active_business, |app| async move {
    let biz = live_business(&app, BIZ, ALL_SCOPES).await;
    follower(&app, &biz, FAN, true).await;
    app.set_business(&biz.id, Some("sandbox"), None).await;
    send_v1(&app, &biz, utility(FAN), None)
        .await
        .assert_error(403, "live_business_required");
    send_service(&app, &biz, json!({ "to": FAN, "body": "hi" }), None)
        .await
        .assert_error(403, "live_business_required");
    post_keyed(
        &app,
        "/business/messages",
        &biz.owner_token,
        utility(FAN),
        None,
    )
    .await
    .assert_error(403, "live_business_required");
    app.set_business(&biz.id, Some("live"), Some("suspended"))
        .await;
    send_v1(&app, &biz, utility(FAN), None)
        .await
        .assert_error(403, "business_suspended");
    post_keyed(
        &app,
        "/business/messages",
        &biz.owner_token,
        utility(FAN),
        None,
    )
    .await
    .assert_error(403, "business_suspended");
});

e2e!(
    tokens_are_refused_on_another_businesss_paths,
    |app| async move {
        let a = live_business(&app, BIZ, ALL_SCOPES).await;
        let b = live_business(&app, "+14155550300", ALL_SCOPES).await;
        follower(&app, &a, FAN, true).await;
        let b_on_a = Business {
            app_token: b.app_token.clone(),
            ..a
        };
        send_v1(&app, &b_on_a, utility(FAN), None)
            .await
            .assert_error(403, "app_business_mismatch");
        send_service(&app, &b_on_a, json!({ "to": FAN, "body": "hi" }), None)
            .await
            .assert_error(403, "app_business_mismatch");
        post_keyed(
            &app,
            "/v1/not-a-uuid/messages",
            &b.app_token,
            utility(FAN),
            None,
        )
        .await
        .assert_error(404, "not_found");
        post_keyed(
            &app,
            "/v1/service/12345/messages",
            &b.app_token,
            json!({ "to": FAN, "body": "x" }),
            None,
        )
        .await
        .assert_error(403, "app_business_mismatch");
        // A user access token is not an app token, and an app token is not a user token.
        send_v1(
            &app,
            &Business {
                app_token: b.owner_token.clone(),
                ..b_on_a
            },
            utility(FAN),
            None,
        )
        .await
        .assert_error(401, "invalid_app_token");
        app.get("/business/me", Some(&b.app_token))
            .await
            .assert_error(401, "unauthorized");
    }
);

e2e!(checks_run_in_the_decided_order, |app| async move {
    let biz = live_business(&app, BIZ, &["utility"]).await;
    let other = live_business(&app, "+14155550300", ALL_SCOPES).await;
    app.user(FAN).await;
    let bad = json!({ "to": FAN, "category": "nope" });
    // credential before everything
    send_v1(
        &app,
        &Business {
            app_token: "sva_x".into(),
            ..live_business(&app, "+14155550400", ALL_SCOPES).await
        },
        bad.clone(),
        None,
    )
    .await
    .assert_error(401, "invalid_app_token");
    // path business before shape
    let mismatch = Business {
        id: other.id.clone(),
        ..live_business(&app, "+14155550500", ALL_SCOPES).await
    };
    send_v1(&app, &mismatch, bad.clone(), None)
        .await
        .assert_error(403, "app_business_mismatch");
    // shape before scope
    send_v1(&app, &biz, bad, None)
        .await
        .assert_error(400, "invalid_message_category");
    // scope before live
    app.set_business(&biz.id, Some("sandbox"), None).await;
    send_v1(
        &app,
        &biz,
        json!({ "to": FAN, "category": "marketing", "body": "x" }),
        None,
    )
    .await
    .assert_error(403, "app_scope_required");
    // live before recipient
    send_v1(&app, &biz, utility("+14155550999"), None)
        .await
        .assert_error(403, "live_business_required");
    app.set_business(&biz.id, Some("live"), None).await;
    // recipient before follow
    send_v1(&app, &biz, utility("+14155550999"), None)
        .await
        .assert_error(400, "recipient_not_found");
    send_v1(&app, &biz, utility(FAN), None)
        .await
        .assert_error(403, "business_follow_required");
});

e2e!(
    an_idempotency_key_replays_the_original_id_and_sends_nothing_again,
    |app| async move {
        let biz = live_business(&app, BIZ, ALL_SCOPES).await;
        let (_, fan) = follower(&app, &biz, FAN, false).await;
        let first = send_v1(&app, &biz, utility(FAN), Some("order-42")).await;
        first.assert_ok(200);
        let id = first.data()["id"].clone();
        let again = send_v1(&app, &biz, utility(FAN), Some("order-42")).await;
        again.assert_ok(200);
        assert_eq!(again.data()["id"], id);
        // Replays answer with the original id even after the user unfollowed.
        app.request(
            reqwest::Method::DELETE,
            &format!("/businesses/{}/follow", biz.id),
            Some(&fan),
            None,
        )
        .await
        .assert_ok(200);
        assert_eq!(
            send_v1(&app, &biz, utility(FAN), Some("order-42"))
                .await
                .data()["id"],
            id
        );
        // Other content under the same key is a conflict.
        send_v1(
            &app,
            &biz,
            json!({ "to": FAN, "category": "utility", "body": "other" }),
            Some("order-42"),
        )
        .await
        .assert_error(409, "idempotency_key_conflict");
        let history = app.get("/business/messages", Some(&biz.owner_token)).await;
        assert_eq!(history.data()["messages"].as_array().unwrap().len(), 1);
        // Keys are kept 24 hours.
        app.clock.advance(Duration::from_secs(24 * 3600 + 1));
        follower(&app, &biz, "+14155550201", false).await;
        let later = send_v1(&app, &biz, utility("+14155550201"), Some("order-42")).await;
        later.assert_ok(200);
        assert_ne!(later.data()["id"], id);
    }
);

e2e!(
    a_refused_send_does_not_burn_its_idempotency_key,
    |app| async move {
        let biz = live_business(&app, BIZ, ALL_SCOPES).await;
        let (_, fan) = app.user(FAN).await;
        send_v1(&app, &biz, utility(FAN), Some("k1"))
            .await
            .assert_error(403, "business_follow_required");
        app.request(
            reqwest::Method::PUT,
            &format!("/businesses/{}/follow", biz.id),
            Some(&fan),
            Some(crate::harness::RawBody::Json(json!({}))),
        )
        .await
        .assert_ok(200);
        send_v1(&app, &biz, utility(FAN), Some("k1"))
            .await
            .assert_ok(200);
    }
);

e2e!(
    twenty_concurrent_identical_requests_create_exactly_one_message,
    |app| async move {
        let biz = live_business(&app, BIZ, ALL_SCOPES).await;
        follower(&app, &biz, FAN, false).await;
        let sends = (0..20).map(|_| send_v1(&app, &biz, utility(FAN), Some("same-key")));
        let replies = futures::future::join_all(sends).await;
        let mut ids = std::collections::HashSet::new();
        for reply in &replies {
            match reply.status {
                200 => {
                    ids.insert(reply.data()["id"].as_str().unwrap().to_string());
                }
                409 => assert_eq!(reply.message(), "idempotency_in_progress", "{}", reply.body),
                other => panic!("unexpected {other}: {}", reply.body),
            }
        }
        assert_eq!(ids.len(), 1, "{ids:?}");
        let history = app.get("/business/messages", Some(&biz.owner_token)).await;
        assert_eq!(history.data()["messages"].as_array().unwrap().len(), 1);
        // Once accepted, every retry gets the id.
        let again = send_v1(&app, &biz, utility(FAN), Some("same-key")).await;
        assert!(ids.contains(again.data()["id"].as_str().unwrap()));
    }
);

e2e!(
    service_messages_go_to_followers_once_a_minute_per_recipient,
    |app| async move {
        let biz = live_business(&app, BIZ, ALL_SCOPES).await;
        follower(&app, &biz, FAN, false).await;
        follower(&app, &biz, "+14155550201", false).await;
        app.user("+14155550202").await;
        let text = |to: &str| json!({ "to": to, "body": "Your table is ready" });
        let first = send_service(&app, &biz, text(FAN), None).await;
        first.assert_ok(200);
        assert_eq!(first.message(), "message_sent");
        let limited = send_service(&app, &biz, text(FAN), None).await;
        limited.assert_error(429, "business_send_rate_limited");
        let wait = limited.retry_after().unwrap();
        assert!((1..=60).contains(&wait), "{wait}");
        // Another recipient, and category sends, are separate.
        send_service(&app, &biz, text("+14155550201"), None)
            .await
            .assert_ok(200);
        send_v1(&app, &biz, utility(FAN), None).await.assert_ok(200);
        send_service(&app, &biz, text("+14155550202"), None)
            .await
            .assert_error(403, "business_follow_required");
        send_service(&app, &biz, json!({ "to": FAN }), None)
            .await
            .assert_error(400, "message_body_required");
        app.clock.advance(Duration::from_secs(wait - 1));
        send_service(&app, &biz, text(FAN), None)
            .await
            .assert_error(429, "business_send_rate_limited");
        app.clock.advance(Duration::from_secs(1));
        let later = send_service(&app, &biz, text(FAN), None).await;
        later.assert_ok(200);
        let record = settled(&app, &biz.owner_token, later.data()["id"].as_str().unwrap()).await;
        assert_eq!(record["source"], "service");
        assert_eq!(record["category"], "service");
        // Service sends emit no webhook event (only /v1/{id}/messages sends do).
        assert!(
            events_of(&app, &biz)
                .await
                .iter()
                .all(|e| e.data.contains("utility"))
        );
    }
);

e2e!(
    the_service_path_takes_the_number_raw_or_percent_encoded,
    |app| async move {
        let biz = live_business(&app, BIZ, ALL_SCOPES).await;
        follower(&app, &biz, FAN, false).await;
        follower(&app, &biz, "+14155550201", false).await;
        let raw = format!("/v1/service/{}/messages", biz.phone);
        post_keyed(
            &app,
            &raw,
            &biz.app_token,
            json!({ "to": FAN, "body": "a" }),
            None,
        )
        .await
        .assert_ok(200);
        send_service(
            &app,
            &biz,
            json!({ "to": "+14155550201", "body": "b" }),
            None,
        )
        .await
        .assert_ok(200);
    }
);

fn two_per_second() -> crate::harness::Options {
    crate::harness::Options {
        configure: Some(std::sync::Arc::new(|c| {
            c.limits.business_sends_per_second = 2
        })),
        ..Default::default()
    }
}

e2e!(
    the_per_business_send_limit_answers_429_with_retry_after,
    two_per_second(),
    |app| async move {
        let biz = live_business(&app, BIZ, ALL_SCOPES).await;
        follower(&app, &biz, FAN, false).await;
        send_v1(&app, &biz, utility(FAN), None).await.assert_ok(200);
        send_v1(&app, &biz, utility(FAN), None).await.assert_ok(200);
        let limited = send_v1(&app, &biz, utility(FAN), Some("after-limit")).await;
        limited.assert_error(429, "business_send_rate_limited");
        assert_eq!(limited.retry_after(), Some(1));
        app.clock.advance(Duration::from_secs(1));
        // The refused request did not keep its key.
        send_v1(&app, &biz, utility(FAN), Some("after-limit"))
            .await
            .assert_ok(200);
    }
);

e2e!(
    console_sends_follow_the_same_rules_for_any_role,
    |app| async move {
        let biz = live_business(&app, BIZ, ALL_SCOPES).await;
        let (_, member) = app.user("+14155550101").await;
        app.post(
            "/business/team",
            Some(&biz.owner_token),
            json!({ "phone_number": "+14155550101", "role": "member" }),
        )
        .await
        .assert_ok(201);
        app.user("+14155550201").await;
        follower(&app, &biz, FAN, false).await;
        let reply = post_keyed(
            &app,
            "/business/messages",
            &member,
            utility(FAN),
            Some("c1"),
        )
        .await;
        reply.assert_ok(200);
        assert_eq!(reply.message(), "message_sent");
        let again = post_keyed(
            &app,
            "/business/messages",
            &member,
            utility(FAN),
            Some("c1"),
        )
        .await;
        assert_eq!(again.data()["id"], reply.data()["id"]);
        post_keyed(
            &app,
            "/business/messages",
            &member,
            utility("+14155550201"),
            None,
        )
        .await
        .assert_error(403, "business_follow_required");
        post_keyed(
            &app,
            "/business/messages",
            &member,
            json!({ "to": FAN, "category": "marketing", "body": "x" }),
            None,
        )
        .await
        .assert_error(403, "marketing_opt_in_required");
        let record = settled(&app, &member, reply.data()["id"].as_str().unwrap()).await;
        assert_eq!(record["source"], "console");
        assert!(record["app_id"].is_null());
        // Console sends emit no webhook event.
        assert!(events_of(&app, &biz).await.is_empty());
        app.get("/business/usage", Some(&member))
            .await
            .assert_ok(200);
    }
);

e2e!(
    history_is_newest_first_and_limit_is_1_to_200,
    |app| async move {
        let biz = live_business(&app, BIZ, ALL_SCOPES).await;
        follower(&app, &biz, FAN, false).await;
        let mut ids = Vec::new();
        for _ in 0..3 {
            ids.push(send_v1(&app, &biz, utility(FAN), None).await.data()["id"].clone());
            app.clock.advance(Duration::from_millis(5));
        }
        let history = app
            .get("/business/messages?limit=2", Some(&biz.owner_token))
            .await;
        history.assert_ok(200);
        let got: Vec<Value> = history.data()["messages"]
            .as_array()
            .unwrap()
            .iter()
            .map(|m| m["id"].clone())
            .collect();
        assert_eq!(got, vec![ids[2].clone(), ids[1].clone()]);
        for bad in ["0", "201", "-1", "abc", "1.5"] {
            app.get(
                &format!("/business/messages?limit={bad}"),
                Some(&biz.owner_token),
            )
            .await
            .assert_error(400, "invalid_limit");
        }
        let all = app.get("/business/messages", Some(&biz.owner_token)).await;
        assert_eq!(all.data()["messages"].as_array().unwrap().len(), 3);
        app.get("/business/messages?limit=200", Some(&biz.owner_token))
            .await
            .assert_ok(200);
    }
);

e2e!(
    a_recipient_suspended_before_delivery_gets_a_failed_outcome_and_event,
    |app| async move {
        let biz = live_business(&app, BIZ, ALL_SCOPES).await;
        follower(&app, &biz, FAN, false).await;
        app.set_user_status(FAN, "suspended").await;
        let reply = send_v1(&app, &biz, utility(FAN), None).await;
        reply.assert_ok(200);
        let record = settled(&app, &biz.owner_token, reply.data()["id"].as_str().unwrap()).await;
        assert_eq!(record["status"], "failed");
        let events = events_of(&app, &biz).await;
        assert_eq!(events.len(), 1);
        assert_eq!(events[0].event_type, "message.failed");
        let data: Value = serde_json::from_str(&events[0].data).unwrap();
        assert_eq!(data["status"], "failed");
        assert_eq!(data["reason"], "recipient_inactive");
    }
);

e2e!(
    a_core_stopped_after_accepting_loses_nothing,
    |app| async move {
        let mut app = app;
        let biz = live_business(&app, BIZ, ALL_SCOPES).await;
        follower(&app, &biz, FAN, false).await;
        // This core only accepts: it is stopped before anything is dispatched.
        app.stop_core().await;
        let accepting = app
            .second_stack(|c| c.delivery.dispatch_concurrency = 0)
            .await;
        let reply = app
            .request_at(
                &accepting.base,
                reqwest::Method::POST,
                &format!("/v1/{}/messages", biz.id),
                Some(&biz.app_token),
                Some(utility(FAN)),
            )
            .await;
        reply.assert_ok(200);
        let id = reply.data()["id"].as_str().unwrap().to_string();
        drop(accepting);
        let history = app.core.db.clone();
        let pending =
            core_service::entities::messages::Entity::find_by_id(id.parse::<uuid::Uuid>().unwrap())
                .one(&history)
                .await
                .unwrap()
                .unwrap();
        assert_eq!(pending.status, "accepted");
        // A new core on the same database delivers it.
        let restarted = app.second_stack(|_| {}).await;
        let mut delivered = None;
        for _ in 0..500 {
            let h = app
                .request_at(
                    &restarted.base,
                    reqwest::Method::GET,
                    "/business/messages",
                    Some(&biz.owner_token),
                    None,
                )
                .await;
            let status = h.data()["messages"][0]["status"].clone();
            if status != "accepted" {
                delivered = Some(status);
                break;
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        assert_eq!(delivered, Some(json!("delivered")));
        assert_eq!(
            events_of(&app, &biz).await.len(),
            1,
            "exactly one outcome event"
        );
    }
);

e2e!(
    the_service_limit_and_the_business_limit_hold_across_two_cores,
    two_per_second(),
    |app| async move {
        let biz = live_business(&app, BIZ, ALL_SCOPES).await;
        follower(&app, &biz, FAN, false).await;
        let other = app.second_stack(|_| {}).await;
        let service_path = format!("/v1/service/{}/messages", biz.phone.replace('+', "%2B"));
        send_service(&app, &biz, json!({ "to": FAN, "body": "a" }), None)
            .await
            .assert_ok(200);
        let limited = app
            .request_at(
                &other.base,
                reqwest::Method::POST,
                &service_path,
                Some(&biz.app_token),
                Some(json!({ "to": FAN, "body": "b" })),
            )
            .await;
        limited.assert_error(429, "business_send_rate_limited");
        assert!(limited.retry_after().unwrap() >= 1);

        // Two sends per second for the business, whichever core takes them.
        app.clock.advance(Duration::from_secs(60));
        let v1 = format!("/v1/{}/messages", biz.id);
        send_v1(&app, &biz, utility(FAN), None).await.assert_ok(200);
        app.request_at(
            &other.base,
            reqwest::Method::POST,
            &v1,
            Some(&biz.app_token),
            Some(utility(FAN)),
        )
        .await
        .assert_ok(200);
        send_v1(&app, &biz, utility(FAN), None)
            .await
            .assert_error(429, "business_send_rate_limited");
    }
);

e2e!(
    team_and_sends_of_one_business_are_out_of_reach_of_another,
    |app| async move {
        let a = live_business(&app, BIZ, ALL_SCOPES).await;
        let b = live_business(&app, "+14155550300", ALL_SCOPES).await;
        let (member_id, _) = app.user("+14155550101").await;
        app.post(
            "/business/team",
            Some(&a.owner_token),
            json!({ "phone_number": "+14155550101", "role": "member" }),
        )
        .await
        .assert_ok(201);
        app.request(
            reqwest::Method::DELETE,
            &format!("/business/team/{member_id}"),
            Some(&b.owner_token),
            None,
        )
        .await
        .assert_error(400, "team_member_not_found");
        app.request(
            reqwest::Method::DELETE,
            &format!("/business/team/{}", a.id),
            Some(&b.owner_token),
            None,
        )
        .await
        .assert_error(400, "team_member_not_found");
        follower(&app, &a, FAN, false).await;
        let sent = send_v1(&app, &a, utility(FAN), Some("shared-key")).await;
        sent.assert_ok(200);
        let team_b = app.get("/business/team", Some(&b.owner_token)).await;
        assert!(!team_b.body.to_string().contains(&member_id));
        let history_b = app.get("/business/messages", Some(&b.owner_token)).await;
        assert_eq!(history_b.data()["messages"].as_array().unwrap().len(), 0);
        // Idempotency keys are per business: B's same key is its own.
        follower(&app, &b, "+14155550201", false).await;
        let b_sent = send_v1(&app, &b, utility("+14155550201"), Some("shared-key")).await;
        b_sent.assert_ok(200);
        assert_ne!(b_sent.data()["id"], sent.data()["id"]);
    }
);

e2e!(
    a_key_still_being_accepted_is_409_idempotency_in_progress,
    |app| async move {
        use core_service::entities::idempotency_keys;
        use sea_orm::{ActiveModelTrait, Set};
        let biz = live_business(&app, BIZ, ALL_SCOPES).await;
        follower(&app, &biz, FAN, false).await;
        // A finished key gives the stored form of this request's content...
        send_v1(&app, &biz, utility(FAN), Some("probe"))
            .await
            .assert_ok(200);
        let business_id: uuid::Uuid = biz.id.parse().unwrap();
        let probe = idempotency_keys::Entity::find_by_id((business_id, "probe".to_string()))
            .one(&app.core.db)
            .await
            .unwrap()
            .unwrap();
        // ...and another request that holds a key for it and has not finished accepting yet
        // makes a retry with the same content wait.
        idempotency_keys::ActiveModel {
            business_id: Set(business_id),
            key: Set("busy".into()),
            request_hash: Set(probe.request_hash),
            message_id: Set(None),
            expires_at_ms: Set(probe.expires_at_ms),
        }
        .insert(&app.core.db)
        .await
        .unwrap();
        send_v1(&app, &biz, utility(FAN), Some("busy"))
            .await
            .assert_error(409, "idempotency_in_progress");
    }
);

e2e!(
    a_send_whose_client_goes_away_leaves_a_whole_message_or_none_and_no_open_transaction,
    |app| async move {
        use core_service::entities::{idempotency_keys, messages};
        use sea_orm::{ConnectionTrait, PaginatorTrait};
        let biz = live_business(&app, BIZ, ALL_SCOPES).await;
        follower(&app, &biz, FAN, false).await;
        // Clients that hang up at every point of the request: before it is sent, while the
        // core reads, while the batch commits, after the answer.
        let rounds = 40usize;
        let cancelled: Vec<_> = (0..rounds)
            .map(|i| {
                let url = format!("{}/v1/{}/messages", app.base, biz.id);
                let request = app
                    .http
                    .post(url)
                    .header("authorization", format!("Bearer {}", biz.app_token))
                    .header("idempotency-key", format!("gone-{i}"))
                    .json(&utility(FAN));
                tokio::spawn(async move {
                    let wait = Duration::from_micros(250 * (i as u64 % 20));
                    let _ = tokio::time::timeout(wait, request.send()).await;
                })
            })
            .collect();
        for task in cancelled {
            task.await.unwrap();
        }
        // Every key retried afterwards is answered: the original message or a new one, never
        // an error, and never two messages for a key.
        let mut ids = std::collections::HashSet::new();
        for i in 0..rounds {
            let reply = send_v1(&app, &biz, utility(FAN), Some(&format!("gone-{i}"))).await;
            reply.assert_ok(200);
            assert!(ids.insert(reply.data()["id"].as_str().unwrap().to_string()));
        }
        let business_id: uuid::Uuid = biz.id.parse().unwrap();
        let stored = messages::Entity::find()
            .filter(messages::Column::BusinessId.eq(business_id))
            .count(&app.core.db)
            .await
            .unwrap();
        assert_eq!(
            stored as usize, rounds,
            "one message per key, none half-written"
        );
        let keys = idempotency_keys::Entity::find()
            .filter(idempotency_keys::Column::BusinessId.eq(business_id))
            .all(&app.core.db)
            .await
            .unwrap();
        assert_eq!(keys.len(), rounds);
        for key in keys {
            let id = key.message_id.expect("every kept key names its message");
            assert!(ids.contains(&id.to_string()), "{key:?}");
        }
        // No connection was left inside a transaction.
        if app.core.db.get_database_backend() == sea_orm::DbBackend::Postgres {
            let open = || async {
                app.core
                    .db
                    .query_one_raw(sea_orm::Statement::from_string(
                        sea_orm::DbBackend::Postgres,
                        "SELECT count(*) AS n FROM pg_stat_activity \
                         WHERE datname = current_database() AND state LIKE 'idle in transaction%'",
                    ))
                    .await
                    .unwrap()
                    .unwrap()
                    .try_get::<i64>("", "n")
                    .unwrap()
            };
            let mut left = open().await;
            for _ in 0..100 {
                if left == 0 {
                    break;
                }
                tokio::time::sleep(Duration::from_millis(20)).await;
                left = open().await;
            }
            assert_eq!(left, 0, "connections idle in a transaction");
        }
        // And the pool still works for everything else.
        let history = app
            .get("/business/messages?limit=200", Some(&biz.owner_token))
            .await;
        history.assert_ok(200);
    }
);

e2e!(
    concurrent_sends_sharing_a_commit_each_get_their_own_answer,
    |app| async move {
        let biz = live_business(&app, BIZ, ALL_SCOPES).await;
        follower(&app, &biz, FAN, false).await;
        let original = send_v1(&app, &biz, utility(FAN), Some("dup")).await;
        original.assert_ok(200);
        let original_id = original.data()["id"].as_str().unwrap().to_string();
        let other = json!({ "to": FAN, "category": "utility", "body": "Something else" });
        let text = json!({ "to": FAN, "body": "Your table is ready" });
        // Fresh sends, replays, conflicts and a per-recipient limit, all at once: whatever
        // batches they share, one send's refusal never fails another.
        let fresh = (0..10).map(|i| {
            let key = format!("fresh-{i}");
            let app = &app;
            let biz = &biz;
            async move { send_v1(app, biz, utility(FAN), Some(&key)).await }
        });
        let replays = (0..10).map(|_| send_v1(&app, &biz, utility(FAN), Some("dup")));
        let conflicts = (0..5).map(|_| send_v1(&app, &biz, other.clone(), Some("dup")));
        let services = (0..5).map(|_| send_service(&app, &biz, text.clone(), None));
        let (fresh, replays, conflicts, services) = futures::join!(
            futures::future::join_all(fresh),
            futures::future::join_all(replays),
            futures::future::join_all(conflicts),
            futures::future::join_all(services),
        );
        let mut ids = std::collections::HashSet::new();
        for reply in &fresh {
            reply.assert_ok(200);
            ids.insert(reply.data()["id"].as_str().unwrap().to_string());
        }
        assert_eq!(ids.len(), 10);
        assert!(!ids.contains(&original_id));
        for reply in &replays {
            reply.assert_ok(200);
            assert_eq!(reply.data()["id"], original_id.as_str());
        }
        for reply in &conflicts {
            reply.assert_error(409, "idempotency_key_conflict");
        }
        let sent = services.iter().filter(|r| r.status == 200).count();
        assert_eq!(sent, 1, "one service message per recipient per minute");
        for reply in services.iter().filter(|r| r.status != 200) {
            reply.assert_error(429, "business_send_rate_limited");
        }
        let history = app
            .get("/business/messages?limit=200", Some(&biz.owner_token))
            .await;
        assert_eq!(history.data()["messages"].as_array().unwrap().len(), 12);
    }
);
