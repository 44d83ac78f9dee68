//! The HTTP edge: too many or too large headers, and clients that send their request too slowly,
//! all answered in the envelope where an answer can still be written.

use std::sync::Arc;
use std::time::Duration;

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

use crate::e2e;
use crate::harness::{Options, TestApp};

fn addr(app: &TestApp) -> String {
    app.base.trim_start_matches("http://").to_string()
}

/// Writes `head` (and then nothing), and reads what the server answers until it closes.
async fn send_raw(app: &TestApp, head: &str) -> String {
    let mut stream = TcpStream::connect(addr(app)).await.unwrap();
    stream.write_all(head.as_bytes()).await.unwrap();
    let mut out = Vec::new();
    let read = tokio::time::timeout(Duration::from_secs(60), stream.read_to_end(&mut out)).await;
    assert!(
        read.is_ok(),
        "the server held an incomplete request for a minute"
    );
    String::from_utf8_lossy(&out).to_string()
}

e2e!(
    more_than_100_request_headers_are_refused_with_431_in_the_envelope,
    |app| async move {
        let mut request = app.http.get(format!("{}/business/me", app.base));
        for i in 0..120 {
            request = request.header(format!("x-extra-{i}"), "1");
        }
        let reply = crate::harness::into_reply(request.send().await.unwrap()).await;
        reply.assert_error(431, "request_header_too_large");
        assert!(reply.headers.contains_key("x-request-id"));
        assert_eq!(reply.body["detail"], "at most 100 request headers");
    }
);

e2e!(
    an_oversized_header_is_refused_with_431_never_500,
    |app| async move {
        let big = "a".repeat(16 * 1024);
        let reply = crate::harness::into_reply(
            app.http
                .get(format!("{}/business/me", app.base))
                .header("authorization", format!("Bearer {big}"))
                .send()
                .await
                .unwrap(),
        )
        .await;
        reply.assert_error(431, "request_header_too_large");
        assert!(
            reply.body["detail"]
                .as_str()
                .unwrap()
                .starts_with("authorization")
        );
        // Many medium headers that add up are refused too.
        let mut request = app.http.get(format!("{}/business/me", app.base));
        for i in 0..5 {
            request = request.header(format!("x-pad-{i}"), "b".repeat(4000));
        }
        let reply = crate::harness::into_reply(request.send().await.unwrap()).await;
        reply.assert_error(431, "request_header_too_large");
        // An oversized X-Request-Id is replaced, not forwarded: the request is answered.
        let reply = crate::harness::into_reply(
            app.http
                .get(format!("{}/healthz", app.base))
                .header("x-request-id", "r".repeat(7000))
                .send()
                .await
                .unwrap(),
        )
        .await;
        assert_eq!(reply.status, 200);
        assert_ne!(reply.headers["x-request-id"].len(), 7000);
    }
);

fn quick_timeouts() -> Options {
    Options {
        http: Some(Arc::new(|http| {
            http.header_read_timeout_secs = 1;
            http.body_read_timeout_secs = 1;
        })),
        ..Default::default()
    }
}

e2e!(
    a_body_sent_too_slowly_is_answered_408_request_timeout,
    quick_timeouts(),
    |app| async move {
        let answer = send_raw(
            &app,
            "POST /auth/business/otp/request HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\ncontent-length: 100\r\n\r\n{\"phone",
        )
        .await;
        assert!(answer.starts_with("HTTP/1.1 408"), "{answer}");
        assert!(
            answer.contains("\"message\":\"request_timeout\""),
            "{answer}"
        );
        assert!(
            answer.to_ascii_lowercase().contains("x-request-id:"),
            "{answer}"
        );
    }
);

e2e!(
    headers_sent_too_slowly_close_the_connection,
    quick_timeouts(),
    |app| async move {
        // Half a request line and no more: the server lets go instead of waiting for ever.
        let answer = send_raw(&app, "GET /healthz HTTP/1.1\r\nhost: x\r\n").await;
        assert!(
            answer.is_empty() || answer.starts_with("HTTP/1.1 408"),
            "{answer}"
        );
        // The server still serves others.
        assert_eq!(app.get("/healthz", None).await.status, 200);
    }
);
