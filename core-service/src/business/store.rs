//! Queries for business accounts and team members. No rules here.

use chrono::{DateTime, Utc};
use sea_orm::{
    ActiveModelTrait, ConnectionTrait, DatabaseConnection, EntityTrait, Set, TransactionTrait,
};
use uuid::Uuid;

use crate::entities::{business_accounts, team_members};
use crate::error::AppResult;

pub async fn business(
    db: &impl ConnectionTrait,
    id: Uuid,
) -> AppResult<Option<business_accounts::Model>> {
    Ok(business_accounts::Entity::find_by_id(id).one(db).await?)
}

/// The team membership of a user (a user belongs to at most one business).
pub async fn membership(
    db: &impl ConnectionTrait,
    user_id: Uuid,
) -> AppResult<Option<team_members::Model>> {
    Ok(team_members::Entity::find_by_id(user_id).one(db).await?)
}

/// New business fields.
pub struct NewBusiness {
    pub owner: Uuid,
    pub business_name: String,
    pub category: Option<String>,
    pub website_url: Option<String>,
    pub mode: &'static str,
    pub status: &'static str,
}

/// Creates the business and its owner's membership in one transaction.
pub async fn insert_business(
    db: &DatabaseConnection,
    new: NewBusiness,
    now: DateTime<Utc>,
) -> Result<business_accounts::Model, sea_orm::DbErr> {
    let txn = db.begin().await?;
    let business = business_accounts::ActiveModel {
        id: Set(new.owner),
        business_name: Set(new.business_name),
        category: Set(new.category),
        website_url: Set(new.website_url),
        status: Set(new.status.to_string()),
        mode: Set(new.mode.to_string()),
        created_at: Set(now),
        updated_at: Set(now),
    }
    .insert(&txn)
    .await?;
    team_members::ActiveModel {
        user_id: Set(new.owner),
        business_id: Set(new.owner),
        role: Set("owner".to_string()),
        added_at: Set(now),
    }
    .insert(&txn)
    .await?;
    txn.commit().await?;
    Ok(business)
}

pub async fn save_business(
    db: &impl ConnectionTrait,
    business: business_accounts::ActiveModel,
) -> AppResult<business_accounts::Model> {
    Ok(business.update(db).await?)
}
