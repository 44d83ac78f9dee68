//! Sends on all three paths: every rule and error code, the checks' order, the service and
//! console paths, the limits, and history.

use std::time::Duration;

use serde_json::{Value, json};

use crate::e2e;
use crate::fixtures::{
    ALL_SCOPES, Business, add_member, follower, live_business, outcome_events, post_keyed,
    send_console, send_service, send_v1, sends_per_second, settled, utility,
};

const BIZ: &str = "+14155550100";
const FAN: &str = "+14155550200";

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

        let events = outcome_events(&app, &biz).await;
        assert_eq!(events.len(), 1);
        assert_eq!(events[0].event_type.as_str(), "message.sent");
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
        send_console(&app, &biz.owner_token, auth, None)
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
    send_console(&app, &biz.owner_token, utility(FAN), None)
        .await
        .assert_error(403, "live_business_required");
    app.set_business(&biz.id, Some("live"), Some("suspended"))
        .await;
    send_v1(&app, &biz, utility(FAN), None)
        .await
        .assert_error(403, "business_suspended");
    send_console(&app, &biz.owner_token, utility(FAN), None)
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
            outcome_events(&app, &biz)
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

e2e!(
    the_per_business_send_limit_answers_429_with_retry_after,
    sends_per_second(2),
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
        let (member_id, member) = app.user("+14155550101").await;
        add_member(&app, &biz.owner_token, "+14155550101", "member").await;
        app.user("+14155550201").await;
        follower(&app, &biz, FAN, false).await;
        let reply = send_console(&app, &member, utility(FAN), Some("c1")).await;
        reply.assert_ok(200);
        assert_eq!(reply.message(), "message_sent");
        let again = send_console(&app, &member, utility(FAN), Some("c1")).await;
        assert_eq!(again.data()["id"], reply.data()["id"]);
        send_console(&app, &member, utility("+14155550201"), None)
            .await
            .assert_error(403, "business_follow_required");
        send_console(
            &app,
            &member,
            json!({ "to": FAN, "category": "marketing", "body": "x" }),
            None,
        )
        .await
        .assert_error(403, "marketing_opt_in_required");
        let record = settled(&app, &member, reply.data()["id"].as_str().unwrap()).await;
        assert_eq!(record["source"], "console");
        assert!(record["app_id"].is_null());
        // Who sent it: the member.
        assert_eq!(record["sent_by"], member_id.as_str());
        // Console sends emit no webhook event.
        assert!(outcome_events(&app, &biz).await.is_empty());
        let app_sent = send_v1(&app, &biz, utility(FAN), None).await;
        let app_record = settled(&app, &member, app_sent.data()["id"].as_str().unwrap()).await;
        assert!(app_record["sent_by"].is_null());
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
    team_and_sends_of_one_business_are_out_of_reach_of_another,
    |app| async move {
        let a = live_business(&app, BIZ, ALL_SCOPES).await;
        let b = live_business(&app, "+14155550300", ALL_SCOPES).await;
        let (member_id, _) = app.user("+14155550101").await;
        add_member(&app, &a.owner_token, "+14155550101", "member").await;
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
