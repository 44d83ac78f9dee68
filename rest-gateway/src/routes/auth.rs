//! `/auth/*`: sign-in by one-time code and the token lifecycle.

use axum::extract::State;
use axum::http::StatusCode;
use proto::v1 as pb;
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use crate::envelope::{ApiResult, EmptyEnvelope, Envelope, Null, ok};
use crate::extract::{CallContext, JsonBody};
use crate::state::AppState;

#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct OtpRequestBody {
    /// E.164 phone number of an existing account, e.g. `+14155550123`.
    #[schema(pattern = r"^\+[1-9][0-9]{1,14}$", example = "+14155550123")]
    pub phone_number: String,
}

#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct OtpVerifyBody {
    #[schema(pattern = r"^\+[1-9][0-9]{1,14}$", example = "+14155550123")]
    pub phone_number: String,
    /// The 6-digit code.
    #[schema(pattern = "^[0-9]{6}$")]
    pub code: String,
}

#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct RefreshTokenBody {
    /// The refresh token of the last pair issued.
    #[schema(min_length = 1, max_length = 512, pattern = r"\S")]
    pub refresh_token: String,
}

/// An access token and a rotating refresh token.
#[derive(Debug, Serialize, ToSchema)]
pub struct TokenPair {
    pub access_token: String,
    pub refresh_token: String,
    #[schema(value_type = crate::schema::TokenType)]
    pub token_type: String,
    /// Seconds until the access token expires.
    pub expires_in: i64,
}

impl From<pb::TokenPair> for TokenPair {
    fn from(p: pb::TokenPair) -> Self {
        TokenPair {
            access_token: p.access_token,
            refresh_token: p.refresh_token,
            token_type: p.token_type,
            expires_in: p.expires_in,
        }
    }
}

/// Request a business-login code by SMS.
///
/// Answers 200 for unknown numbers too (nothing is sent). One request per number per cooldown,
/// an hourly cap per number and per client IP.
#[utoipa::path(post, path = "/auth/business/otp/request", operation_id = "request_otp", tag = "auth",
    request_body = OtpRequestBody,
    responses(
        (status = 200, description = "Code sent if the account exists", body = EmptyEnvelope),
    ))]
pub async fn otp_request(
    State(state): State<AppState>,
    ctx: CallContext,
    JsonBody(body): JsonBody<OtpRequestBody>,
) -> ApiResult {
    let message = pb::RequestOtpRequest {
        phone_number: body.phone_number,
    };
    state
        .identity
        .clone()
        .request_otp(ctx.request(message))
        .await?;
    Ok(ok(StatusCode::OK, Null))
}

/// Verify a business-login code and receive tokens.
#[utoipa::path(post, path = "/auth/business/otp/verify", operation_id = "verify_otp", tag = "auth",
    request_body = OtpVerifyBody,
    responses(
        (status = 200, description = "Signed in", body = Envelope<TokenPair>),
    ))]
pub async fn otp_verify(
    State(state): State<AppState>,
    ctx: CallContext,
    JsonBody(body): JsonBody<OtpVerifyBody>,
) -> ApiResult {
    let message = pb::VerifyOtpRequest {
        phone_number: body.phone_number,
        code: body.code,
    };
    let pair = state
        .identity
        .clone()
        .verify_otp(ctx.request(message))
        .await?;
    Ok(ok(StatusCode::OK, TokenPair::from(pair.into_inner())))
}

/// Rotate a refresh token. A refresh token used twice revokes its whole family.
#[utoipa::path(post, path = "/auth/refresh", operation_id = "refresh_tokens", tag = "auth",
    request_body = RefreshTokenBody,
    responses(
        (status = 200, description = "A new token pair", body = Envelope<TokenPair>),
    ))]
pub async fn refresh(
    State(state): State<AppState>,
    ctx: CallContext,
    JsonBody(body): JsonBody<RefreshTokenBody>,
) -> ApiResult {
    let message = pb::RefreshRequest {
        refresh_token: body.refresh_token,
    };
    let pair = state.identity.clone().refresh(ctx.request(message)).await?;
    Ok(ok(StatusCode::OK, TokenPair::from(pair.into_inner())))
}

/// Sign out: revoke the refresh token's family.
#[utoipa::path(post, path = "/auth/logout", tag = "auth",
    request_body = RefreshTokenBody,
    responses(
        (status = 200, description = "Signed out", body = EmptyEnvelope),
    ))]
pub async fn logout(
    State(state): State<AppState>,
    ctx: CallContext,
    JsonBody(body): JsonBody<RefreshTokenBody>,
) -> ApiResult {
    let message = pb::LogoutRequest {
        refresh_token: body.refresh_token,
    };
    state.identity.clone().logout(ctx.request(message)).await?;
    Ok(ok(StatusCode::OK, Null))
}

/// Who is signed in.
#[derive(Debug, Serialize, ToSchema)]
pub struct Me {
    #[schema(format = Uuid)]
    pub user_id: String,
    #[schema(pattern = r"^\+[1-9][0-9]{1,14}$", example = "+14155550123")]
    pub phone_number: String,
    #[schema(value_type = crate::schema::UserStatus)]
    pub status: String,
    /// The business the user owns or belongs to; `null` without one.
    #[schema(format = Uuid)]
    pub business_account_id: Option<String>,
    /// The user's role in that business; `null` without one.
    #[schema(value_type = Option<crate::schema::Role>)]
    pub role: Option<String>,
    /// Shown to a business only in the conversations the user started; `null` without one.
    pub display_name: Option<String>,
    /// Whether businesses see when the user read their messages.
    pub read_receipts: bool,
    /// Your own language (a BCP 47 tag, canonical): the variant of a template that businesses
    /// you follow send you; `null` when not set.
    #[schema(example = "pt-BR")]
    pub language: Option<String>,
    /// Whether you get an SMS when a webhook endpoint of your business turns failing (owners
    /// and admins; at most one per endpoint per 24 h).
    pub webhook_alerts: bool,
}

impl From<pb::Me> for Me {
    fn from(me: pb::Me) -> Self {
        Me {
            user_id: me.user_id,
            phone_number: me.phone_number,
            status: me.status,
            business_account_id: me.business_account_id,
            role: me.role,
            display_name: me.display_name,
            read_receipts: me.read_receipts,
            language: me.language,
            webhook_alerts: me.webhook_alerts,
        }
    }
}

/// Changes to the signed-in user's own settings. Absent fields stay.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct UpdateMeBody {
    /// 0 to 64 characters, shown to a business only in the conversations you started; `null` or
    /// empty clears it.
    #[serde(default, deserialize_with = "super::business::present")]
    #[schema(value_type = Option<String>, max_length = 64, pattern = r"^[^\x00-\x1f\x7f-\x9f]*$", example = "Sam")]
    pub display_name: Option<Option<String>>,
    /// Whether businesses see when you read their messages (default true).
    pub read_receipts: Option<bool>,
    /// Your language, a BCP 47 tag (`pt-BR`): businesses you follow send you their templates'
    /// variant for it (or the nearest, `pt`). `null` or empty clears it. No business reads it.
    #[serde(default, deserialize_with = "super::business::present")]
    #[schema(value_type = Option<String>, max_length = 64, pattern = "^([A-Za-z]{2,8}(-[A-Za-z0-9]{1,8})*)?$", example = "pt-BR")]
    pub language: Option<Option<String>>,
    /// Whether you get an SMS when a webhook endpoint of your business turns failing (owners
    /// and admins; default true).
    pub webhook_alerts: Option<bool>,
}

/// Who is signed in: the user, and their business and role (any signed-in user).
#[utoipa::path(get, path = "/me", operation_id = "get_current_user", tag = "auth",
    security(("bearer" = [])),
    responses(
        (status = 200, description = "The signed-in user", body = Envelope<Me>),
    ))]
pub async fn me(State(state): State<AppState>, ctx: CallContext) -> ApiResult {
    let me = state
        .identity
        .clone()
        .who_am_i(ctx.request(pb::Empty {}))
        .await?
        .into_inner();
    Ok(ok(StatusCode::OK, Me::from(me)))
}

/// Change your own settings: the name businesses see in your conversations, read receipts, your
/// language, webhook alert SMS.
#[utoipa::path(patch, path = "/me", operation_id = "update_current_user", tag = "auth",
    security(("bearer" = [])),
    request_body = UpdateMeBody,
    responses(
        (status = 200, description = "The signed-in user", body = Envelope<Me>),
    ))]
pub async fn update_me(
    State(state): State<AppState>,
    ctx: CallContext,
    JsonBody(body): JsonBody<UpdateMeBody>,
) -> ApiResult {
    let request = pb::UpdateMeRequest {
        display_name: body.display_name.map(|value| pb::StringPatch { value }),
        read_receipts: body.read_receipts,
        language: body.language.map(|value| pb::StringPatch { value }),
        webhook_alerts: body.webhook_alerts,
    };
    let me = state
        .identity
        .clone()
        .update_me(ctx.request(request))
        .await?
        .into_inner();
    Ok(ok(StatusCode::OK, Me::from(me)))
}
