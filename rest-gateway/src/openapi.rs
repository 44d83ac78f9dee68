//! The OpenAPI 3.1 document, generated from the route table and completed with the answers every
//! route shares (SPEC-level: 400 for bad bodies, 401/403 on Bearer routes, 500, 503).

use serde_json::{Value, json};
use utoipa::openapi::security::{HttpAuthScheme, HttpBuilder, SecurityScheme};
use utoipa::{Modify, OpenApi};

#[derive(OpenApi)]
#[openapi(
    info(
        title = "Business Messaging API",
        version = "1.0.0",
        description = "Send authentication, utility and marketing messages to the users who follow a business; learn the outcome through signed webhooks. Every answer is the envelope {success, message, data, timestamp}."
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

fn error_response(description: &str) -> Value {
    json!({
        "description": description,
        "content": {"application/json": {"schema": {"$ref": "#/components/schemas/ErrorEnvelope"}}}
    })
}

/// Adds the shared failure answers to every operation and returns the finished document.
pub fn finish(doc: utoipa::openapi::OpenApi) -> Value {
    let mut doc = serde_json::to_value(doc).unwrap_or_else(|_| json!({}));
    doc["components"]["schemas"]["ErrorEnvelope"] = json!({
        "type": "object",
        "description": "A failure: `message` is the error code, `data` is null.",
        "required": ["success", "message", "data", "timestamp"],
        "properties": {
            "success": {"type": "boolean"},
            "message": {"type": "string", "description": "The error code"},
            "data": {"type": "null"},
            "timestamp": {"type": "string", "format": "date-time"}
        }
    });
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
            let has_body = op.contains_key("requestBody");
            let bearer = op.contains_key("security");
            let has_path_params = path.contains('{');
            let has_params = op.contains_key("parameters");
            let Some(responses) = op.get_mut("responses").and_then(Value::as_object_mut) else {
                continue;
            };
            let mut add = |code: &str, description: &str| {
                responses
                    .entry(code.to_string())
                    .or_insert_with(|| error_response(description));
            };
            if has_body || method != "get" || has_params {
                add(
                    "400",
                    "Invalid request: `malformed_json`, `invalid_request` or a more specific code",
                );
            }
            if has_body {
                add("413", "`payload_too_large`");
            }
            if bearer {
                add(
                    "401",
                    "`unauthorized`: missing, malformed, expired or foreign-signed token",
                );
                add(
                    "403",
                    "`account_suspended`, `not_a_business_account`, `business_suspended` or a role is required",
                );
            }
            if has_path_params {
                add("404", "`not_found`");
            }
            add("500", "`internal_error`");
            add("503", "`service_unavailable`: the core cannot be reached");
        }
    }
    doc
}
