//! Queries for follows. No rules here.

use sea_orm::sea_query::OnConflict;
use sea_orm::{ConnectionTrait, EntityTrait, Set};
use uuid::Uuid;

use crate::entities::follows;
use crate::error::AppResult;

pub async fn follow(
    db: &impl ConnectionTrait,
    business_id: Uuid,
    user_id: Uuid,
) -> AppResult<Option<follows::Model>> {
    Ok(follows::Entity::find_by_id((business_id, user_id))
        .one(db)
        .await?)
}

/// Writes the follow whole (insert or replace).
pub async fn save(db: &impl ConnectionTrait, follow: follows::Model) -> AppResult<follows::Model> {
    let row = follows::ActiveModel {
        business_id: Set(follow.business_id),
        user_id: Set(follow.user_id),
        status: Set(follow.status.clone()),
        marketing_opt_in: Set(follow.marketing_opt_in),
        followed_at: Set(follow.followed_at),
        updated_at: Set(follow.updated_at),
    };
    follows::Entity::insert(row)
        .on_conflict(
            OnConflict::columns([follows::Column::BusinessId, follows::Column::UserId])
                .update_columns([
                    follows::Column::Status,
                    follows::Column::MarketingOptIn,
                    follows::Column::FollowedAt,
                    follows::Column::UpdatedAt,
                ])
                .to_owned(),
        )
        .exec_without_returning(db)
        .await?;
    Ok(follow)
}
