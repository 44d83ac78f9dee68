//! Templates (SPEC-MATRIX, fourth round; DESIGN "Templates"): every check at creation naming
//! the variant and the variable, immutable versions with a fixed name and category, archiving,
//! `render`, and sends naming a template on every single-send path (console, `/v1`, scheduled,
//! conversation category messages, the checks) with the locale lookup, the idempotency replay
//! before the template's checks, and the rendered content in history and at the provider.

use core_service::clock::Clock;
use serde_json::{Value, json};

use crate::e2e;
use crate::fixtures::{
    ALL_SCOPES, Business, add_member, follower, live_business, post_keyed, send_console, send_v1,
    settled,
};
use crate::harness::{Backend, Reply, TestApp};

const BIZ: &str = "+14155550100";
const FAN: &str = "+14155550200";

/// The shipping notice: one variable, English and Portuguese.
fn shipped() -> Value {
    json!({
        "name": "order_shipped",
        "category": "utility",
        "variables": { "order_id": { "max_length": 12 } },
        "variants": {
            "en": { "body": "Order {{order_id}} has shipped." },
            "pt": { "body": "O pedido {{order_id}} foi enviado." },
        },
        "default_locale": "en",
    })
}

async fn create(app: &TestApp, token: &str, body: Value) -> Reply {
    app.post("/business/templates", Some(token), body).await
}

async fn created(app: &TestApp, biz: &Business, body: Value) -> Value {
    let reply = create(app, &biz.owner_token, body).await;
    reply.assert_ok(201);
    reply.data().clone()
}

/// Archives `template` (as created) of `biz`.
async fn archive(app: &TestApp, biz: &Business, template: &Value) {
    let id = template["id"].as_str().unwrap();
    app.post(
        &format!("/business/templates/{id}/archive"),
        Some(&biz.owner_token),
        json!({}),
    )
    .await
    .assert_ok(200);
}

/// A templated utility send body to `to`.
fn templated(to: &str, template: Value) -> Value {
    json!({ "to": to, "category": "utility", "template": template })
}

fn order(id: &str) -> Value {
    json!({ "name": "order_shipped", "variables": { "order_id": id } })
}

/// Sends `body` by app token and returns the accepted message's history record.
async fn sent_record(app: &TestApp, biz: &Business, body: Value) -> Value {
    let reply = send_v1(app, biz, body, None).await;
    reply.assert_ok(200);
    let id = reply.data()["id"].as_str().unwrap();
    let one = app
        .get(&format!("/business/messages/{id}"), Some(&biz.owner_token))
        .await;
    one.assert_ok(200);
    one.data().clone()
}

fn assert_detail(reply: &Reply, status: u16, code: &str, parts: &[&str]) {
    reply.assert_error(status, code);
    let detail = reply.body["detail"].as_str().unwrap_or_default();
    for part in parts {
        assert!(detail.contains(part), "{code}: {detail:?} names {part}");
    }
}

e2e!(
    post_business_templates_checks_every_variant_and_names_what_is_wrong,
    |app| async move {
        let biz = live_business(&app, BIZ, ALL_SCOPES).await;
        let with = |change: &dyn Fn(&mut Value)| {
            let mut body = shipped();
            change(&mut body);
            body
        };
        let cases: Vec<(Value, &str, Vec<&str>)> = vec![
            (
                with(&|b| b["variants"]["pt"]["body"] = json!("O pedido {{order}} foi enviado.")),
                "invalid_request",
                vec!["variants.pt.body", "{{order}}"],
            ),
            (
                with(&|b| b["variants"]["pt"]["body"] = json!("Enviado.")),
                "invalid_request",
                vec!["variants.pt", "order_id"],
            ),
            (
                with(&|b| {
                    b["variables"]["order_id"]["max_length"] = json!(1000);
                    b["variants"]["en"]["body"] =
                        json!(format!("{}{{{{order_id}}}}", "x".repeat(3100)));
                }),
                "invalid_request",
                vec!["variants.en.body", "4096"],
            ),
            (
                with(&|b| b["variables"]["order_id"] = json!({})),
                "invalid_request",
                vec!["variables.order_id.max_length"],
            ),
            (
                with(&|b| b["name"] = json!("Order Shipped")),
                "invalid_request",
                vec!["name"],
            ),
            (
                with(&|b| b["default_locale"] = json!("fr")),
                "invalid_request",
                vec!["default_locale", "fr"],
            ),
            (
                with(&|b| b["variants"]["en"]["body"] = json!("Order {{ order_id }}")),
                "invalid_request",
                vec!["variants.en.body"],
            ),
            (
                with(&|b| b["variants"]["en_US"] = json!({ "body": "{{order_id}}" })),
                "invalid_request",
                vec!["variants.en_US"],
            ),
            (
                with(&|b| b["category"] = json!("authentication")),
                "invalid_message_category",
                vec![],
            ),
            (
                with(&|b| b["category"] = json!("service")),
                "invalid_message_category",
                vec![],
            ),
            (
                with(&|b| {
                    b["variants"]["en"] = json!({ "message_content": { "text": "{{order_id}}" } })
                }),
                "invalid_request",
                vec!["variants.en"],
            ),
        ];
        for (body, code, parts) in cases {
            let reply = create(&app, &biz.owner_token, body.clone()).await;
            assert_detail(&reply, 400, code, &parts);
        }
        // Canonical locales, the answer's shape.
        let mut body = shipped();
        body["variants"] = json!({
            "en": { "body": "Order {{order_id}} has shipped." },
            "pt-br": { "body": "O pedido {{order_id}} foi enviado." },
        });
        body["default_locale"] = json!("EN");
        let template = created(&app, &biz, body).await;
        assert_eq!(template["version"], 1);
        assert_eq!(template["status"], "active");
        assert_eq!(template["category"], "utility");
        assert_eq!(template["default_locale"], "en");
        assert_eq!(
            template["variables"],
            json!({ "order_id": { "max_length": 12 } })
        );
        assert!(
            template["variants"]["pt-BR"]["body"].is_string(),
            "{template}"
        );
        // The name is taken for ever, archived or not.
        assert_detail(
            &create(&app, &biz.owner_token, shipped()).await,
            409,
            "template_name_taken",
            &["order_shipped"],
        );
        archive(&app, &biz, &template).await;
        create(&app, &biz.owner_token, shipped())
            .await
            .assert_error(409, "template_name_taken");
        // Members read but do not write.
        let (_, member) = app.user("+14155550300").await;
        add_member(&app, &biz.owner_token, "+14155550300", "member").await;
        let mut other = shipped();
        other["name"] = json!("other");
        create(&app, &member, other)
            .await
            .assert_error(403, "insufficient_role");
        let id = template["id"].as_str().unwrap();
        app.get(&format!("/business/templates/{id}"), Some(&member))
            .await
            .assert_ok(200);
    }
);

e2e!(
    patch_business_templates_makes_a_new_version_and_never_changes_an_old_one,
    |app| async move {
        let biz = live_business(&app, BIZ, ALL_SCOPES).await;
        let template = created(&app, &biz, shipped()).await;
        let id = template["id"].as_str().unwrap().to_string();
        let path = format!("/business/templates/{id}");
        let patch = |body: Value| app.patch(&path, Some(&biz.owner_token), body);
        let v2 = patch(json!({ "variants": {
            "en": { "body": "Your order {{order_id}} is on its way." },
        }, "default_locale": "en" }))
        .await;
        v2.assert_ok(200);
        assert_eq!(v2.data()["version"], 2);
        assert_eq!(v2.data()["variables"], template["variables"]);
        assert!(v2.data()["variants"]["pt"].is_null());
        // Always a new version, even unchanged.
        let v3 = patch(json!({})).await;
        v3.assert_ok(200);
        assert_eq!(v3.data()["version"], 3);
        assert_eq!(v3.data()["variants"], v2.data()["variants"]);
        // Earlier versions read as they were made.
        let v1 = app
            .get(&format!("{path}?version=1"), Some(&biz.owner_token))
            .await;
        v1.assert_ok(200);
        assert_eq!(v1.data()["variants"], template["variants"]);
        assert_eq!(v1.data()["version"], 1);
        let newest = app.get(&path, Some(&biz.owner_token)).await;
        assert_eq!(newest.data()["version"], 3);
        app.get(&format!("{path}?version=4"), Some(&biz.owner_token))
            .await
            .assert_error(404, "template_not_found");
        // Name and category never change; a new version is checked as a creation is.
        for body in [
            json!({ "name": "renamed" }),
            json!({ "category": "marketing" }),
        ] {
            patch(body).await.assert_error(400, "invalid_request");
        }
        assert_detail(
            &patch(json!({ "variables": { "order_id": { "max_length": 12 }, "eta": { "max_length": 5 } } })).await,
            400,
            "invalid_request",
            &["variants.en", "eta"],
        );
        // The list: newest version of each, active unless asked.
        let list = app.get("/business/templates", Some(&biz.owner_token)).await;
        list.assert_ok(200);
        assert_eq!(list.data()["templates"][0]["version"], 3);
        assert_eq!(list.data()["has_more"], false);
        // Archived: refused on PATCH, the same answer when archived again.
        let archive = format!("{path}/archive");
        let first = app.post(&archive, Some(&biz.owner_token), json!({})).await;
        first.assert_ok(200);
        assert_eq!(first.data()["status"], "archived");
        let again = app.post(&archive, Some(&biz.owner_token), json!({})).await;
        assert_eq!(again.data(), first.data());
        patch(json!({}))
            .await
            .assert_error(409, "template_archived");
        let active = app.get("/business/templates", Some(&biz.owner_token)).await;
        assert_eq!(active.data()["templates"], json!([]));
        let archived = app
            .get(
                "/business/templates?status=archived",
                Some(&biz.owner_token),
            )
            .await;
        assert_eq!(archived.data()["templates"][0]["id"], id.as_str());
        app.get("/business/templates?status=gone", Some(&biz.owner_token))
            .await
            .assert_error(400, "invalid_request");
        // Another business's template is not found.
        let other = live_business(&app, "+14155550101", ALL_SCOPES).await;
        app.get(&path, Some(&other.owner_token))
            .await
            .assert_error(404, "template_not_found");
    }
);

e2e!(
    a_templated_send_renders_for_its_recipient_on_every_single_send_path,
    |app| async move {
        let biz = live_business(&app, BIZ, ALL_SCOPES).await;
        created(&app, &biz, shipped()).await;
        follower(&app, &biz, FAN, false).await;

        // /v1: the default locale; what was sent is in the message read and the history.
        let record = sent_record(&app, &biz, templated(FAN, order("A-1042"))).await;
        assert_eq!(record["body"], "Order A-1042 has shipped.");
        assert_eq!(record["template"]["name"], "order_shipped");
        assert_eq!(record["template"]["version"], 1);
        assert_eq!(record["template"]["locale"], "en");
        let id = record["id"].as_str().unwrap();
        let settled = settled(&app, &biz.owner_token, id).await;
        assert_eq!(settled["body"], "Order A-1042 has shipped.");
        assert_eq!(settled["template"], record["template"]);

        // Console: an explicit locale, by lookup (pt-BR finds pt).
        let mut pt = order("B-7");
        pt["locale"] = json!("pt-BR");
        let reply = send_console(&app, &biz.owner_token, templated(FAN, pt.clone()), None).await;
        reply.assert_ok(200);
        let id = reply.data()["id"].as_str().unwrap();
        let one = app
            .get(&format!("/business/messages/{id}"), Some(&biz.owner_token))
            .await;
        assert_eq!(one.data()["body"], "O pedido B-7 foi enviado.");
        assert_eq!(one.data()["template"]["locale"], "pt");
        assert_eq!(one.data()["source"], "console");

        // Scheduled: rendered at accept, kept as rendered.
        let mut later = templated(FAN, order("C-1"));
        later["send_at"] = json!(
            (app.clock.now() + chrono::TimeDelta::hours(1))
                .to_rfc3339_opts(chrono::SecondsFormat::Secs, true)
        );
        let record = sent_record(&app, &biz, later).await;
        assert_eq!(record["status"], "scheduled");
        assert_eq!(record["body"], "Order C-1 has shipped.");

        // The checks answer as the sends.
        let check = app
            .post(
                &format!("/v1/{}/messages/check", biz.id),
                Some(&biz.app_token),
                templated(FAN, order("D-1")),
            )
            .await;
        check.assert_ok(200);
        assert_eq!(check.data()["would_send"], true);
        let check = app
            .post(
                "/business/messages/check",
                Some(&biz.owner_token),
                templated(FAN, json!({ "name": "order_shipped", "variables": {} })),
            )
            .await;
        check.assert_error(400, "template_variable_missing");

        // A template with body or message_content; an explicit locale without a variant.
        let mut both = templated(FAN, order("E-1"));
        both["body"] = json!("and text");
        send_v1(&app, &biz, both, None)
            .await
            .assert_error(400, "invalid_message_content");
        let mut fr = order("E-2");
        fr["locale"] = json!("fr-FR");
        assert_detail(
            &send_v1(&app, &biz, templated(FAN, fr), None).await,
            400,
            "invalid_request",
            &["template.locale"],
        );

        // Each refusal names the variable; the category must be the template's.
        let cases = [
            (
                json!({ "order_id": "F-1", "eta": "1d" }),
                "template_variable_unknown",
                "eta",
            ),
            (
                json!({ "order_id": "F-1234567890123" }),
                "template_variable_invalid",
                "order_id",
            ),
            (
                json!({ "order_id": "   " }),
                "template_variable_invalid",
                "order_id",
            ),
            (
                json!({ "order_id": 42 }),
                "template_variable_invalid",
                "order_id",
            ),
        ];
        for (variables, code, variable) in cases {
            let template = json!({ "name": "order_shipped", "variables": variables });
            assert_detail(
                &send_v1(&app, &biz, templated(FAN, template), None).await,
                400,
                code,
                &[variable],
            );
        }
        let mut marketing = templated(FAN, order("G-1"));
        marketing["category"] = json!("marketing");
        send_v1(&app, &biz, marketing, None)
            .await
            .assert_error(400, "template_category_mismatch");
        send_v1(
            &app,
            &biz,
            templated(FAN, json!({ "name": "order_shiped", "variables": {} })),
            None,
        )
        .await
        .assert_error(404, "template_not_found");
        send_v1(
            &app,
            &biz,
            templated(
                FAN,
                json!({ "name": "order_shipped", "version": 9, "variables": {} }),
            ),
            None,
        )
        .await
        .assert_error(404, "template_not_found");
    }
);

e2e!(
    the_variant_is_the_followers_own_language_else_the_default,
    |app| async move {
        let biz = live_business(&app, BIZ, ALL_SCOPES).await;
        created(&app, &biz, shipped()).await;
        let (_, fan) = follower(&app, &biz, FAN, false).await;
        let me = app
            .patch("/me", Some(&fan), json!({ "language": "pt-br" }))
            .await;
        me.assert_ok(200);
        assert_eq!(me.data()["language"], "pt-BR");
        app.patch("/me", Some(&fan), json!({ "language": "not a tag" }))
            .await
            .assert_error(400, "invalid_request");
        let record = sent_record(&app, &biz, templated(FAN, order("A-1"))).await;
        assert_eq!(record["template"]["locale"], "pt");
        assert_eq!(record["body"], "O pedido A-1 foi enviado.");
        // An explicit locale wins over the follower's.
        let mut en = order("A-2");
        en["locale"] = json!("en");
        let record = sent_record(&app, &biz, templated(FAN, en)).await;
        assert_eq!(record["template"]["locale"], "en");
        // A follower without a language, or with one the template lacks: the default.
        let (_, other) = follower(&app, &biz, "+14155550201", false).await;
        let record = sent_record(&app, &biz, templated("+14155550201", order("A-3"))).await;
        assert_eq!(record["template"]["locale"], "en");
        app.patch("/me", Some(&other), json!({ "language": "de" }))
            .await
            .assert_ok(200);
        let record = sent_record(&app, &biz, templated("+14155550201", order("A-4"))).await;
        assert_eq!(record["template"]["locale"], "en");
        // Cleared: the default again.
        let me = app
            .patch("/me", Some(&fan), json!({ "language": null }))
            .await;
        assert_eq!(me.data()["language"], Value::Null);
        let record = sent_record(&app, &biz, templated(FAN, order("A-5"))).await;
        assert_eq!(record["template"]["locale"], "en");
        // A user who does not follow is refused as before, whatever their language.
        let (_, stranger) = app.user("+14155550202").await;
        app.patch("/me", Some(&stranger), json!({ "language": "pt" }))
            .await
            .assert_ok(200);
        send_v1(&app, &biz, templated("+14155550202", order("A-6")), None)
            .await
            .assert_error(403, "business_follow_required");
    }
);

e2e!(
    a_replay_answers_the_original_even_after_the_template_is_archived,
    |app| async move {
        let biz = live_business(&app, BIZ, ALL_SCOPES).await;
        let template = created(&app, &biz, shipped()).await;
        follower(&app, &biz, FAN, false).await;
        let send = |variables: &str, key: &'static str| {
            let body = templated(FAN, order(variables));
            let app = &app;
            let biz = &biz;
            async move { send_v1(app, biz, body, Some(key)).await }
        };
        let first = send("K-1", "key-1").await;
        first.assert_ok(200);
        let again = send("K-1", "key-1").await;
        again.assert_ok(200);
        assert_eq!(again.data()["id"], first.data()["id"]);
        send("K-2", "key-1")
            .await
            .assert_error(409, "idempotency_key_conflict");
        archive(&app, &biz, &template).await;
        let replay = send("K-1", "key-1").await;
        replay.assert_ok(200);
        assert_eq!(replay.data()["id"], first.data()["id"]);
        send("K-1", "key-2")
            .await
            .assert_error(409, "template_archived");
        // One message was made.
        let history = app.get("/business/messages", Some(&biz.owner_token)).await;
        assert_eq!(history.data()["messages"].as_array().unwrap().len(), 1);
    }
);

/// The kept-template counter (`send_templates_total{template="kept"}`), process-wide.
fn kept_templates() -> f64 {
    let text = proto::metrics::render();
    text.lines()
        .find(|l| l.starts_with("send_templates_total{") && l.contains("template=\"kept\""))
        .and_then(|l| l.rsplit(' ').next())
        .and_then(|v| v.parse().ok())
        .unwrap_or(0.0)
}

e2e!(
    a_new_language_a_new_version_and_an_archive_count_from_the_very_next_send,
    |app| async move {
        // Repeated sends of one app token to one follower are decided from what the core kept
        // (PostgreSQL): the template row and the recipient's language, which the write checks.
        let biz = live_business(&app, BIZ, ALL_SCOPES).await;
        let template = created(&app, &biz, shipped()).await;
        let (_, fan) = follower(&app, &biz, FAN, false).await;
        let kept_before = kept_templates();
        for id in ["N-1", "N-2", "N-3"] {
            let record = sent_record(&app, &biz, templated(FAN, order(id))).await;
            assert_eq!(record["body"], format!("Order {id} has shipped."));
            assert_eq!(record["template"]["version"], 1);
        }
        if sea_orm::ConnectionTrait::get_database_backend(&app.core.db)
            == sea_orm::DbBackend::Postgres
        {
            assert!(
                kept_templates() > kept_before,
                "the later sends use the kept row"
            );
        }
        app.patch("/me", Some(&fan), json!({ "language": "pt" }))
            .await
            .assert_ok(200);
        let record = sent_record(&app, &biz, templated(FAN, order("N-4"))).await;
        assert_eq!(record["body"], "O pedido N-4 foi enviado.");
        let id = template["id"].as_str().unwrap();
        app.patch(
            &format!("/business/templates/{id}"),
            Some(&biz.owner_token),
            json!({ "variants": { "en": { "body": "Changed {{order_id}}" } } }),
        )
        .await
        .assert_ok(200);
        for id in ["N-5", "N-6"] {
            let record = sent_record(&app, &biz, templated(FAN, order(id))).await;
            assert_eq!(record["body"], format!("Changed {id}"));
            assert_eq!(record["template"]["version"], 2);
        }
        // An earlier version named explicitly still renders as it was.
        let mut first = order("N-7");
        first["version"] = json!(1);
        let record = sent_record(&app, &biz, templated(FAN, first)).await;
        assert_eq!(record["body"], "O pedido N-7 foi enviado.");
        archive(&app, &biz, &template).await;
        send_v1(&app, &biz, templated(FAN, order("N-8")), None)
            .await
            .assert_error(409, "template_archived");
    }
);

e2e!(
    render_answers_what_a_send_renders_and_urls_carry_their_values_encoded,
    |app| async move {
        let biz = live_business(&app, BIZ, ALL_SCOPES).await;
        let offer = created(
            &app,
            &biz,
            json!({
                "name": "weekend_offer",
                "category": "marketing",
                "variables": { "name": { "max_length": 30 }, "code": { "max_length": 20 } },
                "variants": {
                    "en": { "message_content": {
                        "title": "For {{name}}",
                        "text": "Use {{code}} this weekend.",
                        "buttons": [{ "label": "Shop", "url": "https://shop.example/o?code={{code}}" }],
                    } },
                    "es": { "message_content": {
                        "text": "Usa {{code}} este fin de semana, {{name}}.",
                        "buttons": [{ "label": "Comprar", "url": "https://shop.example/o?code={{code}}" }],
                    } },
                },
                "default_locale": "en",
            }),
        )
        .await;
        let id = offer["id"].as_str().unwrap();
        let variables = json!({ "name": "Ana {{code}}", "code": "SAVE 10&more" });
        let render = app
            .post(
                &format!("/business/templates/{id}/render"),
                Some(&biz.owner_token),
                json!({ "variables": variables, "locale": "es-MX" }),
            )
            .await;
        render.assert_ok(200);
        assert_eq!(render.data()["locale"], "es");
        let content = render.data()["message_content"].clone();
        assert_eq!(
            content["text"],
            "Usa SAVE 10&more este fin de semana, Ana {{code}}."
        );
        assert_eq!(
            content["buttons"][0]["url"],
            "https://shop.example/o?code=SAVE%2010%26more"
        );
        app.post(
            &format!("/business/templates/{id}/render"),
            Some(&biz.owner_token),
            json!({ "variables": { "name": "Ana" } }),
        )
        .await
        .assert_error(400, "template_variable_missing");

        follower(&app, &biz, FAN, true).await;
        let send = json!({ "to": FAN, "category": "marketing", "template": {
            "name": "weekend_offer", "variables": variables, "locale": "es-MX",
        } });
        let record = sent_record(&app, &biz, send).await;
        assert_eq!(record["message_content"], content);
        assert_eq!(record["template"]["locale"], "es");
    }
);

e2e!(
    a_conversation_category_message_may_be_a_template,
    |app| async move {
        let (biz, _, _, conversation) = crate::conversations::started(&app).await;
        created(&app, &biz, shipped()).await;
        let path = format!("/business/conversations/{conversation}/messages");
        let body = json!({ "category": "utility", "template": order("Z-9") });
        app.post(
            &format!("{path}/check"),
            Some(&biz.owner_token),
            body.clone(),
        )
        .await
        .assert_ok(200);
        let reply = post_keyed(&app, &path, &biz.owner_token, body, Some("c-1")).await;
        reply.assert_ok(200);
        let id = reply.data()["id"].as_str().unwrap();
        let one = app
            .get(&format!("/business/messages/{id}"), Some(&biz.owner_token))
            .await;
        assert_eq!(one.data()["body"], "Order Z-9 has shipped.");
        assert_eq!(one.data()["conversation_id"], conversation.as_str());
        assert_eq!(one.data()["template"]["name"], "order_shipped");
        // Free text goes alone.
        app.post(
            &path,
            Some(&biz.owner_token),
            json!({ "text": "hi", "template": order("Z-9") }),
        )
        .await
        .assert_error(400, "invalid_request");
    }
);

/// The provider is handed the rendered content.
async fn the_provider_gets_the_rendered_content(backend: Backend) {
    let Some((app, provider)) = crate::delivery_http::spawn(backend).await else {
        return;
    };
    let biz = live_business(&app, BIZ, ALL_SCOPES).await;
    created(&app, &biz, shipped()).await;
    follower(&app, &biz, FAN, false).await;
    let reply = send_v1(&app, &biz, templated(FAN, order("P-1")), None).await;
    reply.assert_ok(200);
    let id = reply.data()["id"].as_str().unwrap();
    assert_eq!(
        settled(&app, &biz.owner_token, id).await["status"],
        "delivered"
    );
    let received = provider.received.lock().unwrap();
    assert_eq!(received.len(), 1);
    assert_eq!(received[0]["message_id"], id);
    assert_eq!(received[0]["body"], "Order P-1 has shipped.");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_provider_gets_the_rendered_content_sqlite() {
    the_provider_gets_the_rendered_content(Backend::Sqlite).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_provider_gets_the_rendered_content_postgres() {
    the_provider_gets_the_rendered_content(Backend::Postgres).await;
}

e2e!(
    a_broadcast_renders_each_followers_own_variant_with_one_set_of_variables,
    |app| async move {
        use crate::fixtures::broadcasts::{completed, create, messages_of};
        let biz = live_business(&app, BIZ, ALL_SCOPES).await;
        let template = created(&app, &biz, shipped()).await;
        let (portuguese, pt_token) = follower(&app, &biz, FAN, false).await;
        app.patch("/me", Some(&pt_token), json!({ "language": "pt-PT" }))
            .await
            .assert_ok(200);
        let (plain, _) = follower(&app, &biz, "+14155550201", false).await;
        let (english, en_token) = follower(&app, &biz, "+14155550202", false).await;
        app.patch("/me", Some(&en_token), json!({ "language": "en-GB" }))
            .await
            .assert_ok(200);
        let body = json!({ "name": "Notices", "category": "utility", "template": order("B-1") });

        // Checked at creation, after the replay, like a send.
        let mut missing = body.clone();
        missing["template"]["variables"] = json!({});
        create(&app, &biz, missing, None)
            .await
            .assert_error(400, "template_variable_missing");
        let mut mismatch = body.clone();
        mismatch["category"] = json!("marketing");
        create(&app, &biz, mismatch, None)
            .await
            .assert_error(400, "template_category_mismatch");
        let mut both = body.clone();
        both["body"] = json!("text too");
        create(&app, &biz, both, None)
            .await
            .assert_error(400, "invalid_message_content");

        let first = create(&app, &biz, body.clone(), Some("b-1")).await;
        first.assert_ok(201);
        let broadcast = first.data().clone();
        assert_eq!(broadcast["body"], Value::Null);
        assert_eq!(broadcast["template"]["name"], "order_shipped");
        assert_eq!(broadcast["template"]["version"], 1);
        assert_eq!(
            broadcast["template"]["variables"],
            json!({ "order_id": "B-1" })
        );
        let id = broadcast["id"].as_str().unwrap();
        // A version made meanwhile changes nothing of it.
        app.patch(
            &format!("/business/templates/{}", template["id"].as_str().unwrap()),
            Some(&biz.owner_token),
            json!({ "variants": { "en": { "body": "Changed {{order_id}}" } } }),
        )
        .await
        .assert_ok(200);
        let done = completed(&app, &biz.owner_token, id).await;
        assert_eq!(done["counts"]["accepted"], 3, "{done}");
        let messages = messages_of(&app, id).await;
        let of = |user: &str| {
            messages
                .iter()
                .find(|m| m.recipient_user_id.to_string() == user)
                .unwrap()
                .clone()
        };
        let pt = of(&portuguese);
        assert_eq!(pt.body.as_deref(), Some("O pedido B-1 foi enviado."));
        let reference: Value = serde_json::from_str(pt.template.as_deref().unwrap()).unwrap();
        assert_eq!(reference["locale"], "pt");
        assert_eq!(reference["version"], 1);
        for user in [&plain, &english] {
            let m = of(user);
            assert_eq!(m.body.as_deref(), Some("Order B-1 has shipped."));
            let reference: Value = serde_json::from_str(m.template.as_deref().unwrap()).unwrap();
            assert_eq!(reference["locale"], "en");
        }

        // Archived: refused, but the replay answers the original.
        archive(&app, &biz, &template).await;
        let replay = create(&app, &biz, body.clone(), Some("b-1")).await;
        replay.assert_ok(201);
        assert_eq!(replay.data()["id"], id);
        create(&app, &biz, body, Some("b-2"))
            .await
            .assert_error(409, "template_archived");
    }
);
