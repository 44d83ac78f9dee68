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
    "RUNTIME_THREADS",
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
    expected.extend(env_names::<proto::runtime::RuntimeArgs>());
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

/// The `runtime_threads` that `bin`'s start-up line `async runtime started` reports (JSON
/// logs), with `env` set.
fn runtime_threads_of(bin: &str, env: &[(&str, &str)]) -> u64 {
    let dir =
        std::env::temp_dir().join(format!("aio-runtime-{}-{}", std::process::id(), env.len()));
    std::fs::create_dir_all(&dir).unwrap();
    let mut command = Command::new(bin);
    command
        .env(
            "DATABASE_URL",
            format!("sqlite://{}/core.db", dir.display()),
        )
        .env("HTTP_ADDR", "127.0.0.1:0")
        .env("GRPC_ADDR", "127.0.0.1:0")
        .env("METRICS_ADDR", "off")
        .env("CORE_URL", "http://127.0.0.1:9")
        .env("LOG_FORMAT", "json")
        .env_remove("RUST_LOG")
        .stdout(Stdio::null())
        .stderr(Stdio::piped());
    for (k, v) in env {
        command.env(k, v);
    }
    let mut child = command.spawn().unwrap();
    let stderr = child.stderr.take().unwrap();
    let _running = Running(child);
    let line = BufReader::new(stderr)
        .lines()
        .map_while(Result::ok)
        .find(|l| l.contains("async runtime started"))
        .expect("a runtime line");
    let _ = std::fs::remove_dir_all(&dir);
    let value: serde_json::Value = serde_json::from_str(&line).unwrap();
    value["fields"]["runtime_threads"].as_u64().unwrap()
}

#[test]
fn runtime_threads_sizes_the_runtime_of_the_all_in_one_and_of_the_gateway() {
    assert_eq!(runtime_threads_of(BIN, &[("RUNTIME_THREADS", "3")]), 3);
    assert_eq!(runtime_threads_of(GATEWAY, &[("RUNTIME_THREADS", "1")]), 1);
    assert_eq!(
        runtime_threads_of(GATEWAY, &[]) as usize,
        std::thread::available_parallelism().unwrap().get(),
        "one thread per CPU by default"
    );
    for bin in [BIN, GATEWAY] {
        let out = Command::new(bin)
            .env("RUNTIME_THREADS", "0")
            .output()
            .unwrap();
        assert!(!out.status.success(), "{bin}: RUNTIME_THREADS=0 was taken");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(
            stderr.contains("RUNTIME_THREADS must be a whole number from 1 to 1024"),
            "{stderr}"
        );
    }
}
