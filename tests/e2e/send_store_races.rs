//! The send stores driven directly, where a race can only be staged below the API: an outcome
//! recorded twice, inbox outcomes whose rows moved under them, a batch whose transaction fails,
//! and sends decided from a context that changed before they were written. The only end-to-end
//! tests that call the core's stores (`messaging::store`, `messaging::outbox`); everything else
//! goes through the API, the harness and the fixtures.

use std::time::Duration;

use proto::vocabulary::{FailureReason, UserStatus};
use sea_orm::{ColumnTrait, EntityTrait, QueryFilter};
use serde_json::json;

use crate::e2e;
use crate::fixtures::{
    ALL_SCOPES, follow_call, follower, live_business, outcome_events, register_webhook, send_v1,
    settled, utility,
};

const BIZ: &str = "+14155550100";
const FAN: &str = "+14155550200";
const FAN2: &str = "+14155550201";

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
            thread: None,
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
            thread: None,
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
        use sea_orm::{ConnectionTrait as _, DbBackend, EntityTrait};
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
                    template: None,
                }),
                thread: None,
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
        // A templated send checks its template's row too: written at the row's version, stale
        // at another.
        let made = app
            .post(
                "/business/templates",
                Some(&biz.owner_token),
                json!({
                    "name": "checked",
                    "category": "utility",
                    "variables": {},
                    "variants": { "en": { "body": "Checked." } },
                    "default_locale": "en",
                }),
            )
            .await;
        made.assert_ok(201);
        let template_id: uuid::Uuid = made.data()["id"].as_str().unwrap().parse().unwrap();
        let row = db
            .query_one_raw(sea_orm::Statement::from_sql_and_values(
                DbBackend::Postgres,
                "SELECT xmin::text AS v FROM templates WHERE id = $1",
                [template_id.into()],
            ))
            .await
            .unwrap()
            .unwrap();
        let row_version: String = row.try_get("", "v").unwrap();
        let templated = |key: &str, row_version: &str| {
            let mut send = send(&version, key);
            send.check.as_mut().unwrap().template = Some((template_id, row_version.to_string()));
            send
        };
        beside(templated("k7", &row_version), "k8", Written::Accepted).await;
        beside(templated("k9", "0"), "k10", Written::Stale).await;
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
