//! Queries for business accounts and team members. No rules here.

use chrono::{DateTime, Utc};
use proto::vocabulary::{BusinessMode, BusinessStatus, Role};
use sea_orm::{
    ActiveModelTrait, ConnectionTrait, DatabaseConnection, EntityTrait, Set, TransactionTrait,
};
use uuid::Uuid;

use crate::entities::{business_accounts, team_members};
use crate::error::AppResult;

/// A team member as shown to the team.
#[derive(Debug, Clone)]
pub struct Member {
    pub user_id: Uuid,
    pub phone_number: String,
    pub role: Role,
    pub added_at: DateTime<Utc>,
}

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
    pub mode: BusinessMode,
    pub status: BusinessStatus,
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
        status: Set(new.status),
        mode: Set(new.mode),
        created_at: Set(now),
        updated_at: Set(now),
    }
    .insert(&txn)
    .await?;
    team_members::ActiveModel {
        user_id: Set(new.owner),
        business_id: Set(new.owner),
        role: Set(Role::Owner),
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

/// The team of a business with each member's phone number, oldest first.
pub async fn team(db: &impl ConnectionTrait, business_id: Uuid) -> AppResult<Vec<Member>> {
    use crate::entities::users;
    use sea_orm::{ColumnTrait, QueryFilter, QueryOrder};
    let members = team_members::Entity::find()
        .filter(team_members::Column::BusinessId.eq(business_id))
        .order_by_asc(team_members::Column::AddedAt)
        .order_by_asc(team_members::Column::UserId)
        .all(db)
        .await?;
    let ids: Vec<Uuid> = members.iter().map(|m| m.user_id).collect();
    let phones: std::collections::HashMap<Uuid, String> = users::Entity::find()
        .filter(users::Column::Id.is_in(ids))
        .all(db)
        .await?
        .into_iter()
        .map(|u| (u.id, u.phone_number))
        .collect();
    Ok(members
        .into_iter()
        .map(|m| Member {
            phone_number: phones.get(&m.user_id).cloned().unwrap_or_default(),
            user_id: m.user_id,
            role: m.role,
            added_at: m.added_at,
        })
        .collect())
}

pub async fn insert_member(
    db: &impl ConnectionTrait,
    business_id: Uuid,
    user_id: Uuid,
    role: Role,
    now: DateTime<Utc>,
) -> Result<team_members::Model, sea_orm::DbErr> {
    team_members::ActiveModel {
        user_id: Set(user_id),
        business_id: Set(business_id),
        role: Set(role),
        added_at: Set(now),
    }
    .insert(db)
    .await
}

/// Changes a member's role; None when they were removed meanwhile.
pub async fn set_role(
    db: &impl ConnectionTrait,
    member: team_members::Model,
    role: Role,
) -> AppResult<Option<team_members::Model>> {
    let mut active: team_members::ActiveModel = member.into();
    active.role = Set(role);
    match active.update(db).await {
        Ok(member) => Ok(Some(member)),
        Err(sea_orm::DbErr::RecordNotUpdated) => Ok(None),
        Err(err) => Err(err.into()),
    }
}

pub async fn remove_member(
    db: &impl ConnectionTrait,
    business_id: Uuid,
    user_id: Uuid,
) -> AppResult<()> {
    use sea_orm::{ColumnTrait, QueryFilter};
    team_members::Entity::delete_many()
        .filter(team_members::Column::BusinessId.eq(business_id))
        .filter(team_members::Column::UserId.eq(user_id))
        .filter(team_members::Column::Role.ne(Role::Owner))
        .exec(db)
        .await?;
    Ok(())
}
