//! Conversations, the user's side and the business's view of them (SPEC-MATRIX, fourth round):
//! POST/GET /businesses/{id}/messages, /messages/read, GET /me/conversations, PATCH /me, and
//! GET /business/conversations[/{id}[/messages]].

use std::time::Duration;

use serde_json::{Value, json};

use crate::e2e;
use crate::fixtures::{
    ALL_SCOPES, Business, add_member, follower, live_business, register_webhook, send_v1, settled,
};
use crate::harness::{TestApp, eventually};

pub const BIZ: &str = "+14155550100";
pub const FAN: &str = "+14155550201";

/// A stack whose `INBOUND_PER_MINUTE` is `n`.
fn inbound_per_minute(n: u32) -> crate::harness::Options {
    crate::harness::Options {
        configure: Some(std::sync::Arc::new(move |c| {
            c.limits.inbound_per_minute = n
        })),
        ..Default::default()
    }
}

/// The user with `token` writes `text` to `business`.
pub async fn write(
    app: &TestApp,
    token: &str,
    business: &str,
    body: Value,
) -> crate::harness::Reply {
    app.post(
        &format!("/businesses/{business}/messages"),
        Some(token),
        body,
    )
    .await
}

/// The user with `token` writes `text` to `business`, accepted; returns the answer.
pub async fn wrote(app: &TestApp, token: &str, business: &str, text: &str) -> Value {
    let reply = write(app, token, business, json!({ "text": text })).await;
    reply.assert_ok(201);
    assert_eq!(reply.message(), "ok");
    reply.data().clone()
}

/// The business's conversation list (first page), as `token` reads it.
pub async fn conversations(app: &TestApp, token: &str, query: &str) -> Value {
    let reply = app
        .get(&format!("/business/conversations{query}"), Some(token))
        .await;
    reply.assert_ok(200);
    reply.data().clone()
}

/// A conversation's thread (first page) as `token` of the business reads it.
pub async fn thread(app: &TestApp, token: &str, conversation: &str) -> Vec<Value> {
    let reply = app
        .get(
            &format!("/business/conversations/{conversation}/messages"),
            Some(token),
        )
        .await;
    reply.assert_ok(200);
    reply.data()["messages"].as_array().unwrap().clone()
}

/// A live business, and a follower who wrote to it once: (business, user id, user token,
/// conversation id).
pub async fn started(app: &TestApp) -> (Business, String, String, String) {
    let biz = live_business(app, BIZ, ALL_SCOPES).await;
    let (user_id, token) = follower(app, &biz, FAN, false).await;
    let answer = wrote(app, &token, &biz.id, "Hello?").await;
    let conversation = answer["conversation_id"].as_str().unwrap().to_string();
    (biz, user_id, token, conversation)
}

e2e!(
    a_follower_writes_and_the_business_sees_the_conversation_but_never_the_number,
    |app| async move {
        let biz = live_business(&app, BIZ, ALL_SCOPES).await;
        let (user_id, token) = follower(&app, &biz, FAN, true).await;
        let first = wrote(&app, &token, &biz.id, "Is my order on its way?").await;
        assert_eq!(first["sequence"], 1);
        let at = chrono::DateTime::parse_from_rfc3339(first["at"].as_str().unwrap()).unwrap();
        let closes =
            chrono::DateTime::parse_from_rfc3339(first["window_expires_at"].as_str().unwrap())
                .unwrap();
        assert_eq!(
            closes - at,
            chrono::TimeDelta::hours(24),
            "SERVICE_WINDOW_HOURS"
        );
        app.clock.advance(Duration::from_secs(1));
        let second = wrote(&app, &token, &biz.id, "Order 1234").await;
        assert_eq!(second["sequence"], 2);
        assert_eq!(second["conversation_id"], first["conversation_id"]);

        let list = conversations(&app, &biz.owner_token, "").await;
        assert_eq!(list["unread_conversations"], 1);
        assert_eq!(list["has_more"], false);
        let items = list["conversations"].as_array().unwrap();
        assert_eq!(items.len(), 1);
        let c = &items[0];
        assert_eq!(c["id"], first["conversation_id"]);
        assert_eq!(c["user_id"], user_id.as_str());
        assert_eq!(c["display_name"], Value::Null);
        assert_eq!(c["label"], Value::Null);
        assert_eq!(c["follows"], true);
        assert_eq!(c["marketing_opt_in"], true);
        assert_eq!(c["status"], "open");
        assert_eq!(c["blocked"], false);
        assert_eq!(c["unread"], 2);
        assert_eq!(c["assigned_to"], Value::Null);
        assert_eq!(c["last_inbound_at"], second["at"]);
        assert_eq!(c["last_message_at"], second["at"]);
        assert_eq!(c["window_expires_at"], second["window_expires_at"]);

        // The user's chosen name shows in the conversations they started.
        app.patch("/me", Some(&token), json!({ "display_name": "Sam" }))
            .await
            .assert_ok(200);
        let id = c["id"].as_str().unwrap();
        let one = app
            .get(
                &format!("/business/conversations/{id}"),
                Some(&biz.owner_token),
            )
            .await;
        one.assert_ok(200);
        assert_eq!(one.data()["display_name"], "Sam");

        let entries = thread(&app, &biz.owner_token, id).await;
        assert_eq!(entries.len(), 2);
        assert_eq!(entries[0]["id"], second["id"], "newest first");
        assert_eq!(entries[0]["direction"], "inbound");
        assert_eq!(entries[0]["body"], "Order 1234");
        assert_eq!(entries[0]["sequence"], 2);
        assert_eq!(entries[0]["conversation_id"], first["conversation_id"]);
        assert_eq!(entries[1]["sequence"], 1);

        // Daily usage counts what users wrote.
        let daily = app
            .get("/business/usage/daily?days=1", Some(&biz.owner_token))
            .await;
        daily.assert_ok(200);
        assert_eq!(daily.data()["days"][0]["received"], 2);

        // No phone number in any business-side answer.
        for body in [
            list.to_string(),
            one.body.to_string(),
            json!(entries).to_string(),
        ] {
            assert!(!body.contains(FAN), "{body}");
            assert!(!body.contains(&FAN[1..]), "{body}");
        }
    }
);

e2e!(
    writing_needs_an_active_follow_of_a_live_business_or_its_team,
    |app| async move {
        let biz = live_business(&app, BIZ, ALL_SCOPES).await;
        let (_, stranger) = app.user("+14155550202").await;
        write(&app, &stranger, &biz.id, json!({ "text": "hi" }))
            .await
            .assert_error(403, "business_follow_required");
        write(
            &app,
            &stranger,
            "00000000-0000-7000-8000-000000000000",
            json!({ "text": "hi" }),
        )
        .await
        .assert_error(404, "business_not_found");

        // A follower who unfollows can no longer write.
        let (_, fan) = follower(&app, &biz, FAN, false).await;
        wrote(&app, &fan, &biz.id, "hi").await;
        app.request(
            reqwest::Method::DELETE,
            &format!("/businesses/{}/follow", biz.id),
            Some(&fan),
            None,
        )
        .await
        .assert_ok(200);
        write(&app, &fan, &biz.id, json!({ "text": "still there?" }))
            .await
            .assert_error(403, "business_follow_required");

        // The team writes to its own business whatever its mode; others not to a sandbox.
        let (sandbox, owner) = app.business_owner("+14155550300").await;
        let (_, member) = app.user("+14155550301").await;
        add_member(&app, &owner, "+14155550301", "member").await;
        wrote(&app, &member, &sandbox, "testing the inbox").await;
        wrote(&app, &owner, &sandbox, "me too").await;
        write(&app, &stranger, &sandbox, json!({ "text": "hi" }))
            .await
            .assert_error(403, "business_not_live");
        // Writing never creates a follow.
        let follow = app
            .get(&format!("/businesses/{sandbox}/follow"), Some(&member))
            .await;
        follow.assert_error(404, "follow_not_found");
    }
);

e2e!(
    messages_written_together_are_each_decided_on_their_own_and_the_writer_first,
    |app| async move {
        let biz = live_business(&app, BIZ, ALL_SCOPES).await;
        let (sandbox, _) = app.business_owner("+14155550300").await;
        let (_, fan) = follower(&app, &biz, FAN, false).await;
        let (_, stranger) = app.user("+14155550202").await;
        let (_, gone) = follower(&app, &biz, "+14155550203", false).await;
        app.set_user_status("+14155550203", "suspended").await;
        let nowhere = "00000000-0000-7000-8000-000000000000".to_string();

        // Written at once, so the intake takes several into one batch: each answers its own.
        let hi = json!({ "text": "hi" });
        let cases = [
            (&fan, &biz.id, hi.clone(), "201 ok"),
            (
                &stranger,
                &biz.id,
                hi.clone(),
                "403 business_follow_required",
            ),
            (&stranger, &sandbox, hi.clone(), "403 business_not_live"),
            (&fan, &nowhere, hi.clone(), "404 business_not_found"),
            (&gone, &biz.id, hi.clone(), "403 account_suspended"),
            // The writer's account before the message's shape, its business and its reply_to.
            (
                &gone,
                &biz.id,
                json!({ "text": "" }),
                "403 account_suspended",
            ),
            (&gone, &nowhere, hi.clone(), "403 account_suspended"),
            (
                &gone,
                &biz.id,
                json!({ "text": "hi", "reply_to": nowhere }),
                "403 account_suspended",
            ),
            // The shape before the business.
            (&fan, &nowhere, json!({ "text": "" }), "400 invalid_request"),
        ];
        let replies = futures::future::join_all(
            cases
                .iter()
                .map(|(token, business, body, _)| write(&app, token, business, body.clone())),
        )
        .await;
        for (reply, (_, business, body, expected)) in replies.iter().zip(&cases) {
            let answer = format!("{} {}", reply.status, reply.message());
            assert_eq!(answer, *expected, "{business} {body}");
        }
        let list = conversations(&app, &biz.owner_token, "").await;
        assert_eq!(list["conversations"].as_array().unwrap().len(), 1);

        // Lifted, the suspended follower writes again.
        app.set_user_status("+14155550203", "active").await;
        wrote(&app, &gone, &biz.id, "back").await;
    }
);

e2e!(
    a_user_message_is_checked_before_anything_is_stored,
    |app| async move {
        let biz = live_business(&app, BIZ, ALL_SCOPES).await;
        let (_, fan) = follower(&app, &biz, FAN, false).await;
        for (body, why) in [
            (json!({}), "text missing"),
            (json!({ "text": "" }), "empty"),
            (json!({ "text": "   " }), "blank"),
            (json!({ "text": "x".repeat(4097) }), "over 4,096"),
            (
                json!({ "text": "hi", "client_message_id": "not-a-uuid" }),
                "bad id",
            ),
            (
                json!({ "text": "hi", "reply_to": "00000000-0000-7000-8000-000000000000" }),
                "reply_to",
            ),
        ] {
            let reply = write(&app, &fan, &biz.id, body).await;
            assert_eq!(
                (reply.status, reply.message()),
                (400, "invalid_request"),
                "{why}"
            );
        }
        write(&app, &fan, &biz.id, json!({ "text": 5 }))
            .await
            .assert_error(400, "invalid_request");
        wrote(&app, &fan, &biz.id, &"é".repeat(4096)).await;
        let list = conversations(&app, &biz.owner_token, "").await;
        let id = list["conversations"][0]["id"].as_str().unwrap();
        assert_eq!(thread(&app, &biz.owner_token, id).await.len(), 1);
    }
);

e2e!(
    a_client_message_id_answers_the_original_once_and_refuses_other_content,
    |app| async move {
        let biz = live_business(&app, BIZ, ALL_SCOPES).await;
        let other = live_business(&app, "+14155550101", ALL_SCOPES).await;
        let (_, fan) = follower(&app, &biz, FAN, false).await;
        follower_of(&app, &other, &fan).await;
        let key = uuid::Uuid::now_v7().to_string();
        let body = json!({ "text": "Where is my parcel?", "client_message_id": key });
        let first = write(&app, &fan, &biz.id, body.clone()).await;
        first.assert_ok(201);
        app.clock.advance(Duration::from_secs(5));
        let again = write(&app, &fan, &biz.id, body.clone()).await;
        again.assert_ok(201);
        assert_eq!(again.data(), first.data(), "the same body");
        write(
            &app,
            &fan,
            &biz.id,
            json!({ "text": "Other text", "client_message_id": key }),
        )
        .await
        .assert_error(409, "idempotency_key_conflict");
        write(&app, &fan, &other.id, body.clone())
            .await
            .assert_error(409, "idempotency_key_conflict");

        // Before the block and the follow are checked.
        let conversation = first.data()["conversation_id"].as_str().unwrap();
        app.post(
            &format!("/business/conversations/{conversation}/block"),
            Some(&biz.owner_token),
            json!({}),
        )
        .await
        .assert_ok(200);
        let replay = write(&app, &fan, &biz.id, body.clone()).await;
        replay.assert_ok(201);
        assert_eq!(replay.data(), first.data());

        // Concurrent retries of one id: one message, one message.received.
        app.post(
            &format!("/business/conversations/{conversation}/unblock"),
            Some(&biz.owner_token),
            json!({}),
        )
        .await
        .assert_ok(200);
        let key = uuid::Uuid::now_v7().to_string();
        let body = json!({ "text": "Hello again", "client_message_id": key });
        let tries = (0..8).map(|_| write(&app, &fan, &biz.id, body.clone()));
        let answers = futures::future::join_all(tries).await;
        let mut ids = std::collections::BTreeSet::new();
        for answer in &answers {
            match answer.status {
                201 => {
                    ids.insert(answer.data()["id"].as_str().unwrap().to_string());
                }
                _ => answer.assert_error(409, "idempotency_in_progress"),
            }
        }
        assert_eq!(ids.len(), 1, "one message: {answers:?}");
        // The events API lists an event once every transaction before it ended: poll.
        eventually("the events are listed", async || {
            (received_events(&app, &biz).await.len() >= 2).then_some(())
        })
        .await;
        crate::harness::quiet_for(Duration::from_millis(200)).await;
        let received = received_events(&app, &biz).await;
        assert_eq!(received.len(), 2, "one message.received per message");
        let entries = thread(&app, &biz.owner_token, conversation).await;
        assert_eq!(entries.len(), 2);

        // One id to two businesses at once: one is written, the other answers the conflict.
        let key = uuid::Uuid::now_v7().to_string();
        let body = json!({ "text": "Which of you?", "client_message_id": key });
        let (to_biz, to_other) = futures::join!(
            write(&app, &fan, &biz.id, body.clone()),
            write(&app, &fan, &other.id, body.clone())
        );
        let mut statuses = [to_biz.status, to_other.status];
        statuses.sort();
        assert_eq!(statuses, [201, 409], "{to_biz:?} {to_other:?}");
        for answer in [&to_biz, &to_other] {
            if answer.status == 409 {
                let code = answer.message();
                assert!(
                    code == "idempotency_key_conflict" || code == "idempotency_in_progress",
                    "{answer:?}"
                );
            }
        }
    }
);

async fn follower_of(app: &TestApp, business: &Business, token: &str) {
    app.request(
        reqwest::Method::PUT,
        &format!("/businesses/{}/follow", business.id),
        Some(token),
        Some(crate::harness::RawBody::Json(json!({}))),
    )
    .await
    .assert_ok(200);
}

/// The `message.received` events recorded for a business, oldest first.
pub async fn received_events(app: &TestApp, business: &Business) -> Vec<Value> {
    let reply = app
        .get("/business/events?limit=200", Some(&business.owner_token))
        .await;
    reply.assert_ok(200);
    reply.data()["events"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e["type"] == "message.received")
        .cloned()
        .collect()
}

e2e!(
    sequence_counts_without_gaps_under_concurrent_writes,
    |app| async move {
        let biz = live_business(&app, BIZ, ALL_SCOPES).await;
        let (_, fan) = follower(&app, &biz, FAN, false).await;
        let texts: Vec<String> = (0..12).map(|i| format!("message {i}")).collect();
        let writes = texts.iter().map(|text| wrote(&app, &fan, &biz.id, text));
        let answers = futures::future::join_all(writes).await;
        let mut sequences: Vec<i64> = answers
            .iter()
            .map(|a| a["sequence"].as_i64().unwrap())
            .collect();
        sequences.sort();
        assert_eq!(sequences, (1..=12).collect::<Vec<_>>());
        // The thread's order is the sequence's.
        let list = conversations(&app, &biz.owner_token, "").await;
        let id = list["conversations"][0]["id"].as_str().unwrap();
        let entries = thread(&app, &biz.owner_token, id).await;
        let order: Vec<i64> = entries
            .iter()
            .map(|e| e["sequence"].as_i64().unwrap())
            .collect();
        assert_eq!(order, (1..=12).rev().collect::<Vec<_>>());
        // And message.received carries them, for receivers to order by.
        let events = eventually("the events are listed", async || {
            let events = received_events(&app, &biz).await;
            (events.len() == 12).then_some(events)
        })
        .await;
        let mut events: Vec<i64> = events
            .iter()
            .map(|e| e["data"]["sequence"].as_i64().unwrap())
            .collect();
        events.sort();
        assert_eq!(events, (1..=12).collect::<Vec<_>>());
    }
);

e2e!(
    many_followers_writing_at_once_each_get_their_own_answer,
    inbound_per_minute(2),
    |app| async move {
        // User messages are written together (one transaction for those that arrive at once):
        // each one's refusal is its own, each new pair gets its conversation, the counts hold.
        let biz = live_business(&app, BIZ, ALL_SCOPES).await;
        let mut fans = Vec::new();
        for i in 0..8 {
            fans.push(
                follower(&app, &biz, &format!("+1415555041{i}"), false)
                    .await
                    .1,
            );
        }
        let blocked = wrote(&app, &fans[0], &biz.id, "first").await;
        let conversation = blocked["conversation_id"].as_str().unwrap();
        app.post(
            &format!("/business/conversations/{conversation}/block"),
            Some(&biz.owner_token),
            json!({}),
        )
        .await
        .assert_ok(200);
        for text in ["one", "two"] {
            wrote(&app, &fans[1], &biz.id, text).await;
        }
        let writes = fans
            .iter()
            .map(|fan| write(&app, fan, &biz.id, json!({ "text": "all at once" })));
        let answers = futures::future::join_all(writes).await;
        answers[0].assert_error(403, "conversation_blocked");
        answers[1].assert_error(429, "rate_limited");
        let mut conversations_seen = std::collections::BTreeSet::new();
        for answer in &answers[2..] {
            answer.assert_ok(201);
            assert_eq!(answer.data()["sequence"], 1, "{answer:?}");
            conversations_seen.insert(answer.data()["conversation_id"].to_string());
        }
        assert_eq!(conversations_seen.len(), 6, "one conversation per new pair");

        let list = conversations(&app, &biz.owner_token, "?limit=100").await;
        assert_eq!(list["conversations"].as_array().unwrap().len(), 8);
        assert_eq!(list["unread_conversations"], 8);
        let daily = app
            .get("/business/usage/daily?days=1", Some(&biz.owner_token))
            .await;
        daily.assert_ok(200);
        assert_eq!(daily.data()["days"][0]["received"], 9);
        eventually("one message.received per accepted message", async || {
            (received_events(&app, &biz).await.len() == 9).then_some(())
        })
        .await;
    }
);

e2e!(
    the_per_user_limit_refuses_with_retry_after,
    inbound_per_minute(3),
    |app| async move {
        let biz = live_business(&app, BIZ, ALL_SCOPES).await;
        let (_, fan) = follower(&app, &biz, FAN, false).await;
        for i in 0..3 {
            wrote(&app, &fan, &biz.id, &format!("{i}")).await;
        }
        let refused = write(&app, &fan, &biz.id, json!({ "text": "one more" })).await;
        refused.assert_error(429, "rate_limited");
        let wait = refused.retry_after().expect("Retry-After");
        assert!((1..=60).contains(&wait), "{wait}");
        // Another user is not held back.
        let (_, other) = follower(&app, &biz, "+14155550202", false).await;
        wrote(&app, &other, &biz.id, "me").await;
        app.clock.advance(Duration::from_secs(wait));
        wrote(&app, &fan, &biz.id, "later").await;
    }
);

e2e!(
    a_block_refuses_the_users_messages_until_lifted,
    |app| async move {
        let (biz, _, fan, conversation) = started(&app).await;
        let (_, member) = app.user("+14155550301").await;
        add_member(&app, &biz.owner_token, "+14155550301", "member").await;
        let block = format!("/business/conversations/{conversation}/block");
        app.post(&block, Some(&member), json!({}))
            .await
            .assert_error(403, "insufficient_role");
        let blocked = app.post(&block, Some(&biz.owner_token), json!({})).await;
        blocked.assert_ok(200);
        assert_eq!(blocked.data()["blocked"], true);
        write(&app, &fan, &biz.id, json!({ "text": "hello?" }))
            .await
            .assert_error(403, "conversation_blocked");
        // The business may still send.
        let reply = app
            .post(
                &format!("/business/conversations/{conversation}/messages"),
                Some(&biz.owner_token),
                json!({ "text": "We will call you." }),
            )
            .await;
        reply.assert_ok(200);
        let unblocked = app
            .post(
                &format!("/business/conversations/{conversation}/unblock"),
                Some(&biz.owner_token),
                json!({}),
            )
            .await;
        unblocked.assert_ok(200);
        assert_eq!(unblocked.data()["blocked"], false);
        wrote(&app, &fan, &biz.id, "thanks").await;
    }
);

e2e!(
    another_business_conversation_is_not_found_to_console_and_app,
    |app| async move {
        let (_, _, _, conversation) = started(&app).await;
        let other = live_business(&app, "+14155550101", ALL_SCOPES).await;
        let paths = [
            format!("/business/conversations/{conversation}"),
            format!("/business/conversations/{conversation}/messages"),
        ];
        for path in &paths {
            app.get(path, Some(&other.owner_token))
                .await
                .assert_error(404, "conversation_not_found");
        }
        app.post(
            &format!("/business/conversations/{conversation}/messages"),
            Some(&other.owner_token),
            json!({ "text": "hi" }),
        )
        .await
        .assert_error(404, "conversation_not_found");
        app.get(
            &format!("/v1/{}/conversations/{conversation}", other.id),
            Some(&other.app_token),
        )
        .await
        .assert_error(404, "conversation_not_found");
        app.get(
            "/business/conversations/not-a-uuid",
            Some(&other.owner_token),
        )
        .await
        .assert_error(404, "not_found");
    }
);

e2e!(
    the_user_lists_their_threads_and_reads_what_the_business_sent,
    |app| async move {
        let biz = live_business(&app, BIZ, ALL_SCOPES).await;
        let (_, fan) = follower(&app, &biz, FAN, false).await;
        // A business message, delivered: a thread without a conversation.
        let sent = send_utility_to(&app, &biz, FAN).await;
        settled(&app, &biz.owner_token, &sent).await;
        let mine = app.get("/me/conversations", Some(&fan)).await;
        mine.assert_ok(200);
        let items = mine.data()["conversations"].as_array().unwrap().clone();
        assert_eq!(items.len(), 1);
        assert_eq!(items[0]["business_account_id"], biz.id.as_str());
        assert_eq!(items[0]["business_name"], "Acme");
        assert_eq!(items[0]["unread"], 1);
        assert_eq!(items[0]["window_expires_at"], Value::Null);

        let own = app
            .get(&format!("/businesses/{}/messages", biz.id), Some(&fan))
            .await;
        own.assert_ok(200);
        let entries = own.data()["messages"].as_array().unwrap().clone();
        assert_eq!(entries.len(), 1);
        assert_eq!(entries[0]["id"], sent.as_str());
        assert_eq!(entries[0]["direction"], "outbound");
        assert_eq!(entries[0]["category"], "utility");
        assert_eq!(entries[0]["body"], "hi");
        assert_eq!(entries[0]["status"], Value::Null, "the user sees no status");

        let read = app
            .post(
                &format!("/businesses/{}/messages/read", biz.id),
                Some(&fan),
                json!({ "up_to": sent }),
            )
            .await;
        read.assert_ok(200);
        assert_eq!(read.data()["read_up_to"], sent.as_str());
        let mine = app.get("/me/conversations", Some(&fan)).await;
        assert_eq!(mine.data()["conversations"][0]["unread"], 0);

        app.clock.advance(Duration::from_secs(1));
        let answer = wrote(&app, &fan, &biz.id, "Thanks!").await;
        let mine = app.get("/me/conversations", Some(&fan)).await;
        assert_eq!(
            mine.data()["conversations"][0]["window_expires_at"],
            answer["window_expires_at"]
        );
        assert_eq!(
            mine.data()["conversations"][0]["last_message_at"],
            answer["at"]
        );

        // Nothing exchanged: an empty thread; an unknown business: 404.
        let other = live_business(&app, "+14155550101", ALL_SCOPES).await;
        let empty = app
            .get(&format!("/businesses/{}/messages", other.id), Some(&fan))
            .await;
        empty.assert_ok(200);
        assert_eq!(empty.data()["messages"], json!([]));
        assert_eq!(empty.data()["has_more"], false);
        app.get(
            "/businesses/00000000-0000-7000-8000-000000000000/messages",
            Some(&fan),
        )
        .await
        .assert_error(404, "business_not_found");
    }
);

/// A utility message to `to` by app token; returns its id.
pub async fn send_utility_to(app: &TestApp, biz: &Business, to: &str) -> String {
    let reply = send_v1(
        app,
        biz,
        json!({ "to": to, "category": "utility", "body": "hi" }),
        None,
    )
    .await;
    reply.assert_ok(200);
    reply.data()["id"].as_str().unwrap().to_string()
}

e2e!(
    message_received_reaches_a_subscribed_endpoint_without_the_number,
    |app| async move {
        let biz = live_business(&app, BIZ, ALL_SCOPES).await;
        let receiver = crate::fixtures::Receiver::start().await;
        register_webhook(&app, &biz, &receiver.url(), &["message.received"]).await;
        app.start_worker();
        let (user_id, fan) = follower(&app, &biz, FAN, false).await;
        let first = wrote(&app, &fan, &biz.id, "first").await;
        let reply = write(
            &app,
            &fan,
            &biz.id,
            json!({ "text": "second", "reply_to": first["id"] }),
        )
        .await;
        reply.assert_ok(201);
        let got = receiver.wait_for(2).await;
        let mut data: Vec<Value> = got.iter().map(|r| r.json()).collect();
        data.sort_by_key(|p| p["data"]["sequence"].as_i64());
        assert_eq!(data[0]["type"], "message.received");
        let d = &data[1]["data"];
        assert_eq!(d["message_id"], reply.data()["id"]);
        assert_eq!(d["conversation_id"], first["conversation_id"]);
        assert_eq!(d["user_id"], user_id.as_str());
        assert_eq!(d["sequence"], 2);
        assert_eq!(d["body"], "second");
        assert_eq!(d["reply_to"], first["id"]);
        assert_eq!(d["received_at"], reply.data()["at"]);
        assert_eq!(d["window_expires_at"], reply.data()["window_expires_at"]);
        for r in &got {
            let body = r.json().to_string();
            assert!(!body.contains(&FAN[1..]), "{body}");
        }
        let events = eventually("the events API lists them", async || {
            let events = received_events(&app, &biz).await;
            (events.len() == 2).then_some(events)
        })
        .await;
        assert_eq!(events[0]["data"]["sequence"], 2, "newest first");
    }
);
