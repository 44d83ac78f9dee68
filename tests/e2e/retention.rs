//! Retention: the purge deletes each kind of data once it is past its retention, and nothing
//! younger; recovery reaches back no further than the deliveries are kept.

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Duration;

use serde_json::json;

use core_service::clock::Clock;

use crate::e2e;
use crate::fixtures::Receiver;
use crate::fixtures::{
    ALL_SCOPES, TABLES, attempts_reported, counts, live_business, one_of_everything, purge,
    register_webhook, send_v1,
};
use crate::harness::Options;

fn minus(
    a: &BTreeMap<&'static str, i64>,
    b: &BTreeMap<&'static str, i64>,
) -> BTreeMap<&'static str, i64> {
    a.iter().map(|(k, v)| (*k, v - b[k])).collect()
}

const MINUTE: Duration = Duration::from_secs(60);
const HOUR: Duration = Duration::from_secs(3600);
const DAY: Duration = Duration::from_secs(24 * 3600);

e2e!(
    retention_purges_each_kind_of_data_past_its_retention_and_nothing_younger,
    |app| async move {
        let receiver = Receiver::start().await;
        let start = app.clock.now();
        one_of_everything(&app, &receiver, 1).await;
        attempts_reported(&app, 1).await;
        let old = counts(&app).await;
        // The younger set, 30 minutes later: every check below stands 15 minutes past the old
        // set's retention, so 15 minutes before the young set's.
        app.clock.advance(30 * MINUTE);
        one_of_everything(&app, &receiver, 2).await;
        attempts_reported(&app, 2).await;
        let all = counts(&app).await;
        let young = minus(&all, &old);
        for table in TABLES {
            assert!(
                old[table] > 0 && young[table] > 0,
                "{table}: {old:?} {all:?}"
            );
        }
        // (retention from creation, what goes then) with the default settings, in time order.
        let steps: &[(Duration, &[&str], &str)] = &[
            // Expires after 2 minutes, kept 1 hour more.
            (2 * MINUTE + HOUR, &["qr_sessions"], "qr_sessions"),
            // Expires after 5 minutes, kept 24 hours more.
            (5 * MINUTE + DAY, &["otp_codes"], "otp_codes"),
            // The 24-hour window, then 1 hour.
            (DAY + HOUR, &["idempotency_keys"], "idempotency_keys"),
            (30 * DAY, &["events"], "events"),
            (
                30 * DAY,
                &["webhook_deliveries", "webhook_attempts"],
                "deliveries",
            ),
            // The refresh tokens live 30 days, the dead family is kept 7 more.
            (
                37 * DAY,
                &["refresh_families", "refresh_tokens"],
                "refresh_families",
            ),
            (90 * DAY, &["messages"], "messages"),
            (90 * DAY, &["inbound_messages"], "received"),
            (90 * DAY, &["inbox_messages"], "inbox"),
        ];
        // When each table's rows of a set go, counted from the set's creation.
        let boundary = |table: &str| {
            steps
                .iter()
                .find(|(_, tables, _)| tables.contains(&table))
                .map(|(age, _, _)| *age)
                .unwrap()
        };
        let mut purged_total: BTreeMap<String, u64> = BTreeMap::new();
        for (age, _, class) in steps {
            // 15 minutes past the old set's retention: 15 minutes before the young set's.
            let elapsed = *age + 15 * MINUTE;
            let at = start + chrono::TimeDelta::from_std(elapsed).unwrap();
            let now = app.clock.now();
            if at > now {
                app.clock.advance((at - now).to_std().unwrap());
            }
            let purged = purge(&app).await;
            for (class, rows) in &purged {
                *purged_total.entry(class.clone()).or_default() += rows;
            }
            let now = counts(&app).await;
            for table in TABLES {
                let past = boundary(table);
                let old_left = if elapsed > past { 0 } else { old[table] };
                let young_left = if elapsed > past + 30 * MINUTE {
                    0
                } else {
                    young[table]
                };
                assert_eq!(
                    now[table],
                    old_left + young_left,
                    "{table} after {elapsed:?} ({class}): {now:?}, purged {purged:?}"
                );
            }
        }
        // An hour later the young set is past every retention too.
        app.clock.advance(HOUR);
        for (class, rows) in purge(&app).await {
            *purged_total.entry(class).or_default() += rows;
        }
        let end = counts(&app).await;
        assert!(end.values().all(|n| *n == 0), "{end:?}");
        // By the end both sets are gone, and the passes answered what they deleted: rows of
        // the class's own table (a delivery's attempts and a family's tokens go with it).
        for (_, tables, class) in steps {
            assert_eq!(
                purged_total.get(*class).copied(),
                Some((old[tables[0]] + young[tables[0]]) as u64),
                "{class}: {purged_total:?}"
            );
        }
    }
);

e2e!(
    retention_purge_reports_its_progress_in_the_metrics,
    |app| async move {
        let receiver = Receiver::start().await;
        one_of_everything(&app, &receiver, 3).await;
        attempts_reported(&app, 1).await;
        let before = proto::metrics::render();
        app.clock.advance(91 * DAY);
        let purged = purge(&app).await;
        assert_eq!(purged.get("messages"), Some(&1), "{purged:?}");
        let after = proto::metrics::render();
        let series = |text: &str, line: &str| {
            text.lines()
                .find(|l| l.starts_with(line))
                .and_then(|l| l.rsplit_once(' '))
                .map_or(0.0, |(_, v)| v.parse::<f64>().unwrap())
        };
        for data in ["messages", "deliveries", "refresh_families"] {
            let line = format!("retention_purged_rows_total{{data=\"{data}\"}}");
            assert!(
                series(&after, &line) > series(&before, &line),
                "{line} did not move:\n{after}"
            );
        }
        let runs = "retention_purge_runs_total{result=\"ok\"}";
        assert!(series(&after, runs) > series(&before, runs), "{after}");
        assert!(
            after.contains("\nretention_purge_last_success_timestamp_seconds "),
            "{after}"
        );
        assert!(after.contains("\nretention_purge_duration_seconds_count "));
    }
);

e2e!(
    two_cores_purging_at_once_delete_each_row_once_in_small_batches,
    Options {
        configure: Some(Arc::new(|c| c.retention.purge_batch_size = 2)),
        ..Options::default()
    },
    |app| async move {
        let receiver = Receiver::start().await;
        let biz = one_of_everything(&app, &receiver, 4).await;
        for i in 0..9 {
            send_v1(
                &app,
                &biz,
                json!({ "to": "+14155551041", "category": "utility", "body": format!("m{i}") }),
                None,
            )
            .await
            .assert_ok(200);
        }
        receiver.wait_for(10).await;
        attempts_reported(&app, 10).await;
        let other = app.second_stack(|_| {}).await;
        let messages = counts(&app).await["messages"];
        assert_eq!(messages, 10);
        app.clock.advance(91 * DAY);
        let mut second =
            proto::v1::admin_service_client::AdminServiceClient::connect(other.grpc_url.clone())
                .await
                .unwrap();
        let (here, there) = tokio::join!(
            purge(&app),
            second.purge(app.admin_request(proto::v1::PurgeRequest {}))
        );
        let there: BTreeMap<String, u64> = there
            .expect("the second core's pass")
            .into_inner()
            .purged
            .into_iter()
            .map(|p| (p.data, p.rows))
            .collect();
        for (class, table) in [
            ("messages", "messages"),
            ("deliveries", "webhook_deliveries"),
        ] {
            assert_eq!(
                here[class] + there[class],
                10,
                "{class} deleted once in all: {here:?} {there:?}"
            );
            assert_eq!(counts(&app).await[table], 0);
        }
        assert_eq!(counts(&app).await["webhook_attempts"], 0);
    }
);

e2e!(
    recovery_reaches_back_no_further_than_the_deliveries_are_kept,
    Options {
        configure: Some(Arc::new(|c| c.retention.retention_deliveries_days = 3)),
        ..Options::default()
    },
    |app| async move {
        let receiver = Receiver::start().await;
        let biz = live_business(&app, "+14155551050", ALL_SCOPES).await;
        let hook = register_webhook(&app, &biz, &receiver.url(), &["message.sent"]).await;
        let path = format!(
            "/business/webhooks/{}/recover",
            hook["id"].as_str().unwrap()
        );
        let now = app.clock.now();
        let back = |days: i64| (now - chrono::TimeDelta::days(days)).to_rfc3339();
        let refused = app
            .post(&path, Some(&biz.owner_token), json!({ "since": back(4) }))
            .await;
        refused.assert_error(400, "invalid_request");
        assert_eq!(
            refused.body["detail"],
            "since: at most 3 days back (deliveries are kept 3 days)"
        );
        app.post(&path, Some(&biz.owner_token), json!({ "since": back(2) }))
            .await
            .assert_ok(200);
    }
);

e2e!(
    messages_events_and_deliveries_take_their_ids_from_the_time_that_ages_them,
    |app| async move {
        use core_service::entities::{events, inbound_messages, messages, webhook_deliveries};
        use sea_orm::EntityTrait;
        // The purge walks these four by primary key up to the least id of its cutoff: an id
        // must carry the core's time (the injected clock, an hour ahead of the wall clock
        // here), not the wall clock's.
        app.clock.advance(HOUR);
        let receiver = Receiver::start().await;
        one_of_everything(&app, &receiver, 6).await;
        attempts_reported(&app, 1).await;
        let ms = |id: uuid::Uuid| {
            let (secs, nanos) = id.get_timestamp().expect("a UUIDv7").to_unix();
            secs as i64 * 1000 + i64::from(nanos / 1_000_000)
        };
        let db = &app.core.db;
        let mut stamped = Vec::new();
        for m in messages::Entity::find().all(db).await.unwrap() {
            stamped.push(("message", ms(m.id), m.created_at.timestamp_millis()));
        }
        for m in inbound_messages::Entity::find().all(db).await.unwrap() {
            stamped.push(("user message", ms(m.id), m.received_at.timestamp_millis()));
        }
        for e in events::Entity::find().all(db).await.unwrap() {
            stamped.push(("event", ms(e.id), e.created_at.timestamp_millis()));
        }
        for d in webhook_deliveries::Entity::find().all(db).await.unwrap() {
            stamped.push(("delivery", ms(d.id), d.created_at.timestamp_millis()));
        }
        for kind in ["message", "user message", "event", "delivery"] {
            assert!(stamped.iter().any(|(k, ..)| *k == kind), "{stamped:?}");
        }
        for (kind, id_ms, created_ms) in &stamped {
            assert_eq!(id_ms, created_ms, "{kind}: {stamped:?}");
        }
    }
);
