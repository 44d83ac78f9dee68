//! The operator's find-and-fix commands (AdminService): find a user, show a business by id or
//! phone, list businesses, lift a phone's daily lock, revoke one app, pause one endpoint.

use proto::v1 as pb;
use serde_json::json;

use crate::e2e;
use crate::fixtures::{ALL_SCOPES, add_member, live_business, register_webhook};
use crate::harness::eventually;

const OWNER: &str = "+14155550100";

/// The catalogue code of a refused admin call.
fn code(status: &tonic::Status) -> proto::ErrorCode {
    proto::RemoteError::from_status(status).code
}
const MEMBER: &str = "+14155550101";

e2e!(
    operator_finds_a_user_and_shows_a_business_by_id_or_phone_and_lists_businesses,
    |app| async move {
        let biz = live_business(&app, OWNER, ALL_SCOPES).await;
        let (member_id, _) = app.user(MEMBER).await;
        add_member(&app, &biz.owner_token, MEMBER, "admin").await;
        let mut admin = app.admin().await;

        let found = admin
            .find_user(app.admin_request(pb::FindUserRequest {
                phone_number: MEMBER.into(),
            }))
            .await
            .unwrap()
            .into_inner();
        assert_eq!(found.user.unwrap().id, member_id);
        assert_eq!(found.business_account_id.as_deref(), Some(biz.id.as_str()));
        assert_eq!(found.role.as_deref(), Some("admin"));
        let missing = admin
            .find_user(app.admin_request(pb::FindUserRequest {
                phone_number: "+14155550199".into(),
            }))
            .await
            .unwrap_err();
        assert_eq!(code(&missing), proto::ErrorCode::UserNotFound);

        for request in [
            pb::GetBusinessRequest {
                id: Some(biz.id.clone()),
                phone_number: None,
            },
            pb::GetBusinessRequest {
                id: None,
                phone_number: Some(OWNER.into()),
            },
            pb::GetBusinessRequest {
                id: None,
                phone_number: Some(MEMBER.into()),
            },
        ] {
            let detail = admin
                .get_business(app.admin_request(request))
                .await
                .unwrap()
                .into_inner();
            let business = detail.business.unwrap();
            assert_eq!(business.user_id, biz.id);
            assert_eq!(business.mode.as_str(), "live");
            assert_eq!(business.phone_number, OWNER);
            assert_eq!(detail.team.len(), 2);
            assert_eq!(detail.apps.len(), 1, "the fixture's app");
        }
        let neither = admin
            .get_business(app.admin_request(pb::GetBusinessRequest::default()))
            .await
            .unwrap_err();
        assert_eq!(code(&neither), proto::ErrorCode::InvalidRequest);

        let live = admin
            .list_businesses(app.admin_request(pb::ListBusinessesRequest {
                status: Some("active".into()),
                mode: Some("live".into()),
                limit: 0,
            }))
            .await
            .unwrap()
            .into_inner();
        assert_eq!(live.businesses.len(), 1);
        let sandbox = admin
            .list_businesses(app.admin_request(pb::ListBusinessesRequest {
                status: None,
                mode: Some("sandbox".into()),
                limit: 10,
            }))
            .await
            .unwrap()
            .into_inner();
        assert!(sandbox.businesses.is_empty());
        let bad = admin
            .list_businesses(app.admin_request(pb::ListBusinessesRequest {
                status: Some("asleep".into()),
                mode: None,
                limit: 0,
            }))
            .await
            .unwrap_err();
        assert_eq!(code(&bad), proto::ErrorCode::InvalidRequest);
    }
);

e2e!(
    operator_unlocks_a_phone_locked_for_the_day,
    |app| async move {
        app.create_user(OWNER).await;
        let verify = |code: &'static str| {
            app.post(
                "/auth/business/otp/verify",
                None,
                json!({ "phone_number": OWNER, "code": code }),
            )
        };
        for _ in 0..20 {
            verify("000000").await.assert_error(400, "invalid_otp_code");
        }
        verify("000000").await.assert_error(429, "rate_limited");
        let mut admin = app.admin().await;
        let unlocked = admin
            .unlock_phone(app.admin_request(pb::UnlockPhoneRequest {
                phone_number: OWNER.into(),
            }))
            .await
            .unwrap()
            .into_inner();
        assert!(unlocked.was_locked);
        let code = app.request_code(OWNER).await;
        app.post(
            "/auth/business/otp/verify",
            None,
            json!({ "phone_number": OWNER, "code": code }),
        )
        .await
        .assert_ok(200);
        let again = admin
            .unlock_phone(app.admin_request(pb::UnlockPhoneRequest {
                phone_number: OWNER.into(),
            }))
            .await
            .unwrap()
            .into_inner();
        assert!(!again.was_locked, "nothing left to unlock");
    }
);

e2e!(
    operator_revokes_one_app_and_pauses_one_endpoint_of_any_business,
    |app| async move {
        let biz = live_business(&app, OWNER, ALL_SCOPES).await;
        let hook =
            register_webhook(&app, &biz, "http://127.0.0.1:9/hooks", &["message.sent"]).await;
        let hook_id = hook["id"].as_str().unwrap().to_string();
        let mut admin = app.admin().await;
        let revoked = admin
            .revoke_app(app.admin_request(pb::RevokeAppRequest {
                id: biz.app_id.clone(),
            }))
            .await
            .unwrap()
            .into_inner();
        assert_eq!(revoked.id, biz.app_id);
        // The leaked token no longer sends; the business itself is untouched.
        crate::fixtures::send_v1(
            &app,
            &biz,
            json!({ "to": "+14155550102", "category": "utility", "body": "hi" }),
            None,
        )
        .await
        .assert_error(401, "invalid_app_token");
        app.get("/business/me", Some(&biz.owner_token))
            .await
            .assert_ok(200);
        let gone = admin
            .revoke_app(app.admin_request(pb::RevokeAppRequest {
                id: biz.app_id.clone(),
            }))
            .await
            .unwrap_err();
        assert_eq!(code(&gone), proto::ErrorCode::AppNotFound);

        let paused = admin
            .pause_webhook(app.admin_request(pb::PauseWebhookRequest {
                id: hook_id.clone(),
            }))
            .await
            .unwrap()
            .into_inner();
        assert!(!paused.active);
        let listed = app.get("/business/webhooks", Some(&biz.owner_token)).await;
        assert_eq!(listed.data()[0]["active"], false);
        let unknown = admin
            .pause_webhook(app.admin_request(pb::PauseWebhookRequest {
                id: uuid::Uuid::new_v4().to_string(),
            }))
            .await
            .unwrap_err();
        assert_eq!(code(&unknown), proto::ErrorCode::WebhookNotFound);
    }
);

e2e!(
    operator_retries_the_failed_deliveries_of_every_active_endpoint_of_a_business,
    |app| async move {
        use crate::fixtures::Receiver;
        let rx = Receiver::start().await;
        rx.answer(410);
        let biz = live_business(&app, OWNER, ALL_SCOPES).await;
        crate::fixtures::follower(&app, &biz, "+14155550102", false).await;
        register_webhook(&app, &biz, &format!("{}?a", rx.url()), &["message.sent"]).await;
        let paused =
            register_webhook(&app, &biz, &format!("{}?p", rx.url()), &["message.sent"]).await;
        let paused_id = paused["id"].as_str().unwrap().to_string();
        let since = chrono::Utc::now() - chrono::TimeDelta::minutes(1);
        crate::fixtures::send_v1(
            &app,
            &biz,
            json!({ "to": "+14155550102", "category": "utility", "body": "hi" }),
            None,
        )
        .await
        .assert_ok(200);
        rx.wait_for(2).await;
        let failed = || async {
            let log = app
                .get("/business/webhook-deliveries", Some(&biz.owner_token))
                .await;
            log.data()["deliveries"]
                .as_array()
                .unwrap()
                .iter()
                .filter(|d| d["status"] == "failed")
                .count()
        };
        eventually("two deliveries failed", async || {
            (failed().await == 2).then_some(())
        })
        .await;
        assert_eq!(failed().await, 2);
        let mut admin = app.admin().await;
        admin
            .pause_webhook(app.admin_request(pb::PauseWebhookRequest {
                id: paused_id.clone(),
            }))
            .await
            .unwrap();
        rx.answer(200);
        let result = admin
            .retry_deliveries(app.admin_request(pb::RetryDeliveriesRequest {
                business_account_id: biz.id.clone(),
                since: since.to_rfc3339(),
            }))
            .await
            .unwrap()
            .into_inner();
        assert_eq!(result.endpoints.len(), 1);
        assert_eq!(result.endpoints[0].requeued, 1);
        assert_eq!(result.skipped_paused, vec![paused_id]);
        rx.wait_for(3).await;
        for (business_account_id, since, expected) in [
            (
                biz.id.clone(),
                "yesterday".to_string(),
                proto::ErrorCode::InvalidRequest,
            ),
            (
                uuid::Uuid::new_v4().to_string(),
                since.to_rfc3339(),
                proto::ErrorCode::BusinessNotFound,
            ),
        ] {
            let err = admin
                .retry_deliveries(app.admin_request(pb::RetryDeliveriesRequest {
                    business_account_id,
                    since,
                }))
                .await
                .unwrap_err();
            assert_eq!(code(&err), expected);
        }
    }
);
