//! `core-service migrate --status` lists the applied and the pending migrations and changes
//! nothing; `migrate` applies them. On SQLite and on PostgreSQL.

use std::process::Command;

use sea_orm::{ConnectionTrait, Database};

const BIN: &str = env!("CARGO_BIN_EXE_core-service");

fn run(args: &[&str], database_url: &str) -> serde_json::Value {
    let out = Command::new(BIN)
        .args(args)
        .env("DATABASE_URL", database_url)
        .env_remove("RUST_LOG")
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

fn check(database_url: &str) {
    let before = run(&["migrate", "--status"], database_url);
    let pending = before["pending"].as_array().unwrap().len();
    assert!(pending >= 7, "{before}");
    assert!(before["applied"].as_array().unwrap().is_empty(), "{before}");
    // --status changed nothing: still all pending.
    assert_eq!(run(&["migrate", "--status"], database_url), before);
    assert_eq!(run(&["migrate"], database_url)["migrated"], true);
    let after = run(&["migrate", "--status"], database_url);
    assert_eq!(after["applied"], before["pending"]);
    assert!(after["pending"].as_array().unwrap().is_empty(), "{after}");
}

#[test]
fn migrate_status_lists_applied_and_pending_migrations_on_sqlite() {
    let dir = std::env::temp_dir().join(format!("migrate-status-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    check(&format!("sqlite://{}/core.db", dir.display()));
    let _ = std::fs::remove_dir_all(&dir);
}

#[tokio::test]
async fn migrate_status_lists_applied_and_pending_migrations_on_postgres() {
    let admin_url = std::env::var("TEST_DATABASE_URL")
        .unwrap_or_else(|_| "postgres://postgres@127.0.0.1:5432/postgres".to_string());
    let ci = std::env::var("CI").is_ok_and(|v| !v.is_empty() && v != "0" && v != "false");
    let admin = match Database::connect(admin_url.as_str()).await {
        Ok(admin) => admin,
        Err(err) if !ci => {
            eprintln!("PostgreSQL not reachable ({err}): skipped outside CI");
            return;
        }
        Err(err) => panic!("PostgreSQL not reachable under CI: {err}"),
    };
    let name = format!("bm_migrate_{}", uuid::Uuid::new_v4().simple());
    admin
        .execute_unprepared(&format!("CREATE DATABASE \"{name}\""))
        .await
        .unwrap();
    let url = format!("{}/{name}", admin_url.rsplit_once('/').unwrap().0);
    let checked = tokio::task::spawn_blocking(move || std::panic::catch_unwind(|| check(&url)))
        .await
        .unwrap();
    admin
        .execute_unprepared(&format!("DROP DATABASE IF EXISTS \"{name}\" WITH (FORCE)"))
        .await
        .unwrap();
    if let Err(panic) = checked {
        std::panic::resume_unwind(panic);
    }
}
