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
    assert_eq!(reply.body.as_object().unwrap().len(), 5, "{text}");
    assert!(!reply.body["detail"].as_str().unwrap().is_empty(), "{text}");
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

e2e!(
    a_request_id_that_is_not_1_to_128_visible_characters_is_replaced,
    |app| async move {
        for bad in [
            "x".repeat(129),
            "has space".to_string(),
            "tab\there".to_string(),
        ] {
            let sent = app
                .http
                .get(format!("{}/no/such/path", app.base))
                .header("x-request-id", bad.as_str())
                .send()
                .await
                .unwrap();
            assert_eq!(sent.status(), 404);
            let id = sent.headers()["x-request-id"].to_str().unwrap().to_string();
            assert_ne!(id, bad);
            assert!(uuid::Uuid::parse_str(&id).is_ok(), "{id}");
        }
        let longest = "a".repeat(128);
        let sent = app
            .http
            .get(format!("{}/no/such/path", app.base))
            .header("x-request-id", longest.as_str())
            .send()
            .await
            .unwrap();
        assert_eq!(sent.headers()["x-request-id"], longest.as_str());
    }
);

e2e!(
    failures_say_why_in_detail_naming_the_field,
    |app| async move {
        use crate::fixtures::{ALL_SCOPES, live_business, send_v1};
        let detail =
            |reply: &crate::harness::Reply| reply.body["detail"].as_str().unwrap().to_string();
        // The gateway's own refusals.
        let unknown = app.get("/no/such/path", None).await;
        unknown.assert_error(404, "not_found");
        assert!(!detail(&unknown).is_empty());
        let malformed = app
            .request(
                reqwest::Method::POST,
                "/auth/business/otp/request",
                None,
                Some(crate::harness::RawBody::Text("{\"phone_number\":".into())),
            )
            .await;
        malformed.assert_error(400, "malformed_json");
        assert!(
            detail(&malformed).starts_with("request body: not valid JSON"),
            "{}",
            malformed.body
        );
        let not_object = app
            .post("/auth/business/otp/request", None, json!(["+14155550123"]))
            .await;
        not_object.assert_error(400, "invalid_request");
        assert_eq!(detail(&not_object), "request body: expected a JSON object");
        // A wrong type names its field; the core's rules name theirs.
        let biz = live_business(&app, "+14155550100", ALL_SCOPES).await;
        let typed = send_v1(
            &app,
            &biz,
            json!({ "to": "+14155550200", "category": "utility", "body": 5 }),
            None,
        )
        .await;
        typed.assert_error(400, "invalid_request");
        assert_eq!(detail(&typed), "body: must be a string");
        let long = send_v1(
            &app,
            &biz,
            json!({ "to": "+14155550200", "category": "utility", "body": "x".repeat(4097) }),
            None,
        )
        .await;
        long.assert_error(400, "invalid_request");
        assert_eq!(detail(&long), "body: at most 4096 characters");
        // Successes are unchanged: four fields, no detail.
        let me = app.get("/business/me", Some(&biz.owner_token)).await;
        me.assert_ok(200);
        assert!(me.body.get("detail").is_none(), "{}", me.body);
        assert_eq!(me.body.as_object().unwrap().len(), 4);
    }
);

e2e!(
    unknown_fields_are_refused_naming_the_field_inside_message_content_too,
    |app| async move {
        use crate::fixtures::{ALL_SCOPES, live_business, send_v1};
        let biz = live_business(&app, "+14155550100", ALL_SCOPES).await;
        let typo = send_v1(
            &app,
            &biz,
            json!({ "to": "+14155550200", "category": "marketing", "message_contnet": {"text": "hi"} }),
            None,
        )
        .await;
        typo.assert_error(400, "invalid_request");
        let detail = typo.body["detail"].as_str().unwrap();
        assert!(
            detail.contains("unknown field `message_contnet`"),
            "{detail}"
        );
        let inner = send_v1(
            &app,
            &biz,
            json!({ "to": "+14155550200", "category": "marketing",
                    "message_content": {"text": "hi", "colour": "red"} }),
            None,
        )
        .await;
        inner.assert_error(400, "invalid_request");
        assert_eq!(
            inner.body["detail"],
            "message_content.colour: unknown field"
        );
        app.post(
            "/auth/business/otp/request",
            None,
            json!({ "phone_number": "+14155550123", "channel": "sms" }),
        )
        .await
        .assert_error(400, "invalid_request");
    }
);

e2e!(
    a_path_id_that_is_not_text_is_404_not_found_in_the_envelope_on_every_route,
    |app| async move {
        let mut checked = 0;
        for (method, template) in crate::fixtures::ROUTES {
            let Some(start) = template.find('{') else {
                continue;
            };
            let end = start + template[start..].find('}').unwrap();
            let path = format!("{}%FF{}", &template[..start], &template[end + 1..]);
            let method = reqwest::Method::from_bytes(method.to_uppercase().as_bytes()).unwrap();
            let reply = app
                .request(method.clone(), &path, Some("not-a-token"), None)
                .await;
            assert_eq!(reply.status, 404, "{method} {path}: {}", reply.body);
            reply.assert_error(404, "not_found");
            checked += 1;
        }
        assert!(checked >= 17, "{checked}");
    }
);
