//! Every setting does what it says. Each documented environment variable has a row here: either
//! a probe that starts a stack with the variable read the way its binary reads it (through its
//! clap argument) and shows the effect, or the name of the test elsewhere that does. The
//! manuals' settings tables (core-service, rest-gateway and webhook-worker READMEs), this table
//! and the variables the binaries claim are the same set.

use std::collections::BTreeSet;
use std::ffi::OsStr;
use std::sync::Arc;
use std::time::Duration;

use clap::{Args, Command, FromArgMatches};
use core_service::CoreConfig;
use core_service::clock::Clock;
use serde_json::json;

use crate::e2e;
use crate::fixtures::Receiver;
use crate::fixtures::docs::manual_section;
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

/// Settings probed above, by the test that shows each.
const PROBED: &[(&str, &str)] = &[
    ("ACCESS_TOKEN_TTL_SECS", "setting_access_token_ttl_secs"),
    ("REFRESH_TOKEN_TTL_SECS", "setting_refresh_token_ttl_secs"),
    ("JWT_ISSUER", "setting_jwt_issuer_and_jwt_audience"),
    ("JWT_AUDIENCE", "setting_jwt_issuer_and_jwt_audience"),
    ("OTP_COOLDOWN_SECS", "setting_otp_cooldown_secs"),
    (
        "OTP_REQUESTS_PER_PHONE_PER_HOUR",
        "setting_otp_requests_per_phone_per_hour",
    ),
    (
        "OTP_REQUESTS_PER_IP_PER_HOUR",
        "setting_otp_requests_per_ip_per_hour",
    ),
    (
        "OTP_VERIFIES_PER_IP_PER_HOUR",
        "setting_otp_verifies_per_ip_per_hour",
    ),
    (
        "OTP_DAILY_FAILURES_PER_PHONE",
        "setting_otp_daily_failures_per_phone",
    ),
    ("TRUST_PROXY", "setting_trust_proxy"),
    ("WEBHOOK_RETRY_UNIT_SECS", "setting_webhook_retry_unit_secs"),
    (
        "WEBHOOK_TESTS_PER_ENDPOINT_PER_MINUTE",
        "setting_webhook_tests_per_endpoint_per_minute",
    ),
    ("CORE_TIMEOUT_SECS", "setting_core_timeout_secs"),
    ("SMS_PROVIDER", "setting_core_timeout_secs"),
    ("SMS_HTTP_URL", "setting_core_timeout_secs"),
    (
        "DATABASE_MAX_CONNECTIONS",
        "setting_database_max_connections",
    ),
    ("PURGE_INTERVAL_SECS", "setting_purge_interval_secs"),
    (
        "PURGE_BATCH_SIZE",
        "setting_retention_of_each_kind_of_data_and_purge_batch_size",
    ),
    (
        "RETENTION_MESSAGES_DAYS",
        "setting_retention_of_each_kind_of_data_and_purge_batch_size",
    ),
    (
        "RETENTION_INBOX_DAYS",
        "setting_retention_of_each_kind_of_data_and_purge_batch_size",
    ),
    (
        "RETENTION_EVENTS_DAYS",
        "setting_retention_of_each_kind_of_data_and_purge_batch_size",
    ),
    (
        "RETENTION_DELIVERIES_DAYS",
        "setting_retention_of_each_kind_of_data_and_purge_batch_size",
    ),
    (
        "RETENTION_IDEMPOTENCY_KEYS_HOURS",
        "setting_retention_of_each_kind_of_data_and_purge_batch_size",
    ),
    (
        "RETENTION_OTP_CODES_HOURS",
        "setting_retention_of_each_kind_of_data_and_purge_batch_size",
    ),
    (
        "RETENTION_QR_SESSIONS_HOURS",
        "setting_retention_of_each_kind_of_data_and_purge_batch_size",
    ),
    (
        "RETENTION_REFRESH_FAMILIES_DAYS",
        "setting_retention_of_each_kind_of_data_and_purge_batch_size",
    ),
];

/// Settings whose effect another test shows: (variable, file from the workspace root, test,
/// what that test sets).
const ELSEWHERE: &[(&str, &str, &str, &str)] = &[
    (
        "RUNTIME_THREADS",
        "rest-gateway/tests/all_in_one_settings.rs",
        "runtime_threads_sizes_the_runtime_of_the_all_in_one_and_of_the_gateway",
        "RUNTIME_THREADS",
    ),
    (
        "DATABASE_URL",
        "core-service/tests/migrate_status.rs",
        "migrate_status_lists_applied_and_pending_migrations_on_postgres",
        "DATABASE_URL",
    ),
    (
        "GRPC_ADDR",
        "rest-gateway/tests/logs.rs",
        "json_logs_carry_one_access_line_per_request_with_its_request_id_in_gateway_and_core",
        "GRPC_ADDR",
    ),
    (
        "HTTP_ADDR",
        "rest-gateway/tests/logs.rs",
        "json_logs_carry_one_access_line_per_request_with_its_request_id_in_gateway_and_core",
        "HTTP_ADDR",
    ),
    (
        "CORE_URL",
        "rest-gateway/tests/logs.rs",
        "text_logs_written_to_a_pipe_have_no_colour_codes_and_json_works_on_the_standalone_gateway",
        "CORE_URL",
    ),
    (
        "METRICS_ADDR",
        "rest-gateway/tests/logs.rs",
        "metrics_are_served_on_metrics_addr_and_never_on_the_api_port",
        "METRICS_ADDR",
    ),
    (
        "LOG_FORMAT",
        "rest-gateway/tests/logs.rs",
        "json_logs_carry_one_access_line_per_request_with_its_request_id_in_gateway_and_core",
        "LOG_FORMAT",
    ),
    (
        "RUST_LOG",
        "webhook-worker/tests/log_format.rs",
        "rust_log_filters_what_is_written",
        "RUST_LOG",
    ),
    (
        "NO_COLOR",
        "webhook-worker/tests/log_format.rs",
        "colours_on_a_terminal_unless_no_color",
        "NO_COLOR",
    ),
    (
        "JWT_SECRET",
        "tests/e2e/key_rotation.rs",
        "keys_rotate_without_signing_anyone_out_or_breaking_a_webhook",
        "jwt_secret",
    ),
    (
        "JWT_SECRET_PREVIOUS",
        "tests/e2e/key_rotation.rs",
        "keys_rotate_without_signing_anyone_out_or_breaking_a_webhook",
        "jwt_secret_previous",
    ),
    (
        "MASTER_KEY",
        "tests/e2e/key_rotation.rs",
        "keys_rotate_without_signing_anyone_out_or_breaking_a_webhook",
        "master_key",
    ),
    (
        "MASTER_KEY_PREVIOUS",
        "tests/e2e/key_rotation.rs",
        "keys_rotate_without_signing_anyone_out_or_breaking_a_webhook",
        "master_key_previous",
    ),
    (
        "INTERNAL_TOKEN",
        "tests/e2e/webhook_delivery.rs",
        "workers_authenticate_to_the_job_stream_with_the_internal_token",
        "internal_token",
    ),
    (
        "GRPC_TLS_CERT",
        "tests/e2e/grpc_tls.rs",
        "a_core_serving_grpc_over_tls_takes_sends_and_feeds_its_workers",
        "grpc_tls: true",
    ),
    (
        "GRPC_TLS_KEY",
        "tests/e2e/grpc_tls.rs",
        "a_core_serving_grpc_over_tls_takes_sends_and_feeds_its_workers",
        "grpc_tls: true",
    ),
    (
        "CORE_TLS_CA",
        "tests/e2e/grpc_tls.rs",
        "a_core_serving_grpc_over_tls_takes_sends_and_feeds_its_workers",
        "core_tls_ca",
    ),
    (
        "DELIVERY_PROVIDER",
        "tests/e2e/delivery_http.rs",
        "http_delivery_provider_decides_the_outcome_postgres",
        "delivery_provider",
    ),
    (
        "DELIVERY_HTTP_URL",
        "tests/e2e/delivery_http.rs",
        "http_delivery_provider_decides_the_outcome_postgres",
        "delivery_http_url",
    ),
    (
        "DISPATCH_CONCURRENCY",
        "tests/e2e/sends_durability.rs",
        "a_core_stopped_after_accepting_loses_nothing",
        "dispatch_concurrency = 0",
    ),
    (
        "QR_SESSIONS_PER_IP_PER_HOUR",
        "tests/e2e/qr.rs",
        "each_qr_limit_answers_429_with_a_retry_after_that_is_right",
        "qr_sessions_per_ip_per_hour",
    ),
    (
        "QR_READS_PER_SESSION",
        "tests/e2e/qr.rs",
        "each_qr_limit_answers_429_with_a_retry_after_that_is_right",
        "qr_reads_per_session",
    ),
    (
        "QR_EXCHANGES_PER_SESSION",
        "tests/e2e/qr.rs",
        "each_qr_limit_answers_429_with_a_retry_after_that_is_right",
        "qr_exchanges_per_session",
    ),
    (
        "QR_READS_PER_IP_PER_HOUR",
        "tests/e2e/qr.rs",
        "the_per_ip_qr_read_and_exchange_limits_answer_429_with_a_right_retry_after",
        "qr_reads_per_ip_per_hour",
    ),
    (
        "QR_EXCHANGES_PER_IP_PER_HOUR",
        "tests/e2e/qr.rs",
        "the_per_ip_qr_read_and_exchange_limits_answer_429_with_a_right_retry_after",
        "qr_exchanges_per_ip_per_hour",
    ),
    (
        "FOLLOWER_LOOKUPS_PER_HOUR",
        "tests/e2e/audience.rs",
        "the_lookup_limit_takes_every_distinct_number_of_a_request_or_none",
        "follower_lookups_per_hour",
    ),
    (
        "BUSINESS_SENDS_PER_SECOND",
        "tests/e2e/sends.rs",
        "the_per_business_send_limit_answers_429_with_retry_after",
        "sends_per_second(",
    ),
    (
        "WEBHOOK_TIMEOUT_SECS",
        "tests/e2e/webhook_delivery.rs",
        "a_receiver_that_hangs_times_out_and_is_retried",
        "webhook_timeout_secs",
    ),
    (
        "WEBHOOK_ALLOW_INSECURE",
        "tests/e2e/webhook_delivery.rs",
        "without_insecure_targets_only_https_public_urls_are_accepted_and_dns_to_private_is_blocked",
        "webhook_allow_insecure = false",
    ),
    (
        "WEBHOOK_ENDPOINTS_PER_BUSINESS",
        "tests/e2e/webhook_endpoints.rs",
        "a_business_has_at_most_the_configured_number_of_endpoints_even_when_created_at_once",
        "webhook_endpoints_per_business",
    ),
    (
        "WEBHOOK_MAX_IN_FLIGHT_PER_ENDPOINT",
        "tests/e2e/webhook_delivery.rs",
        "a_slow_receiver_with_a_backlog_does_not_hold_up_another_businesss_deliveries",
        "webhook_max_in_flight_per_endpoint",
    ),
    (
        "WORKER_CONCURRENCY",
        "tests/e2e/webhook_delivery.rs",
        "a_slow_receiver_with_a_backlog_does_not_hold_up_another_businesss_deliveries",
        "worker_concurrency",
    ),
    (
        "CORE_TURN_MS",
        "tests/e2e/cores.rs",
        "setting_core_turn_ms",
        "core_turn_ms",
    ),
    (
        "MAX_BODY_BYTES",
        "rest-gateway/tests/all_in_one_settings.rs",
        "max_body_bytes_takes_effect_in_the_all_in_one",
        "MAX_BODY_BYTES",
    ),
    (
        "HEADER_READ_TIMEOUT_SECS",
        "tests/e2e/http_edges.rs",
        "headers_sent_too_slowly_close_the_connection",
        "header_read_timeout_secs",
    ),
    (
        "BODY_READ_TIMEOUT_SECS",
        "tests/e2e/http_edges.rs",
        "a_body_sent_too_slowly_is_answered_408_request_timeout",
        "body_read_timeout_secs",
    ),
];

/// Read by the logging setup of every binary, not by their flags.
const LOGGING: &[&str] = &["RUST_LOG", "LOG_FORMAT", "NO_COLOR"];

fn env_names<T: Args>() -> BTreeSet<String> {
    T::augment_args(Command::new("x"))
        .get_arguments()
        .filter_map(|a| a.get_env())
        .map(|e| e.to_string_lossy().into_owned())
        .collect()
}

/// The settings tables of the manuals: the core's (with the settings several binaries read, and
/// retention), the gateway's and the worker's.
const SETTINGS_TABLES: [(&str, &str); 4] = [
    ("core-service/README.md", "### Configuration"),
    ("core-service/README.md", "### Retention"),
    ("rest-gateway/README.md", "## Configuration"),
    ("webhook-worker/README.md", "## Configuration"),
];

/// The variables of the manuals' settings tables (`| \`NAME\` |` rows; a row may name several).
fn documented() -> BTreeSet<String> {
    let mut names = BTreeSet::new();
    for (file, heading) in SETTINGS_TABLES {
        let body = manual_section(file, heading);
        for line in body.lines().filter(|l| l.starts_with("| `")) {
            let first = line.split('|').nth(1).unwrap();
            for name in first.split('`').skip(1).step_by(2) {
                if !name.contains('*') {
                    names.insert(name.to_string());
                }
            }
        }
    }
    // NO_COLOR is documented in the text of the logging row.
    names.insert("NO_COLOR".to_string());
    names
}

#[test]
fn readme_this_table_and_the_binaries_name_the_same_settings() {
    use core_service::admin::cli::AdminArgs;
    use core_service::config::GrpcTlsArgs;
    let mut claimed: BTreeSet<String> = BTreeSet::new();
    claimed.extend(env_names::<CoreConfig>());
    claimed.extend(env_names::<GrpcTlsArgs>());
    claimed.extend(env_names::<rest_gateway::GatewayConfig>());
    claimed.extend(env_names::<webhook_worker::WorkerConfig>());
    claimed.extend(env_names::<AdminArgs>());
    claimed.extend(env_names::<proto::runtime::RuntimeArgs>());
    claimed.extend(LOGGING.iter().map(|s| s.to_string()));
    let documented = documented();
    assert_eq!(
        documented
            .symmetric_difference(&claimed)
            .collect::<Vec<_>>(),
        Vec::<&String>::new(),
        "the manuals' settings tables and the binaries' settings differ"
    );
    let tested: BTreeSet<String> = PROBED
        .iter()
        .map(|(v, _)| v.to_string())
        .chain(ELSEWHERE.iter().map(|(v, ..)| v.to_string()))
        .collect();
    assert_eq!(
        documented.symmetric_difference(&tested).collect::<Vec<_>>(),
        Vec::<&String>::new(),
        "every documented setting has a test here or elsewhere"
    );
    // The tests named exist, and set what they are said to.
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let this = std::fs::read_to_string(root.join("tests/e2e/settings.rs")).unwrap();
    for (var, test) in PROBED {
        assert!(
            this.contains(&format!("e2e!(\n    {test},")),
            "{var}: no test {test}"
        );
        let block = this.split(&format!("e2e!(\n    {test},")).nth(1).unwrap();
        let block = block.split("\ne2e!(").next().unwrap();
        assert!(block.contains(var), "{test} does not set {var}");
    }
    for (var, file, test, sets) in ELSEWHERE {
        let source = std::fs::read_to_string(root.join(file))
            .unwrap_or_else(|e| panic!("{var}: {file}: {e}"));
        let name = test
            .trim_end_matches("_postgres")
            .trim_end_matches("_sqlite");
        assert!(
            source.contains(&format!("fn {test}("))
                || source.contains(&format!("fn {name}("))
                || source.contains(&format!("e2e!(\n    {test},"))
                || source.contains(&format!("e2e!({test},")),
            "{var}: no test {test} in {file}"
        );
        assert!(source.contains(sets), "{var}: {file} never sets {sets}");
    }
}
