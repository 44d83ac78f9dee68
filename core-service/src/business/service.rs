//! The business-account rules: who may read or change the account, and what a valid account is.

use proto::ErrorCode;
use sea_orm::Set;

use super::store;
use crate::caller::{Console, Member, User};
use crate::domain::{
    BusinessMode, BusinessName, BusinessStatus, parse_category, parse_website_url,
};
use crate::entities::business_accounts;
use crate::error::{AppError, AppResult, is_unique_violation};
use crate::identity::store as identity_store;
use crate::state::Core;

/// A business account as shown to its team: the account and its owner's phone number.
#[derive(Debug, Clone)]
pub struct AccountView {
    pub business: business_accounts::Model,
    pub phone_number: String,
}

async fn view(core: &Core, business: business_accounts::Model) -> AppResult<AccountView> {
    let owner = identity_store::user_by_id(&core.db, business.id)
        .await?
        .ok_or_else(|| AppError::internal("business without owner"))?;
    Ok(AccountView {
        business,
        phone_number: owner.phone_number,
    })
}

/// The caller's business account, whatever its status (so a suspended business can read it).
pub async fn get_mine(core: &Core, console: &Console) -> AppResult<AccountView> {
    view(core, console.business.clone()).await
}

/// A change to the account. `None` leaves a field unchanged; `Some(None)` clears it.
#[derive(Debug, Clone, Default)]
pub struct AccountPatch {
    pub business_name: Option<String>,
    pub category: Option<Option<String>>,
    pub website_url: Option<Option<String>>,
}

/// Updates the caller's business account (owner or admin, active business).
///
/// Errors: those of [`console`], `business_suspended`, `insufficient_role`, `invalid_request`.
pub async fn update_mine(
    core: &Core,
    console: &Member,
    patch: AccountPatch,
) -> AppResult<AccountView> {
    console.require_manager()?;
    let name = BusinessName::parse(patch.business_name.as_deref())?;
    let category = patch
        .category
        .map(|c| c.as_deref().map(parse_category).transpose())
        .transpose()?;
    let website_url = patch
        .website_url
        .map(|u| u.as_deref().map(parse_website_url).transpose())
        .transpose()?;
    let mut active: business_accounts::ActiveModel = console.business.clone().into();
    active.business_name = Set(name.into_string());
    if let Some(category) = category {
        active.category = Set(category);
    }
    if let Some(url) = website_url {
        active.website_url = Set(url);
    }
    active.updated_at = Set(core.clock.now());
    let saved = store::save_business(&core.db, active).await?;
    view(core, saved).await
}

/// Fields of a new sandbox business.
#[derive(Debug, Clone, Default)]
pub struct NewAccount {
    pub business_name: Option<String>,
    pub category: Option<String>,
    pub website_url: Option<String>,
}

/// Creates a business in sandbox mode owned by the caller.
///
/// Errors: `unauthorized`, `account_suspended`, `invalid_request`, `business_already_exists`
/// (the caller owns a business or is on a team already).
pub async fn create_sandbox(core: &Core, user: &User, input: NewAccount) -> AppResult<AccountView> {
    let name = BusinessName::parse(input.business_name.as_deref())?;
    let category = input.category.as_deref().map(parse_category).transpose()?;
    let website_url = input
        .website_url
        .as_deref()
        .map(parse_website_url)
        .transpose()?;
    let exists = || {
        AppError::new(
            ErrorCode::BusinessAlreadyExists,
            "this user already belongs to a business",
        )
    };
    if store::membership(&core.db, user.id).await?.is_some() {
        return Err(exists());
    }
    let new = store::NewBusiness {
        owner: user.id,
        business_name: name.into_string(),
        category,
        website_url,
        mode: BusinessMode::Sandbox,
        status: BusinessStatus::Active,
    };
    let business = match store::insert_business(&core.db, new, core.clock.now()).await {
        Ok(business) => business,
        Err(err) if is_unique_violation(&err) => return Err(exists()),
        Err(err) => return Err(err.into()),
    };
    Ok(AccountView {
        business,
        phone_number: user.phone_number.clone(),
    })
}
