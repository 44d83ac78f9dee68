//! Queries for developer apps. Every query that reads an app for a console takes the business.

use sea_orm::{
    ActiveModelTrait, ColumnTrait, ConnectionTrait, EntityTrait, QueryFilter, QueryOrder,
};
use uuid::Uuid;

use crate::entities::developer_apps;
use crate::error::AppResult;

pub async fn list(
    db: &impl ConnectionTrait,
    business_id: Uuid,
) -> AppResult<Vec<developer_apps::Model>> {
    Ok(developer_apps::Entity::find()
        .filter(developer_apps::Column::BusinessId.eq(business_id))
        .order_by_asc(developer_apps::Column::CreatedAt)
        .order_by_asc(developer_apps::Column::Id)
        .all(db)
        .await?)
}

/// The app `id` of whichever business (an operator's look-up).
pub async fn by_id(
    db: &impl ConnectionTrait,
    id: Uuid,
) -> AppResult<Option<developer_apps::Model>> {
    Ok(developer_apps::Entity::find_by_id(id).one(db).await?)
}

/// The app `id` of `business_id` (None for another business's app).
pub async fn find(
    db: &impl ConnectionTrait,
    business_id: Uuid,
    id: Uuid,
) -> AppResult<Option<developer_apps::Model>> {
    Ok(developer_apps::Entity::find_by_id(id)
        .filter(developer_apps::Column::BusinessId.eq(business_id))
        .one(db)
        .await?)
}

pub async fn insert(
    db: &impl ConnectionTrait,
    app: developer_apps::ActiveModel,
) -> AppResult<developer_apps::Model> {
    Ok(app.insert(db).await?)
}

/// Saves a changed app; None when it was deleted meanwhile.
pub async fn update(
    db: &impl ConnectionTrait,
    app: developer_apps::ActiveModel,
) -> AppResult<Option<developer_apps::Model>> {
    match app.update(db).await {
        Ok(app) => Ok(Some(app)),
        Err(sea_orm::DbErr::RecordNotUpdated) => Ok(None),
        Err(err) => Err(err.into()),
    }
}

pub async fn delete(db: &impl ConnectionTrait, business_id: Uuid, id: Uuid) -> AppResult<u64> {
    let result = developer_apps::Entity::delete_many()
        .filter(developer_apps::Column::Id.eq(id))
        .filter(developer_apps::Column::BusinessId.eq(business_id))
        .exec(db)
        .await?;
    Ok(result.rows_affected)
}
