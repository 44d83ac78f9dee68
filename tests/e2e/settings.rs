//! Every setting does what it says. Each documented environment variable has a row here: either
//! a probe that starts a stack with the variable read the way its binary reads it (through its
//! clap argument) and shows the effect, or the name of the test elsewhere that does. The
//! manuals' settings tables (core-service, rest-gateway and webhook-worker READMEs), this table
//! and the variables the binaries claim are the same set.

use std::ffi::OsStr;
use std::sync::Arc;
use std::time::Duration;

use clap::{Args, Command, FromArgMatches};
use core_service::CoreConfig;
use core_service::clock::Clock;
use serde_json::json;

use crate::e2e;
use crate::fixtures::Receiver;
use crate::fixtures::{ALL_SCOPES, follower, live_business, register_webhook};
use crate::fixtures::{verify_code, wrong_code};
use crate::harness::{Options, TestApp, eventually};

/// Applies `env` to `target` as the binary that declares `T` reads it: each variable through
/// its clap argument, every other field left as it is.
fn apply<T: Args + FromArgMatches>(target: &mut T, env: &[(&str, &str)]) {
    // Without their defaults, only the arguments given are present, so an update changes
    // only their fields.
    let command = T::augment_args(Command::new("settings")).mut_args(|a| a.default_value(None));
    let mut argv = vec!["settings".to_string()];
    for (name, value) in env {
        let arg = command
            .get_arguments()
            .find(|a| a.get_env() == Some(OsStr::new(name)))
            .unwrap_or_else(|| panic!("no argument reads {name}"));
        argv.push(format!("--{}={value}", arg.get_long().unwrap()));
    }
    let matches = command
        .try_get_matches_from(&argv)
        .unwrap_or_else(|e| panic!("{argv:?}: {e}"));
    target.update_from_arg_matches(&matches).unwrap();
}

/// Options whose core (and gateway) read `core` (and `gateway`) from the environment.
fn with(core: &'static [(&'static str, &'static str)]) -> Options {
    Options {
        configure: Some(Arc::new(move |c: &mut CoreConfig| apply(c, core))),
        ..Options::default()
    }
}

fn with_gateway(
    core: &'static [(&'static str, &'static str)],
    gateway: &'static [(&'static str, &'static str)],
) -> Options {
    Options {
        configure: Some(Arc::new(move |c: &mut CoreConfig| apply(c, core))),
        http: Some(Arc::new(move |h| apply(h, gateway))),
        ..Options::default()
    }
}

/// The claims of an access token (not verified: the test only reads them).
fn claims(token: &str) -> serde_json::Value {
    use base64::Engine;
    let payload = token.split('.').nth(1).unwrap();
    let bytes = base64::engine::general_purpose::URL_SAFE_NO_PAD
        .decode(payload)
        .unwrap();
    serde_json::from_slice(&bytes).unwrap()
}

const PHONE: &str = "+14155553000";

async fn request_code(
    app: &TestApp,
    phone: &str,
    forwarded: Option<&str>,
) -> crate::harness::Reply {
    let mut request = app
        .http
        .post(format!("{}/auth/business/otp/request", app.base))
        .json(&json!({ "phone_number": phone }));
    if let Some(ip) = forwarded {
        request = request.header("x-forwarded-for", ip);
    }
    crate::harness::into_reply(request.send().await.unwrap()).await
}

e2e!(
    setting_access_token_ttl_secs,
    with(&[("ACCESS_TOKEN_TTL_SECS", "120")]),
    |app| async move {
        app.create_user(PHONE).await;
        let pair = app.login(PHONE).await;
        assert_eq!(pair["expires_in"], 120, "{pair}");
        let c = claims(pair["access_token"].as_str().unwrap());
        assert_eq!(c["exp"].as_i64().unwrap() - c["iat"].as_i64().unwrap(), 120);
    }
);

e2e!(
    setting_refresh_token_ttl_secs,
    with(&[("REFRESH_TOKEN_TTL_SECS", "3600")]),
    |app| async move {
        app.create_user(PHONE).await;
        let pair = app.login(PHONE).await;
        app.clock.advance(Duration::from_secs(3601));
        app.post(
            "/auth/refresh",
            None,
            json!({ "refresh_token": pair["refresh_token"] }),
        )
        .await
        .assert_error(401, "invalid_refresh_token");
    }
);

e2e!(
    setting_jwt_issuer_and_jwt_audience,
    with(&[
        ("JWT_ISSUER", "acme-messaging"),
        ("JWT_AUDIENCE", "acme-api")
    ]),
    |app| async move {
        app.create_user(PHONE).await;
        let pair = app.login(PHONE).await;
        let token = pair["access_token"].as_str().unwrap();
        let c = claims(token);
        assert_eq!(
            (c["iss"].as_str(), c["aud"].as_str()),
            (Some("acme-messaging"), Some("acme-api"))
        );
        app.get("/me", Some(token)).await.assert_ok(200);
    }
);

e2e!(
    setting_otp_cooldown_secs,
    with(&[("OTP_COOLDOWN_SECS", "5")]),
    |app| async move {
        app.create_user(PHONE).await;
        request_code(&app, PHONE, None).await.assert_ok(200);
        let refused = request_code(&app, PHONE, None).await;
        refused.assert_error(429, "rate_limited");
        assert!(refused.retry_after().unwrap() <= 5, "{:?}", refused.headers);
        app.clock.advance(Duration::from_secs(6));
        request_code(&app, PHONE, None).await.assert_ok(200);
    }
);

e2e!(
    setting_otp_requests_per_phone_per_hour,
    with(&[("OTP_REQUESTS_PER_PHONE_PER_HOUR", "2")]),
    |app| async move {
        app.create_user(PHONE).await;
        for _ in 0..2 {
            request_code(&app, PHONE, None).await.assert_ok(200);
            app.clock.advance(Duration::from_secs(61));
        }
        request_code(&app, PHONE, None)
            .await
            .assert_error(429, "rate_limited");
    }
);

e2e!(
    setting_otp_requests_per_ip_per_hour,
    with(&[("OTP_REQUESTS_PER_IP_PER_HOUR", "2")]),
    |app| async move {
        for phone in ["+14155553001", "+14155553002"] {
            request_code(&app, phone, None).await.assert_ok(200);
        }
        request_code(&app, "+14155553003", None)
            .await
            .assert_error(429, "rate_limited");
    }
);

e2e!(
    setting_otp_verifies_per_ip_per_hour,
    with(&[("OTP_VERIFIES_PER_IP_PER_HOUR", "2")]),
    |app| async move {
        app.create_user(PHONE).await;
        for _ in 0..2 {
            verify_code(&app, PHONE, "000000")
                .await
                .assert_error(400, "invalid_otp_code");
        }
        verify_code(&app, PHONE, "000000")
            .await
            .assert_error(429, "rate_limited");
    }
);

e2e!(
    setting_otp_daily_failures_per_phone,
    with(&[("OTP_DAILY_FAILURES_PER_PHONE", "2")]),
    |app| async move {
        app.create_user(PHONE).await;
        let code = app.request_code(PHONE).await;
        for _ in 0..2 {
            verify_code(&app, PHONE, &wrong_code(&code))
                .await
                .assert_error(400, "invalid_otp_code");
        }
        // The right code, but the phone is locked for the day.
        verify_code(&app, PHONE, &code)
            .await
            .assert_error(429, "rate_limited");
    }
);

e2e!(
    setting_trust_proxy,
    with_gateway(
        &[("OTP_REQUESTS_PER_IP_PER_HOUR", "1")],
        &[("TRUST_PROXY", "true")]
    ),
    |app| async move {
        // Each request comes from another client behind the proxy: the per-IP limit sees them
        // apart. (Without TRUST_PROXY they are one peer: see the next test.)
        request_code(&app, "+14155553001", Some("203.0.113.1"))
            .await
            .assert_ok(200);
        request_code(&app, "+14155553002", Some("203.0.113.2"))
            .await
            .assert_ok(200);
        request_code(&app, "+14155553003", Some("203.0.113.1"))
            .await
            .assert_error(429, "rate_limited");
    }
);

e2e!(
    setting_trust_proxy_off_ignores_x_forwarded_for,
    with_gateway(
        &[("OTP_REQUESTS_PER_IP_PER_HOUR", "1")],
        &[("TRUST_PROXY", "false")]
    ),
    |app| async move {
        request_code(&app, "+14155553001", Some("203.0.113.1"))
            .await
            .assert_ok(200);
        request_code(&app, "+14155553002", Some("203.0.113.2"))
            .await
            .assert_error(429, "rate_limited");
    }
);

e2e!(
    setting_webhook_retry_unit_secs,
    with(&[("WEBHOOK_RETRY_UNIT_SECS", "7")]),
    |app| async move {
        let receiver = Receiver::start().await;
        receiver.answer(500);
        let biz = live_business(&app, PHONE, ALL_SCOPES).await;
        follower(&app, &biz, "+14155553001", false).await;
        register_webhook(&app, &biz, &receiver.url(), &["message.sent"]).await;
        crate::fixtures::send_v1(
            &app,
            &biz,
            json!({ "to": "+14155553001", "category": "utility", "body": "hi" }),
            None,
        )
        .await
        .assert_ok(200);
        receiver.wait_for(1).await;
        // The first retry waits one unit after the failed attempt.
        let delivery = eventually("the delivery is retrying", async || {
            let log = app
                .get(
                    "/business/webhook-deliveries?limit=10",
                    Some(&biz.owner_token),
                )
                .await;
            let delivery = log.data()["deliveries"][0].clone();
            (delivery["status"] == "retrying").then_some(delivery)
        })
        .await;
        assert_eq!(delivery["status"], "retrying", "{delivery}");
        let at = |v: &serde_json::Value| {
            chrono::DateTime::parse_from_rfc3339(v.as_str().unwrap()).unwrap()
        };
        let attempted = at(&delivery["updated_at"]);
        let next = at(&delivery["next_attempt_at"]);
        assert_eq!((next - attempted).num_seconds(), 7, "{delivery}");
    }
);

e2e!(
    setting_webhook_tests_per_endpoint_per_minute,
    with(&[("WEBHOOK_TESTS_PER_ENDPOINT_PER_MINUTE", "1")]),
    |app| async move {
        let receiver = Receiver::start().await;
        let biz = live_business(&app, PHONE, ALL_SCOPES).await;
        let hook = register_webhook(&app, &biz, &receiver.url(), &["message.sent"]).await;
        let path = format!("/business/webhooks/{}/test", hook["id"].as_str().unwrap());
        app.post(&path, Some(&biz.owner_token), json!({}))
            .await
            .assert_ok(200);
        app.post(&path, Some(&biz.owner_token), json!({}))
            .await
            .assert_error(429, "rate_limited");
    }
);

/// An HTTP server that accepts connections and never answers.
fn silent_server() -> String {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}/sms", listener.local_addr().unwrap());
    std::thread::spawn(move || {
        let mut held = Vec::new();
        for stream in listener.incoming().map_while(Result::ok) {
            held.push(stream);
        }
    });
    url
}

e2e!(
    setting_core_timeout_secs,
    {
        let url = silent_server();
        Options {
            real_sms: true,
            configure: Some(Arc::new(move |c: &mut CoreConfig| {
                apply(
                    c,
                    &[("SMS_PROVIDER", "http"), ("SMS_HTTP_URL", url.as_str())],
                )
            })),
            http: Some(Arc::new(|h| apply(h, &[("CORE_TIMEOUT_SECS", "1")]))),
            ..Options::default()
        }
    },
    |app| async move {
        app.create_user(PHONE).await;
        // The core waits up to 5 s for the SMS provider (then it would answer 503
        // sms_delivery_unavailable); the gateway gives up on the core after 1 s first.
        request_code(&app, PHONE, None)
            .await
            .assert_error(503, "service_unavailable");
    }
);

e2e!(
    setting_database_max_connections,
    with(&[("DATABASE_MAX_CONNECTIONS", "3")]),
    |app| async move {
        use sea_orm::DbBackend;
        match app.core.db.get_database_backend() {
            DbBackend::Postgres => {
                let pool = app.core.db.get_postgres_connection_pool();
                assert_eq!(pool.options().get_max_connections(), 3);
            }
            // SQLite always uses one writer connection, whatever the setting.
            _ => {
                let pool = app.core.db.get_sqlite_connection_pool();
                assert_eq!(pool.options().get_max_connections(), 1);
            }
        }
    }
);

e2e!(
    setting_retention_of_each_kind_of_data_and_purge_batch_size,
    with(&[
        ("PURGE_BATCH_SIZE", "1"),
        ("RETENTION_MESSAGES_DAYS", "3"),
        ("RETENTION_INBOX_DAYS", "4"),
        ("RETENTION_EVENTS_DAYS", "2"),
        ("RETENTION_DELIVERIES_DAYS", "2"),
        ("RETENTION_IDEMPOTENCY_KEYS_HOURS", "5"),
        ("RETENTION_OTP_CODES_HOURS", "2"),
        ("RETENTION_QR_SESSIONS_HOURS", "3"),
        ("RETENTION_REFRESH_FAMILIES_DAYS", "1"),
    ]),
    |app| async move {
        use crate::fixtures::{attempts_reported, counts, one_of_everything, purge};
        let receiver = Receiver::start().await;
        one_of_everything(&app, &receiver, 5).await;
        attempts_reported(&app, 1).await;
        let start = app.clock.now();
        let hour = 3600;
        // (age from creation + 10 minutes, the tables emptied by then), in time order.
        let steps: &[(u64, &[&str])] = &[
            (5 * 60 + 2 * hour, &["otp_codes"]),
            (2 * 60 + 3 * hour, &["qr_sessions"]),
            (29 * hour, &["idempotency_keys"]),
            (
                48 * hour,
                &["events", "webhook_deliveries", "webhook_attempts"],
            ),
            (72 * hour, &["messages"]),
            (96 * hour, &["inbox_messages"]),
            // Refresh tokens live 30 days by default; the dead family is kept one more.
            (31 * 24 * hour, &["refresh_families", "refresh_tokens"]),
        ];
        let mut gone: Vec<&str> = Vec::new();
        for (age, tables) in steps {
            // Just before: nothing of this step has gone.
            for (offset, expect_gone) in [(-600i64, false), (600, true)] {
                let at = start + chrono::TimeDelta::seconds(*age as i64 + offset);
                let now = app.clock.now();
                if at > now {
                    app.clock.advance((at - now).to_std().unwrap());
                }
                let purged = purge(&app).await;
                let counts = counts(&app).await;
                for table in tables.iter() {
                    assert_eq!(
                        counts[table] == 0,
                        expect_gone,
                        "{table} at {age}s{offset:+}: {counts:?} {purged:?}"
                    );
                }
                for table in &gone {
                    assert_eq!(counts[table], 0, "{table}");
                }
            }
            gone.extend(tables.iter());
        }
    }
);

e2e!(
    setting_purge_interval_secs,
    with(&[("PURGE_INTERVAL_SECS", "1")]),
    |app| async move {
        use crate::fixtures::{attempts_reported, counts, one_of_everything};
        let receiver = Receiver::start().await;
        one_of_everything(&app, &receiver, 6).await;
        attempts_reported(&app, 1).await;
        app.clock.advance(Duration::from_secs(100 * 24 * 3600));
        // No one calls the purge: the core's own pass, every second, empties the tables.
        eventually("the background purge emptied the tables", async || {
            counts(&app).await.values().all(|n| *n == 0).then_some(())
        })
        .await;
    }
);
