//! Every error code of the catalogue, end to end: one request that answers it, checked for the
//! catalogue's status, the code in `message`, `data` null, a non-empty `detail` that leaks no
//! secret, and `X-Request-Id`. The codes that no single request can produce here are listed in
//! `ELSEWHERE` with the test that covers them, and the walk checks that the two lists together are
//! the whole catalogue.

use proto::ErrorCode;
use reqwest::Method;
use serde_json::{Value, json};

use crate::e2e;
use crate::fixtures::{ALL_SCOPES, follower, live_business, send_service, send_v1};
use crate::harness::{Reply, TestApp, into_reply};

/// Codes produced by other tests (they need concurrency, a fault, or an operator command).
const ELSEWHERE: &[(&str, &str)] = &[
    (
        "idempotency_in_progress",
        "sends: concurrent requests with one key",
    ),
    (
        "internal_error",
        "envelope::an_internal_error_is_500_without_details",
    ),
    (
        "user_already_exists",
        "operator command only (admin create-user)",
    ),
    (
        "user_owns_business",
        "privacy::an_erased_user_leaves_no_number_text_or_content_and_the_ledger_and_metadata_stay (PrivacyService only)",
    ),
    (
        "request_timeout",
        "http_edges::a_body_sent_too_slowly_is_answered_408_request_timeout (a 1 s setting)",
    ),
    (
        "service_window_closed",
        "conversation_replies::free_text_goes_inside_the_window_and_a_category_message_after_it (the clock)",
    ),
    (
        "conversation_blocked",
        "conversations::a_block_refuses_the_users_messages_until_lifted",
    ),
    (
        "webhook_limit_reached",
        "webhooks::a_business_has_at_most_the_configured_number_of_endpoints_even_when_created_at_once",
    ),
];

struct Call<'a> {
    method: Method,
    path: String,
    token: Option<&'a str>,
    headers: Vec<(&'static str, String)>,
    body: Option<Value>,
    raw: Option<&'static str>,
}

fn call<'a>(method: Method, path: impl Into<String>) -> Call<'a> {
    Call {
        method,
        path: path.into(),
        token: None,
        headers: vec![],
        body: None,
        raw: None,
    }
}

impl<'a> Call<'a> {
    fn token(mut self, token: &'a str) -> Self {
        self.token = Some(token);
        self
    }
    fn header(mut self, name: &'static str, value: impl Into<String>) -> Self {
        self.headers.push((name, value.into()));
        self
    }
    fn json(mut self, body: Value) -> Self {
        self.body = Some(body);
        self
    }
    fn raw(mut self, body: &'static str) -> Self {
        self.raw = Some(body);
        self
    }
    async fn send(self, app: &TestApp) -> Reply {
        let mut request = app
            .http
            .request(self.method, format!("{}{}", app.base, self.path));
        if let Some(token) = self.token {
            request = request.header("authorization", format!("Bearer {token}"));
        }
        for (name, value) in self.headers {
            request = request.header(name, value);
        }
        if let Some(body) = self.body {
            request = request.json(&body);
        } else if let Some(raw) = self.raw {
            request = request.header("content-type", "application/json").body(raw);
        }
        into_reply(request.send().await.expect("request sent")).await
    }
}

fn check(code: &str, reply: &Reply, secrets: &[&str]) {
    let known =
        ErrorCode::from_wire(code).unwrap_or_else(|| panic!("{code}: not in the catalogue"));
    assert_eq!(
        reply.status,
        known.http_status(),
        "{code}: {:?}",
        reply.body
    );
    assert_eq!(reply.message(), code, "{:?}", reply.body);
    assert_eq!(reply.body["success"], false, "{code}");
    assert!(reply.body["data"].is_null(), "{code}");
    let detail = reply.body["detail"].as_str().unwrap_or_default();
    assert!(!detail.trim().is_empty(), "{code}: no detail");
    for secret in secrets {
        assert!(!detail.contains(secret), "{code}: detail shows a secret");
    }
    assert!(reply.headers.contains_key("x-request-id"), "{code}");
    if reply.status == 429 {
        assert!(reply.retry_after().is_some(), "{code}: no Retry-After");
    }
}

const NOBODY: &str = "0b9e6c1e-2f4a-4d8e-9a57-3c1d2e4f5a6b";

e2e!(
    every_error_code_is_answered_with_its_status_and_a_detail,
    |app| async move {
        let mut app = app;
        let biz = live_business(&app, "+14155550100", ALL_SCOPES).await;
        let (_, fan_token) = follower(&app, &biz, "+14155550200", false).await;
        let (_, stranger) = app.user("+14155550300").await;
        let other = live_business(&app, "+14155550400", &["utility"]).await;
        let (sandbox_id, sandbox_owner) = app.business_owner("+14155550500").await;
        let (member_id, member) = app.user("+14155550600").await;
        let (_, admin) = app.user("+14155550700").await;
        for (phone, role) in [("+14155550600", "member"), ("+14155550700", "admin")] {
            call(Method::POST, "/business/team")
                .token(&biz.owner_token)
                .json(json!({"phone_number": phone, "role": role}))
                .send(&app)
                .await
                .assert_ok(201);
        }
        let _ = member_id;
        let hook = call(Method::POST, "/business/webhooks")
            .token(&biz.owner_token)
            .json(json!({"url": "https://hooks.example.com/a", "events": ["message.sent"]}))
            .send(&app)
            .await;
        hook.assert_ok(201);
        let hook_id = hook.data()["id"].as_str().unwrap().to_string();
        let hook_secret = hook.data()["secret"].as_str().unwrap().to_string();
        let secrets = [
            biz.app_token.as_str(),
            biz.owner_token.as_str(),
            hook_secret.as_str(),
        ];
        let to_fan = |category: &str| json!({"to": "+14155550200", "category": category});
        let qr = call(Method::POST, "/auth/qr/sessions").send(&app).await;
        qr.assert_ok(201);
        let qr_id = qr.data()["id"].as_str().unwrap().to_string();
        let qr_secret = qr.data()["exchange_secret"].as_str().unwrap().to_string();

        let mut walked: Vec<(&str, Reply)> = Vec::new();
        macro_rules! expect {
            ($code:literal, $reply:expr) => {
                let reply = $reply;
                check($code, &reply, &secrets);
                walked.push(($code, reply));
            };
        }

        // 400
        expect!(
            "malformed_json",
            call(Method::POST, "/auth/refresh")
                .raw("{")
                .send(&app)
                .await
        );
        expect!(
            "invalid_request",
            call(Method::POST, "/auth/refresh")
                .json(json!({"refresh_token": "x", "extra": 1}))
                .send(&app)
                .await
        );
        expect!(
            "invalid_phone_number",
            call(Method::POST, "/auth/business/otp/request")
                .json(json!({"phone_number": "12"}))
                .send(&app)
                .await
        );
        expect!(
            "invalid_otp_code",
            call(Method::POST, "/auth/business/otp/verify")
                .json(json!({"phone_number": "+14155550300", "code": "12"}))
                .send(&app)
                .await
        );
        expect!(
            "invalid_limit",
            call(Method::GET, "/business/messages?limit=0")
                .token(&biz.owner_token)
                .send(&app)
                .await
        );
        expect!(
            "invalid_message_category",
            send_v1(&app, &biz, to_fan("nope"), None).await
        );
        expect!(
            "message_body_required",
            send_v1(&app, &biz, to_fan("utility"), None).await
        );
        expect!(
            "invalid_message_content",
            send_v1(&app, &biz, to_fan("authentication"), None).await
        );
        expect!(
            "recipient_not_found",
            send_v1(
                &app,
                &biz,
                json!({"to": "+14155550999", "category": "utility", "body": "hi"}),
                None
            )
            .await
        );
        expect!(
            "invalid_idempotency_key",
            send_v1(
                &app,
                &biz,
                json!({"to": "+14155550200", "category": "utility", "body": "hi"}),
                Some(&"k".repeat(256))
            )
            .await
        );
        expect!(
            "invalid_webhook_url",
            call(Method::POST, "/business/webhooks")
                .token(&biz.owner_token)
                .json(json!({"url": "ftp://hooks.example.com", "events": ["message.sent"]}))
                .send(&app)
                .await
        );
        expect!(
            "invalid_webhook_events",
            call(Method::POST, "/business/webhooks")
                .token(&biz.owner_token)
                .json(json!({"url": "https://hooks.example.com/b", "events": ["nope"]}))
                .send(&app)
                .await
        );
        expect!(
            "invalid_app_scopes",
            call(Method::POST, "/business/apps")
                .token(&biz.owner_token)
                .json(json!({"name": "x", "scopes": ["nope"]}))
                .send(&app)
                .await
        );
        expect!(
            "user_not_found",
            call(Method::POST, "/business/team")
                .token(&biz.owner_token)
                .json(json!({"phone_number": "+14155550999", "role": "member"}))
                .send(&app)
                .await
        );
        expect!(
            "user_in_another_business",
            call(Method::POST, "/business/team")
                .token(&biz.owner_token)
                .json(json!({"phone_number": "+14155550400", "role": "member"}))
                .send(&app)
                .await
        );
        expect!(
            "cannot_remove_owner",
            call(Method::DELETE, format!("/business/team/{}", biz.id))
                .token(&biz.owner_token)
                .send(&app)
                .await
        );
        expect!(
            "team_member_not_found",
            call(Method::DELETE, format!("/business/team/{NOBODY}"))
                .token(&biz.owner_token)
                .send(&app)
                .await
        );

        // 401
        expect!(
            "unauthorized",
            call(Method::GET, "/business/me").send(&app).await
        );
        expect!(
            "invalid_app_token",
            call(Method::POST, format!("/v1/{}/messages", biz.id))
                .token("sva_not-a-token")
                .json(to_fan("utility"))
                .send(&app)
                .await
        );
        expect!(
            "invalid_refresh_token",
            call(Method::POST, "/auth/refresh")
                .json(json!({"refresh_token": "not-a-token"}))
                .send(&app)
                .await
        );
        expect!(
            "invalid_qr_secret",
            call(Method::GET, format!("/auth/qr/sessions/{qr_id}"))
                .header("x-service-qr-secret", "wrong")
                .send(&app)
                .await
        );

        // 403
        expect!(
            "not_a_business_account",
            call(Method::GET, "/business/me")
                .token(&stranger)
                .send(&app)
                .await
        );
        expect!(
            "insufficient_role",
            call(Method::DELETE, format!("/business/webhooks/{hook_id}"))
                .token(&member)
                .send(&app)
                .await
        );
        expect!(
            "owner_required",
            call(Method::GET, "/business/apps")
                .token(&admin)
                .send(&app)
                .await
        );
        expect!(
            "console_access_required",
            call(Method::POST, format!("/auth/qr/sessions/{qr_id}/approve"))
                .token(&stranger)
                .send(&app)
                .await
        );
        expect!(
            "authentication_reserved",
            call(Method::POST, "/business/messages")
                .token(&biz.owner_token)
                .json(json!({"to": "+14155550200", "category": "authentication", "message_content": {"code": "1234"}}))
                .send(&app)
                .await
        );
        expect!(
            "app_scope_required",
            call(Method::POST, format!("/v1/{}/messages", other.id))
                .token(&other.app_token)
                .json(json!({"to": "+14155550200", "category": "marketing", "body": "sale"}))
                .send(&app)
                .await
        );
        expect!(
            "app_business_mismatch",
            call(Method::POST, format!("/v1/{}/messages", other.id))
                .token(&biz.app_token)
                .json(json!({"to": "+14155550200", "category": "utility", "body": "hi"}))
                .send(&app)
                .await
        );
        let sandbox_app = call(Method::POST, "/business/apps")
            .token(&sandbox_owner)
            .json(json!({"name": "s", "scopes": ["utility"]}))
            .send(&app)
            .await;
        sandbox_app.assert_ok(201);
        expect!(
            "live_business_required",
            call(Method::POST, format!("/v1/{sandbox_id}/messages"))
                .token(sandbox_app.data()["token"].as_str().unwrap())
                .json(json!({"to": "+14155550200", "category": "utility", "body": "hi"}))
                .send(&app)
                .await
        );
        expect!(
            "business_not_live",
            call(Method::PUT, format!("/businesses/{sandbox_id}/follow"))
                .token(&fan_token)
                .json(json!({}))
                .send(&app)
                .await
        );
        expect!(
            "cannot_follow_own_business",
            call(Method::PUT, format!("/businesses/{}/follow", biz.id))
                .token(&biz.owner_token)
                .json(json!({}))
                .send(&app)
                .await
        );
        expect!(
            "business_follow_required",
            send_v1(
                &app,
                &biz,
                json!({"to": "+14155550300", "category": "utility", "body": "hi"}),
                None
            )
            .await
        );
        expect!(
            "marketing_opt_in_required",
            send_v1(
                &app,
                &biz,
                json!({"to": "+14155550200", "category": "marketing", "body": "sale"}),
                None
            )
            .await
        );

        // 404
        expect!(
            "not_found",
            call(Method::GET, "/no/such/route").send(&app).await
        );
        expect!(
            "business_not_found",
            call(Method::GET, format!("/businesses/{NOBODY}/follow"))
                .token(&fan_token)
                .send(&app)
                .await
        );
        expect!(
            "qr_session_not_found",
            call(Method::GET, format!("/auth/qr/sessions/{NOBODY}/preview"))
                .send(&app)
                .await
        );
        expect!(
            "follow_not_found",
            call(Method::GET, format!("/businesses/{}/follow", biz.id))
                .token(&stranger)
                .send(&app)
                .await
        );
        expect!(
            "app_not_found",
            call(Method::POST, format!("/business/apps/{NOBODY}/rotate"))
                .token(&biz.owner_token)
                .send(&app)
                .await
        );
        expect!(
            "webhook_not_found",
            call(Method::DELETE, format!("/business/webhooks/{NOBODY}"))
                .token(&biz.owner_token)
                .send(&app)
                .await
        );
        expect!(
            "grant_not_found",
            call(Method::DELETE, format!("/me/grants/{NOBODY}"))
                .token(&fan_token)
                .send(&app)
                .await
        );
        expect!(
            "message_not_found",
            call(Method::GET, format!("/business/messages/{NOBODY}"))
                .token(&biz.owner_token)
                .send(&app)
                .await
        );
        expect!(
            "delivery_not_found",
            call(
                Method::GET,
                format!("/business/webhook-deliveries/{NOBODY}")
            )
            .token(&biz.owner_token)
            .send(&app)
            .await
        );

        // 405
        expect!(
            "method_not_allowed",
            call(Method::PUT, "/business/me")
                .token(&biz.owner_token)
                .send(&app)
                .await
        );

        // 409
        expect!(
            "business_already_exists",
            call(Method::POST, "/business/sandbox")
                .token(&biz.owner_token)
                .json(json!({"business_name": "Again"}))
                .send(&app)
                .await
        );
        let first = send_v1(
            &app,
            &biz,
            json!({"to": "+14155550200", "category": "utility", "body": "one"}),
            Some("key-1"),
        )
        .await;
        first.assert_ok(200);
        expect!(
            "idempotency_key_conflict",
            send_v1(
                &app,
                &biz,
                json!({"to": "+14155550200", "category": "utility", "body": "two"}),
                Some("key-1")
            )
            .await
        );
        expect!(
            "qr_session_not_approved",
            call(Method::POST, format!("/auth/qr/sessions/{qr_id}/exchange"))
                .header("x-service-qr-secret", qr_secret.clone())
                .send(&app)
                .await
        );
        call(Method::POST, format!("/auth/qr/sessions/{qr_id}/approve"))
            .token(&biz.owner_token)
            .send(&app)
            .await
            .assert_ok(200);
        expect!(
            "qr_session_not_pending",
            call(Method::POST, format!("/auth/qr/sessions/{qr_id}/approve"))
                .token(&biz.owner_token)
                .send(&app)
                .await
        );
        call(Method::POST, format!("/auth/qr/sessions/{qr_id}/exchange"))
            .header("x-service-qr-secret", qr_secret.clone())
            .send(&app)
            .await
            .assert_ok(200);
        expect!(
            "qr_session_already_exchanged",
            call(Method::POST, format!("/auth/qr/sessions/{qr_id}/exchange"))
                .header("x-service-qr-secret", qr_secret.clone())
                .send(&app)
                .await
        );
        expect!(
            "webhook_url_conflict",
            call(Method::POST, "/business/webhooks")
                .token(&biz.owner_token)
                .json(json!({"url": "https://hooks.example.com/a", "events": ["message.sent"]}))
                .send(&app)
                .await
        );
        let deliveries = call(
            Method::GET,
            format!("/business/webhook-deliveries?webhook_id={hook_id}"),
        )
        .token(&biz.owner_token)
        .send(&app)
        .await;
        let delivery = deliveries.data()["deliveries"][0]["id"]
            .as_str()
            .unwrap()
            .to_string();
        expect!(
            "delivery_not_failed",
            call(
                Method::POST,
                format!("/business/webhook-deliveries/{delivery}/retry")
            )
            .token(&biz.owner_token)
            .send(&app)
            .await
        );
        let sent = call(Method::POST, "/business/messages")
            .token(&biz.owner_token)
            .json(json!({"to": "+14155550200", "category": "utility", "body": "now"}))
            .send(&app)
            .await;
        sent.assert_ok(200);
        expect!(
            "message_not_cancelable",
            call(
                Method::POST,
                format!(
                    "/business/messages/{}/cancel",
                    sent.data()["id"].as_str().unwrap()
                )
            )
            .token(&biz.owner_token)
            .send(&app)
            .await
        );
        expect!(
            "conversation_not_found",
            call(
                Method::GET,
                format!("/business/conversations/{}", uuid::Uuid::new_v4())
            )
            .token(&biz.owner_token)
            .send(&app)
            .await
        );
        let template = call(Method::POST, "/business/templates")
            .token(&biz.owner_token)
            .json(json!({
                "name": "shipped",
                "category": "utility",
                "variables": {"order": {"max_length": 5}},
                "variants": {"en": {"body": "Order {{order}} shipped"}},
                "default_locale": "en",
            }))
            .send(&app)
            .await;
        template.assert_ok(201);
        let template_id = template.data()["id"].as_str().unwrap().to_string();
        let templated = |category: &str, variables: Value| {
            json!({"to": "+14155550200", "category": category,
                   "template": {"name": "shipped", "variables": variables}})
        };
        expect!(
            "template_name_taken",
            call(Method::POST, "/business/templates")
                .token(&biz.owner_token)
                .json(json!({
                    "name": "shipped",
                    "category": "utility",
                    "variants": {"en": {"body": "Shipped"}},
                    "default_locale": "en",
                }))
                .send(&app)
                .await
        );
        expect!(
            "template_category_mismatch",
            send_v1(
                &app,
                &biz,
                templated("marketing", json!({"order": "A1"})),
                None
            )
            .await
        );
        expect!(
            "template_variable_missing",
            send_v1(&app, &biz, templated("utility", json!({})), None).await
        );
        expect!(
            "template_variable_unknown",
            send_v1(
                &app,
                &biz,
                templated("utility", json!({"order": "A1", "x": "1"})),
                None
            )
            .await
        );
        expect!(
            "template_variable_invalid",
            send_v1(
                &app,
                &biz,
                templated("utility", json!({"order": "A12345"})),
                None
            )
            .await
        );
        expect!(
            "template_not_found",
            call(
                Method::GET,
                format!("/business/templates/{}", uuid::Uuid::new_v4())
            )
            .token(&biz.owner_token)
            .send(&app)
            .await
        );
        call(
            Method::POST,
            format!("/business/templates/{template_id}/archive"),
        )
        .token(&biz.owner_token)
        .send(&app)
        .await
        .assert_ok(200);
        expect!(
            "template_archived",
            send_v1(
                &app,
                &biz,
                templated("utility", json!({"order": "A1"})),
                None
            )
            .await
        );
        let (_, stale_token) = app.user("+14155550277").await;
        expect!(
            "consent_text_changed",
            call(Method::PUT, format!("/businesses/{}/follow", biz.id))
                .token(&stale_token)
                .json(json!({"marketing_opt_in": true, "consent_text_version": 7}))
                .send(&app)
                .await
        );
        expect!(
            "broadcast_not_found",
            call(
                Method::GET,
                format!("/business/broadcasts/{}", uuid::Uuid::new_v4())
            )
            .token(&biz.owner_token)
            .send(&app)
            .await
        );
        let broadcast = call(Method::POST, "/business/broadcasts")
            .token(&biz.owner_token)
            .json(json!({"name": "n", "category": "utility", "body": "hello"}))
            .send(&app)
            .await;
        broadcast.assert_ok(201);
        let broadcast = broadcast.data()["id"].as_str().unwrap().to_string();
        call(
            Method::POST,
            format!("/business/broadcasts/{broadcast}/cancel"),
        )
        .token(&biz.owner_token)
        .send(&app)
        .await
        .assert_ok(200);
        expect!(
            "broadcast_not_cancelable",
            call(
                Method::POST,
                format!("/business/broadcasts/{broadcast}/cancel")
            )
            .token(&biz.owner_token)
            .send(&app)
            .await
        );
        call(Method::PATCH, format!("/business/webhooks/{hook_id}"))
            .token(&biz.owner_token)
            .json(json!({"active": false}))
            .send(&app)
            .await
            .assert_ok(200);
        expect!(
            "webhook_paused",
            call(Method::POST, format!("/business/webhooks/{hook_id}/test"))
                .token(&biz.owner_token)
                .send(&app)
                .await
        );

        // 431
        let mut crowded = app.http.get(format!("{}/business/me", app.base));
        for i in 0..101 {
            crowded = crowded.header(format!("x-h-{i}"), "1");
        }
        expect!(
            "request_header_too_large",
            into_reply(crowded.send().await.unwrap()).await
        );

        // 413
        let big = "x".repeat(70 * 1024);
        expect!(
            "payload_too_large",
            call(Method::POST, "/business/messages")
                .token(&biz.owner_token)
                .json(json!({"to": "+14155550200", "category": "utility", "body": big}))
                .send(&app)
                .await
        );

        // 429
        // The stranger signed in moments ago: the number's cooldown is running.
        expect!(
            "rate_limited",
            call(Method::POST, "/auth/business/otp/request")
                .json(json!({"phone_number": "+14155550300"}))
                .send(&app)
                .await
        );
        send_service(
            &app,
            &biz,
            json!({"to": "+14155550200", "body": "hi"}),
            None,
        )
        .await
        .assert_ok(200);
        expect!(
            "business_send_rate_limited",
            send_service(
                &app,
                &biz,
                json!({"to": "+14155550200", "body": "again"}),
                None
            )
            .await
        );

        // 403 after status changes.
        app.set_business(&other.id, None, Some("suspended")).await;
        expect!(
            "business_suspended",
            call(Method::GET, "/business/usage")
                .token(&other.owner_token)
                .send(&app)
                .await
        );
        app.set_user_status("+14155550300", "suspended").await;
        expect!(
            "account_suspended",
            call(Method::GET, "/business/me")
                .token(&stranger)
                .send(&app)
                .await
        );

        // 503
        app.create_user("+14155550800").await;
        app.sms.fail(true);
        expect!(
            "sms_delivery_unavailable",
            call(Method::POST, "/auth/business/otp/request")
                .json(json!({"phone_number": "+14155550800"}))
                .send(&app)
                .await
        );
        app.stop_core().await;
        expect!(
            "service_unavailable",
            call(Method::GET, "/business/me")
                .token(&biz.owner_token)
                .send(&app)
                .await
        );

        // The walk and ELSEWHERE together are the whole catalogue, each code once.
        let mut seen: Vec<&str> = walked.iter().map(|(code, _)| *code).collect();
        seen.extend(ELSEWHERE.iter().map(|(code, _)| *code));
        let mut all: Vec<&str> = ErrorCode::ALL.iter().map(|c| c.as_str()).collect();
        seen.sort_unstable();
        all.sort_unstable();
        assert_eq!(seen, all);
    }
);
