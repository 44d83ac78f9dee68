//! GET/POST /business/team and DELETE /business/team/{userId}, with the roles.

use reqwest::Method;
use serde_json::json;

use crate::e2e;
use crate::fixtures::add_member;

const OWNER: &str = "+14155550100";

e2e!(
    the_team_lists_the_owner_and_added_members,
    |app| async move {
        let (business_id, token) = app.business_owner(OWNER).await;
        let (admin_id, _) = app.user("+14155550101").await;
        let added = app
            .post(
                "/business/team",
                Some(&token),
                json!({ "phone_number": "+14155550101", "role": "admin" }),
            )
            .await;
        added.assert_ok(201);
        assert_eq!(added.data()["user_id"], admin_id.as_str());
        assert_eq!(added.data()["role"], "admin");
        assert_eq!(added.data()["phone_number"], "+14155550101");
        assert!(added.data()["added_at"].is_string());

        let team = app.get("/business/team", Some(&token)).await;
        team.assert_ok(200);
        let members = team.data().as_array().unwrap();
        assert_eq!(members.len(), 2);
        assert_eq!(members[0]["user_id"], business_id.as_str());
        assert_eq!(members[0]["role"], "owner");
        assert_eq!(members[1]["role"], "admin");
    }
);

e2e!(
    adding_someone_already_on_the_team_changes_their_role,
    |app| async move {
        let (_, token) = app.business_owner(OWNER).await;
        app.user("+14155550101").await;
        for role in ["member", "admin", "member"] {
            let reply = app
                .post(
                    "/business/team",
                    Some(&token),
                    json!({ "phone_number": "+14155550101", "role": role }),
                )
                .await;
            reply.assert_ok(201);
            assert_eq!(reply.data()["role"], role);
        }
        let team = app.get("/business/team", Some(&token)).await;
        assert_eq!(team.data().as_array().unwrap().len(), 2);
    }
);

e2e!(
    adding_to_the_team_validates_the_phone_the_role_and_the_user,
    |app| async move {
        let (_, token) = app.business_owner(OWNER).await;
        let (_, other_owner) = app.business_owner("+14155550199").await;
        let _ = other_owner;
        app.user("+14155550101").await;
        let add = |phone: &'static str, role: &'static str| {
            let app = &app;
            let token = &token;
            async move {
                app.post(
                    "/business/team",
                    Some(token),
                    json!({ "phone_number": phone, "role": role }),
                )
                .await
            }
        };
        add("+14155550177", "member")
            .await
            .assert_error(400, "user_not_found");
        add("nope", "member")
            .await
            .assert_error(400, "invalid_phone_number");
        add("+14155550101", "owner")
            .await
            .assert_error(400, "invalid_request");
        add("+14155550101", "boss")
            .await
            .assert_error(400, "invalid_request");
        add("+14155550199", "member")
            .await
            .assert_error(400, "user_in_another_business");
        add(OWNER, "member")
            .await
            .assert_error(400, "cannot_remove_owner");
        app.post(
            "/business/team",
            Some(&token),
            json!({ "phone_number": "+14155550101" }),
        )
        .await
        .assert_error(400, "invalid_request");
    }
);

e2e!(
    removing_members_works_but_never_the_owner,
    |app| async move {
        let (owner_id, token) = app.business_owner(OWNER).await;
        let (member_id, _) = app.user("+14155550101").await;
        add_member(&app, &token, "+14155550101", "member").await;
        let remove = |id: String| {
            let app = &app;
            let token = &token;
            async move {
                app.request(
                    Method::DELETE,
                    &format!("/business/team/{id}"),
                    Some(token),
                    None,
                )
                .await
            }
        };
        remove(owner_id.clone())
            .await
            .assert_error(400, "cannot_remove_owner");
        remove(member_id.clone()).await.assert_ok(200);
        remove(member_id.clone())
            .await
            .assert_error(400, "team_member_not_found");
        remove("not-a-uuid".into())
            .await
            .assert_error(404, "not_found");
        assert_eq!(
            app.get("/business/team", Some(&token))
                .await
                .data()
                .as_array()
                .unwrap()
                .len(),
            1
        );
    }
);

e2e!(
    members_read_the_team_but_cannot_change_it_and_admins_can,
    |app| async move {
        let (_, owner) = app.business_owner(OWNER).await;
        let (_, admin) = app.user("+14155550101").await;
        let (member_id, member) = app.user("+14155550102").await;
        app.user("+14155550103").await;
        add_member(&app, &owner, "+14155550101", "admin").await;
        add_member(&app, &owner, "+14155550102", "member").await;
        app.get("/business/team", Some(&member))
            .await
            .assert_ok(200);
        app.post(
            "/business/team",
            Some(&member),
            json!({ "phone_number": "+14155550103", "role": "member" }),
        )
        .await
        .assert_error(403, "insufficient_role");
        app.request(
            Method::DELETE,
            &format!("/business/team/{member_id}"),
            Some(&member),
            None,
        )
        .await
        .assert_error(403, "insufficient_role");
        add_member(&app, &admin, "+14155550103", "member").await;
        app.request(
            Method::DELETE,
            &format!("/business/team/{member_id}"),
            Some(&admin),
            None,
        )
        .await
        .assert_ok(200);
        // The removed member has no business any more.
        app.get("/business/me", Some(&member))
            .await
            .assert_error(403, "not_a_business_account");
    }
);

e2e!(
    a_suspended_business_is_refused_on_the_team_and_apps,
    |app| async move {
        let (business_id, owner) = app.business_owner(OWNER).await;
        app.set_business(&business_id, None, Some("suspended"))
            .await;
        app.get("/business/team", Some(&owner))
            .await
            .assert_error(403, "business_suspended");
        app.get("/business/apps", Some(&owner))
            .await
            .assert_error(403, "business_suspended");
        app.get("/business/messages", Some(&owner))
            .await
            .assert_error(403, "business_suspended");
        app.get("/business/usage", Some(&owner))
            .await
            .assert_error(403, "business_suspended");
    }
);
