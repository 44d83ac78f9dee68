//! A fuzz-style walk of the public API: 1,200 malformed or hostile requests (odd methods, paths,
//! encodings, headers, tokens, query strings and bodies), generated from a fixed seed. Every
//! answer must come in time, none may be a 5xx, and every failure must be the envelope with a
//! catalogue code of its own status.

use std::time::Duration;

use proto::ErrorCode;
use reqwest::Method;
use serde_json::Value;

use crate::e2e;
use crate::fixtures::ROUTES;
use crate::fixtures::{ALL_SCOPES, follower, live_business};

/// xorshift64*: a small deterministic generator, so that a failure reproduces from its index.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
    fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.below(items.len())]
    }
    fn chance(&mut self, percent: u64) -> bool {
        self.next() % 100 < percent
    }
}

const SEGMENTS: &[&str] = &[
    "0b9e6c1e-2f4a-4d8e-9a57-3c1d2e4f5a6b",
    "not-a-uuid",
    "%FF",
    "%00",
    "..%2F..%2Fetc%2Fpasswd",
    "%2B14155550123",
    "+14155550123",
    "%E2%80%AE",
    "%F0%9F%92%A9",
    "'%20OR%201=1--",
    "%7B%7D",
    "",
    "a%2Fb",
    "%C0%AF",
];

const QUERIES: &[&str] = &[
    "",
    "?limit=abc",
    "?limit=-1",
    "?limit=99999999999999999999",
    "?limit=1&limit=2",
    "?starting_after=%FF",
    "?starting_after=0b9e6c1e-2f4a-4d8e-9a57-3c1d2e4f5a6b",
    "?status=%00",
    "?category=%ZZ",
    "?webhook_id=not-a-uuid",
    "?event_type=message.sent&event_type=x",
    "?=&&=",
];

const BODIES: &[&str] = &[
    "",
    "{",
    "}",
    "null",
    "[]",
    "[{}]",
    "\"text\"",
    "123",
    "{\"a\":1,\"a\":2}",
    "{\"phone_number\": 14155550123}",
    "{\"phone_number\": \"\\ud800\"}",
    "{\"to\": null, \"category\": [], \"body\": {}}",
    "{\"url\": \"javascript:alert(1)\", \"events\": \"message.sent\"}",
    "{\"business_name\": \"\\u0000\"}",
    "{\"marketing_opt_in\": \"yes\"}",
    "{\"scopes\": [1, 2, 3], \"name\": 5}",
    "{\"since\": \"yesterday\"}",
    "{\"refresh_token\": 1e999}",
    "{\"code\": 123456, \"phone_number\": \"+14155550123\"}",
    "{\"message_content\": {\"code\": {\"$gt\": \"\"}}, \"category\": \"authentication\"}",
    "\u{feff}{}",
    "{\"x\": \"\u{202e}\"}",
];

const CONTENT_TYPES: &[&str] = &[
    "application/json",
    "text/plain",
    "application/x-www-form-urlencoded",
    "application/json; charset=utf-16",
    "multipart/form-data; boundary=x",
    "*/*",
];

fn body(rng: &mut Rng) -> Vec<u8> {
    match rng.below(6) {
        0 => "[".repeat(2000 + rng.below(3000)).into_bytes(),
        1 => vec![0xff, 0xfe, b'{', 0xc3, 0x28, b'}'],
        2 => format!("{{\"body\": \"{}\"}}", "x".repeat(70 * 1024)).into_bytes(),
        _ => rng.pick(BODIES).as_bytes().to_vec(),
    }
}

fn authorization(rng: &mut Rng, user: &str, app: &str) -> Option<String> {
    Some(match rng.below(10) {
        0 => return None,
        1 => "Bearer ".to_string(),
        2 => "Basic dXNlcjpwYXNz".to_string(),
        3 => "Bearer sva_".to_string() + &"A".repeat(43),
        4 => format!("Bearer {}x", &user[..user.len() - 1]),
        5 => "Bearer eyJhbGciOiJub25lIn0.eyJzdWIiOiJ4In0.".to_string(),
        6 => format!("Bearer {user}"),
        7 => format!("Bearer {app}"),
        8 => format!("bearer  {user}  "),
        _ => format!("Bearer {}", "t".repeat(9000)),
    })
}

e2e!(
    a_thousand_hostile_requests_get_the_envelope_never_a_5xx_and_none_hangs,
    |app| async move {
        let biz = live_business(&app, "+14155550100", ALL_SCOPES).await;
        follower(&app, &biz, "+14155550200", true).await;
        let client = reqwest::Client::builder()
            .no_proxy()
            .timeout(Duration::from_secs(40))
            .build()
            .unwrap();
        let methods = [
            Method::GET,
            Method::POST,
            Method::PUT,
            Method::PATCH,
            Method::DELETE,
            Method::OPTIONS,
            Method::HEAD,
            Method::from_bytes(b"PURGE").unwrap(),
        ];
        let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
        let mut statuses = std::collections::BTreeMap::<u16, usize>::new();
        let mut early_closes = 0;
        for case in 0..1200 {
            let (method, template) = *rng.pick(ROUTES);
            let path: String = template
                .split('/')
                .map(|seg| {
                    if seg.starts_with('{') {
                        match seg {
                            "{businessAccountId}" if rng.chance(50) => biz.id.clone(),
                            _ => rng.pick(SEGMENTS).to_string(),
                        }
                    } else {
                        seg.to_string()
                    }
                })
                .collect::<Vec<_>>()
                .join("/");
            let method = if rng.chance(80) {
                method.to_uppercase().parse().unwrap()
            } else {
                rng.pick(&methods).clone()
            };
            let url = format!("{}{}{}", app.base, path, rng.pick(QUERIES));
            let mut request = client.request(method.clone(), &url);
            if let Some(auth) = authorization(&mut rng, &biz.owner_token, &biz.app_token) {
                request = request.header("authorization", auth);
            }
            if rng.chance(30) {
                request = request.header("x-request-id", rng.pick(SEGMENTS).to_string());
            }
            if rng.chance(20) {
                request = request.header("idempotency-key", rng.pick(SEGMENTS).to_string());
            }
            if rng.chance(10) {
                request = request.header("x-forwarded-for", "unknown, 10.0.0.1:80, ::1");
            }
            if rng.chance(10) {
                let odd = reqwest::header::HeaderValue::from_bytes(b"\x80\xffx").unwrap();
                request = request.header("x-service-qr-secret", odd);
            }
            let mut body_len = 0;
            if rng.chance(70) {
                let body = body(&mut rng);
                body_len = body.len();
                request = request
                    .header("content-type", *rng.pick(CONTENT_TYPES))
                    .body(body);
            }
            let response = match request.send().await {
                Ok(response) => response,
                // A refusal answered before an oversized body was read closes the connection
                // while the client is still writing it; the client may see only the reset.
                Err(e) if body_len > 64 * 1024 && !e.is_timeout() => {
                    early_closes += 1;
                    continue;
                }
                Err(e) => panic!("case {case}: {method} {url}: no answer: {e:?}"),
            };
            let status = response.status().as_u16();
            *statuses.entry(status).or_default() += 1;
            assert!(status < 500, "case {case}: {method} {url}: {status}");
            let request_id = response.headers().contains_key("x-request-id");
            let text = response.text().await.unwrap_or_default();
            assert!(request_id, "case {case}: {method} {url}: no X-Request-Id");
            if status >= 400 && method != Method::HEAD {
                let envelope: Value = serde_json::from_str(&text)
                    .unwrap_or_else(|_| panic!("case {case}: {method} {url}: not JSON: {text}"));
                assert_eq!(envelope["success"], false, "case {case}");
                let code = envelope["message"].as_str().unwrap_or_default();
                let known = ErrorCode::from_wire(code)
                    .unwrap_or_else(|| panic!("case {case}: {code} is not in the catalogue"));
                assert_eq!(known.http_status(), status, "case {case}: {code}");
                assert!(
                    envelope["detail"].as_str().is_some_and(|d| !d.is_empty()),
                    "case {case}: no detail"
                );
            }
        }
        // The walk reached past the front door, not only 401s.
        assert!(
            statuses.keys().filter(|s| **s >= 400).count() >= 6,
            "{statuses:?}"
        );
        assert!(early_closes < 100, "{early_closes} resets");
        eprintln!("fuzz statuses: {statuses:?}, {early_closes} early closes");
    }
);
