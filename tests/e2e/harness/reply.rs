//! What a test reads back: a reply's status, headers and envelope, and the assertions on them;
//! and what it sends as a raw body.

use serde_json::Value;

/// A response: status, headers and the JSON body.
#[derive(Debug)]
pub struct Reply {
    pub status: u16,
    pub headers: reqwest::header::HeaderMap,
    pub body: Value,
}

impl Reply {
    /// The envelope's `message`.
    pub fn message(&self) -> &str {
        self.body["message"].as_str().unwrap_or_default()
    }

    pub fn data(&self) -> &Value {
        &self.body["data"]
    }

    pub fn retry_after(&self) -> Option<u64> {
        self.headers
            .get("retry-after")
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.parse().ok())
    }

    /// Asserts a failure envelope with this status and code.
    #[track_caller]
    pub fn assert_error(&self, status: u16, code: &str) {
        assert_eq!(
            (self.status, self.message()),
            (status, code),
            "body: {}",
            self.body
        );
        assert_eq!(self.body["success"], Value::Bool(false), "{}", self.body);
        assert!(self.body["data"].is_null(), "{}", self.body);
        assert!(self.body["timestamp"].is_string(), "{}", self.body);
    }

    /// Asserts a success envelope with this status.
    #[track_caller]
    pub fn assert_ok(&self, status: u16) {
        assert_eq!(self.status, status, "body: {}", self.body);
        assert_eq!(self.body["success"], Value::Bool(true), "{}", self.body);
        assert!(self.body["timestamp"].is_string(), "{}", self.body);
    }
}

/// A response read into a [`Reply`] (the body must be JSON).
pub async fn into_reply(response: reqwest::Response) -> Reply {
    let status = response.status().as_u16();
    let headers = response.headers().clone();
    let bytes = response.bytes().await.expect("body");
    let body = serde_json::from_slice(&bytes).unwrap_or_else(|_| {
        panic!(
            "{status} answer is not JSON: {:?}",
            String::from_utf8_lossy(&bytes)
        )
    });
    Reply {
        status,
        headers,
        body,
    }
}

pub enum RawBody {
    Json(Value),
    Text(String),
}
