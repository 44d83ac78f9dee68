//! Queries for follows and their consent ledger. No rules here.

use chrono::{DateTime, Utc};
use proto::vocabulary::{ChangeSource, FollowStatus};
use sea_orm::sea_query::OnConflict;
use sea_orm::{
    ColumnTrait, Condition, ConnectionTrait, DbBackend, EntityTrait, QueryFilter, QueryOrder,
    QuerySelect, Set,
};
use uuid::Uuid;

use crate::entities::{consent_texts, follow_changes, follows, messages, users};
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

/// The whole row of a follow.
fn row(follow: &follows::Model) -> follows::ActiveModel {
    follows::ActiveModel {
        business_id: Set(follow.business_id),
        user_id: Set(follow.user_id),
        status: Set(follow.status),
        marketing_opt_in: Set(follow.marketing_opt_in),
        followed_at: Set(follow.followed_at),
        updated_at: Set(follow.updated_at),
    }
}

/// The follow, locked until the transaction ends (PostgreSQL; SQLite has one writer), so two
/// concurrent changes of one follow are one after the other.
pub async fn follow_for_update(
    db: &impl ConnectionTrait,
    business_id: Uuid,
    user_id: Uuid,
) -> AppResult<Option<follows::Model>> {
    let mut query = follows::Entity::find_by_id((business_id, user_id));
    if db.get_database_backend() == DbBackend::Postgres {
        query = query.lock_exclusive();
    }
    Ok(query.one(db).await?)
}

/// Inserts a first follow unless one exists; returns whether it inserted (a concurrent first
/// follow of the same pair inserts once).
pub async fn insert_new(db: &impl ConnectionTrait, follow: &follows::Model) -> AppResult<bool> {
    let inserted = follows::Entity::insert(row(follow))
        .on_conflict(
            OnConflict::columns([follows::Column::BusinessId, follows::Column::UserId])
                .do_nothing()
                .to_owned(),
        )
        .exec_without_returning(db)
        .await;
    match inserted {
        Ok(rows) => Ok(rows > 0),
        Err(sea_orm::DbErr::RecordNotInserted) => Ok(false),
        Err(err) => Err(err.into()),
    }
}

/// Inserts follows that do not exist yet (the caller knows they do not), with one statement.
pub async fn insert_many(db: &impl ConnectionTrait, follows: &[follows::Model]) -> AppResult<()> {
    if follows.is_empty() {
        return Ok(());
    }
    follows::Entity::insert_many(follows.iter().map(row))
        .exec_without_returning(db)
        .await?;
    Ok(())
}

/// A change of a follow for the consent ledger.
pub struct Change<'a> {
    pub follow: &'a follows::Model,
    pub at: DateTime<Utc>,
    pub source: ChangeSource,
    /// On a marketing opt-in: the consent wording version in force, and whether the user's
    /// call named it.
    pub consent_text_version: Option<i32>,
    pub user_named_version: bool,
}

/// Appends many changes to the consent ledger, with one statement.
pub async fn log_changes(db: &impl ConnectionTrait, changes: &[Change<'_>]) -> AppResult<()> {
    if changes.is_empty() {
        return Ok(());
    }
    let rows = changes.iter().map(|change| follow_changes::ActiveModel {
        business_id: Set(change.follow.business_id),
        user_id: Set(change.follow.user_id),
        at: Set(change.at),
        status: Set(change.follow.status),
        marketing_opt_in: Set(change.follow.marketing_opt_in),
        source: Set(change.source),
        consent_text_version: Set(change.consent_text_version),
        user_named_version: Set(change.user_named_version),
        ..Default::default()
    });
    follow_changes::Entity::insert_many(rows)
        .exec_without_returning(db)
        .await?;
    Ok(())
}

/// The consent ledger of one follow, oldest first.
pub async fn changes(
    db: &impl ConnectionTrait,
    business_id: Uuid,
    user_id: Uuid,
) -> AppResult<Vec<follow_changes::Model>> {
    Ok(follow_changes::Entity::find()
        .filter(follow_changes::Column::BusinessId.eq(business_id))
        .filter(follow_changes::Column::UserId.eq(user_id))
        .order_by_asc(follow_changes::Column::Id)
        .all(db)
        .await?)
}

/// Filters of the followers list.
#[derive(Debug, Clone, Default)]
pub struct FollowerFilter {
    pub status: Option<FollowStatus>,
    pub marketing_opt_in: Option<bool>,
}

/// A page of a business's follows, newest follow first (`followed_at`, then `user_id`, both
/// descending), after the follow `after` when given.
pub async fn followers_page(
    db: &impl ConnectionTrait,
    business_id: Uuid,
    filter: &FollowerFilter,
    after: Option<(Option<DateTime<Utc>>, Uuid)>,
    limit: u64,
) -> AppResult<Vec<follows::Model>> {
    let mut query = follows::Entity::find().filter(follows::Column::BusinessId.eq(business_id));
    if let Some(status) = filter.status {
        query = query.filter(follows::Column::Status.eq(status));
    }
    if let Some(opt_in) = filter.marketing_opt_in {
        query = query.filter(follows::Column::MarketingOptIn.eq(opt_in));
    }
    if let Some((followed_at, user_id)) = after {
        query = query.filter(match followed_at {
            Some(at) => crate::db::older_than(
                follows::Column::FollowedAt,
                follows::Column::UserId,
                (at, user_id),
            ),
            None => Condition::all().add(follows::Column::UserId.lt(user_id)),
        });
    }
    Ok(query
        .order_by_desc(follows::Column::FollowedAt)
        .order_by_desc(follows::Column::UserId)
        .limit(limit)
        .all(db)
        .await?)
}

/// The users with these phone numbers and their follow of `business_id`, if any.
pub async fn by_phones(
    db: &impl ConnectionTrait,
    business_id: Uuid,
    phones: &[String],
) -> AppResult<Vec<(users::Model, Option<follows::Model>)>> {
    if phones.is_empty() {
        return Ok(Vec::new());
    }
    let found = users::Entity::find()
        .filter(users::Column::PhoneNumber.is_in(phones.iter().cloned()))
        .all(db)
        .await?;
    let follows = follows::Entity::find()
        .filter(follows::Column::BusinessId.eq(business_id))
        .filter(follows::Column::UserId.is_in(found.iter().map(|u| u.id)))
        .all(db)
        .await?;
    Ok(found
        .into_iter()
        .map(|user| {
            let follow = follows.iter().find(|f| f.user_id == user.id).cloned();
            (user, follow)
        })
        .collect())
}

/// Writes the follow whole (insert or replace).
pub async fn save(db: &impl ConnectionTrait, follow: follows::Model) -> AppResult<follows::Model> {
    follows::Entity::insert(row(&follow))
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

/// The consent wording in force for a business: its highest version, if it set any.
pub async fn consent_text(
    db: &impl ConnectionTrait,
    business_id: Uuid,
) -> AppResult<Option<consent_texts::Model>> {
    Ok(consent_texts::Entity::find()
        .filter(consent_texts::Column::BusinessId.eq(business_id))
        .order_by_desc(consent_texts::Column::Version)
        .one(db)
        .await?)
}

/// These versions of a business's consent wording (those that exist).
pub async fn consent_text_versions(
    db: &impl ConnectionTrait,
    business_id: Uuid,
    versions: Vec<i32>,
) -> AppResult<Vec<consent_texts::Model>> {
    if versions.is_empty() {
        return Ok(Vec::new());
    }
    Ok(consent_texts::Entity::find()
        .filter(consent_texts::Column::BusinessId.eq(business_id))
        .filter(consent_texts::Column::Version.is_in(versions))
        .all(db)
        .await?)
}

/// Adds a version of a business's consent wording unless that version exists; returns whether
/// it inserted (two concurrent changes both picking the next number insert once).
pub async fn insert_consent_text(
    db: &impl ConnectionTrait,
    text: &consent_texts::Model,
) -> AppResult<bool> {
    let row = consent_texts::ActiveModel {
        business_id: Set(text.business_id),
        version: Set(text.version),
        text: Set(text.text.clone()),
        created_at: Set(text.created_at),
        created_by: Set(text.created_by),
    };
    let inserted = consent_texts::Entity::insert(row)
        .on_conflict(
            OnConflict::columns([
                consent_texts::Column::BusinessId,
                consent_texts::Column::Version,
            ])
            .do_nothing()
            .to_owned(),
        )
        .exec_without_returning(db)
        .await;
    match inserted {
        Ok(rows) => Ok(rows > 0),
        Err(sea_orm::DbErr::RecordNotInserted) => Ok(false),
        Err(err) => Err(err.into()),
    }
}

/// The marketing messages a business sent one user that are still kept, newest first, at most
/// `limit` (read through the thread index: business, recipient, time).
pub async fn marketing_messages(
    db: &impl ConnectionTrait,
    business_id: Uuid,
    user_id: Uuid,
    limit: u64,
) -> AppResult<Vec<messages::Model>> {
    Ok(messages::Entity::find()
        .filter(messages::Column::BusinessId.eq(business_id))
        .filter(messages::Column::RecipientUserId.eq(user_id))
        .filter(messages::Column::Category.eq(proto::vocabulary::Category::Marketing))
        .order_by_desc(messages::Column::CreatedAt)
        .order_by_desc(messages::Column::Id)
        .limit(limit)
        .all(db)
        .await?)
}
