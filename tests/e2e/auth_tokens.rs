//! Access tokens (JWT refusals) and refresh-token rotation, family revocation and logout.

use std::time::Duration;

use base64::Engine as _;
use jsonwebtoken::{Algorithm, EncodingKey, Header};
use serde_json::{Value, json};

use crate::e2e;
use crate::fixtures::claims;
use crate::harness::{JWT_SECRET, TestApp};

const PHONE: &str = "+14155550123";

fn sign(claims: &Value, secret: &[u8]) -> String {
    jsonwebtoken::encode(
        &Header::new(Algorithm::HS256),
        claims,
        &EncodingKey::from_secret(secret),
    )
    .unwrap()
}

async fn refresh(app: &TestApp, token: &str) -> crate::harness::Reply {
    app.post("/auth/refresh", None, json!({ "refresh_token": token }))
        .await
}

fn refresh_token(data: &Value) -> String {
    data["refresh_token"].as_str().unwrap().to_string()
}

e2e!(
    refresh_rotates_the_pair_and_the_new_access_token_works,
    |app| async move {
        app.create_user(PHONE).await;
        let first = app.login(PHONE).await;
        let reply = refresh(&app, &refresh_token(&first)).await;
        reply.assert_ok(200);
        let second = reply.data().clone();
        assert_ne!(second["refresh_token"], first["refresh_token"]);
        assert_eq!(second["token_type"], "Bearer");
        let access = second["access_token"].as_str().unwrap();
        app.get("/business/me", Some(access))
            .await
            .assert_error(403, "not_a_business_account");
        // The rotated token works once more.
        refresh(&app, &refresh_token(&second)).await.assert_ok(200);
    }
);

e2e!(
    a_used_refresh_token_presented_again_revokes_its_whole_family,
    |app| async move {
        app.create_user(PHONE).await;
        let first = app.login(PHONE).await;
        let second = refresh(&app, &refresh_token(&first)).await.data().clone();
        // Past the reuse grace (10 s), a spent token is a replay.
        app.clock.advance(Duration::from_secs(11));
        refresh(&app, &refresh_token(&first))
            .await
            .assert_error(401, "invalid_refresh_token");
        // The family is gone: the newest token is refused too.
        refresh(&app, &refresh_token(&second))
            .await
            .assert_error(401, "invalid_refresh_token");
        // Another session (another family) is untouched.
        app.clock.advance(Duration::from_secs(60));
        let other = app.login(PHONE).await;
        refresh(&app, &refresh_token(&other)).await.assert_ok(200);
    }
);

e2e!(
    refresh_refuses_unknown_empty_and_expired_tokens,
    |app| async move {
        app.create_user(PHONE).await;
        refresh(&app, "not-a-token")
            .await
            .assert_error(401, "invalid_refresh_token");
        refresh(&app, "").await.assert_error(400, "invalid_request");
        app.post("/auth/refresh", None, json!({}))
            .await
            .assert_error(400, "invalid_request");
        let tokens = app.login(PHONE).await;
        app.clock.advance(Duration::from_secs(30 * 24 * 3600));
        refresh(&app, &refresh_token(&tokens))
            .await
            .assert_error(401, "invalid_refresh_token");
    }
);

e2e!(refresh_refuses_a_suspended_user, |app| async move {
    app.create_user(PHONE).await;
    let tokens = app.login(PHONE).await;
    app.set_user_status(PHONE, "suspended").await;
    refresh(&app, &refresh_token(&tokens))
        .await
        .assert_error(403, "account_suspended");
});

e2e!(logout_revokes_the_family_of_the_token, |app| async move {
    app.create_user(PHONE).await;
    let tokens = app.login(PHONE).await;
    let rotated = refresh(&app, &refresh_token(&tokens)).await.data().clone();
    app.post(
        "/auth/logout",
        None,
        json!({ "refresh_token": refresh_token(&rotated) }),
    )
    .await
    .assert_ok(200);
    refresh(&app, &refresh_token(&rotated))
        .await
        .assert_error(401, "invalid_refresh_token");
    app.post(
        "/auth/logout",
        None,
        json!({ "refresh_token": refresh_token(&rotated) }),
    )
    .await
    .assert_error(401, "invalid_refresh_token");
    app.post("/auth/logout", None, json!({ "refresh_token": "nope" }))
        .await
        .assert_error(401, "invalid_refresh_token");
});

e2e!(
    access_tokens_expire_on_the_service_clock,
    |app| async move {
        let (_, token) = app.user(PHONE).await;
        app.clock.advance(Duration::from_secs(899));
        app.get("/business/me", Some(&token))
            .await
            .assert_error(403, "not_a_business_account");
        app.clock.advance(Duration::from_secs(1));
        app.get("/business/me", Some(&token))
            .await
            .assert_error(401, "unauthorized");
    }
);

e2e!(
    access_tokens_that_are_forged_unsigned_or_for_another_audience_are_refused,
    |app| async move {
        let (user_id, token) = app.user(PHONE).await;
        let good = claims(&token);
        let now = good["iat"].as_i64().unwrap();
        let base = json!({
            "sub": user_id, "iss": "business-messaging", "aud": "business-messaging-api",
            "iat": now, "exp": now + 600, "jti": "x"
        });
        // The harness's own secret signs a valid token: the refusals below are about one field.
        let valid = sign(&base, JWT_SECRET.as_bytes());
        app.get("/business/me", Some(&valid))
            .await
            .assert_error(403, "not_a_business_account");

        let mut cases: Vec<(&str, String)> = Vec::new();
        cases.push((
            "wrong key",
            sign(&base, b"another-secret-another-secret-0123456789"),
        ));
        let mut aud = base.clone();
        aud["aud"] = json!("someone-else");
        cases.push(("wrong audience", sign(&aud, JWT_SECRET.as_bytes())));
        let mut iss = base.clone();
        iss["iss"] = json!("someone-else");
        cases.push(("wrong issuer", sign(&iss, JWT_SECRET.as_bytes())));
        let mut expired = base.clone();
        expired["exp"] = json!(now - 1);
        cases.push(("expired", sign(&expired, JWT_SECRET.as_bytes())));
        let mut no_exp = base.clone();
        no_exp.as_object_mut().unwrap().remove("exp");
        cases.push(("no exp", sign(&no_exp, JWT_SECRET.as_bytes())));
        let b64 = |s: &str| base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(s);
        cases.push((
            "alg none",
            format!(
                "{}.{}.",
                b64(r#"{"alg":"none","typ":"JWT"}"#),
                b64(&base.to_string())
            ),
        ));
        let hs512 = jsonwebtoken::encode(
            &Header::new(Algorithm::HS512),
            &base,
            &EncodingKey::from_secret(JWT_SECRET.as_bytes()),
        )
        .unwrap();
        cases.push(("another algorithm", hs512));
        cases.push(("garbage", "abc.def.ghi".to_string()));
        let mut unknown = base.clone();
        unknown["sub"] = json!(uuid::Uuid::new_v4().to_string());
        cases.push(("unknown user", sign(&unknown, JWT_SECRET.as_bytes())));

        for (why, token) in cases {
            let reply = app.get("/business/me", Some(&token)).await;
            assert_eq!(
                (reply.status, reply.message()),
                (401, "unauthorized"),
                "{why}"
            );
        }
        // No header, or another scheme.
        app.get("/business/me", None)
            .await
            .assert_error(401, "unauthorized");
        let reply = app
            .http
            .get(format!("{}/business/me", app.base))
            .header("authorization", format!("Basic {token}"))
            .send()
            .await
            .unwrap();
        assert_eq!(reply.status(), 401);
    }
);

e2e!(
    a_suspended_users_valid_token_is_refused_on_every_call,
    |app| async move {
        let (_, token) = app.user(PHONE).await;
        app.set_user_status(PHONE, "banned").await;
        app.get("/business/me", Some(&token))
            .await
            .assert_error(403, "account_suspended");
        app.post(
            "/business/sandbox",
            Some(&token),
            json!({ "business_name": "X" }),
        )
        .await
        .assert_error(403, "account_suspended");
    }
);

fn with_internal_token() -> crate::harness::Options {
    crate::harness::Options {
        internal_token: Some("s3cret-internal".into()),
        ..Default::default()
    }
}

e2e!(
    admin_service_requires_the_internal_token_when_one_is_set,
    with_internal_token(),
    |app| async move {
        let err = app
            .admin()
            .await
            .create_user(proto::v1::CreateUserRequest {
                phone_number: PHONE.into(),
            })
            .await
            .unwrap_err();
        assert_eq!(
            proto::RemoteError::from_status(&err).code,
            proto::ErrorCode::Unauthorized
        );
        let mut request = tonic::Request::new(proto::v1::CreateUserRequest {
            phone_number: PHONE.into(),
        });
        request
            .metadata_mut()
            .insert("authorization", "Bearer s3cret-internal".parse().unwrap());
        let user = app
            .admin()
            .await
            .create_user(request)
            .await
            .unwrap()
            .into_inner();
        assert_eq!(user.phone_number, PHONE);
        assert_eq!(user.status.as_str(), "active");
    }
);

e2e!(
    a_token_presented_again_within_the_reuse_grace_gets_a_pair_in_the_same_family,
    |app| async move {
        app.create_user(PHONE).await;
        let first = app.login(PHONE).await;
        // Two tabs refresh with the same token at once: both stay signed in.
        let spent = refresh_token(&first);
        let (a, b) = tokio::join!(refresh(&app, &spent), refresh(&app, &spent));
        a.assert_ok(200);
        b.assert_ok(200);
        assert_ne!(a.data()["refresh_token"], b.data()["refresh_token"]);
        // 9 s after the rotation the spent token still gets a pair, and the family lives on.
        app.clock.advance(Duration::from_secs(9));
        let late = refresh(&app, &refresh_token(&first)).await;
        late.assert_ok(200);
        refresh(&app, &refresh_token(a.data())).await.assert_ok(200);
        // Presented 11 s after its rotation, it is a replay: the family is revoked.
        app.clock.advance(Duration::from_secs(2));
        refresh(&app, &refresh_token(&first))
            .await
            .assert_error(401, "invalid_refresh_token");
        refresh(&app, &refresh_token(b.data()))
            .await
            .assert_error(401, "invalid_refresh_token");
        refresh(&app, &refresh_token(late.data()))
            .await
            .assert_error(401, "invalid_refresh_token");
    }
);

/// The methods of `service` (`bm.v1.AdminService`, ...), read from the served descriptor set.
fn methods_of(service: &str) -> Vec<String> {
    use prost::Message as _;
    let set = prost_types::FileDescriptorSet::decode(proto::v1::FILE_DESCRIPTOR_SET).unwrap();
    let (package, name) = service.rsplit_once('.').unwrap();
    set.file
        .iter()
        .filter(|f| f.package() == package)
        .flat_map(|f| &f.service)
        .filter(|s| s.name() == name)
        .flat_map(|s| &s.method)
        .map(|m| m.name().to_string())
        .collect()
}

e2e!(
    every_method_of_the_internal_services_refuses_a_caller_without_the_internal_token,
    with_internal_token(),
    |app| async move {
        for service in [
            "bm.v1.AdminService",
            "bm.v1.PrivacyService",
            "bm.v1.WebhookJobService",
        ] {
            let methods = methods_of(service);
            assert!(methods.len() >= 3, "{service}: {methods:?}");
            for method in methods {
                for authorization in [None, Some("Bearer not-the-token")] {
                    let channel = tonic::transport::Endpoint::from_shared(app.grpc_url.clone())
                        .unwrap()
                        .connect()
                        .await
                        .unwrap();
                    let mut client = tonic::client::Grpc::new(channel);
                    client.ready().await.unwrap();
                    // An empty message is a valid request of every type: the guard answers
                    // before the body is read.
                    let mut request = tonic::Request::new(proto::v1::Empty {});
                    if let Some(value) = authorization {
                        request
                            .metadata_mut()
                            .insert("authorization", value.parse().unwrap());
                    }
                    let path = format!("/{service}/{method}").parse().unwrap();
                    let codec =
                        tonic_prost::ProstCodec::<proto::v1::Empty, proto::v1::Empty>::default();
                    let err = client.unary(request, path, codec).await.unwrap_err();
                    assert_eq!(
                        proto::RemoteError::from_status(&err).code,
                        proto::ErrorCode::Unauthorized,
                        "{service}/{method} with {authorization:?}"
                    );
                }
            }
        }
    }
);
