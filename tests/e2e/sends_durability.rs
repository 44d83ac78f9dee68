//! Sends that must hold under retries, concurrency and crashes: idempotency, group commit,
//! outcomes and their events, two cores on one database, clients that go away.

use std::time::Duration;

use proto::vocabulary::{FailureReason, UserStatus};
use sea_orm::{ColumnTrait, EntityTrait, QueryFilter};
use serde_json::{Value, json};

use crate::e2e;
use crate::fixtures::{
    ALL_SCOPES, follow_call, follower, live_business, outcome_events, register_webhook,
    send_service, send_v1, sends_per_second, settled, utility,
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

e2e!(
    an_outcome_recorded_twice_counts_once_and_its_batch_still_records_the_others,
    |app| async move {
        use core_service::entities::{message_outbox, webhook_deliveries};
        use core_service::messaging::outbox::{Outcome, record_outcomes};
        use sea_orm::{ColumnTrait, EntityTrait, PaginatorTrait, QueryFilter};
        let biz = live_business(&app, BIZ, ALL_SCOPES).await;
        follower(&app, &biz, FAN, false).await;
        register_webhook(
            &app,
            &biz,
            "http://127.0.0.1:9/hook",
            &["message.sent", "message.failed"],
        )
        .await;
        // Two messages held by a dispatcher that never sends them (the hand-off queue taken).
        let mut handed = app
            .core
            .sends
            .open_handoff("held", Duration::from_secs(300), 2);
        for _ in 0..2 {
            send_v1(&app, &biz, utility(FAN), None).await.assert_ok(200);
        }
        let first = handed.try_recv().expect("handed").message;
        let second = handed.try_recv().expect("handed").message;
        let delivered = Outcome::Delivered;
        let failed = Outcome::Failed(FailureReason::ProviderRejected);
        let now = core_service::clock::Clock::now(&app.clock);
        // The first is decided, then a batch holding it again (a lease that lapsed mid-delivery)
        // and the second: only the second is recorded by it.
        let recorded = record_outcomes(
            &app.core.db,
            &[(first.clone(), delivered)],
            &[first.id],
            now,
            Default::default(),
        )
        .await
        .unwrap();
        assert_eq!((recorded.decided, recorded.queued), (1, 1));
        let recorded = record_outcomes(
            &app.core.db,
            &[(first.clone(), failed), (second.clone(), failed)],
            &[first.id, second.id],
            now,
            Default::default(),
        )
        .await
        .unwrap();
        assert_eq!((recorded.decided, recorded.queued), (1, 1));

        let record = settled(&app, &biz.owner_token, &first.id.to_string()).await;
        assert_eq!(record["status"], "delivered", "decided once, never again");
        let record = settled(&app, &biz.owner_token, &second.id.to_string()).await;
        assert_eq!(record["status"], "failed");
        let mut events: Vec<String> = outcome_events(&app, &biz)
            .await
            .into_iter()
            .map(|e| e.event_type.to_string())
            .collect();
        events.sort();
        assert_eq!(events, ["message.failed", "message.sent"]);
        let deliveries = webhook_deliveries::Entity::find()
            .filter(webhook_deliveries::Column::BusinessId.eq(first.business_id))
            .count(&app.core.db)
            .await
            .unwrap();
        assert_eq!(deliveries, 2, "one delivery per event");
        let outbox = message_outbox::Entity::find()
            .filter(message_outbox::Column::MessageId.is_in([first.id, second.id]))
            .count(&app.core.db)
            .await
            .unwrap();
        assert_eq!(outbox, 0, "both outbox rows gone");
        let usage = app.get("/business/usage", Some(&biz.owner_token)).await;
        usage.assert_ok(200);
        assert_eq!(usage.data()["messages"]["total"], 2);
        assert_eq!(usage.data()["messages"]["delivered"], 1);
        assert_eq!(usage.data()["messages"]["failed"], 1);
        assert_eq!(usage.data()["messages"]["accepted"], 0);
    }
);

e2e!(
    inbox_outcomes_in_one_statement_write_nothing_when_a_recipient_or_an_endpoint_moved,
    |app| async move {
        use core_service::entities::{
            inbox_messages, message_outbox, messages, webhook_deliveries,
        };
        use core_service::messaging::outbox::{
            AtOnce, Inboxed, Outcome, Planning, record_outcomes_at_once,
        };
        use sea_orm::PaginatorTrait;
        // PostgreSQL's dispatcher delivers in-app messages and records their outcomes in one
        // statement, taking every recipient as active and the endpoints as it knows them;
        // SQLite's (and any other provider) asks the provider, then records.
        if app.core.db.get_database_backend() != sea_orm::DbBackend::Postgres {
            return;
        }
        let biz = live_business(&app, BIZ, ALL_SCOPES).await;
        follower(&app, &biz, FAN, false).await;
        follower(&app, &biz, FAN2, false).await;
        register_webhook(&app, &biz, "http://127.0.0.1:9/hook", &["message.sent"]).await;
        // Two messages held by a dispatcher that never sends them (the hand-off queue taken).
        let mut handed = app
            .core
            .sends
            .open_handoff("held", Duration::from_secs(300), 2);
        send_v1(&app, &biz, utility(FAN), None).await.assert_ok(200);
        send_v1(&app, &biz, utility(FAN2), None)
            .await
            .assert_ok(200);
        let first = handed.try_recv().expect("handed").message;
        let second = handed.try_recv().expect("handed").message;
        let ids = [first.id, second.id];
        let delivered = Outcome::Delivered;
        let decided = [(first.clone(), delivered), (second.clone(), delivered)];
        let messages = [&first, &second];
        let inboxed = Some(Inboxed {
            messages: &messages,
            active_status: UserStatus::Active,
        });
        let db = &app.core.db;
        let cache = &app.core.endpoint_cache;
        let (endpoints, check) = cache.endpoints(db, vec![first.business_id]).await.unwrap();
        assert_eq!(endpoints.len(), 1);
        let now = core_service::clock::Clock::now(&app.clock);
        let written = async || {
            let accepted = messages::Entity::find()
                .filter(messages::Column::Id.is_in(ids))
                .filter(messages::Column::Status.eq("accepted"))
                .count(db)
                .await
                .unwrap();
            let inbox = inbox_messages::Entity::find().count(db).await.unwrap();
            let outbox = message_outbox::Entity::find()
                .filter(message_outbox::Column::MessageId.is_in(ids))
                .count(db)
                .await
                .unwrap();
            let queued = webhook_deliveries::Entity::find().count(db).await.unwrap();
            (accepted, inbox, outbox, queued)
        };
        let nothing = (2, 0, 2, 0);

        // A recipient suspended since the send.
        app.set_user_status(FAN2, "suspended").await;
        let planning = Planning {
            lease: None,
            endpoints: Some(&endpoints),
            check: Some(&check),
        };
        let answer = record_outcomes_at_once(db, &decided, &ids, now, planning, inboxed).await;
        assert!(
            matches!(answer, Ok(AtOnce::RecipientInactive)),
            "{answer:?}"
        );
        assert_eq!(written().await, nothing);
        assert!(outcome_events(&app, &biz).await.is_empty());

        // Active again, but the business has another endpoint now.
        app.set_user_status(FAN2, "active").await;
        register_webhook(&app, &biz, "http://127.0.0.1:9/other", &["message.sent"]).await;
        let answer = record_outcomes_at_once(db, &decided, &ids, now, planning, inboxed).await;
        assert!(matches!(answer, Ok(AtOnce::EndpointsMoved)), "{answer:?}");
        assert_eq!(written().await, nothing);
        assert!(outcome_events(&app, &biz).await.is_empty());

        // Known again: both delivered, to both endpoints, in one statement.
        cache.forget(&[first.business_id]);
        let (endpoints, check) = cache.endpoints(db, vec![first.business_id]).await.unwrap();
        assert_eq!(endpoints.len(), 2);
        let planning = Planning {
            lease: None,
            endpoints: Some(&endpoints),
            check: Some(&check),
        };
        let answer = record_outcomes_at_once(db, &decided, &ids, now, planning, inboxed).await;
        let Ok(AtOnce::Recorded(recorded)) = answer else {
            panic!("{answer:?}");
        };
        assert_eq!((recorded.decided, recorded.queued), (2, 4));
        assert_eq!(written().await, (0, 2, 0, 4));
        assert_eq!(outcome_events(&app, &biz).await.len(), 2);
        for id in ids {
            let record = settled(&app, &biz.owner_token, &id.to_string()).await;
            assert_eq!(record["status"], "delivered");
        }

        // Once only: the same batch again finds them decided.
        let answer = record_outcomes_at_once(db, &decided, &ids, now, planning, inboxed).await;
        assert!(matches!(answer, Ok(AtOnce::Decided)), "{answer:?}");
        assert_eq!(written().await, (0, 2, 0, 4));
        let usage = app.get("/business/usage", Some(&biz.owner_token)).await;
        assert_eq!(usage.data()["messages"]["delivered"], 2);
    }
);

e2e!(
    a_batch_whose_transaction_fails_keeps_and_answers_what_its_first_statement_stored,
    |app| async move {
        use core_service::entities::messages;
        use core_service::messaging::store::{NewSend, ServiceLimit, Written, write_batch};
        use sea_orm::{DbBackend, EntityTrait};
        let biz = live_business(&app, BIZ, ALL_SCOPES).await;
        follower(&app, &biz, FAN, false).await;
        let template = stored_template(&app, &biz).await;
        let mut message = template.clone();
        message.id = uuid::Uuid::now_v7();
        let id = message.id;
        let plain = NewSend {
            message: message.clone(),
            key: None,
            service_limit: None,
            check: None,
        };
        // A service send (to another recipient, so its limit passes) reusing the stored
        // message's id: writing it fails on the primary key.
        message.id = template.id;
        message.recipient_user_id = uuid::Uuid::now_v7();
        let clash = NewSend {
            service_limit: Some(ServiceLimit {
                key: format!("service:{}", message.recipient_user_id),
                spacing: core_service::messaging::rules::SERVICE_SPACING,
            }),
            message,
            key: None,
            check: None,
        };
        let now_ms = core_service::clock::Clock::now_ms(&app.clock);
        let batch = write_batch(&app.core.db, &[plain, clash], now_ms, None).await;
        assert!(batch.error.is_some(), "the clash fails: {batch:?}");
        let stored = messages::Entity::find_by_id(id)
            .one(&app.core.db)
            .await
            .unwrap()
            .is_some();
        if app.core.db.get_database_backend() == DbBackend::Postgres {
            // The plain send's statement committed before the transaction failed: it is
            // stored and answered, never left to be written a second time.
            assert_eq!(batch.written, [Some(Written::Accepted), None]);
            assert!(stored);
        } else {
            // One transaction: neither is stored, both are tried again by the writer.
            assert_eq!(batch.written, [None, None]);
            assert!(!stored);
        }
    }
);

e2e!(
    a_send_from_a_kept_context_is_decided_by_the_rows_as_they_are_when_it_is_written,
    |app| async move {
        // Each send below follows one that read (and, on PostgreSQL, kept) the context of the
        // same token and number, and each change is one the core that kept it is not told of.
        let biz = live_business(&app, BIZ, ALL_SCOPES).await;
        let (_, fan) = follower(&app, &biz, FAN, true).await;
        let marketing = json!({ "to": FAN, "category": "marketing", "body": "sale" });
        let opt_in = |on: bool| {
            let (app, fan, biz) = (&app, &fan, &biz);
            async move {
                let consent = json!({ "marketing_opt_in": on });
                follow_call(app, fan, biz, reqwest::Method::PATCH, consent).await;
            }
        };
        send_v1(&app, &biz, marketing.clone(), None)
            .await
            .assert_ok(200);
        send_v1(&app, &biz, marketing.clone(), None)
            .await
            .assert_ok(200);
        // The follow's consent withdrawn, then given again.
        opt_in(false).await;
        send_v1(&app, &biz, marketing.clone(), None)
            .await
            .assert_error(403, "marketing_opt_in_required");
        opt_in(true).await;
        send_v1(&app, &biz, marketing.clone(), None)
            .await
            .assert_ok(200);
        // The follow gone, then back.
        follow_call(&app, &fan, &biz, reqwest::Method::DELETE, json!({})).await;
        send_v1(&app, &biz, utility(FAN), None)
            .await
            .assert_error(403, "business_follow_required");
        let consent = json!({ "marketing_opt_in": true });
        follow_call(&app, &fan, &biz, reqwest::Method::PUT, consent).await;
        send_v1(&app, &biz, marketing.clone(), None)
            .await
            .assert_ok(200);
        // The business suspended, then active again; out of live mode, then back.
        app.set_business(&biz.id, None, Some("suspended")).await;
        send_v1(&app, &biz, utility(FAN), None)
            .await
            .assert_error(403, "business_suspended");
        app.set_business(&biz.id, None, Some("active")).await;
        send_v1(&app, &biz, utility(FAN), None).await.assert_ok(200);
        app.set_business(&biz.id, Some("sandbox"), None).await;
        send_v1(&app, &biz, utility(FAN), None)
            .await
            .assert_error(403, "live_business_required");
        app.set_business(&biz.id, Some("live"), None).await;
        send_v1(&app, &biz, utility(FAN), None).await.assert_ok(200);
        // The owner's account suspended, then active again.
        app.set_user_status(BIZ, "suspended").await;
        send_v1(&app, &biz, utility(FAN), None)
            .await
            .assert_error(403, "business_suspended");
        app.set_user_status(BIZ, "active").await;
        send_v1(&app, &biz, utility(FAN), None).await.assert_ok(200);
        // Every send answered 200 is stored once; no other is.
        let history = app.get("/business/messages", Some(&biz.owner_token)).await;
        assert_eq!(history.data()["messages"].as_array().unwrap().len(), 7);
    }
);

e2e!(
    a_checked_send_is_written_only_while_its_context_holds,
    |app| async move {
        use core_service::entities::{idempotency_keys, message_outbox, messages};
        use core_service::identity::tokens::hash_token;
        use core_service::messaging::store::{
            ContextCheck, KeyClaim, NewSend, ServiceLimit, Written, app_send_contexts, write_batch,
        };
        use sea_orm::{DbBackend, EntityTrait};
        let biz = live_business(&app, BIZ, ALL_SCOPES).await;
        let (_, fan) = follower(&app, &biz, FAN, false).await;
        let db = &app.core.db;
        let postgres = db.get_database_backend() == DbBackend::Postgres;
        let template = stored_template(&app, &biz).await;
        let hash = hash_token(&biz.app_token);
        let read = app_send_contexts(db, &[(hash.clone(), Some(FAN.to_string()))])
            .await
            .unwrap();
        let version = read[0].as_ref().expect("context").version.clone();
        assert_eq!(
            version.is_some(),
            postgres,
            "versions are read on PostgreSQL"
        );
        let version = version.unwrap_or_default();
        let send = |version: &str, key: &str| {
            let mut message = template.clone();
            message.id = uuid::Uuid::now_v7();
            NewSend {
                message,
                key: Some(KeyClaim {
                    key: key.to_string(),
                    request_hash: "h".into(),
                    keep_until_ms: i64::MAX,
                }),
                service_limit: None,
                check: Some(ContextCheck {
                    token_hash: hash.clone(),
                    to: FAN.to_string(),
                    version: version.to_string(),
                }),
            }
        };
        let stored = |send: NewSend| async move {
            let message = messages::Entity::find_by_id(send.message.id)
                .one(db)
                .await
                .unwrap()
                .is_some();
            let outbox = message_outbox::Entity::find_by_id(send.message.id)
                .one(db)
                .await
                .unwrap()
                .is_some();
            let key = idempotency_keys::Entity::find_by_id((
                send.message.business_id,
                send.key.unwrap().key,
            ))
            .one(db)
            .await
            .unwrap()
            .is_some();
            [message, outbox, key]
        };
        let now_ms = core_service::clock::Clock::now_ms(&app.clock);
        let write = |sends: Vec<NewSend>| async move {
            let batch = write_batch(db, &sends, now_ms, None).await;
            assert!(batch.error.is_none(), "{batch:?}");
            batch.written
        };

        // Another version than the rows': nothing written, not even the key's claim.
        let moved = send("1:2:3:4:5:6", "k1");
        assert_eq!(write(vec![moved.clone()]).await, [Some(Written::Stale)]);
        assert_eq!(stored(moved).await, [false; 3]);
        // A checked send with a service limit does not take the checking statement: it is
        // decided again from a fresh read, and so is every checked send on SQLite.
        let mut limited = send(&version, "k2");
        limited.service_limit = Some(ServiceLimit {
            key: format!("send:service:{}:x", limited.message.business_id),
            spacing: core_service::messaging::rules::SERVICE_SPACING,
        });
        assert_eq!(write(vec![limited.clone()]).await, [Some(Written::Stale)]);
        assert_eq!(stored(limited).await, [false; 3]);
        if !postgres {
            let current = send(&version, "k3");
            assert_eq!(write(vec![current.clone()]).await, [Some(Written::Stale)]);
            assert_eq!(stored(current).await, [false; 3]);
            return;
        }
        // A checked send written beside an unchecked one: the unchecked one is written
        // whatever the checked one comes to, and the checked one only when accepted.
        let beside = async |checked: NewSend, key: &str, expected: Written| {
            let mut unchecked = send("", key);
            unchecked.check = None;
            let stored_too = expected == Written::Accepted;
            assert_eq!(
                write(vec![checked.clone(), unchecked.clone()]).await,
                [Some(expected), Some(Written::Accepted)]
            );
            assert_eq!(stored(checked).await, [stored_too; 3]);
            assert_eq!(stored(unchecked).await, [true; 3]);
        };
        // The rows' own versions: written.
        beside(send(&version, "k3"), "k4", Written::Accepted).await;
        // The key claimed: a checked send under it replays.
        let written = write(vec![send(&version, "k3")]).await;
        assert!(
            matches!(written[..], [Some(Written::Replay(_))]),
            "{written:?}"
        );
        // The follow changed since the read: the same version is stale.
        let consent = json!({ "marketing_opt_in": true });
        follow_call(&app, &fan, &biz, reqwest::Method::PATCH, consent).await;
        beside(send(&version, "k5"), "k6", Written::Stale).await;
    }
);

/// A message sent to FAN and stored, as a template for sends written directly (held by a
/// dispatcher that never sends it).
async fn stored_template(
    app: &crate::harness::TestApp,
    biz: &crate::fixtures::Business,
) -> core_service::entities::messages::Model {
    let mut handed = app
        .core
        .sends
        .open_handoff("held", Duration::from_secs(300), 1);
    send_v1(app, biz, utility(FAN), None).await.assert_ok(200);
    handed.try_recv().expect("handed").message
}
