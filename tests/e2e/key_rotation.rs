//! Rotating MASTER_KEY and JWT_SECRET on a running fleet: cores started with the new keys and
//! the old ones as *_PREVIOUS keep signed-in sessions and keep delivering webhooks signed with
//! the endpoints' unchanged secrets; `admin rekey` re-seals the secrets (a rotation's previous
//! secret too), after which the old
//! master key can be dropped. (One-time codes are keyed by MASTER_KEY too: a code requested
//! before the rotation no longer verifies on a core with the new key; ask for a new one.)

use base64::Engine as _;
use proto::v1 as pb;
use reqwest::Method;
use serde_json::json;

use crate::e2e;
use crate::fixtures::Receiver;
use crate::fixtures::{ALL_SCOPES, live_business, register_webhook};

const NEW_MASTER: &str = "ffeeddccbbaa99887766554433221100ffeeddccbbaa99887766554433221100";
const NEW_JWT: &str = "a-new-jwt-secret-that-is-also-at-least-32-bytes";

e2e!(
    keys_rotate_without_signing_anyone_out_or_breaking_a_webhook,
    |app| async move {
        let old_master = app.config.master_key.clone().unwrap();
        let old_jwt = app.config.jwt_secret.clone().unwrap();
        let receiver = Receiver::start().await;
        let biz = live_business(&app, "+14155550100", ALL_SCOPES).await;
        let created = register_webhook(&app, &biz, &receiver.url(), &["message.sent"]).await;
        let secret = created["secret"].as_str().unwrap().to_string();
        let hook = created["id"].as_str().unwrap().to_string();
        // The endpoint's own secret is mid-rotation too: both secrets sign for a day, and the
        // previous one is sealed with the master key as well.
        let rotated_secret = format!(
            "whsec_{}",
            base64::engine::general_purpose::STANDARD.encode([42u8; 32])
        );
        app.post(
            &format!("/business/webhooks/{hook}/rotate-secret"),
            Some(&biz.owner_token),
            json!({ "secret": rotated_secret }),
        )
        .await
        .assert_ok(200);
        app.stop_workers();

        // The fleet moves to the new keys, keeping the old ones as *_PREVIOUS.
        let (m, j) = (old_master.clone(), old_jwt.clone());
        let rotating = app
            .second_stack(move |c| {
                c.master_key = Some(NEW_MASTER.into());
                c.master_key_previous = Some(m);
                c.jwt_secret = Some(NEW_JWT.into());
                c.jwt_secret_previous = Some(j);
            })
            .await;
        app.start_worker_at(&rotating);
        // A session signed with the old JWT secret still works...
        app.request_at(
            &rotating.base,
            Method::GET,
            "/business/me",
            Some(&biz.owner_token),
            None,
        )
        .await
        .assert_ok(200);
        // ...and a delivery is signed with the endpoint's secret, opened with the old key.
        app.request_at(
            &rotating.base,
            Method::POST,
            &format!("/business/webhooks/{hook}/test"),
            Some(&biz.owner_token),
            None,
        )
        .await
        .assert_ok(200);
        let received = receiver.wait_for(1).await;
        crate::fixtures::verify_signature(&secret, &received[0]);

        // The operator re-seals every secret with the new key.
        let mut admin =
            pb::admin_service_client::AdminServiceClient::connect(rotating.grpc_url.clone())
                .await
                .unwrap();
        let rekeyed = admin
            .rekey(app.admin_request(pb::RekeyRequest {}))
            .await
            .unwrap()
            .into_inner();
        assert_eq!(rekeyed.resealed, 1);
        let again = admin
            .rekey(app.admin_request(pb::RekeyRequest {}))
            .await
            .unwrap()
            .into_inner();
        assert_eq!(again.resealed, 0, "nothing left under the old key");
        drop(rotating);

        // The old keys are dropped: the old session is refused, a new one works, and the
        // endpoint's (unchanged) secret still signs its deliveries.
        let rotated = app
            .second_stack(|c| {
                c.master_key = Some(NEW_MASTER.into());
                c.master_key_previous = None;
                c.jwt_secret = Some(NEW_JWT.into());
                c.jwt_secret_previous = None;
            })
            .await;
        app.start_worker_at(&rotated);
        app.request_at(
            &rotated.base,
            Method::GET,
            "/business/me",
            Some(&biz.owner_token),
            None,
        )
        .await
        .assert_error(401, "unauthorized");
        app.clock.advance(std::time::Duration::from_secs(120));
        app.request_at(
            &rotated.base,
            Method::POST,
            "/auth/business/otp/request",
            None,
            Some(json!({ "phone_number": biz.phone })),
        )
        .await
        .assert_ok(200);
        let code = app.sms.last_code(&biz.phone);
        let signed_in = app
            .request_at(
                &rotated.base,
                Method::POST,
                "/auth/business/otp/verify",
                None,
                Some(json!({ "phone_number": biz.phone, "code": code })),
            )
            .await;
        signed_in.assert_ok(200);
        let token = signed_in.data()["access_token"]
            .as_str()
            .unwrap()
            .to_string();
        app.request_at(
            &rotated.base,
            Method::POST,
            &format!("/business/webhooks/{hook}/test"),
            Some(&token),
            None,
        )
        .await
        .assert_ok(200);
        let received = receiver.wait_for(2).await;
        // Both secrets still sign: `admin rekey` re-sealed the previous one too.
        assert_eq!(crate::fixtures::v1_values(&received[1]).len(), 2);
        crate::fixtures::verify_signature(&secret, &received[1]);
        crate::fixtures::verify_signature(&rotated_secret, &received[1]);
    }
);
