//! Measures what DESIGN.md's "OTP requests look alike" promises, on the whole stack with the
//! wall clock and the `http` SMS provider pointed at a loopback receiver that answers after a
//! fixed delay: the latency of `POST /auth/business/otp/request` for known and unknown numbers
//! (interleaved, each number once), then, with the provider failing, the statuses both get.
//!
//!     cargo run --release -p e2e-tests --example otp_timing -- --help
#![allow(dead_code)]

#[path = "../e2e/harness/mod.rs"]
mod harness;

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use axum::extract::State;
use axum::http::StatusCode;
use clap::Parser;
use core_service::config::SmsProviderKind;
use serde_json::json;

use harness::{Backend, Options, TestApp};

#[derive(Debug, Parser)]
#[command(about = "OTP request timing for known and unknown numbers")]
struct Args {
    /// `sqlite` (a fresh file) or `postgres` (a fresh database on TEST_DATABASE_URL).
    #[arg(long, default_value = "sqlite")]
    db: String,
    /// How long the SMS provider takes to answer, in milliseconds.
    #[arg(long, default_value_t = 250)]
    provider_ms: u64,
    /// Requests of each kind (known, unknown).
    #[arg(long, default_value_t = 40)]
    requests: usize,
}

struct Provider {
    delay: Duration,
    failing: AtomicBool,
}

async fn provider(State(p): State<Arc<Provider>>) -> StatusCode {
    tokio::time::sleep(p.delay).await;
    if p.failing.load(Ordering::SeqCst) {
        StatusCode::BAD_GATEWAY
    } else {
        StatusCode::OK
    }
}

async fn request(app: &TestApp, phone: &str) -> harness::Reply {
    app.post(
        "/auth/business/otp/request",
        None,
        json!({ "phone_number": phone }),
    )
    .await
}

fn percentile(sorted: &[f64], p: f64) -> f64 {
    let i = ((sorted.len() as f64 - 1.0) * p).round() as usize;
    sorted[i.min(sorted.len() - 1)]
}

#[tokio::main]
async fn main() {
    let args = Args::parse();
    let backend = match args.db.as_str() {
        "postgres" => Backend::Postgres,
        _ => Backend::Sqlite,
    };
    let state = Arc::new(Provider {
        delay: Duration::from_millis(args.provider_ms),
        failing: AtomicBool::new(false),
    });
    let router = axum::Router::new()
        .route("/sms", axum::routing::post(provider))
        .with_state(state.clone());
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/sms", listener.local_addr().unwrap());
    tokio::spawn(async move { axum::serve(listener, router).await });

    let options = Options {
        real_sms: true,
        wall_clock: true,
        configure: Some(Arc::new(move |config| {
            config.sms.sms_provider = SmsProviderKind::Http;
            config.sms.sms_http_url = Some(url.clone());
            config.limits.otp_requests_per_ip_per_hour = 1_000_000;
        })),
        ..Default::default()
    };
    let app = TestApp::spawn_with(backend, options)
        .await
        .expect("the database is reachable");
    let known: Vec<String> = (0..args.requests)
        .map(|i| format!("+1415555{:04}", 1000 + i))
        .collect();
    let unknown: Vec<String> = (0..args.requests)
        .map(|i| format!("+1415555{:04}", 5000 + i))
        .collect();
    for phone in &known {
        app.create_user(phone).await;
    }
    // Warm-up: one known request gives the core its first estimate.
    app.create_user("+14155559998").await;
    request(&app, "+14155559998").await.assert_ok(200);

    let mut times = [Vec::new(), Vec::new()];
    for i in 0..args.requests {
        for (kind, phone) in [&known[i], &unknown[i]].into_iter().enumerate() {
            let started = Instant::now();
            request(&app, phone).await.assert_ok(200);
            times[kind].push(started.elapsed().as_secs_f64() * 1000.0);
        }
    }
    println!(
        "OTP request latency, provider {} ms, {} requests each, {}:",
        args.provider_ms, args.requests, args.db
    );
    let mut medians = [0.0; 2];
    for (kind, name) in ["known", "unknown"].into_iter().enumerate() {
        let mut t = times[kind].clone();
        t.sort_by(f64::total_cmp);
        medians[kind] = percentile(&t, 0.5);
        println!(
            "  {name:8} p10 {:7.1} ms  median {:7.1} ms  p90 {:7.1} ms",
            percentile(&t, 0.1),
            percentile(&t, 0.5),
            percentile(&t, 0.9)
        );
    }
    println!(
        "  medians differ by {:.1}%",
        (medians[1] - medians[0]).abs() / medians[0] * 100.0
    );

    // The provider fails: both kinds get 503 (new numbers, so no cooldown is in the way).
    state.failing.store(true, Ordering::SeqCst);
    let mut statuses = [Vec::new(), Vec::new()];
    for i in 0..5 {
        for (kind, base) in [1000, 5000].into_iter().enumerate() {
            let phone = format!("+1415555{:04}", base + 500 + i);
            if kind == 0 {
                app.create_user(&phone).await;
            }
            statuses[kind].push(request(&app, &phone).await.status);
        }
    }
    println!(
        "provider failing: known {:?}, unknown {:?}",
        statuses[0], statuses[1]
    );
}
