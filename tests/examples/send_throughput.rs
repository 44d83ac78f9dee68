//! Send throughput benchmark: the whole stack in one process, a live business with a follower,
//! and N app-token sends over HTTP with C in flight. Prints accepted sends per second and
//! latency percentiles, then how long the outbox took to deliver them all.
//!
//! cargo run --release -p e2e-tests --example send_throughput -- [sends] [concurrency] [sqlite|postgres]
//!
//! PostgreSQL is the server named by TEST_DATABASE_URL (a fresh database, dropped afterwards).
#![allow(dead_code)]

#[path = "../e2e/fixtures.rs"]
mod fixtures;
#[path = "../e2e/harness.rs"]
mod harness;

use std::time::{Duration, Instant};

use futures::StreamExt;
use serde_json::json;

use fixtures::{ALL_SCOPES, follower, live_business};
use harness::{Backend, Options, TestApp};

#[tokio::main]
async fn main() {
    let args: Vec<String> = std::env::args().collect();
    let sends: usize = args.get(1).and_then(|a| a.parse().ok()).unwrap_or(5_000);
    let concurrency: usize = args.get(2).and_then(|a| a.parse().ok()).unwrap_or(64);
    let backend = match args.get(3).map(String::as_str) {
        Some("postgres") => Backend::Postgres,
        _ => Backend::Sqlite,
    };
    let options = Options {
        wall_clock: true,
        ..Default::default()
    };
    let app = TestApp::spawn_with(backend, options)
        .await
        .expect("database reachable");
    let biz = live_business(&app, "+14155550100", ALL_SCOPES).await;
    follower(&app, &biz, "+14155550200", false).await;
    let url = format!("{}/v1/{}/messages", app.base, biz.id);
    let body = json!({ "to": "+14155550200", "category": "utility", "body": "benchmark" });

    let started = Instant::now();
    let results: Vec<(u16, Duration)> = futures::stream::iter(0..sends)
        .map(|i| {
            let request = app
                .http
                .post(&url)
                .header("authorization", format!("Bearer {}", biz.app_token))
                .header("idempotency-key", format!("bench-{i}"))
                .json(&body);
            async move {
                let t = Instant::now();
                let status = request
                    .send()
                    .await
                    .map(|r| r.status().as_u16())
                    .unwrap_or(0);
                (status, t.elapsed())
            }
        })
        .buffer_unordered(concurrency)
        .collect()
        .await;
    let elapsed = started.elapsed();
    let mut latencies: Vec<Duration> = results.iter().map(|(_, d)| *d).collect();
    latencies.sort();
    let pct = |p: f64| latencies[((latencies.len() as f64 - 1.0) * p) as usize];
    let ok = results.iter().filter(|(s, _)| *s == 200).count();
    println!("backend: {backend:?}, sends: {sends}, concurrency: {concurrency}");
    println!("accepted: {ok} (others: {})", sends - ok);
    println!(
        "accept throughput: {:.0} sends/s over {:.2} s",
        sends as f64 / elapsed.as_secs_f64(),
        elapsed.as_secs_f64()
    );
    println!(
        "latency: p50 {:.1} ms, p95 {:.1} ms, p99 {:.1} ms, max {:.1} ms",
        pct(0.50).as_secs_f64() * 1e3,
        pct(0.95).as_secs_f64() * 1e3,
        pct(0.99).as_secs_f64() * 1e3,
        pct(1.0).as_secs_f64() * 1e3
    );
    let drain = Instant::now();
    loop {
        let usage = app.get("/business/usage", Some(&biz.owner_token)).await;
        if usage.data()["messages"]["accepted"] == 0 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    println!(
        "delivered all {ok} in {:.2} s after the last accept",
        drain.elapsed().as_secs_f64()
    );
}
