//! The records an integrator looks up: the history a page at a time with filters, and one
//! message with its outcome.

use serde_json::{Value, json};

use crate::e2e;
use crate::fixtures::{ALL_SCOPES, follower, live_business, send_v1, settled};
use crate::harness::TestApp;

const BIZ: &str = "+14155550100";
const FAN: &str = "+14155550200";

fn utility(n: usize) -> Value {
    json!({ "to": FAN, "category": "utility", "body": format!("Order {n} shipped") })
}

fn ids(reply: &crate::harness::Reply) -> Vec<String> {
    reply.data()["messages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["id"].as_str().unwrap().to_string())
        .collect()
}

async fn page(app: &TestApp, token: &str, query: &str) -> crate::harness::Reply {
    app.get(&format!("/business/messages?{query}"), Some(token))
        .await
}

e2e!(
    history_pages_newest_first_with_starting_after_and_has_more,
    |app| async move {
        let biz = live_business(&app, BIZ, ALL_SCOPES).await;
        follower(&app, &biz, FAN, false).await;
        let mut sent = Vec::new();
        for n in 0..5 {
            let reply = send_v1(&app, &biz, utility(n), None).await;
            reply.assert_ok(200);
            sent.push(reply.data()["id"].as_str().unwrap().to_string());
        }
        sent.reverse();
        let first = page(&app, &biz.owner_token, "limit=2").await;
        first.assert_ok(200);
        assert_eq!(ids(&first), sent[0..2]);
        assert_eq!(first.data()["has_more"], true);
        let second = page(
            &app,
            &biz.owner_token,
            &format!("limit=2&starting_after={}", sent[1]),
        )
        .await;
        assert_eq!(ids(&second), sent[2..4]);
        assert_eq!(second.data()["has_more"], true);
        let last = page(
            &app,
            &biz.owner_token,
            &format!("limit=2&starting_after={}", sent[3]),
        )
        .await;
        assert_eq!(ids(&last), sent[4..5]);
        assert_eq!(last.data()["has_more"], false);
        // A cursor that is not a message of this business is a client mistake.
        let other = live_business(&app, "+14155550101", ALL_SCOPES).await;
        page(
            &app,
            &other.owner_token,
            &format!("starting_after={}", sent[0]),
        )
        .await
        .assert_error(400, "invalid_request");
        page(&app, &biz.owner_token, "starting_after=not-an-id")
            .await
            .assert_error(400, "invalid_request");
        page(&app, &biz.owner_token, "limit=0")
            .await
            .assert_error(400, "invalid_limit");
    }
);

e2e!(
    history_filters_by_status_category_and_source,
    |app| async move {
        let biz = live_business(&app, BIZ, ALL_SCOPES).await;
        follower(&app, &biz, FAN, true).await;
        let utility_id = send_v1(&app, &biz, utility(1), None).await.data()["id"]
            .as_str()
            .unwrap()
            .to_string();
        let marketing = json!({ "to": FAN, "category": "marketing", "body": "Sale" });
        let marketing_id = send_v1(&app, &biz, marketing, None).await.data()["id"]
            .as_str()
            .unwrap()
            .to_string();
        let console = app
            .post("/business/messages", Some(&biz.owner_token), utility(2))
            .await;
        console.assert_ok(200);
        let console_id = console.data()["id"].as_str().unwrap().to_string();
        for id in [&utility_id, &marketing_id, &console_id] {
            settled(&app, &biz.owner_token, id).await;
        }
        let by_category = page(&app, &biz.owner_token, "category=marketing").await;
        assert_eq!(ids(&by_category), vec![marketing_id.clone()]);
        let by_source = page(&app, &biz.owner_token, "source=console").await;
        assert_eq!(ids(&by_source), vec![console_id.clone()]);
        let delivered = page(&app, &biz.owner_token, "status=delivered&source=app").await;
        assert_eq!(ids(&delivered), vec![marketing_id, utility_id]);
        assert!(ids(&page(&app, &biz.owner_token, "status=failed").await).is_empty());
        for bad in ["status=sent", "category=promo", "source=api"] {
            let reply = page(&app, &biz.owner_token, bad).await;
            reply.assert_error(400, "invalid_request");
            assert!(!reply.body["detail"].as_str().unwrap().is_empty());
        }
    }
);

e2e!(
    one_message_is_read_with_its_failure_reason_and_others_are_404,
    |app| async move {
        let biz = live_business(&app, BIZ, ALL_SCOPES).await;
        follower(&app, &biz, FAN, false).await;
        app.set_user_status(FAN, "suspended").await;
        let id = send_v1(&app, &biz, utility(1), None).await.data()["id"]
            .as_str()
            .unwrap()
            .to_string();
        settled(&app, &biz.owner_token, &id).await;
        let one = app
            .get(&format!("/business/messages/{id}"), Some(&biz.owner_token))
            .await;
        one.assert_ok(200);
        assert_eq!(one.data()["id"], id.as_str());
        assert_eq!(one.data()["status"], "failed");
        assert_eq!(one.data()["failure_reason"], "recipient_inactive");
        let listed = page(&app, &biz.owner_token, "status=failed").await;
        assert_eq!(
            listed.data()["messages"][0]["failure_reason"],
            "recipient_inactive"
        );
        // Another business's message, an unknown id, and a path that is not an id.
        let other = live_business(&app, "+14155550101", ALL_SCOPES).await;
        app.get(
            &format!("/business/messages/{id}"),
            Some(&other.owner_token),
        )
        .await
        .assert_error(404, "message_not_found");
        app.get(
            &format!("/business/messages/{}", uuid::Uuid::new_v4()),
            Some(&biz.owner_token),
        )
        .await
        .assert_error(404, "message_not_found");
        app.get("/business/messages/nope", Some(&biz.owner_token))
            .await
            .assert_error(404, "not_found");
    }
);
