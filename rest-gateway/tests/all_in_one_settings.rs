//! The all-in-one binary honours the gateway's and the worker's settings, not only the core's:
//! `--help` lists them and `MAX_BODY_BYTES` takes effect.

#![cfg(feature = "embedded")]

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::process::{Child, Command, Stdio};
use std::time::Duration;

const BIN: &str = env!("CARGO_BIN_EXE_all-in-one");

struct Running(Child);

impl Drop for Running {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

#[test]
fn help_lists_the_gateway_and_worker_settings() {
    let out = Command::new(BIN).arg("--help").output().unwrap();
    let help = String::from_utf8_lossy(&out.stdout);
    for setting in [
        "HTTP_ADDR",
        "TRUST_PROXY",
        "MAX_BODY_BYTES",
        "CORE_TIMEOUT_SECS",
        "HEADER_READ_TIMEOUT_SECS",
        "BODY_READ_TIMEOUT_SECS",
        "WORKER_CONCURRENCY",
        "DATABASE_URL",
    ] {
        assert!(
            help.contains(setting),
            "--help does not list {setting}:\n{help}"
        );
    }
}

#[test]
fn max_body_bytes_takes_effect_in_the_all_in_one() {
    let dir = std::env::temp_dir().join(format!("aio-settings-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let mut child = Command::new(BIN)
        .env(
            "DATABASE_URL",
            format!("sqlite://{}/core.db", dir.display()),
        )
        .env("HTTP_ADDR", "127.0.0.1:0")
        .env("GRPC_ADDR", "127.0.0.1:0")
        .env("MAX_BODY_BYTES", "100")
        .env("METRICS_ADDR", "off")
        .env("WORKER_CONCURRENCY", "3")
        .env("CORE_TIMEOUT_SECS", "5")
        .env_remove("CORE_URL")
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let stdout = child.stdout.take().unwrap();
    let _running = Running(child);
    let mut line = String::new();
    let mut reader = BufReader::new(stdout);
    while !line.starts_with("business messaging: ") {
        line.clear();
        assert!(
            reader.read_line(&mut line).unwrap() > 0,
            "the all-in-one exited"
        );
    }
    let addr = line
        .trim_start_matches("business messaging: http://")
        .split_whitespace()
        .next()
        .unwrap()
        .to_string();
    let body = format!(
        "{{\"phone_number\":\"+14155550123\",\"pad\":\"{}\"}}",
        "x".repeat(300)
    );
    let mut stream = TcpStream::connect(&addr).unwrap();
    stream
        .set_read_timeout(Some(Duration::from_secs(30)))
        .unwrap();
    write!(
        stream,
        "POST /auth/business/otp/request HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{body}",
        body.len()
    )
    .unwrap();
    let mut answer = String::new();
    stream.read_to_string(&mut answer).unwrap();
    assert!(answer.starts_with("HTTP/1.1 413"), "{answer}");
    assert!(answer.contains("payload_too_large"), "{answer}");
    let _ = std::fs::remove_dir_all(&dir);
}
