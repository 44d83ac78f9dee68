//! Queries of conversations, user messages, read marks and threads. No rules here.

use chrono::{DateTime, TimeDelta, Utc};
use proto::vocabulary::{
    BusinessMode, BusinessStatus, ConversationStatus, FollowStatus, MessageStatus, UserStatus,
};
use sea_orm::sea_query::{Expr, ExprTrait as _};
use sea_orm::{
    ActiveModelTrait, ColumnTrait, Condition, ConnectionTrait, DbBackend, EntityTrait, QueryFilter,
    QueryOrder, QuerySelect, Set, Statement, Value,
};
use uuid::Uuid;

use crate::entities::{
    business_accounts, conversations, follows, inbound_messages, messages, read_marks, users,
};
use crate::error::AppResult;
use crate::messaging::store::EFFECTIVE_TIME_SQL;

/// A thread position: `at` then `id`. Positions never move.
pub type Position = (DateTime<Utc>, Uuid);

/// Which side a read mark belongs to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Side {
    /// The user's mark, over the business's messages.
    User,
    /// The business's mark, over the user's messages.
    Business,
}

impl Side {
    fn as_str(self) -> &'static str {
        match self {
            Side::User => "by_user",
            Side::Business => "by_business",
        }
    }
}

fn statement(db: &impl ConnectionTrait, sql: &str, values: Vec<Value>) -> Statement {
    Statement::from_sql_and_values(db.get_database_backend(), sql, values)
}

/// The conversation of a pair, locked until the transaction ends on PostgreSQL (SQLite has one
/// writer).
pub async fn pair_for_update(
    db: &impl ConnectionTrait,
    business_id: Uuid,
    user_id: Uuid,
) -> AppResult<Option<conversations::Model>> {
    let mut query = conversations::Entity::find()
        .filter(conversations::Column::BusinessId.eq(business_id))
        .filter(conversations::Column::UserId.eq(user_id));
    if db.get_database_backend() == DbBackend::Postgres {
        query = query.lock_exclusive();
    }
    Ok(query.one(db).await?)
}

/// What deciding whether a user may write to a business reads: the writer's own status (their
/// access token is admitted on it), and the business's side.
#[derive(Debug, Clone)]
pub struct WriterContext {
    pub user_status: UserStatus,
    /// None: no such business.
    pub business: Option<BusinessSide>,
}

/// The business side of a [`WriterContext`]: its status and mode, whether the writer is on its
/// team, and the status of their follow.
#[derive(Debug, Clone)]
pub struct BusinessSide {
    pub status: BusinessStatus,
    pub mode: BusinessMode,
    pub member: bool,
    pub follow: Option<FollowStatus>,
}

/// The [`WriterContext`]s of (business, user) pairs, in one statement, by pair; a pair whose user
/// does not exist has none.
pub async fn writer_contexts(
    db: &impl ConnectionTrait,
    pairs: &[(Uuid, Uuid)],
) -> AppResult<std::collections::HashMap<(Uuid, Uuid), WriterContext>> {
    if pairs.is_empty() {
        return Ok(Default::default());
    }
    let backend = db.get_database_backend();
    // The pairs as a table `p`: two arrays unnested on PostgreSQL, a VALUES list on SQLite.
    let (source, values): (String, Vec<Value>) = if backend == DbBackend::Postgres {
        (
            "SELECT * FROM unnest($1::uuid[], $2::uuid[])".into(),
            vec![
                crate::db::bulk::uuid_array(pairs.iter().map(|p| p.0)),
                crate::db::bulk::uuid_array(pairs.iter().map(|p| p.1)),
            ],
        )
    } else {
        let rows: Vec<String> = (0..pairs.len())
            .map(|i| format!("(${}, ${})", 2 * i + 1, 2 * i + 2))
            .collect();
        (
            format!("VALUES {}", rows.join(", ")),
            pairs
                .iter()
                .flat_map(|&(business, user)| [business.into(), user.into()])
                .collect(),
        )
    };
    let sql = format!(
        "WITH p(business_id, user_id) AS ({source}) \
         SELECT p.business_id AS pair_business, u.id AS pair_user, u.status AS user_status, \
         b.status, b.mode, \
         (SELECT t.business_id FROM team_members t WHERE t.user_id = u.id) AS member_of, \
         (SELECT f.status FROM follows f WHERE f.business_id = b.id AND f.user_id = u.id) \
         AS follow_status \
         FROM p JOIN users u ON u.id = p.user_id \
         LEFT JOIN business_accounts b ON b.id = p.business_id"
    );
    let rows = db.query_all_raw(statement(db, &sql, values)).await?;
    let mut contexts = std::collections::HashMap::with_capacity(rows.len());
    for row in rows {
        let pair: (Uuid, Uuid) = (
            row.try_get("", "pair_business")?,
            row.try_get("", "pair_user")?,
        );
        let business = match row.try_get::<Option<BusinessStatus>>("", "status")? {
            None => None,
            Some(status) => Some(BusinessSide {
                status,
                mode: row.try_get("", "mode")?,
                member: row.try_get::<Option<Uuid>>("", "member_of")? == Some(pair.0),
                follow: row.try_get("", "follow_status")?,
            }),
        };
        contexts.insert(
            pair,
            WriterContext {
                user_status: row.try_get("", "user_status")?,
                business,
            },
        );
    }
    Ok(contexts)
}

/// The conversations of these pairs (those that exist), locked in id order until the
/// transaction ends on PostgreSQL (SQLite has one writer), by pair.
pub async fn pairs_for_update(
    db: &impl ConnectionTrait,
    pairs: impl IntoIterator<Item = (Uuid, Uuid)>,
) -> AppResult<std::collections::HashMap<(Uuid, Uuid), conversations::Model>> {
    let pairs: Vec<(Value, Value)> = pairs
        .into_iter()
        .map(|(business, user)| (business.into(), user.into()))
        .collect();
    if pairs.is_empty() {
        return Ok(Default::default());
    }
    let backend = db.get_database_backend();
    let mut query = conversations::Entity::find()
        .filter(crate::db::bulk::pairs_in(
            backend,
            (
                conversations::Column::BusinessId,
                conversations::Column::UserId,
            ),
            (
                sea_orm::sea_query::ArrayType::Uuid,
                sea_orm::sea_query::ArrayType::Uuid,
            ),
            pairs,
        ))
        .order_by_asc(conversations::Column::Id);
    if backend == DbBackend::Postgres {
        query = query.lock_exclusive();
    }
    Ok(query
        .all(db)
        .await?
        .into_iter()
        .map(|c| ((c.business_id, c.user_id), c))
        .collect())
}

/// Inserts pairs' first conversation rows, skipping those a concurrent first message inserted
/// (which waits for that one's transaction on PostgreSQL).
pub async fn insert_new_many(
    db: &impl ConnectionTrait,
    rows: &[conversations::Model],
) -> AppResult<()> {
    crate::db::bulk::insert_all(
        db,
        rows.iter()
            .map(|row| conversations::ActiveModel::from(row.clone()))
            .collect(),
        &[
            conversations::Column::BusinessId,
            conversations::Column::UserId,
        ],
    )
    .await?;
    Ok(())
}

/// A user message's share of its conversation row: the count, the activity (reopened).
#[derive(Debug, Clone)]
pub struct Received {
    pub id: Uuid,
    pub inbound_count: i32,
    pub last_inbound_at: DateTime<Utc>,
    pub last_message_at: DateTime<Utc>,
}

/// Moves each conversation by its user message, with one statement on PostgreSQL.
pub async fn received_many(db: &impl ConnectionTrait, moves: &[Received]) -> AppResult<()> {
    if db.get_database_backend() != DbBackend::Postgres || moves.len() == 1 {
        for moved in moves {
            conversations::Entity::update_many()
                .col_expr(
                    conversations::Column::InboundCount,
                    Expr::value(moved.inbound_count),
                )
                .col_expr(
                    conversations::Column::Status,
                    Expr::value(ConversationStatus::Open),
                )
                .col_expr(
                    conversations::Column::LastInboundAt,
                    Expr::value(moved.last_inbound_at),
                )
                .col_expr(
                    conversations::Column::LastMessageAt,
                    Expr::value(moved.last_message_at),
                )
                .filter(conversations::Column::Id.eq(moved.id))
                .exec(db)
                .await?;
        }
        return Ok(());
    }
    use sea_orm::sea_query::ArrayType;
    let array = |ty: ArrayType, values: Vec<Value>| Value::Array(ty, Some(Box::new(values)));
    db.execute_raw(statement(
        db,
        "UPDATE conversations AS c SET inbound_count = v.n, status = $5, \
         last_inbound_at = v.inbound_at, last_message_at = v.message_at \
         FROM unnest($1::uuid[], $2::int4[], $3::timestamptz[], $4::timestamptz[]) \
         AS v(id, n, inbound_at, message_at) WHERE c.id = v.id",
        vec![
            array(ArrayType::Uuid, moves.iter().map(|m| m.id.into()).collect()),
            array(
                ArrayType::Int,
                moves.iter().map(|m| m.inbound_count.into()).collect(),
            ),
            array(
                ArrayType::ChronoDateTimeUtc,
                moves.iter().map(|m| m.last_inbound_at.into()).collect(),
            ),
            array(
                ArrayType::ChronoDateTimeUtc,
                moves.iter().map(|m| m.last_message_at.into()).collect(),
            ),
            ConversationStatus::Open.as_str().into(),
        ],
    ))
    .await?;
    Ok(())
}

/// Inserts user messages with one statement.
pub async fn insert_inbound_many<'a>(
    db: &impl ConnectionTrait,
    messages: impl Iterator<Item = &'a inbound_messages::Model>,
) -> AppResult<()> {
    crate::db::bulk::insert_all(
        db,
        messages
            .map(|m| inbound_messages::ActiveModel::from(m.clone()))
            .collect(),
        &[],
    )
    .await?;
    Ok(())
}

/// The conversation of a pair, if the user ever wrote.
pub async fn pair(
    db: &impl ConnectionTrait,
    business_id: Uuid,
    user_id: Uuid,
) -> AppResult<Option<conversations::Model>> {
    Ok(conversations::Entity::find()
        .filter(conversations::Column::BusinessId.eq(business_id))
        .filter(conversations::Column::UserId.eq(user_id))
        .one(db)
        .await?)
}

/// The time of a user message received at `now` after one received at `last`: never before
/// it, so receipt order is `sequence` order.
pub fn receipt_time(now: DateTime<Utc>, last: Option<DateTime<Utc>>) -> DateTime<Utc> {
    match last {
        Some(last) if last >= now => last + TimeDelta::microseconds(1),
        _ => now,
    }
}

/// The user messages that these (user, client message id) pairs name, by pair.
pub async fn by_client_ids(
    db: &impl ConnectionTrait,
    pairs: &[(Uuid, Uuid)],
) -> AppResult<std::collections::HashMap<(Uuid, Uuid), inbound_messages::Model>> {
    if pairs.is_empty() {
        return Ok(Default::default());
    }
    Ok(inbound_messages::Entity::find()
        .filter(crate::db::bulk::pairs_in(
            db.get_database_backend(),
            (
                inbound_messages::Column::UserId,
                inbound_messages::Column::ClientMessageId,
            ),
            (
                sea_orm::sea_query::ArrayType::Uuid,
                sea_orm::sea_query::ArrayType::Uuid,
            ),
            pairs.iter().map(|&(user, id)| (user.into(), id.into())),
        ))
        .all(db)
        .await?
        .into_iter()
        .filter_map(|m| Some(((m.user_id, m.client_message_id?), m)))
        .collect())
}

/// PostgreSQL: takes the transaction-scoped advisory locks of these (user, client message id)
/// pairs without waiting, in one statement; the pairs whose lock another transaction holds
/// (that message is being written). None on SQLite, which has one writer.
pub async fn try_lock_client_ids(
    db: &impl ConnectionTrait,
    pairs: &[(Uuid, Uuid)],
) -> AppResult<std::collections::HashSet<(Uuid, Uuid)>> {
    if pairs.is_empty() || db.get_database_backend() != DbBackend::Postgres {
        return Ok(Default::default());
    }
    let keys: Vec<Value> = pairs
        .iter()
        .map(|(user, id)| format!("inbound:{user}:{id}").into())
        .collect();
    let rows = db
        .query_all_raw(statement(
            db,
            "SELECT k.n FROM unnest($1::text[]) WITH ORDINALITY AS k(key, n) \
             WHERE NOT pg_try_advisory_xact_lock(hashtextextended(k.key, 0))",
            vec![Value::Array(
                sea_orm::sea_query::ArrayType::String,
                Some(Box::new(keys)),
            )],
        ))
        .await?;
    let mut held = std::collections::HashSet::new();
    for row in rows {
        let n: i64 = row.try_get("", "n")?;
        if let Some(pair) = usize::try_from(n - 1).ok().and_then(|i| pairs.get(i)) {
            held.insert(*pair);
        }
    }
    Ok(held)
}

/// Conversation `id` of `business_id`.
pub async fn find(
    db: &impl ConnectionTrait,
    business_id: Uuid,
    id: Uuid,
) -> AppResult<Option<conversations::Model>> {
    Ok(conversations::Entity::find_by_id(id)
        .filter(conversations::Column::BusinessId.eq(business_id))
        .one(db)
        .await?)
}

/// Filters of the conversation list (None: any).
#[derive(Debug, Clone, Default)]
pub struct ListFilter {
    pub status: Option<ConversationStatus>,
    /// Some(true): the window is open (the user's last message after this time).
    pub window_open: Option<(bool, DateTime<Utc>)>,
    pub unread: Option<bool>,
    /// Some(None): unassigned.
    pub assigned_to: Option<Option<Uuid>>,
}

/// Up to `limit` conversations of a business, newest activity first, after `after` (a
/// conversation's `(last_message_at, id)`).
pub async fn list(
    db: &impl ConnectionTrait,
    business_id: Uuid,
    filter: &ListFilter,
    after: Option<Position>,
    limit: u64,
) -> AppResult<Vec<conversations::Model>> {
    let mut query =
        conversations::Entity::find().filter(conversations::Column::BusinessId.eq(business_id));
    if let Some(status) = filter.status {
        query = query.filter(conversations::Column::Status.eq(status));
    }
    if let Some((open, since)) = filter.window_open {
        query = if open {
            // Activity is never older than the last user message: the bound keeps the read
            // to the range of recent activity.
            query
                .filter(conversations::Column::LastInboundAt.gt(since))
                .filter(conversations::Column::LastMessageAt.gt(since))
        } else {
            query.filter(conversations::Column::LastInboundAt.lte(since))
        };
    }
    if let Some(unread) = filter.unread {
        // Spelled as the partial index spells it.
        query = query.filter(if unread {
            Expr::cust("inbound_count > business_read_seq")
        } else {
            Expr::cust("inbound_count <= business_read_seq")
        });
    }
    if let Some(assignee) = filter.assigned_to {
        query = query.filter(match assignee {
            Some(user) => conversations::Column::AssignedTo.eq(user),
            None => conversations::Column::AssignedTo.is_null(),
        });
    }
    if let Some(after) = after {
        query = query.filter(crate::db::older_than(
            conversations::Column::LastMessageAt,
            conversations::Column::Id,
            after,
        ));
    }
    Ok(query
        .order_by_desc(conversations::Column::LastMessageAt)
        .order_by_desc(conversations::Column::Id)
        .limit(limit)
        .all(db)
        .await?)
}

/// What a business sees of its conversations' users: display names and follows, by user.
pub struct People {
    pub names: std::collections::HashMap<Uuid, Option<String>>,
    pub follows: std::collections::HashMap<Uuid, follows::Model>,
}

pub async fn people(
    db: &impl ConnectionTrait,
    business_id: Uuid,
    users_of: &[Uuid],
) -> AppResult<People> {
    let backend = db.get_database_backend();
    let names = users::Entity::find()
        .select_only()
        .column(users::Column::Id)
        .column(users::Column::DisplayName)
        .filter(crate::db::bulk::uuid_in(
            backend,
            users::Column::Id,
            users_of.iter().copied(),
        ))
        .into_tuple::<(Uuid, Option<String>)>()
        .all(db)
        .await?
        .into_iter()
        .collect();
    let follows = follows::Entity::find()
        .filter(follows::Column::BusinessId.eq(business_id))
        .filter(crate::db::bulk::uuid_in(
            backend,
            follows::Column::UserId,
            users_of.iter().copied(),
        ))
        .all(db)
        .await?
        .into_iter()
        .map(|f| (f.user_id, f))
        .collect();
    Ok(People { names, follows })
}

/// Updates what a team may change of a conversation (status, label, assignee, block);
/// returns it as it is after.
pub async fn save(
    db: &impl ConnectionTrait,
    conversation: conversations::Model,
) -> AppResult<conversations::Model> {
    let row = conversations::ActiveModel {
        id: sea_orm::ActiveValue::Unchanged(conversation.id),
        status: Set(conversation.status),
        label: Set(conversation.label.clone()),
        assigned_to: Set(conversation.assigned_to),
        blocked: Set(conversation.blocked),
        ..Default::default()
    };
    row.update(db).await?;
    Ok(conversation)
}

/// Clears a removed team member's assignments.
pub async fn unassign(
    db: &impl ConnectionTrait,
    business_id: Uuid,
    user_id: Uuid,
) -> AppResult<()> {
    conversations::Entity::update_many()
        .col_expr(conversations::Column::AssignedTo, Expr::value(None::<Uuid>))
        .filter(conversations::Column::BusinessId.eq(business_id))
        .filter(conversations::Column::AssignedTo.eq(user_id))
        .exec(db)
        .await?;
    Ok(())
}

/// Moves the business's mark to user message `sequence` when it is further; returns the
/// conversation's user message count when it moved (None: it was there already).
pub async fn advance_business_mark(
    db: &impl ConnectionTrait,
    id: Uuid,
    sequence: i32,
) -> AppResult<Option<i32>> {
    let moved = conversations::Entity::update_many()
        .col_expr(
            conversations::Column::BusinessReadSeq,
            Expr::value(sequence),
        )
        .filter(conversations::Column::Id.eq(id))
        .filter(conversations::Column::BusinessReadSeq.lt(sequence))
        .exec_with_returning(db)
        .await?;
    Ok(moved.into_iter().next().map(|c| c.inbound_count))
}

/// A user message of the pair.
pub async fn inbound(
    db: &impl ConnectionTrait,
    business_id: Uuid,
    user_id: Uuid,
    id: Uuid,
) -> AppResult<Option<inbound_messages::Model>> {
    Ok(inbound_messages::Entity::find_by_id(id)
        .filter(inbound_messages::Column::BusinessId.eq(business_id))
        .filter(inbound_messages::Column::UserId.eq(user_id))
        .one(db)
        .await?)
}

/// A business message to the user.
pub async fn outbound(
    db: &impl ConnectionTrait,
    business_id: Uuid,
    user_id: Uuid,
    id: Uuid,
) -> AppResult<Option<messages::Model>> {
    Ok(messages::Entity::find_by_id(id)
        .filter(messages::Column::BusinessId.eq(business_id))
        .filter(messages::Column::RecipientUserId.eq(user_id))
        .one(db)
        .await?)
}

/// A business message's position: its effective time, then its id.
pub fn outbound_position(message: &messages::Model) -> Position {
    let at = match message.send_at {
        Some(send_at) if send_at > message.created_at => send_at,
        _ => message.created_at,
    };
    (at, message.id)
}

/// Up to `limit` user messages of a conversation, newest first, before `before`.
pub async fn inbound_page(
    db: &impl ConnectionTrait,
    conversation_id: Uuid,
    before: Option<Position>,
    limit: u64,
) -> AppResult<Vec<inbound_messages::Model>> {
    let mut query = inbound_messages::Entity::find()
        .filter(inbound_messages::Column::ConversationId.eq(conversation_id));
    if let Some(before) = before {
        query = query.filter(crate::db::older_than(
            inbound_messages::Column::ReceivedAt,
            inbound_messages::Column::Id,
            before,
        ));
    }
    Ok(query
        .order_by_desc(inbound_messages::Column::ReceivedAt)
        .order_by_desc(inbound_messages::Column::Id)
        .limit(limit)
        .all(db)
        .await?)
}

/// Up to `limit` messages of a business to a user, newest position first, before `before`;
/// only delivered ones when `delivered_only` (what the user sees).
pub async fn outbound_page(
    db: &impl ConnectionTrait,
    business_id: Uuid,
    user_id: Uuid,
    before: Option<Position>,
    delivered_only: bool,
    limit: u64,
) -> AppResult<Vec<messages::Model>> {
    let effective = || Expr::cust(EFFECTIVE_TIME_SQL);
    let mut query = messages::Entity::find()
        .filter(messages::Column::BusinessId.eq(business_id))
        .filter(messages::Column::RecipientUserId.eq(user_id));
    if delivered_only {
        query = query.filter(messages::Column::Status.eq(MessageStatus::Delivered));
    }
    if let Some((at, id)) = before {
        query = query.filter(
            Expr::tuple([effective(), messages::Column::Id.into_expr()])
                .lt(Expr::tuple([Expr::value(at), Expr::value(id)])),
        );
    }
    Ok(query
        .order_by_desc(effective())
        .order_by_desc(messages::Column::Id)
        .limit(limit)
        .all(db)
        .await?)
}

/// How many delivered business messages to the user lie after `after` (all of them without
/// one) and at or before `up_to` (no bound without one).
pub async fn delivered_between(
    db: &impl ConnectionTrait,
    business_id: Uuid,
    user_id: Uuid,
    after: Option<Position>,
    up_to: Option<Position>,
) -> AppResult<u64> {
    let effective = || Expr::cust(EFFECTIVE_TIME_SQL);
    let mut query = messages::Entity::find()
        .filter(messages::Column::BusinessId.eq(business_id))
        .filter(messages::Column::RecipientUserId.eq(user_id))
        .filter(messages::Column::Status.eq(MessageStatus::Delivered));
    if let Some((at, id)) = after {
        query = query.filter(
            Expr::tuple([effective(), messages::Column::Id.into_expr()])
                .gt(Expr::tuple([Expr::value(at), Expr::value(id)])),
        );
    }
    if let Some((at, id)) = up_to {
        query = query.filter(
            Expr::tuple([effective(), messages::Column::Id.into_expr()])
                .lte(Expr::tuple([Expr::value(at), Expr::value(id)])),
        );
    }
    use sea_orm::PaginatorTrait as _;
    Ok(query.count(db).await?)
}

/// A side's current mark of a pair: its newest advance.
pub async fn mark(
    db: &impl ConnectionTrait,
    business_id: Uuid,
    user_id: Uuid,
    side: Side,
) -> AppResult<Option<read_marks::Model>> {
    Ok(read_marks::Entity::find()
        .filter(read_marks::Column::BusinessId.eq(business_id))
        .filter(read_marks::Column::UserId.eq(user_id))
        .filter(read_marks::Column::Side.eq(side.as_str()))
        .order_by_desc(read_marks::Column::UpToAt)
        .order_by_desc(read_marks::Column::UpToId)
        .one(db)
        .await?)
}

/// Records an advance of a side's mark.
pub async fn record_mark(
    db: &impl ConnectionTrait,
    business_id: Uuid,
    user_id: Uuid,
    side: Side,
    (up_to_at, up_to_id): Position,
    read_at: DateTime<Utc>,
    receipts: bool,
) -> AppResult<()> {
    read_marks::ActiveModel {
        business_id: Set(business_id),
        user_id: Set(user_id),
        side: Set(side.as_str().to_string()),
        up_to_at: Set(up_to_at),
        up_to_id: Set(up_to_id),
        read_at: Set(read_at),
        receipts: Set(receipts),
    }
    .insert(db)
    .await?;
    Ok(())
}

/// A side's advances at or after `from` (all without it), oldest first: what covered each
/// message of a page.
pub async fn advances_from(
    db: &impl ConnectionTrait,
    business_id: Uuid,
    user_id: Uuid,
    side: Side,
    from: Option<Position>,
) -> AppResult<Vec<read_marks::Model>> {
    let mut query = read_marks::Entity::find()
        .filter(read_marks::Column::BusinessId.eq(business_id))
        .filter(read_marks::Column::UserId.eq(user_id))
        .filter(read_marks::Column::Side.eq(side.as_str()));
    if let Some((at, id)) = from {
        query = query.filter(
            Condition::all().add(
                Expr::tuple([
                    read_marks::Column::UpToAt.into_expr(),
                    read_marks::Column::UpToId.into_expr(),
                ])
                .gte(Expr::tuple([Expr::value(at), Expr::value(id)])),
            ),
        );
    }
    Ok(query
        .order_by_asc(read_marks::Column::UpToAt)
        .order_by_asc(read_marks::Column::UpToId)
        .all(db)
        .await?)
}

/// The user's view of one business they have a thread with.
#[derive(Debug, Clone)]
pub struct UserThread {
    pub business_id: Uuid,
    pub business_name: String,
    pub last_message_at: DateTime<Utc>,
    pub unread: i64,
    pub last_inbound_at: Option<DateTime<Utc>>,
}

/// Every business `user_id` has a thread with (a message delivered to the user, or one the
/// user wrote), with the newest position of each and the business's delivered messages after
/// the user's mark. Computed on read from the user's inbox and conversations.
pub async fn user_threads(db: &impl ConnectionTrait, user_id: Uuid) -> AppResult<Vec<UserThread>> {
    let sql = format!(
        "SELECT i.business_id AS business_id, \
         MAX({eff}) AS last_at, \
         CAST(SUM(CASE WHEN r.up_to_at IS NULL OR ({eff}) > r.up_to_at \
           OR (({eff}) = r.up_to_at AND m.id > r.up_to_id) THEN 1 ELSE 0 END) AS BIGINT) AS unread \
         FROM inbox_messages i JOIN messages m ON m.id = i.message_id \
         LEFT JOIN read_marks r ON r.business_id = i.business_id AND r.user_id = $1 \
           AND r.side = 'by_user' AND NOT EXISTS (SELECT 1 FROM read_marks n \
             WHERE n.business_id = r.business_id AND n.user_id = r.user_id \
             AND n.side = 'by_user' AND (n.up_to_at, n.up_to_id) > (r.up_to_at, r.up_to_id)) \
         WHERE i.user_id = $1 GROUP BY i.business_id",
        eff = "CASE WHEN m.send_at > m.created_at THEN m.send_at ELSE m.created_at END",
    );
    let rows = db
        .query_all_raw(statement(db, &sql, vec![user_id.into()]))
        .await?;
    let mut threads: std::collections::HashMap<Uuid, UserThread> = Default::default();
    for row in rows {
        let business_id: Uuid = row.try_get("", "business_id")?;
        threads.insert(
            business_id,
            UserThread {
                business_id,
                business_name: String::new(),
                last_message_at: row.try_get("", "last_at")?,
                unread: row.try_get("", "unread")?,
                last_inbound_at: None,
            },
        );
    }
    let conversations = conversations::Entity::find()
        .filter(conversations::Column::UserId.eq(user_id))
        .all(db)
        .await?;
    for c in conversations {
        let thread = threads.entry(c.business_id).or_insert(UserThread {
            business_id: c.business_id,
            business_name: String::new(),
            last_message_at: c.last_inbound_at,
            unread: 0,
            last_inbound_at: None,
        });
        thread.last_message_at = Ord::max(thread.last_message_at, c.last_inbound_at);
        thread.last_inbound_at = Some(c.last_inbound_at);
    }
    let names: std::collections::HashMap<Uuid, String> = business_accounts::Entity::find()
        .select_only()
        .column(business_accounts::Column::Id)
        .column(business_accounts::Column::BusinessName)
        .filter(crate::db::bulk::uuid_in(
            db.get_database_backend(),
            business_accounts::Column::Id,
            threads.keys().copied(),
        ))
        .into_tuple::<(Uuid, String)>()
        .all(db)
        .await?
        .into_iter()
        .collect();
    let mut threads: Vec<UserThread> = threads
        .into_values()
        .map(|mut t| {
            t.business_name = names.get(&t.business_id).cloned().unwrap_or_default();
            t
        })
        .collect();
    threads.sort_by(|a, b| {
        (b.last_message_at, b.business_id).cmp(&(a.last_message_at, a.business_id))
    });
    Ok(threads)
}

/// A user's `read_receipts` and `display_name`.
pub async fn user(db: &impl ConnectionTrait, user_id: Uuid) -> AppResult<Option<users::Model>> {
    Ok(users::Entity::find_by_id(user_id).one(db).await?)
}
