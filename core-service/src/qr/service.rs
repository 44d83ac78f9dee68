//! The QR sign-in rules. Sessions live two minutes; only a hash of the exchange secret is
//! stored and presented secrets are compared in constant time; the exchanged token is an access
//! token of the user who approved.

use std::net::IpAddr;
use std::time::Duration;

use chrono::{DateTime, Utc};
use proto::ErrorCode;
use proto::vocabulary::{QrState, QrStatus, UserStatus};
use sea_orm::sea_query::Expr;
use sea_orm::{ActiveModelTrait, ColumnTrait, EntityTrait, QueryFilter, Set};
use subtle::ConstantTimeEq;
use uuid::Uuid;

use crate::business::store as business_store;
use crate::caller::{ClientInfo, User};
use crate::domain::BusinessStatus;
use crate::entities::qr_sessions;
use crate::error::{AppError, AppResult};
use crate::identity::store as identity_store;
use crate::identity::tokens::{hash_token, issue_access_token, new_opaque_token};
use crate::limits::Rate;
use crate::state::Core;

/// How long a session lives.
pub const QR_TTL: Duration = Duration::from_secs(120);
const HOUR: Duration = Duration::from_secs(3600);

/// A created session, with its secret (shown once).
#[derive(Debug, Clone)]
pub struct Created {
    pub id: Uuid,
    pub secret: String,
    pub expires_at: DateTime<Utc>,
}

/// A short description of the browser ("Chrome 120 on Windows 10"), from its User-Agent.
pub fn client_name(user_agent: Option<&str>) -> String {
    let parsed = user_agent.and_then(|ua| woothee::parser::Parser::new().parse(ua));
    let Some(ua) = parsed.filter(|r| r.name != woothee::woothee::VALUE_UNKNOWN) else {
        return "Unknown browser".to_string();
    };
    let major = ua.version.split('.').next().unwrap_or_default();
    let mut name = if major.is_empty() || major == woothee::woothee::VALUE_UNKNOWN {
        ua.name.to_string()
    } else {
        format!("{} {major}", ua.name)
    };
    if ua.os != woothee::woothee::VALUE_UNKNOWN {
        let os = if ua.os_version.is_empty() || ua.os_version == woothee::woothee::VALUE_UNKNOWN {
            ua.os.to_string()
        } else {
            format!("{} {}", ua.os, ua.os_version)
        };
        name = format!("{name} on {os}");
    }
    name.chars().take(200).collect()
}

/// The creating IP with its last part masked: `203.0.113.x`, `2001:db8:1:x:x:x:x:x`.
pub fn origin_hint(ip: Option<&str>) -> String {
    match ip.and_then(|ip| ip.parse::<IpAddr>().ok()) {
        Some(IpAddr::V4(v4)) => {
            let [a, b, c, _] = v4.octets();
            format!("{a}.{b}.{c}.x")
        }
        Some(IpAddr::V6(v6)) => {
            let s = v6.segments();
            format!("{:x}:{:x}:{:x}:x:x:x:x:x", s[0], s[1], s[2])
        }
        None => "unknown".to_string(),
    }
}

fn not_found() -> AppError {
    AppError::new(
        ErrorCode::QrSessionNotFound,
        "no such QR session, or it expired",
    )
}

async fn limit(core: &Core, keys: Vec<(String, Rate)>) -> AppResult<()> {
    core.limiter
        .acquire(&keys, ErrorCode::RateLimited)
        .await
        .map(|_| ())
}

fn ip_key(kind: &str, client: &ClientInfo) -> Option<String> {
    client.ip.as_ref().map(|ip| format!("qr:{kind}:ip:{ip}"))
}

/// Creates a session. Errors: `rate_limited`.
pub async fn create(core: &Core, client: &ClientInfo) -> AppResult<Created> {
    if let Some(key) = ip_key("create", client) {
        let rate = Rate::per(core.limits.qr_sessions_per_ip_per_hour.max(1), HOUR);
        limit(core, vec![(key, rate)]).await?;
    }
    let now = core.clock.now();
    let secret = new_opaque_token();
    let id = Uuid::new_v4();
    let expires_at = now + chrono::TimeDelta::from_std(QR_TTL).unwrap_or_default();
    qr_sessions::ActiveModel {
        id: Set(id),
        secret_hash: Set(hash_token(&secret)),
        client_name: Set(client_name(client.user_agent.as_deref())),
        origin_hint: Set(origin_hint(client.ip.as_deref())),
        status: Set(QrState::Pending),
        approved_by: Set(None),
        expires_at_ms: Set(expires_at.timestamp_millis()),
        created_at: Set(now),
        approved_at: Set(None),
        exchanged_at: Set(None),
    }
    .insert(&core.db)
    .await?;
    Ok(Created {
        id,
        secret,
        expires_at,
    })
}

/// Applies the per-IP and per-session limits of `kind`, then finds the live session.
async fn live_session(
    core: &Core,
    client: &ClientInfo,
    id: &str,
    kind: &str,
) -> AppResult<qr_sessions::Model> {
    let (per_ip, per_session) = match kind {
        "exchange" => (
            Rate::per(core.limits.qr_exchanges_per_ip_per_hour.max(1), HOUR),
            Rate::per(core.limits.qr_exchanges_per_session.max(1), QR_TTL),
        ),
        _ => (
            Rate::per(core.limits.qr_reads_per_ip_per_hour.max(1), HOUR),
            Rate::per(core.limits.qr_reads_per_session.max(1), QR_TTL),
        ),
    };
    let id = Uuid::parse_str(id.trim()).ok();
    let mut keys = Vec::new();
    if let Some(key) = ip_key(kind, client) {
        keys.push((key, per_ip));
    }
    if let Some(id) = id {
        keys.push((format!("qr:{kind}:session:{id}"), per_session));
    }
    limit(core, keys).await?;
    let id = id.ok_or_else(not_found)?;
    let now_ms = core.clock.now_ms();
    qr_sessions::Entity::find_by_id(id)
        .one(&core.db)
        .await?
        .filter(|s| s.expires_at_ms > now_ms)
        .ok_or_else(not_found)
}

fn check_secret(session: &qr_sessions::Model, secret: Option<&str>) -> AppResult<()> {
    let presented = hash_token(secret.unwrap_or_default());
    let matches = secret.is_some_and(|s| !s.is_empty())
        && bool::from(presented.as_bytes().ct_eq(session.secret_hash.as_bytes()));
    if matches {
        Ok(())
    } else {
        Err(AppError::new(
            ErrorCode::InvalidQrSecret,
            "missing or wrong X-Service-QR-Secret",
        ))
    }
}

/// What the approving phone shows. Errors: `qr_session_not_found`, `rate_limited`.
pub async fn preview(core: &Core, client: &ClientInfo, id: &str) -> AppResult<qr_sessions::Model> {
    let session = live_session(core, client, id, "read").await?;
    if session.status == QrState::Exchanged {
        return Err(not_found());
    }
    Ok(session)
}

/// `pending` or `approved`, for the browser holding the secret.
///
/// Errors: `qr_session_not_found`, `invalid_qr_secret`, `rate_limited`.
pub async fn status(
    core: &Core,
    client: &ClientInfo,
    id: &str,
    secret: Option<&str>,
) -> AppResult<QrStatus> {
    let session = live_session(core, client, id, "read").await?;
    check_secret(&session, secret)?;
    QrStatus::try_from(session.status).map_err(|_| not_found())
}

/// A signed-in user with console access approves a pending session.
///
/// Errors: `unauthorized`, `account_suspended`, `console_access_required`,
/// `qr_session_not_found`, `qr_session_not_pending`, `rate_limited`.
pub async fn approve(core: &Core, client: &ClientInfo, user: &User, id: &str) -> AppResult<()> {
    let no_console = || {
        AppError::new(
            ErrorCode::ConsoleAccessRequired,
            "approving a console sign-in needs a business account",
        )
    };
    let member = business_store::membership(&core.db, user.id)
        .await?
        .ok_or_else(no_console)?;
    let business = business_store::business(&core.db, member.business_id)
        .await?
        .ok_or_else(no_console)?;
    if business.status != BusinessStatus::Active {
        return Err(no_console());
    }
    let session = live_session(core, client, id, "read").await?;
    let now = core.clock.now();
    let updated = qr_sessions::Entity::update_many()
        .col_expr(qr_sessions::Column::Status, Expr::value(QrState::Approved))
        .col_expr(qr_sessions::Column::ApprovedBy, Expr::value(user.id))
        .col_expr(qr_sessions::Column::ApprovedAt, Expr::value(now))
        .filter(qr_sessions::Column::Id.eq(session.id))
        .filter(qr_sessions::Column::Status.eq(QrState::Pending))
        .exec(&core.db)
        .await?;
    if updated.rows_affected != 1 {
        return Err(AppError::new(
            ErrorCode::QrSessionNotPending,
            "this QR session is not pending",
        ));
    }
    Ok(())
}

/// Exchanges an approved session, once, for an access token of the approver.
///
/// Errors: `qr_session_not_found`, `invalid_qr_secret`, `qr_session_not_approved`,
/// `qr_session_already_exchanged`, `account_suspended`, `rate_limited`.
pub async fn exchange(
    core: &Core,
    client: &ClientInfo,
    id: &str,
    secret: Option<&str>,
) -> AppResult<String> {
    let session = live_session(core, client, id, "exchange").await?;
    check_secret(&session, secret)?;
    match session.status {
        QrState::Pending => {
            return Err(AppError::new(
                ErrorCode::QrSessionNotApproved,
                "this QR session has not been approved yet",
            ));
        }
        QrState::Exchanged => {
            return Err(AppError::new(
                ErrorCode::QrSessionAlreadyExchanged,
                "this QR session was exchanged already",
            ));
        }
        _ => {}
    }
    let approver = session
        .approved_by
        .ok_or_else(|| AppError::internal("approved session without approver"))?;
    let user = identity_store::user_by_id(&core.db, approver)
        .await?
        .ok_or_else(not_found)?;
    if user.status != UserStatus::Active {
        return Err(AppError::new(
            ErrorCode::AccountSuspended,
            "the approving account is suspended",
        ));
    }
    let now = core.clock.now();
    let updated = qr_sessions::Entity::update_many()
        .col_expr(qr_sessions::Column::Status, Expr::value(QrState::Exchanged))
        .col_expr(qr_sessions::Column::ExchangedAt, Expr::value(now))
        .filter(qr_sessions::Column::Id.eq(session.id))
        .filter(qr_sessions::Column::Status.eq(QrState::Approved))
        .exec(&core.db)
        .await?;
    if updated.rows_affected != 1 {
        return Err(AppError::new(
            ErrorCode::QrSessionAlreadyExchanged,
            "this QR session was exchanged already",
        ));
    }
    issue_access_token(
        &core.keys.jwt_secret,
        &core.tokens,
        user.id,
        now.timestamp(),
    )
    .map_err(|e| AppError::internal(format!("signing a token: {e}")))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn client_names_are_short_descriptions_of_the_browser() {
        let chrome = "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Safari/537.36";
        let name = client_name(Some(chrome));
        assert!(name.starts_with("Chrome 120"), "{name}");
        assert!(name.contains("Windows"), "{name}");
        assert_eq!(client_name(None), "Unknown browser");
        assert_eq!(client_name(Some("curl-ish/1")), "Unknown browser");
    }

    #[test]
    fn the_origin_hint_masks_the_last_part_of_the_ip() {
        assert_eq!(origin_hint(Some("203.0.113.77")), "203.0.113.x");
        assert_eq!(origin_hint(Some("2001:db8:1:2::5")), "2001:db8:1:x:x:x:x:x");
        assert_eq!(origin_hint(None), "unknown");
    }
}
