//! The benchmark's `reads` phase: a demo business with a large audience (`admin demo
//! --followers N`, then every fifth follower unfollowed by support), optionally a seeded history
//! (`--seed-messages N`: messages, their outcomes and their webhook deliveries inserted straight
//! into the database in batches over the last 90 days, with the usage counters kept the same
//! way), then the audience and usage reads at a fixed rate, each on its own, with their
//! latencies.

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use axum::body::Bytes;
use chrono::{TimeDelta, Utc};
use core_service::clock::id_at;
use proto::v1 as pb;
use proto::vocabulary::{
    Category, DeliveryStatus, EventType, FailureReason, MessageSource, MessageStatus,
};
use sea_orm::{ConnectionTrait, EntityTrait, Set, Statement, TransactionTrait};
use uuid::Uuid;

use crate::harness::TestApp;

/// What the reads phase is told.
pub struct ReadArgs {
    pub audience: u32,
    pub seed_messages: u64,
    pub rate: u32,
    pub connections: usize,
    pub duration: Duration,
    pub receiver: String,
}

/// The demo business the reads run against.
struct Demo {
    id: Uuid,
    app_id: Uuid,
    owner_token: String,
}

pub async fn run(app: &TestApp, args: &ReadArgs) {
    let demo = demo(app, args.audience).await;
    unfollow_every_fifth(app, &demo).await;
    if args.seed_messages > 0 {
        seed_messages(app, &demo, args).await;
    }
    let paths = read_paths(app, &demo).await;
    println!(
        "\n== reads: {} requests/s over {} connections, {} s each ==",
        args.rate,
        args.connections,
        args.duration.as_secs()
    );
    for (name, path) in paths {
        let latencies = read_load(app, &demo.owner_token, &path, args).await;
        println!("{name}: {latencies}");
    }
}

async fn demo(app: &TestApp, audience: u32) -> Demo {
    let started = Instant::now();
    let demo = app
        .admin()
        .await
        .create_demo(app.admin_request(pb::CreateDemoRequest {
            confirm: true,
            followers: Some(audience),
        }))
        .await
        .expect("admin demo")
        .into_inner();
    println!(
        "\nadmin demo --followers {audience}: {} followers in {:.1} s",
        demo.follower_count,
        started.elapsed().as_secs_f64()
    );
    Demo {
        id: demo.business_account_id.parse().unwrap(),
        app_id: demo.app_id.parse().unwrap(),
        owner_token: demo.owner_access_token,
    }
}

/// Support unfollows every fifth follower (by phone number order), 16 at a time.
async fn unfollow_every_fifth(app: &TestApp, demo: &Demo) {
    let started = Instant::now();
    let rows = app
        .core
        .db
        .query_all_raw(Statement::from_sql_and_values(
            app.core.db.get_database_backend(),
            "SELECT u.phone_number FROM follows f JOIN users u ON u.id = f.user_id \
             WHERE f.business_id = $1 ORDER BY u.phone_number",
            [demo.id.into()],
        ))
        .await
        .unwrap();
    let phones: Vec<String> = rows
        .iter()
        .map(|row| row.try_get_by_index::<String>(0).unwrap())
        .step_by(5)
        .collect();
    let queue = Arc::new(Mutex::new(phones.clone()));
    let mut tasks = Vec::new();
    for _ in 0..16 {
        let queue = queue.clone();
        let business_id = demo.id.to_string();
        let mut admin = app.admin().await;
        // The request's metadata (the internal token), reused for every call.
        let metadata = app.admin_request(()).metadata().clone();
        tasks.push(tokio::spawn(async move {
            loop {
                let Some(phone) = queue.lock().unwrap().pop() else {
                    return;
                };
                let mut request = tonic::Request::new(pb::SetFollowRequest {
                    business_id: business_id.clone(),
                    phone_number: phone,
                    unfollow: true,
                    marketing_opt_in: None,
                });
                *request.metadata_mut() = metadata.clone();
                admin.set_follow(request).await.expect("set-follow");
            }
        }));
    }
    for task in tasks {
        task.await.unwrap();
    }
    println!(
        "admin set-follow --unfollow: {} followers in {:.1} s",
        phones.len(),
        started.elapsed().as_secs_f64()
    );
}

const CATEGORIES: [Category; 4] = [
    Category::Utility,
    Category::Marketing,
    Category::Authentication,
    Category::Service,
];
const SEED_BATCH: u64 = 1000;

/// Messages (90% delivered), their `message.sent`/`message.failed` deliveries (95% succeeded)
/// and the usage counters, a thousand per transaction, spread evenly over the last 90 days.
async fn seed_messages(app: &TestApp, demo: &Demo, args: &ReadArgs) {
    use core_service::entities::{messages, webhook_deliveries};
    let started = Instant::now();
    let hook = app
        .post(
            "/business/webhooks",
            Some(&demo.owner_token),
            serde_json::json!({
                "url": format!("{}/seeded", args.receiver),
                "events": ["message.sent", "message.failed"],
            }),
        )
        .await;
    hook.assert_ok(201);
    let webhook_id: Uuid = hook.data()["id"].as_str().unwrap().parse().unwrap();
    let rows = app
        .core
        .db
        .query_all_raw(Statement::from_sql_and_values(
            app.core.db.get_database_backend(),
            "SELECT u.id, u.phone_number FROM follows f JOIN users u ON u.id = f.user_id \
             WHERE f.business_id = $1 AND f.status = 'active' LIMIT 1000",
            [demo.id.into()],
        ))
        .await
        .unwrap();
    let recipients: Vec<(Uuid, String)> = rows
        .iter()
        .map(|row| {
            (
                row.try_get_by_index::<Uuid>(0).unwrap(),
                row.try_get_by_index::<String>(1).unwrap(),
            )
        })
        .collect();
    let now = Utc::now();
    let span_ms = 90 * 24 * 3_600_000i64 - 60_000;
    let total = args.seed_messages;
    let mut written = 0;
    while written < total {
        let batch = SEED_BATCH.min(total - written);
        let mut tally = core_service::usage::Tally::new();
        let mut messages = Vec::with_capacity(batch as usize);
        let mut deliveries = Vec::with_capacity(batch as usize);
        for i in written..written + batch {
            let back_ms = span_ms - (span_ms as u128 * u128::from(i) / u128::from(total)) as i64;
            let created_at = now - TimeDelta::milliseconds(back_ms);
            let completed_at = created_at + TimeDelta::seconds(1);
            let (user, phone) = &recipients[i as usize % recipients.len()];
            let category = CATEGORIES[(i % 10).min(3) as usize];
            let delivered = i % 10 != 9;
            // Made as the core makes them: the purge walks them by id (`clock::id_at`).
            let id = id_at(created_at);
            messages.push(messages::ActiveModel {
                id: Set(id),
                business_id: Set(demo.id),
                source: Set(MessageSource::App),
                app_id: Set(Some(demo.app_id)),
                sender_user_id: Set(None),
                recipient_user_id: Set(*user),
                to_phone: Set(phone.clone()),
                category: Set(category),
                body: Set(Some("Your order shipped".into())),
                message_content: Set(None),
                status: Set(if delivered {
                    MessageStatus::Delivered
                } else {
                    MessageStatus::Failed
                }),
                failure_reason: Set((!delivered).then_some(FailureReason::RecipientInactive)),
                emits_event: Set(true),
                created_at: Set(created_at),
                completed_at: Set(Some(completed_at)),
                send_at: Set(None),
                expires_at: Set(None),
                broadcast_id: Set(None),
                conversation_id: Set(None),
                reply_to: Set(None),
                template: Set(None),
            });
            let succeeded = i % 20 != 19;
            let event_type = if delivered {
                EventType::MessageSent
            } else {
                EventType::MessageFailed
            };
            deliveries.push(webhook_deliveries::ActiveModel {
                id: Set(id_at(completed_at)),
                webhook_id: Set(webhook_id),
                business_id: Set(demo.id),
                event_id: Set(id_at(completed_at)),
                event_type: Set(event_type),
                data: Set(format!(r#"{{"message_send_id":"{id}"}}"#)),
                status: Set(if succeeded {
                    DeliveryStatus::Succeeded
                } else {
                    DeliveryStatus::Failed
                }),
                attempts: Set(1),
                last_http_status: Set(Some(if succeeded { 200 } else { 400 })),
                last_error: Set((!succeeded).then(|| "receiver answered 400".into())),
                next_attempt_at_ms: Set(0),
                lease_until_ms: Set(0),
                lease_token: Set(None),
                created_at: Set(completed_at),
                updated_at: Set(completed_at),
                queued: Set(0),
                class: Set(0),
                attempts_base: Set(0),
                message_id: Set(Some(id)),
            });
            let (accepted_ms, decided_ms) = (
                created_at.timestamp_millis(),
                completed_at.timestamp_millis(),
            );
            tally.accepted(demo.id, category, MessageStatus::Accepted, accepted_ms);
            tally.decided(demo.id, delivered, decided_ms);
            tally.queued(demo.id, 1);
            tally.settled(demo.id, succeeded, 1, decided_ms);
        }
        let txn = app.core.db.begin().await.unwrap();
        messages::Entity::insert_many(messages)
            .exec_without_returning(&txn)
            .await
            .unwrap();
        webhook_deliveries::Entity::insert_many(deliveries)
            .exec_without_returning(&txn)
            .await
            .unwrap();
        tally.apply(&txn).await.unwrap();
        txn.commit().await.unwrap();
        written += batch;
    }
    println!(
        "--seed-messages {total}: messages, outcomes and deliveries over 90 days in {:.1} s",
        started.elapsed().as_secs_f64()
    );
}

/// The reads, by name: the followers list's first page, a page 50,000 follows deep and the
/// last page, each unfiltered, `status=unfollowed` and `marketing_opt_in=true`; the usage
/// totals; the daily figures of 90 days.
async fn read_paths(app: &TestApp, demo: &Demo) -> Vec<(String, String)> {
    let mut paths = Vec::new();
    let mut deep: Option<String> = None;
    for (name, filter, condition) in [
        ("all", "", ""),
        (
            "status=unfollowed",
            "&status=unfollowed",
            " AND status = 'unfollowed'",
        ),
        (
            "marketing_opt_in=true",
            "&marketing_opt_in=true",
            " AND marketing_opt_in = TRUE",
        ),
    ] {
        let count = app
            .core
            .db
            .query_one_raw(Statement::from_sql_and_values(
                app.core.db.get_database_backend(),
                format!("SELECT COUNT(*) FROM follows WHERE business_id = $1{condition}"),
                [demo.id.into()],
            ))
            .await
            .unwrap()
            .unwrap()
            .try_get_by_index::<i64>(0)
            .unwrap();
        // The follow just before a page: the cursor that page is asked with.
        let cursor = async |condition: &str, offset: i64| -> Option<String> {
            let row = app
                .core
                .db
                .query_one_raw(Statement::from_sql_and_values(
                    app.core.db.get_database_backend(),
                    format!(
                        "SELECT user_id FROM follows WHERE business_id = $1{condition} \
                         ORDER BY followed_at DESC, user_id DESC LIMIT 1 OFFSET {}",
                        offset.max(0)
                    ),
                    [demo.id.into()],
                ))
                .await
                .unwrap()?;
            Some(row.try_get_by_index::<Uuid>(0).unwrap().to_string())
        };
        paths.push((
            format!("GET /business/followers {name}, first page"),
            format!("/business/followers?limit=50{filter}"),
        ));
        // 50,000 follows deep in the whole list (a filter then reads on from there).
        if deep.is_none() {
            deep = cursor("", 49_999).await;
        }
        if let Some(deep) = &deep {
            paths.push((
                format!("GET /business/followers {name}, 50,000 deep"),
                format!("/business/followers?limit=50{filter}&starting_after={deep}"),
            ));
        }
        if let Some(last) = cursor(condition, count - 51).await.filter(|_| count > 50) {
            paths.push((
                format!("GET /business/followers {name}, last page ({count} follows)"),
                format!("/business/followers?limit=50{filter}&starting_after={last}"),
            ));
        }
    }
    paths.push(("GET /business/usage".into(), "/business/usage".into()));
    paths.push((
        "GET /business/usage/daily?days=90".into(),
        "/business/usage/daily?days=90".into(),
    ));
    paths
}

/// `path` at `args.rate` requests a second for `args.duration`, over `args.connections`
/// keep-alive connections (each sends its share on a fixed schedule; latency counts from the
/// scheduled time). Returns the figures as a line.
pub async fn read_load(app: &TestApp, token: &str, path: &str, args: &ReadArgs) -> String {
    use http_body_util::BodyExt;
    let addr = app.base.trim_start_matches("http://").to_string();
    let per_connection = f64::from(args.rate) / args.connections as f64;
    let interval = Duration::from_secs_f64(1.0 / per_connection);
    let requests = (per_connection * args.duration.as_secs_f64()).round() as usize;
    let started = Instant::now() + Duration::from_millis(50);
    let tasks: Vec<_> = (0..args.connections)
        .map(|c| {
            let addr = addr.clone();
            let token = format!("Bearer {token}");
            let path = path.to_string();
            // Spread the connections' schedules over one interval.
            let offset = interval.mul_f64(c as f64 / args.connections as f64);
            tokio::spawn(async move {
                let stream = tokio::net::TcpStream::connect(&addr).await.unwrap();
                stream.set_nodelay(true).unwrap();
                let (mut sender, connection) =
                    hyper::client::conn::http1::handshake(hyper_util::rt::TokioIo::new(stream))
                        .await
                        .unwrap();
                tokio::spawn(connection);
                let mut latencies = Vec::with_capacity(requests);
                let mut errors = 0;
                for i in 0..requests {
                    let scheduled = started + offset + interval.mul_f64(i as f64);
                    tokio::time::sleep_until(scheduled.into()).await;
                    if sender.ready().await.is_err() {
                        errors += 1;
                        continue;
                    }
                    let request = hyper::Request::get(&path)
                        .header("host", &addr)
                        .header("authorization", &token)
                        .body(http_body_util::Full::new(Bytes::new()))
                        .unwrap();
                    match sender.send_request(request).await {
                        Ok(response) => {
                            let ok = response.status() == 200;
                            let _ = response.into_body().collect().await;
                            latencies.push(scheduled.elapsed());
                            if !ok {
                                errors += 1;
                            }
                        }
                        Err(_) => errors += 1,
                    }
                }
                (latencies, errors)
            })
        })
        .collect();
    let mut latencies = Vec::new();
    let mut errors = 0;
    for task in tasks {
        let (l, e) = task.await.unwrap();
        latencies.extend(l);
        errors += e;
    }
    latencies.sort();
    format!(
        "p50 {:.1} ms, p99 {:.1} ms, max {:.1} ms ({} requests, {} not 200)",
        crate::percentile(&latencies, 0.50),
        crate::percentile(&latencies, 0.99),
        crate::percentile(&latencies, 1.0),
        latencies.len(),
        errors
    )
}
