//! Logs as an operator reads them: `LOG_FORMAT=json` gives JSON lines on every binary, text has
//! no colour codes when standard error is not a terminal, and each HTTP request gets one access
//! line (route template, status, latency, request id, client IP) whose request id is also on
//! the core's line for the gRPC call it caused. Metrics are served on `METRICS_ADDR`, not on
//! the API port. A server whose log reader has gone still stops on SIGTERM.

#![cfg(feature = "embedded")]

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

const ALL_IN_ONE: &str = env!("CARGO_BIN_EXE_all-in-one");
const GATEWAY: &str = env!("CARGO_BIN_EXE_rest-gateway");

struct Running(Child);

impl Drop for Running {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// Starts `bin` with `env`, collecting its standard error lines.
fn start(bin: &str, env: &[(&str, &str)]) -> (Running, mpsc::Receiver<String>, Option<String>) {
    let mut command = Command::new(bin);
    command
        .env_remove("RUST_LOG")
        .env_remove("LOG_FORMAT")
        .env_remove("NO_COLOR")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    for (k, v) in env {
        command.env(k, v);
    }
    let mut child = command.spawn().unwrap();
    let stderr = child.stderr.take().unwrap();
    let stdout = child.stdout.take().unwrap();
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(stderr).lines().map_while(Result::ok) {
            if tx.send(line).is_err() {
                break;
            }
        }
    });
    // The all-in-one prints where it listens on standard output (text, or a JSON line).
    let (addr_tx, addr_rx) = mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines().map_while(Result::ok) {
            if let Some(rest) = line.strip_prefix("business messaging: http://") {
                let _ = addr_tx.send(rest.split_whitespace().next().unwrap_or("").to_string());
            } else if let Ok(v) = serde_json::from_str::<serde_json::Value>(&line)
                && v["fields"]["message"] == "business messaging"
            {
                let url = v["fields"]["url"].as_str().unwrap_or_default();
                let _ = addr_tx.send(url.trim_start_matches("http://").to_string());
            } else {
                let _ = addr_tx.send(format!("unexpected line on standard output: {line}"));
            }
        }
    });
    let addr = (bin == ALL_IN_ONE)
        .then(|| addr_rx.recv_timeout(Duration::from_secs(60)).ok())
        .flatten();
    (Running(child), rx, addr)
}

/// Lines received until `done` holds for one of them (or 30 s pass).
fn lines_until(rx: &mpsc::Receiver<String>, done: impl Fn(&str) -> bool) -> Vec<String> {
    let deadline = Instant::now() + Duration::from_secs(30);
    let mut lines = Vec::new();
    while let Some(left) = deadline.checked_duration_since(Instant::now()) {
        match rx.recv_timeout(left) {
            Ok(line) => {
                let stop = done(&line);
                lines.push(line);
                if stop {
                    break;
                }
            }
            Err(_) => break,
        }
    }
    lines
}

/// Sends `request` (everything before the blank line, then `body`) and reads the whole answer.
fn exchange(addr: &str, request: &str, body: &str) -> String {
    let mut stream = TcpStream::connect(addr).unwrap();
    stream
        .set_read_timeout(Some(Duration::from_secs(30)))
        .unwrap();
    write!(
        stream,
        "{request}host: x\r\nconnection: close\r\n\r\n{body}"
    )
    .unwrap();
    let mut answer = String::new();
    stream.read_to_string(&mut answer).unwrap();
    answer
}

fn post(addr: &str, path: &str, request_id: &str) -> String {
    let body = "{\"body\":\"hi\"}";
    exchange(
        addr,
        &format!(
            "POST {path} HTTP/1.1\r\nx-request-id: {request_id}\r\nauthorization: Bearer sva_nope\r\ncontent-type: application/json\r\ncontent-length: {}\r\n",
            body.len()
        ),
        body,
    )
}

fn temp_db() -> (std::path::PathBuf, String) {
    let dir = std::env::temp_dir().join(format!(
        "logs-test-{}-{}",
        std::process::id(),
        uuid::Uuid::new_v4().simple()
    ));
    std::fs::create_dir_all(&dir).unwrap();
    let url = format!("sqlite://{}/core.db", dir.display());
    (dir, url)
}

#[test]
fn json_logs_carry_one_access_line_per_request_with_its_request_id_in_gateway_and_core() {
    let (dir, url) = temp_db();
    let (_running, rx, addr) = start(
        ALL_IN_ONE,
        &[
            ("DATABASE_URL", &url),
            ("HTTP_ADDR", "127.0.0.1:0"),
            ("GRPC_ADDR", "127.0.0.1:0"),
            ("LOG_FORMAT", "json"),
            ("METRICS_ADDR", "off"),
        ],
    );
    let addr = addr.expect("the all-in-one started");
    let answer = post(&addr, "/v1/service/+14155550199/messages", "trace-me-42");
    assert!(answer.starts_with("HTTP/1.1 401"), "{answer}");
    let lines = lines_until(&rx, |l| {
        l.contains("\"target\":\"access\"") && l.contains("\"status\":401")
    });
    let json: Vec<serde_json::Value> = lines
        .iter()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("not JSON ({e}): {l}")))
        .collect();
    let access = json
        .iter()
        .find(|l| l["target"] == "access" && l["fields"]["status"] == 401)
        .expect("an access line for the request");
    let request = &access["spans"][0];
    assert_eq!(request["name"], "request");
    assert_eq!(request["route"], "/v1/service/{phoneNumber}/messages");
    assert_eq!(request["method"], "POST");
    assert_eq!(request["request_id"], "trace-me-42");
    assert_eq!(request["client_ip"], "127.0.0.1");
    assert!(access["fields"]["latency_ms"].is_number());
    // The core logged the gRPC call under the same request id (found by its method: the
    // worker's job stream logs gRPC lines of its own, without a request id).
    let grpc = json
        .iter()
        .filter(|l| l["target"] == "access")
        .filter_map(|l| l["spans"].as_array())
        .flatten()
        .find(|s| {
            s["name"] == "grpc"
                && s["method"]
                    .as_str()
                    .is_some_and(|m| m.ends_with("/SendServiceMessage"))
        })
        .expect("the core's line for the gRPC call");
    assert_eq!(grpc["request_id"], "trace-me-42");
    assert!(grpc["method"].as_str().unwrap().starts_with("/bm.v1."));
    // The raw path held a phone number: it is in no line.
    for line in &lines {
        assert!(!line.contains("14155550199"), "{line}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn text_logs_written_to_a_pipe_have_no_colour_codes_and_json_works_on_the_standalone_gateway() {
    let (dir, url) = temp_db();
    let (running, rx, _) = start(
        ALL_IN_ONE,
        &[
            ("DATABASE_URL", &url),
            ("HTTP_ADDR", "127.0.0.1:0"),
            ("GRPC_ADDR", "127.0.0.1:0"),
            ("METRICS_ADDR", "off"),
        ],
    );
    let lines = lines_until(&rx, |l| l.contains("gateway listening"));
    drop(running);
    assert!(lines.iter().any(|l| l.contains("gateway listening")));
    for line in &lines {
        assert!(!line.contains('\u{1b}'), "a colour code in {line:?}");
    }

    let (_gateway, rx, _) = start(
        GATEWAY,
        &[
            ("HTTP_ADDR", "127.0.0.1:0"),
            ("CORE_URL", "http://127.0.0.1:9"),
            ("LOG_FORMAT", "json"),
            ("METRICS_ADDR", "off"),
        ],
    );
    let lines = lines_until(&rx, |l| l.contains("gateway listening"));
    assert!(!lines.is_empty(), "the gateway logged nothing");
    for line in &lines {
        let v: serde_json::Value =
            serde_json::from_str(line).unwrap_or_else(|e| panic!("not JSON ({e}): {line}"));
        assert!(v["level"].is_string(), "{line}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn the_all_in_ones_start_up_line_is_json_with_log_format_json() {
    let (dir, url) = temp_db();
    let (_running, rx, addr) = start(
        ALL_IN_ONE,
        &[
            ("DATABASE_URL", &url),
            ("HTTP_ADDR", "127.0.0.1:0"),
            ("GRPC_ADDR", "127.0.0.1:0"),
            ("METRICS_ADDR", "off"),
            ("LOG_FORMAT", "json"),
        ],
    );
    let addr = addr.expect("the start-up line, as JSON with fields.url");
    assert!(
        addr.starts_with("127.0.0.1:") && !addr.contains(' '),
        "{addr}"
    );
    assert!(http_get(&addr, "/healthz").starts_with("HTTP/1.1 200"));
    let lines = lines_until(&rx, |l| l.contains("gateway listening"));
    assert!(!lines.is_empty());
    for line in &lines {
        let v: serde_json::Value =
            serde_json::from_str(line).unwrap_or_else(|e| panic!("not JSON ({e}): {line}"));
        assert!(v["level"].is_string(), "{line}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

fn http_get(addr: &str, path: &str) -> String {
    exchange(addr, &format!("GET {path} HTTP/1.1\r\n"), "")
}

#[test]
fn metrics_are_served_on_metrics_addr_and_never_on_the_api_port() {
    let (dir, url) = temp_db();
    let (_running, rx, addr) = start(
        ALL_IN_ONE,
        &[
            ("DATABASE_URL", &url),
            ("HTTP_ADDR", "127.0.0.1:0"),
            ("GRPC_ADDR", "127.0.0.1:0"),
            ("METRICS_ADDR", "127.0.0.1:0"),
        ],
    );
    let api = addr.expect("the all-in-one started");
    let lines = lines_until(&rx, |l| l.contains("metrics at http://"));
    let metrics = lines
        .iter()
        .find_map(|l| l.split("metrics at http://").nth(1))
        .and_then(|rest| rest.split('/').next())
        .expect("the all-in-one says where its metrics are")
        .to_string();
    assert!(http_get(&api, "/healthz").starts_with("HTTP/1.1 200"));
    let scraped = http_get(&metrics, "/metrics");
    assert!(scraped.starts_with("HTTP/1.1 200"), "{scraped}");
    assert!(scraped.contains("text/plain; version=0.0.4"), "{scraped}");
    assert!(
        scraped.contains("http_requests_total{") && scraped.contains("route=\"/healthz\""),
        "{scraped}"
    );
    assert!(http_get(&metrics, "/other").starts_with("HTTP/1.1 404"));
    let public = http_get(&api, "/metrics");
    assert!(public.starts_with("HTTP/1.1 404"), "{public}");
    assert!(public.contains("\"not_found\""), "{public}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn the_standalone_gateway_ignores_settings_meant_for_the_core_or_the_worker() {
    // One environment file serves the three binaries: the gateway starts with the core's and
    // the worker's settings around it, even ones it could not parse.
    let (_gateway, rx, _) = start(
        GATEWAY,
        &[
            ("HTTP_ADDR", "127.0.0.1:0"),
            ("CORE_URL", "http://127.0.0.1:9"),
            ("METRICS_ADDR", "off"),
            ("DATABASE_URL", "postgres://nowhere/none"),
            ("GRPC_ADDR", "not an address"),
            ("GRPC_TLS_CERT", "/nonexistent/core.pem"),
            ("OTP_COOLDOWN_SECS", "soon"),
            ("WEBHOOK_ALLOW_INSECURE", "perhaps"),
            ("RETENTION_MESSAGES_DAYS", "forever"),
            ("WORKER_CONCURRENCY", "many"),
        ],
    );
    let lines = lines_until(&rx, |l| l.contains("gateway listening"));
    assert!(
        lines.iter().any(|l| l.contains("gateway listening")),
        "{lines:?}"
    );
}

// SIGTERM stops a server even when nobody reads its logs any more: standard error a pipe whose
// reader has gone (a log collector that died, `| head`). Writing a log line there fails; the
// line is dropped, and the task that wrote it (the one waiting for the signal among them)
// carries on.

#[cfg(unix)]
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

#[cfg(unix)]
#[test]
fn sigterm_stops_the_gateway_whose_log_reader_is_gone_on_one_thread() {
    assert!(
        stops_on_sigterm_with_its_log_reader_gone("1"),
        "still running 30 s after SIGTERM"
    );
}

#[cfg(unix)]
#[test]
fn sigterm_stops_the_gateway_whose_log_reader_is_gone_on_two_threads() {
    assert!(
        stops_on_sigterm_with_its_log_reader_gone("2"),
        "still running 30 s after SIGTERM"
    );
}
