//! The consent rules (SPEC's follow state machine): PUT follows a live business, PATCH changes
//! marketing consent on an active follow, DELETE always leaves it unfollowed.

use proto::ErrorCode;
use uuid::Uuid;

use super::store;
use crate::business::store as business_store;
use crate::caller::authenticate_user;
use crate::domain::{BusinessMode, BusinessStatus};
use crate::entities::{business_accounts, follows, users};
use crate::error::{AppError, AppResult};
use crate::state::Core;

pub const ACTIVE: &str = "active";
pub const UNFOLLOWED: &str = "unfollowed";

async fn caller_and_business(
    core: &Core,
    authorization: Option<&str>,
    business_id: &str,
) -> AppResult<(users::Model, business_accounts::Model)> {
    let user = authenticate_user(core, authorization).await?;
    let not_found = || AppError::new(ErrorCode::BusinessNotFound, "no such business account");
    let id = Uuid::parse_str(business_id.trim()).map_err(|_| not_found())?;
    let business = business_store::business(&core.db, id)
        .await?
        .ok_or_else(not_found)?;
    Ok((user, business))
}

/// The caller's follow of a business, active or unfollowed.
///
/// Errors: `unauthorized`, `account_suspended`, `business_not_found`, `follow_not_found`.
pub async fn get(
    core: &Core,
    authorization: Option<&str>,
    business_id: &str,
) -> AppResult<follows::Model> {
    let (user, business) = caller_and_business(core, authorization, business_id).await?;
    store::follow(&core.db, business.id, user.id)
        .await?
        .ok_or_else(|| {
            AppError::new(
                ErrorCode::FollowNotFound,
                "you never followed this business",
            )
        })
}

/// Follows a live, active business (again); `marketing_opt_in` defaults to false.
///
/// Errors: `unauthorized`, `account_suspended`, `business_not_found`,
/// `cannot_follow_own_business`, `business_not_live`.
pub async fn put(
    core: &Core,
    authorization: Option<&str>,
    business_id: &str,
    marketing_opt_in: Option<bool>,
) -> AppResult<follows::Model> {
    let (user, business) = caller_and_business(core, authorization, business_id).await?;
    if business.id == user.id {
        return Err(AppError::new(
            ErrorCode::CannotFollowOwnBusiness,
            "a business cannot be followed by its owner",
        ));
    }
    let live = BusinessMode::from_db(&business.mode)? == BusinessMode::Live
        && BusinessStatus::from_db(&business.status)? == BusinessStatus::Active
        // A business is its owner's profile: a suspended or banned owner suspends it.
        && crate::identity::store::user_by_id(&core.db, business.id)
            .await?
            .is_some_and(|owner| owner.status == crate::domain::UserStatus::Active.as_str());
    if !live {
        return Err(AppError::new(
            ErrorCode::BusinessNotLive,
            "only live, active businesses can be followed",
        ));
    }
    let now = core.clock.now();
    let existing = store::follow(&core.db, business.id, user.id).await?;
    let followed_at = match &existing {
        Some(f) if f.status == ACTIVE => f.followed_at.or(Some(now)),
        _ => Some(now),
    };
    store::save(
        &core.db,
        follows::Model {
            business_id: business.id,
            user_id: user.id,
            status: ACTIVE.to_string(),
            marketing_opt_in: marketing_opt_in.unwrap_or(false),
            followed_at,
            updated_at: Some(now),
        },
    )
    .await
}

/// Changes marketing consent on an active follow.
///
/// Errors: `unauthorized`, `account_suspended`, `invalid_request`, `business_not_found`,
/// `follow_not_found`.
pub async fn patch(
    core: &Core,
    authorization: Option<&str>,
    business_id: &str,
    marketing_opt_in: Option<bool>,
) -> AppResult<follows::Model> {
    let (user, business) = caller_and_business(core, authorization, business_id).await?;
    let opt_in = marketing_opt_in
        .ok_or_else(|| AppError::new(ErrorCode::InvalidRequest, "marketing_opt_in: is required"))?;
    let follow = store::follow(&core.db, business.id, user.id)
        .await?
        .filter(|f| f.status == ACTIVE)
        .ok_or_else(|| {
            AppError::new(ErrorCode::FollowNotFound, "you do not follow this business")
        })?;
    store::save(
        &core.db,
        follows::Model {
            marketing_opt_in: opt_in,
            updated_at: Some(core.clock.now()),
            ..follow
        },
    )
    .await
}

/// Unfollows (withdrawing marketing consent too). Idempotent, also when never followed.
///
/// Errors: `unauthorized`, `account_suspended`, `business_not_found`.
pub async fn delete(core: &Core, authorization: Option<&str>, business_id: &str) -> AppResult<()> {
    let (user, business) = caller_and_business(core, authorization, business_id).await?;
    if let Some(follow) = store::follow(&core.db, business.id, user.id).await?
        && follow.status == ACTIVE
    {
        store::save(
            &core.db,
            follows::Model {
                status: UNFOLLOWED.to_string(),
                marketing_opt_in: false,
                updated_at: Some(core.clock.now()),
                ..follow
            },
        )
        .await?;
    }
    Ok(())
}
