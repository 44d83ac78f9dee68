//! Conversations, the business's side (SPEC-MATRIX, fourth round): replies and their checks in
//! the decided order (the window by the injected clock), read marks on both sides with
//! `message.read`, status, assignment, labels, and the `/v1/{businessAccountId}/conversations`
//! twins.

use std::time::Duration;

use serde_json::{Value, json};

use crate::conversations::{FAN, conversations, started, thread, wrote};
use crate::e2e;
use crate::fixtures::{
    ALL_SCOPES, Business, add_member, follower, live_business, post_keyed, register_webhook,
    send_service, settled,
};
use crate::harness::{TestApp, eventually};

/// Signs `phone` in again (after the clock moved past the access token's life).
async fn token(app: &TestApp, phone: &str) -> String {
    app.login(phone).await["access_token"]
        .as_str()
        .unwrap()
        .to_string()
}

async fn reply(
    app: &TestApp,
    biz: &Business,
    conversation: &str,
    body: Value,
    key: Option<&str>,
) -> crate::harness::Reply {
    post_keyed(
        app,
        &format!("/business/conversations/{conversation}/messages"),
        &biz.owner_token,
        body,
        key,
    )
    .await
}

async fn check(
    app: &TestApp,
    biz: &Business,
    conversation: &str,
    body: Value,
) -> crate::harness::Reply {
    app.post(
        &format!("/business/conversations/{conversation}/messages/check"),
        Some(&biz.owner_token),
        body,
    )
    .await
}

e2e!(
    free_text_goes_inside_the_window_and_a_category_message_after_it,
    |app| async move {
        let (mut biz, _, _, conversation) = started(&app).await;
        let text = json!({ "text": "It ships today." });
        check(&app, &biz, &conversation, text.clone())
            .await
            .assert_ok(200);
        let sent = reply(&app, &biz, &conversation, text.clone(), None).await;
        sent.assert_ok(200);
        assert_eq!(sent.message(), "message_sent");
        assert_eq!(sent.data()["status"], "sent");
        let id = sent.data()["id"].as_str().unwrap().to_string();
        let record = settled(&app, &biz.owner_token, &id).await;
        assert_eq!(record["category"], "service");
        assert_eq!(record["status"], "delivered");
        // What was sent, without the number: history and the message read.
        assert_eq!(record["to"], Value::Null);
        assert_eq!(record["conversation_id"], conversation.as_str());
        assert_eq!(record["body"], "It ships today.");
        assert_eq!(record["message_content"], Value::Null);
        let one = app
            .get(&format!("/business/messages/{id}"), Some(&biz.owner_token))
            .await;
        one.assert_ok(200);
        assert_eq!(one.data(), &record);
        assert!(!one.body.to_string().contains(&FAN[1..]));

        // A business reply never extends the window: it closes 24 h after the user's message.
        app.clock.advance(Duration::from_secs(23 * 3600));
        biz.owner_token = token(&app, &biz.phone).await;
        reply(
            &app,
            &biz,
            &conversation,
            json!({ "text": "Still there?" }),
            None,
        )
        .await
        .assert_ok(200);
        app.clock.advance(Duration::from_secs(3600));
        biz.owner_token = token(&app, &biz.phone).await;
        let closed = reply(&app, &biz, &conversation, text.clone(), None).await;
        closed.assert_error(403, "service_window_closed");
        let detail = closed.body["detail"].as_str().unwrap();
        let list = conversations(&app, &biz.owner_token, "").await;
        let c = &list["conversations"][0];
        assert!(
            detail.contains(c["last_inbound_at"].as_str().unwrap())
                && detail.contains(c["window_expires_at"].as_str().unwrap()),
            "the detail names the user's last message and when the window closed: {detail}"
        );
        check(&app, &biz, &conversation, text.clone())
            .await
            .assert_error(403, "service_window_closed");
        // A utility message to a follower still goes; marketing needs the opt-in.
        let utility = json!({ "category": "utility", "body": "Your parcel is at the depot." });
        check(&app, &biz, &conversation, utility.clone())
            .await
            .assert_ok(200);
        reply(&app, &biz, &conversation, utility, None)
            .await
            .assert_ok(200);
        reply(
            &app,
            &biz,
            &conversation,
            json!({ "category": "marketing", "body": "20% off" }),
            None,
        )
        .await
        .assert_error(403, "marketing_opt_in_required");
        // The window state the lists filter on.
        let open = conversations(&app, &biz.owner_token, "?window=open").await;
        assert_eq!(open["conversations"], json!([]));
        let shut = conversations(&app, &biz.owner_token, "?window=closed").await;
        assert_eq!(shut["conversations"].as_array().unwrap().len(), 1);
        // A user message opens it again.
        let fan = token(&app, FAN).await;
        wrote(&app, &fan, &biz.id, "Hello again").await;
        reply(&app, &biz, &conversation, text, None)
            .await
            .assert_ok(200);
        let open = conversations(&app, &biz.owner_token, "?window=open").await;
        assert_eq!(open["conversations"].as_array().unwrap().len(), 1);
    }
);

e2e!(a_reply_is_checked_in_the_decided_order, |app| async move {
    let (mut biz, _, _, conversation) = started(&app).await;
    for (body, code) in [
        (
            json!({ "category": "service", "body": "x" }),
            "invalid_message_category",
        ),
        (
            json!({ "category": "authentication", "message_content": { "code": "123456" } }),
            "invalid_message_category",
        ),
        (json!({}), "invalid_message_category"),
        (
            json!({ "text": "x", "category": "utility" }),
            "invalid_request",
        ),
        (json!({ "text": "" }), "invalid_request"),
        (
            json!({ "text": "x", "send_at": "2030-01-01T00:00:00Z" }),
            "invalid_request",
        ),
        (
            json!({ "category": "utility", "body": "x", "expires_at": "2030-01-01T00:00:00Z" }),
            "invalid_request",
        ),
        (
            json!({ "text": "x", "reply_to": "00000000-0000-7000-8000-000000000000" }),
            "invalid_request",
        ),
        (json!({ "category": "utility" }), "message_body_required"),
    ] {
        let answer = reply(&app, &biz, &conversation, body.clone(), None).await;
        assert_eq!((answer.status, answer.message()), (400, code), "{body}");
    }
    // A reply_to of the thread (the user's message) is taken and shown.
    let entries = thread(&app, &biz.owner_token, &conversation).await;
    let theirs = entries[0]["id"].as_str().unwrap();
    let answered = reply(
        &app,
        &biz,
        &conversation,
        json!({ "text": "Hi!", "reply_to": theirs }),
        None,
    )
    .await;
    answered.assert_ok(200);
    let entries = thread(&app, &biz.owner_token, &conversation).await;
    assert_eq!(entries[0]["direction"], "outbound");
    assert_eq!(entries[0]["reply_to"], theirs);
    assert_eq!(entries[0]["category"], "service");
    assert_eq!(entries[0]["conversation_id"], conversation.as_str());

    // An Idempotency-Key answers the first result, even after the window closed.
    app.clock.advance(Duration::from_secs(12 * 3600));
    biz.owner_token = token(&app, &biz.phone).await;
    let keyed = json!({ "text": "Keyed" });
    let first = reply(&app, &biz, &conversation, keyed.clone(), Some("k-1")).await;
    first.assert_ok(200);
    app.clock.advance(Duration::from_secs(13 * 3600));
    biz.owner_token = token(&app, &biz.phone).await;
    let fan = token(&app, FAN).await;
    let again = reply(&app, &biz, &conversation, keyed, Some("k-1")).await;
    again.assert_ok(200);
    assert_eq!(again.data()["id"], first.data()["id"]);
    reply(
        &app,
        &biz,
        &conversation,
        json!({ "text": "Other" }),
        Some("k-1"),
    )
    .await
    .assert_error(409, "idempotency_key_conflict");

    // A user who unfollowed gets no free text (the follow is checked before the window).
    wrote(&app, &fan, &biz.id, "bye").await;
    app.request(
        reqwest::Method::DELETE,
        &format!("/businesses/{}/follow", biz.id),
        Some(&fan),
        None,
    )
    .await
    .assert_ok(200);
    reply(&app, &biz, &conversation, json!({ "text": "Wait!" }), None)
        .await
        .assert_error(403, "business_follow_required");
    reply(
        &app,
        &biz,
        &conversation,
        json!({ "category": "utility", "body": "x" }),
        None,
    )
    .await
    .assert_error(403, "business_follow_required");
    // A sandbox business cannot reply.
    app.set_business(&biz.id, Some("sandbox"), None).await;
    reply(&app, &biz, &conversation, json!({ "text": "x" }), None)
        .await
        .assert_error(403, "live_business_required");
});

e2e!(
    replies_per_conversation_are_limited_exactly,
    crate::harness::Options {
        configure: Some(std::sync::Arc::new(|c| c.limits.replies_per_minute = 2)),
        ..Default::default()
    },
    |app| async move {
        let (biz, _, _, conversation) = started(&app).await;
        for i in 0..2 {
            reply(
                &app,
                &biz,
                &conversation,
                json!({ "text": format!("{i}") }),
                None,
            )
            .await
            .assert_ok(200);
        }
        let refused = reply(&app, &biz, &conversation, json!({ "text": "2" }), None).await;
        refused.assert_error(429, "business_send_rate_limited");
        assert!(refused.retry_after().is_some());
        check(&app, &biz, &conversation, json!({ "text": "2" }))
            .await
            .assert_error(429, "business_send_rate_limited");
        // Another conversation has its own.
        let (_, other) = follower(&app, &biz, "+14155550202", false).await;
        let theirs = wrote(&app, &other, &biz.id, "me too").await;
        let id = theirs["conversation_id"].as_str().unwrap();
        reply(&app, &biz, id, json!({ "text": "hello" }), None)
            .await
            .assert_ok(200);
        app.clock.advance(Duration::from_secs(60));
        reply(&app, &biz, &conversation, json!({ "text": "later" }), None)
            .await
            .assert_ok(200);
    }
);

e2e!(
    conversation_replies_neither_count_nor_are_counted_by_the_service_rule,
    |app| async move {
        let (biz, _, _, conversation) = started(&app).await;
        reply(&app, &biz, &conversation, json!({ "text": "first" }), None)
            .await
            .assert_ok(200);
        let service = send_service(
            &app,
            &biz,
            json!({ "to": FAN, "body": "A service note" }),
            None,
        )
        .await;
        service.assert_ok(200);
        reply(&app, &biz, &conversation, json!({ "text": "second" }), None)
            .await
            .assert_ok(200);
        // The rule itself still holds between /v1/service sends.
        send_service(&app, &biz, json!({ "to": FAN, "body": "Too soon" }), None)
            .await
            .assert_error(429, "business_send_rate_limited");
    }
);

e2e!(
    outcome_events_of_conversation_messages_carry_the_conversation,
    |app| async move {
        let (biz, user_id, _, conversation) = started(&app).await;
        let receiver = crate::fixtures::Receiver::start().await;
        register_webhook(
            &app,
            &biz,
            &receiver.url(),
            &["message.sent", "message.failed"],
        )
        .await;
        app.start_worker();
        let sent = reply(
            &app,
            &biz,
            &conversation,
            json!({ "text": "Hello from the console" }),
            None,
        )
        .await;
        sent.assert_ok(200);
        let got = receiver.wait_for(1).await;
        let payload = got[0].json();
        assert_eq!(payload["type"], "message.sent");
        assert_eq!(payload["data"]["message_send_id"], sent.data()["id"]);
        assert_eq!(payload["data"]["conversation_id"], conversation.as_str());
        assert_eq!(payload["data"]["recipient_user_id"], user_id.as_str());
        assert!(!payload.to_string().contains(&FAN[1..]));
        // Activity moved with the reply.
        let c = conversations(&app, &biz.owner_token, "").await["conversations"][0].clone();
        assert!(c["last_message_at"].as_str() >= c["last_inbound_at"].as_str());
    }
);

e2e!(
    read_marks_never_move_back_and_show_on_the_other_side,
    |app| async move {
        let (biz, _, fan, conversation) = started(&app).await;
        let receiver = crate::fixtures::Receiver::start().await;
        register_webhook(&app, &biz, &receiver.url(), &["message.read"]).await;
        app.start_worker();
        app.clock.advance(Duration::from_secs(1));
        let second = wrote(&app, &fan, &biz.id, "two").await;
        app.clock.advance(Duration::from_secs(1));
        let third = wrote(&app, &fan, &biz.id, "three").await;
        let read = format!("/business/conversations/{conversation}/read");
        let mark = app
            .post(
                &read,
                Some(&biz.owner_token),
                json!({ "up_to": second["id"] }),
            )
            .await;
        mark.assert_ok(200);
        assert_eq!(mark.data()["read_up_to"], second["id"]);
        let read_at = mark.data()["read_at"].clone();
        let list = conversations(&app, &biz.owner_token, "").await;
        assert_eq!(list["conversations"][0]["unread"], 1);
        assert_eq!(list["unread_conversations"], 1);
        // Backwards changes nothing.
        let entries = thread(&app, &biz.owner_token, &conversation).await;
        let first_id = entries[2]["id"].clone();
        app.clock.advance(Duration::from_secs(1));
        let back = app
            .post(&read, Some(&biz.owner_token), json!({ "up_to": first_id }))
            .await;
        back.assert_ok(200);
        assert_eq!(back.data()["read_up_to"], second["id"]);
        assert_eq!(back.data()["read_at"], read_at);
        // Only user messages of the thread.
        app.post(
            &read,
            Some(&biz.owner_token),
            json!({ "up_to": "00000000-0000-7000-8000-000000000000" }),
        )
        .await
        .assert_error(400, "invalid_request");
        // The user sees which of their messages were read, and when.
        let own = app
            .get(&format!("/businesses/{}/messages", biz.id), Some(&fan))
            .await;
        let own = own.data()["messages"].as_array().unwrap().clone();
        assert_eq!(own[0]["id"], third["id"]);
        assert_eq!(own[0]["read_at"], Value::Null);
        assert_eq!(own[1]["read_at"], read_at);
        assert_eq!(own[2]["read_at"], read_at);
        app.post(
            &read,
            Some(&biz.owner_token),
            json!({ "up_to": third["id"] }),
        )
        .await
        .assert_ok(200);
        let list = conversations(&app, &biz.owner_token, "?unread=true").await;
        assert_eq!(list["conversations"], json!([]));
        assert_eq!(list["unread_conversations"], 0);

        // The user's mark over the business's delivered messages: message.read, read_at.
        let sent = reply(&app, &biz, &conversation, json!({ "text": "Answer" }), None).await;
        let sent_id = sent.data()["id"].as_str().unwrap().to_string();
        settled(&app, &biz.owner_token, &sent_id).await;
        app.clock.advance(Duration::from_secs(1));
        let user_read = format!("/businesses/{}/messages/read", biz.id);
        let mark = app
            .post(&user_read, Some(&fan), json!({ "up_to": sent_id }))
            .await;
        mark.assert_ok(200);
        let got = receiver.wait_for(1).await;
        let event = got[0].json();
        assert_eq!(event["type"], "message.read");
        assert_eq!(event["data"]["conversation_id"], conversation.as_str());
        assert_eq!(event["data"]["read_up_to"], sent_id.as_str());
        assert_eq!(event["data"]["read_at"], mark.data()["read_at"]);
        let entries = thread(&app, &biz.owner_token, &conversation).await;
        assert_eq!(entries[0]["id"], sent_id.as_str());
        assert_eq!(entries[0]["read_at"], mark.data()["read_at"]);
        // Again at the same place: nothing moves, nothing is emitted.
        app.post(&user_read, Some(&fan), json!({ "up_to": sent_id }))
            .await
            .assert_ok(200);

        // Read receipts off: the mark moves, the business sees no read_at, no event.
        app.patch("/me", Some(&fan), json!({ "read_receipts": false }))
            .await
            .assert_ok(200);
        let later = reply(&app, &biz, &conversation, json!({ "text": "More" }), None).await;
        let later_id = later.data()["id"].as_str().unwrap().to_string();
        settled(&app, &biz.owner_token, &later_id).await;
        let mark = app
            .post(&user_read, Some(&fan), json!({ "up_to": later_id }))
            .await;
        mark.assert_ok(200);
        assert_eq!(mark.data()["read_up_to"], later_id.as_str());
        let entries = thread(&app, &biz.owner_token, &conversation).await;
        assert!(
            entries
                .iter()
                .all(|e| e["direction"] == "inbound" || e["read_at"].is_null())
        );
        crate::harness::quiet_for(Duration::from_millis(300)).await;
        assert_eq!(
            receiver.received().len(),
            1,
            "no message.read with receipts off"
        );
        let mine = app.get("/me/conversations", Some(&fan)).await;
        assert_eq!(
            mine.data()["conversations"][0]["unread"],
            0,
            "the user's own count"
        );
    }
);

e2e!(
    the_team_closes_assigns_and_labels_and_a_user_message_reopens,
    |app| async move {
        let (biz, _, fan, conversation) = started(&app).await;
        let (member_id, member) = app.user("+14155550301").await;
        add_member(&app, &biz.owner_token, "+14155550301", "member").await;
        let path = format!("/business/conversations/{conversation}");
        let changed = app
            .patch(
                &path,
                Some(&member),
                json!({ "status": "closed", "assigned_to": member_id, "label": "VIP  " }),
            )
            .await;
        changed.assert_ok(200);
        assert_eq!(changed.data()["status"], "closed");
        assert_eq!(changed.data()["assigned_to"], member_id.as_str());
        assert_eq!(changed.data()["label"], "VIP");
        for (body, why) in [
            (json!({ "status": "archived" }), "status"),
            (
                json!({ "assigned_to": "00000000-0000-7000-8000-000000000000" }),
                "not on the team",
            ),
            (json!({ "label": "x".repeat(101) }), "label"),
        ] {
            let answer = app.patch(&path, Some(&member), body).await;
            assert_eq!(
                (answer.status, answer.message()),
                (400, "invalid_request"),
                "{why}"
            );
        }
        let mine = conversations(&app, &member, "?assigned_to=me&status=closed").await;
        assert_eq!(mine["conversations"].as_array().unwrap().len(), 1);
        let none = conversations(&app, &member, "?assigned_to=none").await;
        assert_eq!(none["conversations"], json!([]));
        app.get("/business/conversations?unread=maybe", Some(&member))
            .await
            .assert_error(400, "invalid_request");
        app.get("/business/conversations?window=soon", Some(&member))
            .await
            .assert_error(400, "invalid_request");
        app.get("/business/conversations?limit=0", Some(&member))
            .await
            .assert_error(400, "invalid_limit");

        // A business reply does not reopen; a user message does.
        reply(
            &app,
            &biz,
            &conversation,
            json!({ "text": "Closing this." }),
            None,
        )
        .await
        .assert_ok(200);
        let c = app.get(&path, Some(&member)).await;
        assert_eq!(c.data()["status"], "closed");
        wrote(&app, &fan, &biz.id, "One more thing").await;
        let c = app.get(&path, Some(&member)).await;
        assert_eq!(c.data()["status"], "open");

        // null clears; a removed member loses their assignments.
        let cleared = app
            .patch(&path, Some(&member), json!({ "label": null }))
            .await;
        cleared.assert_ok(200);
        assert_eq!(cleared.data()["label"], Value::Null);
        assert_eq!(cleared.data()["assigned_to"], member_id.as_str());
        app.request(
            reqwest::Method::DELETE,
            &format!("/business/team/{member_id}"),
            Some(&biz.owner_token),
            None,
        )
        .await
        .assert_ok(200);
        let c = app.get(&path, Some(&biz.owner_token)).await;
        assert_eq!(c.data()["assigned_to"], Value::Null);
    }
);

e2e!(
    app_tokens_use_the_v1_twins_with_their_scopes,
    |app| async move {
        let (biz, _, _, conversation) = started(&app).await;
        let base = format!("/v1/{}/conversations", biz.id);
        let list = app.get(&base, Some(&biz.app_token)).await;
        list.assert_ok(200);
        assert_eq!(list.data()["conversations"][0]["id"], conversation.as_str());
        app.get(&format!("{base}/{conversation}"), Some(&biz.app_token))
            .await
            .assert_ok(200);
        let entries = app
            .get(
                &format!("{base}/{conversation}/messages"),
                Some(&biz.app_token),
            )
            .await;
        entries.assert_ok(200);
        let theirs = entries.data()["messages"][0]["id"].clone();
        app.post(
            &format!("{base}/{conversation}/read"),
            Some(&biz.app_token),
            json!({ "up_to": theirs }),
        )
        .await
        .assert_ok(200);
        app.patch(
            &format!("{base}/{conversation}"),
            Some(&biz.app_token),
            json!({ "label": "bot" }),
        )
        .await
        .assert_ok(200);
        app.post(
            &format!("{base}/{conversation}/messages/check"),
            Some(&biz.app_token),
            json!({ "text": "hi" }),
        )
        .await
        .assert_ok(200);
        post_keyed(
            &app,
            &format!("{base}/{conversation}/messages"),
            &biz.app_token,
            json!({ "text": "From the app" }),
            Some("app-1"),
        )
        .await
        .assert_ok(200);

        // Scopes: `service` for reads and free text, the category's scope otherwise.
        let created = app
            .post(
                "/business/apps",
                Some(&biz.owner_token),
                json!({ "name": "utility only", "scopes": ["utility"] }),
            )
            .await;
        created.assert_ok(201);
        let narrow = created.data()["token"].as_str().unwrap().to_string();
        app.get(&base, Some(&narrow))
            .await
            .assert_error(403, "app_scope_required");
        post_keyed(
            &app,
            &format!("{base}/{conversation}/messages"),
            &narrow,
            json!({ "text": "hi" }),
            None,
        )
        .await
        .assert_error(403, "app_scope_required");
        post_keyed(
            &app,
            &format!("{base}/{conversation}/messages"),
            &narrow,
            json!({ "category": "utility", "body": "Your order shipped" }),
            None,
        )
        .await
        .assert_ok(200);
        // Another business's path, and a bad token.
        let other = live_business(&app, "+14155550101", ALL_SCOPES).await;
        app.get(
            &format!("/v1/{}/conversations", other.id),
            Some(&biz.app_token),
        )
        .await
        .assert_error(403, "app_business_mismatch");
        app.get(&base, Some("sva_nope"))
            .await
            .assert_error(401, "invalid_app_token");
        app.set_business(&biz.id, None, Some("suspended")).await;
        app.get(&base, Some(&biz.app_token))
            .await
            .assert_error(403, "business_suspended");
    }
);

e2e!(
    authentication_codes_are_masked_for_the_business_and_shown_to_the_user,
    |app| async move {
        let (biz, _, fan, conversation) = started(&app).await;
        let sent = crate::fixtures::send_v1(
            &app,
            &biz,
            json!({ "to": FAN, "category": "authentication", "message_content": { "code": "482913" } }),
            None,
        )
        .await;
        sent.assert_ok(200);
        let id = sent.data()["id"].as_str().unwrap().to_string();
        settled(&app, &biz.owner_token, &id).await;
        let entries = thread(&app, &biz.owner_token, &conversation).await;
        let auth = entries.iter().find(|e| e["id"] == id.as_str()).unwrap();
        assert_eq!(auth["message_content"]["code"], "******");
        assert!(!json!(entries).to_string().contains("482913"));
        // History and the message read mask it too; a single send still shows its `to`.
        let record = settled(&app, &biz.owner_token, &id).await;
        assert_eq!(record["message_content"], json!({ "code": "******" }));
        assert_eq!(record["to"], FAN);
        assert_eq!(record["conversation_id"], Value::Null);
        let one = app
            .get(&format!("/business/messages/{id}"), Some(&biz.owner_token))
            .await;
        assert!(!one.body.to_string().contains("482913"));
        let own = eventually("the user's thread shows it", async || {
            let own = app
                .get(&format!("/businesses/{}/messages", biz.id), Some(&fan))
                .await;
            own.data()["messages"]
                .as_array()
                .unwrap()
                .iter()
                .find(|e| e["id"] == id.as_str())
                .cloned()
        })
        .await;
        assert_eq!(own["message_content"]["code"], "482913");
    }
);

e2e!(
    the_window_lasts_service_window_hours,
    crate::harness::Options {
        configure: Some(std::sync::Arc::new(|c| c.limits.service_window_hours = 2)),
        ..Default::default()
    },
    |app| async move {
        let mut biz = live_business(&app, crate::conversations::BIZ, ALL_SCOPES).await;
        let (_, fan) = follower(&app, &biz, FAN, false).await;
        let first = wrote(&app, &fan, &biz.id, "Hi").await;
        let at = chrono::DateTime::parse_from_rfc3339(first["at"].as_str().unwrap()).unwrap();
        let closes =
            chrono::DateTime::parse_from_rfc3339(first["window_expires_at"].as_str().unwrap())
                .unwrap();
        assert_eq!(closes - at, chrono::TimeDelta::hours(2));
        let conversation = first["conversation_id"].as_str().unwrap();
        app.clock.advance(Duration::from_secs(2 * 3600 - 1));
        biz.owner_token = token(&app, &biz.phone).await;
        reply(
            &app,
            &biz,
            conversation,
            json!({ "text": "Just in time" }),
            None,
        )
        .await
        .assert_ok(200);
        app.clock.advance(Duration::from_secs(1));
        reply(
            &app,
            &biz,
            conversation,
            json!({ "text": "Too late" }),
            None,
        )
        .await
        .assert_error(403, "service_window_closed");
    }
);
