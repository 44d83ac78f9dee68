//! `/business/me` and `/business/sandbox`.

use axum::extract::State;
use axum::http::StatusCode;
use proto::v1 as pb;
use serde::{Deserialize, Deserializer, Serialize};
use utoipa::ToSchema;

use crate::envelope::{ApiResult, Envelope, ok};
use crate::extract::{CallContext, JsonBody};
use crate::state::AppState;

/// A business account.
#[derive(Debug, Serialize, ToSchema)]
pub struct BusinessAccount {
    /// The account id: its owner's user id.
    #[schema(format = Uuid)]
    pub user_id: String,
    pub business_name: String,
    pub category: Option<String>,
    #[schema(format = "uri")]
    pub website_url: Option<String>,
    #[schema(value_type = crate::schema::BusinessStatus)]
    pub status: String,
    /// `sandbox` cannot send; an operator makes the business `live`.
    #[schema(value_type = crate::schema::BusinessMode)]
    pub mode: String,
    /// The owner's phone number (E.164).
    #[schema(pattern = r"^\+[1-9][0-9]{1,14}$")]
    pub phone_number: String,
    #[schema(format = DateTime)]
    pub created_at: String,
}

impl From<pb::BusinessAccount> for BusinessAccount {
    fn from(b: pb::BusinessAccount) -> Self {
        BusinessAccount {
            user_id: b.user_id,
            business_name: b.business_name,
            category: b.category,
            website_url: b.website_url,
            status: b.status,
            mode: b.mode,
            phone_number: b.phone_number,
            created_at: b.created_at,
        }
    }
}

/// Distinguishes an absent field (`None`) from an explicit `null` (`Some(None)`).
pub(crate) fn present<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Option<String>>, D::Error> {
    Option::<String>::deserialize(d).map(Some)
}

/// Changes to the business account. An absent `category` or `website_url` is unchanged; `null`
/// clears it.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct UpdateBusinessBody {
    /// 1 to 100 characters once trimmed.
    #[schema(
        min_length = 1,
        max_length = 100,
        pattern = r"^[^\x00-\x1f\x7f-\x9f]*[^\s\x00-\x1f\x7f-\x9f][^\x00-\x1f\x7f-\x9f]*$",
        example = "Acme Coffee"
    )]
    pub business_name: String,
    #[serde(default, deserialize_with = "present")]
    #[schema(min_length = 1, max_length = 100, pattern = r"^[^\x00-\x1f\x7f-\x9f]*[^\s\x00-\x1f\x7f-\x9f][^\x00-\x1f\x7f-\x9f]*$", value_type = Option<String>, example = "Coffee shop")]
    pub category: Option<Option<String>>,
    /// An absolute http or https URL.
    #[serde(default, deserialize_with = "present")]
    #[schema(value_type = Option<String>, format = "uri", max_length = 2048, pattern = "^[Hh][Tt][Tt][Pp][Ss]?://", example = "https://acme.example")]
    pub website_url: Option<Option<String>>,
}

/// A new sandbox business.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct CreateSandboxBody {
    /// 1 to 100 characters once trimmed.
    #[schema(
        min_length = 1,
        max_length = 100,
        pattern = r"^[^\x00-\x1f\x7f-\x9f]*[^\s\x00-\x1f\x7f-\x9f][^\x00-\x1f\x7f-\x9f]*$",
        example = "Acme Coffee"
    )]
    pub business_name: String,
    #[serde(default)]
    #[schema(
        min_length = 1,
        max_length = 100,
        pattern = r"^[^\x00-\x1f\x7f-\x9f]*[^\s\x00-\x1f\x7f-\x9f][^\x00-\x1f\x7f-\x9f]*$",
        example = "Coffee shop"
    )]
    pub category: Option<String>,
    /// An absolute http or https URL.
    #[serde(default)]
    #[schema(value_type = Option<String>, format = "uri", max_length = 2048, pattern = "^[Hh][Tt][Tt][Pp][Ss]?://", example = "https://acme.example")]
    pub website_url: Option<String>,
}

/// The caller's business account (also readable while suspended).
#[utoipa::path(get, path = "/business/me", operation_id = "get_business", tag = "business",
    security(("bearer" = [])),
    responses(
        (status = 200, description = "The account", body = Envelope<BusinessAccount>),
    ))]
pub async fn get_me(State(state): State<AppState>, ctx: CallContext) -> ApiResult {
    let account = state
        .business
        .clone()
        .get_my_business(ctx.request(pb::GetMyBusinessRequest {}))
        .await?;
    Ok(ok(
        StatusCode::OK,
        BusinessAccount::from(account.into_inner()),
    ))
}

/// Update the business account (owner or admin).
#[utoipa::path(patch, path = "/business/me", operation_id = "update_business", tag = "business",
    security(("bearer" = [])),
    request_body = UpdateBusinessBody,
    responses(
        (status = 200, description = "The updated account", body = Envelope<BusinessAccount>),
    ))]
pub async fn patch_me(
    State(state): State<AppState>,
    ctx: CallContext,
    JsonBody(body): JsonBody<UpdateBusinessBody>,
) -> ApiResult {
    let patch = |field: Option<Option<String>>| field.map(|value| pb::StringPatch { value });
    let message = pb::UpdateMyBusinessRequest {
        business_name: Some(body.business_name),
        category: patch(body.category),
        website_url: patch(body.website_url),
    };
    let account = state
        .business
        .clone()
        .update_my_business(ctx.request(message))
        .await?;
    Ok(ok(
        StatusCode::OK,
        BusinessAccount::from(account.into_inner()),
    ))
}

/// Create a sandbox business owned by the caller.
#[utoipa::path(post, path = "/business/sandbox", tag = "business",
    security(("bearer" = [])),
    request_body = CreateSandboxBody,
    responses(
        (status = 201, description = "The new account, in sandbox mode", body = Envelope<BusinessAccount>),
    ))]
pub async fn create_sandbox(
    State(state): State<AppState>,
    ctx: CallContext,
    JsonBody(body): JsonBody<CreateSandboxBody>,
) -> ApiResult {
    let message = pb::CreateSandboxRequest {
        business_name: Some(body.business_name),
        category: body.category,
        website_url: body.website_url,
    };
    let account = state
        .business
        .clone()
        .create_sandbox(ctx.request(message))
        .await?;
    Ok(ok(
        StatusCode::CREATED,
        BusinessAccount::from(account.into_inner()),
    ))
}
