//! Broadcasts (DESIGN, "Broadcasts"): one message to the business's audience, fixed when it
//! starts; consent checked again per recipient; counts, states, cancel, scheduling, the
//! Idempotency-Key shared with sends, `broadcast.completed` once, `to` null in history, a
//! business suspended mid-run, a core crashing mid-run, and single sends overtaking a running
//! broadcast.

use std::time::Duration;

use sea_orm::EntityTrait;
use serde_json::{Value, json};

use core_service::clock::Clock;

use crate::e2e;
use crate::fixtures::broadcasts::{
    accepted_at_least, announcement, assert_counts, audience, completed, create, created, fan,
    messages_of, read, slow,
};
use crate::fixtures::{
    ALL_SCOPES, Receiver, add_member, follow_call, follower, live_business, post_keyed,
    register_webhook, send_v1, utility,
};
use crate::harness::{eventually, quiet_for};

const BIZ: &str = "+14155550100";
const OTHER: &str = "+14155550190";

e2e!(
    a_utility_broadcast_reaches_every_follower_once_and_completes_with_its_events,
    |app| async move {
        let receiver = Receiver::start().await;
        let biz = live_business(&app, BIZ, ALL_SCOPES).await;
        let fans = audience(&app, &biz, 5, 2).await;
        // Someone who unfollowed before it started is not in the audience.
        let (_, gone) = follower(&app, &biz, &fan(9), true).await;
        follow_call(&app, &gone, &biz, reqwest::Method::DELETE, json!({})).await;
        register_webhook(
            &app,
            &biz,
            &receiver.url(),
            &["message.sent", "message.failed", "broadcast.completed"],
        )
        .await;

        let b = created(&app, &biz, announcement()).await;
        assert_eq!(b["status"], "running");
        assert_eq!(b["name"], "December hours");
        assert_eq!(b["category"], "utility");
        assert_eq!(b["body"], announcement()["body"], "its content");
        assert_eq!(b["message_content"], serde_json::Value::Null);
        assert_eq!(b["max_per_second"], 1000, "half of the default send budget");
        assert!(b["send_at"].is_null() && b["completed_at"].is_null());
        let id = b["id"].as_str().unwrap().to_string();

        let done = completed(&app, &biz.owner_token, &id).await;
        assert_eq!(done["status"], "completed");
        assert_counts(&done, 5, 5, 0, 0);
        assert_eq!(done["counts"]["delivered"], 5);
        assert_eq!(done["counts"]["failed"], 0);

        // Each follower got exactly one message, an ordinary message of the history.
        let stored = messages_of(&app, &id).await;
        let mut recipients: Vec<String> = stored
            .iter()
            .map(|m| m.recipient_user_id.to_string())
            .collect();
        recipients.sort();
        let mut expected = fans.clone();
        expected.sort();
        assert_eq!(recipients, expected);
        let history = app
            .get(
                "/business/messages?source=broadcast",
                Some(&biz.owner_token),
            )
            .await;
        history.assert_ok(200);
        let entries = history.data()["messages"].as_array().unwrap().clone();
        assert_eq!(entries.len(), 5);
        for entry in &entries {
            assert!(entry["to"].is_null(), "a broadcast hides numbers: {entry}");
            assert_eq!(entry["broadcast_id"], id.as_str());
            assert_eq!(entry["source"], "broadcast");
            assert!(entry["sent_by"].is_null());
            assert_eq!(entry["status"], "delivered");
            assert_eq!(entry["category"], "utility");
        }
        // A single send's entry keeps its number and has no broadcast.
        follower(&app, &biz, &fan(7), false).await;
        send_v1(&app, &biz, utility(&fan(7)), None)
            .await
            .assert_ok(200);
        let all = app.get("/business/messages", Some(&biz.owner_token)).await;
        let single = &all.data()["messages"][0];
        assert_eq!(single["to"], fan(7).as_str());
        assert!(single["broadcast_id"].is_null());

        // One message.sent per message with its broadcast, then one broadcast.completed.
        let received = receiver.wait_for(7).await;
        let of_type = |t: &str| -> Vec<Value> {
            received
                .iter()
                .map(|r| r.json())
                .filter(|p| p["type"] == t)
                .collect()
        };
        let sent = of_type("message.sent");
        let from_broadcast: Vec<&Value> = sent
            .iter()
            .filter(|p| p["data"]["broadcast_id"] == id.as_str())
            .collect();
        assert_eq!(from_broadcast.len(), 5, "{sent:?}");
        assert!(sent.iter().any(|p| p["data"]["broadcast_id"].is_null()));
        let completions = of_type("broadcast.completed");
        assert_eq!(completions.len(), 1);
        let event = &completions[0]["data"];
        assert_eq!(event["broadcast_id"], id.as_str());
        assert_eq!(event["status"], "completed");
        assert_eq!(event["counts"], done["counts"]);
        quiet_for(Duration::from_millis(300)).await;
        assert_eq!(
            receiver.received().len(),
            7,
            "broadcast.completed exactly once"
        );

        // Usage counts broadcast messages like any message.
        let usage = app.get("/business/usage", Some(&biz.owner_token)).await;
        assert_eq!(usage.data()["messages"]["total"], 6);
        assert_eq!(usage.data()["messages"]["by_category"]["utility"], 6);
        assert_eq!(usage.data()["messages"]["delivered"], 6);

        // Listed newest first, filtered by status.
        let listed = app
            .get(
                "/business/broadcasts?status=completed",
                Some(&biz.owner_token),
            )
            .await;
        listed.assert_ok(200);
        assert_eq!(listed.data()["broadcasts"][0]["id"], id.as_str());
        assert_eq!(listed.data()["has_more"], false);
        let none = app
            .get(
                "/business/broadcasts?status=running",
                Some(&biz.owner_token),
            )
            .await;
        assert_eq!(none.data()["broadcasts"], json!([]));
    }
);

e2e!(
    a_marketing_broadcast_reaches_only_those_opted_in_and_skips_the_others,
    |app| async move {
        let biz = live_business(&app, BIZ, ALL_SCOPES).await;
        audience(&app, &biz, 6, 2).await;
        let reply = post_keyed(
            &app,
            &format!("/v1/{}/broadcasts", biz.id),
            &biz.app_token,
            json!({
                "name": "Winter sale",
                "category": "marketing",
                "message_content": {"text": "20% off this weekend", "title": "Sale"},
            }),
            None,
        )
        .await;
        reply.assert_ok(201);
        let id = reply.data()["id"].as_str().unwrap().to_string();
        let done = completed(&app, &biz.owner_token, &id).await;
        assert_counts(&done, 6, 2, 4, 0);
        assert_eq!(done["counts"]["delivered"], 2);
        assert_eq!(
            done["message_content"],
            json!({"text": "20% off this weekend", "title": "Sale"}),
            "its content"
        );
        assert_eq!(done["body"], serde_json::Value::Null);
        assert_eq!(messages_of(&app, &id).await.len(), 2);
        // An app token of the business reads it, with any scope.
        let by_app = app
            .request(
                reqwest::Method::GET,
                &format!("/v1/{}/broadcasts/{id}", biz.id),
                Some(&biz.app_token),
                None,
            )
            .await;
        by_app.assert_ok(200);
        assert_eq!(by_app.data()["counts"], done["counts"]);
    }
);

e2e!(an_empty_audience_completes_at_once, |app| async move {
    let receiver = Receiver::start().await;
    let biz = live_business(&app, BIZ, ALL_SCOPES).await;
    register_webhook(&app, &biz, &receiver.url(), &["broadcast.completed"]).await;
    let b = created(&app, &biz, announcement()).await;
    let done = completed(&app, &biz.owner_token, b["id"].as_str().unwrap()).await;
    assert_eq!(done["status"], "completed");
    assert_counts(&done, 0, 0, 0, 0);
    let received = receiver.wait_for(1).await;
    assert_eq!(received[0].json()["data"]["counts"]["audience"], 0);
});

e2e!(
    a_scheduled_broadcast_waits_for_its_time_and_can_be_canceled_once,
    |app| async move {
        let receiver = Receiver::start().await;
        let biz = live_business(&app, BIZ, ALL_SCOPES).await;
        audience(&app, &biz, 3, 0).await;
        register_webhook(&app, &biz, &receiver.url(), &["broadcast.completed"]).await;
        let at = |secs: i64| {
            (app.clock.now() + chrono::TimeDelta::seconds(secs))
                .to_rfc3339_opts(chrono::SecondsFormat::Secs, true)
        };
        let mut later = announcement();
        later["send_at"] = json!(at(3600));
        let b = created(&app, &biz, later.clone()).await;
        assert_eq!(b["status"], "scheduled");
        assert!(b["counts"]["audience"].is_null(), "{b}");
        assert_eq!(b["counts"]["accepted"], 0);
        let id = b["id"].as_str().unwrap().to_string();
        quiet_for(Duration::from_millis(1500)).await;
        assert_eq!(
            read(&app, &biz.owner_token, &id).await["status"],
            "scheduled"
        );

        // Canceled before it starts: nothing is created, and it completes at once.
        let canceled = app
            .post(
                &format!("/business/broadcasts/{id}/cancel"),
                Some(&biz.owner_token),
                json!({}),
            )
            .await;
        canceled.assert_ok(200);
        assert_eq!(canceled.data()["status"], "canceled");
        assert!(!canceled.data()["completed_at"].is_null());
        assert!(canceled.data()["counts"]["audience"].is_null());
        assert_eq!(canceled.data()["counts"]["not_created"], 0);
        app.post(
            &format!("/business/broadcasts/{id}/cancel"),
            Some(&biz.owner_token),
            json!({}),
        )
        .await
        .assert_error(409, "broadcast_not_cancelable");
        let received = receiver.wait_for(1).await;
        assert_eq!(received[0].json()["data"]["status"], "canceled");

        // Another one goes out once its time has come.
        later["send_at"] = json!(at(60));
        let b = created(&app, &biz, later).await;
        let id = b["id"].as_str().unwrap().to_string();
        app.clock.advance(Duration::from_secs(61));
        let done = completed(&app, &biz.owner_token, &id).await;
        assert_eq!(done["status"], "completed");
        assert_counts(&done, 3, 3, 0, 0);
        // Completed: no longer cancelable, with an app token either.
        let path = format!("/v1/{}/broadcasts/{id}/cancel", biz.id);
        post_keyed(&app, &path, &biz.app_token, json!({}), None)
            .await
            .assert_error(409, "broadcast_not_cancelable");
    }
);

e2e!(
    a_broadcast_canceled_while_running_keeps_what_it_created,
    |app| async move {
        let receiver = Receiver::start().await;
        let biz = live_business(&app, BIZ, ALL_SCOPES).await;
        audience(&app, &biz, 10, 0).await;
        register_webhook(&app, &biz, &receiver.url(), &["broadcast.completed"]).await;
        let b = created(&app, &biz, slow("Paced")).await;
        let id = b["id"].as_str().unwrap().to_string();
        accepted_at_least(&app, &biz.owner_token, &id, 2).await;
        let path = format!("/v1/{}/broadcasts/{id}/cancel", biz.id);
        let canceled = post_keyed(&app, &path, &biz.app_token, json!({}), None).await;
        canceled.assert_ok(200);
        assert_eq!(canceled.data()["status"], "canceled");
        let done = completed(&app, &biz.owner_token, &id).await;
        assert_eq!(done["status"], "canceled");
        let accepted = done["counts"]["accepted"].as_i64().unwrap();
        assert!((2..10).contains(&accepted), "{done}");
        assert_counts(&done, 10, accepted, 0, 10 - accepted);
        assert_eq!(done["counts"]["delivered"], accepted);
        // Nothing more is created after the cancel.
        quiet_for(Duration::from_millis(1500)).await;
        assert_eq!(messages_of(&app, &id).await.len() as i64, accepted);
        let received = receiver.wait_for(1).await;
        assert_eq!(received[0].json()["data"]["status"], "canceled");
        assert_eq!(received[0].json()["data"]["counts"], done["counts"]);
    }
);

e2e!(
    a_follower_who_withdraws_mid_run_is_skipped,
    |app| async move {
        let biz = live_business(&app, BIZ, ALL_SCOPES).await;
        let mut fans: Vec<(String, String)> = Vec::new();
        for i in 0..6 {
            fans.push(follower(&app, &biz, &fan(i), true).await);
        }
        // The runner goes through the audience in user id order: the last one withdraws.
        fans.sort();
        let (last_id, last_token) = fans.last().unwrap().clone();
        let mut body = slow("Sale");
        body["category"] = json!("marketing");
        let b = created(&app, &biz, body).await;
        let id = b["id"].as_str().unwrap().to_string();
        accepted_at_least(&app, &biz.owner_token, &id, 1).await;
        follow_call(
            &app,
            &last_token,
            &biz,
            reqwest::Method::PATCH,
            json!({ "marketing_opt_in": false }),
        )
        .await;
        let done = completed(&app, &biz.owner_token, &id).await;
        assert_counts(&done, 6, 5, 1, 0);
        let reached: Vec<String> = messages_of(&app, &id)
            .await
            .iter()
            .map(|m| m.recipient_user_id.to_string())
            .collect();
        assert!(!reached.contains(&last_id));
    }
);

e2e!(
    a_broadcast_ends_canceled_when_its_business_is_suspended_mid_run,
    |app| async move {
        let biz = live_business(&app, BIZ, ALL_SCOPES).await;
        audience(&app, &biz, 8, 0).await;
        let b = created(&app, &biz, slow("Paced")).await;
        let id = b["id"].as_str().unwrap().to_string();
        accepted_at_least(&app, &biz.owner_token, &id, 2).await;
        app.set_business(&biz.id, None, Some("suspended")).await;
        let id_ = id.clone();
        let done = eventually("the broadcast ended", async || {
            let stored = core_service::entities::broadcasts::Entity::find_by_id(
                id_.parse::<uuid::Uuid>().unwrap(),
            )
            .one(&app.core.db)
            .await
            .unwrap()
            .unwrap();
            stored.completed_at.is_some().then_some(stored)
        })
        .await;
        assert_eq!(done.status.as_str(), "canceled");
        assert!(done.accepted >= 2 && done.accepted < 8, "{done:?}");
        assert_eq!(done.audience, Some(8));
        assert_eq!(done.not_created, 8 - done.accepted);
        assert_eq!(done.delivered + done.failed, done.accepted);
        assert_eq!(messages_of(&app, &id).await.len() as i64, done.accepted);
    }
);

e2e!(
    broadcast_creation_is_idempotent_in_the_key_space_of_sends,
    |app| async move {
        let biz = live_business(&app, BIZ, ALL_SCOPES).await;
        follower(&app, &biz, &fan(0), false).await;
        let first = create(&app, &biz, announcement(), Some("k-1")).await;
        first.assert_ok(201);
        let again = create(&app, &biz, announcement(), Some("k-1")).await;
        again.assert_ok(201);
        assert_eq!(again.data()["id"], first.data()["id"]);
        let mut other = announcement();
        other["name"] = json!("Another");
        create(&app, &biz, other, Some("k-1"))
            .await
            .assert_error(409, "idempotency_key_conflict");
        // A key of a broadcast is not a send's, and the other way round.
        send_v1(&app, &biz, utility(&fan(0)), Some("k-1"))
            .await
            .assert_error(409, "idempotency_key_conflict");
        send_v1(&app, &biz, utility(&fan(0)), Some("k-2"))
            .await
            .assert_ok(200);
        create(&app, &biz, announcement(), Some("k-2"))
            .await
            .assert_error(409, "idempotency_key_conflict");
        // The replay answers the broadcast as it is now.
        let id = first.data()["id"].as_str().unwrap().to_string();
        let done = completed(&app, &biz.owner_token, &id).await;
        let replay = create(&app, &biz, announcement(), Some("k-1")).await;
        replay.assert_ok(201);
        assert_eq!(replay.data()["status"], "completed");
        assert_eq!(replay.data()["counts"], done["counts"]);
        let listed = app
            .get("/business/broadcasts", Some(&biz.owner_token))
            .await;
        assert_eq!(listed.data()["broadcasts"].as_array().unwrap().len(), 1);
    }
);

e2e!(
    broadcast_requests_are_checked_with_clear_errors,
    |app| async move {
        let biz = live_business(&app, BIZ, &["utility"]).await;
        let token = biz.owner_token.clone();
        let post = async |body: Value| create(&app, &biz, body, None).await;
        let with = |field: &str, value: Value| {
            let mut body = announcement();
            body[field] = value;
            body
        };
        post(with("name", json!("")))
            .await
            .assert_error(400, "invalid_request");
        post(with("name", json!("x".repeat(101))))
            .await
            .assert_error(400, "invalid_request");
        post(with("name", json!(7)))
            .await
            .assert_error(400, "invalid_request");
        for category in ["authentication", "service", "sms"] {
            post(with("category", json!(category)))
                .await
                .assert_error(400, "invalid_message_category");
        }
        post(json!({"name": "n", "category": "utility"}))
            .await
            .assert_error(400, "message_body_required");
        post(json!({"name": "n", "category": "marketing"}))
            .await
            .assert_error(400, "invalid_message_content");
        for pace in [json!(0), json!(1001), json!(2.5), json!("10")] {
            let reply = post(with("max_per_second", pace.clone())).await;
            reply.assert_error(400, "invalid_request");
            assert!(
                reply.body["detail"]
                    .as_str()
                    .unwrap()
                    .contains("max_per_second"),
                "{pace}"
            );
        }
        post(with("max_per_second", json!(1000)))
            .await
            .assert_ok(201);
        post(with("send_at", json!("tomorrow")))
            .await
            .assert_error(400, "invalid_request");
        let far = (app.clock.now() + chrono::TimeDelta::days(31)).to_rfc3339();
        post(with("send_at", json!(far)))
            .await
            .assert_error(400, "invalid_request");
        post(with("expires_at", json!(far)))
            .await
            .assert_error(400, "invalid_request");
        create(&app, &biz, announcement(), Some("bad key"))
            .await
            .assert_error(400, "invalid_idempotency_key");

        // Owner or admin only; any role reads.
        let (_, member) = app.user(OTHER).await;
        add_member(&app, &token, OTHER, "member").await;
        post_keyed(&app, "/business/broadcasts", &member, announcement(), None)
            .await
            .assert_error(403, "insufficient_role");
        app.get("/business/broadcasts", Some(&member))
            .await
            .assert_ok(200);

        // The app token needs the category's scope, and its own business.
        let v1 = format!("/v1/{}/broadcasts", biz.id);
        let mut sale = announcement();
        sale["category"] = json!("marketing");
        post_keyed(&app, &v1, &biz.app_token, sale, None)
            .await
            .assert_error(403, "app_scope_required");
        let elsewhere = format!("/v1/{}/broadcasts", uuid::Uuid::new_v4());
        post_keyed(&app, &elsewhere, &biz.app_token, announcement(), None)
            .await
            .assert_error(403, "app_business_mismatch");
        post_keyed(&app, &v1, "sva_nope", announcement(), None)
            .await
            .assert_error(401, "invalid_app_token");

        // Unknown ids, filters and cursors.
        let nobody = uuid::Uuid::new_v4();
        app.get(&format!("/business/broadcasts/{nobody}"), Some(&token))
            .await
            .assert_error(404, "broadcast_not_found");
        app.post(
            &format!("/business/broadcasts/{nobody}/cancel"),
            Some(&token),
            json!({}),
        )
        .await
        .assert_error(404, "broadcast_not_found");
        app.request(
            reqwest::Method::GET,
            &format!("/v1/{}/broadcasts/{nobody}", biz.id),
            Some(&biz.app_token),
            None,
        )
        .await
        .assert_error(404, "broadcast_not_found");
        app.get("/business/broadcasts?status=done", Some(&token))
            .await
            .assert_error(400, "invalid_request");
        app.get(
            &format!("/business/broadcasts?starting_after={nobody}"),
            Some(&token),
        )
        .await
        .assert_error(400, "invalid_request");
        app.get("/business/broadcasts?limit=0", Some(&token))
            .await
            .assert_error(400, "invalid_limit");

        // A sandbox business cannot broadcast.
        app.set_business(&biz.id, Some("sandbox"), None).await;
        post(announcement())
            .await
            .assert_error(403, "live_business_required");
    }
);

e2e!(broadcasts_page_newest_first, |app| async move {
    let biz = live_business(&app, BIZ, ALL_SCOPES).await;
    let mut ids = Vec::new();
    for i in 0..5 {
        let mut body = announcement();
        body["name"] = json!(format!("b{i}"));
        ids.push(
            created(&app, &biz, body).await["id"]
                .as_str()
                .unwrap()
                .to_string(),
        );
    }
    ids.reverse();
    let first = app
        .get("/business/broadcasts?limit=3", Some(&biz.owner_token))
        .await;
    first.assert_ok(200);
    let page: Vec<&str> = first.data()["broadcasts"]
        .as_array()
        .unwrap()
        .iter()
        .map(|b| b["id"].as_str().unwrap())
        .collect();
    assert_eq!(
        page,
        ids[..3].iter().map(String::as_str).collect::<Vec<_>>()
    );
    assert_eq!(first.data()["has_more"], true);
    let next = app
        .get(
            &format!("/business/broadcasts?limit=3&starting_after={}", ids[2]),
            Some(&biz.owner_token),
        )
        .await;
    let page: Vec<&str> = next.data()["broadcasts"]
        .as_array()
        .unwrap()
        .iter()
        .map(|b| b["id"].as_str().unwrap())
        .collect();
    assert_eq!(
        page,
        ids[3..].iter().map(String::as_str).collect::<Vec<_>>()
    );
    assert_eq!(next.data()["has_more"], false);
});
