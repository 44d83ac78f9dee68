//! Metrics: the counters move when a message is sent and its webhook delivered, the gauges
//! are sampled, and the deploy folder's dashboard and alert rules name only metrics that exist.

use serde_json::json;

use crate::e2e;
use crate::fixtures::Receiver;
use crate::fixtures::{ALL_SCOPES, follower, live_business, register_webhook, send_v1};
use crate::harness::eventually;

/// The sum of the samples of `name` whose labels include every one of `labels`.
fn value(text: &str, name: &str, labels: &[(&str, &str)]) -> f64 {
    text.lines()
        .filter(|l| !l.starts_with('#'))
        .filter_map(|l| {
            let (series, value) = l.rsplit_once(' ')?;
            let (metric, rest) = series.split_once('{').unwrap_or((series, ""));
            (metric == name
                && labels
                    .iter()
                    .all(|(k, v)| rest.contains(&format!("{k}=\"{v}\""))))
            .then(|| value.parse::<f64>().ok())
            .flatten()
        })
        .sum()
}

e2e!(
    the_counters_move_after_a_send_and_a_webhook_delivery,
    |app| async move {
        let before = proto::metrics::render();
        let receiver = Receiver::start().await;
        let biz = live_business(&app, "+14155550100", ALL_SCOPES).await;
        follower(&app, &biz, "+14155550101", false).await;
        register_webhook(&app, &biz, &receiver.url(), &["message.sent"]).await;
        // The worker's job stream open, with room: the delivery is then handed to it.
        eventually("a job stream with room", async || {
            (app.core.job_credits.spare() > 0).then_some(())
        })
        .await;
        send_v1(
            &app,
            &biz,
            json!({ "to": "+14155550101", "category": "utility", "body": "hi" }),
            None,
        )
        .await
        .assert_ok(200);
        receiver.wait_for(1).await;
        // The worker reports after the receiver answered: wait for the core to count it.
        eventually("a webhook attempt counted", async || {
            let after = proto::metrics::render();
            (value(&after, "webhook_attempts_total", &[("result", "2xx")])
                > value(&before, "webhook_attempts_total", &[("result", "2xx")]))
            .then_some(())
        })
        .await;
        core_service::metrics::sample_once(&app.core).await.unwrap();
        let after = proto::metrics::render();
        let moved = |name: &str, labels: &[(&str, &str)]| {
            let (b, a) = (value(&before, name, labels), value(&after, name, labels));
            assert!(a > b, "{name}{labels:?} did not move: {b} -> {a}\n{after}");
        };
        moved(
            "messages_accepted_total",
            &[("source", "app"), ("category", "utility")],
        );
        moved("message_outcomes_total", &[("outcome", "delivered")]);
        moved("webhook_attempts_total", &[("result", "2xx")]);
        moved("webhook_attempt_duration_seconds_count", &[]);
        moved(
            "http_requests_total",
            &[
                ("method", "POST"),
                ("route", "/v1/{businessAccountId}/messages"),
                ("status", "200"),
            ],
        );
        moved(
            "http_request_duration_seconds_count",
            &[("route", "/v1/{businessAccountId}/messages")],
        );
        moved(
            "grpc_server_calls_total",
            &[
                ("method", "/bm.v1.MessagingService/SendAppMessage"),
                ("code", "Ok"),
            ],
        );
        moved("webhook_worker_deliveries_total", &[("result", "2xx")]);
        // The worker's stream had room: the delivery was handed to it with the outcome.
        moved("webhook_jobs_handed_total", &[]);
        // The gauges are there (their values belong to whichever test sampled last).
        for gauge in [
            "messages_backlog",
            "webhook_deliveries_open",
            "webhook_endpoints_failing",
            "oldest_due_age_seconds",
            "db_pool_connections",
            "db_statements_total",
        ] {
            assert!(
                after.contains(&format!("\n{gauge}")),
                "{gauge} missing:\n{after}"
            );
        }
        // No label carries a phone number.
        assert!(!after.contains("+1415555"), "{after}");
    }
);

e2e!(
    a_refused_request_is_counted_by_its_kind_of_limit,
    |app| async move {
        let before = proto::metrics::render();
        let phone = "+14155550150";
        app.post(
            "/auth/business/otp/request",
            None,
            json!({ "phone_number": phone }),
        )
        .await
        .assert_ok(200);
        app.post(
            "/auth/business/otp/request",
            None,
            json!({ "phone_number": phone }),
        )
        .await
        .assert_error(429, "rate_limited");
        let after = proto::metrics::render();
        let label = [("limit", "otp_request:cooldown")];
        assert!(
            value(&after, "rate_limit_refusals_total", &label)
                > value(&before, "rate_limit_refusals_total", &label),
            "{after}"
        );
    }
);

/// The metric families the service serves (the names in `# TYPE` lines once everything has
/// been recorded at least once), with the histogram series they imply.
const SERVED: &[&str] = &[
    "messages_accepted_total",
    "send_contexts_total",
    "send_templates_total",
    "message_outcomes_total",
    "send_templates_total",
    "webhook_attempts_total",
    "webhook_attempt_duration_seconds",
    "http_requests_total",
    "http_request_duration_seconds",
    "grpc_server_calls_total",
    "grpc_server_call_duration_seconds",
    "rate_limit_refusals_total",
    "messages_backlog",
    "webhook_deliveries_open",
    "webhook_endpoints_failing",
    "oldest_due_age_seconds",
    "db_pool_connections",
    "db_statements_total",
    "db_statement_failures_total",
    "webhook_worker_deliveries_total",
    "webhook_jobs_returned_total",
    "retention_purged_rows_total",
    "retention_purge_runs_total",
    "retention_purge_duration_seconds",
    "retention_purge_last_success_timestamp_seconds",
];

/// Metric names in a PromQL expression: identifiers followed by `{`, `[` or `)`, or standing
/// alone, that are not functions, keywords or label names.
fn metric_names(expr: &str) -> Vec<String> {
    const NOT_METRICS: &[&str] = &[
        "sum",
        "max",
        "min",
        "rate",
        "deriv",
        "by",
        "and",
        "or",
        "histogram_quantile",
        "le",
        "avg",
        "count",
        "without",
        "on",
        "irate",
        "increase",
        "time",
    ];
    let mut names = Vec::new();
    let mut in_braces = false;
    let mut in_quotes = false;
    // After `by` or `without`, the parenthesised list holds label names.
    let mut grouping = false;
    let mut in_grouping = false;
    let mut word = String::new();
    for c in expr.chars().chain([' ']) {
        if in_quotes {
            in_quotes = c != '"';
            continue;
        }
        if c.is_ascii_alphanumeric() || c == '_' {
            word.push(c);
            continue;
        }
        if !word.is_empty() {
            let is_label = in_braces || in_grouping || c == '=' || c == '!';
            grouping = word == "by" || word == "without";
            let is_number = word.chars().next().is_some_and(|c| c.is_ascii_digit());
            if !is_label && !is_number && !NOT_METRICS.contains(&word.as_str()) {
                names.push(word.clone());
            }
            word.clear();
        }
        match c {
            '"' => in_quotes = true,
            '{' => in_braces = true,
            '}' => in_braces = false,
            '(' if grouping => in_grouping = true,
            ')' if in_grouping => in_grouping = false,
            _ => {}
        }
        if !c.is_whitespace() && c != '(' {
            grouping = false;
        }
    }
    names
}

fn served(name: &str) -> bool {
    let base = ["_bucket", "_count", "_sum"]
        .iter()
        .find_map(|s| name.strip_suffix(s))
        .unwrap_or(name);
    SERVED.contains(&base) || SERVED.contains(&name)
}

#[test]
fn the_dashboard_and_the_alert_rules_parse_and_name_only_served_metrics() {
    let deploy = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../core-service/deploy");
    let dashboard: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(deploy.join("grafana-dashboard.json")).unwrap(),
    )
    .expect("the dashboard is JSON");
    let mut exprs = Vec::new();
    for panel in dashboard["panels"].as_array().expect("panels") {
        for target in panel["targets"].as_array().expect("targets") {
            exprs.push(target["expr"].as_str().unwrap().to_string());
        }
    }
    let rules: serde_norway::Value =
        serde_norway::from_str(&std::fs::read_to_string(deploy.join("alerts.yml")).unwrap())
            .expect("the alert rules are YAML");
    let mut alerts = 0;
    for group in rules["groups"].as_sequence().expect("groups") {
        for rule in group["rules"].as_sequence().expect("rules") {
            assert!(rule["alert"].as_str().is_some(), "{rule:?}");
            exprs.push(rule["expr"].as_str().unwrap().to_string());
            alerts += 1;
        }
    }
    assert!(alerts >= 3, "backlog, webhook failures and 5xx at least");
    assert!(exprs.len() > 10);
    for expr in &exprs {
        let names = metric_names(expr);
        assert!(!names.is_empty(), "no metric in {expr}");
        for name in names {
            assert!(
                served(&name),
                "{name} (in {expr}) is not a metric the service serves"
            );
        }
    }
}

#[test]
fn every_served_metric_is_recorded_somewhere_in_the_code() {
    // A family listed above but never recorded would make the dashboard lie: each name must
    // appear in a `metrics::` call of the sources.
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let mut sources = String::new();
    for dir in ["core-service/src", "rest-gateway/src", "webhook-worker/src"] {
        let mut stack = vec![root.join(dir)];
        while let Some(path) = stack.pop() {
            for entry in std::fs::read_dir(&path).unwrap() {
                let entry = entry.unwrap().path();
                if entry.is_dir() {
                    stack.push(entry);
                } else if entry.extension().is_some_and(|e| e == "rs") {
                    sources.push_str(&std::fs::read_to_string(entry).unwrap());
                }
            }
        }
    }
    for name in SERVED {
        assert!(
            sources.contains(&format!("\"{name}\"")),
            "{name} is never recorded"
        );
    }
}
