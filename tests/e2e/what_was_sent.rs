//! What was sent (DESIGN, fourth round): the deliveries of one message (`message_send_id`), a
//! delivery's `payload` as the receiver got it and each attempt's `response_body` as the
//! receiver answered it.

use std::time::Duration;

use serde_json::{Value, json};

use crate::conversations::{FAN, started};
use crate::e2e;
use crate::fixtures::{ALL_SCOPES, Receiver, live_business, register_webhook, send_v1};
use crate::harness::{TestApp, eventually};

async fn delivery(app: &TestApp, token: &str, id: &str) -> Value {
    let reply = app
        .get(&format!("/business/webhook-deliveries/{id}"), Some(token))
        .await;
    reply.assert_ok(200);
    reply.data().clone()
}

e2e!(
    a_delivery_shows_its_payload_and_each_answer_as_the_receiver_saw_them,
    |app| async move {
        let (biz, _, _, conversation) = started(&app).await;
        let receiver = Receiver::start().await;
        register_webhook(&app, &biz, &receiver.url(), &["message.sent"]).await;
        // The first answer fails with a body past 1,024 bytes ending in a cut character and an
        // invalid byte; the retry succeeds with a short one.
        let mut long = "é".repeat(600).into_bytes(); // 1,200 bytes
        long[1023] = 0xff;
        receiver.answer_body(&long);
        receiver.queue(&[500]);
        app.start_worker();
        let sent = app
            .post(
                &format!("/business/conversations/{conversation}/messages"),
                Some(&biz.owner_token),
                json!({ "text": "Your table is ready" }),
            )
            .await;
        sent.assert_ok(200);
        let message = sent.data()["id"].as_str().unwrap().to_string();
        let first = receiver.wait_for(1).await;
        receiver.answer_body(b"{\"ok\":true}");
        // Once the failed attempt is recorded, its retry falls due a minute later.
        crate::fixtures::wait_delivery(&app, &biz, |d| d["status"] == "retrying").await;
        app.clock.advance(Duration::from_secs(61));
        let got = receiver.wait_for(2).await;

        // The deliveries of that message, by the indexed filter.
        let list = eventually("the delivery succeeded", async || {
            let list = app
                .get(
                    &format!("/business/webhook-deliveries?message_send_id={message}"),
                    Some(&biz.owner_token),
                )
                .await;
            list.assert_ok(200);
            let items = list.data()["deliveries"].as_array().unwrap().clone();
            (items.len() == 1 && items[0]["status"] == "succeeded").then_some(items)
        })
        .await;
        assert_eq!(list[0]["message_send_id"], message.as_str());
        let id = list[0]["id"].as_str().unwrap();
        let detail = delivery(&app, &biz.owner_token, id).await;
        // The payload is the last attempt's, byte for byte what the receiver parsed.
        assert_eq!(detail["payload"], got[1].json());
        assert_ne!(
            detail["payload"]["id"],
            first[0].json()["id"],
            "a new id per attempt"
        );
        assert_eq!(
            detail["payload"]["data"]["conversation_id"],
            conversation.as_str()
        );
        assert!(!detail.to_string().contains(&FAN[1..]), "no phone number");
        let attempts = detail["attempts_log"].as_array().unwrap();
        assert_eq!(attempts.len(), 2);
        assert_eq!(attempts[0]["http_status"], 500);
        let kept = String::from_utf8_lossy(&long[..1024]).into_owned();
        assert_eq!(attempts[0]["response_body"], kept.as_str());
        assert!(kept.ends_with('\u{fffd}'), "the invalid byte replaced");
        assert_eq!(attempts[1]["http_status"], 200);
        assert_eq!(attempts[1]["response_body"], "{\"ok\":true}");

        // Another message's filter finds nothing; a bad id is refused.
        let other = app
            .get(
                &format!(
                    "/business/webhook-deliveries?message_send_id={}",
                    uuid::Uuid::now_v7()
                ),
                Some(&biz.owner_token),
            )
            .await;
        assert_eq!(other.data()["deliveries"], json!([]));
        app.get(
            "/business/webhook-deliveries?message_send_id=nope",
            Some(&biz.owner_token),
        )
        .await
        .assert_error(400, "invalid_request");
    }
);

e2e!(
    a_delivery_before_its_first_report_has_no_payload_and_the_filter_keeps_to_the_business,
    |app| async move {
        let biz = live_business(&app, "+14155550100", ALL_SCOPES).await;
        crate::fixtures::follower(&app, &biz, FAN, false).await;
        let receiver = Receiver::start().await;
        // The attempt waits unanswered, so nothing is reported yet.
        receiver.hold(true);
        register_webhook(&app, &biz, &receiver.url(), &["message.sent"]).await;
        let sent = send_v1(
            &app,
            &biz,
            json!({ "to": FAN, "category": "utility", "body": "hi" }),
            None,
        )
        .await;
        let message = sent.data()["id"].as_str().unwrap().to_string();
        let list = eventually("the delivery is queued", async || {
            let list = app
                .get(
                    &format!("/business/webhook-deliveries?message_send_id={message}"),
                    Some(&biz.owner_token),
                )
                .await;
            let items = list.data()["deliveries"].as_array().unwrap().clone();
            (!items.is_empty()).then_some(items)
        })
        .await;
        let detail = delivery(&app, &biz.owner_token, list[0]["id"].as_str().unwrap()).await;
        assert_eq!(detail["payload"], Value::Null);
        assert_eq!(detail["attempts_log"], json!([]));
        let other = live_business(&app, "+14155550101", ALL_SCOPES).await;
        let theirs = app
            .get(
                &format!("/business/webhook-deliveries?message_send_id={message}"),
                Some(&other.owner_token),
            )
            .await;
        assert_eq!(theirs.data()["deliveries"], json!([]));
        receiver.hold(false);
    }
);
