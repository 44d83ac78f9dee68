//! Starting an erasure, and reading one.

use chrono::{DateTime, Utc};
use proto::ErrorCode;
use proto::vocabulary::{ChangeSource, ErasureStatus, EventType, FollowStatus, Role, UserStatus};
use sea_orm::sea_query::{Expr, ExprTrait as _};
use sea_orm::{
    ActiveModelTrait, ColumnTrait, ConnectionTrait, EntityTrait, QueryFilter, QueryOrder,
    TransactionTrait,
};
use uuid::Uuid;

use super::job::Phase;
use crate::business::store as business_store;
use crate::consent::store::{self as consent_store, Change};
use crate::domain::PhoneNumber;
use crate::entities::{
    developer_apps, erasure_businesses, erasures, follows, grants, otp_codes, qr_sessions,
    rate_limits, refresh_families, refresh_tokens, users, webhook_alerts,
};
use crate::error::{AppError, AppResult};
use crate::identity::store as identity_store;
use crate::state::Core;
use crate::usage::Tally;

/// Who to erase or export: exactly one of a user id and a phone number.
pub struct Who<'a> {
    pub user_id: Option<&'a str>,
    pub phone_number: Option<&'a str>,
}

/// The user `who` names, whatever their status. Errors: `invalid_request` (none or both given,
/// or an id that is not a UUID), `invalid_phone_number`, `user_not_found`.
pub async fn find(core: &Core, who: &Who<'_>) -> AppResult<users::Model> {
    let not_found = || AppError::new(ErrorCode::UserNotFound, "no such user");
    fn given(v: Option<&str>) -> Option<&str> {
        v.map(str::trim).filter(|v| !v.is_empty())
    }
    match (given(who.user_id), given(who.phone_number)) {
        (Some(id), None) => {
            let id = Uuid::parse_str(id)
                .map_err(|_| AppError::new(ErrorCode::InvalidRequest, "user_id: must be a UUID"))?;
            identity_store::user_by_id(&core.db, id)
                .await?
                .ok_or_else(not_found)
        }
        (None, Some(phone)) => {
            let phone = PhoneNumber::parse(phone)?;
            identity_store::user_by_phone(&core.db, phone.as_str())
                .await?
                .ok_or_else(|| {
                    AppError::new(ErrorCode::UserNotFound, "no user has this phone number")
                })
        }
        _ => Err(AppError::new(
            ErrorCode::InvalidRequest,
            "give exactly one of user_id and phone_number",
        )),
    }
}

/// What an erasure is at, for `GetErasure` and the CLI.
pub struct Progress {
    pub erasure: erasures::Model,
    /// The businesses that knew the user, found so far.
    pub businesses: u64,
}

/// Erases the user `who` names: refused for the owner of a business (`user_owns_business`);
/// a team member leaves the team first. In one transaction: the user turns `erased` (their
/// number replaced, so it may register again; display name and language gone), the ledger
/// entry, their codes, refresh tokens, approved QR sessions, rate-limit counters and pending
/// alert SMS removed, their grants revoked (`grant.revoked`), their follows ended (ledger
/// source `erasure`, no `follow.*` event, no daily unfollow). The job does the rest. A user
/// erased already answers their erasure, unchanged.
///
/// Errors: as [`find`], `user_owns_business`.
pub async fn erase(core: &Core, who: &Who<'_>) -> AppResult<Progress> {
    let user = find(core, who).await?;
    if user.status == UserStatus::Erased {
        return progress_of_user(core, user.id).await;
    }
    let now = core.clock.now();
    let txn = core.db.begin().await?;
    if let Some(member) = business_store::membership(&txn, user.id).await? {
        if member.role == Role::Owner {
            return Err(AppError::new(
                ErrorCode::UserOwnsBusiness,
                "this user owns a business: close it or hand it over before erasing them",
            ));
        }
        business_store::remove_member(&txn, member.business_id, user.id).await?;
        crate::conversations::service::member_removed(&txn, member.business_id, user.id).await?;
    }
    // Conditional on the status, so that of two erasures at once one writes the entry.
    let turned = users::Entity::update_many()
        .col_expr(users::Column::Status, Expr::value(UserStatus::Erased))
        .col_expr(
            users::Column::PhoneNumber,
            Expr::value(erased_number(user.id)),
        )
        .col_expr(users::Column::DisplayName, Expr::value(None::<String>))
        .col_expr(users::Column::Language, Expr::value(None::<String>))
        .col_expr(users::Column::UpdatedAt, Expr::value(now))
        .filter(users::Column::Id.eq(user.id))
        .filter(users::Column::Status.ne(UserStatus::Erased))
        .exec(&txn)
        .await?;
    if turned.rows_affected == 0 {
        txn.rollback().await?;
        return progress_of_user(core, user.id).await;
    }
    let now_ms = now.timestamp_millis();
    let erasure = erasures::Model {
        id: crate::clock::id_at(now),
        user_id: user.id,
        status: ErasureStatus::Running,
        phase: Phase::Discover as i32,
        cursor_business: None,
        cursor_at: None,
        cursor_id: None,
        rows_changed: 0,
        erased_at: now,
        completed_at: None,
        due_at_ms: now_ms,
        lease_owner: None,
        lease_until_ms: 0,
    };
    erasures::ActiveModel::from(erasure.clone())
        .insert(&txn)
        .await?;
    remove_keyed_rows(&txn, &user).await?;
    let mut tally = Tally::new();
    let mut queued = end_follows(&txn, user.id, now, &mut tally).await?;
    queued += revoke_grants(&txn, user.id, now, &mut tally).await?;
    tally.apply(&txn).await?;
    txn.commit().await?;
    if queued > 0 {
        core.webhook_wakeup.wake();
    }
    core.erasure_wakeup.notify_one();
    tracing::info!(erasure = %erasure.id, user = %user.id, "user erased; the erasure job starts");
    Ok(Progress {
        erasure,
        businesses: 0,
    })
}

/// What an erased user's `phone_number` becomes: not a number (so it never matches one, and
/// the number may register again), unique.
pub fn erased_number(user_id: Uuid) -> String {
    format!("erased:{user_id}")
}

/// The rows keyed by the user or their number that go at once.
async fn remove_keyed_rows(txn: &impl ConnectionTrait, user: &users::Model) -> AppResult<()> {
    otp_codes::Entity::delete_many()
        .filter(otp_codes::Column::UserId.eq(user.id))
        .exec(txn)
        .await?;
    refresh_tokens::Entity::delete_many()
        .filter(refresh_tokens::Column::UserId.eq(user.id))
        .exec(txn)
        .await?;
    refresh_families::Entity::delete_many()
        .filter(refresh_families::Column::UserId.eq(user.id))
        .exec(txn)
        .await?;
    qr_sessions::Entity::delete_many()
        .filter(qr_sessions::Column::ApprovedBy.eq(user.id))
        .exec(txn)
        .await?;
    // Counters name the number (`otp_request:hour:+1...`) or the user id.
    rate_limits::Entity::delete_many()
        .filter(
            rate_limits::Column::Key
                .contains(&user.phone_number)
                .or(rate_limits::Column::Key.contains(user.id.to_string())),
        )
        .exec(txn)
        .await?;
    webhook_alerts::Entity::delete_many()
        .filter(webhook_alerts::Column::PhoneNumber.eq(&user.phone_number))
        .exec(txn)
        .await?;
    Ok(())
}

/// Ends every follow of the user: `unfollowed`, no marketing consent, a ledger entry of source
/// `erasure` for each that was active or opted in. No `follow.*` event is recorded; the
/// follower totals move, the daily unfollows do not. Returns the deliveries queued (none).
async fn end_follows(
    txn: &impl ConnectionTrait,
    user_id: Uuid,
    now: DateTime<Utc>,
    tally: &mut Tally,
) -> AppResult<usize> {
    let current = follows::Entity::find()
        .filter(follows::Column::UserId.eq(user_id))
        .order_by_asc(follows::Column::BusinessId)
        .all(txn)
        .await?;
    let ended: Vec<follows::Model> = current
        .iter()
        .filter(|f| f.status == FollowStatus::Active || f.marketing_opt_in)
        .map(|f| {
            tally.erased_follow(
                f.business_id,
                (f.status == FollowStatus::Active, f.marketing_opt_in),
            );
            follows::Model {
                status: FollowStatus::Unfollowed,
                marketing_opt_in: false,
                updated_at: Some(now),
                ..f.clone()
            }
        })
        .collect();
    if ended.is_empty() {
        return Ok(0);
    }
    follows::Entity::update_many()
        .col_expr(
            follows::Column::Status,
            Expr::value(FollowStatus::Unfollowed),
        )
        .col_expr(follows::Column::MarketingOptIn, Expr::value(false))
        .col_expr(follows::Column::UpdatedAt, Expr::value(Some(now)))
        .filter(follows::Column::UserId.eq(user_id))
        .exec(txn)
        .await?;
    let changes: Vec<Change<'_>> = ended
        .iter()
        .map(|follow| Change {
            follow,
            at: now,
            source: ChangeSource::Erasure,
            consent_text_version: None,
            user_named_version: false,
        })
        .collect();
    consent_store::log_changes(txn, &changes).await?;
    Ok(0)
}

/// Revokes the user's live grants, each announced `grant.revoked` to its app's business.
/// Returns the deliveries queued.
async fn revoke_grants(
    txn: &impl ConnectionTrait,
    user_id: Uuid,
    now: DateTime<Utc>,
    tally: &mut Tally,
) -> AppResult<usize> {
    let revoked = grants::Entity::update_many()
        .col_expr(grants::Column::RevokedAt, Expr::value(Some(now)))
        .filter(grants::Column::UserId.eq(user_id))
        .filter(grants::Column::RevokedAt.is_null())
        .exec_with_returning(txn)
        .await?;
    let mut events = Vec::new();
    for grant in revoked {
        if let Some(app) = developer_apps::Entity::find_by_id(grant.client_id)
            .one(txn)
            .await?
        {
            events.push(crate::events::NewEvent {
                business_id: app.business_id,
                event_type: EventType::GrantRevoked,
                data: serde_json::json!({ "client_id": grant.client_id, "chatx_user_id": user_id }),
                broadcast: false,
            });
        }
    }
    crate::events::record_many(txn, events, now, tally).await
}

/// The erasure of user `user_id`. Errors: `internal_error` when an erased user has none (never).
async fn progress_of_user(core: &Core, user_id: Uuid) -> AppResult<Progress> {
    let erasure = erasures::Entity::find()
        .filter(erasures::Column::UserId.eq(user_id))
        .one(&core.db)
        .await?
        .ok_or_else(|| AppError::internal("an erased user without an erasure entry"))?;
    progress(core, erasure).await
}

async fn progress(core: &Core, erasure: erasures::Model) -> AppResult<Progress> {
    use sea_orm::PaginatorTrait as _;
    let businesses = erasure_businesses::Entity::find()
        .filter(erasure_businesses::Column::ErasureId.eq(erasure.id))
        .count(&core.db)
        .await?;
    Ok(Progress {
        erasure,
        businesses,
    })
}

/// An erasure by its id or by the erased user's id. Errors: `invalid_request` (not a UUID),
/// `not_found`.
pub async fn get(core: &Core, id: &str) -> AppResult<Progress> {
    let id = Uuid::parse_str(id.trim())
        .map_err(|_| AppError::new(ErrorCode::InvalidRequest, "id: must be a UUID"))?;
    let erasure = erasures::Entity::find()
        .filter(
            erasures::Column::Id
                .eq(id)
                .or(erasures::Column::UserId.eq(id)),
        )
        .one(&core.db)
        .await?
        .ok_or_else(|| AppError::new(ErrorCode::NotFound, "no erasure has this id"))?;
    progress(core, erasure).await
}
