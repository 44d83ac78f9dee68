//! Each HTTP binary's `--help` lists exactly the settings it uses, and the all-in-one honours the
//! gateway's and the worker's settings, not only the core's (`MAX_BODY_BYTES` takes effect).

#![cfg(feature = "embedded")]

use std::collections::BTreeSet;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::process::{Child, Command, Stdio};
use std::time::Duration;

const BIN: &str = env!("CARGO_BIN_EXE_all-in-one");
const GATEWAY: &str = env!("CARGO_BIN_EXE_rest-gateway");

struct Running(Child);

impl Drop for Running {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// The environment variables a `--help` names (`[env: NAME...]`).
fn help_env(bin: &str) -> BTreeSet<String> {
    let out = Command::new(bin).arg("--help").output().unwrap();
    assert!(out.status.success());
    String::from_utf8_lossy(&out.stdout)
        .split("[env: ")
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

/// What the standalone gateway reads.
const GATEWAY_SETTINGS: &[&str] = &[
    "CORE_URL",
    "CORE_TURN_MS",
    "CORE_TLS_CA",
    "INTERNAL_TOKEN",
    "METRICS_ADDR",
    "HTTP_ADDR",
    "TRUST_PROXY",
    "MAX_BODY_BYTES",
    "CORE_TIMEOUT_SECS",
    "HEADER_READ_TIMEOUT_SECS",
    "BODY_READ_TIMEOUT_SECS",
];

#[test]
fn the_standalone_gateways_help_lists_only_its_settings() {
    assert_eq!(help_env(GATEWAY), set(GATEWAY_SETTINGS));
}

#[test]
fn the_all_in_ones_help_lists_the_cores_the_gateways_and_the_workers_settings() {
    let help = help_env(BIN);
    // The gateway's and the worker's own settings, without the ones that name a core to reach
    // (theirs is in the process) or TLS for the core's gRPC (it is reached on loopback).
    for setting in GATEWAY_SETTINGS
        .iter()
        .chain(&[
            "WORKER_CONCURRENCY",
            "DATABASE_URL",
            "GRPC_ADDR",
            "RETENTION_MESSAGES_DAYS",
        ])
        .filter(|s| !matches!(**s, "CORE_URL" | "CORE_TURN_MS" | "CORE_TLS_CA"))
    {
        assert!(
            help.contains(*setting),
            "--help does not list {setting}: {help:?}"
        );
    }
    for setting in [
        "CORE_URL",
        "CORE_TURN_MS",
        "CORE_TLS_CA",
        "GRPC_TLS_CERT",
        "GRPC_TLS_KEY",
    ] {
        assert!(
            !help.contains(setting),
            "--help lists {setting}, which it does not use"
        );
    }
    // Exactly the core's, the gateway's HTTP and the worker's settings.
    fn env_names<T: clap::Args>() -> BTreeSet<String> {
        T::augment_args(clap::Command::new("x"))
            .get_arguments()
            .filter_map(|a| a.get_env())
            .map(|e| e.to_string_lossy().into_owned())
            .collect()
    }
    let mut expected = env_names::<core_service::CoreConfig>();
    expected.extend(env_names::<rest_gateway::HttpSettings>());
    expected.extend(env_names::<webhook_worker::WorkerSettings>());
    assert_eq!(help, expected);
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
