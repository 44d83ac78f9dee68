//! A PostgreSQL server that turns read-only under the core's pool (a demoted primary, a standby
//! reached while a failover settles): a write it refuses (SQLSTATE 25006) is answered 503
//! `service_unavailable`, never 500; the connection that met it never serves again, nor do its
//! siblings; a new connection to the read-only server is refused; and once the server takes
//! writes again, the send that failed is accepted when retried with its key, stored once.
//!
//! PostgreSQL only, on a server of the test's own (initdb into a temporary folder, on a free
//! port): turning a server read-only under open sessions (`ALTER SYSTEM` and a reload) would
//! reach every other test's database on the shared one.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Arc;

use sea_orm::{ConnectionTrait, Database, DatabaseConnection};

use crate::fixtures::{ALL_SCOPES, follower, live_business, send_v1, utility};
use crate::harness::{Backend, Options, TestApp, eventually};

const BIZ: &str = "+14155550100";
const FAN: &str = "+14155550200";

/// A PostgreSQL server of one test, stopped and removed when dropped.
struct PrivatePostgres {
    work: PathBuf,
    pg_ctl: PathBuf,
    url: String,
}

fn under_ci() -> bool {
    std::env::var("CI").is_ok_and(|v| !v.is_empty() && v != "0" && v != "false")
}

/// The server's programs (`pg_config --bindir`, else Debian's folder).
fn server_bindir() -> Option<PathBuf> {
    let from_pg_config = Command::new("pg_config")
        .arg("--bindir")
        .output()
        .ok()
        .filter(|out| out.status.success())
        .map(|out| PathBuf::from(String::from_utf8_lossy(&out.stdout).trim()));
    let debian = std::fs::read_dir("/usr/lib/postgresql")
        .ok()
        .and_then(|dirs| {
            let mut found: Vec<PathBuf> = dirs.flatten().map(|d| d.path().join("bin")).collect();
            found.sort();
            found.pop()
        });
    [from_pg_config, debian]
        .into_iter()
        .flatten()
        .find(|dir| dir.join("initdb").exists())
}

/// `program` as the `postgres` user when this process is root (the server refuses to run as
/// root).
fn as_server_user(program: &Path) -> Command {
    let root = Command::new("id")
        .arg("-u")
        .output()
        .is_ok_and(|out| String::from_utf8_lossy(&out.stdout).trim() == "0");
    if root {
        let mut command = Command::new("runuser");
        command.args(["-u", "postgres", "--"]).arg(program);
        command
    } else {
        Command::new(program)
    }
}

impl PrivatePostgres {
    /// None when no server programs are installed, outside CI (under CI it panics).
    fn start() -> Option<PrivatePostgres> {
        let Some(bin) = server_bindir() else {
            assert!(
                !under_ci(),
                "PostgreSQL's server programs are required under CI=true"
            );
            eprintln!("NOTICE: no initdb found; skipping");
            return None;
        };
        let work = std::env::temp_dir().join(format!("bm-ro-{}", uuid::Uuid::new_v4().simple()));
        std::fs::create_dir_all(&work).expect("work folder");
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&work, std::fs::Permissions::from_mode(0o777)).unwrap();
        let data = work.join("data");
        let out = as_server_user(&bin.join("initdb"))
            .arg("-D")
            .arg(&data)
            .args(["-U", "postgres", "--auth=trust", "-E", "UTF8", "--no-sync"])
            .output()
            .expect("initdb runs");
        assert!(
            out.status.success(),
            "initdb: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        let server = PrivatePostgres {
            pg_ctl: bin.join("pg_ctl"),
            url: format!("postgres://postgres@127.0.0.1:{port}/postgres"),
            work,
        };
        let options = format!(
            "-p {port} -k {} -c listen_addresses=127.0.0.1 -c max_connections=40 -c fsync=off",
            server.work.display()
        );
        let out = as_server_user(&server.pg_ctl)
            .arg("-D")
            .arg(&data)
            .arg("-l")
            .arg(server.work.join("server.log"))
            .args(["-w", "-o", &options, "start"])
            .output()
            .expect("pg_ctl runs");
        assert!(
            out.status.success(),
            "pg_ctl start: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        Some(server)
    }

    async fn admin(&self) -> DatabaseConnection {
        let admin = Database::connect(self.url.as_str())
            .await
            .expect("admin connection");
        // The administrator's own session stays writable whatever the server's default.
        admin
            .execute_unprepared("SET default_transaction_read_only = off")
            .await
            .unwrap();
        admin
    }

    /// Makes every session of the server read-only (`default_transaction_read_only`, reloaded:
    /// open sessions take it at their next statement), or writable again.
    async fn read_only(&self, admin: &DatabaseConnection, on: bool) {
        let change = if on {
            "ALTER SYSTEM SET default_transaction_read_only = on"
        } else {
            "ALTER SYSTEM RESET default_transaction_read_only"
        };
        admin.execute_unprepared(change).await.unwrap();
        admin
            .execute_unprepared("SELECT pg_reload_conf()")
            .await
            .unwrap();
    }
}

impl Drop for PrivatePostgres {
    fn drop(&mut self) {
        let _ = as_server_user(&self.pg_ctl)
            .arg("-D")
            .arg(self.work.join("data"))
            .args(["-m", "immediate", "stop"])
            .output();
        let _ = std::fs::remove_dir_all(&self.work);
    }
}

/// The core's connections to the server that have served it (neither the administrator's, nor
/// the job streams' LISTEN, nor one being checked by the pool's read-only test).
async fn serving_connections(admin: &DatabaseConnection) -> i64 {
    let row = admin
        .query_one_raw(sea_orm::Statement::from_string(
            sea_orm::DbBackend::Postgres,
            "SELECT count(*) AS n FROM pg_stat_activity WHERE backend_type = 'client backend' \
             AND pid <> pg_backend_pid() AND query NOT LIKE 'LISTEN%' \
             AND query NOT LIKE '%pg_is_in_recovery%' AND query <> ''",
        ))
        .await
        .unwrap()
        .unwrap();
    row.try_get::<i64>("", "n").unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn postgres_a_server_turned_read_only_under_the_pool_answers_503_and_its_connections_are_discarded()
 {
    let Some(server) = PrivatePostgres::start() else {
        return;
    };
    let url = server.url.clone();
    let options = Options {
        configure: Some(Arc::new(move |config| {
            config.database.database_url = url.clone();
        })),
        ..Options::default()
    };
    let Some(app) = TestApp::spawn_with(Backend::Postgres, options).await else {
        return;
    };
    let biz = live_business(&app, BIZ, ALL_SCOPES).await;
    follower(&app, &biz, FAN, false).await;
    // Several pooled connections have served.
    let warm = (0..6).map(|_| send_v1(&app, &biz, utility(FAN), None));
    for reply in futures::future::join_all(warm).await {
        reply.assert_ok(200);
    }
    let admin = server.admin().await;
    assert!(serving_connections(&admin).await > 0);

    server.read_only(&admin, true).await;
    // The reload reaches each session at its next statement: sends may still be accepted for
    // a moment, then are refused with 503 (never a 500).
    let failed_key = eventually("a send refused by the read-only server", async || {
        let key = uuid::Uuid::new_v4().to_string();
        let reply = send_v1(&app, &biz, utility(FAN), Some(&key)).await;
        match reply.status {
            200 => None,
            _ => {
                reply.assert_error(503, "service_unavailable");
                Some(key)
            }
        }
    })
    .await;
    // Every connection that served is closed, by the pool, not given out again; and new ones
    // are refused (their read-only check finds the server so), so sends go on answering 503.
    eventually(
        "the pool to hold no connection to the read-only server",
        async || (serving_connections(&admin).await == 0).then_some(()),
    )
    .await;
    for _ in 0..3 {
        send_v1(&app, &biz, utility(FAN), None)
            .await
            .assert_error(503, "service_unavailable");
    }

    // Writable again: the send that failed is accepted when retried with its key, once.
    server.read_only(&admin, false).await;
    let id = eventually("the failed send accepted on a retry", async || {
        let reply = send_v1(&app, &biz, utility(FAN), Some(&failed_key)).await;
        match reply.status {
            200 => Some(reply.data()["id"].as_str().unwrap().to_string()),
            _ => {
                reply.assert_error(503, "service_unavailable");
                None
            }
        }
    })
    .await;
    let again = send_v1(&app, &biz, utility(FAN), Some(&failed_key)).await;
    again.assert_ok(200);
    assert_eq!(again.data()["id"], id.as_str());
    let stored = admin
        .query_one_raw(sea_orm::Statement::from_string(
            sea_orm::DbBackend::Postgres,
            format!("SELECT count(*) AS n FROM messages WHERE id = '{id}'"),
        ))
        .await
        .unwrap()
        .unwrap();
    assert_eq!(stored.try_get::<i64>("", "n").unwrap(), 1);
}
