//! Consent wording (SPEC-MATRIX, fourth round): `PUT`/`GET /business/consent-text`, `GET
//! /businesses/{id}/consent-text` for users, `consent_text_version` on follow `PUT`/`PATCH`
//! (409 `consent_text_changed` when stale), each marketing opt-in recording the version in force
//! and whether the user named it, and `GET /business/followers/{user_id}/evidence`.

use reqwest::Method;
use serde_json::{Value, json};

use crate::e2e;
use crate::fixtures::{ALL_SCOPES, Business, add_member, follower, live_business, send_v1};
use crate::harness::{RawBody, Reply, TestApp};

const BIZ: &str = "+14155550100";
const MEMBER: &str = "+14155550101";
const FAN_A: &str = "+14155550200";
const FAN_B: &str = "+14155550201";
const FAN_C: &str = "+14155550202";

async fn put_text(app: &TestApp, token: &str, text: &str) -> Reply {
    app.request(
        Method::PUT,
        "/business/consent-text",
        Some(token),
        Some(RawBody::Json(json!({ "text": text }))),
    )
    .await
}

async fn follow(app: &TestApp, token: &str, biz: &Business, method: Method, body: Value) -> Reply {
    app.request(
        method,
        &format!("/businesses/{}/follow", biz.id),
        Some(token),
        Some(RawBody::Json(body)),
    )
    .await
}

async fn evidence(app: &TestApp, biz: &Business, user_id: &str) -> Value {
    let reply = app
        .get(
            &format!("/business/followers/{user_id}/evidence"),
            Some(&biz.owner_token),
        )
        .await;
    reply.assert_ok(200);
    reply.data().clone()
}

e2e!(
    consent_wording_is_versioned_by_managers_and_read_by_the_team_and_by_users,
    |app| async move {
        let biz = live_business(&app, BIZ, ALL_SCOPES).await;
        let (_, user_token) = app.user(FAN_A).await;
        let for_users = format!("/businesses/{}/consent-text", biz.id);
        // None set yet: data null, for the team and for users.
        let none = app
            .get("/business/consent-text", Some(&biz.owner_token))
            .await;
        none.assert_ok(200);
        assert!(none.data().is_null(), "{}", none.body);
        let none = app.get(&for_users, Some(&user_token)).await;
        none.assert_ok(200);
        assert!(none.data().is_null(), "{}", none.body);

        let first = put_text(&app, &biz.owner_token, "Offers by SMS, at most weekly.").await;
        first.assert_ok(200);
        assert_eq!(first.data()["version"], 1);
        assert_eq!(first.data()["text"], "Offers by SMS, at most weekly.");
        // The same text again changes nothing and answers the version in force.
        let same = put_text(&app, &biz.owner_token, "Offers by SMS, at most weekly.").await;
        same.assert_ok(200);
        assert_eq!(same.data(), first.data());
        let second = put_text(&app, &biz.owner_token, "Offers by SMS, at most daily.").await;
        assert_eq!(second.data()["version"], 2);

        // Members read it but may not set it.
        let (_, member_token) = app.user(MEMBER).await;
        add_member(&app, &biz.owner_token, MEMBER, "member").await;
        put_text(&app, &member_token, "Anything")
            .await
            .assert_error(403, "insufficient_role");
        let read = app.get("/business/consent-text", Some(&member_token)).await;
        read.assert_ok(200);
        assert_eq!(read.data(), second.data());

        // 1 to 2,000 characters, not blank.
        for bad in [String::new(), "   ".to_string(), "é".repeat(2_001)] {
            put_text(&app, &biz.owner_token, &bad)
                .await
                .assert_error(400, "invalid_request");
        }
        let longest = put_text(&app, &biz.owner_token, &"é".repeat(2_000)).await;
        assert_eq!(longest.data()["version"], 3);

        // Users see the version in force; another business's id is 404.
        let seen = app.get(&for_users, Some(&user_token)).await;
        seen.assert_ok(200);
        assert_eq!(seen.data(), longest.data());
        app.get(
            &format!("/businesses/{}/consent-text", uuid::Uuid::new_v4()),
            Some(&user_token),
        )
        .await
        .assert_error(404, "business_not_found");
    }
);

e2e!(
    each_opt_in_records_the_wording_in_force_and_a_stale_version_is_refused,
    |app| async move {
        let biz = live_business(&app, BIZ, ALL_SCOPES).await;
        // An opt-in before any wording was set says so.
        let (a_id, a_token) = follower(&app, &biz, FAN_A, true).await;
        // Naming a version while none is set is stale too.
        let (_, c_token) = app.user(FAN_C).await;
        follow(
            &app,
            &c_token,
            &biz,
            Method::PUT,
            json!({"marketing_opt_in": true, "consent_text_version": 1}),
        )
        .await
        .assert_error(409, "consent_text_changed");

        put_text(&app, &biz.owner_token, "Weekly offers.")
            .await
            .assert_ok(200);
        let (b_id, b_token) = app.user(FAN_B).await;
        follow(
            &app,
            &b_token,
            &biz,
            Method::PUT,
            json!({"marketing_opt_in": true, "consent_text_version": 1}),
        )
        .await
        .assert_ok(200);

        put_text(&app, &biz.owner_token, "Daily offers.")
            .await
            .assert_ok(200);
        // Version 1 is no longer in force: refused, and nothing was written.
        follow(
            &app,
            &c_token,
            &biz,
            Method::PUT,
            json!({"marketing_opt_in": true, "consent_text_version": 1}),
        )
        .await
        .assert_error(409, "consent_text_changed");
        app.get(&format!("/businesses/{}/follow", biz.id), Some(&c_token))
            .await
            .assert_error(404, "follow_not_found");
        // Without a version the opt-in is recorded under the one in force, not named.
        let c = follow(
            &app,
            &c_token,
            &biz,
            Method::PUT,
            json!({"marketing_opt_in": true}),
        )
        .await;
        c.assert_ok(200);
        let c_id = c.data()["user_id"].as_str().unwrap().to_string();

        // A withdraws, then opts in again naming version 2; a stale PATCH changes nothing.
        follow(
            &app,
            &a_token,
            &biz,
            Method::PATCH,
            json!({"marketing_opt_in": false}),
        )
        .await
        .assert_ok(200);
        follow(
            &app,
            &a_token,
            &biz,
            Method::PATCH,
            json!({"marketing_opt_in": true, "consent_text_version": 2}),
        )
        .await
        .assert_ok(200);
        follow(
            &app,
            &a_token,
            &biz,
            Method::PATCH,
            json!({"marketing_opt_in": false, "consent_text_version": 1}),
        )
        .await
        .assert_error(409, "consent_text_changed");
        let still = app
            .get(&format!("/businesses/{}/follow", biz.id), Some(&a_token))
            .await;
        assert_eq!(still.data()["marketing_opt_in"], true);

        let a = evidence(&app, &biz, &a_id).await;
        assert_eq!(a["user_id"], a_id.as_str());
        let changes = a["changes"].as_array().unwrap();
        assert_eq!(changes.len(), 3, "{a}");
        assert_eq!(changes[0]["opt_in"], true);
        assert!(
            changes[0]["consent_text"].is_null(),
            "an opt-in before any wording: {a}"
        );
        assert_eq!(changes[0]["user_named_version"], false);
        assert_eq!(changes[0]["source"], "user");
        assert_eq!(changes[1]["opt_in"], false);
        assert_eq!(changes[1]["marketing_opt_in"], false);
        assert!(changes[1]["consent_text"].is_null());
        assert_eq!(changes[2]["opt_in"], true);
        assert_eq!(changes[2]["consent_text"]["version"], 2);
        assert_eq!(changes[2]["consent_text"]["text"], "Daily offers.");
        assert_eq!(changes[2]["user_named_version"], true);

        let b = evidence(&app, &biz, &b_id).await;
        let b_change = &b["changes"][0];
        assert_eq!(b_change["consent_text"]["version"], 1);
        assert_eq!(b_change["consent_text"]["text"], "Weekly offers.");
        assert_eq!(b_change["user_named_version"], true);
        let c = evidence(&app, &biz, &c_id).await;
        assert_eq!(c["changes"][0]["consent_text"]["version"], 2);
        assert_eq!(c["changes"][0]["user_named_version"], false);

        // The marketing messages sent under it that are still kept: a marketing send to B is
        // listed; a utility one is not.
        let sent = send_v1(
            &app,
            &biz,
            json!({"to": FAN_B, "category": "marketing", "body": "Sale!"}),
            None,
        )
        .await;
        sent.assert_ok(200);
        send_v1(
            &app,
            &biz,
            json!({"to": FAN_B, "category": "utility", "body": "Shipped"}),
            None,
        )
        .await
        .assert_ok(200);
        let b = evidence(&app, &biz, &b_id).await;
        let messages = b["marketing_messages"].as_array().unwrap();
        assert_eq!(messages.len(), 1, "{b}");
        assert_eq!(messages[0]["id"], sent.data()["id"]);
        assert!(messages[0]["created_at"].is_string());
        assert!(messages[0]["status"].is_string());

        // Someone who never followed: 404; so is a malformed id.
        let (stranger, _) = app.user("+14155550299").await;
        for id in [stranger.as_str(), "not-a-uuid"] {
            app.get(
                &format!("/business/followers/{id}/evidence"),
                Some(&biz.owner_token),
            )
            .await
            .assert_error(404, "follow_not_found");
        }
    }
);

e2e!(
    a_consent_text_version_is_any_whole_json_number_and_nothing_else,
    |app| async move {
        let biz = live_business(&app, BIZ, ALL_SCOPES).await;
        put_text(&app, &biz.owner_token, "Weekly offers.")
            .await
            .assert_ok(200);
        let (_, token) = app.user(FAN_A).await;
        // 1.0 is the integer 1 to JSON Schema: accepted as version 1.
        follow(
            &app,
            &token,
            &biz,
            Method::PUT,
            json!({"marketing_opt_in": true, "consent_text_version": 1.0}),
        )
        .await
        .assert_ok(200);
        // A whole number beyond the versions' range is stale, not malformed.
        follow(
            &app,
            &token,
            &biz,
            Method::PATCH,
            json!({"marketing_opt_in": true, "consent_text_version": 2147483647}),
        )
        .await
        .assert_error(409, "consent_text_changed");
        for bad in [json!(1.5), json!("1"), json!(4294967296u64), json!(true)] {
            follow(
                &app,
                &token,
                &biz,
                Method::PATCH,
                json!({"marketing_opt_in": true, "consent_text_version": bad}),
            )
            .await
            .assert_error(400, "invalid_request");
        }
    }
);
