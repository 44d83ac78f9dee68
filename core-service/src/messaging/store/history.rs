//! Reading sent messages back: the history, one message, and the states a due message is
//! checked against.

use proto::vocabulary::{
    BusinessMode, BusinessStatus, Category, FollowStatus, MessageSource, MessageStatus,
};

use super::*;

/// Filters of the history (None: any).
#[derive(Debug, Clone, Default)]
pub struct HistoryFilter {
    pub status: Option<MessageStatus>,
    pub category: Option<Category>,
    pub source: Option<MessageSource>,
}

/// Up to `limit` messages of a business, newest first, older than `after` (a message's
/// `(created_at, id)`) when given.
pub async fn history(
    db: &impl ConnectionTrait,
    business_id: Uuid,
    filter: &HistoryFilter,
    after: Option<(DateTime<Utc>, Uuid)>,
    limit: u64,
) -> AppResult<Vec<messages::Model>> {
    let mut query = messages::Entity::find().filter(messages::Column::BusinessId.eq(business_id));
    if let Some(status) = filter.status {
        query = query.filter(messages::Column::Status.eq(status));
    }
    if let Some(category) = filter.category {
        query = query.filter(messages::Column::Category.eq(category));
    }
    if let Some(source) = filter.source {
        query = query.filter(messages::Column::Source.eq(source));
    }
    if let Some(after) = after {
        query = query.filter(crate::db::older_than(
            messages::Column::CreatedAt,
            messages::Column::Id,
            after,
        ));
    }
    Ok(query
        .order_by_desc(messages::Column::CreatedAt)
        .order_by_desc(messages::Column::Id)
        .limit(limit)
        .all(db)
        .await?)
}

/// Message `id` of `business_id` (None for another business's).
pub async fn find_message(
    db: &impl ConnectionTrait,
    business_id: Uuid,
    id: Uuid,
) -> AppResult<Option<messages::Model>> {
    Ok(messages::Entity::find_by_id(id)
        .filter(messages::Column::BusinessId.eq(business_id))
        .one(db)
        .await?)
}

/// What the checks at a scheduled message's due time read, for many messages at once: each
/// (business, recipient)'s follow as (status, marketing_opt_in), and each business's (status,
/// mode).
pub async fn due_states(
    db: &impl ConnectionTrait,
    pairs: &[(Uuid, Uuid)],
) -> AppResult<(
    HashMap<(Uuid, Uuid), (FollowStatus, bool)>,
    HashMap<Uuid, (BusinessStatus, BusinessMode)>,
)> {
    use crate::entities::{business_accounts, follows};
    if pairs.is_empty() {
        return Ok((HashMap::new(), HashMap::new()));
    }
    let any = crate::db::bulk::pairs_in(
        db.get_database_backend(),
        (follows::Column::BusinessId, follows::Column::UserId),
        (ArrayType::Uuid, ArrayType::Uuid),
        pairs
            .iter()
            .map(|(business, user)| (Value::from(*business), Value::from(*user))),
    );
    let follows = follows::Entity::find()
        .filter(any)
        .all(db)
        .await?
        .into_iter()
        .map(|f| ((f.business_id, f.user_id), (f.status, f.marketing_opt_in)))
        .collect();
    let businesses = business_accounts::Entity::find()
        .filter(crate::db::bulk::uuid_in(
            db.get_database_backend(),
            business_accounts::Column::Id,
            pairs.iter().map(|(b, _)| *b),
        ))
        .all(db)
        .await?
        .into_iter()
        .map(|b| (b.id, (b.status, b.mode)))
        .collect();
    Ok((follows, businesses))
}
