//! The benchmark's `broadcast` phase: a demo business of `--audience` followers (`admin demo`,
//! half of them opted in to marketing) with an endpoint on the bench's receiver, then
//!
//! - a `utility` broadcast to all of them at the fastest pace allowed (the bench raises the send
//!   limit, so `max_per_second` does not bind), while the bench's own business sends
//!   `authentication` messages at `--auth-rate` per second through `/v1`; it prints the
//!   broadcast's rate (messages created and handed to the provider, from its creation, when it
//!   turns `running`, to its last outcome) beside the closed-loop send rate of the same run,
//!   how long after the last outcome the last `message.sent` arrived and whether every one did,
//!   the authentication sends' send-to-webhook p50/p99, and the process's largest RSS sampled
//!   every 100 ms;
//! - a `marketing` broadcast to the same audience, and its counts (only those opted in get one);
//! - a `utility` broadcast of a two-locale template to the same audience, half of it reading the
//!   second locale, timed as the first (each message rendered in its recipient's variant).
//!
//!     bench --db postgres --phases closed,broadcast --audience 100000

use std::collections::HashMap;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

use chrono::{DateTime, Utc};
use sea_orm::{ColumnTrait, EntityTrait, QueryFilter, QuerySelect};
use serde_json::{Value, json};
use uuid::Uuid;

use crate::harness::TestApp;
use crate::{Arrivals, Load, percentile, rss_mb, rss_mb_of};

/// What the broadcast phase is told.
pub struct BroadcastArgs {
    pub audience: u32,
    /// Authentication sends per second of the other business during the utility broadcast.
    pub auth_rate: u32,
    /// The closed-loop rate of the same run (sends/s), when that phase ran first.
    pub closed_rate: Option<f64>,
    pub receiver: String,
    pub drain_timeout: Duration,
    /// An external stack's processes: their RSS (summed) is sampled too.
    pub stack_pids: Vec<String>,
}

pub async fn run(app: &TestApp, auth: Arc<Load>, arrivals: &Arrivals, args: &BroadcastArgs) {
    let largest = Arc::new(AtomicU64::new(rss_mb() as u64));
    let largest_stack = Arc::new(AtomicU64::new(0));
    let sampling = tokio::spawn({
        let largest = largest.clone();
        let largest_stack = largest_stack.clone();
        let pids = args.stack_pids.clone();
        async move {
            loop {
                largest.fetch_max(rss_mb() as u64, Ordering::Relaxed);
                let stack: f64 = pids.iter().map(|pid| rss_mb_of(pid)).sum();
                largest_stack.fetch_max(stack as u64, Ordering::Relaxed);
                tokio::time::sleep(Duration::from_millis(100)).await;
            }
        }
    });
    let started = Instant::now();
    let demo = app
        .admin()
        .await
        .create_demo(app.admin_request(proto::v1::CreateDemoRequest {
            confirm: true,
            followers: Some(args.audience),
        }))
        .await
        .expect("admin demo")
        .into_inner();
    println!(
        "\n== broadcast: admin demo --followers {}: {} followers in {:.1} s ==",
        args.audience,
        demo.follower_count,
        started.elapsed().as_secs_f64()
    );
    let token = demo.owner_access_token.clone();
    app.post(
        "/business/webhooks",
        Some(&token),
        json!({ "url": format!("{}/hook/broadcast", args.receiver), "events": ["message.sent"] }),
    )
    .await
    .assert_ok(201);

    // The utility broadcast, with the other business's authentication sends around it.
    let pace = 500_000;
    let before = arrivals.log.lock().unwrap().len();
    let created = create(app, &token, "utility", pace).await;
    let id = created["id"].as_str().unwrap().to_string();
    let created_at = DateTime::parse_from_rfc3339(created["created_at"].as_str().unwrap())
        .unwrap()
        .with_timezone(&Utc);
    let stop = Arc::new(AtomicBool::new(false));
    let load = tokio::spawn(steady(auth, args.auth_rate, stop.clone()));
    let done = completed(app, &token, &id, args.drain_timeout).await;
    stop.store(true, Ordering::Relaxed);
    let counts = &done["counts"];
    let ids = message_ids(app, &id).await;
    let (outcomes, last_created) = outcome_times(app, &ids).await;
    let last_outcome = outcomes.values().max().copied().unwrap_or(created_at);
    let span = (last_outcome - created_at).to_std().unwrap_or_default();
    let accepted = counts["accepted"].as_i64().unwrap_or(0);
    let rate = accepted as f64 / span.as_secs_f64().max(1e-9);
    let closed = args
        .closed_rate
        .map_or_else(|| "not run".to_string(), |r| format!("{r:.0} sends/s"));
    println!(
        "utility broadcast: {} of audience {} created and handed out in {:.1} s: {rate:.0} messages/s (closed loop of this run: {closed}); the last created after {:.1} s",
        accepted,
        counts["audience"],
        span.as_secs_f64(),
        (last_created - created_at).num_milliseconds() as f64 / 1e3,
    );
    // Every message.sent of the broadcast at the receiver, and when the last one arrived.
    let wanted: std::collections::HashSet<String> = ids.iter().map(Uuid::to_string).collect();
    let deadline = Instant::now() + args.drain_timeout;
    let (arrived, last_arrival) = loop {
        let mine: Vec<Instant> = arrivals.log.lock().unwrap()[before..]
            .iter()
            .filter(|(m, _)| wanted.contains(m))
            .map(|(_, at)| *at)
            .collect();
        if mine.len() >= wanted.len() || Instant::now() > deadline {
            break (mine.len(), mine.into_iter().max());
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    };
    let wall_now = Utc::now();
    let last_arrival_wall =
        last_arrival.map(|at| wall_now - chrono::TimeDelta::from_std(at.elapsed()).unwrap());
    let after = last_arrival_wall.map_or(f64::NAN, |at| {
        (at - last_outcome).num_milliseconds() as f64 / 1e3
    });
    println!(
        "message.sent webhooks: {arrived} of {}; the last {:.2} s after the last outcome",
        wanted.len(),
        after
    );
    let (sent, refused) = load.await.unwrap();
    report_auth(&sent, refused, arrivals).await;
    let auth_ids: Vec<Uuid> = sent.iter().filter_map(|(id, _)| id.parse().ok()).collect();
    let mut accepted_to_outcome: Vec<Duration> = times(app, &auth_ids)
        .await
        .into_values()
        .filter_map(|(created, done)| (done? - created).to_std().ok())
        .collect();
    accepted_to_outcome.sort();
    println!(
        "  of which accept-to-outcome (in the database): p50 {:.0} ms, p99 {:.0} ms",
        percentile(&accepted_to_outcome, 0.5),
        percentile(&accepted_to_outcome, 0.99)
    );

    // The marketing broadcast: only those opted in.
    let created = create(app, &token, "marketing", pace).await;
    let id = created["id"].as_str().unwrap().to_string();
    let done = completed(app, &token, &id, args.drain_timeout).await;
    println!(
        "marketing broadcast: counts {}; messages stored {}",
        done["counts"],
        message_ids(app, &id).await.len()
    );
    // The templated broadcast: one set of variables, each follower's own variant.
    let business = demo.business_account_id.parse::<Uuid>().unwrap();
    half_read_portuguese(app, business).await;
    app.post("/business/templates", Some(&token), crate::bench_template())
        .await
        .assert_ok(201);
    let created = create_with(
        app,
        &token,
        json!({
            "name": "bench templated",
            "category": "utility",
            "template": { "name": "bench_notice", "variables": { "order": "A-1042" } },
            "max_per_second": pace,
        }),
    )
    .await;
    let id = created["id"].as_str().unwrap().to_string();
    let created_at = DateTime::parse_from_rfc3339(created["created_at"].as_str().unwrap())
        .unwrap()
        .with_timezone(&Utc);
    let done = completed(app, &token, &id, args.drain_timeout).await;
    let ids = message_ids(app, &id).await;
    let (outcomes, _) = outcome_times(app, &ids).await;
    let last_outcome = outcomes.values().max().copied().unwrap_or(created_at);
    let span = (last_outcome - created_at).to_std().unwrap_or_default();
    let accepted = done["counts"]["accepted"].as_i64().unwrap_or(0);
    println!(
        "templated utility broadcast (two locales, half of the audience in each): {accepted} of audience {} created and handed out in {:.1} s: {:.0} messages/s",
        done["counts"]["audience"],
        span.as_secs_f64(),
        accepted as f64 / span.as_secs_f64().max(1e-9),
    );
    sampling.abort();
    println!(
        "largest RSS of the bench process during the phase: {} MB",
        largest.load(Ordering::Relaxed)
    );
    if !args.stack_pids.is_empty() {
        println!(
            "largest RSS of the stack's processes (summed) during the phase: {} MB",
            largest_stack.load(Ordering::Relaxed)
        );
    }
}

async fn create(app: &TestApp, token: &str, category: &str, pace: i64) -> Value {
    let body = json!({
        "name": format!("bench {category}"),
        "category": category,
        "body": "benchmark broadcast",
        "max_per_second": pace,
    });
    create_with(app, token, body).await
}

async fn create_with(app: &TestApp, token: &str, body: Value) -> Value {
    let reply = app.post("/business/broadcasts", Some(token), body).await;
    reply.assert_ok(201);
    reply.data().clone()
}

/// Every second follower of `business` (by user id) reads Brazilian Portuguese.
async fn half_read_portuguese(app: &TestApp, business: Uuid) {
    use core_service::entities::{follows, users};
    use sea_orm::sea_query::Expr;
    let followers: Vec<Uuid> = follows::Entity::find()
        .select_only()
        .column(follows::Column::UserId)
        .filter(follows::Column::BusinessId.eq(business))
        .into_tuple()
        .all(&app.core.db)
        .await
        .unwrap();
    let half: Vec<Uuid> = followers.into_iter().step_by(2).collect();
    for chunk in half.chunks(1000) {
        users::Entity::update_many()
            .col_expr(users::Column::Language, Expr::value("pt-BR"))
            .filter(users::Column::Id.is_in(chunk.iter().copied()))
            .exec(&app.core.db)
            .await
            .unwrap();
    }
}

async fn completed(app: &TestApp, token: &str, id: &str, timeout: Duration) -> Value {
    let deadline = Instant::now() + timeout;
    loop {
        let reply = app
            .get(&format!("/business/broadcasts/{id}"), Some(token))
            .await;
        reply.assert_ok(200);
        let b = reply.data().clone();
        if !b["completed_at"].is_null() || Instant::now() > deadline {
            return b;
        }
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
}

async fn message_ids(app: &TestApp, broadcast: &str) -> Vec<Uuid> {
    use core_service::entities::messages;
    messages::Entity::find()
        .select_only()
        .column(messages::Column::Id)
        .filter(messages::Column::BroadcastId.eq(broadcast.parse::<Uuid>().unwrap()))
        .into_tuple()
        .all(&app.core.db)
        .await
        .unwrap()
}

/// When each message was created and when its outcome was recorded.
async fn times(
    app: &TestApp,
    ids: &[Uuid],
) -> HashMap<Uuid, (DateTime<Utc>, Option<DateTime<Utc>>)> {
    use core_service::entities::messages;
    let mut times = HashMap::with_capacity(ids.len());
    for chunk in ids.chunks(1000) {
        let rows: Vec<(Uuid, DateTime<Utc>, Option<DateTime<Utc>>)> = messages::Entity::find()
            .select_only()
            .column(messages::Column::Id)
            .column(messages::Column::CreatedAt)
            .column(messages::Column::CompletedAt)
            .filter(messages::Column::Id.is_in(chunk.iter().copied()))
            .into_tuple()
            .all(&app.core.db)
            .await
            .unwrap();
        times.extend(
            rows.into_iter()
                .map(|(id, created, done)| (id, (created, done))),
        );
    }
    times
}

/// When each message's outcome was recorded, and when the last of them was created.
async fn outcome_times(
    app: &TestApp,
    ids: &[Uuid],
) -> (HashMap<Uuid, DateTime<Utc>>, DateTime<Utc>) {
    let times = times(app, ids).await;
    let last_created = times
        .values()
        .map(|(created, _)| *created)
        .max()
        .unwrap_or(DateTime::<Utc>::MIN_UTC);
    let done = times
        .into_iter()
        .filter_map(|(id, (_, done))| Some((id, done?)))
        .collect();
    (done, last_created)
}

/// Sends at `rate` per second until `stop`: each accepted send's id and scheduled time, and how
/// many were refused.
async fn steady(
    load: Arc<Load>,
    rate: u32,
    stop: Arc<AtomicBool>,
) -> (Vec<(String, Instant)>, usize) {
    let started = Instant::now();
    let interval = Duration::from_secs_f64(1.0 / f64::from(rate.max(1)));
    let results = Arc::new(std::sync::Mutex::new((Vec::new(), 0usize)));
    let connections: Arc<std::sync::Mutex<Vec<crate::Connection>>> = Default::default();
    let mut tasks = Vec::new();
    let mut i = 0usize;
    while !stop.load(Ordering::Relaxed) {
        let scheduled = started + interval * i as u32;
        tokio::time::sleep_until(scheduled.into()).await;
        let (load, results, connections) = (load.clone(), results.clone(), connections.clone());
        tasks.push(tokio::spawn(async move {
            let pooled = connections.lock().unwrap().pop();
            let mut connection = match pooled {
                Some(c) => c,
                None => load.connect().await,
            };
            let sent = load.send(&mut connection, &format!("auth-{i}"), i).await;
            let mut results = results.lock().unwrap();
            match sent {
                Some(id) => {
                    connections.lock().unwrap().push(connection);
                    results.0.push((id, scheduled));
                }
                None => results.1 += 1,
            }
        }));
        i += 1;
    }
    for task in tasks {
        let _ = task.await;
    }
    std::mem::take(&mut *results.lock().unwrap())
}

/// The authentication sends' send-to-webhook latency, from each send's scheduled time.
async fn report_auth(sent: &[(String, Instant)], refused: usize, arrivals: &Arrivals) {
    let deadline = Instant::now() + Duration::from_secs(10);
    let arrived: HashMap<String, Instant> = loop {
        let arrived: HashMap<String, Instant> =
            arrivals.log.lock().unwrap().iter().cloned().collect();
        if sent.iter().all(|(id, _)| arrived.contains_key(id)) || Instant::now() > deadline {
            break arrived;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    };
    let mut latencies: Vec<Duration> = sent
        .iter()
        .filter_map(|(id, scheduled)| {
            arrived
                .get(id)
                .map(|at| at.saturating_duration_since(*scheduled))
        })
        .collect();
    latencies.sort();
    println!(
        "authentication sends of another business during it: {} accepted, {refused} refused; send-to-webhook p50 {:.0} ms, p99 {:.0} ms ({} webhooks)",
        sent.len(),
        percentile(&latencies, 0.5),
        percentile(&latencies, 0.99),
        latencies.len()
    );
}
