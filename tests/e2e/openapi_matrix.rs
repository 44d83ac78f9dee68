//! The document against SPEC-MATRIX.md: every route names, under the catalogue's status, each
//! failure code the matrix lists for it, and no error answer carries a code of another status
//! or outside the catalogue.

use crate::fixtures::ROUTES;

/// SPEC-MATRIX.md, route by route: the failures it lists (with the codes DESIGN.md gives them).
/// Each code's status comes from the catalogue; the document must name the code under it.
const MATRIX: &[(&str, &str, &[&str])] = &[
    (
        "post",
        "/auth/business/otp/request",
        &[
            "invalid_phone_number",
            "invalid_request",
            "rate_limited",
            "sms_delivery_unavailable",
        ],
    ),
    (
        "post",
        "/auth/business/otp/verify",
        &[
            "invalid_otp_code",
            "invalid_phone_number",
            "account_suspended",
            "rate_limited",
        ],
    ),
    (
        "post",
        "/auth/refresh",
        &[
            "invalid_request",
            "invalid_refresh_token",
            "account_suspended",
        ],
    ),
    (
        "post",
        "/auth/logout",
        &["invalid_request", "invalid_refresh_token"],
    ),
    ("get", "/me", &["unauthorized", "account_suspended"]),
    ("post", "/auth/qr/sessions", &["rate_limited"]),
    (
        "get",
        "/auth/qr/sessions/{id}/preview",
        &["qr_session_not_found", "rate_limited"],
    ),
    (
        "get",
        "/auth/qr/sessions/{id}",
        &["invalid_qr_secret", "qr_session_not_found", "rate_limited"],
    ),
    (
        "post",
        "/auth/qr/sessions/{id}/approve",
        &[
            "unauthorized",
            "console_access_required",
            "qr_session_not_found",
            "qr_session_not_pending",
            "rate_limited",
        ],
    ),
    (
        "post",
        "/auth/qr/sessions/{id}/exchange",
        &[
            "invalid_qr_secret",
            "qr_session_not_found",
            "qr_session_not_approved",
            "qr_session_already_exchanged",
            "rate_limited",
        ],
    ),
    ("get", "/business/me", &["not_a_business_account"]),
    (
        "patch",
        "/business/me",
        &[
            "invalid_request",
            "insufficient_role",
            "not_a_business_account",
            "business_suspended",
        ],
    ),
    (
        "post",
        "/business/sandbox",
        &["invalid_request", "business_already_exists"],
    ),
    (
        "get",
        "/business/usage",
        &["not_a_business_account", "business_suspended"],
    ),
    (
        "get",
        "/business/usage/daily",
        &[
            "invalid_request",
            "not_a_business_account",
            "business_suspended",
        ],
    ),
    (
        "get",
        "/business/followers",
        &[
            "invalid_limit",
            "invalid_request",
            "not_a_business_account",
            "business_suspended",
        ],
    ),
    (
        "post",
        "/business/followers/lookup",
        &[
            "invalid_request",
            "invalid_phone_number",
            "rate_limited",
            "not_a_business_account",
            "business_suspended",
        ],
    ),
    (
        "get",
        "/business/followers/{user_id}/history",
        &[
            "follow_not_found",
            "not_a_business_account",
            "business_suspended",
        ],
    ),
    (
        "get",
        "/business/followers/{user_id}/evidence",
        &[
            "follow_not_found",
            "not_a_business_account",
            "business_suspended",
        ],
    ),
    (
        "put",
        "/business/consent-text",
        &[
            "invalid_request",
            "insufficient_role",
            "not_a_business_account",
            "business_suspended",
        ],
    ),
    (
        "get",
        "/business/consent-text",
        &["not_a_business_account", "business_suspended"],
    ),
    (
        "get",
        "/businesses/{businessAccountId}/consent-text",
        &["business_not_found"],
    ),
    (
        "get",
        "/business/messages",
        &[
            "invalid_limit",
            "invalid_request",
            "not_a_business_account",
            "business_suspended",
        ],
    ),
    (
        "post",
        "/business/messages",
        &[
            "invalid_message_category",
            "invalid_phone_number",
            "message_body_required",
            "invalid_message_content",
            "invalid_idempotency_key",
            "recipient_not_found",
            "authentication_reserved",
            "live_business_required",
            "business_follow_required",
            "marketing_opt_in_required",
            "idempotency_key_conflict",
            "idempotency_in_progress",
            "business_send_rate_limited",
        ],
    ),
    ("get", "/business/messages/{id}", &["message_not_found"]),
    (
        "get",
        "/business/team",
        &["not_a_business_account", "business_suspended"],
    ),
    (
        "post",
        "/business/team",
        &[
            "invalid_request",
            "invalid_phone_number",
            "user_not_found",
            "user_in_another_business",
            "insufficient_role",
        ],
    ),
    (
        "delete",
        "/business/team/{userId}",
        &[
            "cannot_remove_owner",
            "team_member_not_found",
            "insufficient_role",
        ],
    ),
    ("get", "/business/apps", &["owner_required"]),
    (
        "post",
        "/business/apps",
        &["invalid_request", "invalid_app_scopes", "owner_required"],
    ),
    (
        "post",
        "/business/apps/{appId}/rotate",
        &["owner_required", "app_not_found"],
    ),
    (
        "delete",
        "/business/apps/{appId}",
        &["owner_required", "app_not_found"],
    ),
    ("get", "/business/webhooks", &["not_a_business_account"]),
    (
        "post",
        "/business/webhooks",
        &[
            "invalid_webhook_url",
            "invalid_webhook_events",
            "insufficient_role",
            "webhook_url_conflict",
            "webhook_limit_reached",
        ],
    ),
    (
        "patch",
        "/business/webhooks/{id}",
        &[
            "invalid_request",
            "insufficient_role",
            "webhook_not_found",
            "webhook_url_conflict",
        ],
    ),
    (
        "delete",
        "/business/webhooks/{id}",
        &["insufficient_role", "webhook_not_found"],
    ),
    (
        "post",
        "/business/webhooks/{id}/test",
        &[
            "insufficient_role",
            "webhook_not_found",
            "webhook_paused",
            "rate_limited",
        ],
    ),
    (
        "get",
        "/business/webhook-deliveries",
        &["invalid_limit", "invalid_request", "webhook_not_found"],
    ),
    (
        "get",
        "/business/webhook-deliveries/{id}",
        &["delivery_not_found"],
    ),
    (
        "post",
        "/business/webhook-deliveries/{id}/retry",
        &[
            "insufficient_role",
            "delivery_not_found",
            "delivery_not_failed",
            "webhook_paused",
        ],
    ),
    (
        "post",
        "/business/webhooks/{id}/recover",
        &[
            "invalid_request",
            "insufficient_role",
            "webhook_not_found",
            "webhook_paused",
        ],
    ),
    (
        "get",
        "/business/webhooks/{id}/stats",
        &["invalid_request", "webhook_not_found"],
    ),
    (
        "post",
        "/business/webhooks/{id}/rotate-secret",
        &["invalid_request", "insufficient_role", "webhook_not_found"],
    ),
    (
        "get",
        "/business/events",
        &["invalid_limit", "invalid_request"],
    ),
    (
        "get",
        "/businesses/{businessAccountId}/follow",
        &["business_not_found", "follow_not_found"],
    ),
    (
        "put",
        "/businesses/{businessAccountId}/follow",
        &[
            "invalid_request",
            "business_not_live",
            "cannot_follow_own_business",
            "business_not_found",
            "consent_text_changed",
        ],
    ),
    (
        "patch",
        "/businesses/{businessAccountId}/follow",
        &[
            "invalid_request",
            "business_not_found",
            "follow_not_found",
            "consent_text_changed",
        ],
    ),
    (
        "delete",
        "/businesses/{businessAccountId}/follow",
        &["business_not_found"],
    ),
    ("delete", "/me/grants/{client_id}", &["grant_not_found"]),
    (
        "post",
        "/business/broadcasts",
        &[
            "invalid_request",
            "invalid_message_category",
            "message_body_required",
            "invalid_message_content",
            "invalid_idempotency_key",
            "insufficient_role",
            "live_business_required",
            "idempotency_key_conflict",
            "idempotency_in_progress",
        ],
    ),
    (
        "post",
        "/v1/{businessAccountId}/broadcasts",
        &[
            "invalid_app_token",
            "app_business_mismatch",
            "app_scope_required",
            "live_business_required",
            "business_suspended",
            "invalid_request",
            "invalid_message_category",
            "message_body_required",
            "invalid_message_content",
            "invalid_idempotency_key",
            "idempotency_key_conflict",
            "idempotency_in_progress",
        ],
    ),
    (
        "get",
        "/business/broadcasts",
        &["invalid_limit", "invalid_request"],
    ),
    ("get", "/business/broadcasts/{id}", &["broadcast_not_found"]),
    (
        "get",
        "/v1/{businessAccountId}/broadcasts/{id}",
        &[
            "invalid_app_token",
            "app_business_mismatch",
            "business_suspended",
            "broadcast_not_found",
        ],
    ),
    (
        "post",
        "/business/broadcasts/{id}/cancel",
        &[
            "insufficient_role",
            "broadcast_not_found",
            "broadcast_not_cancelable",
        ],
    ),
    (
        "post",
        "/v1/{businessAccountId}/broadcasts/{id}/cancel",
        &[
            "invalid_app_token",
            "app_business_mismatch",
            "business_suspended",
            "broadcast_not_found",
            "broadcast_not_cancelable",
        ],
    ),
    (
        "post",
        "/business/messages/{id}/cancel",
        &[
            "insufficient_role",
            "message_not_found",
            "message_not_cancelable",
            "not_a_business_account",
            "business_suspended",
        ],
    ),
    (
        "post",
        "/v1/{businessAccountId}/messages/{id}/cancel",
        &[
            "invalid_app_token",
            "app_business_mismatch",
            "business_suspended",
            "message_not_found",
            "message_not_cancelable",
        ],
    ),
    (
        "post",
        "/v1/{businessAccountId}/messages",
        &[
            "invalid_app_token",
            "app_business_mismatch",
            "invalid_message_category",
            "invalid_phone_number",
            "message_body_required",
            "invalid_message_content",
            "invalid_idempotency_key",
            "app_scope_required",
            "live_business_required",
            "business_suspended",
            "recipient_not_found",
            "idempotency_key_conflict",
            "idempotency_in_progress",
            "business_follow_required",
            "marketing_opt_in_required",
            "business_send_rate_limited",
        ],
    ),
    (
        "post",
        "/v1/service/{phoneNumber}/messages",
        &[
            "invalid_app_token",
            "app_business_mismatch",
            "invalid_phone_number",
            "message_body_required",
            "invalid_idempotency_key",
            "app_scope_required",
            "live_business_required",
            "business_suspended",
            "recipient_not_found",
            "idempotency_key_conflict",
            "idempotency_in_progress",
            "business_follow_required",
            "business_send_rate_limited",
        ],
    ),
    (
        "post",
        "/business/messages/check",
        &[
            "invalid_message_category",
            "invalid_phone_number",
            "message_body_required",
            "invalid_message_content",
            "recipient_not_found",
            "authentication_reserved",
            "live_business_required",
            "business_follow_required",
            "marketing_opt_in_required",
            "business_send_rate_limited",
        ],
    ),
    (
        "post",
        "/v1/{businessAccountId}/messages/check",
        &[
            "invalid_app_token",
            "app_business_mismatch",
            "invalid_message_category",
            "invalid_phone_number",
            "message_body_required",
            "invalid_message_content",
            "app_scope_required",
            "live_business_required",
            "business_suspended",
            "recipient_not_found",
            "business_follow_required",
            "marketing_opt_in_required",
            "business_send_rate_limited",
        ],
    ),
    (
        "post",
        "/v1/service/{phoneNumber}/messages/check",
        &[
            "invalid_app_token",
            "app_business_mismatch",
            "invalid_phone_number",
            "message_body_required",
            "app_scope_required",
            "live_business_required",
            "business_suspended",
            "recipient_not_found",
            "business_follow_required",
            "business_send_rate_limited",
        ],
    ),
    // The fourth round.
    ("patch", "/me", &["invalid_request"]),
    (
        "post",
        "/businesses/{businessAccountId}/messages",
        &[
            "invalid_request",
            "business_follow_required",
            "business_not_live",
            "conversation_blocked",
            "account_suspended",
            "business_not_found",
            "idempotency_key_conflict",
            "idempotency_in_progress",
            "rate_limited",
        ],
    ),
    (
        "get",
        "/me/conversations",
        &["invalid_limit", "invalid_request"],
    ),
    (
        "get",
        "/businesses/{businessAccountId}/messages",
        &["invalid_limit", "invalid_request", "business_not_found"],
    ),
    (
        "post",
        "/businesses/{businessAccountId}/messages/read",
        &["invalid_request", "business_not_found"],
    ),
    (
        "get",
        "/business/conversations",
        &["invalid_limit", "invalid_request"],
    ),
    (
        "get",
        "/business/conversations/{id}",
        &["conversation_not_found"],
    ),
    (
        "get",
        "/business/conversations/{id}/messages",
        &["invalid_limit", "invalid_request", "conversation_not_found"],
    ),
    (
        "post",
        "/business/conversations/{id}/messages",
        &[
            "invalid_request",
            "invalid_message_category",
            "message_body_required",
            "invalid_message_content",
            "service_window_closed",
            "business_follow_required",
            "marketing_opt_in_required",
            "live_business_required",
            "business_suspended",
            "conversation_not_found",
            "business_send_rate_limited",
            "template_not_found",
            "template_archived",
            "template_category_mismatch",
            "template_variable_missing",
            "template_variable_unknown",
            "template_variable_invalid",
            "invalid_idempotency_key",
            "idempotency_key_conflict",
            "idempotency_in_progress",
        ],
    ),
    (
        "post",
        "/business/conversations/{id}/messages/check",
        &[
            "invalid_request",
            "invalid_message_category",
            "message_body_required",
            "invalid_message_content",
            "service_window_closed",
            "business_follow_required",
            "marketing_opt_in_required",
            "live_business_required",
            "business_suspended",
            "conversation_not_found",
            "business_send_rate_limited",
            "template_not_found",
            "template_archived",
            "template_category_mismatch",
            "template_variable_missing",
            "template_variable_unknown",
            "template_variable_invalid",
        ],
    ),
    (
        "post",
        "/business/conversations/{id}/read",
        &["invalid_request", "conversation_not_found"],
    ),
    (
        "patch",
        "/business/conversations/{id}",
        &["invalid_request", "conversation_not_found"],
    ),
    (
        "post",
        "/business/conversations/{id}/block",
        &["insufficient_role", "conversation_not_found"],
    ),
    (
        "post",
        "/business/conversations/{id}/unblock",
        &["insufficient_role", "conversation_not_found"],
    ),
    (
        "get",
        "/v1/{businessAccountId}/conversations",
        &[
            "invalid_app_token",
            "app_business_mismatch",
            "app_scope_required",
            "business_suspended",
            "invalid_limit",
            "invalid_request",
        ],
    ),
    (
        "get",
        "/v1/{businessAccountId}/conversations/{id}",
        &[
            "invalid_app_token",
            "app_business_mismatch",
            "app_scope_required",
            "business_suspended",
            "conversation_not_found",
        ],
    ),
    (
        "get",
        "/v1/{businessAccountId}/conversations/{id}/messages",
        &[
            "invalid_app_token",
            "app_business_mismatch",
            "app_scope_required",
            "business_suspended",
            "invalid_limit",
            "invalid_request",
            "conversation_not_found",
        ],
    ),
    (
        "post",
        "/v1/{businessAccountId}/conversations/{id}/messages",
        &[
            "invalid_app_token",
            "app_business_mismatch",
            "app_scope_required",
            "business_suspended",
            "invalid_request",
            "invalid_message_category",
            "message_body_required",
            "invalid_message_content",
            "service_window_closed",
            "business_follow_required",
            "marketing_opt_in_required",
            "live_business_required",
            "business_suspended",
            "conversation_not_found",
            "business_send_rate_limited",
            "template_not_found",
            "template_archived",
            "template_category_mismatch",
            "template_variable_missing",
            "template_variable_unknown",
            "template_variable_invalid",
            "invalid_idempotency_key",
            "idempotency_key_conflict",
            "idempotency_in_progress",
        ],
    ),
    (
        "post",
        "/v1/{businessAccountId}/conversations/{id}/messages/check",
        &[
            "invalid_app_token",
            "app_business_mismatch",
            "app_scope_required",
            "business_suspended",
            "invalid_request",
            "invalid_message_category",
            "message_body_required",
            "invalid_message_content",
            "service_window_closed",
            "business_follow_required",
            "marketing_opt_in_required",
            "live_business_required",
            "business_suspended",
            "conversation_not_found",
            "business_send_rate_limited",
            "template_not_found",
            "template_archived",
            "template_category_mismatch",
            "template_variable_missing",
            "template_variable_unknown",
            "template_variable_invalid",
        ],
    ),
    (
        "post",
        "/v1/{businessAccountId}/conversations/{id}/read",
        &[
            "invalid_app_token",
            "app_business_mismatch",
            "app_scope_required",
            "business_suspended",
            "invalid_request",
            "conversation_not_found",
        ],
    ),
    (
        "patch",
        "/v1/{businessAccountId}/conversations/{id}",
        &[
            "invalid_app_token",
            "app_business_mismatch",
            "app_scope_required",
            "business_suspended",
            "invalid_request",
            "conversation_not_found",
        ],
    ),
    (
        "post",
        "/business/templates",
        &[
            "insufficient_role",
            "invalid_request",
            "invalid_message_category",
            "template_name_taken",
        ],
    ),
    (
        "get",
        "/business/templates",
        &["invalid_limit", "invalid_request"],
    ),
    ("get", "/business/templates/{id}", &["template_not_found"]),
    (
        "patch",
        "/business/templates/{id}",
        &[
            "insufficient_role",
            "invalid_request",
            "template_not_found",
            "template_archived",
        ],
    ),
    (
        "post",
        "/business/templates/{id}/archive",
        &["insufficient_role", "template_not_found"],
    ),
    (
        "post",
        "/business/templates/{id}/render",
        &[
            "invalid_request",
            "template_not_found",
            "template_variable_missing",
            "template_variable_unknown",
            "template_variable_invalid",
        ],
    ),
];
/// Codes no operation of the document carries: answered for every path by the HTTP layer, or by
/// operator commands only.
const NOT_PER_OPERATION: &[&str] = &[
    "method_not_allowed",       // any path, another method (with `Allow`)
    "request_timeout",          // the HTTP layer, before a route is chosen
    "request_header_too_large", // the HTTP layer, before a route is chosen
    "user_already_exists",      // `admin create-user` only
    "user_owns_business",       // `PrivacyService.EraseUser` (`admin erase-user`) only
];

fn documented_codes(op: &serde_json::Value, status: u16) -> Vec<String> {
    let response = &op["responses"][status.to_string()];
    let listed: Vec<String> = response["x-error-codes"]
        .as_array()
        .map(|a| a.iter().map(|c| c.as_str().unwrap().to_string()).collect())
        .unwrap_or_default();
    let schema = &response["content"]["application/json"]["schema"]["allOf"][1];
    let enumerated: Vec<String> = schema["properties"]["message"]["enum"]
        .as_array()
        .map(|a| a.iter().map(|c| c.as_str().unwrap().to_string()).collect())
        .unwrap_or_default();
    assert_eq!(listed, enumerated, "x-error-codes and the enum differ");
    // One example per code, the envelope as the service answers it.
    let examples = &response["content"]["application/json"]["examples"];
    for code in &listed {
        let value = &examples[code]["value"];
        assert_eq!(
            value["message"],
            code.as_str(),
            "{status}: example of {code}"
        );
        assert_eq!(value["success"], false);
        assert!(value["data"].is_null());
        assert!(
            value["detail"].as_str().is_some_and(|d| !d.is_empty()),
            "{status}: example of {code} has no detail"
        );
    }
    assert_eq!(
        examples.as_object().map_or(0, |e| e.len()),
        listed.len(),
        "{status}: an example for each code and no other"
    );
    listed
}

#[test]
fn openapi_names_the_codes_spec_matrix_lists_for_every_route_under_the_catalogue_status() {
    let doc = rest_gateway::openapi();
    assert_eq!(MATRIX.len(), ROUTES.len() - 2, "every route but the probes");
    for (method, path, codes) in MATRIX {
        let op = &doc["paths"][*path][*method];
        assert!(op.is_object(), "{method} {path} undocumented");
        // Every route: the server's own failures.
        let mut expected: Vec<&str> = codes.to_vec();
        expected.extend(["internal_error", "service_unavailable"]);
        if op.get("requestBody").is_some() {
            expected.extend(["malformed_json", "invalid_request", "payload_too_large"]);
        }
        if path.contains('{') && !path.contains("{phoneNumber}") {
            // A path id that is not a UUID names no resource.
            expected.push("not_found");
        }
        let user_token = op["security"][0].get("bearer").is_some();
        if user_token {
            expected.extend(["unauthorized", "account_suspended"]);
        }
        for code in expected {
            let status = proto::ErrorCode::from_wire(code)
                .unwrap_or_else(|| panic!("{code} is not in the catalogue"))
                .http_status();
            assert!(
                documented_codes(op, status).iter().any(|c| c == code),
                "{method} {path}: {code} is not documented under {status}"
            );
        }
    }
}

#[test]
fn openapi_error_answers_carry_only_catalogue_codes_of_their_own_status() {
    let doc = rest_gateway::openapi();
    let mut named = std::collections::BTreeSet::new();
    for (path, item) in doc["paths"].as_object().unwrap() {
        for (method, op) in item.as_object().unwrap() {
            for (status, response) in op["responses"].as_object().unwrap() {
                assert!(
                    response["headers"]["X-Request-Id"].is_object(),
                    "{method} {path} {status}: no X-Request-Id"
                );
                let status: u16 = status.parse().unwrap();
                if status < 400 {
                    let media = &response["content"]["application/json"];
                    assert!(
                        media.is_null() || media["example"].is_object(),
                        "{method} {path} {status}: no example"
                    );
                    continue;
                }
                let codes = documented_codes(op, status);
                assert!(!codes.is_empty(), "{method} {path} {status}: no code");
                for code in codes {
                    let known = proto::ErrorCode::from_wire(&code).unwrap_or_else(|| {
                        panic!("{method} {path}: {code} is not in the catalogue")
                    });
                    assert_eq!(known.http_status(), status, "{method} {path}: {code}");
                    named.insert(code);
                }
                if status == 429 {
                    assert!(
                        response["headers"]["Retry-After"].is_object(),
                        "{method} {path}"
                    );
                }
            }
            if let Some(body) = op.get("requestBody") {
                assert!(
                    !body["content"]["application/json"]["example"].is_null(),
                    "{method} {path}: no request example"
                );
            }
        }
    }
    for code in proto::ErrorCode::ALL {
        let name = code.as_str();
        assert_eq!(
            named.contains(name),
            !NOT_PER_OPERATION.contains(&name),
            "{name}: named by an operation must be exactly the codes not listed as global"
        );
    }
}
