//! Privacy: erasing a user everywhere (`PrivacyService.EraseUser`), their export
//! (`ExportUser`), and what erasure keeps (the consent ledger, message metadata).

use std::time::Duration;

use proto::v1 as pb;
use reqwest::Method;
use sea_orm::{ConnectionTrait, DbBackend, Statement};
use serde_json::{Value, json};

use core_service::clock::Clock as _;

use crate::e2e;
use crate::fixtures::*;
use crate::harness::{Options, TestApp, eventually, quiet_for};

const BIZ: &str = "+14155550800";
const OTHER_BIZ: &str = "+14155550810";
const STRANGER_BIZ: &str = "+14155550820";
const TEAM_BIZ: &str = "+14155550830";
const FAN: &str = "+14155550801";
const OTHER_FAN: &str = "+14155550821";

fn by_phone(phone: &str) -> pb::EraseUserRequest {
    pb::EraseUserRequest {
        user_id: None,
        phone_number: Some(phone.to_string()),
    }
}

fn by_user(id: &str) -> pb::EraseUserRequest {
    pb::EraseUserRequest {
        user_id: Some(id.to_string()),
        phone_number: None,
    }
}

/// Erases through PrivacyService: the erasure, or the code of its refusal.
///
/// Tried again while it answers `service_unavailable`, as a client does: with a second core on
/// the same SQLite file (`crashable_core`), a transaction can meet the other core's commit
/// (SQLITE_BUSY_SNAPSHOT), which one core alone never does.
async fn erase(app: &TestApp, request: pb::EraseUserRequest) -> Result<pb::Erasure, String> {
    let mut tries = 0;
    loop {
        let answer = app
            .privacy()
            .await
            .erase_user(app.admin_request(request.clone()))
            .await
            .map(|r| r.into_inner())
            .map_err(|status| proto::RemoteError::from_status(&status).code.to_string());
        tries += 1;
        match answer {
            Err(code) if code == "service_unavailable" && tries < 20 => {
                tokio::time::sleep(Duration::from_millis(50)).await
            }
            answer => return answer,
        }
    }
}

/// Waits for erasure `id` to complete; returns it.
async fn completed(app: &TestApp, id: &str) -> pb::Erasure {
    eventually(&format!("erasure {id} completed"), async || {
        let erasure = app
            .privacy()
            .await
            .get_erasure(app.admin_request(pb::GetErasureRequest { id: id.to_string() }))
            .await
            .expect("get erasure")
            .into_inner();
        (erasure.status == "completed").then_some(erasure)
    })
    .await
}

async fn export(app: &TestApp, user_id: &str) -> Value {
    let mut stream = app
        .privacy()
        .await
        .export_user(app.admin_request(pb::ExportUserRequest {
            user_id: Some(user_id.to_string()),
            phone_number: None,
        }))
        .await
        .expect("export")
        .into_inner();
    let mut bytes = Vec::new();
    while let Some(chunk) = stream.message().await.expect("an export chunk") {
        bytes.extend_from_slice(&chunk.data);
    }
    serde_json::from_slice(&bytes).expect("the export is one JSON document")
}

async fn events_of(app: &TestApp, token: &str, event_type: &str) -> Vec<Value> {
    let page = app
        .get(
            &format!("/business/events?type={event_type}&limit=100"),
            Some(token),
        )
        .await;
    page.assert_ok(200);
    page.data()["events"].as_array().unwrap().clone()
}

/// Every (table, column) that holds text, as each database names them.
async fn text_columns(app: &TestApp) -> Vec<(String, String)> {
    let db = &app.core.db;
    let backend = db.get_database_backend();
    let mut columns = Vec::new();
    if backend == DbBackend::Postgres {
        let rows = db
            .query_all_raw(Statement::from_string(
                backend,
                "SELECT table_name::text AS t, column_name::text AS c FROM information_schema.columns \
                 WHERE table_schema = current_schema() \
                 AND data_type IN ('text', 'character varying', 'json', 'jsonb')",
            ))
            .await
            .unwrap();
        for row in rows {
            columns.push((row.try_get("", "t").unwrap(), row.try_get("", "c").unwrap()));
        }
    } else {
        let tables = db
            .query_all_raw(Statement::from_string(
                backend,
                "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'",
            ))
            .await
            .unwrap();
        for table in tables {
            let table: String = table.try_get("", "name").unwrap();
            let info = db
                .query_all_raw(Statement::from_string(
                    backend,
                    format!("SELECT name FROM pragma_table_info('{table}')"),
                ))
                .await
                .unwrap();
            for column in info {
                columns.push((table.clone(), column.try_get("", "name").unwrap()));
            }
        }
    }
    assert!(columns.len() > 50, "{columns:?}");
    columns
}

/// The (table, column) pairs holding `value` anywhere in their text.
async fn holding(app: &TestApp, columns: &[(String, String)], value: &str) -> Vec<String> {
    let db = &app.core.db;
    let backend = db.get_database_backend();
    let mut found = Vec::new();
    for (table, column) in columns {
        let sql = format!(
            "SELECT COUNT(*) AS n FROM \"{table}\" WHERE CAST(\"{column}\" AS TEXT) LIKE $1"
        );
        let row = db
            .query_one_raw(Statement::from_sql_and_values(
                backend,
                &sql,
                [format!("%{value}%").into()],
            ))
            .await
            .unwrap()
            .unwrap();
        if row.try_get::<i64>("", "n").unwrap() > 0 {
            found.push(format!("{table}.{column}"));
        }
    }
    found
}

async fn count(app: &TestApp, sql: &str, user_id: &str) -> i64 {
    let db = &app.core.db;
    let backend = db.get_database_backend();
    let id: uuid::Uuid = user_id.parse().unwrap();
    db.query_one_raw(Statement::from_sql_and_values(backend, sql, [id.into()]))
        .await
        .unwrap()
        .unwrap()
        .try_get_by_index::<i64>(0)
        .unwrap()
}

/// The messages in the user's inbox.
async fn inboxed(app: &TestApp, user_id: &str) -> i64 {
    count(
        app,
        "SELECT COUNT(*) FROM inbox_messages WHERE user_id = $1",
        user_id,
    )
    .await
}

e2e!(
    an_erased_user_leaves_no_number_text_or_content_and_the_ledger_and_metadata_stay,
    |app| async move {
        let rx = Receiver::start().await;
        let biz = live_business(&app, BIZ, ALL_SCOPES).await;
        register_webhook(
            &app,
            &biz,
            &rx.url(),
            &["message.received", "user.redacted", "grant.revoked"],
        )
        .await;
        let other = live_business(&app, OTHER_BIZ, ALL_SCOPES).await;
        let stranger = live_business(&app, STRANGER_BIZ, ALL_SCOPES).await;
        let team = live_business(&app, TEAM_BIZ, ALL_SCOPES).await;
        let (user_id, token) = follower(&app, &biz, FAN, true).await;
        follow_call(&app, &token, &other, Method::PUT, json!({})).await;
        follower(&app, &stranger, OTHER_FAN, false).await;
        add_member(&app, &team.owner_token, FAN, "member").await;
        app.patch(
            "/me",
            Some(&token),
            json!({ "display_name": "Zyxwv Privacyname", "language": "pt-BR" }),
        )
        .await
        .assert_ok(200);
        // What the user wrote, and what was sent to them (text and content).
        app.post(
            &format!("/businesses/{}/messages", biz.id),
            Some(&token),
            json!({ "text": "secret-inbound-qwerty" }),
        )
        .await
        .assert_ok(201);
        let received = rx.wait_for(1).await;
        assert!(String::from_utf8_lossy(&received[0].body).contains("secret-inbound-qwerty"));
        let conversation = app
            .get("/business/conversations", Some(&biz.owner_token))
            .await
            .data()["conversations"][0]["id"]
            .as_str()
            .unwrap()
            .to_string();
        app.patch(
            &format!("/business/conversations/{conversation}"),
            Some(&biz.owner_token),
            json!({ "label": "label-of-zyxwv" }),
        )
        .await
        .assert_ok(200);
        app.post(
            &format!("/business/conversations/{conversation}/messages"),
            Some(&biz.owner_token),
            json!({ "text": "secret-reply-asdfg" }),
        )
        .await
        .assert_ok(200);
        send_v1(
            &app,
            &biz,
            json!({ "to": FAN, "category": "utility", "body": "secret-utility-zxcvb" }),
            Some("erasure-key"),
        )
        .await
        .assert_ok(200);
        send_v1(
            &app,
            &biz,
            json!({ "to": FAN, "category": "marketing",
                    "message_content": { "text": "secret-content-poiuy" } }),
            None,
        )
        .await
        .assert_ok(200);
        app.admin()
            .await
            .create_grant(app.admin_request(pb::GrantRequest {
                user_id: user_id.clone(),
                client_id: biz.app_id.clone(),
            }))
            .await
            .unwrap();
        eventually("the messages delivered to the user", async || {
            (inboxed(&app, &user_id).await == 3).then_some(())
        })
        .await;
        let kept_messages = count(
            &app,
            "SELECT COUNT(*) FROM messages WHERE recipient_user_id = $1",
            &user_id,
        )
        .await;
        assert_eq!(kept_messages, 3);

        // The export holds every kind of row kept about the user.
        let before = export(&app, &user_id).await;
        assert_eq!(before["account"]["phone_number"], FAN);
        assert_eq!(before["account"]["display_name"], "Zyxwv Privacyname");
        for (section, at_least) in [
            ("follows", 2),
            ("consent_changes", 2),
            ("grants", 1),
            ("otp_codes", 1),
            ("refresh_families", 1),
            ("conversations", 1),
            ("read_marks", 0),
            ("messages_written", 1),
            ("messages_received", 3),
            ("events", 3),
            ("webhook_deliveries", 1),
            ("broadcast_audiences", 0),
        ] {
            let rows = before[section]
                .as_array()
                .unwrap_or_else(|| panic!("{section}"));
            assert!(rows.len() >= at_least, "{section}: {rows:?}");
        }
        assert_eq!(before["team_membership"]["business_id"], team.id.as_str());
        assert_eq!(
            before["messages_written"][0]["body"],
            "secret-inbound-qwerty"
        );
        let bodies: Vec<&Value> = before["messages_received"]
            .as_array()
            .unwrap()
            .iter()
            .map(|m| &m["body"])
            .collect();
        assert!(
            bodies.contains(&&json!("secret-utility-zxcvb")),
            "{bodies:?}"
        );
        assert!(before["erasure_entry"].is_null());

        // The scan finds each value before the erasure (where the core keeps it).
        let columns = text_columns(&app).await;
        for (value, at) in [
            (FAN, "users.phone_number"),
            ("secret-inbound-qwerty", "inbound_messages.body"),
            ("secret-inbound-qwerty", "events.data"),
            ("secret-inbound-qwerty", "webhook_attempts.payload"),
            ("secret-utility-zxcvb", "messages.body"),
            ("secret-content-poiuy", "inbox_messages.message_content"),
            ("label-of-zyxwv", "conversations.label"),
            ("Zyxwv Privacyname", "users.display_name"),
        ] {
            let found = holding(&app, &columns, value).await;
            assert!(
                found.iter().any(|f| f == at),
                "{value} not in {at}: {found:?}"
            );
        }

        // The owner of a business is refused.
        assert_eq!(
            erase(&app, by_phone(BIZ)).await.unwrap_err(),
            "user_owns_business"
        );
        let started = erase(&app, by_phone(FAN)).await.expect("erasure started");
        assert_eq!(started.user_id, user_id);
        // At once: signed out, the number free, no longer on the team.
        app.get("/me", Some(&token))
            .await
            .assert_error(401, "unauthorized");
        let done = completed(&app, &started.erasure_id).await;
        assert_eq!(done.phase, "done");
        assert!(done.rows > 0);
        assert_eq!(done.businesses, 2, "{done:?}");

        for value in [
            FAN,
            "secret-inbound-qwerty",
            "secret-reply-asdfg",
            "secret-utility-zxcvb",
            "secret-content-poiuy",
            "label-of-zyxwv",
            "Zyxwv Privacyname",
        ] {
            let found = holding(&app, &columns, value).await;
            assert!(found.is_empty(), "{value} is still in {found:?}");
        }
        // Kept: message metadata and the consent ledger, by user id.
        assert_eq!(
            count(
                &app,
                "SELECT COUNT(*) FROM messages WHERE recipient_user_id = $1",
                &user_id
            )
            .await,
            kept_messages
        );
        let evidence = app
            .get(
                &format!("/business/followers/{user_id}/evidence"),
                Some(&biz.owner_token),
            )
            .await;
        evidence.assert_ok(200);
        let changes = evidence.data()["changes"].as_array().unwrap().clone();
        assert_eq!(changes.first().unwrap()["marketing_opt_in"], true);
        assert_eq!(changes.last().unwrap()["source"], "erasure");
        assert_eq!(changes.last().unwrap()["status"], "unfollowed");
        let history = app
            .get("/business/messages?limit=10", Some(&biz.owner_token))
            .await;
        history.assert_ok(200);
        // The thread stays; nobody is there to write to.
        app.post(
            &format!("/business/conversations/{conversation}/messages"),
            Some(&biz.owner_token),
            json!({ "text": "still there?" }),
        )
        .await
        .assert_error(400, "recipient_not_found");
        app.get(
            &format!("/business/conversations/{conversation}/messages"),
            Some(&biz.owner_token),
        )
        .await
        .assert_ok(200);
        // Team membership ended; the number registers again, as a new user.
        let members = app.get("/business/team", Some(&team.owner_token)).await;
        assert!(!members.body.to_string().contains(&user_id));
        let (new_id, _) = app.user(FAN).await;
        assert_ne!(new_id, user_id);

        // `user.redacted` once to each business that knew the user, and no other.
        for (b, expected) in [(&biz, 1), (&other, 1), (&stranger, 0), (&team, 0)] {
            let got = events_of(&app, &b.owner_token, "user.redacted").await;
            assert_eq!(got.len(), expected, "{}: {got:?}", b.id);
            if expected == 1 {
                assert_eq!(got[0]["data"]["user_id"], user_id.as_str());
                assert_eq!(got[0]["data"]["erased_at"], done.erased_at.as_str());
            }
        }
        let grants = events_of(&app, &biz.owner_token, "grant.revoked").await;
        assert_eq!(grants.len(), 1);
        let redacted = eventually("user.redacted delivered", async || {
            rx.received()
                .into_iter()
                .find(|r| r.json()["type"] == "user.redacted")
        })
        .await;
        assert_eq!(redacted.json()["data"]["user_id"], user_id.as_str());

        // A second run by id changes nothing; by the number it finds nobody.
        let again = erase(&app, by_user(&user_id)).await.unwrap();
        assert_eq!(again.erasure_id, started.erasure_id);
        assert_eq!(again.status, "completed");
        assert_eq!(again.rows, done.rows);
        assert_eq!(
            erase(&app, by_phone("+14155550899")).await.unwrap_err(),
            "user_not_found"
        );
        quiet_for(Duration::from_millis(300)).await;
        assert_eq!(
            events_of(&app, &biz.owner_token, "user.redacted")
                .await
                .len(),
            1
        );
        // The export of the erased user: the ledger and the metadata, no text.
        let after = export(&app, &user_id).await;
        assert_eq!(after["account"]["status"], "erased");
        assert_eq!(after["erasure_entry"]["status"], "completed");
        assert_eq!(after["messages_written"], json!([]));
        assert_eq!(after["messages_received"].as_array().unwrap().len(), 3);
        assert!(!after.to_string().contains("secret-"));
    }
);

/// No dispatcher nor erasure runner on the test's own core.
fn held() -> Options {
    Options {
        configure: Some(std::sync::Arc::new(|c| {
            c.delivery.dispatch_concurrency = 0;
            c.retention.erasure_rows_per_second = 20;
        })),
        ..Default::default()
    }
}

e2e!(
    a_scheduled_message_is_canceled_and_one_not_handed_out_fails_recipient_erased,
    held(),
    |app| async move {
        let biz = live_business(&app, BIZ, ALL_SCOPES).await;
        let (user_id, _) = follower(&app, &biz, FAN, false).await;
        let waiting = send_v1(&app, &biz, utility(FAN), None).await;
        waiting.assert_ok(200);
        let send_at = (app.clock.now() + chrono::TimeDelta::hours(1))
            .to_rfc3339_opts(chrono::SecondsFormat::Secs, true);
        let mut later = utility(FAN);
        later["send_at"] = json!(send_at);
        let scheduled = send_v1(&app, &biz, later, None).await;
        scheduled.assert_ok(200);
        // An accepted message that lost its outbox row (nothing will ever hand it out): the
        // job decides it too rather than wait for it.
        let orphan = send_v1(&app, &biz, utility(FAN), None).await;
        orphan.assert_ok(200);
        let orphan_id: uuid::Uuid = orphan.data()["id"].as_str().unwrap().parse().unwrap();
        app.core
            .db
            .execute_raw(Statement::from_sql_and_values(
                app.core.db.get_database_backend(),
                "DELETE FROM message_outbox WHERE message_id = $1",
                [orphan_id.into()],
            ))
            .await
            .unwrap();
        let started = erase(&app, by_user(&user_id)).await.unwrap();
        // This core runs no runner: one started here takes the job.
        let stop = tokio_util::sync::CancellationToken::new();
        let runner = core_service::privacy::job::Runner::new(app.core.clone());
        tokio::spawn(runner.run(stop.clone()));
        completed(&app, &started.erasure_id).await;
        stop.cancel();
        for (reply, status, reason) in [
            (&waiting, "failed", "recipient_erased"),
            (&orphan, "failed", "recipient_erased"),
            (&scheduled, "canceled", "canceled"),
        ] {
            let id = reply.data()["id"].as_str().unwrap();
            let message = app
                .get(&format!("/business/messages/{id}"), Some(&biz.owner_token))
                .await;
            message.assert_ok(200);
            assert_eq!(message.data()["status"], status, "{}", message.body);
            assert_eq!(message.data()["failure_reason"], reason);
            assert!(message.data()["body"].is_null());
        }
        let failed = events_of(&app, &biz.owner_token, "message.failed").await;
        let mut reasons: Vec<&str> = failed
            .iter()
            .map(|e| e["data"]["reason"].as_str().unwrap())
            .collect();
        reasons.sort();
        assert_eq!(
            reasons,
            ["canceled", "recipient_erased", "recipient_erased"]
        );
    }
);

e2e!(
    an_erasure_whose_core_is_killed_is_resumed_by_another_and_ends_once,
    held(),
    |app| async move {
        let biz = live_business(&app, BIZ, ALL_SCOPES).await;
        let (user_id, _) = follower(&app, &biz, FAN, false).await;
        // The only dispatcher and runner are on a core that will crash.
        let doomed = app.crashable_core(|c| {
            c.delivery.dispatch_concurrency = 4;
            c.retention.erasure_rows_per_second = 20;
        });
        for i in 0..30 {
            let mut body = utility(FAN);
            body["body"] = json!(format!("secret-{i}-mnbvc"));
            send_v1(&app, &biz, body, None).await.assert_ok(200);
        }
        eventually("the messages delivered", async || {
            (inboxed(&app, &user_id).await == 30).then_some(())
        })
        .await;
        let started = erase(&app, by_user(&user_id)).await.unwrap();
        let get = async || {
            app.privacy()
                .await
                .get_erasure(app.admin_request(pb::GetErasureRequest {
                    id: started.erasure_id.clone(),
                }))
                .await
                .unwrap()
                .into_inner()
        };
        eventually("the erasure under way", async || {
            let e = get().await;
            (e.rows > 0 && e.status == "running").then_some(())
        })
        .await;
        doomed.crash();
        let at_crash = get().await;
        assert_eq!(at_crash.status, "running", "{at_crash:?}");

        let _survivor = app
            .second_stack(|c| {
                c.delivery.dispatch_concurrency = 4;
                c.retention.erasure_rows_per_second = 20;
            })
            .await;
        quiet_for(Duration::from_millis(1500)).await;
        assert_eq!(
            get().await.rows,
            at_crash.rows,
            "not taken while the lease holds"
        );
        app.clock.advance(Duration::from_secs(31));
        let done = completed(&app, &started.erasure_id).await;
        let columns = text_columns(&app).await;
        assert!(holding(&app, &columns, "mnbvc").await.is_empty());
        assert!(holding(&app, &columns, FAN).await.is_empty());
        assert_eq!(
            events_of(&app, &biz.owner_token, "user.redacted")
                .await
                .len(),
            1
        );
        // Again by id: the same erasure, nothing more.
        let again = erase(&app, by_user(&user_id)).await.unwrap();
        assert_eq!(again.erasure_id, done.erasure_id);
        assert_eq!(again.rows, done.rows);
    }
);

e2e!(
    erasure_and_export_refuse_what_they_cannot_answer,
    |app| async move {
        assert_eq!(
            erase(&app, pb::EraseUserRequest::default())
                .await
                .unwrap_err(),
            "invalid_request"
        );
        assert_eq!(
            erase(&app, by_user("not-a-uuid")).await.unwrap_err(),
            "invalid_request"
        );
        assert_eq!(
            erase(&app, by_phone("12")).await.unwrap_err(),
            "invalid_phone_number"
        );
        assert_eq!(
            erase(&app, by_user(&uuid::Uuid::new_v4().to_string()))
                .await
                .unwrap_err(),
            "user_not_found"
        );
        let missing = app
            .privacy()
            .await
            .get_erasure(app.admin_request(pb::GetErasureRequest {
                id: uuid::Uuid::new_v4().to_string(),
            }))
            .await
            .unwrap_err();
        assert_eq!(
            proto::RemoteError::from_status(&missing).code.to_string(),
            "not_found"
        );
        // The status is the erasure's alone.
        let (_, _) = app.user(FAN).await;
        let refused = app
            .admin()
            .await
            .set_user_status(app.admin_request(pb::SetUserStatusRequest {
                phone_number: FAN.to_string(),
                status: "erased".to_string(),
            }))
            .await
            .unwrap_err();
        assert_eq!(
            proto::RemoteError::from_status(&refused).code.to_string(),
            "invalid_request"
        );
    }
);

async fn admin_cli(
    app: &TestApp,
    command: core_service::admin::cli::AdminCommand,
) -> anyhow::Result<Value> {
    core_service::admin::cli::run(core_service::admin::cli::AdminArgs {
        core_url: app.grpc_url.clone(),
        core_tls_ca: app.core_tls_ca.clone(),
        internal_token: app.config.internal_token.clone(),
        command,
    })
    .await
}

e2e!(
    the_operator_exports_erases_and_follows_an_erasure_from_the_command_line,
    |app| async move {
        use core_service::admin::cli::AdminCommand;
        let biz = live_business(&app, BIZ, ALL_SCOPES).await;
        let (user_id, _) = follower(&app, &biz, FAN, true).await;
        let exported = admin_cli(
            &app,
            AdminCommand::ExportUser {
                phone: Some(FAN.to_string()),
                user_id: None,
            },
        )
        .await
        .unwrap();
        assert_eq!(exported["account"]["id"], user_id.as_str());
        assert_eq!(exported["follows"][0]["business_id"], biz.id.as_str());
        let refused = admin_cli(
            &app,
            AdminCommand::EraseUser {
                phone: Some(BIZ.to_string()),
                user_id: None,
                wait: false,
            },
        )
        .await
        .unwrap_err()
        .to_string();
        assert!(refused.starts_with("user_owns_business"), "{refused}");
        let erased = admin_cli(
            &app,
            AdminCommand::EraseUser {
                phone: Some(FAN.to_string()),
                user_id: None,
                wait: true,
            },
        )
        .await
        .unwrap();
        assert_eq!(erased["status"], "completed");
        assert_eq!(erased["businesses"], 1);
        let by_user = admin_cli(
            &app,
            AdminCommand::Erasure {
                id: user_id.clone(),
            },
        )
        .await
        .unwrap();
        assert_eq!(by_user, erased);
        let again = admin_cli(
            &app,
            AdminCommand::EraseUser {
                phone: None,
                user_id: Some(user_id),
                wait: false,
            },
        )
        .await
        .unwrap();
        assert_eq!(again, erased);
    }
);
