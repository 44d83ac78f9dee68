//! The benchmark's conversation phases:
//!
//! - `inbound`: a demo business of `--inbound-users` followers (10,000) writes to itself: each of
//!   `--connections` connections sends user messages back to back for `--duration` seconds, one
//!   follower after another (each well under the default `INBOUND_PER_MINUTE`), with an endpoint
//!   subscribed to `message.received`, after `--warmup` seconds of the same load (delivered,
//!   then `ANALYZE`). It prints accepted user messages per second beside the
//!   closed-loop send rate of the same run, how many `message.received` arrived during the load
//!   and how long the rest took. Then the reply round trip at `--rtt-rate` conversations per
//!   second: a user message accepted, its `message.received` at the receiver, the receiver's
//!   reply accepted, the reply's `message.sent` at the receiver (p50, p99).
//! - `conversations`: a demo business of `--audience` followers with `--seed-conversations`
//!   conversations (10 % with an open window, 5 % unread) holding `--seed-inbound` user messages
//!   spread unevenly (ten long threads hold half, the rest a few each), inserted straight into
//!   the database; then the conversation list (first page, `unread=true`, `window=open`, 50,000
//!   deep) and a long thread's first page at `--read-rate`, each on its own.

use std::collections::HashMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use axum::body::Bytes;
use axum::extract::State;
use axum::http::StatusCode;
use chrono::{TimeDelta, Utc};
use proto::v1 as pb;
use proto::vocabulary::ConversationStatus;
use sea_orm::{ConnectionTrait, Set, Statement};
use uuid::Uuid;

use crate::harness::TestApp;

/// What the conversation phases are told.
pub struct ConversationArgs {
    pub inbound_users: u32,
    pub connections: usize,
    pub duration: Duration,
    /// The inbound phase's warm-up before it measures (zero: none).
    pub warmup: Duration,
    pub closed_rate: Option<f64>,
    pub rtt_rate: u32,
    pub audience: u32,
    pub seed_conversations: u32,
    pub seed_inbound: u64,
    pub reads: crate::reads::ReadArgs,
}

struct Demo {
    id: Uuid,
    owner_token: String,
    users: Vec<Uuid>,
}

async fn demo(app: &TestApp, followers: u32) -> Demo {
    let started = Instant::now();
    let demo = app
        .admin()
        .await
        .create_demo(app.admin_request(pb::CreateDemoRequest {
            confirm: true,
            followers: Some(followers),
        }))
        .await
        .expect("admin demo")
        .into_inner();
    let id: Uuid = demo.business_account_id.parse().unwrap();
    let rows = app
        .core
        .db
        .query_all_raw(Statement::from_sql_and_values(
            app.core.db.get_database_backend(),
            "SELECT user_id FROM follows WHERE business_id = $1 ORDER BY user_id",
            [id.into()],
        ))
        .await
        .unwrap();
    let users = rows
        .iter()
        .map(|row| row.try_get_by_index::<Uuid>(0).unwrap())
        .collect();
    println!(
        "\nadmin demo --followers {followers}: {} followers in {:.1} s",
        demo.follower_count,
        started.elapsed().as_secs_f64()
    );
    Demo {
        id,
        owner_token: demo.owner_access_token,
        users,
    }
}

/// An access token for each user, signed with the stack's key (as a sign-in would issue it).
fn tokens(app: &TestApp, users: &[Uuid]) -> Vec<String> {
    let now = Utc::now().timestamp();
    users
        .iter()
        .map(|user| {
            core_service::identity::tokens::issue_access_token(
                crate::harness::JWT_SECRET.as_bytes(),
                &app.core.tokens,
                *user,
                now,
            )
            .unwrap()
        })
        .collect()
}

/// Arrivals at the phase's receiver: `message.received` by user message id, `message.sent`
/// by message id, each the first time its delivery id is seen.
#[derive(Default)]
struct Received {
    deliveries: Mutex<std::collections::HashSet<String>>,
    received: Mutex<HashMap<String, (Instant, String)>>,
    sent: Mutex<HashMap<String, Instant>>,
    /// Set during the round trip: each `message.received` is answered through this.
    replier: Mutex<Option<tokio::sync::mpsc::UnboundedSender<(String, String)>>>,
}

async fn receive(
    State(rx): State<Arc<Received>>,
    headers: axum::http::HeaderMap,
    body: Bytes,
) -> StatusCode {
    let at = Instant::now();
    let delivery = headers
        .get("x-service-delivery")
        .and_then(|v| v.to_str().ok())
        .unwrap_or_default()
        .to_string();
    if !rx.deliveries.lock().unwrap().insert(delivery) {
        return StatusCode::OK;
    }
    let payload: serde_json::Value = serde_json::from_slice(&body).unwrap_or_default();
    let data = &payload["data"];
    match payload["type"].as_str() {
        Some("message.received") => {
            let id = data["message_id"].as_str().unwrap_or_default().to_string();
            let conversation = data["conversation_id"]
                .as_str()
                .unwrap_or_default()
                .to_string();
            if let Some(replier) = rx.replier.lock().unwrap().as_ref() {
                let _ = replier.send((id.clone(), conversation.clone()));
            }
            rx.received.lock().unwrap().insert(id, (at, conversation));
        }
        Some("message.sent") => {
            let id = data["message_send_id"]
                .as_str()
                .unwrap_or_default()
                .to_string();
            rx.sent.lock().unwrap().insert(id, at);
        }
        _ => {}
    }
    StatusCode::OK
}

async fn start_receiver() -> (Arc<Received>, String) {
    let rx = Arc::new(Received::default());
    let app = axum::Router::new()
        .route("/hook", axum::routing::post(receive))
        .with_state(rx.clone());
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/hook", listener.local_addr().unwrap());
    tokio::spawn(async move { axum::serve(listener, app).await });
    (rx, url)
}

async fn register(app: &TestApp, http: &reqwest::Client, owner: &str, url: &str, events: &[&str]) {
    let created = http
        .post(format!("{}/business/webhooks", app.base))
        .bearer_auth(owner)
        .json(&serde_json::json!({ "url": url, "events": events }))
        .send()
        .await
        .unwrap();
    assert_eq!(created.status(), 201, "{}", created.text().await.unwrap());
}

/// A user message; the accepted message's id and conversation, None when refused.
async fn write(
    http: &reqwest::Client,
    base: &str,
    business: Uuid,
    token: &str,
    text: &str,
) -> Option<(String, String)> {
    let reply = http
        .post(format!("{base}/businesses/{business}/messages"))
        .bearer_auth(token)
        .json(&serde_json::json!({ "text": text }))
        .send()
        .await
        .ok()?;
    if reply.status() != 201 {
        return None;
    }
    let body: serde_json::Value = reply.json().await.ok()?;
    Some((
        body["data"]["id"].as_str()?.to_string(),
        body["data"]["conversation_id"].as_str()?.to_string(),
    ))
}

/// `--connections` connections writing user messages back to back for `--duration` seconds
/// (`args.warmup` when `warm`), one follower after another from `next`: the accepted messages'
/// ids and how many were refused.
async fn write_loop(
    http: &reqwest::Client,
    tokens: &Arc<Vec<String>>,
    next: &Arc<AtomicUsize>,
    app: &TestApp,
    business: Uuid,
    args: &ConversationArgs,
    warm: bool,
) -> (Vec<String>, usize) {
    let end = Instant::now() + if warm { args.warmup } else { args.duration };
    let tasks: Vec<_> = (0..args.connections)
        .map(|_| {
            let (http, tokens, next) = (http.clone(), tokens.clone(), next.clone());
            let base = app.base.clone();
            tokio::spawn(async move {
                let (mut accepted, mut refused) = (Vec::new(), 0usize);
                while Instant::now() < end {
                    let n = next.fetch_add(1, Ordering::Relaxed);
                    let token = &tokens[n % tokens.len()];
                    match write(&http, &base, business, token, "Is my order on its way?").await {
                        Some((id, _)) => accepted.push(id),
                        None => refused += 1,
                    }
                }
                (accepted, refused)
            })
        })
        .collect();
    let (mut accepted, mut refused) = (Vec::new(), 0);
    for task in tasks {
        let (a, r) = task.await.unwrap();
        accepted.extend(a);
        refused += r;
    }
    (accepted, refused)
}

pub async fn inbound(app: &TestApp, args: &ConversationArgs) {
    let demo = demo(app, args.inbound_users).await;
    let tokens = Arc::new(tokens(app, &demo.users));
    let http = reqwest::Client::builder()
        .pool_max_idle_per_host(args.connections * 2)
        .build()
        .unwrap();
    let (rx, url) = start_receiver().await;
    register(
        app,
        &http,
        &demo.owner_token,
        &url,
        &["message.received", "message.sent"],
    )
    .await;

    // The warm-up: the same load for `--warmup` seconds, its `message.received` delivered,
    // then ANALYZE and CHECKPOINT (as the send phases have it): the conversation tables start empty here, and
    // PostgreSQL would keep each connection's plans made while they were (sequential scans).
    let next = Arc::new(AtomicUsize::new(0));
    if !args.warmup.is_zero() {
        let (warm, _) = write_loop(&http, &tokens, &next, app, demo.id, args, true).await;
        let deadline = Instant::now() + Duration::from_secs(60);
        while Instant::now() < deadline && {
            let received = rx.received.lock().unwrap();
            !warm.iter().all(|id| received.contains_key(id))
        } {
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        let settled = crate::settle(app).await;
        println!(
            "\ninbound warm-up: {} user messages in {} s, delivered, then {settled}",
            warm.len(),
            args.warmup.as_secs()
        );
    }

    // The closed loop.
    let started = Instant::now();
    let (accepted, refused) = write_loop(&http, &tokens, &next, app, demo.id, args, false).await;
    let ended = Instant::now();
    let elapsed = ended - started;
    let during = {
        let received = rx.received.lock().unwrap();
        accepted
            .iter()
            .filter(|id| received.get(*id).is_some_and(|(at, _)| *at <= ended))
            .count()
    };
    let drained = loop {
        let all = {
            let received = rx.received.lock().unwrap();
            accepted.iter().all(|id| received.contains_key(id))
        };
        if all || ended.elapsed() > Duration::from_secs(120) {
            break ended.elapsed();
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    };
    let arrived = {
        let received = rx.received.lock().unwrap();
        accepted
            .iter()
            .filter(|id| received.contains_key(*id))
            .count()
    };
    let rate = accepted.len() as f64 / elapsed.as_secs_f64();
    println!(
        "\n== inbound: {} users writing to one business, {} connections, {} s ==",
        demo.users.len(),
        args.connections,
        args.duration.as_secs()
    );
    println!(
        "inbound_per_second {rate:.0} ({} accepted, {refused} refused){}",
        accepted.len(),
        match args.closed_rate {
            Some(closed) => format!("; closed-loop sends {closed:.0}/s: {:.2}x", rate / closed),
            None => String::new(),
        }
    );
    println!(
        "message.received: {during} of {} during the load, {arrived} in all, the last {:.2} s after it",
        accepted.len(),
        drained.as_secs_f64()
    );

    // The reply round trip at a fixed rate of new conversations' messages.
    let (replies_tx, mut replies_rx) = tokio::sync::mpsc::unbounded_channel::<(String, String)>();
    *rx.replier.lock().unwrap() = Some(replies_tx);
    let origin: Arc<Mutex<HashMap<String, Instant>>> = Arc::default();
    let reply_of: Arc<Mutex<HashMap<String, String>>> = Arc::default();
    let replier = {
        let (http, base, owner) = (http.clone(), app.base.clone(), demo.owner_token.clone());
        let reply_of = reply_of.clone();
        tokio::spawn(async move {
            while let Some((message, conversation)) = replies_rx.recv().await {
                let (http, base, owner, reply_of) =
                    (http.clone(), base.clone(), owner.clone(), reply_of.clone());
                tokio::spawn(async move {
                    let sent = http
                        .post(format!(
                            "{base}/business/conversations/{conversation}/messages"
                        ))
                        .bearer_auth(&owner)
                        .json(&serde_json::json!({ "text": "On its way.", "reply_to": message }))
                        .send()
                        .await;
                    if let Ok(sent) = sent
                        && sent.status() == 200
                        && let Ok(body) = sent.json::<serde_json::Value>().await
                        && let Some(id) = body["data"]["id"].as_str()
                    {
                        reply_of.lock().unwrap().insert(id.to_string(), message);
                    }
                });
            }
        })
    };
    let rtt_duration = args.duration;
    let interval = Duration::from_secs_f64(1.0 / f64::from(args.rtt_rate.max(1)));
    let count = (f64::from(args.rtt_rate) * rtt_duration.as_secs_f64()) as usize;
    let start = Instant::now() + Duration::from_millis(50);
    let mut writes = Vec::with_capacity(count);
    for i in 0..count {
        let (http, tokens, origin) = (http.clone(), tokens.clone(), origin.clone());
        let base = app.base.clone();
        let business = demo.id;
        // Users the closed loop reached least recently.
        let token = tokens[(next.load(Ordering::Relaxed) + i) % tokens.len()].clone();
        let at = start + interval.mul_f64(i as f64);
        writes.push(tokio::spawn(async move {
            tokio::time::sleep_until(at.into()).await;
            if let Some((id, _)) = write(&http, &base, business, &token, "Where is it now?").await {
                origin.lock().unwrap().insert(id, Instant::now());
            }
        }));
    }
    for w in writes {
        w.await.unwrap();
    }
    let deadline = Instant::now() + Duration::from_secs(60);
    let mut trips: Vec<Duration> = loop {
        let trips: Vec<Duration> = {
            let (origin, reply_of, sent) = (
                origin.lock().unwrap(),
                reply_of.lock().unwrap(),
                rx.sent.lock().unwrap(),
            );
            reply_of
                .iter()
                .filter_map(|(reply, message)| {
                    let from = origin.get(message)?;
                    let to = sent.get(reply)?;
                    Some(to.saturating_duration_since(*from))
                })
                .collect()
        };
        if trips.len() >= origin.lock().unwrap().len() || Instant::now() > deadline {
            break trips;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    };
    replier.abort();
    trips.sort();
    println!(
        "reply round trip at {} conversations/s: p50 {:.1} ms, p99 {:.1} ms, max {:.1} ms ({} of {} user messages answered and announced)",
        args.rtt_rate,
        crate::percentile(&trips, 0.50),
        crate::percentile(&trips, 0.99),
        crate::percentile(&trips, 1.0),
        trips.len(),
        origin.lock().unwrap().len()
    );
}

pub async fn reads(app: &TestApp, args: &ConversationArgs) {
    use core_service::entities::{conversations, inbound_messages};
    let demo = demo(app, args.audience).await;
    let started = Instant::now();
    let now = Utc::now();
    let db = &app.core.db;
    // The demo's first follower has written already.
    let started_already: std::collections::HashSet<Uuid> = db
        .query_all_raw(Statement::from_sql_and_values(
            db.get_database_backend(),
            "SELECT user_id FROM conversations WHERE business_id = $1",
            [demo.id.into()],
        ))
        .await
        .unwrap()
        .iter()
        .map(|row| row.try_get_by_index::<Uuid>(0).unwrap())
        .collect();
    let users: Vec<Uuid> = demo
        .users
        .iter()
        .copied()
        .filter(|user| !started_already.contains(user))
        .take(args.seed_conversations as usize)
        .collect();
    let long = 10.min(users.len());
    let long_share = args.seed_inbound / 2;
    let per_long = long_share / long.max(1) as u64;
    let short = users.len().saturating_sub(long).max(1) as u64;
    let per_short = ((args.seed_inbound - per_long * long as u64) / short).max(1);
    let mut tally = core_service::usage::Tally::new();
    let mut long_thread = None;
    let mut written = 0u64;
    for (batch_index, chunk) in users.chunks(1000).enumerate() {
        let mut rows = Vec::with_capacity(chunk.len());
        let mut messages = Vec::new();
        for (j, user) in chunk.iter().enumerate() {
            let i = batch_index * 1000 + j;
            let n = if i < long { per_long } else { per_short } as i32;
            // 10 % wrote in the last day (the window is open), the rest 2 to 30 days ago.
            let last = if i % 10 == 0 {
                now - TimeDelta::minutes((i % 1440) as i64)
            } else {
                now - TimeDelta::hours(48 + (i % 672) as i64)
            };
            let unread = i % 20 == 0;
            let id = Uuid::now_v7();
            if i == 0 {
                long_thread = Some(id);
            }
            rows.push(conversations::ActiveModel {
                id: Set(id),
                business_id: Set(demo.id),
                user_id: Set(*user),
                status: Set(ConversationStatus::Open),
                blocked: Set(false),
                label: Set(None),
                assigned_to: Set(None),
                inbound_count: Set(n),
                business_read_seq: Set(if unread { n - 1 } else { n }),
                created_at: Set(last - TimeDelta::minutes(i64::from(n))),
                last_message_at: Set(last),
                last_inbound_at: Set(last),
            });
            if unread {
                tally.unread_conversations(demo.id, 1);
            }
            for s in 1..=n {
                let received_at = last - TimeDelta::seconds(i64::from(n - s));
                messages.push(inbound_messages::ActiveModel {
                    id: Set(core_service::clock::id_at(received_at)),
                    conversation_id: Set(id),
                    business_id: Set(demo.id),
                    user_id: Set(*user),
                    sequence: Set(s),
                    body: Set("Is my order on its way?".into()),
                    reply_to: Set(None),
                    client_message_id: Set(None),
                    received_at: Set(received_at),
                });
            }
        }
        core_service::db::bulk::insert_all(db, rows, &[])
            .await
            .unwrap();
        for part in messages.chunks(2000) {
            written += part.len() as u64;
            core_service::db::bulk::insert_all(db, part.to_vec(), &[])
                .await
                .unwrap();
        }
    }
    tally.apply(db).await.unwrap();
    core_service::db::analyze_after_load(db, &["conversations", "inbound_messages"], written).await;
    println!(
        "seeded {} conversations and {written} user messages in {:.1} s",
        users.len(),
        started.elapsed().as_secs_f64()
    );
    let deep = app
        .core
        .db
        .query_one_raw(Statement::from_sql_and_values(
            db.get_database_backend(),
            "SELECT id FROM conversations WHERE business_id = $1 \
             ORDER BY last_message_at DESC, id DESC LIMIT 1 OFFSET 49999",
            [demo.id.into()],
        ))
        .await
        .unwrap()
        .map(|row| row.try_get_by_index::<Uuid>(0).unwrap());
    let mut paths = vec![
        (
            "list, first page".to_string(),
            "/business/conversations?limit=50".to_string(),
        ),
        (
            "list unread=true".into(),
            "/business/conversations?limit=50&unread=true".into(),
        ),
        (
            "list window=open".into(),
            "/business/conversations?limit=50&window=open".into(),
        ),
    ];
    if let Some(deep) = deep {
        paths.push((
            "list, 50,000 deep".into(),
            format!("/business/conversations?limit=50&starting_after={deep}"),
        ));
    }
    if let Some(thread) = long_thread {
        paths.push((
            format!("a thread of {per_long} messages, first page"),
            format!("/business/conversations/{thread}/messages?limit=50"),
        ));
    }
    println!(
        "\n== conversation reads: {} requests/s over {} connections, {} s each ==",
        args.reads.rate,
        args.reads.connections,
        args.reads.duration.as_secs()
    );
    for (name, path) in paths {
        let line = crate::reads::read_load(app, &demo.owner_token, &path, &args.reads).await;
        println!("GET {name}: {line}");
    }
}
