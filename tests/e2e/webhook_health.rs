//! Delivery health (SPEC-MATRIX, fourth round; DESIGN "Delivery health"): `health` on every
//! webhook read through failures, a delivery that ends failed and recovery; what counts for
//! nothing; pause and reactivation; the per-day stats; exactly one `webhook.failing` and one
//! `webhook.recovered` per turn under concurrent reports, to the other subscribed endpoints
//! and the events API only; the alert SMS at most once per endpoint per 24 h; an endpoint that
//! fails for days still active and receiving.

use std::sync::Arc;
use std::time::Duration;

use serde_json::{Value, json};

use crate::e2e;
use crate::fixtures::jobs::{answered, next_job, open_stream, pending_deliveries, report_through};
use crate::fixtures::{
    ALL_SCOPES, Business, Receiver, add_member, follower, live_business, register_webhook,
    send_utility,
};
use crate::harness::{Options, TestApp, eventually, quiet_for};

const BIZ: &str = "+14155550100";
const FAN: &str = "+14155550200";
const ADMIN: &str = "+14155550300";

fn long_sessions() -> Options {
    // Days of the test clock go by: keep the console token valid.
    Options {
        configure: Some(Arc::new(|c| c.access_token_ttl_secs = 30 * 86_400)),
        ..Default::default()
    }
}

/// The endpoint `id` as the list reads it.
async fn webhook(app: &TestApp, biz: &Business, id: &str) -> Value {
    let list = app.get("/business/webhooks", Some(&biz.owner_token)).await;
    list.assert_ok(200);
    list.data()
        .as_array()
        .unwrap()
        .iter()
        .find(|w| w["id"] == id)
        .cloned()
        .expect("the endpoint is listed")
}

/// Waits until the endpoint's health satisfies `check`; returns it.
async fn health_when(
    app: &TestApp,
    biz: &Business,
    id: &str,
    check: impl Fn(&Value) -> bool,
) -> Value {
    eventually("the endpoint's health", async || {
        let health = webhook(app, biz, id).await["health"].clone();
        check(&health).then_some(health)
    })
    .await
}

/// `GET /business/webhooks/{id}/stats`, with `days` when given (answered 200).
async fn stats_of(
    app: &TestApp,
    biz: &Business,
    id: &str,
    days: Option<u32>,
) -> crate::harness::Reply {
    let query = days.map(|d| format!("?days={d}")).unwrap_or_default();
    let reply = app
        .get(
            &format!("/business/webhooks/{id}/stats{query}"),
            Some(&biz.owner_token),
        )
        .await;
    reply.assert_ok(200);
    reply
}

/// The business's events of `event_type`, as the events API lists them.
async fn events_of(app: &TestApp, biz: &Business, event_type: &str) -> Vec<Value> {
    let page = app
        .get(
            &format!("/business/events?type={event_type}&limit=100"),
            Some(&biz.owner_token),
        )
        .await;
    page.assert_ok(200);
    page.data()["events"].as_array().unwrap().clone()
}

/// The requests `rx` received of `event_type`.
fn received_of(rx: &Receiver, event_type: &str) -> Vec<Value> {
    rx.received()
        .iter()
        .filter(|r| r.header("x-service-event") == event_type)
        .map(|r| r.json())
        .collect()
}

e2e!(
    an_endpoint_turns_failing_after_five_failed_attempts_and_healthy_at_its_next_success,
    long_sessions(),
    |app| async move {
        let failing = Receiver::start().await;
        failing.answer(500);
        let watcher = Receiver::start().await;
        let biz = live_business(&app, BIZ, ALL_SCOPES).await;
        follower(&app, &biz, FAN, false).await;
        app.user(ADMIN).await;
        add_member(&app, &biz.owner_token, ADMIN, "admin").await;
        let hook = register_webhook(&app, &biz, &failing.url(), &["message.sent"]).await;
        let id = hook["id"].as_str().unwrap().to_string();
        let health = &hook["health"];
        assert_eq!(health["state"], "healthy");
        assert_eq!(health["consecutive_failures"], 0);
        assert!(health["failing_since"].is_null() && health["last_failure"].is_null());
        register_webhook(
            &app,
            &biz,
            &watcher.url(),
            &["webhook.failing", "webhook.recovered"],
        )
        .await;

        // Four failed attempts: still healthy, the failures counted.
        for _ in 0..4 {
            send_utility(&app, &biz, FAN).await;
        }
        failing.wait_for(4).await;
        let health = health_when(&app, &biz, &id, |h| h["consecutive_failures"] == 4).await;
        assert_eq!(health["state"], "healthy");
        assert_eq!(health["last_failure"]["http_status"], 500);
        assert_eq!(health["last_failure"]["error"], "receiver answered 500");
        assert!(health["last_failure_at"].is_string());
        assert!(health["last_success_at"].is_null());

        // The fifth: failing, announced once to the other endpoint and the events API.
        send_utility(&app, &biz, FAN).await;
        let health = health_when(&app, &biz, &id, |h| h["state"] == "failing").await;
        assert_eq!(health["consecutive_failures"], 5);
        assert!(health["failing_since"].is_string());
        let announced = eventually("webhook.failing reaches the other endpoint", async || {
            let got = received_of(&watcher, "webhook.failing");
            (!got.is_empty()).then_some(got)
        })
        .await;
        let data = &announced[0]["data"];
        assert_eq!(data["webhook_id"], id.as_str());
        assert_eq!(data["url"], failing.url().as_str());
        assert_eq!(data["consecutive_failures"], 5);
        assert_eq!(data["failing_since"], health["failing_since"]);
        assert_eq!(data["last_failure"]["http_status"], 500);
        let listed = eventually("webhook.failing listed", async || {
            let listed = events_of(&app, &biz, "webhook.failing").await;
            (!listed.is_empty()).then_some(listed)
        })
        .await;
        assert_eq!(listed.len(), 1);
        assert_eq!(listed[0]["data"], *data);
        // Never to the failing endpoint itself.
        assert!(received_of(&failing, "webhook.failing").is_empty());

        // One alert SMS to the owner and one to the admin, naming the endpoint by id and host.
        for phone in [BIZ, ADMIN] {
            let sms = eventually("the alert SMS", async || {
                let sent: Vec<String> = app
                    .sms
                    .sent_to(phone)
                    .into_iter()
                    .filter(|t| t.contains("failing"))
                    .collect();
                (!sent.is_empty()).then_some(sent)
            })
            .await;
            assert_eq!(sms.len(), 1, "{sms:?}");
            assert!(sms[0].contains(&id), "{}", sms[0]);
            assert!(sms[0].contains("127.0.0.1"), "{}", sms[0]);
            assert!(
                !sms[0].contains(&failing.url()),
                "the path stays out: {}",
                sms[0]
            );
        }

        // More failures while failing announce nothing more.
        send_utility(&app, &biz, FAN).await;
        health_when(&app, &biz, &id, |h| h["consecutive_failures"] == 6).await;

        // The receiver answers again: the next success turns it healthy, once.
        failing.answer(200);
        app.clock.advance(Duration::from_secs(60));
        let health = health_when(&app, &biz, &id, |h| h["state"] == "healthy").await;
        assert_eq!(health["consecutive_failures"], 0);
        assert!(health["failing_since"].is_null());
        assert!(health["last_success_at"].is_string());
        // The last failure stays readable.
        assert_eq!(health["last_failure"]["http_status"], 500);
        let recovered = eventually("webhook.recovered reaches the other endpoint", async || {
            let got = received_of(&watcher, "webhook.recovered");
            (!got.is_empty()).then_some(got)
        })
        .await;
        assert_eq!(recovered[0]["data"]["webhook_id"], id.as_str());
        assert_eq!(recovered[0]["data"]["consecutive_failures"], 6);
        assert_eq!(recovered[0]["data"]["failing_since"], data["failing_since"]);
        quiet_for(Duration::from_millis(500)).await;
        assert_eq!(received_of(&watcher, "webhook.failing").len(), 1);
        assert_eq!(received_of(&watcher, "webhook.recovered").len(), 1);
        eventually("webhook.recovered listed once", async || {
            (events_of(&app, &biz, "webhook.recovered").await.len() == 1).then_some(())
        })
        .await;

        // Failing again within 24 h: an event, but no second SMS.
        failing.answer(500);
        for _ in 0..5 {
            send_utility(&app, &biz, FAN).await;
        }
        health_when(&app, &biz, &id, |h| h["state"] == "failing").await;
        eventually("the second webhook.failing", async || {
            (received_of(&watcher, "webhook.failing").len() == 2).then_some(())
        })
        .await;
        core_service::webhooks::health::send_due_alerts(&app.core)
            .await
            .unwrap();
        assert_eq!(
            app.sms
                .sent_to(BIZ)
                .iter()
                .filter(|t| t.contains("failing"))
                .count(),
            1,
            "one alert per endpoint per 24 h"
        );
    }
);

e2e!(
    a_delivery_that_ends_failed_turns_failing_and_an_endpoint_failing_for_days_still_receives,
    long_sessions(),
    |app| async move {
        let rx = Receiver::start().await;
        rx.answer(410);
        let biz = live_business(&app, BIZ, ALL_SCOPES).await;
        follower(&app, &biz, FAN, false).await;
        let hook = register_webhook(&app, &biz, &rx.url(), &["message.sent"]).await;
        let id = hook["id"].as_str().unwrap().to_string();
        // A permanent 4xx ends the delivery failed: failing at its first failure.
        send_utility(&app, &biz, FAN).await;
        let health = health_when(&app, &biz, &id, |h| h["state"] == "failing").await;
        assert_eq!(health["consecutive_failures"], 1);
        assert_eq!(health["last_failure"]["http_status"], 410);
        let stats = stats_of(&app, &biz, &id, Some(1)).await;
        assert_eq!(stats.data()["days"][0]["exhausted"], 1);
        assert_eq!(stats.data()["days"][0]["failed_attempts"], 1);

        // Three days later, still failing: still active, still sent its new events.
        for day in 1..=3 {
            app.clock.advance(Duration::from_secs(86_400));
            send_utility(&app, &biz, FAN).await;
            rx.wait_for(1 + day).await;
            health_when(&app, &biz, &id, |h| h["consecutive_failures"] == 1 + day).await;
        }
        let hook = webhook(&app, &biz, &id).await;
        assert_eq!(hook["active"], true);
        assert_eq!(hook["health"]["state"], "failing");
        assert_eq!(hook["health"]["consecutive_failures"], 4);
    }
);

e2e!(
    a_test_event_counts_for_nothing_and_a_paused_endpoint_reads_paused,
    |app| async move {
        let rx = Receiver::start().await;
        rx.answer(500);
        let biz = live_business(&app, BIZ, ALL_SCOPES).await;
        let hook = register_webhook(&app, &biz, &rx.url(), &["message.sent"]).await;
        let id = hook["id"].as_str().unwrap().to_string();
        for _ in 0..5 {
            app.post(
                &format!("/business/webhooks/{id}/test"),
                Some(&biz.owner_token),
                json!({}),
            )
            .await
            .assert_ok(200);
        }
        rx.wait_for(5).await;
        quiet_for(Duration::from_millis(300)).await;
        let health = webhook(&app, &biz, &id).await["health"].clone();
        assert_eq!(health["state"], "healthy");
        assert_eq!(health["consecutive_failures"], 0);
        assert!(health["last_failure_at"].is_null());
        let stats = stats_of(&app, &biz, &id, None).await;
        let days = stats.data()["days"].as_array().unwrap().clone();
        assert_eq!(days.len(), 7, "seven days by default");
        assert!(days.iter().all(|d| d["attempts"] == 0));

        // Paused: the state reads paused; reactivated: what it was, announced to nobody.
        let paused = app
            .patch(
                &format!("/business/webhooks/{id}"),
                Some(&biz.owner_token),
                json!({ "active": false }),
            )
            .await;
        paused.assert_ok(200);
        assert_eq!(paused.data()["health"]["state"], "paused");
        let resumed = app
            .patch(
                &format!("/business/webhooks/{id}"),
                Some(&biz.owner_token),
                json!({ "active": true }),
            )
            .await;
        assert_eq!(resumed.data()["health"]["state"], "healthy");
        assert!(events_of(&app, &biz, "webhook.recovered").await.is_empty());
    }
);

e2e!(
    a_job_given_back_without_an_attempt_counts_for_nothing,
    |app| async move {
        let rx = Receiver::start().await;
        let (biz, _) = pending_deliveries(&app, &rx, (BIZ, FAN), 1).await;
        let id = webhook_id_of(&app, &biz).await;
        let (_client, mut stream) = open_stream(&app.grpc_url, "returning-worker", false, &[])
            .await
            .unwrap();
        next_job(&mut stream).await;
        // The stream closes with the job unreported: it is given back.
        drop(stream);
        let (_client, mut stream) = open_stream(&app.grpc_url, "second-worker", false, &[])
            .await
            .unwrap();
        let job = next_job(&mut stream).await;
        let health = webhook(&app, &biz, &id).await["health"].clone();
        assert_eq!(health["consecutive_failures"], 0);
        assert!(health["last_failure_at"].is_null());
        report_through(&app.grpc_url, vec![answered(&job, 200)]).await;
        let health = health_when(&app, &biz, &id, |h| h["last_success_at"].is_string()).await;
        assert_eq!(health["state"], "healthy");
        let stats = stats_of(&app, &biz, &id, Some(1)).await;
        assert_eq!(
            stats.data()["days"][0]["attempts"],
            1,
            "one attempt, not two"
        );
        assert_eq!(stats.data()["days"][0]["succeeded_attempts"], 1);
    }
);

async fn webhook_id_of(app: &TestApp, biz: &Business) -> String {
    let list = app.get("/business/webhooks", Some(&biz.owner_token)).await;
    list.data()[0]["id"].as_str().unwrap().to_string()
}

e2e!(
    concurrent_reports_through_two_cores_turn_an_endpoint_failing_once_and_healthy_once,
    long_sessions(),
    |app| async move {
        let rx = Receiver::start().await;
        let watcher = Receiver::start().await;
        let (biz, ids) = pending_deliveries(&app, &rx, (BIZ, FAN), 12).await;
        let id = webhook_id_of(&app, &biz).await;
        register_webhook(
            &app,
            &biz,
            &watcher.url(),
            &["webhook.failing", "webhook.recovered"],
        )
        .await;
        // A stream leases the twelve deliveries; their failures are reported at once, each on
        // its own connection (so each in its own transaction), through two cores on PostgreSQL
        // (where a fleet runs; SQLite's one file has one core).
        let postgres = sea_orm::ConnectionTrait::get_database_backend(&app.core.db)
            == sea_orm::DbBackend::Postgres;
        let second = if postgres {
            Some(app.second_stack(|_| {}).await)
        } else {
            None
        };
        let cores = [
            app.grpc_url.clone(),
            second
                .as_ref()
                .map_or(app.grpc_url.clone(), |s| s.grpc_url.clone()),
        ];
        // (Until it has every one of the twelve: the other endpoint's deliveries come too.)
        let lease_all = async || {
            let (client, mut stream) = open_stream(&app.grpc_url, "worker", false, &[])
                .await
                .unwrap();
            let mut jobs: Vec<proto::v1::Job> = Vec::new();
            while !ids
                .iter()
                .all(|id| jobs.iter().any(|j| j.delivery_id == id.to_string()))
            {
                assert!(jobs.len() < 16, "the twelve deliveries are leased");
                jobs.push(next_job(&mut stream).await);
            }
            (jobs, (client, stream))
        };
        let (jobs, streams) = lease_all().await;
        let reports = jobs.iter().enumerate().map(|(n, job)| {
            let url = cores[n % 2].clone();
            let report = answered(job, 503);
            async move { report_through(&url, vec![report]).await }
        });
        futures::future::join_all(reports).await;
        drop(streams);
        let health = health_when(&app, &biz, &id, |h| h["consecutive_failures"] == 12).await;
        assert_eq!(health["state"], "failing");

        // Their retries all succeed, reported at once: healthy, once.
        app.clock.advance(Duration::from_secs(60));
        let (jobs, streams) = lease_all().await;
        let reports = jobs.iter().enumerate().map(|(n, job)| {
            let url = cores[n % 2].clone();
            let report = answered(job, 200);
            async move { report_through(&url, vec![report]).await }
        });
        futures::future::join_all(reports).await;
        drop(streams);
        health_when(&app, &biz, &id, |h| h["state"] == "healthy").await;
        // (The events API lists an event once every older transaction on the server ended.)
        eventually("the recovery listed", async || {
            (!events_of(&app, &biz, "webhook.recovered").await.is_empty()).then_some(())
        })
        .await;
        quiet_for(Duration::from_millis(300)).await;
        assert_eq!(events_of(&app, &biz, "webhook.failing").await.len(), 1);
        assert_eq!(events_of(&app, &biz, "webhook.recovered").await.len(), 1);
        let stats = stats_of(&app, &biz, &id, Some(1)).await;
        let today = &stats.data()["days"][0];
        assert_eq!(today["attempts"], 24, "{today}");
        assert_eq!(today["failed_attempts"], 12);
        assert_eq!(today["succeeded_attempts"], 12);
        assert_eq!(today["exhausted"], 0);
    }
);

e2e!(
    stats_count_each_utc_day_and_check_their_range,
    long_sessions(),
    |app| async move {
        let rx = Receiver::start().await;
        let biz = live_business(&app, BIZ, ALL_SCOPES).await;
        follower(&app, &biz, FAN, false).await;
        let hook = register_webhook(&app, &biz, &rx.url(), &["message.sent"]).await;
        let id = hook["id"].as_str().unwrap().to_string();
        rx.queue(&[500]);
        send_utility(&app, &biz, FAN).await;
        rx.wait_for(1).await;
        health_when(&app, &biz, &id, |h| h["consecutive_failures"] == 1).await;
        // The next day: its retry and a new send succeed.
        app.clock.advance(Duration::from_secs(86_400));
        send_utility(&app, &biz, FAN).await;
        rx.wait_for(3).await;
        health_when(&app, &biz, &id, |h| h["consecutive_failures"] == 0).await;
        let path = format!("/business/webhooks/{id}/stats?days=2");
        let stats = eventually("both days counted", async || {
            let stats = app.get(&path, Some(&biz.owner_token)).await;
            (stats.data()["days"][1]["attempts"] == 2).then_some(stats)
        })
        .await;
        let days = stats.data()["days"].as_array().unwrap().clone();
        assert_eq!(days.len(), 2);
        let today = core_service::clock::Clock::now(&app.clock).date_naive();
        assert_eq!(days[1]["date"], today.to_string());
        assert_eq!(days[0]["date"], today.pred_opt().unwrap().to_string());
        assert_eq!(days[0]["attempts"], 1);
        assert_eq!(days[0]["failed_attempts"], 1);
        assert_eq!(days[1]["succeeded_attempts"], 2);
        assert_eq!(days[1]["failed_attempts"], 0);

        // Any role reads them; days outside 1-90 and foreign endpoints are refused.
        for bad in ["0", "91", "seven"] {
            app.get(
                &format!("/business/webhooks/{id}/stats?days={bad}"),
                Some(&biz.owner_token),
            )
            .await
            .assert_error(400, "invalid_request");
        }
        let other = live_business(&app, "+14155550101", ALL_SCOPES).await;
        app.get(
            &format!("/business/webhooks/{id}/stats"),
            Some(&other.owner_token),
        )
        .await
        .assert_error(404, "webhook_not_found");
    }
);

e2e!(
    a_member_who_turned_alerts_off_gets_none_and_alerts_leave_the_sign_in_path_alone,
    |app| async move {
        let rx = Receiver::start().await;
        rx.answer(404);
        let biz = live_business(&app, BIZ, ALL_SCOPES).await;
        follower(&app, &biz, FAN, false).await;
        let (_, admin_token) = app.user(ADMIN).await;
        add_member(&app, &biz.owner_token, ADMIN, "admin").await;
        let me = app
            .patch(
                "/me",
                Some(&admin_token),
                json!({ "webhook_alerts": false }),
            )
            .await;
        me.assert_ok(200);
        assert_eq!(me.data()["webhook_alerts"], false);
        let me = app.get("/me", Some(&biz.owner_token)).await;
        assert_eq!(me.data()["webhook_alerts"], true);
        register_webhook(&app, &biz, &rx.url(), &["message.sent"]).await;
        // The provider fails the alert: the sign-in path does not take it for its own failure.
        app.sms.fail(true);
        send_utility(&app, &biz, FAN).await;
        eventually("the alert was tried", async || {
            use sea_orm::EntityTrait as _;
            let tried = core_service::entities::webhook_alerts::Entity::find()
                .all(&app.core.db)
                .await
                .unwrap();
            (tried.len() == 1 && tried[0].attempts >= 1).then_some(())
        })
        .await;
        app.sms.fail(false);
        app.post(
            "/auth/business/otp/request",
            None,
            json!({ "phone_number": "+14155550999" }),
        )
        .await
        .assert_ok(200);
        // Retried later: the owner gets it, the admin who turned them off does not.
        app.clock.advance(Duration::from_secs(120));
        core_service::webhooks::health::send_due_alerts(&app.core)
            .await
            .unwrap();
        eventually("the owner's alert", async || {
            let sent = app.sms.sent_to(BIZ);
            sent.iter().any(|t| t.contains("failing")).then_some(())
        })
        .await;
        assert!(
            app.sms
                .sent_to(ADMIN)
                .iter()
                .all(|t| !t.contains("failing"))
        );
    }
);

fn failing_after_two_and_no_sms() -> Options {
    Options {
        configure: Some(Arc::new(|c| {
            c.webhooks.webhook_failing_after = 2;
            c.webhooks.webhook_alert_sms = false;
        })),
        ..Default::default()
    }
}

e2e!(
    webhook_failing_after_sets_when_an_endpoint_turns_and_webhook_alert_sms_off_sends_none,
    failing_after_two_and_no_sms(),
    |app| async move {
        let rx = Receiver::start().await;
        rx.answer(500);
        let biz = live_business(&app, BIZ, ALL_SCOPES).await;
        follower(&app, &biz, FAN, false).await;
        let hook = register_webhook(&app, &biz, &rx.url(), &["message.sent"]).await;
        let id = hook["id"].as_str().unwrap().to_string();
        send_utility(&app, &biz, FAN).await;
        let health = health_when(&app, &biz, &id, |h| h["consecutive_failures"] == 1).await;
        assert_eq!(health["state"], "healthy");
        send_utility(&app, &biz, FAN).await;
        health_when(&app, &biz, &id, |h| h["state"] == "failing").await;
        // No alert queued, none sent.
        use sea_orm::EntityTrait as _;
        let queued = core_service::entities::webhook_alerts::Entity::find()
            .all(&app.core.db)
            .await
            .unwrap();
        assert!(queued.is_empty(), "{queued:?}");
        assert!(app.sms.sent_to(BIZ).iter().all(|t| !t.contains("failing")));
    }
);
