//! The settings' catalogue: the manuals' settings tables, the variables the binaries claim and
//! the tests that show each setting taking effect (`settings.rs` probes most; the others are
//! named with their file) are the same set.

use std::collections::BTreeSet;

use clap::{Args, Command};
use core_service::CoreConfig;

use crate::fixtures::docs::manual_section;

/// Settings probed in `settings.rs`, by the test that shows each.
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
        "WEBHOOK_FAILING_AFTER",
        "tests/e2e/webhook_health.rs",
        "webhook_failing_after_sets_when_an_endpoint_turns_and_webhook_alert_sms_off_sends_none",
        "webhook_failing_after",
    ),
    (
        "WEBHOOK_ALERT_SMS",
        "tests/e2e/webhook_health.rs",
        "webhook_failing_after_sets_when_an_endpoint_turns_and_webhook_alert_sms_off_sends_none",
        "webhook_alert_sms",
    ),
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
        "INBOUND_PER_MINUTE",
        "tests/e2e/conversations.rs",
        "the_per_user_limit_refuses_with_retry_after",
        "inbound_per_minute",
    ),
    (
        "REPLIES_PER_MINUTE",
        "tests/e2e/conversation_replies.rs",
        "replies_per_conversation_are_limited_exactly",
        "replies_per_minute",
    ),
    (
        "SERVICE_WINDOW_HOURS",
        "tests/e2e/conversation_replies.rs",
        "the_window_lasts_service_window_hours",
        "service_window_hours",
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
        "ERASURE_ROWS_PER_SECOND",
        "tests/e2e/privacy.rs",
        "an_erasure_whose_core_is_killed_is_resumed_by_another_and_ends_once",
        "erasure_rows_per_second",
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
