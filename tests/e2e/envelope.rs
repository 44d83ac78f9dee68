//! Every kind of failure answers in the envelope with its status and code.

use serde_json::json;

use crate::e2e;
use crate::harness::RawBody;

e2e!(
    an_unknown_path_is_404_not_found_in_the_envelope,
    |app| async move {
        app.get("/no/such/path", None)
            .await
            .assert_error(404, "not_found");
        app.post("/auth/nothing", None, json!({}))
            .await
            .assert_error(404, "not_found");
    }
);

e2e!(
    a_wrong_method_is_405_method_not_allowed_in_the_envelope,
    |app| async move {
        let reply = app
            .request(reqwest::Method::DELETE, "/business/me", None, None)
            .await;
        reply.assert_error(405, "method_not_allowed");
        app.get("/auth/business/otp/request", None)
            .await
            .assert_error(405, "method_not_allowed");
    }
);

e2e!(malformed_json_is_400_malformed_json, |app| async move {
    for text in ["{", "", "not json", "{\"phone_number\": }"] {
        let reply = app
            .request(
                reqwest::Method::POST,
                "/auth/business/otp/request",
                None,
                Some(RawBody::Text(text.to_string())),
            )
            .await;
        reply.assert_error(400, "malformed_json");
    }
});

e2e!(
    a_body_over_the_limit_is_413_payload_too_large,
    |app| async move {
        let big = json!({ "phone_number": "x".repeat(200_000) });
        app.post("/auth/business/otp/request", None, big)
            .await
            .assert_error(413, "payload_too_large");
    }
);

e2e!(
    a_core_that_is_down_is_503_service_unavailable,
    |app| async move {
        let mut app = app;
        app.get("/readyz", None).await.assert_ok(200);
        app.stop_core().await;
        app.post(
            "/auth/business/otp/request",
            None,
            json!({ "phone_number": "+14155550123" }),
        )
        .await
        .assert_error(503, "service_unavailable");
        app.get("/readyz", None)
            .await
            .assert_error(503, "service_unavailable");
        app.get("/healthz", None).await.assert_ok(200);
    }
);

e2e!(an_internal_error_is_500_without_details, |app| async move {
    use sea_orm::ConnectionTrait;
    let (_, token) = app.business_owner("+14155550123").await;
    app.core
        .db
        .execute_unprepared("DROP TABLE team_members")
        .await
        .unwrap();
    let reply = app.get("/business/me", Some(&token)).await;
    reply.assert_error(500, "internal_error");
    let text = reply.body.to_string();
    assert!(!text.contains("team_members"), "{text}");
    assert_eq!(reply.body.as_object().unwrap().len(), 4, "{text}");
});

e2e!(every_answer_carries_a_request_id, |app| async move {
    let reply = app.get("/no/such/path", None).await;
    assert!(reply.headers.get("x-request-id").is_some());
    let sent = app
        .http
        .get(format!("{}/healthz", app.base))
        .header("x-request-id", "abc-123")
        .send()
        .await
        .unwrap();
    assert_eq!(sent.headers()["x-request-id"], "abc-123");
});
