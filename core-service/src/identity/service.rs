//! The identity rules: one-time codes for business login, token issue and rotation, and
//! authenticating a user from an access token.

use std::time::Duration;

use chrono::{Days, TimeZone, Utc};
use hmac::{Hmac, KeyInit, Mac};
use proto::ErrorCode;
use sha2::Sha256;
use subtle::ConstantTimeEq;
use uuid::Uuid;

use super::store;
use super::tokens;
use crate::caller::{ClientInfo, ensure_active};
use crate::domain::{OtpCode, PhoneNumber};
use crate::entities::{refresh_families, refresh_tokens};
use crate::error::{AppError, AppResult};
use crate::limits::Rate;
use crate::state::Core;

/// The purpose codes of this flow are issued for.
pub const BUSINESS_LOGIN: &str = "business_login";
/// How long a code lives.
pub const OTP_TTL: Duration = Duration::from_secs(300);
/// Wrong tries after which a code is dead.
pub const OTP_MAX_TRIES: i32 = 5;

const HOUR: Duration = Duration::from_secs(3600);

/// An issued token pair.
#[derive(Debug, Clone)]
pub struct TokenPair {
    pub access_token: String,
    pub refresh_token: String,
    pub expires_in: i64,
}

fn otp_hash(core: &Core, user_id: Uuid, code: &str) -> String {
    let mut mac = Hmac::<Sha256>::new_from_slice(&core.keys.otp_hmac_key).expect("any key length");
    mac.update(user_id.as_bytes());
    mac.update(BUSINESS_LOGIN.as_bytes());
    mac.update(code.as_bytes());
    hex::encode(mac.finalize().into_bytes())
}

/// Sends a business-login code to `phone` when an account has that number. Answers the same
/// for unknown numbers (no account enumeration), in about the same time and with the same 503
/// while the provider fails (see [`crate::sms::SmsGauge`]), and applies the per-IP cap, the per-phone
/// cooldown and the hourly cap to every number. When the SMS provider fails, no code stays
/// live and no limit is spent.
///
/// Errors: `invalid_phone_number`, `rate_limited`, `sms_delivery_unavailable`.
pub async fn request_otp(core: &Core, client: &ClientInfo, phone: &str) -> AppResult<()> {
    let phone = PhoneNumber::parse(phone)?;
    let limits = &core.limits;
    let mut keys = vec![
        (
            format!("otp_request:cooldown:{}", phone.as_str()),
            Rate::per(1, Duration::from_secs(limits.otp_cooldown_secs.max(1))),
        ),
        (
            format!("otp_request:hour:{}", phone.as_str()),
            Rate::per(limits.otp_requests_per_phone_per_hour.max(1), HOUR),
        ),
    ];
    if let Some(ip) = &client.ip {
        keys.push((
            format!("otp_request:ip:{ip}"),
            Rate::per(limits.otp_requests_per_ip_per_hour.max(1), HOUR),
        ));
    }
    let taken = core.limiter.acquire(&keys, ErrorCode::RateLimited).await?;
    let unavailable = || {
        AppError::new(
            ErrorCode::SmsDeliveryUnavailable,
            "the code could not be sent; try again later",
        )
    };

    let user = match store::user_by_phone(&core.db, phone.as_str()).await {
        Ok(user) => user,
        Err(err) => {
            core.limiter.release(&taken).await;
            return Err(err);
        }
    };
    let Some(user) = user else {
        // An unknown number takes as long as a send currently takes and fails as sends
        // currently fail, so that neither the answer nor its timing tells the two apart.
        core.clock.sleep(core.sms_gauge.estimate()).await;
        if core.sms_gauge.failing(core.clock.now()) {
            core.limiter.release(&taken).await;
            return Err(unavailable());
        }
        tracing::info!("otp requested for an unknown phone number; nothing sent");
        return Ok(());
    };
    let started = core.clock.now();
    let code = format!("{:06}", rand::random_range(0..1_000_000u32));
    let expires = started.timestamp_millis() + OTP_TTL.as_millis() as i64;
    let stored = store::replace_otp(
        &core.db,
        user.id,
        BUSINESS_LOGIN,
        otp_hash(core, user.id, &code),
        expires,
        started,
    )
    .await;
    let code_id = match stored {
        Ok(id) => id,
        Err(err) => {
            core.limiter.release(&taken).await;
            return Err(err);
        }
    };
    let text = format!("Your business login code is {code}. It expires in 5 minutes.");
    let sent = core.sms.send(phone.as_str(), &text).await;
    let finished = core.clock.now();
    let took = (finished - started).to_std().unwrap_or_default();
    core.sms_gauge.record(took, sent.is_ok(), finished);
    if let Err(err) = sent {
        tracing::warn!(error = %err, "sms provider failed; code withdrawn");
        let _ = store::delete_otp(&core.db, code_id).await;
        core.limiter.release(&taken).await;
        return Err(unavailable());
    }
    Ok(())
}

fn failures_key(phone: &PhoneNumber, day: chrono::NaiveDate) -> String {
    format!("otp_verify:failures:{}:{day}", phone.as_str())
}

/// Forgets a phone's failed codes of `day` (an operator lifting the daily lock). Returns
/// whether any were counted.
pub async fn clear_failures(
    core: &Core,
    phone: &PhoneNumber,
    day: chrono::NaiveDate,
) -> AppResult<bool> {
    use sea_orm::{ColumnTrait, EntityTrait, QueryFilter};
    let deleted = crate::entities::rate_limits::Entity::delete_many()
        .filter(crate::entities::rate_limits::Column::Key.eq(failures_key(phone, day)))
        .filter(crate::entities::rate_limits::Column::Value.gt(0))
        .exec(&core.db)
        .await?;
    Ok(deleted.rows_affected > 0)
}

/// Exchanges a code for an access token and a new refresh-token family. The code is checked
/// before the account's status, so a guesser learns nothing about suspended accounts.
///
/// Errors: `invalid_phone_number`, `invalid_otp_code` (malformed, wrong, expired, used or dead
/// after five wrong tries), `rate_limited` (per IP, or the phone's daily lock after too many
/// failures), `account_suspended`.
pub async fn verify_otp(
    core: &Core,
    client: &ClientInfo,
    phone: &str,
    code: &str,
) -> AppResult<TokenPair> {
    let phone = PhoneNumber::parse(phone)?;
    let code = OtpCode::parse(code)?;
    if let Some(ip) = &client.ip {
        let key = format!("otp_verify:ip:{ip}");
        let rate = Rate::per(core.limits.otp_verifies_per_ip_per_hour.max(1), HOUR);
        core.limiter
            .acquire(&[(key, rate)], ErrorCode::RateLimited)
            .await?;
    }
    let now = core.clock.now();
    let today = now.date_naive();
    let tomorrow = Utc.from_utc_datetime(
        &today
            .checked_add_days(Days::new(1))
            .unwrap_or(today)
            .and_hms_opt(0, 0, 0)
            .unwrap_or_default(),
    );
    let failures_key = failures_key(&phone, today);
    // Each verification takes one of the day's failure units before the code is checked and
    // gives it back only when the code was right: one conditional UPDATE, so a burst of
    // concurrent guesses is held to the cap as a sequence would be.
    let cap = i64::from(core.limits.otp_daily_failures_per_phone);
    if !core
        .limiter
        .take_counted(&failures_key, cap, tomorrow.timestamp_millis())
        .await?
    {
        let wait = (tomorrow - now).to_std().unwrap_or(Duration::from_secs(1));
        return Err(AppError::retry_after(
            ErrorCode::RateLimited,
            wait,
            "too many failed codes for this number today",
        ));
    }

    let wrong = || AppError::new(ErrorCode::InvalidOtpCode, "the code is wrong or expired");
    // On a failure the unit taken above stays spent.

    let Some(user) = store::user_by_phone(&core.db, phone.as_str()).await? else {
        return Err(wrong());
    };
    let Some(live) = store::live_otp(&core.db, user.id, BUSINESS_LOGIN).await? else {
        return Err(wrong());
    };
    if live.attempts >= OTP_MAX_TRIES || live.expires_at_ms <= now.timestamp_millis() {
        return Err(wrong());
    }
    let expected = otp_hash(core, user.id, code.as_str());
    if !bool::from(expected.as_bytes().ct_eq(live.code_hash.as_bytes())) {
        store::count_wrong_try(&core.db, live.id, OTP_MAX_TRIES).await?;
        return Err(wrong());
    }
    if !store::consume_otp(&core.db, live.id, OTP_MAX_TRIES, now).await? {
        return Err(wrong());
    }
    core.limiter.give_back_counted(&failures_key).await?;
    ensure_active(&user)?;
    issue_tokens(core, user.id, None).await
}

/// Issues an access token and a refresh token, in `family` or in a new family.
async fn issue_tokens(core: &Core, user_id: Uuid, family: Option<Uuid>) -> AppResult<TokenPair> {
    let now = core.clock.now();
    let family = match family {
        Some(id) => id,
        None => store::insert_family(&core.db, user_id, now).await?,
    };
    let refresh = tokens::new_opaque_token();
    let refresh_expires = now.timestamp_millis() + core.tokens.refresh_ttl.as_millis() as i64;
    store::insert_refresh_token(
        &core.db,
        family,
        user_id,
        tokens::hash_token(&refresh),
        refresh_expires,
        now,
    )
    .await?;
    let access = tokens::issue_access_token(
        &core.keys.jwt_secret,
        &core.tokens,
        user_id,
        now.timestamp(),
    )
    .map_err(|e| AppError::internal(format!("signing a token: {e}")))?;
    Ok(TokenPair {
        access_token: access,
        refresh_token: refresh,
        expires_in: core.tokens.access_ttl.as_secs() as i64,
    })
}

fn invalid_refresh() -> AppError {
    AppError::new(
        ErrorCode::InvalidRefreshToken,
        "the refresh token is invalid, expired or revoked",
    )
}

fn require_token(token: &str) -> AppResult<&str> {
    let token = token.trim();
    if token.is_empty() || token.len() > 512 {
        return Err(AppError::new(
            ErrorCode::InvalidRequest,
            "refresh_token: 1 to 512 characters",
        ));
    }
    Ok(token)
}

/// The stored row of a presented refresh token and its family, which must not be revoked.
async fn presented_token(
    core: &Core,
    refresh_token: &str,
) -> AppResult<(refresh_tokens::Model, refresh_families::Model)> {
    let token = require_token(refresh_token)?;
    let row = store::refresh_token_by_hash(&core.db, &tokens::hash_token(token))
        .await?
        .ok_or_else(invalid_refresh)?;
    let family = store::family(&core.db, row.family_id)
        .await?
        .filter(|family| family.revoked_at.is_none())
        .ok_or_else(invalid_refresh)?;
    Ok((row, family))
}

/// Rotates a refresh token: the presented one is spent and a new one of the same family is
/// issued with a new access token. Presenting a spent token again revokes its whole family.
///
/// Errors: `invalid_request`, `invalid_refresh_token`, `account_suspended`.
pub async fn refresh(core: &Core, refresh_token: &str) -> AppResult<TokenPair> {
    let (row, family) = presented_token(core, refresh_token).await?;
    let now = core.clock.now();
    // A token presented again within REFRESH_REUSE_GRACE of its own rotation is the same client
    // refreshing twice at once (two tabs): it gets a fresh pair in the same family. Later, it
    // is a replay, and the whole family is revoked.
    let within_grace = |used_at: chrono::DateTime<chrono::Utc>| {
        (now - used_at).to_std().unwrap_or_default() <= REFRESH_REUSE_GRACE
    };
    if let Some(used_at) = row.used_at
        && !within_grace(used_at)
    {
        tracing::warn!(family = %family.id, "refresh token replayed; family revoked");
        store::revoke_family(&core.db, family.id, now).await?;
        return Err(invalid_refresh());
    }
    if row.expires_at_ms <= now.timestamp_millis() {
        return Err(invalid_refresh());
    }
    let user = store::user_by_id(&core.db, row.user_id)
        .await?
        .ok_or_else(invalid_refresh)?;
    ensure_active(&user)?;
    // Spending a token that a concurrent request spent a moment ago is the grace case too.
    if row.used_at.is_none() {
        let _first = store::use_refresh_token(&core.db, row.id, now).await?;
    }
    issue_tokens(core, user.id, Some(family.id)).await
}

/// How long a just-rotated refresh token still issues a pair in its family (DESIGN.md,
/// "Refresh reuse grace").
pub const REFRESH_REUSE_GRACE: std::time::Duration = std::time::Duration::from_secs(10);

/// Revokes the family of a refresh token (sign-out of that session).
///
/// Errors: `invalid_request`, `invalid_refresh_token`.
pub async fn logout(core: &Core, refresh_token: &str) -> AppResult<()> {
    let (_, family) = presented_token(core, refresh_token).await?;
    store::revoke_family(&core.db, family.id, core.clock.now()).await
}

/// What a user may change of their own account; None leaves a field as it is.
#[derive(Debug, Clone, Default)]
pub struct MeChange {
    /// Some(None) (or an empty name) clears it.
    pub display_name: Option<Option<String>>,
    pub read_receipts: Option<bool>,
    /// Some(None) clears it.
    pub language: Option<Option<String>>,
    /// Whether the member gets the SMS alert of a failing webhook endpoint.
    pub webhook_alerts: Option<bool>,
}

/// The longest display name, in characters.
pub const MAX_DISPLAY_NAME: usize = 64;

/// Changes the caller's own display name, read receipts, language and webhook alerts; returns
/// the user after.
///
/// Errors: `invalid_request` (a display name over 64 characters, or with control characters;
/// a language that is not a BCP 47 tag).
pub async fn update_me(
    core: &Core,
    user: &crate::caller::User,
    change: MeChange,
) -> AppResult<crate::entities::users::Model> {
    let display_name = match change.display_name {
        None => None,
        Some(None) => Some(None),
        Some(Some(name)) => {
            let name = name.trim().to_string();
            if name.chars().count() > MAX_DISPLAY_NAME || name.chars().any(char::is_control) {
                return Err(AppError::new(
                    ErrorCode::InvalidRequest,
                    "display_name: at most 64 characters, no control characters",
                ));
            }
            Some((!name.is_empty()).then_some(name))
        }
    };
    let language = match change.language {
        None => None,
        Some(None) => Some(None),
        Some(Some(tag)) if tag.trim().is_empty() => Some(None),
        Some(Some(tag)) => Some(crate::templates::send::explicit_locale(
            Some(tag.trim()),
            "language",
        )?),
    };
    if display_name.is_none()
        && change.read_receipts.is_none()
        && language.is_none()
        && change.webhook_alerts.is_none()
    {
        return Ok((**user).clone());
    }
    store::update_profile(
        &core.db,
        user.id,
        store::Profile {
            display_name,
            read_receipts: change.read_receipts,
            language,
            webhook_alerts: change.webhook_alerts,
        },
        core.clock.now(),
    )
    .await
}
