//! The events API end to end: newest first with paging and a type filter, polling with `after`
//! in commit order (nothing missed or repeated while events commit concurrently, on PostgreSQL
//! with a transaction held open across the others), the bad queries, and a purged cursor.

use std::collections::BTreeSet;
use std::time::Duration;

use reqwest::Method;
use serde_json::{Value, json};

use crate::e2e;
use crate::fixtures::{
    ALL_SCOPES, Business, Receiver, follow_call, follower, live_business, purge, register_webhook,
    send_utility,
};
use crate::harness::{TestApp, eventually};

const BIZ: &str = "+14155550100";
const FAN: &str = "+14155550200";

async fn events(app: &TestApp, biz: &Business, query: &str) -> (Vec<Value>, bool) {
    let reply = app
        .get(&format!("/business/events{query}"), Some(&biz.owner_token))
        .await;
    reply.assert_ok(200);
    let data = reply.data();
    (
        data["events"].as_array().unwrap().clone(),
        data["has_more"].as_bool().unwrap(),
    )
}

/// The newest events once `n` of them are listed. On PostgreSQL an event is listed once every
/// transaction older than its own has ended on the server, other tests' included.
async fn visible(app: &TestApp, biz: &Business, n: usize) -> Vec<Value> {
    eventually(&format!("{n} events listed"), async || {
        let (all, _) = events(app, biz, "").await;
        (all.len() >= n).then_some(all)
    })
    .await
}

fn detail(reply: &crate::harness::Reply) -> &str {
    reply.body["detail"].as_str().unwrap_or_default()
}

fn ids(events: &[Value]) -> Vec<String> {
    events
        .iter()
        .map(|e| e["id"].as_str().unwrap().to_string())
        .collect()
}

/// Every event a poller collects from `after` (or the start when `None`), pages of `limit`.
async fn poll_all(
    app: &TestApp,
    biz: &Business,
    after: &mut Option<String>,
    limit: u32,
) -> Vec<Value> {
    let mut seen = Vec::new();
    loop {
        let query = match after {
            Some(id) => format!("?after={id}&limit={limit}"),
            None => format!("?limit={limit}"),
        };
        let (page, has_more) = events(app, biz, &query).await;
        if after.is_none() {
            // The first call starts from the newest event: a poller begins where things are.
            *after = page.first().map(|e| e["id"].as_str().unwrap().to_string());
            return page.into_iter().rev().collect();
        }
        if let Some(last) = page.last() {
            *after = Some(last["id"].as_str().unwrap().to_string());
        }
        seen.extend(page);
        if !has_more {
            return seen;
        }
    }
}

e2e!(
    events_list_newest_first_in_pages_filtered_by_type_with_their_data,
    |app| async move {
        let rx = Receiver::start().await;
        let biz = live_business(&app, BIZ, ALL_SCOPES).await;
        let (fan_id, fan) = follower(&app, &biz, FAN, false).await;
        follow_call(
            &app,
            &fan,
            &biz,
            Method::PATCH,
            json!({ "marketing_opt_in": true }),
        )
        .await;
        follow_call(&app, &fan, &biz, Method::DELETE, Value::Null).await;
        // A webhook.test is recorded for its endpoint only and never listed.
        let hook = register_webhook(&app, &biz, &rx.url(), &["message.sent"]).await;
        app.post(
            &format!("/business/webhooks/{}/test", hook["id"].as_str().unwrap()),
            Some(&biz.owner_token),
            json!({}),
        )
        .await
        .assert_ok(200);
        rx.wait_for(1).await;
        follow_call(
            &app,
            &fan,
            &biz,
            Method::PUT,
            json!({ "marketing_opt_in": false }),
        )
        .await;
        let message_id = send_utility(&app, &biz, FAN).await;
        let delivered = rx.wait_for(2).await[1].json();
        let listed = eventually("the message.sent event", async || {
            let (all, _) = events(&app, &biz, "").await;
            (all.len() == 5).then_some(all)
        })
        .await;
        let types: Vec<&str> = listed.iter().map(|e| e["type"].as_str().unwrap()).collect();
        assert_eq!(
            types,
            [
                "message.sent",
                "follow.created",
                "follow.deleted",
                "follow.updated",
                "follow.created"
            ]
        );
        // The event is what the webhook announced: the same id and data.
        assert_eq!(listed[0]["id"], delivered["event_id"]);
        assert_eq!(listed[0]["data"], delivered["data"]);
        assert_eq!(listed[0]["created_at"], delivered["created_at"]);
        assert_eq!(listed[0]["data"]["message_send_id"], message_id.as_str());
        let updated = &listed[3];
        assert_eq!(updated["data"]["user_id"], fan_id.as_str());
        assert_eq!(updated["data"]["marketing_opt_in"], true);
        assert_eq!(updated["data"]["status"], "active");
        assert!(
            chrono::DateTime::parse_from_rfc3339(updated["created_at"].as_str().unwrap()).is_ok()
        );

        // Pages of two, newest first, then the rest.
        let (first, more) = events(&app, &biz, "?limit=2").await;
        assert!(more);
        assert_eq!(ids(&first), ids(&listed[..2]));
        let (second, more) = events(
            &app,
            &biz,
            &format!(
                "?limit=2&starting_after={}",
                first[1]["id"].as_str().unwrap()
            ),
        )
        .await;
        assert!(more);
        assert_eq!(ids(&second), ids(&listed[2..4]));
        let (last, more) = events(
            &app,
            &biz,
            &format!(
                "?limit=2&starting_after={}",
                second[1]["id"].as_str().unwrap()
            ),
        )
        .await;
        assert!(!more);
        assert_eq!(ids(&last), ids(&listed[4..]));

        // One type, paged too.
        let (created, more) = events(&app, &biz, "?type=follow.created").await;
        assert!(!more);
        assert_eq!(
            ids(&created),
            [ids(&listed)[1].clone(), ids(&listed)[4].clone()]
        );
        let (created, more) = events(&app, &biz, "?type=follow.created&limit=1").await;
        assert!(more);
        assert_eq!(ids(&created), [ids(&listed)[1].clone()]);

        // Polling from the oldest: everything after it, oldest first.
        let oldest = listed[4]["id"].as_str().unwrap();
        let (after, more) = events(&app, &biz, &format!("?after={oldest}")).await;
        assert!(!more);
        let mut expected = ids(&listed[..4]);
        expected.reverse();
        assert_eq!(ids(&after), expected);
        let (after, more) =
            events(&app, &biz, &format!("?after={oldest}&type=follow.deleted")).await;
        assert!(!more);
        assert_eq!(ids(&after), [ids(&listed)[2].clone()]);
        let newest = listed[0]["id"].as_str().unwrap();
        let (after, more) = events(&app, &biz, &format!("?after={newest}")).await;
        assert!(after.is_empty() && !more);

        // Another business sees none of them.
        let other = live_business(&app, "+14155550101", ALL_SCOPES).await;
        let (theirs, _) = events(&app, &other, "").await;
        assert!(theirs.is_empty());
    }
);

e2e!(
    events_list_refuses_what_it_cannot_answer,
    |app| async move {
        let biz = live_business(&app, BIZ, ALL_SCOPES).await;
        follower(&app, &biz, FAN, false).await;
        let listed = visible(&app, &biz, 1).await;
        let id = listed[0]["id"].as_str().unwrap().to_string();
        let get = |query: String| {
            let app = &app;
            let token = biz.owner_token.clone();
            async move {
                app.get(&format!("/business/events{query}"), Some(&token))
                    .await
            }
        };
        for bad in ["0", "201", "x"] {
            get(format!("?limit={bad}"))
                .await
                .assert_error(400, "invalid_limit");
        }
        for bad in ["nope", "webhook.test", "message.sent,follow.created"] {
            let reply = get(format!("?type={bad}")).await;
            reply.assert_error(400, "invalid_request");
            assert!(detail(&reply).starts_with("type:"), "{}", detail(&reply));
        }
        get(format!("?starting_after={id}&after={id}"))
            .await
            .assert_error(400, "invalid_request");
        for bad in ["x".to_string(), uuid::Uuid::new_v4().to_string()] {
            get(format!("?starting_after={bad}"))
                .await
                .assert_error(400, "invalid_request");
            let reply = get(format!("?after={bad}")).await;
            reply.assert_error(400, "invalid_request");
            assert!(
                detail(&reply).contains("list without after"),
                "{}",
                detail(&reply)
            );
        }
        // Another business's event is no cursor here.
        let other = live_business(&app, "+14155550101", ALL_SCOPES).await;
        let reply = app
            .get(
                &format!("/business/events?after={id}"),
                Some(&other.owner_token),
            )
            .await;
        reply.assert_error(400, "invalid_request");
        // Any role reads; a token is needed.
        app.get("/business/events", None)
            .await
            .assert_error(401, "unauthorized");
    }
);

e2e!(
    polling_with_after_misses_and_repeats_nothing_while_events_commit_concurrently,
    |app| async move {
        let biz = live_business(&app, BIZ, ALL_SCOPES).await;
        const TASKS: usize = 4;
        const EACH: usize = 25;
        let mut fans = Vec::new();
        for i in 0..TASKS {
            fans.push(follower(&app, &biz, &format!("+1415555030{i}"), false).await);
        }
        visible(&app, &biz, TASKS).await;
        let mut after = None;
        let mut seen = poll_all(&app, &biz, &mut after, 7).await;
        assert_eq!(seen.len(), TASKS, "the follow.created events");

        // On PostgreSQL, a transaction that records an event first and commits last: while it
        // is open, nothing committed after it began may be listed (it would sort after the
        // poller's cursor... and the late event before it).
        let held = if app.config.database.database_url.starts_with("postgres") {
            use sea_orm::TransactionTrait;
            let txn = app.core.db.begin().await.unwrap();
            let mut tally = core_service::usage::Tally::new();
            core_service::events::record(
                &txn,
                biz.id.parse().unwrap(),
                proto::vocabulary::EventType::FollowUpdated,
                json!({ "user_id": fans[0].0, "status": "active", "marketing_opt_in": false,
                    "changed_at": "2026-11-24T00:00:00Z" }),
                chrono::Utc::now(),
                &mut tally,
            )
            .await
            .unwrap();
            Some(txn)
        } else {
            None
        };

        let app = std::sync::Arc::new(app);
        let mut tasks = Vec::new();
        for (_, token) in fans.clone() {
            let app = app.clone();
            let biz_id = biz.id.clone();
            tasks.push(tokio::spawn(async move {
                for n in 0..EACH {
                    let reply = app
                        .patch(
                            &format!("/businesses/{biz_id}/follow"),
                            Some(&token),
                            json!({ "marketing_opt_in": n % 2 == 0 }),
                        )
                        .await;
                    reply.assert_ok(200);
                }
            }));
        }
        // Poll while they commit.
        while !tasks.iter().all(|t| t.is_finished()) {
            let page = poll_all(&app, &biz, &mut after, 7).await;
            if held.is_some() {
                assert!(page.is_empty(), "listed past an open transaction: {page:?}");
            }
            seen.extend(page);
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        for task in tasks {
            task.await.unwrap();
        }
        let expected = TASKS + TASKS * EACH;
        if let Some(txn) = held {
            assert_eq!(
                seen.len(),
                TASKS,
                "nothing listed while the first writer is open"
            );
            txn.commit().await.unwrap();
        }
        let expected =
            expected + usize::from(app.config.database.database_url.starts_with("postgres"));
        let seen = eventually("every event polled", async || {
            seen.extend(poll_all(&app, &biz, &mut after, 7).await);
            (seen.len() >= expected).then(|| seen.clone())
        })
        .await;
        let unique: BTreeSet<String> = ids(&seen).into_iter().collect();
        assert_eq!(unique.len(), seen.len(), "an event was listed twice");
        assert_eq!(seen.len(), expected);
        // The poller saw exactly what the list holds, in its order.
        let mut all = Vec::new();
        let mut cursor: Option<String> = None;
        loop {
            let query = match &cursor {
                Some(id) => format!("?limit=200&starting_after={id}"),
                None => "?limit=200".to_string(),
            };
            let (page, more) = events(&app, &biz, &query).await;
            cursor = page.last().map(|e| e["id"].as_str().unwrap().to_string());
            all.extend(page);
            if !more {
                break;
            }
        }
        all.reverse();
        assert_eq!(ids(&all), ids(&seen));
    }
);

e2e!(
    an_after_naming_a_purged_event_is_refused_with_the_way_to_start_again,
    |app| async move {
        let biz = live_business(&app, BIZ, ALL_SCOPES).await;
        follower(&app, &biz, FAN, false).await;
        let listed = visible(&app, &biz, 1).await;
        let old = listed[0]["id"].as_str().unwrap().to_string();
        events(&app, &biz, &format!("?after={old}")).await;
        // Past RETENTION_EVENTS_DAYS (30), the purge deletes it.
        app.clock.advance(Duration::from_secs(31 * 24 * 3600));
        let purged = purge(&app).await;
        assert!(purged["events"] >= 1, "{purged:?}");
        // The access tokens of a month ago have expired.
        let owner = app.login(BIZ).await["access_token"]
            .as_str()
            .unwrap()
            .to_string();
        let biz = Business {
            owner_token: owner,
            ..biz
        };
        let reply = app
            .get(
                &format!("/business/events?after={old}"),
                Some(&biz.owner_token),
            )
            .await;
        reply.assert_error(400, "invalid_request");
        assert!(
            detail(&reply).contains("kept 30 days"),
            "{}",
            detail(&reply)
        );
        assert!(
            detail(&reply).contains("list without after"),
            "{}",
            detail(&reply)
        );
        // Starting again: the list without after, then polling from its newest.
        let (fresh, _) = events(&app, &biz, "").await;
        assert!(fresh.is_empty());
        let fan = app.login(FAN).await["access_token"]
            .as_str()
            .unwrap()
            .to_string();
        follow_call(
            &app,
            &fan,
            &biz,
            Method::PATCH,
            json!({ "marketing_opt_in": true }),
        )
        .await;
        let fresh = visible(&app, &biz, 1).await;
        assert_eq!(fresh.len(), 1);
        assert_eq!(fresh[0]["type"], "follow.updated");
    }
);
