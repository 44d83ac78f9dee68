//! Queries for users, one-time codes and refresh tokens. No rules here.

use chrono::{DateTime, Utc};
use proto::vocabulary::UserStatus;
use sea_orm::sea_query::{Expr, ExprTrait};
use sea_orm::{
    ActiveModelTrait, ColumnTrait, ConnectionTrait, EntityTrait, QueryFilter, QueryOrder, Set,
};
use uuid::Uuid;

use crate::entities::{otp_codes, refresh_families, refresh_tokens, users};
use crate::error::AppResult;

pub async fn user_by_id(db: &impl ConnectionTrait, id: Uuid) -> AppResult<Option<users::Model>> {
    Ok(users::Entity::find_by_id(id).one(db).await?)
}

pub async fn user_by_phone(
    db: &impl ConnectionTrait,
    phone: &str,
) -> AppResult<Option<users::Model>> {
    Ok(users::Entity::find()
        .filter(users::Column::PhoneNumber.eq(phone))
        .one(db)
        .await?)
}

pub async fn insert_user(
    db: &impl ConnectionTrait,
    phone: &str,
    status: UserStatus,
    now: DateTime<Utc>,
) -> Result<users::Model, sea_orm::DbErr> {
    users::ActiveModel {
        id: Set(Uuid::now_v7()),
        phone_number: Set(phone.to_string()),
        status: Set(status),
        created_at: Set(now),
        updated_at: Set(now),
        ..Default::default()
    }
    .insert(db)
    .await
}

/// Creates, active, the users with these numbers that do not exist yet (one statement), and
/// returns the id of every one of them by number.
pub async fn ensure_users(
    db: &impl ConnectionTrait,
    phones: &[String],
    status: UserStatus,
    now: DateTime<Utc>,
) -> AppResult<std::collections::HashMap<String, Uuid>> {
    if phones.is_empty() {
        return Ok(Default::default());
    }
    let rows = phones.iter().map(|phone| users::ActiveModel {
        id: Set(Uuid::now_v7()),
        phone_number: Set(phone.clone()),
        status: Set(status),
        created_at: Set(now),
        updated_at: Set(now),
        ..Default::default()
    });
    let inserted = users::Entity::insert_many(rows)
        .on_conflict(
            sea_orm::sea_query::OnConflict::column(users::Column::PhoneNumber)
                .do_nothing()
                .to_owned(),
        )
        .exec_without_returning(db)
        .await;
    match inserted {
        Ok(_) | Err(sea_orm::DbErr::RecordNotInserted) => {}
        Err(err) => return Err(err.into()),
    }
    Ok(users::Entity::find()
        .filter(users::Column::PhoneNumber.is_in(phones.iter().cloned()))
        .all(db)
        .await?
        .into_iter()
        .map(|u| (u.phone_number, u.id))
        .collect())
}

pub async fn set_user_status(
    db: &impl ConnectionTrait,
    user: users::Model,
    status: UserStatus,
    now: DateTime<Utc>,
) -> AppResult<users::Model> {
    let mut active: users::ActiveModel = user.into();
    active.status = Set(status);
    active.updated_at = Set(now);
    Ok(active.update(db).await?)
}

/// Replaces any code of this user and purpose with a new one.
pub async fn replace_otp(
    db: &impl ConnectionTrait,
    user_id: Uuid,
    purpose: &str,
    code_hash: String,
    expires_at_ms: i64,
    now: DateTime<Utc>,
) -> AppResult<Uuid> {
    delete_otps(db, user_id, purpose).await?;
    let id = Uuid::now_v7();
    otp_codes::ActiveModel {
        id: Set(id),
        user_id: Set(user_id),
        purpose: Set(purpose.to_string()),
        code_hash: Set(code_hash),
        expires_at_ms: Set(expires_at_ms),
        attempts: Set(0),
        consumed_at: Set(None),
        created_at: Set(now),
    }
    .insert(db)
    .await?;
    Ok(id)
}

pub async fn delete_otps(db: &impl ConnectionTrait, user_id: Uuid, purpose: &str) -> AppResult<()> {
    otp_codes::Entity::delete_many()
        .filter(otp_codes::Column::UserId.eq(user_id))
        .filter(otp_codes::Column::Purpose.eq(purpose))
        .exec(db)
        .await?;
    Ok(())
}

pub async fn delete_otp(db: &impl ConnectionTrait, id: Uuid) -> AppResult<()> {
    otp_codes::Entity::delete_by_id(id).exec(db).await?;
    Ok(())
}

/// The newest unconsumed code of this user and purpose.
pub async fn live_otp(
    db: &impl ConnectionTrait,
    user_id: Uuid,
    purpose: &str,
) -> AppResult<Option<otp_codes::Model>> {
    Ok(otp_codes::Entity::find()
        .filter(otp_codes::Column::UserId.eq(user_id))
        .filter(otp_codes::Column::Purpose.eq(purpose))
        .filter(otp_codes::Column::ConsumedAt.is_null())
        .order_by_desc(otp_codes::Column::CreatedAt)
        .one(db)
        .await?)
}

/// Counts a wrong try, unless the code is already dead or used.
pub async fn count_wrong_try(db: &impl ConnectionTrait, id: Uuid, max: i32) -> AppResult<()> {
    otp_codes::Entity::update_many()
        .col_expr(
            otp_codes::Column::Attempts,
            Expr::col(otp_codes::Column::Attempts).add(1),
        )
        .filter(otp_codes::Column::Id.eq(id))
        .filter(otp_codes::Column::Attempts.lt(max))
        .filter(otp_codes::Column::ConsumedAt.is_null())
        .exec(db)
        .await?;
    Ok(())
}

/// Marks a code used. False when another request used it first, or it died meanwhile.
pub async fn consume_otp(
    db: &impl ConnectionTrait,
    id: Uuid,
    max: i32,
    now: DateTime<Utc>,
) -> AppResult<bool> {
    let result = otp_codes::Entity::update_many()
        .col_expr(otp_codes::Column::ConsumedAt, Expr::value(now))
        .filter(otp_codes::Column::Id.eq(id))
        .filter(otp_codes::Column::Attempts.lt(max))
        .filter(otp_codes::Column::ConsumedAt.is_null())
        .exec(db)
        .await?;
    Ok(result.rows_affected == 1)
}

pub async fn insert_family(
    db: &impl ConnectionTrait,
    user_id: Uuid,
    now: DateTime<Utc>,
) -> AppResult<Uuid> {
    let id = Uuid::now_v7();
    refresh_families::ActiveModel {
        id: Set(id),
        user_id: Set(user_id),
        created_at: Set(now),
        revoked_at: Set(None),
    }
    .insert(db)
    .await?;
    Ok(id)
}

pub async fn family(
    db: &impl ConnectionTrait,
    id: Uuid,
) -> AppResult<Option<refresh_families::Model>> {
    Ok(refresh_families::Entity::find_by_id(id).one(db).await?)
}

pub async fn revoke_family(
    db: &impl ConnectionTrait,
    id: Uuid,
    now: DateTime<Utc>,
) -> AppResult<()> {
    refresh_families::Entity::update_many()
        .col_expr(refresh_families::Column::RevokedAt, Expr::value(now))
        .filter(refresh_families::Column::Id.eq(id))
        .filter(refresh_families::Column::RevokedAt.is_null())
        .exec(db)
        .await?;
    Ok(())
}

pub async fn insert_refresh_token(
    db: &impl ConnectionTrait,
    family_id: Uuid,
    user_id: Uuid,
    token_hash: String,
    expires_at_ms: i64,
    now: DateTime<Utc>,
) -> AppResult<()> {
    refresh_tokens::ActiveModel {
        id: Set(Uuid::now_v7()),
        family_id: Set(family_id),
        user_id: Set(user_id),
        token_hash: Set(token_hash),
        expires_at_ms: Set(expires_at_ms),
        used_at: Set(None),
        created_at: Set(now),
    }
    .insert(db)
    .await?;
    Ok(())
}

pub async fn refresh_token_by_hash(
    db: &impl ConnectionTrait,
    hash: &str,
) -> AppResult<Option<refresh_tokens::Model>> {
    Ok(refresh_tokens::Entity::find()
        .filter(refresh_tokens::Column::TokenHash.eq(hash))
        .one(db)
        .await?)
}

/// Marks a refresh token used. False when it was used already (a replay).
pub async fn use_refresh_token(
    db: &impl ConnectionTrait,
    id: Uuid,
    now: DateTime<Utc>,
) -> AppResult<bool> {
    let result = refresh_tokens::Entity::update_many()
        .col_expr(refresh_tokens::Column::UsedAt, Expr::value(now))
        .filter(refresh_tokens::Column::Id.eq(id))
        .filter(refresh_tokens::Column::UsedAt.is_null())
        .exec(db)
        .await?;
    Ok(result.rows_affected == 1)
}

/// What a user changes of their own profile (None: unchanged).
#[derive(Debug, Clone, Default)]
pub struct Profile {
    pub display_name: Option<Option<String>>,
    pub read_receipts: Option<bool>,
    pub language: Option<Option<String>>,
    pub webhook_alerts: Option<bool>,
}

/// Sets what `profile` names of a user's profile; returns the user after.
pub async fn update_profile(
    db: &impl ConnectionTrait,
    user_id: Uuid,
    profile: Profile,
    now: DateTime<Utc>,
) -> AppResult<users::Model> {
    let Profile {
        display_name,
        read_receipts,
        language,
        webhook_alerts,
    } = profile;
    use sea_orm::{ActiveModelTrait as _, ActiveValue};
    let mut row = users::ActiveModel {
        id: ActiveValue::Unchanged(user_id),
        updated_at: Set(now),
        ..Default::default()
    };
    if let Some(name) = display_name {
        row.display_name = Set(name);
    }
    if let Some(receipts) = read_receipts {
        row.read_receipts = Set(receipts);
    }
    if let Some(language) = language {
        row.language = Set(language);
    }
    if let Some(alerts) = webhook_alerts {
        row.webhook_alerts = Set(alerts);
    }
    Ok(row.update(db).await?)
}
