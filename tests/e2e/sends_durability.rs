//! Sends that must hold under retries, concurrency and crashes: idempotency, group commit,
//! outcomes and their events, two cores on one database, clients that go away.

use std::time::Duration;

use sea_orm::{ColumnTrait, EntityTrait, QueryFilter};
use serde_json::{Value, json};

use crate::e2e;
use crate::fixtures::{
    ALL_SCOPES, follower, live_business, outcome_events, send_service, send_v1, sends_per_second,
    settled, utility,
};
use crate::harness::{eventually, quiet_for};

const BIZ: &str = "+14155550100";
const FAN: &str = "+14155550200";
const FAN2: &str = "+14155550201";

e2e!(
    an_idempotency_key_replays_the_original_id_and_sends_nothing_again,
    |app| async move {
        let biz = live_business(&app, BIZ, ALL_SCOPES).await;
        let (_, fan) = follower(&app, &biz, FAN, false).await;
        let first = send_v1(&app, &biz, utility(FAN), Some("order-42")).await;
        first.assert_ok(200);
        let id = first.data()["id"].clone();
        let again = send_v1(&app, &biz, utility(FAN), Some("order-42")).await;
        again.assert_ok(200);
        assert_eq!(again.data()["id"], id);
        // Replays answer with the original id even after the user unfollowed.
        app.request(
            reqwest::Method::DELETE,
            &format!("/businesses/{}/follow", biz.id),
            Some(&fan),
            None,
        )
        .await
        .assert_ok(200);
        assert_eq!(
            send_v1(&app, &biz, utility(FAN), Some("order-42"))
                .await
                .data()["id"],
            id
        );
        // Other content under the same key is a conflict.
        send_v1(
            &app,
            &biz,
            json!({ "to": FAN, "category": "utility", "body": "other" }),
            Some("order-42"),
        )
        .await
        .assert_error(409, "idempotency_key_conflict");
        let history = app.get("/business/messages", Some(&biz.owner_token)).await;
        assert_eq!(history.data()["messages"].as_array().unwrap().len(), 1);
        // Keys are kept 24 hours.
        app.clock.advance(Duration::from_secs(24 * 3600 + 1));
        follower(&app, &biz, "+14155550201", false).await;
        let later = send_v1(&app, &biz, utility("+14155550201"), Some("order-42")).await;
        later.assert_ok(200);
        assert_ne!(later.data()["id"], id);
    }
);

e2e!(
    a_refused_send_does_not_burn_its_idempotency_key,
    |app| async move {
        let biz = live_business(&app, BIZ, ALL_SCOPES).await;
        let (_, fan) = app.user(FAN).await;
        send_v1(&app, &biz, utility(FAN), Some("k1"))
            .await
            .assert_error(403, "business_follow_required");
        app.request(
            reqwest::Method::PUT,
            &format!("/businesses/{}/follow", biz.id),
            Some(&fan),
            Some(crate::harness::RawBody::Json(json!({}))),
        )
        .await
        .assert_ok(200);
        send_v1(&app, &biz, utility(FAN), Some("k1"))
            .await
            .assert_ok(200);
    }
);

e2e!(
    twenty_concurrent_identical_requests_create_exactly_one_message,
    |app| async move {
        let biz = live_business(&app, BIZ, ALL_SCOPES).await;
        follower(&app, &biz, FAN, false).await;
        let sends = (0..20).map(|_| send_v1(&app, &biz, utility(FAN), Some("same-key")));
        let replies = futures::future::join_all(sends).await;
        let mut ids = std::collections::HashSet::new();
        for reply in &replies {
            match reply.status {
                200 => {
                    ids.insert(reply.data()["id"].as_str().unwrap().to_string());
                }
                409 => assert_eq!(reply.message(), "idempotency_in_progress", "{}", reply.body),
                other => panic!("unexpected {other}: {}", reply.body),
            }
        }
        assert_eq!(ids.len(), 1, "{ids:?}");
        let history = app.get("/business/messages", Some(&biz.owner_token)).await;
        assert_eq!(history.data()["messages"].as_array().unwrap().len(), 1);
        // Once accepted, every retry gets the id.
        let again = send_v1(&app, &biz, utility(FAN), Some("same-key")).await;
        assert!(ids.contains(again.data()["id"].as_str().unwrap()));
    }
);

e2e!(
    a_recipient_suspended_before_delivery_gets_a_failed_outcome_and_event,
    |app| async move {
        let biz = live_business(&app, BIZ, ALL_SCOPES).await;
        follower(&app, &biz, FAN, false).await;
        follower(&app, &biz, FAN2, false).await;
        app.set_user_status(FAN, "suspended").await;
        // Sent together, so that one batch is likely to hold both.
        let (reply, other) = futures::future::join(
            send_v1(&app, &biz, utility(FAN), None),
            send_v1(&app, &biz, utility(FAN2), None),
        )
        .await;
        reply.assert_ok(200);
        other.assert_ok(200);
        let record = settled(&app, &biz.owner_token, reply.data()["id"].as_str().unwrap()).await;
        assert_eq!(record["status"], "failed");
        let other = other.data()["id"].as_str().unwrap().to_string();
        let record = settled(&app, &biz.owner_token, &other).await;
        assert_eq!(record["status"], "delivered");
        let events = outcome_events(&app, &biz).await;
        let failed: Vec<_> = events
            .iter()
            .filter(|e| e.event_type.as_str() == "message.failed")
            .collect();
        assert_eq!((events.len(), failed.len()), (2, 1), "{events:?}");
        let data: Value = serde_json::from_str(&failed[0].data).unwrap();
        assert_eq!(data["status"], "failed");
        assert_eq!(data["reason"], "recipient_inactive");
        // The inbox holds the delivered message only, once.
        use core_service::entities::inbox_messages;
        let inbox: Vec<(uuid::Uuid, uuid::Uuid)> = inbox_messages::Entity::find()
            .all(&app.core.db)
            .await
            .unwrap()
            .into_iter()
            .map(|row| (row.message_id, row.user_id))
            .collect();
        assert_eq!(inbox.len(), 1, "{inbox:?}");
        assert_eq!(inbox[0].0.to_string(), other);
    }
);

e2e!(
    a_core_stopped_after_accepting_loses_nothing,
    |app| async move {
        let mut app = app;
        let biz = live_business(&app, BIZ, ALL_SCOPES).await;
        follower(&app, &biz, FAN, false).await;
        // This core only accepts: it is stopped before anything is dispatched.
        app.stop_core().await;
        let accepting = app
            .second_stack(|c| c.delivery.dispatch_concurrency = 0)
            .await;
        let reply = app
            .request_at(
                &accepting.base,
                reqwest::Method::POST,
                &format!("/v1/{}/messages", biz.id),
                Some(&biz.app_token),
                Some(utility(FAN)),
            )
            .await;
        reply.assert_ok(200);
        let id = reply.data()["id"].as_str().unwrap().to_string();
        drop(accepting);
        let history = app.core.db.clone();
        let pending =
            core_service::entities::messages::Entity::find_by_id(id.parse::<uuid::Uuid>().unwrap())
                .one(&history)
                .await
                .unwrap()
                .unwrap();
        assert_eq!(pending.status.as_str(), "accepted");
        // A new core on the same database delivers it.
        let restarted = app.second_stack(|_| {}).await;
        let delivered = eventually("the new core decided the message", async || {
            let h = app
                .request_at(
                    &restarted.base,
                    reqwest::Method::GET,
                    "/business/messages",
                    Some(&biz.owner_token),
                    None,
                )
                .await;
            let status = h.data()["messages"][0]["status"].clone();
            (status != "accepted").then_some(status)
        })
        .await;
        assert_eq!(delivered, json!("delivered"));
        assert_eq!(
            outcome_events(&app, &biz).await.len(),
            1,
            "exactly one outcome event"
        );
    }
);

e2e!(
    the_service_limit_and_the_business_limit_hold_across_two_cores,
    sends_per_second(2),
    |app| async move {
        let biz = live_business(&app, BIZ, ALL_SCOPES).await;
        follower(&app, &biz, FAN, false).await;
        let other = app.second_stack(|_| {}).await;
        let service_path = format!("/v1/service/{}/messages", biz.phone.replace('+', "%2B"));
        send_service(&app, &biz, json!({ "to": FAN, "body": "a" }), None)
            .await
            .assert_ok(200);
        let limited = app
            .request_at(
                &other.base,
                reqwest::Method::POST,
                &service_path,
                Some(&biz.app_token),
                Some(json!({ "to": FAN, "body": "b" })),
            )
            .await;
        limited.assert_error(429, "business_send_rate_limited");
        assert!(limited.retry_after().unwrap() >= 1);

        // Two sends per second for the business, whichever core takes them.
        app.clock.advance(Duration::from_secs(60));
        let v1 = format!("/v1/{}/messages", biz.id);
        send_v1(&app, &biz, utility(FAN), None).await.assert_ok(200);
        app.request_at(
            &other.base,
            reqwest::Method::POST,
            &v1,
            Some(&biz.app_token),
            Some(utility(FAN)),
        )
        .await
        .assert_ok(200);
        send_v1(&app, &biz, utility(FAN), None)
            .await
            .assert_error(429, "business_send_rate_limited");
    }
);

e2e!(
    a_key_still_being_accepted_is_409_idempotency_in_progress,
    |app| async move {
        use core_service::entities::idempotency_keys;
        use sea_orm::{ActiveModelTrait, Set};
        let biz = live_business(&app, BIZ, ALL_SCOPES).await;
        follower(&app, &biz, FAN, false).await;
        // A finished key gives the stored form of this request's content...
        send_v1(&app, &biz, utility(FAN), Some("probe"))
            .await
            .assert_ok(200);
        let business_id: uuid::Uuid = biz.id.parse().unwrap();
        let probe = idempotency_keys::Entity::find_by_id((business_id, "probe".to_string()))
            .one(&app.core.db)
            .await
            .unwrap()
            .unwrap();
        // ...and another request that holds a key for it and has not finished accepting yet
        // makes a retry with the same content wait.
        idempotency_keys::ActiveModel {
            business_id: Set(business_id),
            key: Set("busy".into()),
            request_hash: Set(probe.request_hash),
            message_id: Set(None),
            expires_at_ms: Set(probe.expires_at_ms),
            broadcast_id: Set(None),
        }
        .insert(&app.core.db)
        .await
        .unwrap();
        send_v1(&app, &biz, utility(FAN), Some("busy"))
            .await
            .assert_error(409, "idempotency_in_progress");
    }
);

e2e!(
    a_send_whose_client_goes_away_leaves_a_whole_message_or_none_and_no_open_transaction,
    |app| async move {
        use core_service::entities::{idempotency_keys, messages};
        use sea_orm::{ConnectionTrait, PaginatorTrait};
        let biz = live_business(&app, BIZ, ALL_SCOPES).await;
        follower(&app, &biz, FAN, false).await;
        // Clients that hang up at every point of the request: before it is sent, while the
        // core reads, while the batch commits, after the answer.
        let rounds = 40usize;
        let cancelled: Vec<_> = (0..rounds)
            .map(|i| {
                let url = format!("{}/v1/{}/messages", app.base, biz.id);
                let request = app
                    .http
                    .post(url)
                    .header("authorization", format!("Bearer {}", biz.app_token))
                    .header("idempotency-key", format!("gone-{i}"))
                    .json(&utility(FAN));
                tokio::spawn(async move {
                    let wait = Duration::from_micros(250 * (i as u64 % 20));
                    let _ = tokio::time::timeout(wait, request.send()).await;
                })
            })
            .collect();
        for task in cancelled {
            task.await.unwrap();
        }
        // Every key retried afterwards is answered: the original message or a new one, never
        // an error, and never two messages for a key.
        let mut ids = std::collections::HashSet::new();
        for i in 0..rounds {
            let reply = send_v1(&app, &biz, utility(FAN), Some(&format!("gone-{i}"))).await;
            reply.assert_ok(200);
            assert!(ids.insert(reply.data()["id"].as_str().unwrap().to_string()));
        }
        let business_id: uuid::Uuid = biz.id.parse().unwrap();
        let stored = messages::Entity::find()
            .filter(messages::Column::BusinessId.eq(business_id))
            .count(&app.core.db)
            .await
            .unwrap();
        assert_eq!(
            stored as usize, rounds,
            "one message per key, none half-written"
        );
        let keys = idempotency_keys::Entity::find()
            .filter(idempotency_keys::Column::BusinessId.eq(business_id))
            .all(&app.core.db)
            .await
            .unwrap();
        assert_eq!(keys.len(), rounds);
        for key in keys {
            let id = key.message_id.expect("every kept key names its message");
            assert!(ids.contains(&id.to_string()), "{key:?}");
        }
        // No connection was left inside a transaction.
        if app.core.db.get_database_backend() == sea_orm::DbBackend::Postgres {
            let open = || async {
                app.core
                    .db
                    .query_one_raw(sea_orm::Statement::from_string(
                        sea_orm::DbBackend::Postgres,
                        "SELECT count(*) AS n FROM pg_stat_activity \
                         WHERE datname = current_database() AND state LIKE 'idle in transaction%'",
                    ))
                    .await
                    .unwrap()
                    .unwrap()
                    .try_get::<i64>("", "n")
                    .unwrap()
            };
            let left = eventually("no connection idle in a transaction", async || {
                let left = open().await;
                (left == 0).then_some(left)
            })
            .await;
            assert_eq!(left, 0, "connections idle in a transaction");
        }
        // And the pool still works for everything else.
        let history = app
            .get("/business/messages?limit=200", Some(&biz.owner_token))
            .await;
        history.assert_ok(200);
    }
);

e2e!(
    concurrent_sends_sharing_a_commit_each_get_their_own_answer,
    |app| async move {
        let biz = live_business(&app, BIZ, ALL_SCOPES).await;
        follower(&app, &biz, FAN, false).await;
        let original = send_v1(&app, &biz, utility(FAN), Some("dup")).await;
        original.assert_ok(200);
        let original_id = original.data()["id"].as_str().unwrap().to_string();
        let other = json!({ "to": FAN, "category": "utility", "body": "Something else" });
        let text = json!({ "to": FAN, "body": "Your table is ready" });
        // Fresh sends, replays, conflicts and a per-recipient limit, all at once: whatever
        // batches they share, one send's refusal never fails another.
        let fresh = (0..10).map(|i| {
            let key = format!("fresh-{i}");
            let app = &app;
            let biz = &biz;
            async move { send_v1(app, biz, utility(FAN), Some(&key)).await }
        });
        let replays = (0..10).map(|_| send_v1(&app, &biz, utility(FAN), Some("dup")));
        let conflicts = (0..5).map(|_| send_v1(&app, &biz, other.clone(), Some("dup")));
        let services = (0..5).map(|_| send_service(&app, &biz, text.clone(), None));
        let (fresh, replays, conflicts, services) = futures::join!(
            futures::future::join_all(fresh),
            futures::future::join_all(replays),
            futures::future::join_all(conflicts),
            futures::future::join_all(services),
        );
        let mut ids = std::collections::HashSet::new();
        for reply in &fresh {
            reply.assert_ok(200);
            ids.insert(reply.data()["id"].as_str().unwrap().to_string());
        }
        assert_eq!(ids.len(), 10);
        assert!(!ids.contains(&original_id));
        for reply in &replays {
            reply.assert_ok(200);
            assert_eq!(reply.data()["id"], original_id.as_str());
        }
        for reply in &conflicts {
            reply.assert_error(409, "idempotency_key_conflict");
        }
        let sent = services.iter().filter(|r| r.status == 200).count();
        assert_eq!(sent, 1, "one service message per recipient per minute");
        for reply in services.iter().filter(|r| r.status != 200) {
            reply.assert_error(429, "business_send_rate_limited");
        }
        let history = app
            .get("/business/messages?limit=200", Some(&biz.owner_token))
            .await;
        assert_eq!(history.data()["messages"].as_array().unwrap().len(), 12);
        // The usage counters count what was written and nothing a refusal left out.
        let usage = app.get("/business/usage", Some(&biz.owner_token)).await;
        usage.assert_ok(200);
        assert_eq!(usage.data()["messages"]["total"], 12);
        assert_eq!(usage.data()["messages"]["by_category"]["utility"], 11);
        assert_eq!(usage.data()["messages"]["by_category"]["service"], 1);
    }
);

e2e!(
    a_message_handed_to_the_dispatcher_is_leased_to_it_and_sent_once_after_the_lease_lapses,
    |app| async move {
        use core_service::entities::message_outbox;
        let biz = live_business(&app, BIZ, ALL_SCOPES).await;
        follower(&app, &biz, FAN, false).await;
        // This test takes the core's hand-off queue in place of its dispatcher, with room for
        // two messages, and never hands them out: a dispatcher that died holding them.
        let mut handed =
            app.core
                .sends
                .open_handoff("doomed-dispatcher", Duration::from_secs(30), 2);
        let now_ms = core_service::clock::Clock::now_ms(&app.clock);
        let mut ids = Vec::new();
        for _ in 0..3 {
            let reply = send_v1(&app, &biz, utility(FAN), None).await;
            reply.assert_ok(200);
            ids.push(reply.data()["id"].as_str().unwrap().to_string());
        }
        // The first two were written leased to the queue's dispatcher and handed over; the
        // third found no room and was left due for any dispatcher, which sent it at once.
        for id in &ids[..2] {
            let message = handed.try_recv().expect("a handed message");
            assert_eq!(message.message.id.to_string(), *id);
            assert_eq!(message.lease_until_ms, now_ms + 30_000);
            let row = message_outbox::Entity::find_by_id(message.message.id)
                .one(&app.core.db)
                .await
                .unwrap()
                .expect("its outbox row");
            assert_eq!(row.lease_owner.as_deref(), Some("doomed-dispatcher"));
            assert_eq!(
                (row.lease_until_ms, row.due_at_ms),
                (now_ms + 30_000, now_ms + 30_000)
            );
        }
        assert!(handed.try_recv().is_err(), "only two had room");
        assert_eq!(
            settled(&app, &biz.owner_token, &ids[2]).await["status"],
            "delivered"
        );
        // While the lease holds, no other dispatcher takes the handed ones...
        quiet_for(Duration::from_millis(1500)).await;
        let history = app.get("/business/messages", Some(&biz.owner_token)).await;
        for id in &ids[..2] {
            let entry = history.data()["messages"]
                .as_array()
                .unwrap()
                .iter()
                .find(|m| m["id"] == id.as_str())
                .cloned()
                .unwrap();
            assert_eq!(entry["status"], "accepted", "taken while its lease held");
        }
        // ...and once it lapses, the core's own dispatcher (which leases from the database)
        // sends each exactly once. A closed queue hands nothing more over.
        drop(handed);
        app.clock.advance(Duration::from_secs(31));
        for id in &ids[..2] {
            assert_eq!(
                settled(&app, &biz.owner_token, id).await["status"],
                "delivered"
            );
        }
        let reply = send_v1(&app, &biz, utility(FAN), None).await;
        reply.assert_ok(200);
        let last = reply.data()["id"].as_str().unwrap().to_string();
        assert_eq!(
            settled(&app, &biz.owner_token, &last).await["status"],
            "delivered"
        );
        let events = outcome_events(&app, &biz).await;
        assert_eq!(events.len(), 4, "one outcome event per message");
    }
);
