//! GET /openapi.json describes every route the gateway serves.

use crate::e2e;
use crate::fixtures::ROUTES;
use crate::harness::TestApp;

e2e!(
    openapi_is_version_1_0_0_of_an_openapi_3_1_document,
    |app| async move {
        let reply = app.get("/openapi.json", None).await;
        assert_eq!(reply.status, 200);
        let doc = reply.body;
        assert_eq!(doc["info"]["version"], "1.0.0");
        assert!(
            doc["openapi"].as_str().unwrap().starts_with("3.1"),
            "{}",
            doc["openapi"]
        );
        // It is what the gateway crate generates.
        assert_eq!(doc, rest_gateway::openapi());
    }
);

e2e!(every_operation_has_its_own_operation_id, |app| async move {
    let doc = app.get("/openapi.json", None).await.body;
    let mut seen = std::collections::BTreeMap::new();
    for (path, item) in doc["paths"].as_object().unwrap() {
        for (method, op) in item.as_object().unwrap() {
            let id = op["operationId"].as_str().unwrap().to_string();
            if let Some(other) = seen.insert(id.clone(), format!("{method} {path}")) {
                panic!("operationId {id}: {other} and {method} {path}");
            }
        }
    }
});

e2e!(
    openapi_documents_every_route_and_every_documented_route_is_served,
    |app| async move {
        let doc = app.get("/openapi.json", None).await.body;
        let paths = doc["paths"].as_object().unwrap();
        for (method, path) in ROUTES {
            assert!(
                paths.get(*path).and_then(|p| p.get(*method)).is_some(),
                "{method} {path} undocumented"
            );
        }
        let mut documented = 0;
        for (path, item) in paths {
            for (method, op) in item.as_object().unwrap() {
                documented += 1;
                assert!(
                    ROUTES.contains(&(method.as_str(), path.as_str())),
                    "{method} {path} documented but not listed here"
                );
                let responses = op["responses"].as_object().unwrap();
                assert!(responses.contains_key("500"), "{method} {path}");
                if op.get("security").is_some() {
                    assert!(
                        responses.contains_key("401") && responses.contains_key("403"),
                        "{method} {path}"
                    );
                }
                // Fill path parameters with well-formed values.
                let concrete = path
                    .replace("{phoneNumber}", "%2B14155550123")
                    .split('/')
                    .map(|seg| {
                        if seg.starts_with('{') {
                            uuid::Uuid::new_v4().to_string()
                        } else {
                            seg.to_string()
                        }
                    })
                    .collect::<Vec<_>>()
                    .join("/");
                let reply = app
                    .request(
                        method.to_uppercase().parse().unwrap(),
                        &concrete,
                        None,
                        None,
                    )
                    .await;
                assert!(
                    !matches!(reply.message(), "not_found" | "method_not_allowed"),
                    "{method} {path} is documented but not routed: {}",
                    reply.body
                );
            }
        }
        assert_eq!(documented, ROUTES.len());
    }
);

fn enum_of(doc: &serde_json::Value, schema: &str) -> Vec<String> {
    doc["components"]["schemas"][schema]["enum"]
        .as_array()
        .unwrap_or_else(|| panic!("{schema} is not an enum"))
        .iter()
        .map(|v| v.as_str().unwrap().to_string())
        .collect()
}

#[test]
fn openapi_enums_are_the_vocabularys_value_sets() {
    use proto::vocabulary::*;
    let doc = rest_gateway::openapi();
    macro_rules! same {
        ($($set:ty),* $(,)?) => {$(
            let name = <$set as utoipa::ToSchema>::name();
            assert_eq!(enum_of(&doc, &name), <$set>::WIRE, "{name}");
        )*};
    }
    same!(
        UserStatus,
        BusinessStatus,
        BusinessMode,
        Role,
        AssignableRole,
        Scope,
        Category,
        BroadcastCategory,
        MessageStatus,
        MessageSource,
        FailureReason,
        FollowStatus,
        ChangeSource,
        BroadcastStatus,
        EventType,
        SubscribableEvent,
        DeliveryStatus,
        QrStatus,
        SendStatus,
        TokenType,
        ConversationStatus,
        Direction,
        WindowState,
        WebhookHealthState,
    );
    // The names the document has always used (the client libraries' type names). A send's
    // category (`SendCategory`) is spelled per body variant (`UtilityCategory` and the like).
    assert_eq!(<Category as utoipa::ToSchema>::name(), "RecordCategory");
    assert_eq!(<EventType as utoipa::ToSchema>::name(), "DeliveryEventType");
    assert_eq!(<SubscribableEvent as utoipa::ToSchema>::name(), "EventType");
    assert_eq!(
        SubscribableEvent::WIRE,
        [
            "message.sent",
            "message.failed",
            "grant.revoked",
            "follow.created",
            "follow.updated",
            "follow.deleted",
            "broadcast.completed",
            "message.received",
            "message.read",
            "webhook.failing",
            "webhook.recovered",
            "user.redacted",
        ]
    );
}

#[test]
fn openapi_describes_every_webhook_event_with_its_headers_and_payload() {
    let doc = rest_gateway::openapi();
    assert!(doc["servers"].as_array().is_some_and(|s| !s.is_empty()));
    for event in [
        "message.sent",
        "message.failed",
        "grant.revoked",
        "webhook.test",
        "webhook.failing",
        "webhook.recovered",
        "user.redacted",
    ] {
        let op = &doc["webhooks"][event]["post"];
        let headers: Vec<&str> = op["parameters"]
            .as_array()
            .unwrap_or_else(|| panic!("{event} undocumented"))
            .iter()
            .map(|p| p["name"].as_str().unwrap())
            .collect();
        for h in [
            "X-Service-Event",
            "X-Service-Delivery",
            "X-Service-Signature",
            "User-Agent",
        ] {
            assert!(headers.contains(&h), "{event}: {h}");
        }
        let schema = op["requestBody"]["content"]["application/json"]["schema"]["$ref"]
            .as_str()
            .unwrap()
            .trim_start_matches("#/components/schemas/");
        let payload = &doc["components"]["schemas"][schema];
        for field in ["id", "type", "created_at", "delivery_id", "data"] {
            assert!(payload["properties"][field].is_object(), "{event}: {field}");
        }
    }
}

/// Each event's payload is a component of its own whose `data` is that event's (one generic
/// `WebhookPayload` named every event's body the last one's data until this), `type` names only
/// its events, and `WebhookEvent` tells them apart by `type`.
#[test]
fn openapi_gives_each_webhook_event_its_own_payload_and_a_union_of_them() {
    let doc = rest_gateway::openapi();
    let schemas = &doc["components"]["schemas"];
    let expected = [
        ("message.sent", "MessageSentData"),
        ("message.failed", "MessageFailedData"),
        ("message.received", "MessageReceivedData"),
        ("message.read", "MessageReadData"),
        ("broadcast.completed", "BroadcastCompletedData"),
        ("grant.revoked", "GrantRevokedData"),
        ("follow.created", "FollowEventData"),
        ("follow.updated", "FollowEventData"),
        ("follow.deleted", "FollowEventData"),
        ("webhook.test", "WebhookTestData"),
        ("webhook.failing", "WebhookHealthData"),
        ("webhook.recovered", "WebhookHealthData"),
        ("user.redacted", "UserRedactedData"),
    ];
    for (event, data) in expected {
        let reference =
            doc["webhooks"][event]["post"]["requestBody"]["content"]["application/json"]["schema"]
                ["$ref"]
                .as_str()
                .unwrap();
        let name = reference.trim_start_matches("#/components/schemas/");
        assert_eq!(name, format!("WebhookPayload_{data}"), "{event}");
        let payload = &schemas[name];
        assert_eq!(
            payload["properties"]["data"]["$ref"],
            format!("#/components/schemas/{data}"),
            "{event}"
        );
        let types = payload["properties"]["type"]["enum"].as_array().unwrap();
        assert!(types.iter().any(|t| t == event), "{event}: {types:?}");
        assert_eq!(
            schemas["WebhookEvent"]["discriminator"]["mapping"][event], reference,
            "{event}"
        );
    }
    assert!(schemas.get("WebhookPayload").is_none());
    assert_eq!(
        schemas["WebhookEvent"]["oneOf"].as_array().unwrap().len(),
        10,
        "one variant per payload"
    );
}

/// The delivery headers as sent: `X-Service-Signature` with one `v1`, or two during a rotation's
/// grace, and the three Standard Webhooks headers.
#[test]
fn openapi_webhook_headers_cover_a_rotation_and_the_standard_webhooks_headers() {
    let doc = rest_gateway::openapi();
    let params = doc["webhooks"]["message.sent"]["post"]["parameters"]
        .as_array()
        .unwrap();
    let param = |name: &str| {
        params
            .iter()
            .find(|p| p["name"] == name)
            .unwrap_or_else(|| panic!("{name} undocumented"))
    };
    let pattern =
        |name: &str| regex::Regex::new(param(name)["schema"]["pattern"].as_str().unwrap()).unwrap();
    let one = format!("t=1700000000,v1={}", "a".repeat(64));
    let two = format!("{one},v1={}", "b".repeat(64));
    assert!(pattern("X-Service-Signature").is_match(&one));
    assert!(pattern("X-Service-Signature").is_match(&two));
    assert!(!pattern("X-Service-Signature").is_match("t=1700000000"));
    for name in ["webhook-id", "webhook-timestamp", "webhook-signature"] {
        assert_eq!(param(name)["required"], false, "{name}");
    }
    let b64 = "K5oZfzN95Z9UVu1EsfQmfVNQhnkZ2pj9o9NDN/H/pI4=";
    assert!(pattern("webhook-signature").is_match(&format!("v1,{b64}")));
    assert!(pattern("webhook-signature").is_match(&format!("v1,{b64} v1,{b64}")));
    assert!(pattern("webhook-timestamp").is_match("1700000000"));
}

/// `ErrorCode` lists the whole catalogue, and every envelope names its payload's component
/// rather than a copy of it, so generated clients have one type per payload.
#[test]
fn openapi_lists_every_error_code_and_envelopes_refer_to_their_payloads() {
    let doc = rest_gateway::openapi();
    let all: Vec<&str> = proto::ErrorCode::ALL.iter().map(|c| c.as_str()).collect();
    assert_eq!(enum_of(&doc, "ErrorCode"), all);
    let schemas = doc["components"]["schemas"].as_object().unwrap();
    for (name, schema) in schemas.iter().filter(|(n, _)| n.starts_with("Envelope_")) {
        let inner = &name["Envelope_".len()..];
        let data = &schema["properties"]["data"];
        if let Some(item) = inner.strip_prefix("Vec_") {
            assert_eq!(
                data["items"]["$ref"],
                format!("#/components/schemas/{item}"),
                "{name}"
            );
        } else if schemas.contains_key(inner) {
            assert_eq!(
                data["$ref"],
                format!("#/components/schemas/{inner}"),
                "{name}"
            );
        }
    }
}

/// `rest-gateway/clients/openapi.json` is the document the clients are generated from: it must be
/// the one served (`rest-gateway/clients/generate` writes it).
#[test]
fn the_client_libraries_are_generated_from_the_document_as_served() {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../rest-gateway/clients/openapi.json"
    );
    let committed: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(path).expect("clients/openapi.json"))
            .expect("clients/openapi.json is JSON");
    assert!(
        committed == rest_gateway::openapi(),
        "rest-gateway/clients/openapi.json is stale: run rest-gateway/clients/generate"
    );
}

/// `GET path`: the status, the headers and the body as text.
async fn fetch(app: &TestApp, path: &str) -> (u16, reqwest::header::HeaderMap, String) {
    let response = app
        .http
        .get(format!("{}{path}", app.base))
        .send()
        .await
        .expect("request sent");
    let status = response.status().as_u16();
    let headers = response.headers().clone();
    (status, headers, response.text().await.unwrap())
}

e2e!(
    docs_page_renders_the_document_with_assets_from_the_binary,
    |app| async move {
        let get = async |path: &str| {
            let (status, headers, body) = fetch(&app, path).await;
            let kind = headers
                .get("content-type")
                .map(|v| v.to_str().unwrap().to_string())
                .unwrap_or_default();
            (status, kind, body)
        };
        let (status, kind, page) = get("/docs/").await;
        assert_eq!(status, 200);
        assert!(kind.starts_with("text/html"), "{kind}");
        assert!(page.contains("swagger-ui"), "{page}");
        let (status, _, init) = get("/docs/swagger-initializer.js").await;
        assert_eq!(status, 200);
        assert!(init.contains("\"/openapi.json\""), "{init}");
        // Nothing is fetched from elsewhere: no absolute URL in the page or its configuration,
        // and no call to the public validator.
        for text in [&page, &init] {
            assert!(
                !text.contains("http://") && !text.contains("https://"),
                "{text}"
            );
        }
        assert!(init.contains("\"validatorUrl\": \"none\""), "{init}");
        for asset in ["/docs/swagger-ui-bundle.js", "/docs/swagger-ui.css"] {
            let (status, _, body) = get(asset).await;
            assert_eq!(status, 200, "{asset}");
            assert!(body.len() > 10_000, "{asset}");
        }
    }
);

e2e!(
    the_api_guide_is_served_from_the_binary_and_linked_from_docs_and_the_console,
    |app| async move {
        let get = async |path: &str| fetch(&app, path).await;
        let (status, headers, page) = get("/docs/guide").await;
        assert_eq!(status, 200);
        assert!(
            headers["content-type"]
                .to_str()
                .unwrap()
                .starts_with("text/html")
        );
        let csp = headers["content-security-policy"].to_str().unwrap();
        assert!(
            csp.contains("default-src 'none'") && !csp.contains("script-src"),
            "{csp}"
        );
        assert_eq!(headers["x-content-type-options"], "nosniff");
        // The gateway's manual, rendered: its sections, GitHub's anchors, the recipes.
        let manual = std::fs::read_to_string(
            std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../rest-gateway/README.md"),
        )
        .unwrap();
        assert!(manual.contains("\n## API guide\n"));
        for heading in [
            r#"<h2 id="api-guide">"#,
            r#"<h3 id="webhooks">"#,
            r#"<h3 id="events">"#,
            r#"<h3 id="behaviour-worth-knowing">"#,
        ] {
            assert!(page.contains(heading), "no {heading}");
        }
        assert!(page.contains("def verify(secret: str"), "the Python recipe");
        // Offline: nothing loaded from elsewhere, no script; other files' links are text.
        assert!(!page.contains("<script"));
        assert!(!page.contains("<img"));
        assert!(!page.contains("README.md\""));
        assert!(page.contains(r#"<link rel="stylesheet" href="/docs/guide/style.css">"#));
        let (status, headers, css) = get("/docs/guide/style.css").await;
        assert_eq!(status, 200);
        assert!(
            headers["content-type"]
                .to_str()
                .unwrap()
                .starts_with("text/css")
        );
        assert!(!css.contains("url("), "{css}");
        // Linked from the reference (the document's description and externalDocs) and the console.
        let (_, _, doc) = get("/openapi.json").await;
        let doc: serde_json::Value = serde_json::from_str(&doc).unwrap();
        assert_eq!(doc["externalDocs"]["url"], "/docs/guide");
        assert!(
            doc["info"]["description"]
                .as_str()
                .unwrap()
                .contains("(/docs/guide)")
        );
        let (_, _, console) = get("/console/").await;
        assert!(console.contains(r#"<a href="/docs/guide">API guide</a>"#));
    }
);
