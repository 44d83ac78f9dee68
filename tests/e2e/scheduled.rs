//! Scheduled and expiring sends (DESIGN, "Scheduled, expiring and canceled sends"), with the
//! injected clock: a send with a future `send_at` is `scheduled`, then handed out after it with
//! its event; consent and the business are checked again when it is due; a message past its
//! `expires_at` fails `expired`; both times are validated and part of the Idempotency-Key's
//! content; a scheduled message survives a core restart.

use std::time::Duration;

use reqwest::Method;
use serde_json::{Value, json};

use core_service::clock::Clock;

use crate::e2e;
use crate::fixtures::{
    ALL_SCOPES, Business, Receiver, follow_call, follower, live_business, outcome_events,
    register_webhook, send_console, send_service, send_v1,
};
use crate::harness::{TestApp, eventually, quiet_for};

const BIZ: &str = "+14155550100";
const FAN: &str = "+14155550101";
const HOUR: Duration = Duration::from_secs(3600);

/// An RFC 3339 time `secs` seconds from the test clock's now.
fn from_now(app: &TestApp, secs: i64) -> String {
    (app.clock.now() + chrono::TimeDelta::seconds(secs))
        .to_rfc3339_opts(chrono::SecondsFormat::Secs, true)
}

fn utility_at(send_at: &str) -> Value {
    json!({ "to": FAN, "category": "utility", "body": "Your table is ready", "send_at": send_at })
}

async fn record(app: &TestApp, token: &str, id: &str) -> Value {
    let reply = app
        .get(&format!("/business/messages/{id}"), Some(token))
        .await;
    reply.assert_ok(200);
    reply.data().clone()
}

/// The message, once it is delivered or failed.
async fn decided(app: &TestApp, token: &str, id: &str) -> Value {
    eventually(&format!("message {id} decided"), async || {
        let record = record(app, token, id).await;
        ["delivered", "failed"]
            .contains(&record["status"].as_str().unwrap())
            .then_some(record)
    })
    .await
}

/// The status the database holds (readable whatever the business's state).
async fn stored(app: &TestApp, id: &str) -> core_service::entities::messages::Model {
    use sea_orm::EntityTrait;
    core_service::entities::messages::Entity::find_by_id(id.parse::<uuid::Uuid>().unwrap())
        .one(&app.core.db)
        .await
        .unwrap()
        .unwrap()
}

async fn scheduled_send(app: &TestApp, biz: &Business, body: Value) -> String {
    let reply = send_v1(app, biz, body, None).await;
    reply.assert_ok(200);
    assert_eq!(reply.data()["status"], "sent");
    reply.data()["id"].as_str().unwrap().to_string()
}

e2e!(
    scheduled_send_waits_for_send_at_then_is_delivered_with_its_event,
    |app| async move {
        let receiver = Receiver::start().await;
        let biz = live_business(&app, BIZ, ALL_SCOPES).await;
        follower(&app, &biz, FAN, false).await;
        register_webhook(&app, &biz, &receiver.url(), &["message.sent"]).await;
        let send_at = from_now(&app, 3600);
        let id = scheduled_send(&app, &biz, utility_at(&send_at)).await;
        let entry = record(&app, &biz.owner_token, &id).await;
        assert_eq!(entry["status"], "scheduled");
        assert_eq!(
            chrono::DateTime::parse_from_rfc3339(entry["send_at"].as_str().unwrap()).unwrap(),
            chrono::DateTime::parse_from_rfc3339(&send_at).unwrap()
        );
        assert!(entry["expires_at"].is_null());
        let usage = app.get("/business/usage", Some(&biz.owner_token)).await;
        assert_eq!(usage.data()["messages"]["scheduled"], 1);
        assert_eq!(usage.data()["messages"]["accepted"], 0);
        let listed = app
            .get(
                "/business/messages?status=scheduled",
                Some(&biz.owner_token),
            )
            .await;
        assert_eq!(listed.data()["messages"][0]["id"], id.as_str());
        // Nothing goes out before its time.
        quiet_for(Duration::from_millis(700)).await;
        assert_eq!(
            record(&app, &biz.owner_token, &id).await["status"],
            "scheduled"
        );
        assert!(receiver.received().is_empty());

        app.clock.advance(HOUR + Duration::from_secs(1));
        // An hour later the owner signs in again (access tokens last 15 minutes).
        let token = app.login(BIZ).await["access_token"]
            .as_str()
            .unwrap()
            .to_string();
        let done = decided(&app, &token, &id).await;
        assert_eq!(done["status"], "delivered");
        let received = receiver.wait_for(1).await;
        assert_eq!(received[0].json()["data"]["message_send_id"], id.as_str());
        let usage = app.get("/business/usage", Some(&token)).await;
        assert_eq!(usage.data()["messages"]["scheduled"], 0);
        assert_eq!(usage.data()["messages"]["delivered"], 1);
        assert_eq!(usage.data()["messages"]["total"], 1);
    }
);

e2e!(
    scheduled_send_checks_consent_again_when_due,
    |app| async move {
        let biz = live_business(&app, BIZ, ALL_SCOPES).await;
        let (_, fan) = follower(&app, &biz, FAN, true).await;
        let (_, other) = follower(&app, &biz, "+14155550102", false).await;
        let marketing = json!({
            "to": FAN, "category": "marketing", "body": "Sale!", "send_at": from_now(&app, 600)
        });
        let withdrawn = scheduled_send(&app, &biz, marketing).await;
        let utility = json!({
            "to": "+14155550102", "category": "utility", "body": "hi", "send_at": from_now(&app, 600)
        });
        let unfollowed = scheduled_send(&app, &biz, utility).await;
        // Before the time: one withdraws marketing consent, the other unfollows.
        follow_call(
            &app,
            &fan,
            &biz,
            Method::PATCH,
            json!({ "marketing_opt_in": false }),
        )
        .await;
        follow_call(&app, &other, &biz, Method::DELETE, json!({})).await;
        app.clock.advance(Duration::from_secs(601));
        for id in [&withdrawn, &unfollowed] {
            let done = decided(&app, &biz.owner_token, id).await;
            assert_eq!(done["status"], "failed");
            assert_eq!(done["failure_reason"], "consent_withdrawn");
        }
        // Each ends in exactly one message.failed with the reason.
        let events = outcome_events(&app, &biz).await;
        assert_eq!(events.len(), 2);
        for event in events {
            assert_eq!(event.event_type.as_str(), "message.failed");
            let data: Value = serde_json::from_str(&event.data).unwrap();
            assert_eq!(data["reason"], "consent_withdrawn");
        }
    }
);

e2e!(
    scheduled_send_of_a_business_suspended_meanwhile_fails_business_not_live,
    |app| async move {
        let biz = live_business(&app, BIZ, ALL_SCOPES).await;
        follower(&app, &biz, FAN, false).await;
        let id = scheduled_send(&app, &biz, utility_at(&from_now(&app, 60))).await;
        app.set_business(&biz.id, None, Some("suspended")).await;
        app.clock.advance(Duration::from_secs(61));
        let failed = eventually("the message failed", async || {
            let message = stored(&app, &id).await;
            (message.status.as_str() == "failed").then_some(message)
        })
        .await;
        assert_eq!(
            failed.failure_reason.map(|r| r.as_str()),
            Some("business_not_live")
        );
    }
);

e2e!(
    a_message_not_handed_out_by_expires_at_fails_expired,
    |app| async move {
        let biz = live_business(&app, BIZ, ALL_SCOPES).await;
        follower(&app, &biz, FAN, false).await;
        let body = json!({
            "to": FAN, "category": "utility", "body": "code valid 5 minutes",
            "send_at": from_now(&app, 60), "expires_at": from_now(&app, 120),
        });
        let id = scheduled_send(&app, &biz, body).await;
        let entry = record(&app, &biz.owner_token, &id).await;
        assert!(entry["expires_at"].is_string());
        // The dispatcher first sees it after its expiry.
        app.clock.advance(Duration::from_secs(180));
        let done = decided(&app, &biz.owner_token, &id).await;
        assert_eq!(done["status"], "failed");
        assert_eq!(done["failure_reason"], "expired");
        let events = outcome_events(&app, &biz).await;
        assert_eq!(events.len(), 1);
        let data: Value = serde_json::from_str(&events[0].data).unwrap();
        assert_eq!(data["reason"], "expired");
    }
);

e2e!(
    send_at_and_expires_at_are_checked_on_every_send_path,
    |app| async move {
        let biz = live_business(&app, BIZ, ALL_SCOPES).await;
        follower(&app, &biz, FAN, false).await;
        let day = 24 * 3600;
        let cases: Vec<(Value, &str)> = vec![
            (json!({ "send_at": "tomorrow" }), "send_at"),
            (json!({ "send_at": 12 }), "send_at"),
            (json!({ "send_at": from_now(&app, 31 * day) }), "send_at"),
            (
                json!({ "expires_at": from_now(&app, 31 * day) }),
                "expires_at",
            ),
            (json!({ "expires_at": from_now(&app, -5) }), "expires_at"),
            (
                json!({ "send_at": from_now(&app, 600), "expires_at": from_now(&app, 300) }),
                "expires_at",
            ),
        ];
        for (times, field) in cases {
            let mut v1 = json!({ "to": FAN, "category": "utility", "body": "hi" });
            let mut service = json!({ "to": FAN, "body": "hi" });
            for (k, v) in times.as_object().unwrap() {
                v1[k] = v.clone();
                service[k] = v.clone();
            }
            for reply in [
                send_v1(&app, &biz, v1.clone(), None).await,
                send_console(&app, &biz.owner_token, v1.clone(), None).await,
                send_service(&app, &biz, service.clone(), None).await,
            ] {
                reply.assert_error(400, "invalid_request");
                let detail = reply.body["detail"].as_str().unwrap();
                assert!(detail.starts_with(field), "{times}: {detail}");
            }
        }
        // A past or present send_at means now.
        let id = scheduled_send(&app, &biz, utility_at(&from_now(&app, -60))).await;
        assert_ne!(
            record(&app, &biz.owner_token, &id).await["status"],
            "scheduled"
        );
        let id = scheduled_send(&app, &biz, utility_at(&from_now(&app, 30 * day))).await;
        assert_eq!(
            record(&app, &biz.owner_token, &id).await["status"],
            "scheduled"
        );
    }
);

e2e!(
    send_at_is_part_of_an_idempotency_keys_content,
    |app| async move {
        let biz = live_business(&app, BIZ, ALL_SCOPES).await;
        follower(&app, &biz, FAN, false).await;
        let at = from_now(&app, 600);
        let first = send_v1(&app, &biz, utility_at(&at), Some("k1")).await;
        first.assert_ok(200);
        let replay = send_v1(&app, &biz, utility_at(&at), Some("k1")).await;
        assert_eq!(replay.data()["id"], first.data()["id"]);
        send_v1(&app, &biz, utility_at(&from_now(&app, 900)), Some("k1"))
            .await
            .assert_error(409, "idempotency_key_conflict");
        let mut expiring = utility_at(&at);
        expiring["expires_at"] = json!(from_now(&app, 1200));
        send_v1(&app, &biz, expiring, Some("k1"))
            .await
            .assert_error(409, "idempotency_key_conflict");
    }
);

e2e!(
    a_scheduled_message_survives_a_core_restart,
    |app| async move {
        let mut app = app;
        let biz = live_business(&app, BIZ, ALL_SCOPES).await;
        follower(&app, &biz, FAN, false).await;
        let id = scheduled_send(&app, &biz, utility_at(&from_now(&app, 120))).await;
        app.stop_core().await;
        app.clock.advance(Duration::from_secs(121));
        let restarted = app.second_stack(|_| {}).await;
        let delivered = eventually("the new core handed it out", async || {
            let message = stored(&app, &id).await;
            (message.status.as_str() == "delivered").then_some(())
        });
        delivered.await;
        drop(restarted);
        assert_eq!(outcome_events(&app, &biz).await.len(), 1);
    }
);

/// No dispatcher runs: due messages wait until a test leases them.
fn dispatch_held() -> crate::harness::Options {
    crate::harness::Options {
        configure: Some(std::sync::Arc::new(|c| c.delivery.dispatch_concurrency = 0)),
        ..Default::default()
    }
}

/// Leases up to `limit` due messages (as many scheduled ones) as a dispatcher would.
async fn lease(app: &TestApp, limit: u64) -> Vec<(uuid::Uuid, i32)> {
    let now_ms = app.clock.now_ms();
    core_service::messaging::outbox::lease_due(
        &app.core.db,
        "test",
        now_ms,
        now_ms + 30_000,
        core_service::messaging::outbox::LeaseLimits {
            total: limit,
            scheduled: limit,
            broadcast: limit,
        },
    )
    .await
    .unwrap()
}

async fn cancel_console(app: &TestApp, token: &str, id: &str) -> crate::harness::Reply {
    app.post(
        &format!("/business/messages/{id}/cancel"),
        Some(token),
        json!({}),
    )
    .await
}

async fn cancel_v1(app: &TestApp, biz: &Business, id: &str) -> crate::harness::Reply {
    app.post(
        &format!("/v1/{}/messages/{id}/cancel", biz.id),
        Some(&biz.app_token),
        json!({}),
    )
    .await
}

e2e!(
    cancel_of_a_scheduled_v1_message_ends_it_in_one_message_failed,
    |app| async move {
        let receiver = Receiver::start().await;
        let biz = live_business(&app, BIZ, ALL_SCOPES).await;
        follower(&app, &biz, FAN, false).await;
        register_webhook(&app, &biz, &receiver.url(), &["message.failed"]).await;
        let id = scheduled_send(&app, &biz, utility_at(&from_now(&app, 600))).await;
        let reply = cancel_v1(&app, &biz, &id).await;
        reply.assert_ok(200);
        assert_eq!(reply.data()["status"], "canceled");
        assert_eq!(reply.data()["failure_reason"], "canceled");
        assert!(reply.data()["completed_at"].is_string());
        // Once: a second cancel is refused, and its time never comes.
        cancel_v1(&app, &biz, &id)
            .await
            .assert_error(409, "message_not_cancelable");
        let received = receiver.wait_for(1).await;
        let event = received[0].json();
        assert_eq!(event["type"], "message.failed");
        assert_eq!(event["data"]["reason"], "canceled");
        assert_eq!(event["data"]["message_send_id"], id.as_str());
        app.clock.advance(Duration::from_secs(601));
        quiet_for(Duration::from_millis(700)).await;
        assert_eq!(stored(&app, &id).await.status.as_str(), "canceled");
        assert_eq!(outcome_events(&app, &biz).await.len(), 1);
        let usage = app.get("/business/usage", Some(&biz.owner_token)).await;
        assert_eq!(usage.data()["messages"]["canceled"], 1);
        assert_eq!(usage.data()["messages"]["scheduled"], 0);
        assert_eq!(usage.data()["messages"]["failed"], 0);
        assert_eq!(usage.data()["messages"]["total"], 1);
        let listed = app
            .get("/business/messages?status=canceled", Some(&biz.owner_token))
            .await;
        assert_eq!(listed.data()["messages"][0]["id"], id.as_str());
        // A message already handed out is not cancelable; an unknown one is not found; another
        // business's app token cannot reach it.
        let now = scheduled_send(
            &app,
            &biz,
            json!({ "to": FAN, "category": "utility", "body": "now" }),
        )
        .await;
        decided(&app, &biz.owner_token, &now).await;
        cancel_v1(&app, &biz, &now)
            .await
            .assert_error(409, "message_not_cancelable");
        cancel_v1(&app, &biz, &uuid::Uuid::now_v7().to_string())
            .await
            .assert_error(404, "message_not_found");
        let other = live_business(&app, "+14155550190", ALL_SCOPES).await;
        app.post(
            &format!("/v1/{}/messages/{id}/cancel", biz.id),
            Some(&other.app_token),
            json!({}),
        )
        .await
        .assert_error(403, "app_business_mismatch");
    }
);

e2e!(
    console_cancel_is_for_managers_and_the_member_who_sent_it,
    |app| async move {
        let biz = live_business(&app, BIZ, ALL_SCOPES).await;
        follower(&app, &biz, FAN, false).await;
        let (_, member) = app.user("+14155550150").await;
        crate::fixtures::add_member(&app, &biz.owner_token, "+14155550150", "member").await;
        let (_, other) = app.user("+14155550151").await;
        crate::fixtures::add_member(&app, &biz.owner_token, "+14155550151", "member").await;
        let later = |app: &TestApp| utility_at(&from_now(app, 600));
        let own = send_console(&app, &member, later(&app), None).await;
        own.assert_ok(200);
        let own = own.data()["id"].as_str().unwrap().to_string();
        let theirs = send_console(&app, &member, later(&app), None).await;
        let theirs = theirs.data()["id"].as_str().unwrap().to_string();
        // Another member may not; the sender and the owner may.
        cancel_console(&app, &other, &own)
            .await
            .assert_error(403, "insufficient_role");
        let canceled = cancel_console(&app, &member, &own).await;
        canceled.assert_ok(200);
        assert_eq!(canceled.data()["status"], "canceled");
        cancel_console(&app, &biz.owner_token, &theirs)
            .await
            .assert_ok(200);
        // Console sends emit no event, canceled or not.
        assert!(outcome_events(&app, &biz).await.is_empty());
        // An app-token cancel reaches only messages sent with app tokens.
        let console_sent = send_console(&app, &member, later(&app), None).await;
        let console_sent = console_sent.data()["id"].as_str().unwrap().to_string();
        cancel_v1(&app, &biz, &console_sent)
            .await
            .assert_error(404, "message_not_found");
    }
);

e2e!(
    a_cancel_after_send_at_wins_until_a_dispatcher_leases_the_message,
    dispatch_held(),
    |app| async move {
        // No dispatcher runs: the message is due but not leased, so the cancel wins.
        let biz = live_business(&app, BIZ, ALL_SCOPES).await;
        follower(&app, &biz, FAN, false).await;
        let id = scheduled_send(&app, &biz, utility_at(&from_now(&app, 60))).await;
        app.clock.advance(Duration::from_secs(120));
        let reply = cancel_v1(&app, &biz, &id).await;
        reply.assert_ok(200);
        assert_eq!(reply.data()["status"], "canceled");
    }
);

e2e!(
    a_leased_message_is_no_longer_cancelable,
    dispatch_held(),
    |app| async move {
        // A dispatcher leases the due message (and then, say, stops before handing it out):
        // the lease's conditional UPDATE won, so the cancel's finds nothing to change.
        use core_service::messaging::outbox;
        let biz = live_business(&app, BIZ, ALL_SCOPES).await;
        follower(&app, &biz, FAN, false).await;
        let id = scheduled_send(&app, &biz, utility_at(&from_now(&app, 60))).await;
        app.clock.advance(Duration::from_secs(61));
        let leased = lease(&app, 10).await;
        let ids: Vec<uuid::Uuid> = leased.iter().map(|(id, _)| *id).collect();
        assert_eq!(ids, vec![id.parse::<uuid::Uuid>().unwrap()]);
        let started = outbox::start_scheduled(&app.core.db, &ids).await.unwrap();
        assert_eq!(started, ids);
        assert_eq!(stored(&app, &id).await.status.as_str(), "accepted");
        cancel_v1(&app, &biz, &id)
            .await
            .assert_error(409, "message_not_cancelable");
        cancel_console(&app, &biz.owner_token, &id)
            .await
            .assert_error(409, "message_not_cancelable");
        assert_eq!(stored(&app, &id).await.status.as_str(), "accepted");
    }
);

e2e!(
    single_sends_overtake_a_backlog_of_due_scheduled_messages,
    dispatch_held(),
    |app| async move {
        let biz = live_business(&app, BIZ, ALL_SCOPES).await;
        follower(&app, &biz, FAN, false).await;
        let mut backlog = Vec::new();
        for _ in 0..12 {
            backlog.push(scheduled_send(&app, &biz, utility_at(&from_now(&app, 60))).await);
        }
        // Long past their time (a dispatcher was down): all twelve are due, the oldest due
        // times of the outbox; then three single sends arrive.
        app.clock.advance(Duration::from_secs(600));
        let mut singles = Vec::new();
        for _ in 0..3 {
            singles.push(
                scheduled_send(
                    &app,
                    &biz,
                    json!({ "to": FAN, "category": "utility", "body": "now" }),
                )
                .await,
            );
        }
        let first = lease(&app, 5).await;
        let mut leased: Vec<String> = first.iter().map(|(id, _)| id.to_string()).collect();
        assert_eq!(leased.len(), 5);
        // All three single sends, and two of the backlog (by class: 0 single, 1 scheduled).
        for single in &singles {
            assert!(leased.contains(single), "{single} not leased first");
        }
        let classes: Vec<i32> = first
            .iter()
            .filter(|(id, _)| !singles.contains(&id.to_string()))
            .map(|(_, class)| *class)
            .collect();
        assert_eq!(classes, vec![1, 1]);
        // The rest of the backlog follows in later leases.
        let rest = lease(&app, 100).await;
        leased.extend(rest.iter().map(|(id, _)| id.to_string()));
        leased.sort();
        let mut all: Vec<String> = backlog.into_iter().chain(singles).collect();
        all.sort();
        assert_eq!(leased, all);
    }
);

/// A service send to `FAN` at `send_at` (now without one).
async fn service_at(app: &TestApp, biz: &Business, send_at: Option<&str>) -> crate::harness::Reply {
    let mut body = json!({ "to": FAN, "body": "Your order shipped" });
    if let Some(at) = send_at {
        body["send_at"] = json!(at);
    }
    send_service(app, biz, body, None).await
}

e2e!(
    the_service_limit_holds_between_effective_times,
    |app| async move {
        let biz = live_business(&app, BIZ, ALL_SCOPES).await;
        let (_, fan) = follower(&app, &biz, FAN, false).await;
        let day = 24 * 3600;
        let tomorrow = from_now(&app, day);
        // A message scheduled for tomorrow does not block one now...
        let scheduled = service_at(&app, &biz, Some(&tomorrow)).await;
        scheduled.assert_ok(200);
        let scheduled = scheduled.data()["id"].as_str().unwrap().to_string();
        service_at(&app, &biz, None).await.assert_ok(200);
        // ...but blocks one less than a minute from it, either side, until that other time
        // plus 60 s.
        for offset in [-59, 30, 59] {
            let refused = service_at(&app, &biz, Some(&from_now(&app, day + offset))).await;
            refused.assert_error(429, "business_send_rate_limited");
            assert_eq!(
                refused.retry_after(),
                Some(day as u64 + 60),
                "offset {offset}"
            );
        }
        // A minute apart is allowed (and then blocks its own neighbourhood).
        service_at(&app, &biz, Some(&from_now(&app, day + 60)))
            .await
            .assert_ok(200);
        let refused = service_at(&app, &biz, Some(&from_now(&app, day + 90))).await;
        refused.assert_error(429, "business_send_rate_limited");
        assert_eq!(refused.retry_after(), Some(day as u64 + 120));
        // One now within the minute of the send just made is refused until that one's time
        // plus 60 s; a scheduled time a minute on is fine.
        let refused = service_at(&app, &biz, Some(&from_now(&app, 30))).await;
        refused.assert_error(429, "business_send_rate_limited");
        assert_eq!(refused.retry_after(), Some(60));
        // (61: the clock's now has a fraction of a second that `from_now` drops.)
        service_at(&app, &biz, Some(&from_now(&app, 61)))
            .await
            .assert_ok(200);
        // A canceled message frees its time: tomorrow's is canceled, and a send 30 s after it
        // (still within a minute of nothing else) goes through.
        cancel_console(&app, &biz.owner_token, &scheduled)
            .await
            .assert_ok(200);
        service_at(&app, &biz, Some(&from_now(&app, day - 30)))
            .await
            .assert_ok(200);
        // Other businesses and other recipients are separate.
        let other = live_business(&app, "+14155550190", ALL_SCOPES).await;
        app.request(
            Method::PUT,
            &format!("/businesses/{}/follow", other.id),
            Some(&fan),
            Some(crate::harness::RawBody::Json(json!({}))),
        )
        .await
        .assert_ok(200);
        service_at(&app, &other, None).await.assert_ok(200);
        follower(&app, &biz, "+14155550102", false).await;
        let mut body = json!({ "to": "+14155550102", "body": "Your order shipped" });
        body["send_at"] = json!(from_now(&app, 30));
        send_service(&app, &biz, body, None).await.assert_ok(200);
    }
);

e2e!(
    concurrent_service_sends_for_one_time_let_exactly_one_through,
    |app| async move {
        // Whatever batches and transactions they share, sends for nearby times to one
        // recipient take turns on its limit row: exactly one is accepted.
        let biz = live_business(&app, BIZ, ALL_SCOPES).await;
        follower(&app, &biz, FAN, false).await;
        let at = from_now(&app, 3600);
        let near = from_now(&app, 3630);
        let sends = (0..8).map(|i| {
            let (app, biz) = (&app, &biz);
            let when = if i % 2 == 0 { at.clone() } else { near.clone() };
            async move { service_at(app, biz, Some(&when)).await }
        });
        let replies = futures::future::join_all(sends).await;
        let accepted = replies.iter().filter(|r| r.status == 200).count();
        assert_eq!(accepted, 1, "one service message per minute of send time");
        for reply in replies.iter().filter(|r| r.status != 200) {
            reply.assert_error(429, "business_send_rate_limited");
        }
    }
);
