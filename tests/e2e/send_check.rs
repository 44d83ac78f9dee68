//! The send check end to end: for every refusal of every send path (the three idempotency
//! codes aside) the check and the send answer the same status, code, `detail` and
//! `Retry-After`; a check that passes answers `{"would_send": true}`, stores nothing, spends no
//! limit and ignores the Idempotency-Key.

use serde_json::{Value, json};

use crate::e2e;
use crate::fixtures::{
    ALL_SCOPES, Business, counts, follower, live_business, send_service, send_v1, sends_per_second,
    settled,
};
use crate::harness::{Reply, TestApp, eventually, into_reply};

const BIZ: &str = "+14155550100";
const OTHER: &str = "+14155550101";
const SANDBOX: &str = "+14155550102";
const SUSPENDED: &str = "+14155550103";
const FAN: &str = "+14155550200";
const STRANGER: &str = "+14155550201";
const NOBODY: &str = "+14155550999";
const MEMBER: &str = "+14155550300";

/// A send path: the send's path and the check's beside it.
#[derive(Clone, Copy, Debug)]
enum Path {
    Console,
    App,
    Service,
}

struct Row<'a> {
    what: &'static str,
    path: Path,
    /// The business named in the path (its id, or its number for the service path).
    business: &'a Business,
    token: &'a str,
    body: Body,
    code: &'static str,
}

enum Body {
    Json(Value),
    Raw(&'static str),
}

fn paths(path: Path, business: &Business) -> (String, String) {
    let send = match path {
        Path::Console => "/business/messages".to_string(),
        Path::App => format!("/v1/{}/messages", business.id),
        Path::Service => format!("/v1/service/{}/messages", business.phone),
    };
    let check = format!("{send}/check");
    (send, check)
}

async fn post(app: &TestApp, path: &str, token: &str, body: &Body, key: Option<&str>) -> Reply {
    let mut request = app
        .http
        .post(format!("{}{path}", app.base))
        .header("authorization", format!("Bearer {token}"));
    if let Some(key) = key {
        request = request.header("idempotency-key", key);
    }
    request = match body {
        Body::Json(value) => request.json(value),
        Body::Raw(raw) => request
            .header("content-type", "application/json")
            .body(*raw),
    };
    into_reply(request.send().await.expect("request sent")).await
}

/// The check's answer and the send's, compared field by field.
async fn same_answer(app: &TestApp, row: &Row<'_>) {
    let (send, check) = paths(row.path, row.business);
    let checked = post(app, &check, row.token, &row.body, None).await;
    let sent = post(app, &send, row.token, &row.body, None).await;
    let what = format!("{} ({:?})", row.what, row.path);
    assert_eq!(
        sent.message(),
        row.code,
        "{what}: the send answered {:?}",
        sent.body
    );
    assert_eq!(checked.status, sent.status, "{what}: {:?}", checked.body);
    assert_eq!(checked.message(), sent.message(), "{what}");
    assert_eq!(checked.body["detail"], sent.body["detail"], "{what}");
    assert!(checked.body["data"].is_null(), "{what}");
    assert_eq!(
        checked.headers.get("retry-after"),
        sent.headers.get("retry-after"),
        "{what}"
    );
}

/// The table's codes per path, with the two below (the service minute and the send budget),
/// are every refusal the document gives each check (the server's own failures aside).
async fn walks_every_documented_refusal(app: &TestApp, rows: &[Row<'_>]) {
    let doc = app.get("/openapi.json", None).await.body;
    for (path, documented_path) in [
        (Path::Console, "/business/messages/check"),
        (Path::App, "/v1/{businessAccountId}/messages/check"),
        (Path::Service, "/v1/service/{phoneNumber}/messages/check"),
    ] {
        let op = &doc["paths"][documented_path]["post"];
        let mut documented: Vec<String> = op["responses"]
            .as_object()
            .unwrap()
            .values()
            .flat_map(|r| r["x-error-codes"].as_array().cloned().unwrap_or_default())
            .map(|c| c.as_str().unwrap().to_string())
            .filter(|c| c != "internal_error" && c != "service_unavailable")
            .collect();
        documented.sort();
        let mut walked: Vec<String> = rows
            .iter()
            .filter(|r| std::mem::discriminant(&r.path) == std::mem::discriminant(&path))
            .map(|r| r.code.to_string())
            .chain(["business_send_rate_limited".to_string()])
            .collect();
        walked.sort();
        walked.dedup();
        assert_eq!(walked, documented, "{path:?}");
    }
}

fn to(phone: &str, category: &str) -> Value {
    match category {
        "authentication" => json!({ "to": phone, "category": category,
            "message_content": { "code": "123456" } }),
        "marketing" => json!({ "to": phone, "category": category, "body": "20% off" }),
        _ => json!({ "to": phone, "category": category, "body": "Your order shipped" }),
    }
}

fn service(phone: &str) -> Value {
    json!({ "to": phone, "body": "Hello" })
}

e2e!(
    the_send_check_answers_every_refusal_exactly_as_the_send,
    sends_per_second(4),
    |app| async move {
        let biz = live_business(&app, BIZ, ALL_SCOPES).await;
        let other = live_business(&app, OTHER, &["utility"]).await;
        let sandbox = live_business(&app, SANDBOX, &["utility", "service"]).await;
        app.set_business(&sandbox.id, Some("sandbox"), None).await;
        let suspended = live_business(&app, SUSPENDED, &["utility", "service"]).await;
        app.set_business(&suspended.id, None, Some("suspended"))
            .await;
        follower(&app, &biz, FAN, false).await;
        let (_, stranger) = app.user(STRANGER).await;
        let (_, member) = app.user(MEMBER).await;
        crate::fixtures::add_member(&app, &biz.owner_token, MEMBER, "member").await;
        app.set_user_status(MEMBER, "suspended").await;
        let big = Body::Json(json!({ "to": FAN, "category": "utility",
            "body": "x".repeat(70 * 1024) }));
        let (console, app_path, service_path) = (Path::Console, Path::App, Path::Service);
        let owner = biz.owner_token.as_str();
        let token = biz.app_token.as_str();
        let far = (chrono::Utc::now() + chrono::Duration::days(40)).to_rfc3339();
        let mut with_far = to(FAN, "utility");
        with_far["send_at"] = json!(far);
        let mut expired = to(FAN, "utility");
        expired["expires_at"] = json!("2020-01-01T00:00:00Z");
        let mut service_far = service(FAN);
        service_far["send_at"] = json!(far);
        for name in ["shipped", "old"] {
            app.post(
                "/business/templates",
                Some(owner),
                json!({ "name": name, "category": "utility",
                    "variables": { "order": { "max_length": 5 } },
                    "variants": { "en": { "body": "Order {{order}} shipped" } },
                    "default_locale": "en" }),
            )
            .await
            .assert_ok(201);
        }
        let old = app.get("/business/templates", Some(owner)).await.data()["templates"][0]["id"]
            .as_str()
            .unwrap()
            .to_string();
        app.post(
            &format!("/business/templates/{old}/archive"),
            Some(owner),
            json!({}),
        )
        .await
        .assert_ok(200);
        let templated = |category: &str, name: &str, variables: Value| {
            json!({ "to": FAN, "category": category,
                "template": { "name": name, "variables": variables } })
        };

        let mut rows = Vec::new();
        for (path, token) in [(console, owner), (app_path, token)] {
            let shared = [
                (
                    "an unknown category",
                    to(FAN, "nope"),
                    "invalid_message_category",
                ),
                (
                    "a bad number",
                    to("12ab", "utility"),
                    "invalid_phone_number",
                ),
                (
                    "no body",
                    json!({ "to": FAN, "category": "utility" }),
                    "message_body_required",
                ),
                (
                    "bad content",
                    json!({ "to": FAN, "category": "marketing",
                        "message_content": { "buttons": "x" } }),
                    "invalid_message_content",
                ),
                ("no such user", to(NOBODY, "utility"), "recipient_not_found"),
                (
                    "not a follower",
                    to(STRANGER, "utility"),
                    "business_follow_required",
                ),
                (
                    "no marketing consent",
                    to(FAN, "marketing"),
                    "marketing_opt_in_required",
                ),
                ("send_at too far", with_far.clone(), "invalid_request"),
                ("expired", expired.clone(), "invalid_request"),
                ("not an object", json!([1]), "invalid_request"),
                (
                    "an unknown template",
                    templated("utility", "nope", json!({})),
                    "template_not_found",
                ),
                (
                    "an archived template",
                    templated("utility", "old", json!({ "order": "A1" })),
                    "template_archived",
                ),
                (
                    "a template of another category",
                    templated("marketing", "shipped", json!({ "order": "A1" })),
                    "template_category_mismatch",
                ),
                (
                    "a variable left out",
                    templated("utility", "shipped", json!({})),
                    "template_variable_missing",
                ),
                (
                    "a variable the template lacks",
                    templated("utility", "shipped", json!({ "order": "A1", "x": "y" })),
                    "template_variable_unknown",
                ),
                (
                    "a value over max_length",
                    templated("utility", "shipped", json!({ "order": "A12345" })),
                    "template_variable_invalid",
                ),
            ];
            for (what, body, code) in shared {
                rows.push(Row {
                    what,
                    path,
                    business: &biz,
                    token,
                    body: Body::Json(body),
                    code,
                });
            }
            rows.push(Row {
                what: "malformed JSON",
                path,
                business: &biz,
                token,
                body: Body::Raw("{\"to\": "),
                code: "malformed_json",
            });
        }
        rows.push(Row {
            what: "authentication from the console",
            path: console,
            business: &biz,
            token: owner,
            body: Body::Json(to(FAN, "authentication")),
            code: "authentication_reserved",
        });
        rows.push(Row {
            what: "a sandbox business",
            path: console,
            business: &sandbox,
            token: &sandbox.owner_token,
            body: Body::Json(to(FAN, "utility")),
            code: "live_business_required",
        });
        rows.push(Row {
            what: "a suspended business",
            path: console,
            business: &suspended,
            token: &suspended.owner_token,
            body: Body::Json(to(FAN, "utility")),
            code: "business_suspended",
        });
        rows.push(Row {
            what: "a user without a business",
            path: console,
            business: &biz,
            token: &stranger,
            body: Body::Json(to(FAN, "utility")),
            code: "not_a_business_account",
        });
        rows.push(Row {
            what: "a suspended member",
            path: console,
            business: &biz,
            token: &member,
            body: Body::Json(to(FAN, "utility")),
            code: "account_suspended",
        });
        rows.push(Row {
            what: "no token",
            path: console,
            business: &biz,
            token: "nope",
            body: Body::Json(to(FAN, "utility")),
            code: "unauthorized",
        });
        for path in [console, app_path, service_path] {
            let token = if matches!(path, Path::Console) {
                owner
            } else {
                token
            };
            rows.push(Row {
                what: "a body over the size limit",
                path,
                business: &biz,
                token,
                body: match &big {
                    Body::Json(v) => Body::Json(v.clone()),
                    Body::Raw(r) => Body::Raw(r),
                },
                code: "payload_too_large",
            });
        }
        let not_an_id = Business {
            id: "not-an-id".to_string(),
            phone: biz.phone.clone(),
            owner_token: biz.owner_token.clone(),
            app_id: biz.app_id.clone(),
            app_token: biz.app_token.clone(),
        };
        rows.push(Row {
            what: "a path that is not a business id",
            path: app_path,
            business: &not_an_id,
            token,
            body: Body::Json(to(FAN, "utility")),
            code: "not_found",
        });
        rows.push(Row {
            what: "malformed JSON",
            path: service_path,
            business: &biz,
            token,
            body: Body::Raw("{\"to\": "),
            code: "malformed_json",
        });
        for path in [app_path, service_path] {
            let body = match path {
                Path::Service => service(FAN),
                _ => to(FAN, "utility"),
            };
            rows.push(Row {
                what: "a bad app token",
                path,
                business: &biz,
                token: "sva_nope",
                body: Body::Json(body.clone()),
                code: "invalid_app_token",
            });
            rows.push(Row {
                what: "another business's path",
                path,
                business: &other,
                token,
                body: Body::Json(body.clone()),
                code: "app_business_mismatch",
            });
            rows.push(Row {
                what: "a sandbox business",
                path,
                business: &sandbox,
                token: &sandbox.app_token,
                body: Body::Json(body.clone()),
                code: "live_business_required",
            });
            rows.push(Row {
                what: "a suspended business",
                path,
                business: &suspended,
                token: &suspended.app_token,
                body: Body::Json(body.clone()),
                code: "business_suspended",
            });
        }
        rows.push(Row {
            what: "a missing scope",
            path: app_path,
            business: &other,
            token: &other.app_token,
            body: Body::Json(to(FAN, "marketing")),
            code: "app_scope_required",
        });
        rows.push(Row {
            what: "a missing scope",
            path: service_path,
            business: &other,
            token: &other.app_token,
            body: Body::Json(service(FAN)),
            code: "app_scope_required",
        });
        for (what, body, code) in [
            ("a bad number", service("12ab"), "invalid_phone_number"),
            ("no body", json!({ "to": FAN }), "message_body_required"),
            ("no such user", service(NOBODY), "recipient_not_found"),
            (
                "not a follower",
                service(STRANGER),
                "business_follow_required",
            ),
            ("send_at too far", service_far, "invalid_request"),
        ] {
            rows.push(Row {
                what,
                path: service_path,
                business: &biz,
                token,
                body: Body::Json(body),
                code,
            });
        }
        let before = counts(&app).await;
        for row in &rows {
            same_answer(&app, row).await;
        }
        walks_every_documented_refusal(&app, &rows).await;
        assert_eq!(counts(&app).await, before, "a refusal stored something");

        // The service minute: one service message, then the next is refused by both.
        send_service(&app, &biz, service(FAN), None)
            .await
            .assert_ok(200);
        same_answer(
            &app,
            &Row {
                what: "the service minute",
                path: service_path,
                business: &biz,
                token,
                body: Body::Json(service(FAN)),
                code: "business_send_rate_limited",
            },
        )
        .await;
        // The business send budget (4 a second, the clock standing still): spent by sends,
        // then refused by both with the same wait.
        for _ in 0..3 {
            send_v1(&app, &biz, to(FAN, "utility"), None)
                .await
                .assert_ok(200);
        }
        for path in [console, app_path] {
            let token = if matches!(path, Path::Console) {
                owner
            } else {
                token
            };
            same_answer(
                &app,
                &Row {
                    what: "the send budget",
                    path,
                    business: &biz,
                    token,
                    body: Body::Json(to(FAN, "utility")),
                    code: "business_send_rate_limited",
                },
            )
            .await;
        }
    }
);

e2e!(
    a_passing_check_stores_nothing_spends_no_limit_and_ignores_the_key,
    sends_per_second(2),
    |app| async move {
        let biz = live_business(&app, BIZ, &["authentication", "utility", "service"]).await;
        follower(&app, &biz, FAN, false).await;
        let before = counts(&app).await;
        let checks: [(Path, &str, Value); 4] = [
            (Path::Console, &biz.owner_token, to(FAN, "utility")),
            (Path::App, &biz.app_token, to(FAN, "utility")),
            (Path::App, &biz.app_token, to(FAN, "authentication")),
            (Path::Service, &biz.app_token, service(FAN)),
        ];
        // Many more checks than the budget holds, each with a key that would be refused on a
        // send (malformed) or that another body already holds: all pass.
        let sent = send_v1(&app, &biz, to(FAN, "utility"), Some("used-key")).await;
        sent.assert_ok(200);
        let id = sent.data()["id"].as_str().unwrap().to_string();
        settled(&app, &biz.owner_token, &id).await;
        let after_send = eventually("the outcome's event recorded", async || {
            let now = counts(&app).await;
            (now["events"] == 2 && now["inbox_messages"] == 1).then_some(now)
        })
        .await;
        for _ in 0..3 {
            for (path, token, body) in &checks {
                let (_, check) = paths(*path, &biz);
                for key in [None, Some("used-key"), Some("not a valid key")] {
                    let reply = post(&app, &check, token, &Body::Json(body.clone()), key).await;
                    reply.assert_ok(200);
                    assert_eq!(*reply.data(), json!({ "would_send": true }));
                    assert_eq!(reply.message(), "ok");
                }
            }
        }
        assert_eq!(counts(&app).await, after_send, "a check stored something");
        assert_ne!(after_send, before);
        // Neither the service minute nor the budget was spent: a service send passes (the
        // second unit of two a second), then the check refuses as the send does.
        send_service(&app, &biz, service(FAN), None)
            .await
            .assert_ok(200);
        let (_, check) = paths(Path::App, &biz);
        let body = Body::Json(to(FAN, "utility"));
        let refused = post(&app, &check, &biz.app_token, &body, None).await;
        refused.assert_error(429, "business_send_rate_limited");
        send_v1(&app, &biz, to(FAN, "utility"), None)
            .await
            .assert_error(429, "business_send_rate_limited");
    }
);
