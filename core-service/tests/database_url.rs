//! A `DATABASE_URL` that names several PostgreSQL servers, or asks the driver to choose among
//! them (`target_session_attrs`), is refused at start with a sentence that says what to do,
//! rather than ignored (the service's driver connects to one host and would take whichever
//! answers, a standby included).

use std::process::Command;

const BIN: &str = env!("CARGO_BIN_EXE_core-service");

fn start_with(url: &str) -> (bool, String) {
    let out = Command::new(BIN)
        .env("DATABASE_URL", url)
        // Nothing listens there: the refusal must come before any connection is tried.
        .env("GRPC_ADDR", "127.0.0.1:0")
        .env("METRICS_ADDR", "off")
        .env_remove("RUST_LOG")
        .output()
        .unwrap();
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn a_database_url_with_several_hosts_or_target_session_attrs_is_refused_at_start() {
    for (url, says) in [
        (
            "postgres://postgres@127.0.0.1:1,127.0.0.1:2/bm",
            "names several PostgreSQL servers (127.0.0.1:1,127.0.0.1:2)",
        ),
        (
            "postgres://postgres@127.0.0.1:1/bm?target_session_attrs=read-write",
            "sets target_session_attrs",
        ),
    ] {
        let (started, stderr) = start_with(url);
        assert!(!started, "{url} was accepted");
        assert!(stderr.contains(says), "{url}: {stderr}");
        assert!(stderr.contains("HAProxy"), "{url}: {stderr}");
    }
}
