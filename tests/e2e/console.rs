//! The web console's files at `/console/` (the browser tests in `tests/browser` drive it).

use crate::e2e;
use crate::harness::TestApp;

async fn get(app: &TestApp, path: &str) -> reqwest::Response {
    app.http
        .get(format!("{}{path}", app.base))
        .send()
        .await
        .expect("request sent")
}

e2e!(
    the_console_is_served_from_the_binary_with_a_policy_that_allows_no_inline_script,
    |app| async move {
        let page = get(&app, "/console/").await;
        assert_eq!(page.status(), 200);
        let csp = page.headers()["content-security-policy"]
            .to_str()
            .unwrap()
            .to_string();
        assert!(csp.contains("script-src 'self'"), "{csp}");
        assert!(csp.contains("frame-ancestors 'none'"), "{csp}");
        assert!(!csp.contains("unsafe-inline"), "{csp}");
        assert_eq!(page.headers()["x-content-type-options"], "nosniff");
        assert!(
            page.headers()["content-type"]
                .to_str()
                .unwrap()
                .starts_with("text/html")
        );
        let html = page.text().await.unwrap();
        assert!(html.contains(r#"<script type="module" src="app.js"></script>"#));
        assert!(!html.contains("http://") && !html.contains("https://"));
        // Every module the console loads, followed from app.js through its imports, and the
        // style sheet: served from here, and nothing in them loads from elsewhere.
        let mut files = vec!["style.css".to_string(), "app.js".to_string()];
        let mut at = 0;
        while at < files.len() {
            let file = files[at].clone();
            at += 1;
            let kind = if file.ends_with(".css") {
                "text/css"
            } else {
                "text/javascript"
            };
            let asset = get(&app, &format!("/console/{file}")).await;
            assert_eq!(asset.status(), 200, "{file}");
            assert!(
                asset.headers()["content-type"]
                    .to_str()
                    .unwrap()
                    .starts_with(kind),
                "{file}"
            );
            assert!(asset.headers().contains_key("content-security-policy"));
            let text = asset.text().await.unwrap();
            // Modules import siblings only, and neither fetch nor CSS url() names another origin.
            for line in text.lines() {
                let line = line.trim();
                if line.starts_with("import ") && !line.ends_with('{') {
                    assert!(line.contains("from './"), "{file}: {line}");
                }
                for loads in ["fetch('http", "fetch(\"http", "url(http", "import('http"] {
                    assert!(!line.contains(loads), "{file}: {line}");
                }
                if let Some(rest) = line.split(" from './").nth(1) {
                    let name = rest.split('\'').next().unwrap().to_string();
                    if !files.contains(&name) {
                        files.push(name);
                    }
                }
            }
        }
        assert!(files.len() >= 8, "the modules found: {files:?}");
        // /console without the slash leads to the console.
        let no_redirects = reqwest::Client::builder()
            .no_proxy()
            .redirect(reqwest::redirect::Policy::none())
            .build()
            .unwrap();
        let bare = no_redirects
            .get(format!("{}/console", app.base))
            .send()
            .await
            .unwrap();
        assert_eq!(bare.status(), 308);
        assert_eq!(bare.headers()["location"], "/console/");
    }
);

e2e!(
    an_unknown_console_file_is_404_in_the_envelope,
    |app| async move {
        let missing = get(&app, "/console/nope.js").await;
        assert_eq!(missing.status(), 404);
        let body: serde_json::Value = missing.json().await.unwrap();
        assert_eq!(body["success"], false);
        assert_eq!(body["message"], "not_found");
    }
);

e2e!(
    the_console_draws_a_qr_payload_as_svg_and_refuses_missing_or_huge_data,
    |app| async move {
        let payload = "service://business-login/0193a3c1-7c1e-7d3a-9f11-1a2b3c4d5e6f";
        let svg = get(
            &app,
            &format!("/console/qr.svg?data={}", urlencode(payload)),
        )
        .await;
        assert_eq!(svg.status(), 200);
        assert_eq!(svg.headers()["content-type"], "image/svg+xml");
        let text = svg.text().await.unwrap();
        assert!(text.contains("<svg") && text.contains("<path"), "{text}");
        for path in [
            "/console/qr.svg".to_string(),
            "/console/qr.svg?data=".to_string(),
            format!("/console/qr.svg?data={}", "a".repeat(600)),
        ] {
            let refused = get(&app, &path).await;
            assert_eq!(refused.status(), 400, "{path}");
            let body: serde_json::Value = refused.json().await.unwrap();
            assert_eq!(body["message"], "invalid_request", "{path}");
            assert!(body["detail"].as_str().unwrap().starts_with("data:"));
        }
    }
);

fn urlencode(s: &str) -> String {
    s.bytes()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' => (b as char).to_string(),
            _ => format!("%{b:02X}"),
        })
        .collect()
}
