//! `--help` of each `core-service` command lists exactly the settings that command uses.

use std::collections::BTreeSet;
use std::process::Command;

const BIN: &str = env!("CARGO_BIN_EXE_core-service");

/// The environment variables a `--help` names (`[env: NAME...]`).
fn help_env(args: &[&str]) -> BTreeSet<String> {
    let out = Command::new(BIN).args(args).arg("--help").output().unwrap();
    assert!(out.status.success(), "{args:?} --help failed");
    let help = String::from_utf8_lossy(&out.stdout);
    help.split("[env: ")
        .skip(1)
        .map(|rest| {
            rest.chars()
                .take_while(|c| c.is_ascii_uppercase() || *c == '_')
                .collect()
        })
        .collect()
}

fn set(names: &[&str]) -> BTreeSet<String> {
    names.iter().map(|s| s.to_string()).collect()
}

#[test]
fn serve_help_lists_the_cores_settings_and_no_other_binarys() {
    let expected = set(&[
        "DATABASE_URL",
        "DATABASE_MAX_CONNECTIONS",
        "GRPC_ADDR",
        "GRPC_TLS_CERT",
        "GRPC_TLS_KEY",
        "JWT_SECRET",
        "JWT_SECRET_PREVIOUS",
        "JWT_ISSUER",
        "JWT_AUDIENCE",
        "ACCESS_TOKEN_TTL_SECS",
        "REFRESH_TOKEN_TTL_SECS",
        "MASTER_KEY",
        "MASTER_KEY_PREVIOUS",
        "INTERNAL_TOKEN",
        "METRICS_ADDR",
        "SMS_PROVIDER",
        "SMS_HTTP_URL",
        "DELIVERY_PROVIDER",
        "DELIVERY_HTTP_URL",
        "DISPATCH_CONCURRENCY",
        "WEBHOOK_RETRY_UNIT_SECS",
        "WEBHOOK_TIMEOUT_SECS",
        "WEBHOOK_ALLOW_INSECURE",
        "WEBHOOK_ENDPOINTS_PER_BUSINESS",
        "WEBHOOK_TESTS_PER_ENDPOINT_PER_MINUTE",
        "WEBHOOK_MAX_IN_FLIGHT_PER_ENDPOINT",
        "WEBHOOK_FAILING_AFTER",
        "WEBHOOK_ALERT_SMS",
        "OTP_COOLDOWN_SECS",
        "OTP_REQUESTS_PER_PHONE_PER_HOUR",
        "OTP_REQUESTS_PER_IP_PER_HOUR",
        "OTP_VERIFIES_PER_IP_PER_HOUR",
        "OTP_DAILY_FAILURES_PER_PHONE",
        "QR_SESSIONS_PER_IP_PER_HOUR",
        "QR_READS_PER_IP_PER_HOUR",
        "QR_READS_PER_SESSION",
        "QR_EXCHANGES_PER_IP_PER_HOUR",
        "QR_EXCHANGES_PER_SESSION",
        "BUSINESS_SENDS_PER_SECOND",
        "FOLLOWER_LOOKUPS_PER_HOUR",
        "SERVICE_WINDOW_HOURS",
        "INBOUND_PER_MINUTE",
        "REPLIES_PER_MINUTE",
        "RETENTION_MESSAGES_DAYS",
        "RETENTION_INBOX_DAYS",
        "RETENTION_EVENTS_DAYS",
        "RETENTION_DELIVERIES_DAYS",
        "RETENTION_IDEMPOTENCY_KEYS_HOURS",
        "RETENTION_OTP_CODES_HOURS",
        "RETENTION_QR_SESSIONS_HOURS",
        "RETENTION_REFRESH_FAMILIES_DAYS",
        "PURGE_INTERVAL_SECS",
        "PURGE_BATCH_SIZE",
        "ERASURE_ROWS_PER_SECOND",
        "RUNTIME_THREADS",
    ]);
    assert_eq!(help_env(&[]), expected);
    assert_eq!(help_env(&["serve"]), expected);
}

#[test]
fn admin_and_migrate_help_list_only_what_they_use() {
    assert_eq!(
        help_env(&["admin"]),
        set(&["CORE_URL", "CORE_TLS_CA", "INTERNAL_TOKEN"])
    );
    assert_eq!(help_env(&["migrate"]), set(&["DATABASE_URL"]));
}
