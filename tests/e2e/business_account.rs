//! GET/PATCH /business/me and POST /business/sandbox.

use proto::vocabulary::Role;
use sea_orm::{ActiveModelTrait, Set};
use serde_json::json;

use crate::e2e;
use crate::fixtures::add_member;
use crate::harness::TestApp;

const OWNER: &str = "+14155550100";

async fn sandbox(app: &TestApp, token: &str, body: serde_json::Value) -> crate::harness::Reply {
    app.post("/business/sandbox", Some(token), body).await
}

/// Puts `user_id` on `business_id`'s team with `role` (the team endpoints come with sends).
async fn join_team(app: &TestApp, business_id: &str, user_id: &str, role: &str) {
    core_service::entities::team_members::ActiveModel {
        user_id: Set(user_id.parse().unwrap()),
        business_id: Set(business_id.parse().unwrap()),
        role: Set(Role::from_wire(role).unwrap()),
        added_at: Set(chrono::Utc::now()),
    }
    .insert(&app.core.db)
    .await
    .unwrap();
}

e2e!(
    sandbox_creates_a_business_owned_by_the_caller_in_sandbox_mode,
    |app| async move {
        let (user_id, token) = app.user(OWNER).await;
        let reply = sandbox(
        &app,
        &token,
        json!({ "business_name": "  Acme Inc  ", "category": "retail", "website_url": "https://acme.example" }),
    )
    .await;
        reply.assert_ok(201);
        assert_eq!(reply.message(), "ok");
        let data = reply.data();
        assert_eq!(data["user_id"], user_id.as_str());
        assert_eq!(data["business_name"], "Acme Inc");
        assert_eq!(data["category"], "retail");
        assert_eq!(data["website_url"], "https://acme.example/");
        assert_eq!(data["status"], "active");
        assert_eq!(data["mode"], "sandbox");
        assert_eq!(data["phone_number"], OWNER);
        assert!(data["created_at"].is_string());

        let me = app.get("/business/me", Some(&token)).await;
        me.assert_ok(200);
        assert_eq!(me.data(), data);
    }
);

e2e!(
    sandbox_takes_null_or_absent_optional_fields,
    |app| async move {
        let (_, token) = app.user(OWNER).await;
        let reply = sandbox(
            &app,
            &token,
            json!({ "business_name": "A", "category": null }),
        )
        .await;
        reply.assert_ok(201);
        assert!(reply.data()["category"].is_null());
        assert!(reply.data()["website_url"].is_null());
    }
);

e2e!(
    sandbox_is_refused_when_the_user_already_has_a_business,
    |app| async move {
        let (_, token) = app.business_owner(OWNER).await;
        sandbox(&app, &token, json!({ "business_name": "Again" }))
            .await
            .assert_error(409, "business_already_exists");
    }
);

e2e!(sandbox_validates_its_body, |app| async move {
    let (_, token) = app.user(OWNER).await;
    let cases = [
        json!({}),
        json!({ "business_name": "" }),
        json!({ "business_name": "   " }),
        json!({ "business_name": "x".repeat(101) }),
        json!({ "business_name": 7 }),
        json!({ "business_name": "A", "website_url": "not a url" }),
        json!({ "business_name": "A", "website_url": "ftp://acme.example" }),
        json!({ "business_name": "A", "category": "c".repeat(101) }),
        json!({ "business_name": "A", "category": 3 }),
        json!([1, 2]),
    ];
    for body in cases {
        let reply = sandbox(&app, &token, body.clone()).await;
        assert_eq!(
            (reply.status, reply.message()),
            (400, "invalid_request"),
            "{body}"
        );
    }
    sandbox(&app, &token, json!({ "business_name": "x".repeat(100) }))
        .await
        .assert_ok(201);
});

e2e!(sandbox_needs_a_valid_token, |app| async move {
    sandbox(&app, "nope", json!({ "business_name": "A" }))
        .await
        .assert_error(401, "unauthorized");
});

e2e!(
    business_me_is_403_without_a_business_account,
    |app| async move {
        let (_, token) = app.user(OWNER).await;
        app.get("/business/me", Some(&token))
            .await
            .assert_error(403, "not_a_business_account");
        app.patch(
            "/business/me",
            Some(&token),
            json!({ "business_name": "X" }),
        )
        .await
        .assert_error(403, "not_a_business_account");
    }
);

e2e!(
    patch_me_updates_the_name_and_patches_optional_fields,
    |app| async move {
        let (_, token) = app.business_owner(OWNER).await;
        let reply = app
        .patch(
            "/business/me",
            Some(&token),
            json!({ "business_name": " Renamed ", "category": "food", "website_url": "http://x.example/a" }),
        )
        .await;
        reply.assert_ok(200);
        assert_eq!(reply.data()["business_name"], "Renamed");
        assert_eq!(reply.data()["category"], "food");
        assert_eq!(reply.data()["website_url"], "http://x.example/a");

        // Absent fields stay; null clears.
        let reply = app
            .patch(
                "/business/me",
                Some(&token),
                json!({ "business_name": "R2", "website_url": null }),
            )
            .await;
        reply.assert_ok(200);
        assert_eq!(reply.data()["category"], "food");
        assert!(reply.data()["website_url"].is_null());
        let me = app.get("/business/me", Some(&token)).await;
        assert_eq!(me.data()["business_name"], "R2");
        assert!(me.data()["website_url"].is_null());
    }
);

e2e!(patch_me_validates_its_body, |app| async move {
    let (_, token) = app.business_owner(OWNER).await;
    let cases = [
        json!({}),
        json!({ "category": "x" }),
        json!({ "business_name": "" }),
        json!({ "business_name": "x".repeat(101) }),
        json!({ "business_name": "A", "website_url": "javascript:alert(1)" }),
        json!({ "business_name": "A", "website_url": 12 }),
        json!({ "business_name": "A", "category": "" }),
    ];
    for body in cases {
        let reply = app.patch("/business/me", Some(&token), body.clone()).await;
        assert_eq!(
            (reply.status, reply.message()),
            (400, "invalid_request"),
            "{body}"
        );
    }
    let me = app.get("/business/me", Some(&token)).await;
    assert_eq!(me.data()["business_name"], "Acme", "nothing was changed");
});

e2e!(
    patch_me_is_for_owners_and_admins_not_members,
    |app| async move {
        let (business_id, owner_token) = app.business_owner(OWNER).await;
        let (admin_id, admin_token) = app.user("+14155550101").await;
        let (member_id, member_token) = app.user("+14155550102").await;
        join_team(&app, &business_id, &admin_id, "admin").await;
        join_team(&app, &business_id, &member_id, "member").await;

        for token in [&owner_token, &admin_token, &member_token] {
            let me = app.get("/business/me", Some(token)).await;
            me.assert_ok(200);
            assert_eq!(me.data()["user_id"], business_id.as_str());
        }
        app.patch(
            "/business/me",
            Some(&admin_token),
            json!({ "business_name": "By admin" }),
        )
        .await
        .assert_ok(200);
        app.patch(
            "/business/me",
            Some(&member_token),
            json!({ "business_name": "By member" }),
        )
        .await
        .assert_error(403, "insufficient_role");
        // A member cannot create a second business either.
        sandbox(&app, &member_token, json!({ "business_name": "Mine" }))
            .await
            .assert_error(409, "business_already_exists");
    }
);

e2e!(
    a_suspended_business_can_read_me_but_not_change_it,
    |app| async move {
        let (business_id, token) = app.business_owner(OWNER).await;
        app.set_business(&business_id, None, Some("suspended"))
            .await;
        let me = app.get("/business/me", Some(&token)).await;
        me.assert_ok(200);
        assert_eq!(me.data()["status"], "suspended");
        app.patch(
            "/business/me",
            Some(&token),
            json!({ "business_name": "X" }),
        )
        .await
        .assert_error(403, "business_suspended");
        app.set_business(&business_id, Some("live"), Some("active"))
            .await;
        let me = app.get("/business/me", Some(&token)).await;
        assert_eq!(me.data()["status"], "active");
        assert_eq!(me.data()["mode"], "live");
    }
);

e2e!(
    a_business_whose_owner_is_suspended_or_banned_is_treated_as_suspended,
    |app| async move {
        use crate::fixtures::{ALL_SCOPES, follower, live_business, send_v1};
        let biz = live_business(&app, "+14155550100", ALL_SCOPES).await;
        follower(&app, &biz, "+14155550200", false).await;
        let (_, admin) = app.user("+14155550300").await;
        add_member(&app, &biz.owner_token, "+14155550300", "admin").await;
        let (_, newcomer) = app.user("+14155550400").await;
        let utility = json!({"to": "+14155550200", "category": "utility", "body": "hi"});
        send_v1(&app, &biz, utility.clone(), None)
            .await
            .assert_ok(200);

        for status in ["suspended", "banned"] {
            app.set_user_status("+14155550100", status).await;
            send_v1(&app, &biz, utility.clone(), None)
                .await
                .assert_error(403, "business_suspended");
            app.get("/business/team", Some(&admin))
                .await
                .assert_error(403, "business_suspended");
            // GET /business/me still answers, with the business's own status.
            let me = app.get("/business/me", Some(&admin)).await;
            me.assert_ok(200);
            assert_eq!(me.data()["status"], "active");
            app.request(
                reqwest::Method::PUT,
                &format!("/businesses/{}/follow", biz.id),
                Some(&newcomer),
                Some(crate::harness::RawBody::Json(json!({}))),
            )
            .await
            .assert_error(403, "business_not_live");
        }
        app.set_user_status("+14155550100", "active").await;
        send_v1(&app, &biz, utility, None).await.assert_ok(200);
        app.get("/business/team", Some(&admin)).await.assert_ok(200);
    }
);
