//! The `http` delivery provider against a receiver on loopback: each accepted message is POSTed
//! once with its `message_id`, and the receiver's answer decides delivered or failed.

use std::collections::VecDeque;
use std::sync::{Arc, Mutex};

use axum::Json;
use axum::extract::State;
use axum::http::StatusCode;
use axum::routing::post;
use core_service::config::DeliveryProviderKind;
use core_service::entities::events;
use sea_orm::EntityTrait;
use serde_json::{Value, json};

use crate::fixtures::{ALL_SCOPES, follower, live_business, send_v1, settled};
use crate::harness::{Backend, Options, TestApp};

/// Answers with the queued statuses in turn, then 200; records every body.
#[derive(Default)]
pub(crate) struct Provider {
    pub(crate) statuses: Mutex<VecDeque<u16>>,
    pub(crate) received: Mutex<Vec<Value>>,
}

async fn receive(State(p): State<Arc<Provider>>, Json(body): Json<Value>) -> StatusCode {
    p.received.lock().unwrap().push(body);
    let status = p.statuses.lock().unwrap().pop_front().unwrap_or(200);
    StatusCode::from_u16(status).unwrap()
}

pub(crate) async fn spawn(backend: Backend) -> Option<(TestApp, Arc<Provider>)> {
    let provider = Arc::new(Provider::default());
    let router = axum::Router::new()
        .route("/deliver", post(receive))
        .with_state(provider.clone());
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/deliver", listener.local_addr().unwrap());
    tokio::spawn(async move { axum::serve(listener, router).await });
    let options = Options {
        configure: Some(Arc::new(move |config| {
            config.delivery.delivery_provider = DeliveryProviderKind::Http;
            config.delivery.delivery_http_url = Some(url.clone());
        })),
        ..Default::default()
    };
    let app = TestApp::spawn_with(backend, options).await?;
    Some((app, provider))
}

async fn http_provider_outcomes(backend: Backend) {
    let Some((app, provider)) = spawn(backend).await else {
        return;
    };
    let biz = live_business(&app, "+14155550100", ALL_SCOPES).await;
    let (fan_id, _) = follower(&app, &biz, "+14155550200", false).await;
    let send = || {
        send_v1(
            &app,
            &biz,
            json!({ "to": "+14155550200", "category": "utility", "body": "hello" }),
            None,
        )
    };

    // 2xx: delivered, posted once with the message's id.
    let id = send().await.data()["id"].as_str().unwrap().to_string();
    assert_eq!(
        settled(&app, &biz.owner_token, &id).await["status"],
        "delivered"
    );
    {
        let received = provider.received.lock().unwrap();
        assert_eq!(received.len(), 1);
        let body = &received[0];
        assert_eq!(body["message_id"], id.as_str());
        assert_eq!(body["to"], "+14155550200");
        assert_eq!(body["recipient_user_id"], fan_id.as_str());
        assert_eq!(body["category"], "utility");
        assert_eq!(body["body"], "hello");
    }

    // 5xx twice, then 2xx: retried with the same message_id, delivered.
    provider.statuses.lock().unwrap().extend([500, 503]);
    let id = send().await.data()["id"].as_str().unwrap().to_string();
    assert_eq!(
        settled(&app, &biz.owner_token, &id).await["status"],
        "delivered"
    );
    let attempts: Vec<Value> = provider.received.lock().unwrap()[1..].to_vec();
    assert_eq!(attempts.len(), 3);
    assert!(attempts.iter().all(|b| b["message_id"] == id.as_str()));

    // Another 4xx: failed at once.
    provider.statuses.lock().unwrap().push_back(422);
    let id = send().await.data()["id"].as_str().unwrap().to_string();
    assert_eq!(
        settled(&app, &biz.owner_token, &id).await["status"],
        "failed"
    );
    assert_eq!(provider.received.lock().unwrap().len(), 5);

    // Always 5xx: failed after the first try and 3 retries.
    provider
        .statuses
        .lock()
        .unwrap()
        .extend([500, 500, 500, 500]);
    let id = send().await.data()["id"].as_str().unwrap().to_string();
    assert_eq!(
        settled(&app, &biz.owner_token, &id).await["status"],
        "failed"
    );
    assert_eq!(provider.received.lock().unwrap().len(), 9);

    let events = events::Entity::find().all(&app.core.db).await.unwrap();
    let kinds: Vec<&str> = events.iter().map(|e| e.event_type.as_str()).collect();
    assert_eq!(kinds.iter().filter(|k| **k == "message.sent").count(), 2);
    assert_eq!(kinds.iter().filter(|k| **k == "message.failed").count(), 2);
    let failed: Value = serde_json::from_str(
        &events
            .iter()
            .find(|e| e.event_type.as_str() == "message.failed")
            .unwrap()
            .data,
    )
    .unwrap();
    assert_eq!(failed["status"], "failed");
    assert_eq!(failed["reason"], "provider_rejected");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn http_delivery_provider_decides_the_outcome_sqlite() {
    http_provider_outcomes(Backend::Sqlite).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn http_delivery_provider_decides_the_outcome_postgres() {
    http_provider_outcomes(Backend::Postgres).await;
}
