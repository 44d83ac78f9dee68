//! The worker's logging settings, run as an operator runs it: `LOG_FORMAT=json` writes JSON
//! lines, `RUST_LOG` filters, and colours appear only on a terminal without `NO_COLOR`.

use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

const BIN: &str = env!("CARGO_BIN_EXE_webhook-worker");

/// The worker's first log lines, up to the first saying that it cannot reach its core, with
/// `env` set (and no other logging setting). With `terminal`, the worker runs under a
/// pseudo-terminal (`script`), as in an operator's shell.
fn first_lines_with(env: &[(&str, &str)], terminal: bool) -> Vec<String> {
    let mut command = if terminal {
        let mut c = Command::new("script");
        c.args(["-qec", BIN, "/dev/null"]);
        c
    } else {
        Command::new(BIN)
    };
    command
        .env_remove("RUST_LOG")
        .env_remove("NO_COLOR")
        .env_remove("LOG_FORMAT")
        .env("CORE_URL", "http://127.0.0.1:9")
        .env("METRICS_ADDR", "off")
        .stdin(Stdio::null());
    for (k, v) in env {
        command.env(k, v);
    }
    // Under `script` the worker's standard error arrives on script's standard output.
    if terminal {
        command.stdout(Stdio::piped()).stderr(Stdio::null());
    } else {
        command.stdout(Stdio::null()).stderr(Stdio::piped());
    }
    let mut child = command.spawn().expect("the worker (or `script`) starts");
    let output: Box<dyn std::io::Read + Send> = if terminal {
        Box::new(child.stdout.take().unwrap())
    } else {
        Box::new(child.stderr.take().unwrap())
    };
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(output).lines().map_while(Result::ok) {
            if tx.send(line).is_err() {
                break;
            }
        }
    });
    let deadline = Instant::now() + Duration::from_secs(30);
    let mut lines = Vec::new();
    while let Some(left) = deadline.checked_duration_since(Instant::now()) {
        let Ok(line) = rx.recv_timeout(left) else {
            break;
        };
        let done = line.contains("job stream unavailable");
        lines.push(line);
        if done {
            break;
        }
    }
    let _ = child.kill();
    let _ = child.wait();
    assert!(
        lines.iter().any(|l| l.contains("job stream unavailable")),
        "the worker never said it cannot reach its core: {lines:?}"
    );
    lines
}

fn first_lines(format: Option<&str>) -> Vec<String> {
    match format {
        Some(format) => first_lines_with(&[("LOG_FORMAT", format)], false),
        None => first_lines_with(&[], false),
    }
}

#[test]
fn log_format_json_writes_json_lines() {
    for line in first_lines(Some("json")) {
        let v: serde_json::Value =
            serde_json::from_str(&line).unwrap_or_else(|e| panic!("not JSON ({e}): {line}"));
        assert!(v["level"].is_string() && v["fields"].is_object(), "{line}");
    }
}

#[test]
fn text_logs_written_to_a_pipe_have_no_colour_codes() {
    for line in first_lines(None) {
        assert!(!line.contains('\u{1b}'), "a colour code in {line:?}");
    }
}

#[test]
fn rust_log_filters_what_is_written() {
    // With a metrics listener the worker's first line is an INFO one; RUST_LOG=warn drops it
    // and keeps the warnings.
    let default = first_lines_with(&[("METRICS_ADDR", "127.0.0.1:0")], false);
    assert!(
        default
            .iter()
            .any(|l| l.contains("INFO") && l.contains("metrics at")),
        "{default:?}"
    );
    let warn = first_lines_with(
        &[("METRICS_ADDR", "127.0.0.1:0"), ("RUST_LOG", "warn")],
        false,
    );
    assert!(warn.iter().all(|l| !l.contains("INFO")), "{warn:?}");
    assert!(warn.iter().any(|l| l.contains("WARN")), "{warn:?}");
}

#[test]
fn colours_on_a_terminal_unless_no_color() {
    let coloured = first_lines_with(&[], true);
    assert!(
        coloured.iter().any(|l| l.contains('\u{1b}')),
        "no colour on a terminal: {coloured:?}"
    );
    let plain = first_lines_with(&[("NO_COLOR", "1")], true);
    for line in &plain {
        assert!(
            !line.contains('\u{1b}'),
            "a colour code with NO_COLOR in {line:?}"
        );
    }
}

#[test]
fn help_lists_only_the_workers_settings() {
    let out = Command::new(BIN).arg("--help").output().unwrap();
    let help = String::from_utf8_lossy(&out.stdout);
    let named: std::collections::BTreeSet<String> = help
        .split("[env: ")
        .skip(1)
        .map(|rest| {
            rest.chars()
                .take_while(|c| c.is_ascii_uppercase() || *c == '_')
                .collect()
        })
        .collect();
    let expected = [
        "CORE_URL",
        "CORE_TLS_CA",
        "INTERNAL_TOKEN",
        "METRICS_ADDR",
        "WORKER_CONCURRENCY",
        "RUNTIME_THREADS",
    ];
    assert_eq!(named, expected.iter().map(|s| s.to_string()).collect());
}

#[test]
fn settings_meant_for_the_core_or_the_gateway_are_ignored() {
    // One environment file serves the three binaries: the worker runs (and looks for its core)
    // with the core's and the gateway's settings around it, even ones it could not parse.
    first_lines_with(
        &[
            ("DATABASE_URL", "postgres://nowhere/none"),
            ("GRPC_ADDR", "not an address"),
            ("GRPC_TLS_KEY", "/nonexistent/core.key"),
            ("HTTP_ADDR", "not an address"),
            ("TRUST_PROXY", "maybe"),
            ("OTP_COOLDOWN_SECS", "soon"),
            ("PURGE_BATCH_SIZE", "huge"),
        ],
        false,
    );
}

#[test]
fn runtime_threads_sizes_the_workers_runtime_and_a_bad_value_is_refused() {
    let lines = first_lines_with(&[("RUNTIME_THREADS", "2"), ("LOG_FORMAT", "json")], false);
    let line = lines
        .iter()
        .find(|l| l.contains("async runtime started"))
        .unwrap_or_else(|| panic!("no runtime line in {lines:?}"));
    let value: serde_json::Value = serde_json::from_str(line).unwrap();
    assert_eq!(value["fields"]["runtime_threads"], 2, "{line}");
    let out = Command::new(BIN)
        .env("RUNTIME_THREADS", "1025")
        .env("CORE_URL", "http://127.0.0.1:9")
        .output()
        .unwrap();
    assert!(!out.status.success(), "RUNTIME_THREADS=1025 was taken");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("RUNTIME_THREADS must be a whole number from 1 to 1024"),
        "{stderr}"
    );
}
