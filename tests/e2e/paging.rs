//! Every list route keeps the one paging contract (`fixtures::paging`): the history, the
//! followers, the broadcasts, the webhook deliveries, the events, and the conversation lists and
//! threads.

use serde_json::json;

use crate::e2e;
use crate::fixtures::paging::{ListRoute, assert_list_contract};
use crate::fixtures::{ALL_SCOPES, follower, live_business, register_webhook, send_v1};
use crate::harness::eventually;

const BIZ: &str = "+14155550100";
const FAN: &str = "+14155550200";
const RECORDS: usize = 5;

fn utility(n: usize) -> serde_json::Value {
    json!({ "to": FAN, "category": "utility", "body": format!("Order {n} shipped") })
}

e2e!(the_history_keeps_the_paging_contract, |app| async move {
    let biz = live_business(&app, BIZ, ALL_SCOPES).await;
    follower(&app, &biz, FAN, false).await;
    for n in 0..RECORDS {
        send_v1(&app, &biz, utility(n), None).await.assert_ok(200);
    }
    let route = ListRoute {
        path: "/business/messages",
        records: "messages",
        id: "id",
        ordered_by: "created_at",
    };
    assert_list_contract(&app, &biz.owner_token, &route, RECORDS).await;
    // A filter pages the same way.
    let filtered = ListRoute {
        path: "/business/messages?category=utility&source=app",
        ..route
    };
    assert_list_contract(&app, &biz.owner_token, &filtered, RECORDS).await;
});

e2e!(the_followers_keep_the_paging_contract, |app| async move {
    let biz = live_business(&app, BIZ, ALL_SCOPES).await;
    for n in 0..RECORDS {
        follower(&app, &biz, &format!("+1415555021{n}"), n % 2 == 0).await;
    }
    let route = ListRoute {
        path: "/business/followers",
        records: "followers",
        id: "user_id",
        ordered_by: "followed_at",
    };
    assert_list_contract(&app, &biz.owner_token, &route, RECORDS).await;
    let opted_in = ListRoute {
        path: "/business/followers?marketing_opt_in=true",
        ..route
    };
    assert_list_contract(&app, &biz.owner_token, &opted_in, RECORDS.div_ceil(2)).await;
});

e2e!(the_broadcasts_keep_the_paging_contract, |app| async move {
    let biz = live_business(&app, BIZ, ALL_SCOPES).await;
    for n in 0..RECORDS {
        app.post(
            "/business/broadcasts",
            Some(&biz.owner_token),
            json!({ "name": format!("b{n}"), "category": "utility", "body": "We open at 10:00" }),
        )
        .await
        .assert_ok(201);
    }
    let route = ListRoute {
        path: "/business/broadcasts",
        records: "broadcasts",
        id: "id",
        ordered_by: "created_at",
    };
    assert_list_contract(&app, &biz.owner_token, &route, RECORDS).await;
});

/// An endpoint nobody answers stays healthy here: its turn to failing would add an event.
fn never_failing() -> crate::harness::Options {
    crate::harness::Options {
        configure: Some(std::sync::Arc::new(|c| {
            c.webhooks.webhook_failing_after = 1_000_000;
        })),
        ..Default::default()
    }
}

e2e!(
    the_webhook_deliveries_and_the_events_keep_the_paging_contract,
    never_failing(),
    |app| async move {
        let biz = live_business(&app, BIZ, ALL_SCOPES).await;
        follower(&app, &biz, FAN, false).await;
        // An endpoint nobody answers: its deliveries stay in the log whatever their state.
        register_webhook(&app, &biz, "http://127.0.0.1:9/hooks", &["message.sent"]).await;
        for n in 0..RECORDS {
            send_v1(&app, &biz, utility(n), None).await.assert_ok(200);
        }
        let count = async |path: &str, records: &str| {
            let reply = app.get(path, Some(&biz.owner_token)).await;
            reply.assert_ok(200);
            reply.data()[records].as_array().unwrap().len()
        };
        // The events: the follow's `follow.created`, then each send's `message.sent`.
        eventually("every outcome's delivery and event", async || {
            (count("/business/webhook-deliveries", "deliveries").await == RECORDS
                && count("/business/events", "events").await == RECORDS + 1)
                .then_some(())
        })
        .await;
        let deliveries = ListRoute {
            path: "/business/webhook-deliveries",
            records: "deliveries",
            id: "id",
            ordered_by: "created_at",
        };
        assert_list_contract(&app, &biz.owner_token, &deliveries, RECORDS).await;
        let events = ListRoute {
            path: "/business/events",
            records: "events",
            id: "id",
            ordered_by: "created_at",
        };
        assert_list_contract(&app, &biz.owner_token, &events, RECORDS + 1).await;
    }
);

e2e!(
    the_conversation_lists_keep_the_paging_contract,
    |app| async move {
        let tick = || app.clock.advance(std::time::Duration::from_secs(1));
        let biz = live_business(&app, BIZ, ALL_SCOPES).await;
        // RECORDS conversations, each with one user message; the first user writes RECORDS times.
        let mut first = None;
        for n in 0..RECORDS {
            let (_, token) = follower(&app, &biz, &format!("+1415555030{n}"), false).await;
            let wrote = app
                .post(
                    &format!("/businesses/{}/messages", biz.id),
                    Some(&token),
                    json!({ "text": format!("hello {n}") }),
                )
                .await;
            wrote.assert_ok(201);
            if n == 0 {
                first = Some((token, wrote.data()["conversation_id"].clone()));
            }
            tick();
        }
        let (token, conversation) = first.unwrap();
        let conversation = conversation.as_str().unwrap();
        for n in 1..RECORDS {
            tick();
            app.post(
                &format!("/businesses/{}/messages", biz.id),
                Some(&token),
                json!({ "text": format!("again {n}") }),
            )
            .await
            .assert_ok(201);
        }
        let list = ListRoute {
            path: "/business/conversations",
            records: "conversations",
            id: "id",
            ordered_by: "last_message_at",
        };
        assert_list_contract(&app, &biz.owner_token, &list, RECORDS).await;
        let thread_path = format!("/business/conversations/{conversation}/messages");
        let thread = ListRoute {
            path: &thread_path,
            records: "messages",
            id: "id",
            ordered_by: "at",
        };
        assert_list_contract(&app, &biz.owner_token, &thread, RECORDS).await;
        let own_path = format!("/businesses/{}/messages", biz.id);
        let own = ListRoute {
            path: &own_path,
            records: "messages",
            id: "id",
            ordered_by: "at",
        };
        assert_list_contract(&app, &token, &own, RECORDS).await;
        // The user's conversations: one per business written to.
        for n in 1..RECORDS {
            let other = live_business(&app, &format!("+1415555040{n}"), ALL_SCOPES).await;
            app.request(
                reqwest::Method::PUT,
                &format!("/businesses/{}/follow", other.id),
                Some(&token),
                Some(crate::harness::RawBody::Json(json!({}))),
            )
            .await
            .assert_ok(200);
            tick();
            app.post(
                &format!("/businesses/{}/messages", other.id),
                Some(&token),
                json!({ "text": "hi" }),
            )
            .await
            .assert_ok(201);
        }
        let mine = ListRoute {
            path: "/me/conversations",
            records: "conversations",
            id: "business_account_id",
            ordered_by: "last_message_at",
        };
        assert_list_contract(&app, &token, &mine, RECORDS).await;
    }
);
