//! Request extractors: the JSON body (with envelope errors) and the caller context forwarded to
//! the core as gRPC metadata.

use std::net::{IpAddr, SocketAddr};

use axum::body::Bytes;
use axum::extract::{ConnectInfo, FromRequest, FromRequestParts, Request};
use axum::http::request::Parts;
use axum::http::{HeaderMap, StatusCode};
use proto::ErrorCode;
use serde::de::DeserializeOwned;
use tonic::metadata::{AsciiMetadataValue, MetadataMap};

use crate::envelope::ApiError;
use crate::state::AppState;

/// A JSON body. Whatever the Content-Type, the bytes are parsed as JSON: a syntax error is
/// `malformed_json`, a wrong type or missing field `invalid_request`, a body over the limit
/// `payload_too_large`.
pub struct JsonBody<T>(pub T);

impl<T: DeserializeOwned, S: Send + Sync> FromRequest<S> for JsonBody<T> {
    type Rejection = ApiError;

    async fn from_request(req: Request, state: &S) -> Result<Self, Self::Rejection> {
        // The body was read (within BODY_READ_TIMEOUT_SECS and MAX_BODY_BYTES) before routing:
        // see `app::read_body_first`.
        let bytes = Bytes::from_request(req, state).await.map_err(|rejection| {
            if rejection.status() == StatusCode::PAYLOAD_TOO_LARGE {
                ApiError::new(
                    ErrorCode::PayloadTooLarge,
                    "request body: larger than this service accepts (MAX_BODY_BYTES)",
                )
            } else {
                ApiError::new(ErrorCode::MalformedJson, "request body: could not be read")
            }
        })?;
        parse_json(&bytes).map(JsonBody)
    }
}

/// Parses a JSON request body into `T` with the envelope's error codes; the `detail` names the
/// field (`body: invalid type: integer `5`, expected a string`) or where the syntax broke.
pub fn parse_json<T: DeserializeOwned>(bytes: &[u8]) -> Result<T, ApiError> {
    // Every body of this API is an object (serde would also take an array for a struct).
    if bytes.iter().find(|b| !b.is_ascii_whitespace()) != Some(&b'{') {
        return Err(match serde_json::from_slice::<serde_json::Value>(bytes) {
            Ok(_) => ApiError::new(
                ErrorCode::InvalidRequest,
                "request body: expected a JSON object",
            ),
            Err(err) => ApiError::new(
                ErrorCode::MalformedJson,
                format!("request body: not valid JSON ({err})"),
            ),
        });
    }
    let mut deserializer = serde_json::Deserializer::from_slice(bytes);
    let parsed: T = serde_path_to_error::deserialize(&mut deserializer).map_err(json_error)?;
    deserializer.end().map_err(|err| {
        ApiError::new(
            ErrorCode::MalformedJson,
            format!("request body: not valid JSON ({})", without_position(&err)),
        )
    })?;
    Ok(parsed)
}

fn json_error(err: serde_path_to_error::Error<serde_json::Error>) -> ApiError {
    use serde_json::error::Category;
    let path = err.path().to_string();
    let inner = err.inner();
    match inner.classify() {
        Category::Data => {
            let field = if path == "." || path.is_empty() {
                "request body".to_string()
            } else {
                path
            };
            ApiError::new(
                ErrorCode::InvalidRequest,
                format!("{field}: {}", without_position(inner)),
            )
        }
        Category::Syntax | Category::Eof | Category::Io => ApiError::new(
            ErrorCode::MalformedJson,
            format!("request body: not valid JSON ({inner})"),
        ),
    }
}

/// serde_json's message without its ` at line L column C` (the field is named instead) and
/// without the names of this service's own types.
fn without_position(err: &serde_json::Error) -> String {
    let mut text = err.to_string();
    if let Some(at) = text.rfind(" at line ") {
        text.truncate(at);
    }
    match text.find("expected struct ") {
        Some(at) => format!("{}expected a JSON object", &text[..at]),
        None => text,
    }
}

/// The one parameter of a route's path, percent-decoded. A segment that does not decode to
/// text (`/business/webhooks/%FF`) names no resource: 404 `not_found` in the envelope, as any
/// unknown id is.
pub struct PathParam(pub String);

impl<S: Send + Sync> FromRequestParts<S> for PathParam {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<Self, ApiError> {
        axum::extract::Path::<String>::from_request_parts(parts, state)
            .await
            .map(|axum::extract::Path(value)| PathParam(value))
            .map_err(|_| ApiError::new(ErrorCode::NotFound, "no such resource"))
    }
}

/// Two path segments, as text (a path that does not match is 404 `not_found`).
pub struct PathParams(pub String, pub String);

impl<S: Send + Sync> FromRequestParts<S> for PathParams {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<Self, ApiError> {
        axum::extract::Path::<(String, String)>::from_request_parts(parts, state)
            .await
            .map(|axum::extract::Path((a, b))| PathParams(a, b))
            .map_err(|_| ApiError::new(ErrorCode::NotFound, "no such resource"))
    }
}

/// A path segment that must be a UUID; anything else is no such resource (404 `not_found`).
pub fn uuid_path(segment: &str) -> Result<String, ApiError> {
    uuid::Uuid::parse_str(segment)
        .map(|id| id.to_string())
        .map_err(|_| ApiError::new(ErrorCode::NotFound, "no such resource"))
}

/// The `Idempotency-Key` header, if sent (bytes that are not text are kept visible to the core,
/// which refuses them).
pub fn idempotency_key(headers: &HeaderMap) -> Option<String> {
    headers
        .get("idempotency-key")
        .map(|v| String::from_utf8_lossy(v.as_bytes()).into_owned())
}

/// The value of query parameter `name`, if given.
pub fn query_param(query: Option<&str>, name: &str) -> Option<String> {
    url::form_urlencoded::parse(query.unwrap_or_default().as_bytes())
        .find(|(key, _)| key == name)
        .map(|(_, value)| value.into_owned())
}

/// The optional `limit` query parameter as an integer (range checks are the core's); anything
/// that is not an integer is `invalid_limit`.
pub fn limit_query(query: Option<&str>) -> Result<Option<i64>, ApiError> {
    url::form_urlencoded::parse(query.unwrap_or_default().as_bytes())
        .find(|(name, _)| name == "limit")
        .map(|(_, value)| {
            value
                .trim()
                .parse::<i64>()
                .map_err(|_| ApiError::new(ErrorCode::InvalidLimit, "limit must be 1 to 200"))
        })
        .transpose()
}

/// What the core needs to know about the HTTP caller.
#[derive(Debug, Clone, Default)]
pub struct CallContext {
    pub authorization: Option<AsciiMetadataValue>,
    pub client_ip: Option<IpAddr>,
    pub user_agent: Option<String>,
    pub request_id: Option<AsciiMetadataValue>,
    pub internal_token: Option<AsciiMetadataValue>,
}

impl CallContext {
    /// A gRPC request carrying this context as metadata.
    pub fn request<T>(&self, message: T) -> tonic::Request<T> {
        let mut request = tonic::Request::new(message);
        let meta: &mut MetadataMap = request.metadata_mut();
        if let Some(auth) = &self.authorization {
            meta.insert("authorization", auth.clone());
        }
        if let Some(ip) = self.client_ip.and_then(|ip| ip.to_string().parse().ok()) {
            meta.insert("x-client-ip", ip);
        }
        if let Some(ua) = self
            .user_agent
            .as_deref()
            .and_then(|ua| AsciiMetadataValue::try_from(ua).ok())
        {
            meta.insert("x-client-user-agent", ua);
        }
        if let Some(id) = &self.request_id {
            meta.insert("x-request-id", id.clone());
        }
        if let Some(token) = &self.internal_token {
            meta.insert("x-internal-token", token.clone());
        }
        request
    }
}

fn header_ascii(headers: &HeaderMap, name: &str) -> Option<AsciiMetadataValue> {
    headers
        .get(name)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| AsciiMetadataValue::try_from(v).ok())
}

/// The client's address: the socket peer, or with `TRUST_PROXY` exactly the last
/// `X-Forwarded-For` entry (the one our proxy appended; a port is stripped). When that entry is
/// not an address (`unknown`, garbage), the peer is used: an earlier entry is the client's own
/// claim and never chosen, so a client cannot pick its address to dodge per-IP limits.
pub(crate) fn client_ip(
    headers: &HeaderMap,
    peer: Option<SocketAddr>,
    trust_proxy: bool,
) -> Option<IpAddr> {
    if trust_proxy {
        let last = headers
            .get_all("x-forwarded-for")
            .iter()
            .next_back()
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.rsplit(',').next())
            .map(str::trim);
        if let Some(ip) = last.and_then(parse_forwarded_ip) {
            return Some(ip);
        }
    }
    peer.map(|p| p.ip())
}

/// `203.0.113.9`, `203.0.113.9:4711`, `2001:db8::1` or `[2001:db8::1]:4711`.
fn parse_forwarded_ip(entry: &str) -> Option<IpAddr> {
    entry
        .parse::<IpAddr>()
        .ok()
        .or_else(|| entry.parse::<SocketAddr>().ok().map(|a| a.ip()))
}

impl FromRequestParts<AppState> for CallContext {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &AppState) -> Result<Self, ApiError> {
        let peer = parts
            .extensions
            .get::<ConnectInfo<SocketAddr>>()
            .map(|ConnectInfo(addr)| *addr);
        let headers = &parts.headers;
        Ok(CallContext {
            authorization: header_ascii(headers, "authorization"),
            client_ip: client_ip(headers, peer, state.trust_proxy),
            user_agent: headers
                .get("user-agent")
                .and_then(|v| v.to_str().ok())
                .map(|v| v.chars().take(512).collect()),
            request_id: header_ascii(headers, "x-request-id"),
            internal_token: state.internal_token.clone(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_client_ip_is_the_peer_unless_a_trusted_proxy_forwarded_one() {
        let mut headers = HeaderMap::new();
        headers.insert(
            "x-forwarded-for",
            "203.0.113.9, 198.51.100.7".parse().unwrap(),
        );
        let peer = Some(SocketAddr::from(([10, 0, 0, 1], 5000)));
        assert_eq!(client_ip(&headers, peer, false), Some([10, 0, 0, 1].into()));
        assert_eq!(
            client_ip(&headers, peer, true),
            Some([198, 51, 100, 7].into())
        );
        assert_eq!(
            client_ip(&HeaderMap::new(), peer, true),
            Some([10, 0, 0, 1].into())
        );
    }

    #[test]
    fn a_trusted_proxy_is_read_from_exactly_the_last_entry() {
        let peer = Some(SocketAddr::from(([10, 0, 0, 1], 5000)));
        let with = |value: &str| {
            let mut headers = HeaderMap::new();
            headers.insert("x-forwarded-for", value.parse().unwrap());
            client_ip(&headers, peer, true)
        };
        // A port appended by the proxy is stripped.
        assert_eq!(
            with("1.2.3.4, 198.51.100.7:4711"),
            Some([198, 51, 100, 7].into())
        );
        assert_eq!(
            with("[2001:db8::1]:443"),
            Some("2001:db8::1".parse().unwrap())
        );
        // A last entry that is not an address never lets the client's earlier claim through.
        assert_eq!(with("1.2.3.4, unknown"), Some([10, 0, 0, 1].into()));
        assert_eq!(with("1.2.3.4, 198.51.100.7:x"), Some([10, 0, 0, 1].into()));
        // With several headers, the last header's last entry counts.
        let mut headers = HeaderMap::new();
        headers.append("x-forwarded-for", "1.2.3.4".parse().unwrap());
        headers.append("x-forwarded-for", "unknown".parse().unwrap());
        assert_eq!(client_ip(&headers, peer, true), Some([10, 0, 0, 1].into()));
    }

    #[test]
    fn json_errors_are_classified() {
        #[derive(serde::Deserialize, Debug)]
        #[allow(dead_code)]
        struct Body {
            name: String,
        }
        let code = |b: &[u8]| parse_json::<Body>(b).unwrap_err().0.code;
        assert_eq!(code(b"{"), ErrorCode::MalformedJson);
        assert_eq!(code(b""), ErrorCode::MalformedJson);
        assert_eq!(code(b"{\"name\": 5}"), ErrorCode::InvalidRequest);
        assert_eq!(code(b"{}"), ErrorCode::InvalidRequest);
        assert_eq!(code(b"[]"), ErrorCode::InvalidRequest);
    }
}
