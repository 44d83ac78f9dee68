//! The OpenAPI 3.1 document: generated from the route table and the types' schemas, then
//! completed here with what every route shares: the failure answers of each route with the exact
//! error codes it can carry (from [`route_codes`] and the route's shape, statuses from the
//! catalogue), the `X-Request-Id` and `Retry-After` headers, the webhook payloads, `servers`, and
//! an example on every request body and success answer (synthesised from the schemas).

use std::collections::BTreeMap;

use proto::ErrorCode;
use serde_json::{Map, Value, json};
use utoipa::openapi::security::{HttpAuthScheme, HttpBuilder, SecurityScheme};
use utoipa::{Modify, OpenApi, ToSchema};

use crate::schema;

#[derive(OpenApi)]
#[openapi(
    info(
        title = "Business Messaging API",
        version = "1.0.0",
        description = "Send authentication, utility and marketing messages to the users who follow a business; learn the outcome through signed webhooks.\n\nEvery answer is the envelope `{success, message, data, timestamp}`; a failure has `success: false`, the error code in `message`, `data: null` and `detail`, one sentence saying why. Every answer carries `X-Request-Id`. Console routes take a user's access token (`POST /auth/business/otp/verify`); `/v1` routes take a developer-app token (`sva_...`)."
    ),
    modifiers(&BearerScheme),
    tags(
        (name = "auth", description = "Sign-in and tokens"),
        (name = "business", description = "The business console"),
        (name = "team", description = "Team members and roles"),
        (name = "apps", description = "Developer apps (owner only)"),
        (name = "messages", description = "Sends, history and usage"),
        (name = "follow", description = "Following a business and marketing consent"),
        (name = "webhooks", description = "Webhook endpoints and the deliveries log"),
        (name = "grants", description = "A user's sign-in grants to developer apps"),
        (name = "ops", description = "Probes"),
    )
)]
pub struct ApiDoc;

struct BearerScheme;

impl Modify for BearerScheme {
    fn modify(&self, openapi: &mut utoipa::openapi::OpenApi) {
        let components = openapi.components.get_or_insert_with(Default::default);
        components.add_security_scheme(
            "bearer",
            SecurityScheme::Http(
                HttpBuilder::new()
                    .scheme(HttpAuthScheme::Bearer)
                    .bearer_format("JWT")
                    .description(Some("A user's access token"))
                    .build(),
            ),
        );
        components.add_security_scheme(
            "app_token",
            SecurityScheme::Http(
                HttpBuilder::new()
                    .scheme(HttpAuthScheme::Bearer)
                    .bearer_format("sva_...")
                    .description(Some("A developer-app token"))
                    .build(),
            ),
        );
    }
}

use ErrorCode as E;

const SEND_SHAPE: &[ErrorCode] = &[
    E::InvalidMessageCategory,
    E::InvalidPhoneNumber,
    E::MessageBodyRequired,
    E::InvalidMessageContent,
    E::InvalidIdempotencyKey,
    E::RecipientNotFound,
    E::IdempotencyKeyConflict,
    E::IdempotencyInProgress,
    E::LiveBusinessRequired,
    E::BusinessSuspended,
    E::BusinessFollowRequired,
    E::BusinessSendRateLimited,
];

/// The codes a route answers beyond those its shape implies (see [`shape_codes`]): SPEC-MATRIX.md's
/// failures of the route, by name. `None` for a path this gateway does not serve.
pub fn route_codes(method: &str, path: &str) -> Option<Vec<ErrorCode>> {
    // Console routes: a business is required, and it must be active (except GET /business/me).
    let console = [E::NotABusinessAccount, E::BusinessSuspended];
    let editor = [
        E::NotABusinessAccount,
        E::BusinessSuspended,
        E::InsufficientRole,
    ];
    let owner = [
        E::NotABusinessAccount,
        E::BusinessSuspended,
        E::OwnerRequired,
    ];
    let codes: Vec<ErrorCode> = match (method, path) {
        ("post", "/auth/business/otp/request") => vec![
            E::InvalidPhoneNumber,
            E::RateLimited,
            E::SmsDeliveryUnavailable,
        ],
        ("post", "/auth/business/otp/verify") => vec![
            E::InvalidPhoneNumber,
            E::InvalidOtpCode,
            E::AccountSuspended,
            E::RateLimited,
        ],
        ("post", "/auth/refresh") => vec![E::InvalidRefreshToken, E::AccountSuspended],
        ("post", "/auth/logout") => vec![E::InvalidRefreshToken],
        ("post", "/auth/qr/sessions") => vec![E::RateLimited],
        ("get", "/auth/qr/sessions/{id}/preview") => vec![E::QrSessionNotFound, E::RateLimited],
        ("get", "/auth/qr/sessions/{id}") => {
            vec![E::InvalidQrSecret, E::QrSessionNotFound, E::RateLimited]
        }
        ("post", "/auth/qr/sessions/{id}/approve") => vec![
            E::ConsoleAccessRequired,
            E::QrSessionNotFound,
            E::QrSessionNotPending,
            E::RateLimited,
        ],
        ("post", "/auth/qr/sessions/{id}/exchange") => vec![
            E::InvalidQrSecret,
            E::QrSessionNotFound,
            E::QrSessionNotApproved,
            E::QrSessionAlreadyExchanged,
            E::RateLimited,
        ],
        ("get", "/business/me") => vec![E::NotABusinessAccount],
        ("patch", "/business/me") => editor.to_vec(),
        ("post", "/business/sandbox") => vec![E::BusinessAlreadyExists],
        ("get", "/business/usage") | ("get", "/business/team") | ("get", "/business/webhooks") => {
            console.to_vec()
        }
        ("get", "/business/messages") => [&console[..], &[E::InvalidLimit]].concat(),
        ("post", "/business/messages") => [
            &console[..],
            SEND_SHAPE,
            &[E::AuthenticationReserved, E::MarketingOptInRequired],
        ]
        .concat(),
        ("get", "/business/messages/{id}") => [&console[..], &[E::MessageNotFound]].concat(),
        ("post", "/business/team") => [
            &editor[..],
            &[
                E::InvalidPhoneNumber,
                E::UserNotFound,
                E::UserInAnotherBusiness,
                E::CannotRemoveOwner,
            ],
        ]
        .concat(),
        ("delete", "/business/team/{userId}") => {
            [&editor[..], &[E::CannotRemoveOwner, E::TeamMemberNotFound]].concat()
        }
        ("get", "/business/apps") => owner.to_vec(),
        ("post", "/business/apps") => [&owner[..], &[E::InvalidAppScopes]].concat(),
        ("post", "/business/apps/{appId}/rotate") | ("delete", "/business/apps/{appId}") => {
            [&owner[..], &[E::AppNotFound]].concat()
        }
        ("post", "/business/webhooks") => [
            &editor[..],
            &[
                E::InvalidWebhookUrl,
                E::InvalidWebhookEvents,
                E::WebhookUrlConflict,
                E::WebhookLimitReached,
            ],
        ]
        .concat(),
        ("patch", "/business/webhooks/{id}") => [
            &editor[..],
            &[
                E::InvalidWebhookUrl,
                E::InvalidWebhookEvents,
                E::WebhookNotFound,
                E::WebhookUrlConflict,
            ],
        ]
        .concat(),
        ("delete", "/business/webhooks/{id}") => [&editor[..], &[E::WebhookNotFound]].concat(),
        ("post", "/business/webhooks/{id}/test") => [
            &editor[..],
            &[E::WebhookNotFound, E::WebhookPaused, E::RateLimited],
        ]
        .concat(),
        ("post", "/business/webhooks/{id}/recover") => {
            [&editor[..], &[E::WebhookNotFound, E::WebhookPaused]].concat()
        }
        ("get", "/business/webhook-deliveries") => {
            [&console[..], &[E::InvalidLimit, E::WebhookNotFound]].concat()
        }
        ("get", "/business/webhook-deliveries/{id}") => {
            [&console[..], &[E::DeliveryNotFound]].concat()
        }
        ("post", "/business/webhook-deliveries/{id}/retry") => [
            &editor[..],
            &[E::DeliveryNotFound, E::DeliveryNotFailed, E::WebhookPaused],
        ]
        .concat(),
        ("get", "/businesses/{businessAccountId}/follow") => {
            vec![E::BusinessNotFound, E::FollowNotFound]
        }
        ("put", "/businesses/{businessAccountId}/follow") => vec![
            E::BusinessNotFound,
            E::BusinessNotLive,
            E::CannotFollowOwnBusiness,
        ],
        ("patch", "/businesses/{businessAccountId}/follow") => {
            vec![E::BusinessNotFound, E::FollowNotFound]
        }
        ("delete", "/businesses/{businessAccountId}/follow") => vec![E::BusinessNotFound],
        ("delete", "/me/grants/{client_id}") => vec![E::GrantNotFound],
        ("post", "/v1/{businessAccountId}/messages") => [
            &[
                E::InvalidAppToken,
                E::AppBusinessMismatch,
                E::AppScopeRequired,
            ],
            SEND_SHAPE,
            &[E::MarketingOptInRequired],
        ]
        .concat(),
        ("post", "/v1/service/{phoneNumber}/messages") => [
            &[
                E::InvalidAppToken,
                E::AppBusinessMismatch,
                E::AppScopeRequired,
            ],
            SEND_SHAPE,
        ]
        .concat()
        .into_iter()
        .filter(|c| !matches!(c, E::InvalidMessageCategory | E::InvalidMessageContent))
        .collect(),
        ("get", "/me") => vec![],
        ("get", "/healthz") => vec![],
        ("get", "/readyz") => vec![],
        _ => return None,
    };
    Some(codes)
}

/// The codes a route answers because of its shape: a JSON body (`malformed_json`,
/// `invalid_request`, `payload_too_large`), query parameters (`invalid_request`), a path id
/// (`not_found`), a user's Bearer token (`unauthorized`, `account_suspended`), and the server's
/// own failures.
fn shape_codes(has_body: bool, has_query: bool, path_id: bool, user_token: bool) -> Vec<ErrorCode> {
    let mut codes = vec![E::InternalError, E::ServiceUnavailable];
    if has_body {
        codes.extend([E::MalformedJson, E::InvalidRequest, E::PayloadTooLarge]);
    }
    if has_query {
        codes.push(E::InvalidRequest);
    }
    if path_id {
        codes.push(E::NotFound);
    }
    if user_token {
        codes.extend([E::Unauthorized, E::AccountSuspended]);
    }
    codes
}

fn request_id_header() -> Value {
    json!({
        "description": "The request's id: the client's `X-Request-Id` when it is 1 to 128 visible ASCII characters, else a new UUID. Quote it when reporting a problem.",
        "schema": {"type": "string", "minLength": 1, "maxLength": 128}
    })
}

fn retry_after_header() -> Value {
    json!({
        "description": "Seconds until the request may succeed.",
        "schema": {"type": "integer", "minimum": 0}
    })
}

/// The failure answer of one status carrying `codes`.
fn error_response(status: u16, codes: &[ErrorCode]) -> Value {
    let names: Vec<&str> = codes.iter().map(|c| c.as_str()).collect();
    let listed = names
        .iter()
        .map(|n| format!("`{n}`"))
        .collect::<Vec<_>>()
        .join(", ");
    let mut headers = json!({"X-Request-Id": request_id_header()});
    if status == 429 {
        headers["Retry-After"] = retry_after_header();
    }
    json!({
        "description": format!("{}: {listed}", reason_phrase(status)),
        "headers": headers,
        "content": {"application/json": {"schema": {
            "allOf": [
                {"$ref": "#/components/schemas/ErrorEnvelope"},
                {"type": "object", "properties": {"message": {"enum": names}}}
            ]
        }}},
        "x-error-codes": names,
    })
}

fn reason_phrase(status: u16) -> &'static str {
    axum::http::StatusCode::from_u16(status)
        .ok()
        .and_then(|s| s.canonical_reason())
        .unwrap_or("Error")
}

/// Puts the schema of `T` (and of what it names) into the document's components.
fn add_schema<T: ToSchema>(doc: &mut Value) -> String {
    let mut deps = Vec::new();
    T::schemas(&mut deps);
    let schemas = &mut doc["components"]["schemas"];
    for (name, schema) in deps {
        schemas[name] = serde_json::to_value(schema).unwrap_or(Value::Null);
    }
    let name = T::name().into_owned();
    schemas[&name] = serde_json::to_value(T::schema()).unwrap_or(Value::Null);
    name
}

/// The `webhooks` section: each event's payload and the delivery headers.
fn webhooks(doc: &mut Value) -> Value {
    add_schema::<schema::MessageSentData>(doc);
    add_schema::<schema::MessageFailedData>(doc);
    add_schema::<schema::GrantRevokedData>(doc);
    add_schema::<schema::WebhookTestData>(doc);
    let events: [(&str, String, &str); 4] = [
        (
            "message.sent",
            add_schema::<schema::WebhookPayload<schema::MessageSentData>>(doc),
            "A send (app token) reached its recipient.",
        ),
        (
            "message.failed",
            add_schema::<schema::WebhookPayload<schema::MessageFailedData>>(doc),
            "A send (app token) was not delivered; `data.reason` says why.",
        ),
        (
            "grant.revoked",
            add_schema::<schema::WebhookPayload<schema::GrantRevokedData>>(doc),
            "A user revoked a developer app's sign-in grant.",
        ),
        (
            "webhook.test",
            add_schema::<schema::WebhookPayload<schema::WebhookTestData>>(doc),
            "Sent by `POST /business/webhooks/{id}/test` to that endpoint only.",
        ),
    ];
    let mut out = Map::new();
    for (event, schema_name, summary) in events {
        let parameters = vec![
            json!({"name": "X-Service-Event", "in": "header", "required": true,
                   "description": "The event type, also the payload's `type`.",
                   "schema": {"type": "string", "enum": [event]}}),
            json!({"name": "X-Service-Delivery", "in": "header", "required": true,
                   "description": "The delivery's id, the same on every retry (also the payload's `delivery_id`): deduplicate on it.",
                   "schema": {"type": "string", "format": "uuid"}}),
            json!({"name": "X-Service-Signature", "in": "header", "required": true,
                   "description": "`t=<unix seconds>,v1=<hex HMAC-SHA256>`: the HMAC of `t`, `.`, and the raw body, keyed with the endpoint's secret. Reject a `t` more than five minutes from your clock; compare in constant time.",
                   "schema": {"type": "string", "pattern": "^t=[0-9]+,v1=[0-9a-f]{64}$"}}),
            json!({"name": "User-Agent", "in": "header", "required": true,
                   "schema": {"type": "string", "example": "Service-Webhooks/1.0"}}),
        ];
        let operation = json!({
            "summary": summary,
            "operationId": format!("webhook_{}", event.replace('.', "_")),
            "tags": ["webhooks"],
            "parameters": parameters,
            "requestBody": {"required": true, "content": {"application/json": {
                "schema": {"$ref": format!("#/components/schemas/{schema_name}")}
            }}},
            "responses": {
                "2XX": {"description": "Received: the delivery succeeded."},
                "default": {"description": "A timeout, a connection error, 408, 429, 3xx or 5xx is retried after 1, 2, 4, 8 and 16 minutes (6 attempts); any other 4xx is final."}
            }
        });
        out.insert(event.to_string(), json!({"post": operation}));
    }
    Value::Object(out)
}

/// Replaces every `$ref` to the `Null` schema by the schema itself (`{"type": "null"}`).
fn inline_null(value: &mut Value) {
    match value {
        Value::Object(map) => {
            if map.get("$ref").and_then(Value::as_str) == Some("#/components/schemas/Null") {
                map.remove("$ref");
                map.insert("type".into(), json!("null"));
            }
            for v in map.values_mut() {
                inline_null(v);
            }
        }
        Value::Array(items) => items.iter_mut().for_each(inline_null),
        _ => {}
    }
}

/// Completes the generated document: see the module's comment.
pub fn finish(doc: utoipa::openapi::OpenApi) -> Value {
    let mut doc = serde_json::to_value(doc).unwrap_or_else(|_| json!({}));
    inline_null(&mut doc);
    if let Some(schemas) = doc["components"]["schemas"].as_object_mut() {
        schemas.remove("Null");
    }
    doc["components"]["schemas"]["ErrorEnvelope"] = json!({
        "type": "object",
        "description": "A failure: `message` is the error code, `data` is null, `detail` says why.",
        "required": ["success", "message", "data", "timestamp", "detail"],
        "properties": {
            "success": {"type": "boolean", "const": false},
            "message": {"type": "string", "description": "The error code"},
            "data": {"type": "null"},
            "timestamp": {"type": "string", "format": "date-time"},
            "detail": {"type": "string", "minLength": 1,
                       "description": "One sentence saying why, naming the field and the rule where there is one."}
        },
        "example": {
            "success": false,
            "message": "invalid_request",
            "data": null,
            "timestamp": "2026-11-23T10:00:00.000Z",
            "detail": "body: at most 4096 characters"
        }
    });
    doc["servers"] = json!([{"url": "/", "description": "This gateway"}]);
    let hooks = webhooks(&mut doc);
    doc["webhooks"] = hooks;

    let components = doc["components"].clone();
    let Some(paths) = doc.get_mut("paths").and_then(Value::as_object_mut) else {
        return doc;
    };
    for (path, item) in paths.iter_mut() {
        let Some(item) = item.as_object_mut() else {
            continue;
        };
        for (method, op) in item.iter_mut() {
            let Some(op) = op.as_object_mut() else {
                continue;
            };
            complete_operation(method, path, op, &components);
        }
    }
    doc
}

fn complete_operation(method: &str, path: &str, op: &mut Map<String, Value>, components: &Value) {
    let has_body = op.contains_key("requestBody");
    let user_token = op
        .get("security")
        .and_then(Value::as_array)
        .is_some_and(|s| s.iter().any(|r| r.get("bearer").is_some()));
    let params = op
        .get("parameters")
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default();
    let has_query = params.iter().any(|p| p["in"] == "query");
    let path_id = params
        .iter()
        .any(|p| p["in"] == "path" && p["schema"]["format"] == "uuid");

    let mut codes = shape_codes(has_body, has_query, path_id, user_token);
    codes.extend(route_codes(method, path).unwrap_or_default());
    let mut by_status: BTreeMap<u16, Vec<ErrorCode>> = BTreeMap::new();
    for code in codes {
        let list = by_status.entry(code.http_status()).or_default();
        if !list.contains(&code) {
            list.push(code);
        }
    }

    if let Some(media) = op
        .get_mut("requestBody")
        .and_then(|body| body.pointer_mut("/content/application~1json"))
        .filter(|media| media.get("example").is_none())
    {
        let example = synth(&media["schema"], components, 0);
        media["example"] = example;
    }
    let Some(responses) = op.get_mut("responses").and_then(Value::as_object_mut) else {
        return;
    };
    // The route's own failure answers are replaced by the exact ones.
    responses.retain(|status, _| !status.starts_with('4') && !status.starts_with('5'));
    let message = if path.ends_with("/messages") && method == "post" {
        "message_sent"
    } else {
        "ok"
    };
    for response in responses.values_mut() {
        response["headers"]["X-Request-Id"] = request_id_header();
        if let Some(media) = response
            .pointer_mut("/content/application~1json")
            .filter(|media| media.get("example").is_none())
        {
            let mut example = synth(&media["schema"], components, 0);
            if let Some(envelope) = example.as_object_mut() {
                envelope.remove("detail");
                envelope.insert("success".into(), json!(true));
                envelope.insert("message".into(), json!(message));
            }
            media["example"] = example;
        }
    }
    for (status, codes) in by_status {
        responses.insert(status.to_string(), error_response(status, &codes));
    }
}

/// An example value for `schema`, from its own `example`s, enums, formats and patterns.
fn synth(schema: &Value, components: &Value, depth: usize) -> Value {
    if depth > 12 {
        return Value::Null;
    }
    if let Some(example) = schema.get("example") {
        return example.clone();
    }
    if let Some(name) = schema
        .get("$ref")
        .and_then(Value::as_str)
        .and_then(|r| r.strip_prefix("#/components/schemas/"))
    {
        return synth(&components["schemas"][name], components, depth + 1);
    }
    if let Some(all) = schema.get("allOf").and_then(Value::as_array) {
        let mut merged = Map::new();
        for part in all {
            if let Value::Object(map) = synth(part, components, depth + 1) {
                merged.extend(map);
            }
        }
        return Value::Object(merged);
    }
    for key in ["oneOf", "anyOf"] {
        if let Some(first) = schema.get(key).and_then(Value::as_array).and_then(|a| {
            a.iter()
                .find(|s| s.get("type") != Some(&json!("null")))
                .or(a.first())
        }) {
            return synth(first, components, depth + 1);
        }
    }
    if let Some(value) = schema.get("const") {
        return value.clone();
    }
    if let Some(first) = schema
        .get("enum")
        .and_then(Value::as_array)
        .and_then(|e| e.first())
    {
        return first.clone();
    }
    let ty = match schema.get("type") {
        Some(Value::String(t)) => t.as_str(),
        Some(Value::Array(types)) => types
            .iter()
            .filter_map(Value::as_str)
            .find(|t| *t != "null")
            .unwrap_or("null"),
        _ if schema.get("properties").is_some() => "object",
        _ => "null",
    };
    match ty {
        "object" => {
            let mut out = Map::new();
            if let Some(props) = schema.get("properties").and_then(Value::as_object) {
                for (name, prop) in props {
                    out.insert(name.clone(), synth(prop, components, depth + 1));
                }
            }
            Value::Object(out)
        }
        "array" => match schema.get("items") {
            Some(items) => json!([synth(items, components, depth + 1)]),
            None => json!([]),
        },
        "string" => json!(match schema.get("format").and_then(Value::as_str) {
            Some("uuid") => "0b9e6c1e-2f4a-4d8e-9a57-3c1d2e4f5a6b",
            Some("date-time") => "2026-11-23T10:00:00.000Z",
            Some("uri") => "https://example.com",
            _ if schema.get("pattern").and_then(Value::as_str) == Some(schema::E164_PATTERN) => {
                "+14155550123"
            }
            _ => "text",
        }),
        "integer" => schema.get("minimum").cloned().unwrap_or(json!(1)),
        "number" => json!(1.0),
        "boolean" => json!(true),
        _ => Value::Null,
    }
}
