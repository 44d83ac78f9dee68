//! Businesses, followers and app tokens for the consent, team, app and send tests.

use std::time::Duration;

use serde_json::{Value, json};

use crate::harness::{Reply, TestApp};

/// A live business with an owner signed in and an app token holding `scopes`.
pub struct Business {
    pub id: String,
    pub phone: String,
    pub owner_token: String,
    pub app_id: String,
    pub app_token: String,
}

pub const ALL_SCOPES: &[&str] = &["authentication", "utility", "marketing", "service"];

pub async fn live_business(app: &TestApp, phone: &str, scopes: &[&str]) -> Business {
    let (id, owner_token) = app.business_owner(phone).await;
    app.set_business(&id, Some("live"), None).await;
    let created = app
        .post(
            "/business/apps",
            Some(&owner_token),
            json!({ "name": "server", "scopes": scopes }),
        )
        .await;
    created.assert_ok(201);
    Business {
        id,
        phone: phone.to_string(),
        owner_token,
        app_id: created.data()["id"].as_str().unwrap().to_string(),
        app_token: created.data()["token"].as_str().unwrap().to_string(),
    }
}

/// A user who follows `business` (with or without marketing consent); returns (id, token).
pub async fn follower(
    app: &TestApp,
    business: &Business,
    phone: &str,
    opt_in: bool,
) -> (String, String) {
    let (id, token) = app.user(phone).await;
    app.request(
        reqwest::Method::PUT,
        &format!("/businesses/{}/follow", business.id),
        Some(&token),
        Some(crate::harness::RawBody::Json(
            json!({ "marketing_opt_in": opt_in }),
        )),
    )
    .await
    .assert_ok(200);
    (id, token)
}

/// Registers a webhook endpoint of `business` for `events`; returns the created endpoint (with
/// its secret).
pub async fn register_webhook(
    app: &TestApp,
    business: &Business,
    url: &str,
    events: &[&str],
) -> Value {
    let reply = app
        .post(
            "/business/webhooks",
            Some(&business.owner_token),
            json!({ "url": url, "events": events }),
        )
        .await;
    reply.assert_ok(201);
    reply.data().clone()
}

/// POSTs `body` to `path` with a bearer token and an optional Idempotency-Key.
pub async fn post_keyed(
    app: &TestApp,
    path: &str,
    token: &str,
    body: Value,
    key: Option<&str>,
) -> Reply {
    let mut request = app
        .http
        .post(format!("{}{path}", app.base))
        .header("authorization", format!("Bearer {token}"))
        .json(&body);
    if let Some(key) = key {
        request = request.header("idempotency-key", key);
    }
    crate::harness::into_reply(request.send().await.unwrap()).await
}

/// An app-token send to the business's own `/v1` path.
pub async fn send_v1(app: &TestApp, business: &Business, body: Value, key: Option<&str>) -> Reply {
    post_keyed(
        app,
        &format!("/v1/{}/messages", business.id),
        &business.app_token,
        body,
        key,
    )
    .await
}

/// A service send to the business's own number.
pub async fn send_service(
    app: &TestApp,
    business: &Business,
    body: Value,
    key: Option<&str>,
) -> Reply {
    let path = format!(
        "/v1/service/{}/messages",
        business.phone.replace('+', "%2B")
    );
    post_keyed(app, &path, &business.app_token, body, key).await
}

/// The history record of message `id`, once its status is no longer `accepted`.
pub async fn settled(app: &TestApp, token: &str, id: &str) -> Value {
    // Up to about 30 s: the http provider's retries take real seconds.
    for _ in 0..1500 {
        let history = app.get("/business/messages?limit=200", Some(token)).await;
        history.assert_ok(200);
        if let Some(record) = history.data()["messages"]
            .as_array()
            .unwrap()
            .iter()
            .find(|m| m["id"] == id)
            && record["status"] != "accepted"
        {
            return record.clone();
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    panic!("message {id} was not delivered in time");
}
