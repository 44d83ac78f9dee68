//! A webhook receiver on loopback whose answers a test sets: queued statuses, a default, or
//! hanging; it records every request's headers and raw body.

use std::collections::VecDeque;
use std::sync::atomic::{AtomicBool, AtomicU16, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::body::Bytes;
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode};
use axum::routing::post;

#[derive(Clone, Debug)]
pub struct Received {
    pub headers: HeaderMap,
    pub body: Bytes,
}

impl Received {
    pub fn header(&self, name: &str) -> String {
        self.headers
            .get(name)
            .map(|v| v.to_str().unwrap().to_string())
            .unwrap_or_default()
    }

    pub fn json(&self) -> serde_json::Value {
        serde_json::from_slice(&self.body).unwrap()
    }
}

#[derive(Default)]
pub struct Receiver {
    queued: Mutex<VecDeque<u16>>,
    default: AtomicU16,
    hang: AtomicBool,
    received: Mutex<Vec<Received>>,
    pub url: Mutex<String>,
}

async fn receive(State(rx): State<Arc<Receiver>>, headers: HeaderMap, body: Bytes) -> StatusCode {
    rx.received.lock().unwrap().push(Received { headers, body });
    if rx.hang.load(Ordering::SeqCst) {
        tokio::time::sleep(Duration::from_secs(3600)).await;
    }
    let status = rx
        .queued
        .lock()
        .unwrap()
        .pop_front()
        .unwrap_or(rx.default.load(Ordering::SeqCst));
    StatusCode::from_u16(status).unwrap()
}

impl Receiver {
    pub async fn start() -> Arc<Receiver> {
        let rx = Arc::new(Receiver::default());
        rx.default.store(200, Ordering::SeqCst);
        let app = axum::Router::new()
            .route("/hook", post(receive))
            .with_state(rx.clone());
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        *rx.url.lock().unwrap() = format!("http://{}/hook", listener.local_addr().unwrap());
        tokio::spawn(async move { axum::serve(listener, app).await });
        rx
    }

    pub fn url(&self) -> String {
        self.url.lock().unwrap().clone()
    }

    pub fn answer(&self, status: u16) {
        self.default.store(status, Ordering::SeqCst);
    }

    pub fn queue(&self, statuses: &[u16]) {
        self.queued.lock().unwrap().extend(statuses);
    }

    pub fn hang(&self, on: bool) {
        self.hang.store(on, Ordering::SeqCst);
    }

    pub fn received(&self) -> Vec<Received> {
        self.received.lock().unwrap().clone()
    }

    /// Waits (up to ~30 s) until at least `n` requests arrived; returns them all.
    pub async fn wait_for(&self, n: usize) -> Vec<Received> {
        for _ in 0..1500 {
            let got = self.received();
            if got.len() >= n {
                return got;
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        panic!(
            "expected {n} webhook requests, got {}",
            self.received().len()
        );
    }
}
