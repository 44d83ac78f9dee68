//! Usage from counters (DESIGN, "Usage"): the totals agree with what is kept (messages by
//! status and category, deliveries by status, active and opted-in followers) through sends,
//! outcomes, webhook attempts, follow changes, a deleted endpoint, a retried delivery and the
//! purge; the daily figures have every day, count what happened that day and outlive the purge;
//! concurrent batches of two businesses never deadlock; the migration fills the counters as the
//! live path keeps them.

use std::sync::Arc;
use std::time::Duration;

use reqwest::Method;
use sea_orm::{ConnectionTrait, Statement};
use serde_json::{Value, json};

use crate::e2e;
use crate::fixtures::{
    ALL_SCOPES, Business, Receiver, add_member, follow_call, follower, live_business, purge,
    register_webhook, send_console, send_utility, send_v1, sends_per_second, settled, utility,
    wait_delivery,
};
use crate::harness::{Options, TestApp, eventually};

const BIZ: &str = "+14155550100";
const OTHER: &str = "+14155550190";
const DAY: Duration = Duration::from_secs(24 * 3600);

async fn usage(app: &TestApp, token: &str) -> Value {
    let reply = app.get("/business/usage", Some(token)).await;
    reply.assert_ok(200);
    reply.data().clone()
}

async fn daily(app: &TestApp, token: &str, days: u32) -> Vec<Value> {
    let reply = app
        .get(&format!("/business/usage/daily?days={days}"), Some(token))
        .await;
    reply.assert_ok(200);
    reply.data()["days"].as_array().unwrap().clone()
}

/// A `SELECT COUNT(*)` whose `$1` is the business's id.
async fn count(app: &TestApp, biz: &Business, sql: String) -> i64 {
    let db = &app.core.db;
    let id: uuid::Uuid = biz.id.parse().unwrap();
    db.query_one_raw(Statement::from_sql_and_values(
        db.get_database_backend(),
        sql,
        [id.into()],
    ))
    .await
    .unwrap()
    .unwrap()
    .try_get_by_index::<i64>(0)
    .unwrap()
}

/// The totals as a scan of what is kept would count them, in `GET /business/usage`'s shape.
async fn scanned(app: &TestApp, biz: &Business) -> Value {
    let messages = |condition: &str| {
        format!("SELECT COUNT(*) FROM messages WHERE business_id = $1 AND {condition}")
    };
    let mut by_category = serde_json::Map::new();
    for category in ["authentication", "utility", "marketing", "service"] {
        let n = count(app, biz, messages(&format!("category = '{category}'"))).await;
        by_category.insert(category.to_string(), json!(n));
    }
    let status = async |s: &str| count(app, biz, messages(&format!("status = '{s}'"))).await;
    let deliveries = |condition: &str| {
        format!("SELECT COUNT(*) FROM webhook_deliveries WHERE business_id = $1 AND {condition}")
    };
    let delivery = async |c: &str| count(app, biz, deliveries(c)).await;
    let follows = |condition: &str| {
        format!(
            "SELECT COUNT(*) FROM follows WHERE business_id = $1 AND status = 'active' \
             AND {condition}"
        )
    };
    json!({
        "messages": {
            "total": count(app, biz, messages("1 = 1")).await,
            "accepted": status("accepted").await,
            "delivered": status("delivered").await,
            "failed": status("failed").await,
            "scheduled": status("scheduled").await,
            "canceled": status("canceled").await,
            "by_category": by_category,
        },
        "webhooks": {
            "deliveries": delivery("1 = 1").await,
            "succeeded": delivery("status = 'succeeded'").await,
            "failed": delivery("status = 'failed'").await,
            "pending": delivery("status IN ('pending', 'retrying')").await,
        },
        "followers": {
            "active": count(app, biz, follows("1 = 1")).await,
            "marketing_opt_in": count(app, biz, follows("marketing_opt_in = TRUE")).await,
        },
    })
}

async fn assert_counters_match_a_scan(app: &TestApp, biz: &Business) -> Value {
    let counted = usage(app, &biz.owner_token).await;
    assert_eq!(counted, scanned(app, biz).await);
    counted
}

/// Days later the owner's access token has expired: sign in again.
async fn later(app: &TestApp, biz: &mut Business, by: Duration) {
    app.clock.advance(by);
    biz.owner_token = app.login(&biz.phone).await["access_token"]
        .as_str()
        .unwrap()
        .to_string();
}

/// Follows, consent changes, sends with both outcomes and webhook attempts that succeed and
/// fail: one of everything the counters count. Returns the business.
async fn activity(app: &TestApp, receiver: &Receiver) -> Business {
    let biz = live_business(app, BIZ, ALL_SCOPES).await;
    let (_, fan) = follower(app, &biz, "+14155550101", true).await;
    follower(app, &biz, "+14155550102", false).await;
    let (_, leaver) = follower(app, &biz, "+14155550103", true).await;
    follow_call(
        app,
        &fan,
        &biz,
        Method::PATCH,
        json!({ "marketing_opt_in": false }),
    )
    .await;
    follow_call(
        app,
        &fan,
        &biz,
        Method::PATCH,
        json!({ "marketing_opt_in": true }),
    )
    .await;
    follow_call(
        app,
        &leaver,
        &biz,
        Method::DELETE,
        json!({ "marketing_opt_in": false }),
    )
    .await;
    register_webhook(
        app,
        &biz,
        &receiver.url(),
        &["message.sent", "message.failed"],
    )
    .await;
    // Two delivered (one by console, which emits no event), one failed.
    let sent = send_utility(app, &biz, "+14155550101").await;
    let console = send_console(
        app,
        &biz.owner_token,
        json!({ "to": "+14155550102", "category": "utility", "body": "hi" }),
        None,
    )
    .await;
    console.assert_ok(200);
    let console = console.data()["id"].as_str().unwrap().to_string();
    settled(app, &biz.owner_token, &console).await;
    app.set_user_status("+14155550102", "suspended").await;
    let failed = send_utility(app, &biz, "+14155550102").await;
    settled(app, &biz.owner_token, &sent).await;
    settled(app, &biz.owner_token, &failed).await;
    receiver.wait_for(2).await;
    wait_delivery(app, &biz, |d| d["status"] == "succeeded").await;
    eventually("both deliveries settled", async || {
        let settled = usage(app, &biz.owner_token).await["webhooks"]["succeeded"] == 2;
        settled.then_some(())
    })
    .await;
    biz
}

e2e!(
    usage_totals_are_counters_that_agree_with_what_is_kept,
    |app| async move {
        let receiver = Receiver::start().await;
        let biz = activity(&app, &receiver).await;
        let counted = assert_counters_match_a_scan(&app, &biz).await;
        assert_eq!(counted["messages"]["total"], 3);
        assert_eq!(counted["messages"]["delivered"], 2);
        assert_eq!(counted["messages"]["failed"], 1);
        assert_eq!(counted["messages"]["accepted"], 0);
        assert_eq!(counted["messages"]["scheduled"], 0);
        assert_eq!(counted["messages"]["canceled"], 0);
        assert_eq!(counted["messages"]["by_category"]["utility"], 3);
        assert_eq!(counted["webhooks"]["deliveries"], 2);
        assert_eq!(counted["webhooks"]["succeeded"], 2);
        // Two active followers (the third left), one of them opted in.
        assert_eq!(counted["followers"]["active"], 2);
        assert_eq!(counted["followers"]["marketing_opt_in"], 1);

        // A delivery that fails for good, then is retried, then the endpoint goes while a
        // delivery waits: the counters follow every move.
        receiver.answer(400);
        let third = send_utility(&app, &biz, "+14155550101").await;
        settled(&app, &biz.owner_token, &third).await;
        let failed = wait_delivery(&app, &biz, |d| d["status"] == "failed").await;
        assert_counters_match_a_scan(&app, &biz).await;
        receiver.answer(500);
        let hook = app
            .get("/business/webhooks", Some(&biz.owner_token))
            .await
            .data()[0]["id"]
            .as_str()
            .unwrap()
            .to_string();
        app.post(
            &format!(
                "/business/webhook-deliveries/{}/retry",
                failed["id"].as_str().unwrap()
            ),
            Some(&biz.owner_token),
            json!({}),
        )
        .await
        .assert_ok(200);
        let counted = assert_counters_match_a_scan(&app, &biz).await;
        assert!(counted["webhooks"]["pending"].as_i64().unwrap() >= 1);
        wait_delivery(&app, &biz, |d| d["status"] == "retrying").await;
        app.request(
            Method::DELETE,
            &format!("/business/webhooks/{hook}"),
            Some(&biz.owner_token),
            None,
        )
        .await
        .assert_ok(200);
        let counted = assert_counters_match_a_scan(&app, &biz).await;
        assert_eq!(counted["webhooks"]["pending"], 0);
        assert_eq!(counted["webhooks"]["failed"], 1);
    }
);

e2e!(
    usage_daily_has_every_day_oldest_first_and_counts_each_on_its_day,
    |app| async move {
        let receiver = Receiver::start().await;
        let mut biz = activity(&app, &receiver).await;
        let first_day = daily(&app, &biz.owner_token, 1).await;
        assert_eq!(first_day.len(), 1);
        let today = core_service::clock::Clock::now(&app.clock)
            .format("%Y-%m-%d")
            .to_string();
        assert_eq!(first_day[0]["date"], today.as_str());
        let day = &first_day[0];
        assert_eq!(day["messages"]["total"], 3);
        assert_eq!(day["messages"]["utility"], 3);
        assert_eq!(day["messages"]["marketing"], 0);
        assert_eq!(day["delivered"], 2);
        assert_eq!(day["failed"], 1);
        assert_eq!(day["webhooks_succeeded"], 2);
        assert_eq!(day["webhooks_failed"], 0);
        // Three follows became active; one became unfollowed; consent changes are neither.
        assert_eq!(day["follows"], 3);
        assert_eq!(day["unfollows"], 1);

        // Two quiet days, then a send: the quiet days are present with zeros.
        later(&app, &mut biz, 2 * DAY).await;
        let id = send_utility(&app, &biz, "+14155550101").await;
        settled(&app, &biz.owner_token, &id).await;
        // Its webhook's report too (a worker reports after the receiver has answered).
        eventually("the third delivery settled", async || {
            let settled = usage(&app, &biz.owner_token).await["webhooks"]["succeeded"] == 3;
            settled.then_some(())
        })
        .await;
        let days = daily(&app, &biz.owner_token, 5).await;
        assert_eq!(days.len(), 5);
        let dates: Vec<&str> = days.iter().map(|d| d["date"].as_str().unwrap()).collect();
        let mut sorted = dates.clone();
        sorted.sort();
        sorted.dedup();
        assert_eq!(dates, sorted, "oldest first, each day once");
        assert_eq!(days[2], first_day[0]);
        assert_eq!(days[3]["messages"]["total"], 0);
        assert_eq!(days[3]["follows"], 0);
        assert_eq!(days[4]["messages"]["total"], 1);
        assert_eq!(days[4]["delivered"], 1);
        assert_eq!(days[0]["messages"]["total"], 0);
        let today = core_service::clock::Clock::now(&app.clock)
            .format("%Y-%m-%d")
            .to_string();
        assert_eq!(days[4]["date"], today.as_str());

        // Default 30 days, at most 90; anything else is refused.
        let reply = app
            .get("/business/usage/daily", Some(&biz.owner_token))
            .await;
        reply.assert_ok(200);
        assert_eq!(reply.data()["days"].as_array().unwrap().len(), 30);
        assert_eq!(daily(&app, &biz.owner_token, 90).await.len(), 90);
        for bad in ["0", "91", "-3", "abc", "2.5", ""] {
            let reply = app
                .get(
                    &format!("/business/usage/daily?days={bad}"),
                    Some(&biz.owner_token),
                )
                .await;
            reply.assert_error(400, "invalid_request");
            let detail = reply.body["detail"].as_str().unwrap();
            assert!(detail.contains("days"), "{bad}: {detail}");
        }
        // Any role reads it.
        let (_, member) = app.user("+14155550150").await;
        add_member(&app, &biz.owner_token, "+14155550150", "member").await;
        assert_eq!(daily(&app, &member, 5).await, days);
        usage(&app, &member).await;
    }
);

fn short_retention() -> Options {
    Options {
        configure: Some(Arc::new(|c| {
            c.retention.retention_messages_days = 2;
            c.retention.retention_deliveries_days = 1;
        })),
        ..Default::default()
    }
}

e2e!(
    usage_purge_decrements_the_totals_and_leaves_the_daily_figures,
    short_retention(),
    |app| async move {
        let receiver = Receiver::start().await;
        let mut biz = activity(&app, &receiver).await;
        let before = daily(&app, &biz.owner_token, 1).await;
        later(&app, &mut biz, 3 * DAY).await;
        let purged = purge(&app).await;
        assert_eq!(purged.get("messages"), Some(&3), "{purged:?}");
        assert_eq!(purged.get("deliveries"), Some(&2), "{purged:?}");
        let counted = assert_counters_match_a_scan(&app, &biz).await;
        assert_eq!(counted["messages"]["total"], 0);
        assert_eq!(counted["messages"]["delivered"], 0);
        assert_eq!(counted["messages"]["by_category"]["utility"], 0);
        assert_eq!(counted["webhooks"]["deliveries"], 0);
        // Followers are not purged.
        assert_eq!(counted["followers"]["active"], 2);
        let after = daily(&app, &biz.owner_token, 4).await;
        assert_eq!(after[0], before[0], "a purge never changes a day's figures");
    }
);

e2e!(
    usage_counters_of_two_businesses_sending_at_once_never_deadlock,
    sends_per_second(1000),
    |app| async move {
        let a = live_business(&app, BIZ, ALL_SCOPES).await;
        let b = live_business(&app, OTHER, ALL_SCOPES).await;
        follower(&app, &a, "+14155550101", false).await;
        follower(&app, &b, "+14155550102", false).await;
        const EACH: usize = 60;
        let sends = (0..EACH).flat_map(|_| {
            [
                send_v1(&app, &a, utility("+14155550101"), None),
                send_v1(&app, &b, utility("+14155550102"), None),
            ]
        });
        for reply in futures::future::join_all(sends).await {
            reply.assert_ok(200);
        }
        for biz in [&a, &b] {
            let counted = eventually("every outcome counted", async || {
                let counted = usage(&app, &biz.owner_token).await;
                (counted["messages"]["delivered"] == EACH).then_some(counted)
            })
            .await;
            assert_eq!(counted["messages"]["total"], EACH);
            assert_eq!(counted, scanned(&app, biz).await);
        }
    }
);

e2e!(usage_of_a_suspended_business_is_refused, |app| async move {
    let biz = live_business(&app, BIZ, ALL_SCOPES).await;
    app.set_business(&biz.id, None, Some("suspended")).await;
    for path in ["/business/usage", "/business/usage/daily"] {
        app.get(path, Some(&biz.owner_token))
            .await
            .assert_error(403, "business_suspended");
    }
    let (_, user) = app.user("+14155550160").await;
    app.get("/business/usage/daily", Some(&user))
        .await
        .assert_error(403, "not_a_business_account");
    app.get("/business/usage/daily", None)
        .await
        .assert_error(401, "unauthorized");
});

e2e!(
    usage_migration_fills_the_counters_as_the_live_path_keeps_them,
    |app| async move {
        let receiver = Receiver::start().await;
        let mut biz = activity(&app, &receiver).await;
        later(&app, &mut biz, DAY).await;
        let id = send_utility(&app, &biz, "+14155550101").await;
        settled(&app, &biz.owner_token, &id).await;
        receiver.wait_for(3).await;
        eventually("the third delivery settled", async || {
            (usage(&app, &biz.owner_token).await["webhooks"]["succeeded"] == 3).then_some(())
        })
        .await;
        let totals = usage(&app, &biz.owner_token).await;
        let days = daily(&app, &biz.owner_token, 3).await;
        crate::fixtures::redo_migrations_from(&app, "m20261126_000010_usage_counters").await;
        assert_eq!(usage(&app, &biz.owner_token).await, totals);
        assert_eq!(daily(&app, &biz.owner_token, 3).await, days);
    }
);
