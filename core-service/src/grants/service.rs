//! The grant rules.

use proto::ErrorCode;
use proto::vocabulary::EventType;
use sea_orm::sea_query::{Expr, OnConflict};
use sea_orm::{ColumnTrait, EntityTrait, QueryFilter, TransactionTrait};
use uuid::Uuid;

use crate::caller::User;
use crate::entities::{developer_apps, grants};
use crate::error::{AppError, AppResult};
use crate::identity::store as identity_store;
use crate::state::Core;

fn parse_id(id: &str, field: &str) -> AppResult<Uuid> {
    Uuid::parse_str(id.trim()).map_err(|_| {
        AppError::new(
            ErrorCode::InvalidRequest,
            format!("{field}: must be a UUID"),
        )
    })
}

/// Records (or renews) a grant of `user_id` to the app `client_id`.
///
/// Errors: `invalid_request`, `user_not_found`, `app_not_found`.
pub async fn create(core: &Core, user_id: &str, client_id: &str) -> AppResult<grants::Model> {
    let user_id = parse_id(user_id, "user_id")?;
    let client_id = parse_id(client_id, "client_id")?;
    identity_store::user_by_id(&core.db, user_id)
        .await?
        .ok_or_else(|| AppError::new(ErrorCode::UserNotFound, "no such user"))?;
    developer_apps::Entity::find_by_id(client_id)
        .one(&core.db)
        .await?
        .ok_or_else(|| AppError::new(ErrorCode::AppNotFound, "no such app"))?;
    let grant = grants::Model {
        user_id,
        client_id,
        created_at: core.clock.now(),
        revoked_at: None,
    };
    grants::Entity::insert(grants::ActiveModel::from(grant.clone()))
        .on_conflict(
            OnConflict::columns([grants::Column::UserId, grants::Column::ClientId])
                .update_columns([grants::Column::CreatedAt, grants::Column::RevokedAt])
                .to_owned(),
        )
        .exec_without_returning(&core.db)
        .await?;
    Ok(grant)
}

/// Revokes a live grant and, in the same transaction, records `grant.revoked` for the business
/// that owns the app. The revocation is one conditional UPDATE (`revoked_at IS NULL`): of
/// concurrent revocations exactly one succeeds and emits the event; the others find no live
/// grant, as a later one would.
///
/// Errors: `invalid_request`, `grant_not_found`.
pub async fn revoke(core: &Core, user_id: Uuid, client_id: &str) -> AppResult<grants::Model> {
    let not_found = || AppError::new(ErrorCode::GrantNotFound, "no such grant");
    let client_id = Uuid::parse_str(client_id.trim()).map_err(|_| not_found())?;
    let app = developer_apps::Entity::find_by_id(client_id)
        .one(&core.db)
        .await?;
    let now = core.clock.now();
    let txn = core.db.begin().await?;
    let revoked = grants::Entity::update_many()
        .col_expr(grants::Column::RevokedAt, Expr::value(Some(now)))
        .filter(grants::Column::UserId.eq(user_id))
        .filter(grants::Column::ClientId.eq(client_id))
        .filter(grants::Column::RevokedAt.is_null())
        .exec_with_returning(&txn)
        .await?
        .pop()
        .ok_or_else(not_found)?;
    let mut queued = 0;
    let mut tally = crate::usage::Tally::new();
    if let Some(app) = app {
        let data = serde_json::json!({ "client_id": client_id, "chatx_user_id": user_id });
        queued = crate::events::record(
            &txn,
            app.business_id,
            EventType::GrantRevoked,
            data,
            now,
            &mut tally,
        )
        .await?;
    }
    tally.apply(&txn).await?;
    txn.commit().await?;
    if queued > 0 {
        core.webhook_wakeup.wake();
    }
    Ok(revoked)
}

/// Revokes by operator (user id given). Errors: as [`revoke`].
pub async fn revoke_as_operator(
    core: &Core,
    user_id: &str,
    client_id: &str,
) -> AppResult<grants::Model> {
    revoke(core, parse_id(user_id, "user_id")?, client_id).await
}

/// The caller revokes their own grant. Errors: `unauthorized`, `account_suspended`,
/// `grant_not_found`.
pub async fn revoke_mine(core: &Core, user: &User, client_id: &str) -> AppResult<()> {
    revoke(core, user.id, client_id).await.map(|_| ())
}
