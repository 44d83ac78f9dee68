//! The history: a business's messages, newest first, and one message.

use proto::ErrorCode;
use proto::vocabulary::{Category, MessageSource, MessageStatus};
use uuid::Uuid;

use super::store;
use crate::caller::Member;
use crate::entities::messages;
use crate::error::{AppError, AppResult};
use crate::state::Core;

/// A page of the history: filters and where the previous page ended.
#[derive(Debug, Clone, Default)]
pub struct HistoryQuery {
    pub limit: Option<i64>,
    pub starting_after: Option<String>,
    pub status: Option<String>,
    pub category: Option<String>,
    pub source: Option<String>,
}

/// The caller's business's messages, newest first, `limit` at a time after `starting_after`
/// (the id of the previous page's last message), filtered by status, category and source.
/// Returns the page and whether more follow.
///
/// Errors: `unauthorized`, `account_suspended`, `not_a_business_account`, `business_suspended`,
/// `invalid_limit`, `invalid_request` (an unknown filter value, or a cursor that is not a
/// message of this business).
pub async fn history(
    core: &Core,
    console: &Member,
    query: HistoryQuery,
) -> AppResult<(Vec<messages::Model>, bool)> {
    let limit = crate::domain::page_limit(query.limit)?;
    let filter = store::HistoryFilter {
        status: crate::domain::filter("status", query.status.as_deref(), MessageStatus::parse)?,
        category: crate::domain::filter("category", query.category.as_deref(), Category::parse)?,
        source: crate::domain::filter("source", query.source.as_deref(), MessageSource::parse)?,
    };
    let after = match crate::domain::cursor_id(query.starting_after.as_deref(), "a message")? {
        None => None,
        Some(id) => {
            let cursor = store::find_message(&core.db, console.business.id, id)
                .await?
                .ok_or_else(|| crate::domain::bad_cursor("a message"))?;
            Some((cursor.created_at, cursor.id))
        }
    };
    let rows = store::history(&core.db, console.business.id, &filter, after, limit + 1).await?;
    let (page, has_more) = crate::domain::split_page(rows, limit);
    Ok((page, has_more))
}

/// One message of the caller's business.
///
/// Errors: as [`history`] without `invalid_limit`, and `message_not_found` (unknown, or another
/// business's).
pub async fn message(core: &Core, console: &Member, id: &str) -> AppResult<messages::Model> {
    business_message(core, console.business.id, id).await
}

/// The message `id` (as given in a path) of the business, else `message_not_found`.
pub(super) async fn business_message(
    core: &Core,
    business_id: Uuid,
    id: &str,
) -> AppResult<messages::Model> {
    let not_found = || AppError::new(ErrorCode::MessageNotFound, "no such message");
    let id = Uuid::parse_str(id.trim()).map_err(|_| not_found())?;
    store::find_message(&core.db, business_id, id)
        .await?
        .ok_or_else(not_found)
}
