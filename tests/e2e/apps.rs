//! /business/apps: create, list, rotate, delete (owner only), and what a token can do after.

use reqwest::Method;
use serde_json::json;

use crate::e2e;
use crate::fixtures::{ALL_SCOPES, add_member, live_business, send_v1};

e2e!(
    creating_an_app_shows_its_token_once_and_listing_never_does,
    |app| async move {
        let (_, owner) = app.business_owner("+14155550100").await;
        let created = app
            .post(
                "/business/apps",
                Some(&owner),
                json!({ "name": " server ", "scopes": ["utility", "service"] }),
            )
            .await;
        created.assert_ok(201);
        let data = created.data();
        assert_eq!(data["name"], "server");
        assert_eq!(data["scopes"], json!(["utility", "service"]));
        let token = data["token"].as_str().unwrap();
        assert!(token.starts_with("sva_"));
        // At least 160 random bits after the prefix (base64url: 6 bits a character).
        assert!((token.len() - 4) * 6 >= 160, "{token}");
        assert!(data["created_at"].is_string() && data["updated_at"].is_string());

        let list = app.get("/business/apps", Some(&owner)).await;
        list.assert_ok(200);
        let apps = list.data().as_array().unwrap();
        assert_eq!(apps.len(), 1);
        assert_eq!(apps[0]["id"], data["id"]);
        assert!(apps[0].get("token").is_none());
        assert!(!list.body.to_string().contains(token));
    }
);

e2e!(app_creation_validates_name_and_scopes, |app| async move {
    let (_, owner) = app.business_owner("+14155550100").await;
    let cases = [
        (
            json!({ "name": "", "scopes": ["utility"] }),
            "invalid_request",
        ),
        (
            json!({ "name": "x".repeat(101), "scopes": ["utility"] }),
            "invalid_request",
        ),
        (json!({ "name": "a", "scopes": [] }), "invalid_app_scopes"),
        (
            json!({ "name": "a", "scopes": ["utility", "utility"] }),
            "invalid_app_scopes",
        ),
        (
            json!({ "name": "a", "scopes": ["email"] }),
            "invalid_app_scopes",
        ),
        (json!({ "name": "a" }), "invalid_request"),
        (
            json!({ "name": "a", "scopes": "utility" }),
            "invalid_request",
        ),
    ];
    for (body, code) in cases {
        let reply = app.post("/business/apps", Some(&owner), body.clone()).await;
        assert_eq!((reply.status, reply.message()), (400, code), "{body}");
    }
    app.post(
        "/business/apps",
        Some(&owner),
        json!({ "name": "x".repeat(100), "scopes": ALL_SCOPES }),
    )
    .await
    .assert_ok(201);
});

e2e!(apps_are_owner_only, |app| async move {
    let (_, owner) = app.business_owner("+14155550100").await;
    let (_, admin) = app.user("+14155550101").await;
    add_member(&app, &owner, "+14155550101", "admin").await;
    let created = app
        .post(
            "/business/apps",
            Some(&owner),
            json!({ "name": "a", "scopes": ["utility"] }),
        )
        .await;
    let id = created.data()["id"].as_str().unwrap().to_string();
    app.get("/business/apps", Some(&admin))
        .await
        .assert_error(403, "owner_required");
    app.post(
        "/business/apps",
        Some(&admin),
        json!({ "name": "a", "scopes": ["utility"] }),
    )
    .await
    .assert_error(403, "owner_required");
    app.post(
        &format!("/business/apps/{id}/rotate"),
        Some(&admin),
        json!({}),
    )
    .await
    .assert_error(403, "owner_required");
    app.request(
        Method::DELETE,
        &format!("/business/apps/{id}"),
        Some(&admin),
        None,
    )
    .await
    .assert_error(403, "owner_required");
});

e2e!(
    rotation_and_deletion_take_effect_on_the_very_next_request,
    |app| async move {
        let biz = live_business(&app, "+14155550100", ALL_SCOPES).await;
        let (_, _) = crate::fixtures::follower(&app, &biz, "+14155550200", false).await;
        let body = json!({ "to": "+14155550200", "category": "utility", "body": "hi" });
        send_v1(&app, &biz, body.clone(), None).await.assert_ok(200);

        let rotated = app
            .post(
                &format!("/business/apps/{}/rotate", biz.app_id),
                Some(&biz.owner_token),
                json!({}),
            )
            .await;
        rotated.assert_ok(200);
        assert_eq!(rotated.data()["id"], biz.app_id.as_str());
        let new_token = rotated.data()["token"].as_str().unwrap().to_string();
        assert_ne!(new_token, biz.app_token);
        send_v1(&app, &biz, body.clone(), None)
            .await
            .assert_error(401, "invalid_app_token");
        let mut renewed = crate::fixtures::Business {
            app_token: new_token,
            ..biz
        };
        send_v1(&app, &renewed, body.clone(), None)
            .await
            .assert_ok(200);

        app.request(
            Method::DELETE,
            &format!("/business/apps/{}", renewed.app_id),
            Some(&renewed.owner_token),
            None,
        )
        .await
        .assert_ok(200);
        send_v1(&app, &renewed, body.clone(), None)
            .await
            .assert_error(401, "invalid_app_token");
        app.request(
            Method::DELETE,
            &format!("/business/apps/{}", renewed.app_id),
            Some(&renewed.owner_token),
            None,
        )
        .await
        .assert_error(404, "app_not_found");
        renewed.app_token = "sva_nonsense".into();
        send_v1(&app, &renewed, body, None)
            .await
            .assert_error(401, "invalid_app_token");
    }
);

e2e!(
    one_business_cannot_reach_another_businesss_apps,
    |app| async move {
        let a = live_business(&app, "+14155550100", ALL_SCOPES).await;
        let b = live_business(&app, "+14155550300", ALL_SCOPES).await;
        app.post(
            &format!("/business/apps/{}/rotate", a.app_id),
            Some(&b.owner_token),
            json!({}),
        )
        .await
        .assert_error(404, "app_not_found");
        app.request(
            Method::DELETE,
            &format!("/business/apps/{}", a.app_id),
            Some(&b.owner_token),
            None,
        )
        .await
        .assert_error(404, "app_not_found");
        let list = app.get("/business/apps", Some(&b.owner_token)).await;
        assert!(!list.body.to_string().contains(&a.app_id));
        app.post(
            &format!("/business/apps/{}/rotate", uuid::Uuid::new_v4()),
            Some(&a.owner_token),
            json!({}),
        )
        .await
        .assert_error(404, "app_not_found");
        app.post(
            "/business/apps/not-a-uuid/rotate",
            Some(&a.owner_token),
            json!({}),
        )
        .await
        .assert_error(404, "not_found");
    }
);

async fn run_demo(app: &crate::harness::TestApp, yes: bool) -> anyhow::Result<serde_json::Value> {
    run_demo_with(app, yes, 3).await
}

async fn run_demo_with(
    app: &crate::harness::TestApp,
    yes: bool,
    followers: u32,
) -> anyhow::Result<serde_json::Value> {
    core_service::admin::cli::run(core_service::admin::cli::AdminArgs {
        core_url: app.grpc_url.clone(),
        core_tls_ca: app.core_tls_ca.clone(),
        internal_token: app.config.internal_token.clone(),
        command: core_service::admin::cli::AdminCommand::Demo { yes, followers },
    })
    .await
}

e2e!(
    admin_demo_makes_a_live_business_a_developer_can_send_from_at_once,
    |app| async move {
        if app.core.db.get_database_backend() == sea_orm::DbBackend::Postgres {
            let refused = run_demo(&app, false).await.unwrap_err().to_string();
            assert!(refused.contains("--yes"), "{refused}");
        }
        let demo = run_demo(&app, true).await.unwrap();
        let business = demo["business_account_id"].as_str().unwrap();
        let me = app
            .get(
                "/business/me",
                Some(demo["owner_access_token"].as_str().unwrap()),
            )
            .await;
        me.assert_ok(200);
        assert_eq!(me.data()["mode"], "live");
        assert_eq!(me.data()["user_id"], business);
        let followers = demo["followers"].as_array().unwrap();
        assert_eq!(followers.len(), 3);
        assert_eq!(demo["follower_count"], 3);
        assert_eq!(
            followers
                .iter()
                .filter(|f| f["marketing_opt_in"] == true)
                .count(),
            1
        );
        let opted_in = followers
            .iter()
            .find(|f| f["marketing_opt_in"] == true)
            .unwrap();
        let token = demo["app_token"].as_str().unwrap();
        assert!(token.starts_with("sva_"));
        for (category, body) in [
            ("utility", "Your order shipped"),
            ("marketing", "Sale today"),
        ] {
            let sent = app
                .http
                .post(format!("{}/v1/{business}/messages", app.base))
                .header("authorization", format!("Bearer {token}"))
                .json(&serde_json::json!({
                    "to": opted_in["phone_number"], "category": category, "body": body
                }))
                .send()
                .await
                .unwrap();
            assert_eq!(sent.status(), 200, "{category}");
        }
        // A newcomer sees a conversation at once: the first follower wrote to the business.
        let owner = demo["owner_access_token"].as_str().unwrap();
        let list = app.get("/business/conversations", Some(owner)).await;
        list.assert_ok(200);
        let conversations = list.data()["conversations"].as_array().unwrap().clone();
        assert_eq!(conversations.len(), 1);
        assert_eq!(conversations[0]["id"], demo["conversation_id"]);
        assert_eq!(conversations[0]["user_id"], followers[0]["user_id"]);
        assert_eq!(conversations[0]["unread"], 1);
        assert_eq!(list.data()["unread_conversations"], 1);
        // Each run makes a new, separate demo.
        let again = run_demo(&app, true).await.unwrap();
        assert_ne!(again["business_account_id"], demo["business_account_id"]);
    }
);

e2e!(
    admin_demo_makes_as_many_followers_as_asked_in_batches_each_an_ordinary_follow,
    |app| async move {
        // 2,501 followers: three batches, the last one short; 1,250 opted in.
        let demo = run_demo_with(&app, true, 2_501).await.unwrap();
        assert_eq!(demo["follower_count"], 2_501);
        let first = demo["followers"].as_array().unwrap();
        assert_eq!(first.len(), 3, "the first three are printed");
        assert!(first.iter().all(|f| f["marketing_opt_in"] == true));
        let token = demo["owner_access_token"].as_str().unwrap();
        let count = |query: &'static str| {
            let app = &app;
            async move {
                let mut n = 0;
                let mut after: Option<String> = None;
                loop {
                    let mut path = format!("/business/followers?limit=200&{query}");
                    if let Some(cursor) = &after {
                        path.push_str(&format!("&starting_after={cursor}"));
                    }
                    let page = app.get(&path, Some(token)).await;
                    page.assert_ok(200);
                    let rows = page.data()["followers"].as_array().unwrap().clone();
                    n += rows.len();
                    if page.data()["has_more"] == false {
                        return n;
                    }
                    after = rows
                        .last()
                        .map(|f| f["user_id"].as_str().unwrap().to_string());
                }
            }
        };
        assert_eq!(count("status=active").await, 2_501);
        assert_eq!(count("marketing_opt_in=true").await, 1_250);
        // Each is an ordinary follow: its ledger entry, and its follow.created event.
        let user = first[0]["user_id"].as_str().unwrap();
        let history = app
            .get(&format!("/business/followers/{user}/history"), Some(token))
            .await;
        history.assert_ok(200);
        assert_eq!(
            history.data()["changes"],
            serde_json::json!([{
                "at": history.data()["changes"][0]["at"],
                "status": "active", "marketing_opt_in": true, "source": "user"
            }])
        );
        use sea_orm::{ColumnTrait, EntityTrait, PaginatorTrait, QueryFilter};
        let business: uuid::Uuid = demo["business_account_id"]
            .as_str()
            .unwrap()
            .parse()
            .unwrap();
        let created = core_service::entities::events::Entity::find()
            .filter(core_service::entities::events::Column::BusinessId.eq(business))
            .filter(core_service::entities::events::Column::EventType.eq("follow.created"))
            .count(&app.core.db)
            .await
            .unwrap();
        assert_eq!(created, 2_501);
        // A second demo reuses the block's users: they follow both businesses.
        let again = run_demo_with(&app, true, 2).await.unwrap();
        assert_eq!(
            again["followers"][0]["phone_number"],
            first[0]["phone_number"]
        );
        assert_eq!(again["follower_count"], 2);
        // Out of range.
        let refused = run_demo_with(&app, true, 0).await.unwrap_err().to_string();
        assert!(refused.contains("followers"), "{refused}");
    }
);

e2e!(
    an_update_racing_a_delete_answers_not_found_never_500,
    |app| async move {
        let biz = live_business(&app, "+14155550100", ALL_SCOPES).await;
        let owner = biz.owner_token.clone();
        for round in 0..12 {
            let created = app
                .post(
                    "/business/apps",
                    Some(&owner),
                    json!({ "name": format!("racer {round}"), "scopes": ["utility"] }),
                )
                .await;
            created.assert_ok(201);
            let id = created.data()["id"].as_str().unwrap().to_string();
            let rotate_path = format!("/business/apps/{id}/rotate");
            let delete_path = format!("/business/apps/{id}");
            let (rotated, deleted) = futures::join!(
                app.post(&rotate_path, Some(&owner), json!({})),
                app.request(Method::DELETE, &delete_path, Some(&owner), None),
            );
            deleted.assert_ok(200);
            if rotated.status != 200 {
                rotated.assert_error(404, "app_not_found");
            }

            let hook = app
                .post(
                    "/business/webhooks",
                    Some(&owner),
                    json!({ "url": format!("https://hooks.example/{round}"), "events": ["message.sent"] }),
                )
                .await;
            hook.assert_ok(201);
            let path = format!("/business/webhooks/{}", hook.data()["id"].as_str().unwrap());
            let (patched, deleted) = futures::join!(
                app.request(
                    Method::PATCH,
                    &path,
                    Some(&owner),
                    Some(crate::harness::RawBody::Json(json!({ "active": false }))),
                ),
                app.request(Method::DELETE, &path, Some(&owner), None),
            );
            deleted.assert_ok(200);
            if patched.status != 200 {
                patched.assert_error(404, "webhook_not_found");
            }
        }
    }
);
