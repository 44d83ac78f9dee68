//! GET/PUT/PATCH/DELETE /businesses/{businessAccountId}/follow.

use reqwest::Method;
use serde_json::json;

use crate::e2e;
use crate::fixtures::{ALL_SCOPES, live_business};
use crate::harness::{RawBody, Reply, TestApp};

async fn follow(
    app: &TestApp,
    method: Method,
    business: &str,
    token: &str,
    body: Option<serde_json::Value>,
) -> Reply {
    app.request(
        method,
        &format!("/businesses/{business}/follow"),
        Some(token),
        body.map(RawBody::Json),
    )
    .await
}

e2e!(
    put_follow_makes_an_active_follow_with_opt_in_defaulting_to_false,
    |app| async move {
        let biz = live_business(&app, "+14155550100", ALL_SCOPES).await;
        let (user_id, token) = app.user("+14155550200").await;
        let reply = follow(&app, Method::PUT, &biz.id, &token, Some(json!({}))).await;
        reply.assert_ok(200);
        let data = reply.data();
        assert_eq!(data["business_account_id"], biz.id.as_str());
        assert_eq!(data["user_id"], user_id.as_str());
        assert_eq!(data["status"], "active");
        assert_eq!(data["marketing_opt_in"], false);
        assert!(data["followed_at"].is_string() && data["updated_at"].is_string());

        let got = follow(&app, Method::GET, &biz.id, &token, None).await;
        got.assert_ok(200);
        assert_eq!(got.data(), data);

        let opted = follow(
            &app,
            Method::PUT,
            &biz.id,
            &token,
            Some(json!({ "marketing_opt_in": true })),
        )
        .await;
        opted.assert_ok(200);
        assert_eq!(opted.data()["marketing_opt_in"], true);
        assert_eq!(
            opted.data()["followed_at"],
            data["followed_at"],
            "re-following keeps followed_at"
        );
    }
);

e2e!(put_follow_needs_a_body, |app| async move {
    let biz = live_business(&app, "+14155550100", ALL_SCOPES).await;
    let (_, token) = app.user("+14155550200").await;
    follow(&app, Method::PUT, &biz.id, &token, None)
        .await
        .assert_error(400, "malformed_json");
    follow(
        &app,
        Method::PUT,
        &biz.id,
        &token,
        Some(json!({ "marketing_opt_in": "yes" })),
    )
    .await
    .assert_error(400, "invalid_request");
});

e2e!(
    put_follow_is_refused_for_sandbox_suspended_own_and_unknown_businesses,
    |app| async move {
        let (sandbox_id, owner_token) = app.business_owner("+14155550100").await;
        let (_, token) = app.user("+14155550200").await;
        follow(&app, Method::PUT, &sandbox_id, &token, Some(json!({})))
            .await
            .assert_error(403, "business_not_live");
        app.set_business(&sandbox_id, Some("live"), Some("suspended"))
            .await;
        follow(&app, Method::PUT, &sandbox_id, &token, Some(json!({})))
            .await
            .assert_error(403, "business_not_live");
        app.set_business(&sandbox_id, None, Some("active")).await;
        follow(
            &app,
            Method::PUT,
            &sandbox_id,
            &owner_token,
            Some(json!({})),
        )
        .await
        .assert_error(403, "cannot_follow_own_business");
        let unknown = uuid::Uuid::new_v4().to_string();
        follow(&app, Method::PUT, &unknown, &token, Some(json!({})))
            .await
            .assert_error(404, "business_not_found");
        follow(&app, Method::PUT, "not-a-uuid", &token, Some(json!({})))
            .await
            .assert_error(404, "not_found");
        follow(&app, Method::PUT, &sandbox_id, &token, Some(json!({})))
            .await
            .assert_ok(200);
    }
);

e2e!(
    get_follow_is_404_when_never_followed_or_no_such_business,
    |app| async move {
        let biz = live_business(&app, "+14155550100", ALL_SCOPES).await;
        let (_, token) = app.user("+14155550200").await;
        follow(&app, Method::GET, &biz.id, &token, None)
            .await
            .assert_error(404, "follow_not_found");
        follow(
            &app,
            Method::GET,
            &uuid::Uuid::new_v4().to_string(),
            &token,
            None,
        )
        .await
        .assert_error(404, "business_not_found");
        follow(&app, Method::GET, &biz.id, "bad-token", None)
            .await
            .assert_error(401, "unauthorized");
    }
);

e2e!(
    patch_follow_changes_opt_in_only_on_an_active_follow,
    |app| async move {
        let biz = live_business(&app, "+14155550100", ALL_SCOPES).await;
        let (_, token) = app.user("+14155550200").await;
        follow(
            &app,
            Method::PATCH,
            &biz.id,
            &token,
            Some(json!({ "marketing_opt_in": true })),
        )
        .await
        .assert_error(404, "follow_not_found");
        follow(&app, Method::PUT, &biz.id, &token, Some(json!({})))
            .await
            .assert_ok(200);
        let patched = follow(
            &app,
            Method::PATCH,
            &biz.id,
            &token,
            Some(json!({ "marketing_opt_in": true })),
        )
        .await;
        patched.assert_ok(200);
        assert_eq!(patched.data()["marketing_opt_in"], true);
        assert_eq!(patched.data()["status"], "active");
        follow(&app, Method::PATCH, &biz.id, &token, Some(json!({})))
            .await
            .assert_error(400, "invalid_request");
        follow(&app, Method::DELETE, &biz.id, &token, None)
            .await
            .assert_ok(200);
        follow(
            &app,
            Method::PATCH,
            &biz.id,
            &token,
            Some(json!({ "marketing_opt_in": true })),
        )
        .await
        .assert_error(404, "follow_not_found");
    }
);

e2e!(
    delete_follow_is_idempotent_and_leaves_it_unfollowed,
    |app| async move {
        let biz = live_business(&app, "+14155550100", ALL_SCOPES).await;
        let (_, token) = app.user("+14155550200").await;
        // Never followed: still 200.
        follow(&app, Method::DELETE, &biz.id, &token, None)
            .await
            .assert_ok(200);
        follow(
            &app,
            Method::PUT,
            &biz.id,
            &token,
            Some(json!({ "marketing_opt_in": true })),
        )
        .await
        .assert_ok(200);
        for _ in 0..2 {
            let reply = follow(&app, Method::DELETE, &biz.id, &token, None).await;
            reply.assert_ok(200);
            assert!(reply.data().is_null());
        }
        let got = follow(&app, Method::GET, &biz.id, &token, None).await;
        got.assert_ok(200);
        assert_eq!(got.data()["status"], "unfollowed");
        assert_eq!(got.data()["marketing_opt_in"], false);
        follow(
            &app,
            Method::DELETE,
            &uuid::Uuid::new_v4().to_string(),
            &token,
            None,
        )
        .await
        .assert_error(404, "business_not_found");
        // Following again makes it active.
        let again = follow(&app, Method::PUT, &biz.id, &token, Some(json!({}))).await;
        assert_eq!(again.data()["status"], "active");
    }
);
