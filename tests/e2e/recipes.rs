//! The API guide's signature-verification recipes (tests/recipes/verify.py and verify.mjs), run
//! against a real delivery: they accept it, and refuse a changed body or another secret. The
//! guide (rest-gateway/README.md) shows them verbatim.

use std::io::Write;
use std::path::PathBuf;
use std::process::{Command, Stdio};

use serde_json::json;

use crate::e2e;
use crate::fixtures::Receiver;
use crate::fixtures::{ALL_SCOPES, follower, live_business, register_webhook, send_v1};

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .unwrap()
        .to_path_buf()
}

/// Runs `program recipe secret header < body`; Some(true) when it says `valid` and exits 0.
fn run(program: &str, recipe: &str, secret: &str, header: &str, body: &[u8]) -> Option<bool> {
    let path = root().join("tests/recipes").join(recipe);
    let mut child = match Command::new(program)
        .arg(&path)
        .arg(secret)
        .arg(header)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
    {
        Ok(child) => child,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return None,
        Err(e) => panic!("{program}: {e}"),
    };
    child.stdin.take().unwrap().write_all(body).unwrap();
    let out = child.wait_with_output().unwrap();
    let said = String::from_utf8_lossy(&out.stdout).trim().to_string();
    assert_eq!(
        said == "valid",
        out.status.success(),
        "{program} {recipe}: {said}"
    );
    Some(out.status.success())
}

/// The recipe as the API guide shows it: the file up to its command-line part.
fn recipe_text(file: &str, cut: &str) -> String {
    let text = std::fs::read_to_string(root().join("tests/recipes").join(file)).unwrap();
    text.split(cut).next().unwrap().trim_end().to_string()
}

#[test]
fn the_api_guide_shows_the_verification_recipes_as_the_tests_run_them() {
    let readme = std::fs::read_to_string(root().join("rest-gateway/README.md")).unwrap();
    for (file, cut) in [
        ("verify.py", "\n\n# Command line"),
        ("verify.mjs", "\n\n// Command line"),
    ] {
        let recipe = recipe_text(file, cut);
        assert!(
            readme.contains(&recipe),
            "rest-gateway/README.md does not show tests/recipes/{file}"
        );
    }
}

e2e!(
    the_python_and_node_recipes_verify_a_real_delivery_and_refuse_a_forged_one,
    |app| async move {
        let rx = Receiver::start().await;
        let biz = live_business(&app, "+14155550100", ALL_SCOPES).await;
        follower(&app, &biz, "+14155550200", false).await;
        let hook = register_webhook(&app, &biz, &rx.url(), &["message.sent"]).await;
        let secret = hook["secret"].as_str().unwrap().to_string();
        send_v1(
            &app,
            &biz,
            json!({ "to": "+14155550200", "category": "utility", "body": "Your order has shipped" }),
            None,
        )
        .await
        .assert_ok(200);
        let got = rx.wait_for(1).await;
        let header = got[0].header("x-service-signature");
        let body = got[0].body.to_vec();
        let mut forged = body.clone();
        forged[body.len() / 2] ^= 1;

        let mut ran = 0;
        for (program, recipe) in [("python3", "verify.py"), ("node", "verify.mjs")] {
            let Some(valid) = run(program, recipe, &secret, &header, &body) else {
                assert_ne!(program, "python3", "python3 is required");
                eprintln!("{program} is not installed: {recipe} not run");
                continue;
            };
            assert!(valid, "{recipe} refused a real delivery");
            assert_eq!(
                run(program, recipe, &secret, &header, &forged),
                Some(false),
                "{recipe}: changed body"
            );
            assert_eq!(
                run(program, recipe, "another-secret", &header, &body),
                Some(false),
                "{recipe}: other secret"
            );
            assert_eq!(
                run(program, recipe, &secret, "t=1,v1=00", &body),
                Some(false),
                "{recipe}: old t"
            );
            ran += 1;
        }
        assert!(ran >= 1);
    }
);

e2e!(
    the_recipes_accept_a_delivery_signed_during_a_rotation_with_either_secret,
    |app| async move {
        let rx = Receiver::start().await;
        let biz = live_business(&app, "+14155550100", ALL_SCOPES).await;
        let hook = register_webhook(&app, &biz, &rx.url(), &["message.sent"]).await;
        let old = hook["secret"].as_str().unwrap().to_string();
        let id = hook["id"].as_str().unwrap();
        let new = format!(
            "whsec_{}",
            base64::Engine::encode(&base64::engine::general_purpose::STANDARD, [7u8; 32])
        );
        app.post(
            &format!("/business/webhooks/{id}/rotate-secret"),
            Some(&biz.owner_token),
            json!({ "secret": new, "grace_seconds": 3600 }),
        )
        .await
        .assert_ok(200);
        app.post(
            &format!("/business/webhooks/{id}/test"),
            Some(&biz.owner_token),
            json!({}),
        )
        .await
        .assert_ok(200);
        let got = rx.wait_for(1).await;
        let header = got[0].header("x-service-signature");
        assert_eq!(header.matches("v1=").count(), 2, "{header}");
        let body = got[0].body.to_vec();
        let mut ran = 0;
        for (program, recipe) in [("python3", "verify.py"), ("node", "verify.mjs")] {
            let Some(valid) = run(program, recipe, &new, &header, &body) else {
                assert_ne!(program, "python3", "python3 is required");
                continue;
            };
            assert!(valid, "{recipe} refused the new secret's signature");
            assert_eq!(
                run(program, recipe, &old, &header, &body),
                Some(true),
                "{recipe}: old"
            );
            assert_eq!(
                run(program, recipe, "whsec_other", &header, &body),
                Some(false),
                "{recipe}: another secret"
            );
            ran += 1;
        }
        assert!(ran >= 1);
    }
);
