//! A business sees its audience: the followers list (paging, filters, never a phone number),
//! the look-up of numbers it holds (look-alike answers, E.164 echo, the hourly limit taken
//! whole), each follower's consent history (user and operator changes, nothing for a no-op),
//! the follow events, and support that may only withdraw.

use std::time::Duration;

use reqwest::Method;
use serde_json::{Value, json};

use crate::e2e;
use crate::fixtures::{
    ALL_SCOPES, Business, Receiver, follower, live_business, register_webhook, verify_signature,
};
use crate::harness::{Options, RawBody, Reply, TestApp, quiet_for};

const BIZ: &str = "+14155550100";

async fn follows(app: &TestApp, token: &str, biz: &Business, body: Value) -> Reply {
    app.request(
        Method::PUT,
        &format!("/businesses/{}/follow", biz.id),
        Some(token),
        Some(RawBody::Json(body)),
    )
    .await
}

async fn consent(app: &TestApp, token: &str, biz: &Business, opt_in: bool) -> Reply {
    app.request(
        Method::PATCH,
        &format!("/businesses/{}/follow", biz.id),
        Some(token),
        Some(RawBody::Json(json!({ "marketing_opt_in": opt_in }))),
    )
    .await
}

async fn unfollow(app: &TestApp, token: &str, biz: &Business) {
    app.request(
        Method::DELETE,
        &format!("/businesses/{}/follow", biz.id),
        Some(token),
        None,
    )
    .await
    .assert_ok(200);
}

async fn followers(app: &TestApp, biz: &Business, query: &str) -> Reply {
    app.get(
        &format!("/business/followers?{query}"),
        Some(&biz.owner_token),
    )
    .await
}

fn user_ids(reply: &Reply) -> Vec<String> {
    reply.data()["followers"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["user_id"].as_str().unwrap().to_string())
        .collect()
}

async fn history(app: &TestApp, biz: &Business, user_id: &str) -> Reply {
    app.get(
        &format!("/business/followers/{user_id}/history"),
        Some(&biz.owner_token),
    )
    .await
}

/// (status, marketing_opt_in, source) of each change, oldest first.
fn changes(reply: &Reply) -> Vec<(String, bool, String)> {
    reply.data()["changes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| {
            (
                c["status"].as_str().unwrap().to_string(),
                c["marketing_opt_in"].as_bool().unwrap(),
                c["source"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

async fn set_follow(
    app: &TestApp,
    business_id: &str,
    phone: &str,
    unfollow: bool,
    marketing_opt_in: Option<bool>,
) -> Result<proto::v1::Follow, proto::RemoteError> {
    app.admin()
        .await
        .set_follow(app.admin_request(proto::v1::SetFollowRequest {
            business_id: business_id.into(),
            phone_number: phone.into(),
            unfollow,
            marketing_opt_in,
        }))
        .await
        .map(tonic::Response::into_inner)
        .map_err(|status| proto::RemoteError::from_status(&status))
}

e2e!(
    the_followers_list_pages_newest_first_and_filters_by_status_and_consent,
    |app| async move {
        let biz = live_business(&app, BIZ, ALL_SCOPES).await;
        let mut ids = Vec::new();
        let mut tokens = Vec::new();
        for n in 0..5 {
            app.clock.advance(Duration::from_secs(60));
            let (id, token) = follower(&app, &biz, &format!("+1415555020{n}"), n % 2 == 0).await;
            ids.push(id);
            tokens.push(token);
        }
        app.clock.advance(Duration::from_secs(60));
        unfollow(&app, &tokens[1], &biz).await;
        let newest_first: Vec<String> = ids.iter().rev().cloned().collect();

        let all = followers(&app, &biz, "").await;
        all.assert_ok(200);
        assert_eq!(user_ids(&all), newest_first);
        assert_eq!(all.data()["has_more"], false);
        let first = &all.data()["followers"][0];
        assert_eq!(first["status"], "active");
        assert_eq!(first["marketing_opt_in"], true);
        assert!(first["followed_at"].is_string() && first["updated_at"].is_string());
        assert!(
            !all.body.to_string().contains("+1415555020"),
            "no phone number is ever shown"
        );

        // Pages of two, each starting after the last of the one before.
        let mut paged = Vec::new();
        let mut query = "limit=2".to_string();
        loop {
            let page = followers(&app, &biz, &query).await;
            page.assert_ok(200);
            let page_ids = user_ids(&page);
            assert!(page_ids.len() <= 2);
            paged.extend(page_ids.clone());
            if page.data()["has_more"] == false {
                break;
            }
            query = format!("limit=2&starting_after={}", page_ids.last().unwrap());
        }
        assert_eq!(paged, newest_first);

        let unfollowed = followers(&app, &biz, "status=unfollowed").await;
        assert_eq!(user_ids(&unfollowed), vec![ids[1].clone()]);
        assert_eq!(unfollowed.data()["followers"][0]["marketing_opt_in"], false);
        let active = followers(&app, &biz, "status=active").await;
        assert_eq!(user_ids(&active).len(), 4);
        let opted_in = followers(&app, &biz, "marketing_opt_in=true").await;
        assert_eq!(
            user_ids(&opted_in),
            vec![ids[4].clone(), ids[2].clone(), ids[0].clone()]
        );
        let active_not_opted_in =
            followers(&app, &biz, "status=active&marketing_opt_in=false").await;
        assert_eq!(user_ids(&active_not_opted_in), vec![ids[3].clone()]);

        for (query, code) in [
            ("limit=0", "invalid_limit"),
            ("limit=201", "invalid_limit"),
            ("limit=x", "invalid_limit"),
            ("status=blocked", "invalid_request"),
            ("marketing_opt_in=yes", "invalid_request"),
            ("starting_after=not-a-uuid", "invalid_request"),
        ] {
            followers(&app, &biz, query).await.assert_error(400, code);
        }
        // A cursor that is a user but not a follower of this business.
        let (stranger, _) = app.user("+14155550299").await;
        followers(&app, &biz, &format!("starting_after={stranger}"))
            .await
            .assert_error(400, "invalid_request");
    }
);

e2e!(
    the_lookup_answers_in_request_order_and_no_account_looks_like_never_followed,
    |app| async move {
        let biz = live_business(&app, BIZ, ALL_SCOPES).await;
        let (opted_in, _) = follower(&app, &biz, "+14155550201", true).await;
        let (plain, _) = follower(&app, &biz, "+14155550202", false).await;
        let (gone, gone_token) = follower(&app, &biz, "+14155550203", true).await;
        unfollow(&app, &gone_token, &biz).await;
        app.user("+14155550204").await; // an account that never followed
        let reply = app
            .post(
                "/business/followers/lookup",
                Some(&biz.owner_token),
                json!({ "phone_numbers": [
                    "+14155550204",
                    "+14155550201",
                    "+14155550205",
                    "+14155550202",
                    "+14155550203",
                    "+14155550201",
                ]}),
            )
            .await;
        reply.assert_ok(200);
        let results = reply.data()["results"].as_array().unwrap().clone();
        let row = |phone: &str, follows: bool, opt_in: bool, user: Option<&str>| {
            json!({ "phone_number": phone, "follows": follows, "marketing_opt_in": opt_in,
                    "user_id": user })
        };
        assert_eq!(
            results,
            vec![
                // An account that never followed and no account at all look alike.
                row("+14155550204", false, false, None),
                row("+14155550201", true, true, Some(&opted_in)),
                row("+14155550205", false, false, None),
                row("+14155550202", true, false, Some(&plain)),
                // Once followed: its user id, but no follow and no consent.
                row("+14155550203", false, false, Some(&gone)),
                row("+14155550201", true, true, Some(&opted_in)),
            ]
        );
        // Another business learns nothing of these follows.
        let other = live_business(&app, "+14155550300", ALL_SCOPES).await;
        let reply = app
            .post(
                "/business/followers/lookup",
                Some(&other.owner_token),
                json!({ "phone_numbers": ["+14155550201"] }),
            )
            .await;
        assert_eq!(
            reply.data()["results"][0],
            row("+14155550201", false, false, None)
        );

        let lookup = |numbers: Value| {
            let app = &app;
            let token = biz.owner_token.clone();
            async move {
                app.post(
                    "/business/followers/lookup",
                    Some(&token),
                    json!({ "phone_numbers": numbers }),
                )
                .await
            }
        };
        let bad = lookup(json!(["+14155550201", "+14155550202", "12"])).await;
        bad.assert_error(400, "invalid_phone_number");
        assert!(
            bad.body["detail"]
                .as_str()
                .unwrap()
                .starts_with("phone_numbers[2]:"),
            "{}",
            bad.body
        );
        lookup(json!([])).await.assert_error(400, "invalid_request");
        let many: Vec<String> = (0..101).map(|n| format!("+1415556{n:04}")).collect();
        lookup(json!(many))
            .await
            .assert_error(400, "invalid_request");
        app.post(
            "/business/followers/lookup",
            Some(&biz.owner_token),
            json!({}),
        )
        .await
        .assert_error(400, "invalid_request");
    }
);

fn hundred_lookups() -> Options {
    Options {
        configure: Some(std::sync::Arc::new(|c| {
            c.limits.follower_lookups_per_hour = 100
        })),
        ..Default::default()
    }
}

e2e!(
    the_lookup_limit_takes_every_distinct_number_of_a_request_or_none,
    hundred_lookups(),
    |app| async move {
        let biz = live_business(&app, BIZ, ALL_SCOPES).await;
        let numbers = |from: usize, n: usize| -> Vec<String> {
            (from..from + n)
                .map(|i| format!("+1415556{i:04}"))
                .collect()
        };
        let lookup = |numbers: Vec<String>| {
            let app = &app;
            let token = biz.owner_token.clone();
            async move {
                app.post(
                    "/business/followers/lookup",
                    Some(&token),
                    json!({ "phone_numbers": numbers }),
                )
                .await
            }
        };
        // 60 distinct numbers, one of them twice: 60 units.
        let mut first = numbers(0, 60);
        first.push(first[0].clone());
        lookup(first).await.assert_ok(200);
        // 50 more do not fit: refused whole, nothing taken.
        let refused = lookup(numbers(100, 50)).await;
        refused.assert_error(429, "rate_limited");
        let retry_after = refused.retry_after().expect("Retry-After");
        assert!(retry_after >= 1, "{retry_after}");
        // 40 still fit (60 + 40 = 100 in the hour).
        lookup(numbers(200, 40)).await.assert_ok(200);
        let full = lookup(numbers(300, 1)).await;
        full.assert_error(429, "rate_limited");
        // One unit comes back every 36 s (100 an hour); a number looked up again counts again.
        assert_eq!(full.retry_after(), Some(36));
        app.clock.advance(Duration::from_secs(36));
        lookup(numbers(0, 2))
            .await
            .assert_error(429, "rate_limited");
        lookup(numbers(0, 1)).await.assert_ok(200);
        lookup(numbers(0, 1))
            .await
            .assert_error(429, "rate_limited");
    }
);

e2e!(
    the_consent_history_records_each_change_with_its_source_and_nothing_for_a_no_op,
    |app| async move {
        let biz = live_business(&app, BIZ, ALL_SCOPES).await;
        let fan = "+14155550201";
        let (user_id, token) = follower(&app, &biz, fan, false).await;
        consent(&app, &token, &biz, true).await.assert_ok(200);
        consent(&app, &token, &biz, true).await.assert_ok(200); // no change
        unfollow(&app, &token, &biz).await;
        unfollow(&app, &token, &biz).await; // no change
        follows(&app, &token, &biz, json!({ "marketing_opt_in": true }))
            .await
            .assert_ok(200);
        // Support withdraws consent, then unfollows, on the user's request.
        set_follow(&app, &biz.id, fan, false, Some(false))
            .await
            .unwrap();
        set_follow(&app, &biz.id, fan, false, Some(false))
            .await
            .unwrap(); // no change
        let follow = set_follow(&app, &biz.id, fan, true, None).await.unwrap();
        assert_eq!(follow.status.as_str(), "unfollowed");
        assert!(!follow.marketing_opt_in);

        let reply = history(&app, &biz, &user_id).await;
        reply.assert_ok(200);
        let user = || "user".to_string();
        let operator = || "operator".to_string();
        assert_eq!(
            changes(&reply),
            vec![
                ("active".into(), false, user()),
                ("active".into(), true, user()),
                ("unfollowed".into(), false, user()),
                ("active".into(), true, user()),
                ("active".into(), false, operator()),
                ("unfollowed".into(), false, operator()),
            ]
        );
        let times: Vec<&str> = reply.data()["changes"]
            .as_array()
            .unwrap()
            .iter()
            .map(|c| c["at"].as_str().unwrap())
            .collect();
        assert!(times.windows(2).all(|w| w[0] <= w[1]), "{times:?}");

        // A user who never followed, and an id that is no user.
        let (stranger, _) = app.user("+14155550299").await;
        history(&app, &biz, &stranger)
            .await
            .assert_error(404, "follow_not_found");
        history(&app, &biz, "not-a-uuid")
            .await
            .assert_error(404, "follow_not_found");
        // Another business sees nothing of this follow.
        let other = live_business(&app, "+14155550300", ALL_SCOPES).await;
        history(&app, &other, &user_id)
            .await
            .assert_error(404, "follow_not_found");
    }
);

e2e!(
    support_may_only_withdraw_and_never_creates_a_follow,
    |app| async move {
        let biz = live_business(&app, BIZ, ALL_SCOPES).await;
        follower(&app, &biz, "+14155550201", true).await;
        app.user("+14155550202").await;
        let code = |r: Result<proto::v1::Follow, proto::RemoteError>| r.unwrap_err().code;
        use proto::ErrorCode as E;
        assert_eq!(
            code(set_follow(&app, &biz.id, "+14155550202", true, None).await),
            E::FollowNotFound,
            "no follow to change"
        );
        assert_eq!(
            code(set_follow(&app, &biz.id, "+14155550209", true, None).await),
            E::FollowNotFound,
            "no such user"
        );
        assert_eq!(
            code(set_follow(&app, &biz.id, "+14155550201", false, Some(true)).await),
            E::InvalidRequest,
            "support never grants consent"
        );
        assert_eq!(
            code(set_follow(&app, &biz.id, "+14155550201", true, Some(false)).await),
            E::InvalidRequest,
            "one change at a time"
        );
        assert_eq!(
            code(set_follow(&app, &biz.id, "+14155550201", false, None).await),
            E::InvalidRequest,
            "a change is required"
        );
        assert_eq!(
            code(set_follow(&app, &biz.id, "12", true, None).await),
            E::InvalidPhoneNumber
        );
        let unknown = uuid::Uuid::new_v4().to_string();
        assert_eq!(
            code(set_follow(&app, &unknown, "+14155550201", true, None).await),
            E::BusinessNotFound
        );
        // What support may do, it does.
        let follow = set_follow(&app, &biz.id, "+14155550201", false, Some(false))
            .await
            .unwrap();
        assert_eq!(
            (follow.status.as_str(), follow.marketing_opt_in),
            ("active", false)
        );
    }
);

e2e!(
    follow_events_are_recorded_once_per_real_change_and_reach_subscribed_endpoints_only,
    |app| async move {
        let biz = live_business(&app, BIZ, ALL_SCOPES).await;
        let audience = Receiver::start().await;
        let sends = Receiver::start().await;
        let hook = register_webhook(
            &app,
            &biz,
            &audience.url(),
            &["follow.created", "follow.updated", "follow.deleted"],
        )
        .await;
        register_webhook(&app, &biz, &sends.url(), &["message.sent"]).await;
        let fan = "+14155550201";
        // A second between changes, so that `changed_at` orders the deliveries.
        let tick = || app.clock.advance(Duration::from_secs(1));
        let (user_id, token) = follower(&app, &biz, fan, false).await; // created
        tick();
        follows(&app, &token, &biz, json!({ "marketing_opt_in": false }))
            .await
            .assert_ok(200); // no change
        consent(&app, &token, &biz, true).await.assert_ok(200); // updated
        tick();
        consent(&app, &token, &biz, true).await.assert_ok(200); // no change
        unfollow(&app, &token, &biz).await; // deleted
        tick();
        unfollow(&app, &token, &biz).await; // no change
        follows(&app, &token, &biz, json!({})).await.assert_ok(200); // created
        tick();
        set_follow(&app, &biz.id, fan, true, None).await.unwrap(); // deleted (support)

        let expected = [
            ("follow.created", "active", false),
            ("follow.updated", "active", true),
            ("follow.deleted", "unfollowed", false),
            ("follow.created", "active", false),
            ("follow.deleted", "unfollowed", false),
        ];
        let mut got = audience.wait_for(expected.len()).await;
        // Give a stray extra delivery the time to arrive before counting.
        quiet_for(Duration::from_millis(300)).await;
        assert_eq!(
            audience.received().len(),
            expected.len(),
            "one event per real change"
        );
        got.sort_by_key(|r| r.json()["data"]["changed_at"].as_str().unwrap().to_string());
        let secret = hook["secret"].as_str().unwrap();
        for (received, (event, status, opt_in)) in got.iter().zip(expected) {
            verify_signature(secret, received);
            let body = received.json();
            assert_eq!(received.header("x-service-event"), event);
            assert_eq!(body["type"], event);
            assert_eq!(body["data"]["user_id"], user_id.as_str());
            assert_eq!(body["data"]["status"], status);
            assert_eq!(body["data"]["marketing_opt_in"], opt_in);
            assert!(body["data"]["changed_at"].is_string());
        }
        assert!(
            sends.received().is_empty(),
            "an endpoint that did not list them"
        );
        // Every one is in the deliveries log.
        let log = app
            .get(
                "/business/webhook-deliveries?event_type=follow.created",
                Some(&biz.owner_token),
            )
            .await;
        log.assert_ok(200);
        assert_eq!(log.data()["deliveries"].as_array().unwrap().len(), 2);
        // Endpoints accept the new types, and refuse unknown ones naming them.
        let reply = app
            .post(
                "/business/webhooks",
                Some(&biz.owner_token),
                json!({ "url": "https://hooks.example.com/x", "events": ["follow.renamed"] }),
            )
            .await;
        reply.assert_error(400, "invalid_webhook_events");
        assert!(
            reply.body["detail"]
                .as_str()
                .unwrap()
                .contains("follow.deleted")
        );
    }
);

e2e!(
    a_suspended_business_cannot_read_its_audience,
    |app| async move {
        let biz = live_business(&app, BIZ, ALL_SCOPES).await;
        let (user_id, _) = follower(&app, &biz, "+14155550201", false).await;
        app.set_business(&biz.id, None, Some("suspended")).await;
        followers(&app, &biz, "")
            .await
            .assert_error(403, "business_suspended");
        app.post(
            "/business/followers/lookup",
            Some(&biz.owner_token),
            json!({ "phone_numbers": ["+14155550201"] }),
        )
        .await
        .assert_error(403, "business_suspended");
        history(&app, &biz, &user_id)
            .await
            .assert_error(403, "business_suspended");
        // Any role reads it while the business is active; a user with no business does not.
        app.set_business(&biz.id, None, Some("active")).await;
        let (_, member) = app.user("+14155550301").await;
        crate::fixtures::add_member(&app, &biz.owner_token, "+14155550301", "member").await;
        app.get("/business/followers", Some(&member))
            .await
            .assert_ok(200);
        let (_, nobody) = app.user("+14155550302").await;
        app.get("/business/followers", Some(&nobody))
            .await
            .assert_error(403, "not_a_business_account");
        app.get("/business/followers", None)
            .await
            .assert_error(401, "unauthorized");
    }
);

e2e!(
    follows_made_before_the_ledger_get_one_entry_from_the_migration,
    |app| async move {
        let biz = live_business(&app, BIZ, ALL_SCOPES).await;
        let (user_id, token) = follower(&app, &biz, "+14155550201", false).await;
        consent(&app, &token, &biz, true).await.assert_ok(200);
        // Undo the ledger's migration and apply it again: the follow gets one entry, as it is.
        crate::fixtures::redo_migrations_from(&app, "m20261125_000009_audience").await;
        let reply = history(&app, &biz, &user_id).await;
        reply.assert_ok(200);
        assert_eq!(
            changes(&reply),
            vec![("active".into(), true, "user".into())]
        );
    }
);
