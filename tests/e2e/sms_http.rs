//! The `http` SMS provider, against a receiver on loopback.

use std::sync::atomic::{AtomicU16, Ordering};
use std::sync::{Arc, Mutex};

use axum::Json;
use axum::extract::State;
use axum::http::StatusCode;
use axum::routing::post;
use core_service::config::SmsProviderKind;
use serde_json::{Value, json};

use crate::harness::{Backend, Options, TestApp};

#[derive(Default)]
struct Receiver {
    status: AtomicU16,
    bodies: Mutex<Vec<Value>>,
}

async fn receive(State(rx): State<Arc<Receiver>>, Json(body): Json<Value>) -> StatusCode {
    rx.bodies.lock().unwrap().push(body);
    StatusCode::from_u16(rx.status.load(Ordering::SeqCst)).unwrap()
}

async fn start_receiver() -> (Arc<Receiver>, String) {
    let rx = Arc::new(Receiver::default());
    rx.status.store(200, Ordering::SeqCst);
    let app = axum::Router::new()
        .route("/sms", post(receive))
        .with_state(rx.clone());
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/sms", listener.local_addr().unwrap());
    tokio::spawn(async move { axum::serve(listener, app).await });
    (rx, url)
}

async fn http_provider_delivers_codes_and_its_failures_are_503(backend: Backend) {
    let (rx, url) = start_receiver().await;
    let options = Options {
        real_sms: true,
        configure: Some(Arc::new(move |config| {
            config.sms.sms_provider = SmsProviderKind::Http;
            config.sms.sms_http_url = Some(url.clone());
        })),
        ..Default::default()
    };
    let Some(app) = TestApp::spawn_with(backend, options).await else {
        return;
    };
    let phone = "+14155550123";
    app.create_user(phone).await;

    // A user created with the operator service signs in through the http provider...
    app.post(
        "/auth/business/otp/request",
        None,
        json!({ "phone_number": phone }),
    )
    .await
    .assert_ok(200);
    let body = rx
        .bodies
        .lock()
        .unwrap()
        .last()
        .cloned()
        .expect("an SMS was posted");
    assert_eq!(body["to"], phone);
    let text = body["text"].as_str().unwrap();
    let code: String = text
        .split(|c: char| !c.is_ascii_digit())
        .find(|w| w.len() == 6)
        .unwrap()
        .to_string();
    let tokens = app
        .post(
            "/auth/business/otp/verify",
            None,
            json!({ "phone_number": phone, "code": code }),
        )
        .await;
    tokens.assert_ok(200);
    let token = tokens.data()["access_token"].as_str().unwrap().to_string();
    // ...and reads /business/me after creating a sandbox.
    app.post(
        "/business/sandbox",
        Some(&token),
        json!({ "business_name": "Acme" }),
    )
    .await
    .assert_ok(201);
    let me = app.get("/business/me", Some(&token)).await;
    me.assert_ok(200);
    assert_eq!(me.data()["mode"], "sandbox");

    // A provider answering non-2xx makes the request 503, with no cooldown started.
    app.clock.advance(std::time::Duration::from_secs(60));
    rx.status.store(500, Ordering::SeqCst);
    app.post(
        "/auth/business/otp/request",
        None,
        json!({ "phone_number": phone }),
    )
    .await
    .assert_error(503, "sms_delivery_unavailable");
    rx.status.store(202, Ordering::SeqCst);
    app.post(
        "/auth/business/otp/request",
        None,
        json!({ "phone_number": phone }),
    )
    .await
    .assert_ok(200);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn http_sms_provider_sqlite() {
    http_provider_delivers_codes_and_its_failures_are_503(Backend::Sqlite).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn http_sms_provider_postgres() {
    http_provider_delivers_codes_and_its_failures_are_503(Backend::Postgres).await;
}
