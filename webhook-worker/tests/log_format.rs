//! `LOG_FORMAT=json` makes the worker write JSON lines; text written to a pipe has no colours.

use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

const BIN: &str = env!("CARGO_BIN_EXE_webhook-worker");

/// The worker's first standard error lines: it cannot reach its core, and says so.
fn first_lines(format: Option<&str>) -> Vec<String> {
    let mut command = Command::new(BIN);
    command
        .env_remove("RUST_LOG")
        .env_remove("NO_COLOR")
        .env_remove("LOG_FORMAT")
        .env("CORE_URL", "http://127.0.0.1:9")
        .env("METRICS_ADDR", "off")
        .stdout(Stdio::null())
        .stderr(Stdio::piped());
    if let Some(format) = format {
        command.env("LOG_FORMAT", format);
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
