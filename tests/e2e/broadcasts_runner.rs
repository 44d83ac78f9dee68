//! Broadcasts and the runner: a crashed runner taken over, single sends overtaking a running
//! broadcast, broadcast messages' deliveries waiting behind others, a bulk-loaded audience
//! analyzed before it is read.

use std::collections::BTreeMap;
use std::time::Duration;

use sea_orm::EntityTrait;
use serde_json::json;

use core_service::clock::Clock;

use crate::e2e;
use crate::fixtures::broadcasts::{
    accepted_at_least, announcement, assert_counts, audience, completed, created, fan, messages_of,
    slow,
};
use crate::fixtures::{
    ALL_SCOPES, Receiver, live_business, post_keyed, register_webhook, send_v1, utility,
};
use crate::harness::{Options, eventually, quiet_for};

const BIZ: &str = "+14155550100";

/// No dispatcher nor runner on the test's own core.
fn held() -> Options {
    Options {
        configure: Some(std::sync::Arc::new(|c| c.delivery.dispatch_concurrency = 0)),
        ..Default::default()
    }
}

e2e!(
    a_crashed_runner_is_taken_over_and_every_follower_gets_one_message,
    held(),
    |app| async move {
        let biz = live_business(&app, BIZ, ALL_SCOPES).await;
        let fans = audience(&app, &biz, 24, 0).await;
        // The only runner is on a core that will crash.
        let doomed = app.crashable_core(|c| c.delivery.dispatch_concurrency = 4);
        let mut body = slow("Paced");
        body["max_per_second"] = json!(4);
        let b = created(&app, &biz, body).await;
        let id = b["id"].as_str().unwrap().to_string();
        let running = accepted_at_least(&app, &biz.owner_token, &id, 4).await;
        assert!(running["counts"]["accepted"].as_i64().unwrap() < 24);
        doomed.crash();
        let at_crash = messages_of(&app, &id).await.len();

        // Another core takes it over once the lease has lapsed (30 s without renewal).
        let _survivor = app
            .second_stack(|c| c.delivery.dispatch_concurrency = 4)
            .await;
        quiet_for(Duration::from_millis(1500)).await;
        assert_eq!(
            messages_of(&app, &id).await.len(),
            at_crash,
            "not taken over while the lease holds"
        );
        app.clock.advance(Duration::from_secs(31));
        let done = completed(&app, &biz.owner_token, &id).await;
        assert_eq!(done["status"], "completed");
        assert_counts(&done, 24, 24, 0, 0);
        assert_eq!(done["counts"]["delivered"], 24);
        let mut per_recipient: BTreeMap<String, usize> = BTreeMap::new();
        for m in messages_of(&app, &id).await {
            assert_eq!(m.status.as_str(), "delivered");
            *per_recipient
                .entry(m.recipient_user_id.to_string())
                .or_default() += 1;
        }
        assert_eq!(per_recipient.len(), fans.len());
        assert!(per_recipient.values().all(|n| *n == 1), "{per_recipient:?}");
    }
);

e2e!(
    single_sends_overtake_a_running_broadcast,
    held(),
    |app| async move {
        use core_service::messaging::outbox::{self, LeaseLimits};
        let biz = live_business(&app, BIZ, ALL_SCOPES).await;
        audience(&app, &biz, 12, 0).await;
        // A runner without a dispatcher: the broadcast's messages wait in the outbox.
        let stop = tokio_util::sync::CancellationToken::new();
        let runner = core_service::broadcasts::runner::Runner::new(app.core.clone());
        tokio::spawn(runner.run(stop.clone()));
        let b = created(&app, &biz, announcement()).await;
        let id = b["id"].as_str().unwrap().to_string();
        accepted_at_least(&app, &biz.owner_token, &id, 12).await;
        stop.cancel();
        let mut singles = Vec::new();
        for i in 0..3 {
            let reply = send_v1(&app, &biz, utility(&fan(i)), None).await;
            reply.assert_ok(200);
            singles.push(
                reply.data()["id"]
                    .as_str()
                    .unwrap()
                    .parse::<uuid::Uuid>()
                    .unwrap(),
            );
        }
        let now = app.clock.now_ms();
        let limits = LeaseLimits {
            total: 5,
            scheduled: 5,
            broadcast: 5,
        };
        let leased = outbox::lease_due(&app.core.db, "test", now, now + 30_000, limits)
            .await
            .unwrap();
        assert_eq!(leased.len(), 5);
        for single in &singles {
            assert!(leased.contains(&(*single, outbox::SINGLE)), "{leased:?}");
        }
        assert_eq!(
            leased
                .iter()
                .filter(|(_, class)| *class == outbox::BROADCAST)
                .count(),
            2
        );
    }
);

e2e!(
    deliveries_of_broadcast_messages_wait_behind_other_deliveries,
    |app| async move {
        use core_service::entities::webhook_deliveries;
        app.stop_workers();
        let receiver = Receiver::start().await;
        let biz = live_business(&app, BIZ, ALL_SCOPES).await;
        audience(&app, &biz, 6, 0).await;
        register_webhook(&app, &biz, &receiver.url(), &["message.sent"]).await;
        let b = created(&app, &biz, announcement()).await;
        let id = b["id"].as_str().unwrap().to_string();
        completed(&app, &biz.owner_token, &id).await;
        let single = send_v1(&app, &biz, utility(&fan(0)), None).await;
        single.assert_ok(200);
        let single_id = single.data()["id"].as_str().unwrap().to_string();
        let pending = eventually("seven deliveries queued", async || {
            let rows = webhook_deliveries::Entity::find()
                .all(&app.core.db)
                .await
                .unwrap();
            (rows.len() == 7).then_some(rows)
        })
        .await;
        assert_eq!(pending.iter().filter(|d| d.class == 1).count(), 6);
        // The single send's delivery, queued last, is leased first.
        let now = app.clock.now_ms();
        let leased = core_service::webhooks::store::lease_due(
            &app.core.db,
            now,
            now + 30_000,
            "test",
            1,
            0,
            false,
        )
        .await
        .unwrap();
        assert_eq!(leased.len(), 1);
        assert!(leased[0].data.contains(&single_id), "{}", leased[0].data);
    }
);

e2e!(
    a_bulk_loaded_audience_is_analyzed_before_its_pages_are_read,
    |app| async move {
        // `admin demo` loads a thousand followers; the broadcast fixes them as its audience.
        let demo = core_service::admin::cli::run(core_service::admin::cli::AdminArgs {
            core_url: app.grpc_url.clone(),
            core_tls_ca: app.core_tls_ca.clone(),
            internal_token: app.config.internal_token.clone(),
            command: core_service::admin::cli::AdminCommand::Demo {
                yes: true,
                followers: 1000,
            },
        })
        .await
        .unwrap();
        let token = demo["owner_access_token"].as_str().unwrap().to_string();
        let reply = post_keyed(&app, "/business/broadcasts", &token, announcement(), None).await;
        reply.assert_ok(201);
        let id = reply.data()["id"].as_str().unwrap().to_string();
        let done = completed(&app, &token, &id).await;
        assert_counts(&done, 1000, 1000, 0, 0);

        if app.core.db.get_database_backend() == sea_orm::DbBackend::Postgres {
            // The planner knows of the demo's users (ANALYZE sets reltuples at once)...
            let known = |table: &'static str| {
                let db = app.core.db.clone();
                async move {
                    use sea_orm::ConnectionTrait;
                    let row = db
                        .query_one_raw(sea_orm::Statement::from_string(
                            sea_orm::DbBackend::Postgres,
                            format!(
                                "SELECT reltuples::bigint AS n FROM pg_class WHERE relname = '{table}'"
                            ),
                        ))
                        .await
                        .unwrap()
                        .unwrap();
                    row.try_get::<i64>("", "n").unwrap()
                }
            };
            assert!(
                known("users").await >= 1000,
                "users analyzed after the demo"
            );
            assert!(
                known("follows").await >= 1000,
                "follows analyzed after the demo"
            );
            // ...and the audience was analyzed once fixed (the statistics arrive within a
            // second or so).
            eventually("broadcast_recipients analyzed", async || {
                use sea_orm::ConnectionTrait;
                let row = app
                    .core
                    .db
                    .query_one_raw(sea_orm::Statement::from_string(
                        sea_orm::DbBackend::Postgres,
                        "SELECT analyze_count FROM pg_stat_user_tables \
                         WHERE relname = 'broadcast_recipients'",
                    ))
                    .await
                    .unwrap()?;
                (row.try_get::<i64>("", "analyze_count").unwrap() >= 1).then_some(())
            })
            .await;
        }
    }
);
