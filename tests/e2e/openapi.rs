//! GET /openapi.json describes every route the gateway serves.

use crate::e2e;

/// The routes this service implements so far: each must be documented and served.
pub const ROUTES: &[(&str, &str)] = &[
    ("post", "/auth/business/otp/request"),
    ("post", "/auth/business/otp/verify"),
    ("post", "/auth/refresh"),
    ("post", "/auth/logout"),
    ("post", "/auth/qr/sessions"),
    ("get", "/auth/qr/sessions/{id}/preview"),
    ("get", "/auth/qr/sessions/{id}"),
    ("post", "/auth/qr/sessions/{id}/approve"),
    ("post", "/auth/qr/sessions/{id}/exchange"),
    ("get", "/business/me"),
    ("patch", "/business/me"),
    ("post", "/business/sandbox"),
    ("get", "/businesses/{businessAccountId}/follow"),
    ("put", "/businesses/{businessAccountId}/follow"),
    ("patch", "/businesses/{businessAccountId}/follow"),
    ("delete", "/businesses/{businessAccountId}/follow"),
    ("get", "/business/team"),
    ("post", "/business/team"),
    ("delete", "/business/team/{userId}"),
    ("get", "/business/apps"),
    ("post", "/business/apps"),
    ("post", "/business/apps/{appId}/rotate"),
    ("delete", "/business/apps/{appId}"),
    ("get", "/business/messages"),
    ("post", "/business/messages"),
    ("get", "/business/messages/{id}"),
    ("post", "/v1/{businessAccountId}/messages"),
    ("post", "/v1/service/{phoneNumber}/messages"),
    ("get", "/business/usage"),
    ("get", "/business/webhooks"),
    ("post", "/business/webhooks"),
    ("patch", "/business/webhooks/{id}"),
    ("delete", "/business/webhooks/{id}"),
    ("post", "/business/webhooks/{id}/test"),
    ("get", "/business/webhook-deliveries"),
    ("get", "/business/webhook-deliveries/{id}"),
    ("post", "/business/webhook-deliveries/{id}/retry"),
    ("post", "/business/webhooks/{id}/recover"),
    ("delete", "/me/grants/{client_id}"),
    ("get", "/healthz"),
    ("get", "/readyz"),
];

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
