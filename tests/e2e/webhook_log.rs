//! The deliveries log end to end: paging and filters, one delivery with its attempts, a retry
//! by hand and recovery since a time.

use std::time::Duration;

use reqwest::Method;
use serde_json::json;

use crate::e2e;
use crate::fixtures::{
    ALL_SCOPES, Receiver, deliveries_log, follower, live_business, register_webhook, send_utility,
    wait_delivery,
};
use crate::harness::{RawBody, Reply, TestApp, eventually};

const BIZ: &str = "+14155550100";
const FAN: &str = "+14155550200";

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

e2e!(
    a_delivery_is_read_with_every_attempt_and_the_message_it_announces,
    |app| async move {
        let rx = Receiver::start().await;
        rx.queue(&[503]);
        let biz = live_business(&app, BIZ, ALL_SCOPES).await;
        follower(&app, &biz, FAN, false).await;
        register_webhook(&app, &biz, &rx.url(), &["message.sent"]).await;
        let message_id = send_utility(&app, &biz, FAN).await;
        rx.wait_for(1).await;
        wait_delivery(&app, &biz, |d| d["attempts"] == 1).await;
        app.clock.advance(Duration::from_secs(60));
        rx.wait_for(2).await;
        let entry = wait_delivery(&app, &biz, |d| d["status"] == "succeeded").await;
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
            send_utility(&app, &biz, FAN).await;
        }
        rx.wait_for(4).await;
        eventually("four deliveries succeeded", async || {
            let all = deliveries_log(&app, &biz).await;
            (all.len() == 4 && all.iter().all(|d| d["status"] == "succeeded")).then_some(())
        })
        .await;
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
            "event_type=message.bounced",
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
        send_utility(&app, &biz, FAN).await;
        let first = rx.wait_for(1).await;
        let failed = wait_delivery(&app, &biz, |d| d["status"] == "failed").await;
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
        let retrying = wait_delivery(&app, &biz, |d| d["attempts"] == 2).await;
        assert_eq!(retrying["status"], "retrying");
        app.clock.advance(Duration::from_secs(60));
        rx.wait_for(3).await;
        let done = wait_delivery(&app, &biz, |d| d["status"] == "succeeded").await;
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
            send_utility(&app, &biz, FAN).await;
        }
        rx.wait_for(3).await;
        eventually("three deliveries failed", async || {
            let all = deliveries_log(&app, &biz).await;
            (all.len() == 3 && all.iter().all(|d| d["status"] == "failed")).then_some(())
        })
        .await;
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
        eventually("every delivery succeeded", async || {
            let all = deliveries_log(&app, &biz).await;
            all.iter().all(|d| d["status"] == "succeeded").then_some(())
        })
        .await;
        assert!(
            deliveries_log(&app, &biz)
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
