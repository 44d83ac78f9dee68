//! The team rules: owners and admins add people by phone number, change their role and remove
//! them; nobody changes or removes the owner; a user is on at most one team.

use proto::ErrorCode;
use proto::vocabulary::AssignableRole;
use uuid::Uuid;

use super::store::{self, Member};
use crate::caller;
use crate::domain::{PhoneNumber, Role};
use crate::error::{AppError, AppResult, is_unique_violation};
use crate::identity::store as identity_store;
use crate::state::Core;

/// The caller's team, oldest member first.
///
/// Errors: `unauthorized`, `account_suspended`, `not_a_business_account`, `business_suspended`.
pub async fn list(core: &Core, console: &caller::Member) -> AppResult<Vec<Member>> {
    store::team(&core.db, console.business.id).await
}

/// Adds the user with `phone` to the caller's team as `role`, or changes their role.
///
/// Errors: as [`list`], `insufficient_role`, `invalid_request` (role), `invalid_phone_number`,
/// `user_not_found`, `user_in_another_business`, `cannot_remove_owner`.
pub async fn upsert(
    core: &Core,
    console: &caller::Member,
    phone: &str,
    role: &str,
) -> AppResult<Member> {
    console.require_manager()?;
    let role = Role::from(AssignableRole::from_wire(role).ok_or_else(|| {
        AppError::new(ErrorCode::InvalidRequest, "role: must be admin or member")
    })?);
    let phone = PhoneNumber::parse(phone)?;
    let user = identity_store::user_by_phone(&core.db, phone.as_str())
        .await?
        .ok_or_else(|| {
            AppError::new(ErrorCode::UserNotFound, "no account has this phone number")
        })?;
    let business_id = console.business.id;
    for _ in 0..2 {
        match store::membership(&core.db, user.id).await? {
            Some(m) if m.business_id != business_id => {
                return Err(AppError::new(
                    ErrorCode::UserInAnotherBusiness,
                    "this user belongs to another business",
                ));
            }
            Some(m) if m.role == Role::Owner => {
                return Err(AppError::new(
                    ErrorCode::CannotRemoveOwner,
                    "the owner's role cannot change",
                ));
            }
            Some(m) => {
                let saved = store::set_role(&core.db, m, role).await?.ok_or_else(|| {
                    AppError::new(
                        ErrorCode::TeamMemberNotFound,
                        "this person was removed from the team meanwhile",
                    )
                })?;
                return Ok(Member {
                    user_id: user.id,
                    phone_number: user.phone_number,
                    role: saved.role,
                    added_at: saved.added_at,
                });
            }
            None => {
                match store::insert_member(&core.db, business_id, user.id, role, core.clock.now())
                    .await
                {
                    Ok(saved) => {
                        return Ok(Member {
                            user_id: user.id,
                            phone_number: user.phone_number,
                            role: saved.role,
                            added_at: saved.added_at,
                        });
                    }
                    // Added concurrently: decide again on what is there now.
                    Err(err) if is_unique_violation(&err) => continue,
                    Err(err) => return Err(err.into()),
                }
            }
        }
    }
    Err(AppError::internal("team membership kept changing"))
}

/// Removes a member (not the owner) from the caller's team.
///
/// Errors: as [`list`], `insufficient_role`, `not_found` (not a UUID), `cannot_remove_owner`,
/// `team_member_not_found`.
pub async fn remove(core: &Core, console: &caller::Member, user_id: &str) -> AppResult<()> {
    console.require_manager()?;
    let user_id = Uuid::parse_str(user_id.trim())
        .map_err(|_| AppError::new(ErrorCode::NotFound, "user id must be a UUID"))?;
    let member = store::membership(&core.db, user_id)
        .await?
        .filter(|m| m.business_id == console.business.id)
        .ok_or_else(|| AppError::new(ErrorCode::TeamMemberNotFound, "not on this team"))?;
    if member.role == Role::Owner {
        return Err(AppError::new(
            ErrorCode::CannotRemoveOwner,
            "the owner cannot be removed",
        ));
    }
    // The membership and the member's assignments end together.
    let txn = sea_orm::TransactionTrait::begin(&core.db).await?;
    store::remove_member(&txn, member.business_id, member.user_id).await?;
    crate::conversations::service::member_removed(&txn, member.business_id, member.user_id).await?;
    txn.commit().await?;
    Ok(())
}
