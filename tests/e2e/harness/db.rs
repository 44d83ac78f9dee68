//! Each test's own database: a fresh SQLite file, or a fresh PostgreSQL database on the server
//! `TEST_DATABASE_URL` names, dropped when the test ends.

use std::path::PathBuf;

use sea_orm::{ConnectionTrait, Database};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Backend {
    Sqlite,
    Postgres,
}

/// A database that exists for one test.
pub(super) enum TestDb {
    Sqlite { dir: PathBuf },
    Postgres { admin_url: String, name: String },
}

impl Drop for TestDb {
    fn drop(&mut self) {
        match self {
            TestDb::Sqlite { dir } => {
                let _ = std::fs::remove_dir_all(dir);
            }
            TestDb::Postgres { admin_url, name } => {
                let (url, name) = (admin_url.clone(), name.clone());
                // Drop runs outside any runtime guarantee: use a thread with its own.
                let _ = std::thread::spawn(move || {
                    let rt = tokio::runtime::Builder::new_current_thread()
                        .enable_all()
                        .build()
                        .expect("runtime");
                    rt.block_on(async {
                        if let Ok(db) = Database::connect(&url).await {
                            let _ = db
                                .execute_unprepared(&format!(
                                    "DROP DATABASE IF EXISTS \"{name}\" WITH (FORCE)"
                                ))
                                .await;
                            let _ = db.close().await;
                        }
                    });
                })
                .join();
            }
        }
    }
}

fn pg_admin_url() -> String {
    std::env::var("TEST_DATABASE_URL")
        .unwrap_or_else(|_| "postgres://postgres@127.0.0.1:5432/postgres".to_string())
}

fn under_ci() -> bool {
    std::env::var("CI").is_ok_and(|v| !v.is_empty() && v != "0" && v != "false")
}

pub(super) async fn create_database(backend: Backend) -> Option<(String, TestDb)> {
    let id = uuid::Uuid::new_v4().simple().to_string();
    match backend {
        Backend::Sqlite => {
            let dir = std::env::temp_dir().join(format!("bm-e2e-{id}"));
            std::fs::create_dir_all(&dir).expect("temp dir");
            let url = format!("sqlite://{}/core.db", dir.display());
            Some((url, TestDb::Sqlite { dir }))
        }
        Backend::Postgres => {
            let admin_url = pg_admin_url();
            let admin = match Database::connect(&admin_url).await {
                Ok(db) => db,
                Err(err) => {
                    if under_ci() {
                        panic!("PostgreSQL at {admin_url} is required under CI=true: {err}");
                    }
                    eprintln!("NOTICE: PostgreSQL not reachable at {admin_url} ({err}); skipping");
                    return None;
                }
            };
            let name = format!("bm_e2e_{id}");
            admin
                .execute_unprepared(&format!("CREATE DATABASE \"{name}\""))
                .await
                .expect("create test database");
            let _ = admin.close().await;
            let mut url = url::Url::parse(&admin_url).expect("TEST_DATABASE_URL is a URL");
            url.set_path(&name);
            Some((url.to_string(), TestDb::Postgres { admin_url, name }))
        }
    }
}
