//! `LOG_FORMAT=json` makes the core write JSON lines; text written to a pipe has no colours.

use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

const BIN: &str = env!("CARGO_BIN_EXE_core-service");

/// The core's first standard error lines, up to the one saying it listens.
fn first_lines(format: Option<&str>) -> Vec<String> {
    first_lines_with(format, &[])
}

/// As [`first_lines`], with `extra` in the environment.
fn first_lines_with(format: Option<&str>, extra: &[(&str, &str)]) -> Vec<String> {
    // A directory of its own per call: the tests run at once, and two cores migrating one
    // SQLite file together collide.
    static CALLS: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let call = CALLS.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let dir = std::env::temp_dir().join(format!(
        "core-log-{}-{}-{call}",
        std::process::id(),
        format.unwrap_or("text"),
    ));
    std::fs::create_dir_all(&dir).unwrap();
    let mut command = Command::new(BIN);
    command
        .env_remove("RUST_LOG")
        .env_remove("NO_COLOR")
        .env_remove("LOG_FORMAT")
        .env(
            "DATABASE_URL",
            format!("sqlite://{}/core.db", dir.display()),
        )
        .env("GRPC_ADDR", "127.0.0.1:0")
        .env("METRICS_ADDR", "off")
        .stdout(Stdio::null())
        .stderr(Stdio::piped());
    if let Some(format) = format {
        command.env("LOG_FORMAT", format);
    }
    for (k, v) in extra {
        command.env(k, v);
    }
    let mut child = command.spawn().unwrap();
    let stderr = child.stderr.take().unwrap();
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(stderr).lines().map_while(Result::ok) {
            if tx.send(line).is_err() {
                break;
            }
        }
    });
    let deadline = Instant::now() + Duration::from_secs(60);
    let mut lines = Vec::new();
    while let Some(left) = deadline.checked_duration_since(Instant::now()) {
        let Ok(line) = rx.recv_timeout(left) else {
            break;
        };
        let done = line.contains("listening");
        lines.push(line);
        if done {
            break;
        }
    }
    let _ = child.kill();
    let _ = child.wait();
    let _ = std::fs::remove_dir_all(&dir);
    assert!(
        lines.iter().any(|l| l.contains("listening")),
        "the core never said it listens: {lines:?}"
    );
    lines
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
fn settings_meant_for_the_gateway_or_the_worker_are_ignored() {
    // One environment file serves the three binaries: the core starts with the gateway's and
    // the worker's settings around it, even ones whose values it could not parse.
    let lines = first_lines_with(
        None,
        &[
            ("CORE_URL", "https://core.internal:50051"),
            ("CORE_TLS_CA", "/nonexistent/ca.pem"),
            ("HTTP_ADDR", "not an address"),
            ("TRUST_PROXY", "maybe"),
            ("MAX_BODY_BYTES", "lots"),
            ("CORE_TIMEOUT_SECS", "soon"),
            ("WORKER_CONCURRENCY", "many"),
        ],
    );
    assert!(lines.iter().any(|l| l.contains("core gRPC listening")));
}

/// The `runtime_threads` of the start-up line `async runtime started` (JSON logs).
fn runtime_threads(lines: &[String]) -> u64 {
    let line = lines
        .iter()
        .find(|l| l.contains("async runtime started"))
        .unwrap_or_else(|| panic!("no runtime line in {lines:?}"));
    let value: serde_json::Value = serde_json::from_str(line).unwrap();
    value["fields"]["runtime_threads"].as_u64().unwrap()
}

#[test]
fn runtime_threads_sizes_the_cores_runtime_and_a_bad_value_is_refused() {
    let lines = first_lines_with(Some("json"), &[("RUNTIME_THREADS", "3")]);
    assert_eq!(runtime_threads(&lines), 3);
    let unset = first_lines_with(Some("json"), &[]);
    assert_eq!(
        runtime_threads(&unset) as usize,
        std::thread::available_parallelism().unwrap().get(),
        "one thread per CPU by default"
    );
    for bad in ["0", "lots"] {
        let out = Command::new(BIN)
            .env("RUNTIME_THREADS", bad)
            .env("DATABASE_URL", "sqlite::memory:")
            .output()
            .unwrap();
        assert!(!out.status.success(), "RUNTIME_THREADS={bad} was taken");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(
            stderr.contains("RUNTIME_THREADS must be a whole number from 1 to 1024"),
            "{stderr}"
        );
    }
}
