//! The response envelope of every answer, success or failure, and the mapping of catalogue
//! errors onto HTTP.

use axum::Json;
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use proto::{ErrorCode, RemoteError};
use serde::Serialize;
use utoipa::openapi::RefOr;
use utoipa::openapi::schema::{ObjectBuilder, Schema, Type};
use utoipa::{PartialSchema, ToSchema};

/// `{success, message, data, timestamp}`, and on failure `detail`.
#[derive(Debug, Serialize, ToSchema)]
pub struct Envelope<T: ToSchema> {
    /// true on success, false on failure.
    pub success: bool,
    /// `message_sent` for sends, `ok` for other successes, the error code on failure.
    pub message: String,
    /// The payload; null on failure and for empty successes.
    pub data: T,
    /// When the answer was made (RFC 3339, UTC).
    #[schema(value_type = String, format = DateTime)]
    pub timestamp: String,
    /// Failures only: one sentence saying why, naming the field and the rule where there is
    /// one. Never a secret, a stack trace or SQL.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub detail: Option<String>,
}

/// JSON `null`: the `data` of failures and of empty successes.
#[derive(Debug, Clone, Copy, Default)]
pub struct Null;

impl Serialize for Null {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_unit()
    }
}

impl PartialSchema for Null {
    fn schema() -> RefOr<Schema> {
        ObjectBuilder::new().schema_type(Type::Null).into()
    }
}

impl ToSchema for Null {}

/// An envelope whose data is null.
pub type EmptyEnvelope = Envelope<Null>;

fn now() -> String {
    chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Millis, true)
}

/// A success: the envelope with `message` `ok` and the given status.
pub fn ok<T: Serialize + ToSchema>(status: StatusCode, data: T) -> Response {
    reply(status, "ok", data)
}

/// A success with another message (sends answer `message_sent`).
pub fn reply<T: Serialize + ToSchema>(status: StatusCode, message: &str, data: T) -> Response {
    let body = Envelope {
        success: true,
        message: message.to_string(),
        data,
        timestamp: now(),
        detail: None,
    };
    (status, Json(body)).into_response()
}

/// A failure answered in the envelope. Internal details never reach the client.
#[derive(Debug, Clone)]
pub struct ApiError(pub RemoteError);

impl ApiError {
    pub fn new(code: ErrorCode, detail: impl Into<String>) -> Self {
        ApiError(RemoteError {
            code,
            detail: detail.into(),
            retry_after: None,
        })
    }
}

impl From<tonic::Status> for ApiError {
    fn from(status: tonic::Status) -> Self {
        let err = RemoteError::from_status(&status);
        if err.code.http_status() >= 500 {
            tracing::warn!(code = %err.code, grpc = ?status.code(), detail = %status.message(), "core call failed");
        }
        ApiError(err)
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let code = self.0.code;
        let status =
            StatusCode::from_u16(code.http_status()).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
        tracing::debug!(code = %code, detail = %self.0.detail, "request refused");
        let body = Envelope {
            success: false,
            message: code.as_str().to_string(),
            data: Null,
            timestamp: now(),
            detail: Some(public_detail(code, &self.0.detail)),
        };
        let mut response = (status, Json(body)).into_response();
        if status == StatusCode::TOO_MANY_REQUESTS {
            let secs = self.0.retry_after_secs().unwrap_or(1);
            if let Ok(value) = HeaderValue::from_str(&secs.to_string()) {
                response.headers_mut().insert(header::RETRY_AFTER, value);
            }
        }
        response
    }
}

pub type ApiResult = Result<Response, ApiError>;

/// What a failure's `detail` says. A client mistake (4xx) carries the sentence the core or the
/// gateway wrote for it; a server-side failure (5xx) carries a fixed sentence, so that no
/// internal text (a transport error, a database message) ever reaches a client.
pub fn public_detail(code: ErrorCode, detail: &str) -> String {
    let fixed = match code {
        ErrorCode::InternalError => {
            Some("an unexpected error occurred; X-Request-Id identifies it in the service logs")
        }
        ErrorCode::ServiceUnavailable => {
            Some("the service is temporarily unavailable; try again shortly")
        }
        ErrorCode::SmsDeliveryUnavailable => {
            Some("the code could not be sent by SMS right now; try again later")
        }
        _ if code.http_status() >= 500 => Some("the service could not complete the request"),
        _ => None,
    };
    match fixed {
        Some(text) => text.to_string(),
        None => {
            let text = detail.trim();
            if text.is_empty() {
                code.as_str().replace('_', " ")
            } else {
                text.chars().take(300).collect()
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use axum::body::to_bytes;
    use std::time::Duration;

    /// Every catalogue code, raised by the core as a gRPC status, reaches the HTTP client with
    /// its status, its code as `message`, `data: null`, a `detail` (the core's sentence for a
    /// client mistake, a fixed one for a server failure), and `Retry-After` on 429.
    #[tokio::test]
    async fn every_catalogue_code_maps_to_its_status_and_envelope() {
        for &code in ErrorCode::ALL {
            let retry = (code.http_status() == 429).then(|| Duration::from_millis(2_100));
            let status = code.to_status("body: at most 4096 characters", retry);
            let response = ApiError::from(status).into_response();
            assert_eq!(response.status().as_u16(), code.http_status(), "{code}");
            let retry_after = response
                .headers()
                .get(header::RETRY_AFTER)
                .map(|v| v.to_str().unwrap().to_string());
            if code.http_status() == 429 {
                assert_eq!(retry_after.as_deref(), Some("3"), "{code}: rounded up");
            } else {
                assert_eq!(retry_after, None, "{code}");
            }
            let body = to_bytes(response.into_body(), usize::MAX).await.unwrap();
            let json: serde_json::Value = serde_json::from_slice(&body).unwrap();
            assert_eq!(json["success"], false);
            assert_eq!(json["message"], code.as_str());
            assert!(json["data"].is_null());
            assert!(json["timestamp"].is_string());
            assert_eq!(json.as_object().unwrap().len(), 5);
            let detail = json["detail"].as_str().unwrap();
            assert!(!detail.is_empty(), "{code}");
            if code.http_status() >= 500 {
                assert_ne!(detail, "body: at most 4096 characters", "{code}");
            } else {
                assert_eq!(detail, "body: at most 4096 characters", "{code}");
            }
        }
    }

    #[tokio::test]
    async fn a_transport_failure_is_503_service_unavailable() {
        let response =
            ApiError::from(tonic::Status::unavailable("tcp connect error")).into_response();
        assert_eq!(response.status(), StatusCode::SERVICE_UNAVAILABLE);
        let body = to_bytes(response.into_body(), usize::MAX).await.unwrap();
        let json: serde_json::Value = serde_json::from_slice(&body).unwrap();
        assert_eq!(json["message"], "service_unavailable");
        let detail = json["detail"].as_str().unwrap();
        assert!(!detail.contains("tcp"), "{detail}");
    }
}
