//! A worker's reports: each current one is recorded once (the delivery's status and attempt
//! count, the attempts log, the usage counters), and one whose lease is not current (replaced,
//! or reported already) changes nothing, however the core writes the batch: on PostgreSQL a
//! batch of plain successes is one statement, any other batch (and every batch on SQLite) one
//! transaction.

use core_service::entities::webhook_attempts;
use proto::v1 as pb;
use sea_orm::{ColumnTrait, EntityTrait, QueryFilter, QueryOrder};
use serde_json::Value;

use crate::e2e;
use crate::fixtures::jobs::*;
use crate::fixtures::*;
use crate::harness::TestApp;

const BIZ: &str = "+14155550180";
const FAN: &str = "+14155550181";

/// The report of `job`, answered with `status` in `duration_ms`.
fn report(job: &pb::Job, status: u32, duration_ms: u32) -> pb::JobReport {
    pb::JobReport {
        duration_ms: Some(duration_ms),
        ..answered(job, status)
    }
}

/// The attempts logged for `job`: (attempt, HTTP status, error, duration in ms).
async fn attempts(app: &TestApp, job: &pb::Job) -> Vec<(i32, Option<i32>, Option<String>, i64)> {
    let id: uuid::Uuid = job.delivery_id.parse().unwrap();
    webhook_attempts::Entity::find()
        .filter(webhook_attempts::Column::DeliveryId.eq(id))
        .order_by_asc(webhook_attempts::Column::Attempt)
        .all(&app.core.db)
        .await
        .unwrap()
        .into_iter()
        .map(|a| (a.attempt, a.http_status, a.error, a.duration_ms))
        .collect()
}

/// The business's webhook counters: (pending, succeeded) in the totals, and succeeded today.
async fn counters(app: &TestApp, biz: &Business) -> (i64, i64, i64) {
    let reply = app.get("/business/usage", Some(&biz.owner_token)).await;
    reply.assert_ok(200);
    let totals = &reply.data()["webhooks"];
    let reply = app
        .get("/business/usage/daily?days=1", Some(&biz.owner_token))
        .await;
    reply.assert_ok(200);
    let today: &Value = &reply.data()["days"][0];
    (
        totals["pending"].as_i64().unwrap(),
        totals["succeeded"].as_i64().unwrap(),
        today["webhooks_succeeded"].as_i64().unwrap(),
    )
}

async fn job_status(app: &TestApp, job: &pb::Job) -> (String, i32, Option<i32>, Option<String>) {
    let row = delivery(app, job.delivery_id.parse().unwrap()).await;
    (
        row.status.to_string(),
        row.attempts,
        row.last_http_status,
        row.lease_token,
    )
}

/// The first batch's reports as recorded: the two successes under their leases, the third
/// report (under a lease its delivery does not hold) left out.
async fn first_batch_recorded(app: &TestApp, jobs: &[pb::Job]) {
    assert_eq!(
        job_status(app, &jobs[0]).await,
        ("succeeded".into(), 1, Some(200), None)
    );
    assert_eq!(
        job_status(app, &jobs[1]).await,
        ("succeeded".into(), 1, Some(204), None)
    );
    assert_eq!(attempts(app, &jobs[0]).await, [(1, Some(200), None, 7)]);
    assert_eq!(attempts(app, &jobs[1]).await, [(1, Some(204), None, 9)]);
    assert_eq!(
        job_status(app, &jobs[2]).await,
        ("pending".into(), 0, None, Some(jobs[2].lease_token.clone())),
        "a report under another lease changes nothing"
    );
    assert!(attempts(app, &jobs[2]).await.is_empty());
}

e2e!(
    a_batch_of_reports_records_each_current_one_once_and_a_stale_one_changes_nothing,
    |app| async move {
        let receiver = Receiver::start().await;
        let (biz, _) = pending_deliveries(&app, &receiver, (BIZ, FAN), 3).await;
        let (_client, mut stream) = open_stream(&app.grpc_url, "reporting-worker", false, &[])
            .await
            .unwrap();
        let mut jobs = Vec::new();
        for _ in 0..3 {
            jobs.push(next_job(&mut stream).await);
        }
        assert_eq!(counters(&app, &biz).await, (3, 0, 0));

        // Two successes and a report carrying a lease its delivery does not hold.
        let stale = pb::JobReport {
            lease_token: "not-its-lease".into(),
            ..report(&jobs[2], 200, 3)
        };
        let plain = vec![report(&jobs[0], 200, 7), report(&jobs[1], 204, 9)];
        let mut batch = plain.clone();
        batch.push(stale);
        report_through(&app.grpc_url, batch).await;
        first_batch_recorded(&app, &jobs).await;
        assert_eq!(counters(&app, &biz).await, (1, 2, 2));

        // The same successes reported again (a worker retrying its report): nothing moves.
        report_through(&app.grpc_url, plain).await;
        first_batch_recorded(&app, &jobs).await;
        assert_eq!(counters(&app, &biz).await, (1, 2, 2));

        // A success and a failure in one batch: the third under its own lease, and a fourth
        // delivery's attempt that the receiver answered 500.
        send_utility(&app, &biz, FAN).await;
        let fourth = next_job(&mut stream).await;
        report_through(
            &app.grpc_url,
            vec![report(&jobs[2], 200, 4), report(&fourth, 500, 6)],
        )
        .await;
        assert_eq!(
            job_status(&app, &jobs[2]).await,
            ("succeeded".into(), 1, Some(200), None)
        );
        assert_eq!(attempts(&app, &jobs[2]).await, [(1, Some(200), None, 4)]);
        let (status, tries, http_status, lease) = job_status(&app, &fourth).await;
        assert_eq!(
            (status.as_str(), tries, http_status, lease),
            ("retrying", 1, Some(500), None)
        );
        assert_eq!(
            attempts(&app, &fourth).await,
            [(1, Some(500), Some("receiver answered 500".into()), 6)]
        );
        assert_eq!(counters(&app, &biz).await, (1, 3, 3));
    }
);
