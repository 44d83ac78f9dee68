//! `/businesses/{businessAccountId}/follow`: a user's follow and marketing consent, and the
//! business's consent wording the user is shown before opting in
//! (`/businesses/{businessAccountId}/consent-text`; its team sets it at
//! `/business/consent-text`).

use axum::extract::State;
use axum::http::StatusCode;
use proto::v1 as pb;
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use crate::envelope::{ApiResult, EmptyEnvelope, Envelope, Null, ok};
use crate::extract::{CallContext, JsonBody, PathParam, uuid_path};
use crate::state::AppState;

/// A user's follow of a business.
#[derive(Debug, Serialize, ToSchema)]
pub struct Follow {
    #[schema(format = Uuid)]
    pub business_account_id: String,
    #[schema(format = Uuid)]
    pub user_id: String,
    #[schema(value_type = crate::schema::FollowStatus)]
    pub status: String,
    pub marketing_opt_in: bool,
    #[schema(format = DateTime)]
    pub followed_at: Option<String>,
    #[schema(format = DateTime)]
    pub updated_at: Option<String>,
}

impl From<pb::Follow> for Follow {
    fn from(f: pb::Follow) -> Self {
        Follow {
            business_account_id: f.business_account_id,
            user_id: f.user_id,
            status: f.status,
            marketing_opt_in: f.marketing_opt_in,
            followed_at: f.followed_at,
            updated_at: f.updated_at,
        }
    }
}

#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct PutFollowBody {
    /// Default false.
    #[serde(default)]
    pub marketing_opt_in: Option<bool>,
    /// The consent wording version the user was shown (`GET
    /// /businesses/{businessAccountId}/consent-text`): a marketing opt-in records that the user
    /// named it; a version no longer in force is 409 `consent_text_changed`.
    #[serde(default, deserialize_with = "version")]
    #[schema(minimum = 1, maximum = 2147483647)]
    pub consent_text_version: Option<i32>,
}

#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct PatchFollowBody {
    #[schema(value_type = bool, required = true)]
    pub marketing_opt_in: Option<bool>,
    /// As on `PUT`.
    #[serde(default, deserialize_with = "version")]
    #[schema(minimum = 1, maximum = 2147483647)]
    pub consent_text_version: Option<i32>,
}

/// A wording version: a whole JSON number (`3`, or `3.0`, which JSON Schema counts as the same
/// integer) that fits the version's range; null or absent is none.
fn version<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<i32>, D::Error> {
    let Some(number) = Option::<serde_json::Number>::deserialize(d)? else {
        return Ok(None);
    };
    number
        .as_i64()
        .or_else(|| {
            number
                .as_f64()
                .filter(|f| f.fract() == 0.0 && f.abs() <= i32::MAX as f64)
                .map(|f| f as i64)
        })
        .and_then(|v| i32::try_from(v).ok())
        .map(Some)
        .ok_or_else(|| serde::de::Error::custom("a whole number from 1 to 2147483647"))
}

/// One version of a business's consent wording: what its followers agree to when they opt in
/// to its marketing.
#[derive(Debug, Serialize, ToSchema)]
pub struct ConsentText {
    /// From 1; each change of the wording is the next.
    pub version: i32,
    pub text: String,
    #[schema(format = DateTime)]
    pub created_at: String,
}

impl From<pb::ConsentText> for ConsentText {
    fn from(t: pb::ConsentText) -> Self {
        ConsentText {
            version: t.version,
            text: t.text,
            created_at: t.created_at,
        }
    }
}

/// The wording in force, or null when the business set none.
#[derive(Debug, Serialize)]
#[serde(transparent)]
pub struct ConsentTextOrNull(pub Option<ConsentText>);

impl utoipa::PartialSchema for ConsentTextOrNull {
    fn schema() -> utoipa::openapi::RefOr<utoipa::openapi::schema::Schema> {
        use utoipa::openapi::schema::{ObjectBuilder, OneOfBuilder, Type};
        OneOfBuilder::new()
            .item(utoipa::openapi::Ref::from_schema_name("ConsentText"))
            .item(ObjectBuilder::new().schema_type(Type::Null))
            .into()
    }
}

impl ToSchema for ConsentTextOrNull {
    fn schemas(
        schemas: &mut Vec<(
            String,
            utoipa::openapi::RefOr<utoipa::openapi::schema::Schema>,
        )>,
    ) {
        schemas.push((
            "ConsentText".to_string(),
            <ConsentText as utoipa::PartialSchema>::schema(),
        ));
    }
}

impl From<pb::ConsentTextAnswer> for ConsentTextOrNull {
    fn from(answer: pb::ConsentTextAnswer) -> Self {
        ConsentTextOrNull(answer.consent_text.map(ConsentText::from))
    }
}

/// A business's consent wording in force, shown to the user beside the marketing opt-in (name
/// its `version` when following or opting in); `data` is null when the business set none.
#[utoipa::path(get, path = "/businesses/{businessAccountId}/consent-text", operation_id = "get_business_consent_text", tag = "follow",
    security(("bearer" = [])),
    params(("businessAccountId" = String, Path, format = Uuid)),
    responses(
        (status = 200, description = "The wording in force, or null", body = Envelope<ConsentTextOrNull>),
    ))]
pub async fn get_consent_text(
    State(state): State<AppState>,
    ctx: CallContext,
    PathParam(id): PathParam,
) -> ApiResult {
    let message = pb::FollowRequest {
        business_account_id: uuid_path(&id)?,
    };
    let answer = state
        .consent
        .clone()
        .get_consent_text(ctx.request(message))
        .await?;
    Ok(ok(
        StatusCode::OK,
        ConsentTextOrNull::from(answer.into_inner()),
    ))
}

/// The caller's follow of a business (active or unfollowed).
#[utoipa::path(get, path = "/businesses/{businessAccountId}/follow", tag = "follow",
    security(("bearer" = [])),
    params(("businessAccountId" = String, Path, format = Uuid)),
    responses(
        (status = 200, description = "The follow", body = Envelope<Follow>),
    ))]
pub async fn get_follow(
    State(state): State<AppState>,
    ctx: CallContext,
    PathParam(id): PathParam,
) -> ApiResult {
    let message = pb::FollowRequest {
        business_account_id: uuid_path(&id)?,
    };
    let follow = state
        .consent
        .clone()
        .get_follow(ctx.request(message))
        .await?;
    Ok(ok(StatusCode::OK, Follow::from(follow.into_inner())))
}

/// Follow a live business (again); `marketing_opt_in` defaults to false.
#[utoipa::path(put, path = "/businesses/{businessAccountId}/follow", operation_id = "follow_business", tag = "follow",
    security(("bearer" = [])),
    params(("businessAccountId" = String, Path, format = Uuid)),
    request_body = PutFollowBody,
    responses(
        (status = 200, description = "The active follow", body = Envelope<Follow>),
    ))]
pub async fn put_follow(
    State(state): State<AppState>,
    ctx: CallContext,
    PathParam(id): PathParam,
    JsonBody(body): JsonBody<PutFollowBody>,
) -> ApiResult {
    let message = pb::PutFollowRequest {
        business_account_id: uuid_path(&id)?,
        marketing_opt_in: body.marketing_opt_in,
        consent_text_version: body.consent_text_version,
    };
    let follow = state
        .consent
        .clone()
        .put_follow(ctx.request(message))
        .await?;
    Ok(ok(StatusCode::OK, Follow::from(follow.into_inner())))
}

/// Change marketing consent on an active follow.
#[utoipa::path(patch, path = "/businesses/{businessAccountId}/follow", operation_id = "update_follow", tag = "follow",
    security(("bearer" = [])),
    params(("businessAccountId" = String, Path, format = Uuid)),
    request_body = PatchFollowBody,
    responses(
        (status = 200, description = "The follow", body = Envelope<Follow>),
    ))]
pub async fn patch_follow(
    State(state): State<AppState>,
    ctx: CallContext,
    PathParam(id): PathParam,
    JsonBody(body): JsonBody<PatchFollowBody>,
) -> ApiResult {
    let message = pb::PatchFollowRequest {
        business_account_id: uuid_path(&id)?,
        marketing_opt_in: body.marketing_opt_in,
        consent_text_version: body.consent_text_version,
    };
    let follow = state
        .consent
        .clone()
        .patch_follow(ctx.request(message))
        .await?;
    Ok(ok(StatusCode::OK, Follow::from(follow.into_inner())))
}

/// Unfollow (idempotent).
#[utoipa::path(delete, path = "/businesses/{businessAccountId}/follow", operation_id = "unfollow_business", tag = "follow",
    security(("bearer" = [])),
    params(("businessAccountId" = String, Path, format = Uuid)),
    responses(
        (status = 200, description = "Unfollowed", body = EmptyEnvelope),
    ))]
pub async fn delete_follow(
    State(state): State<AppState>,
    ctx: CallContext,
    PathParam(id): PathParam,
) -> ApiResult {
    let message = pb::FollowRequest {
        business_account_id: uuid_path(&id)?,
    };
    state
        .consent
        .clone()
        .delete_follow(ctx.request(message))
        .await?;
    Ok(ok(StatusCode::OK, Null))
}
