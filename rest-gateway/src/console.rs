//! The web console at `/console/`: static assets compiled into the binary (plain ES modules, no
//! build step, nothing fetched from elsewhere) that call the public JSON API like any client,
//! and `qr.svg`, which draws a QR sign-in payload as an SVG image. No rule lives here.
//!
//! Every answer under `/console/` carries a content security policy that allows scripts, styles,
//! images and API calls from this origin only (no inline script), and refuses framing.

use axum::Router;
use axum::extract::Query;
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Redirect, Response};
use axum::routing::get;
use proto::ErrorCode;
use serde::Deserialize;

use crate::envelope::ApiError;
use crate::state::AppState;

/// The console's policy: this origin only, no inline script, no framing.
pub const CONTENT_SECURITY_POLICY: &str = "default-src 'none'; script-src 'self'; \
     style-src 'self'; img-src 'self' data:; connect-src 'self'; form-action 'self'; \
     base-uri 'none'; frame-ancestors 'none'";

/// The longest payload `qr.svg` draws (a QR payload is about 60 characters).
const MAX_QR_DATA: usize = 512;

struct Asset {
    name: &'static str,
    content_type: &'static str,
    body: &'static [u8],
}

/// A script of the console, by its file name.
macro_rules! script {
    ($name:literal) => {
        Asset {
            name: $name,
            content_type: "text/javascript; charset=utf-8",
            body: include_bytes!(concat!("../console/", $name)),
        }
    };
}

const ASSETS: &[Asset] = &[
    Asset {
        name: "index.html",
        content_type: "text/html; charset=utf-8",
        body: include_bytes!("../console/index.html"),
    },
    Asset {
        name: "style.css",
        content_type: "text/css; charset=utf-8",
        body: include_bytes!("../console/style.css"),
    },
    script!("app.js"),
    script!("api.js"),
    script!("words.js"),
    script!("dom.js"),
    script!("charts.js"),
    script!("inbox.js"),
    script!("messages.js"),
    script!("webhooks.js"),
    script!("audience.js"),
    script!("templates.js"),
];

/// The routes under `/console`.
pub fn router() -> Router<AppState> {
    Router::new()
        .route("/console", get(|| async { Redirect::permanent("/console/") }))
        .route("/console/", get(|| async { asset("index.html") }))
        .route("/console/qr.svg", get(qr_svg))
        .route(
            "/console/{file}",
            get(|axum::extract::Path(file): axum::extract::Path<String>| async move {
                asset(&file)
            }),
        )
        // Every answer under /console, refusals included, carries the policy.
        .layer(axum::middleware::map_response(secured))
}

async fn secured(response: Response) -> Response {
    with_policy(response, CONTENT_SECURITY_POLICY)
}

/// `response` with the headers every page this gateway serves carries: `policy` as its content
/// security policy, no content sniffing, no referrer, no framing.
pub(crate) fn with_policy(mut response: Response, policy: &'static str) -> Response {
    let headers = response.headers_mut();
    headers.insert(
        header::CONTENT_SECURITY_POLICY,
        HeaderValue::from_static(policy),
    );
    headers.insert(
        header::X_CONTENT_TYPE_OPTIONS,
        HeaderValue::from_static("nosniff"),
    );
    headers.insert(
        header::REFERRER_POLICY,
        HeaderValue::from_static("no-referrer"),
    );
    headers.insert(header::X_FRAME_OPTIONS, HeaderValue::from_static("DENY"));
    response
}

fn asset(name: &str) -> Response {
    let Some(asset) = ASSETS.iter().find(|a| a.name == name) else {
        return ApiError::new(ErrorCode::NotFound, "no such console file").into_response();
    };
    (
        StatusCode::OK,
        [
            (header::CONTENT_TYPE, asset.content_type),
            // Small files, always revalidated: a new binary serves its own console at once.
            (header::CACHE_CONTROL, "no-cache"),
        ],
        asset.body,
    )
        .into_response()
}

#[derive(Debug, Deserialize)]
struct QrQuery {
    data: Option<String>,
}

/// `GET /console/qr.svg?data=<payload>`: the payload as a QR code (SVG).
async fn qr_svg(
    query: Result<Query<QrQuery>, axum::extract::rejection::QueryRejection>,
) -> Response {
    let data = query.ok().and_then(|Query(q)| q.data).unwrap_or_default();
    if data.is_empty() || data.len() > MAX_QR_DATA {
        return ApiError::new(
            ErrorCode::InvalidRequest,
            format!("data: 1 to {MAX_QR_DATA} characters to draw as a QR code"),
        )
        .into_response();
    }
    let svg = match qrcode::QrCode::new(data.as_bytes()) {
        Ok(code) => code
            .render::<qrcode::render::svg::Color>()
            .min_dimensions(200, 200)
            .quiet_zone(true)
            .build(),
        Err(err) => {
            return ApiError::new(ErrorCode::InvalidRequest, format!("data: {err}"))
                .into_response();
        }
    };
    (
        StatusCode::OK,
        [
            (header::CONTENT_TYPE, "image/svg+xml"),
            (header::CACHE_CONTROL, "no-store"),
        ],
        svg,
    )
        .into_response()
}
