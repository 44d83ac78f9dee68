//! SIGTERM stops a server even when nobody reads its logs any more: standard error a pipe whose
//! reader has gone (a log collector that died, `| head`). Writing a log line there fails; the
//! line is dropped, and the task that wrote it (the one waiting for the signal among them)
//! carries on.

#![cfg(unix)]

use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

const GATEWAY: &str = env!("CARGO_BIN_EXE_rest-gateway");

struct Running(Child);

impl Drop for Running {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// Starts the gateway with `threads` runtime threads, reads standard error up to the line
/// saying it listens, closes it, sends SIGTERM and answers whether the process ended.
fn stops_on_sigterm_with_its_log_reader_gone(threads: &str) -> bool {
    let mut child = Command::new(GATEWAY)
        .env("HTTP_ADDR", "127.0.0.1:0")
        .env("METRICS_ADDR", "off")
        // Nothing listens there: the gateway starts all the same (readiness says not ready).
        .env("CORE_URL", "http://127.0.0.1:9")
        .env("RUNTIME_THREADS", threads)
        .env_remove("RUST_LOG")
        .env_remove("LOG_FORMAT")
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let stderr = child.stderr.take().unwrap();
    let pid = child.id().to_string();
    let mut running = Running(child);
    let mut lines = BufReader::new(stderr).lines();
    let listening = lines
        .by_ref()
        .map_while(Result::ok)
        .any(|line| line.contains("gateway listening"));
    assert!(listening, "the gateway did not start");
    // The reader goes: from now on every write to standard error fails (EPIPE).
    drop(lines);
    let killed = Command::new("kill").args(["-TERM", &pid]).status().unwrap();
    assert!(killed.success());
    // A hang detector, not a timing: a process that stops does so in well under a second.
    let deadline = Instant::now() + Duration::from_secs(30);
    while Instant::now() < deadline {
        if let Some(status) = running.0.try_wait().unwrap() {
            assert!(status.success(), "RUNTIME_THREADS={threads}: {status}");
            return true;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    false
}

#[test]
fn sigterm_stops_the_gateway_whose_log_reader_is_gone_on_one_thread() {
    assert!(
        stops_on_sigterm_with_its_log_reader_gone("1"),
        "still running 30 s after SIGTERM"
    );
}

#[test]
fn sigterm_stops_the_gateway_whose_log_reader_is_gone_on_two_threads() {
    assert!(
        stops_on_sigterm_with_its_log_reader_gone("2"),
        "still running 30 s after SIGTERM"
    );
}
