//! GET /me: who is signed in, and their business and role (DESIGN.md, "Console").

use serde_json::json;

use crate::e2e;
use crate::fixtures::add_member;

const OWNER: &str = "+14155550100";
const MEMBER: &str = "+14155550101";

e2e!(me_names_a_user_without_a_business, |app| async move {
    let (user_id, token) = app.user(OWNER).await;
    let me = app.get("/me", Some(&token)).await;
    me.assert_ok(200);
    assert_eq!(
        me.data(),
        &json!({
            "user_id": user_id,
            "phone_number": OWNER,
            "status": "active",
            "business_account_id": null,
            "role": null,
            "display_name": null,
            "read_receipts": true,
            "language": null,
            "webhook_alerts": true,
        })
    );
});

e2e!(
    patch_me_sets_the_display_name_and_read_receipts_and_nothing_else,
    |app| async move {
        let (_, token) = app.user(OWNER).await;
        let named = app
            .patch("/me", Some(&token), json!({ "display_name": "  Sam  " }))
            .await;
        named.assert_ok(200);
        assert_eq!(named.data()["display_name"], "Sam", "trimmed");
        assert_eq!(named.data()["read_receipts"], true);
        let off = app
            .patch("/me", Some(&token), json!({ "read_receipts": false }))
            .await;
        off.assert_ok(200);
        assert_eq!(off.data()["display_name"], "Sam", "absent fields stay");
        assert_eq!(off.data()["read_receipts"], false);
        let cleared = app
            .patch("/me", Some(&token), json!({ "display_name": null }))
            .await;
        assert_eq!(cleared.data()["display_name"], serde_json::Value::Null);
        for bad in [
            json!({ "display_name": "x".repeat(65) }),
            json!({ "display_name": "a\u{7}b" }),
            json!({ "read_receipts": "no" }),
            json!({ "phone_number": "+14155550999" }),
        ] {
            app.patch("/me", Some(&token), bad.clone())
                .await
                .assert_error(400, "invalid_request");
        }
        app.patch("/me", None, json!({}))
            .await
            .assert_error(401, "unauthorized");
        let me = app.get("/me", Some(&token)).await;
        assert_eq!(me.data()["read_receipts"], false);
    }
);

e2e!(
    me_names_the_business_and_the_role_of_its_owner_and_of_a_member,
    |app| async move {
        let (business_id, owner_token) = app.business_owner(OWNER).await;
        let (member_id, member_token) = app.user(MEMBER).await;
        add_member(&app, &owner_token, MEMBER, "member").await;

        let owner = app.get("/me", Some(&owner_token)).await;
        owner.assert_ok(200);
        assert_eq!(owner.data()["user_id"], business_id.as_str());
        assert_eq!(owner.data()["business_account_id"], business_id.as_str());
        assert_eq!(owner.data()["role"], "owner");

        let member = app.get("/me", Some(&member_token)).await;
        member.assert_ok(200);
        assert_eq!(member.data()["user_id"], member_id.as_str());
        assert_eq!(member.data()["phone_number"], MEMBER);
        assert_eq!(member.data()["business_account_id"], business_id.as_str());
        assert_eq!(member.data()["role"], "member");
    }
);

e2e!(
    me_refuses_a_missing_token_and_a_suspended_user,
    |app| async move {
        app.get("/me", None).await.assert_error(401, "unauthorized");
        app.get("/me", Some("not-a-token"))
            .await
            .assert_error(401, "unauthorized");
        let (_, token) = app.user(OWNER).await;
        app.set_user_status(OWNER, "suspended").await;
        app.get("/me", Some(&token))
            .await
            .assert_error(403, "account_suspended");
    }
);
