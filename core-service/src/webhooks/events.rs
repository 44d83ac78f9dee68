//! The events API: a business reads its events (every type but `webhook.test`, whatever its
//! endpoints subscribe to) newest first, or polls for the ones committed after the last it saw.
//! Both follow commit order, so a poller never misses an event committed late (see
//! [`crate::events::page`]).

use proto::ErrorCode;

use crate::caller::Member;
use crate::entities::events;
use crate::error::{AppError, AppResult};
use crate::events::{Listed, Position};
use crate::state::Core;

/// A page of the events list.
#[derive(Debug, Clone, Default)]
pub struct EventQuery {
    pub limit: Option<i64>,
    pub starting_after: Option<String>,
    pub after: Option<String>,
    pub event_type: Option<String>,
}

/// The business's events: newest first from `starting_after`, or with `after` the events
/// committed after that one, oldest first. Returns the page and whether more follow.
///
/// Errors: `unauthorized`, `account_suspended`, `not_a_business_account`,
/// `business_suspended`, `invalid_limit`, `invalid_request` (an unknown type, an unknown or
/// no longer kept cursor, `after` with `starting_after`).
pub async fn list(
    core: &Core,
    console: &Member,
    query: EventQuery,
) -> AppResult<(Vec<events::Model>, bool)> {
    let business = console.business.id;
    let limit = crate::domain::page_limit(query.limit)?;
    let event_type = crate::domain::filter("type", query.event_type.as_deref(), Listed::parse)?;
    let position = match (query.starting_after.as_deref(), query.after.as_deref()) {
        (Some(_), Some(_)) => {
            return Err(AppError::new(
                ErrorCode::InvalidRequest,
                "after and starting_after: give one of them (after polls oldest first; \
                 starting_after pages newest first)",
            ));
        }
        (None, Some(after)) => {
            let days = core.retention.retention_events_days;
            let kept = || {
                let policy = if days == 0 {
                    String::new()
                } else {
                    format!(" (events are kept {days} days)")
                };
                AppError::new(
                    ErrorCode::InvalidRequest,
                    format!(
                        "after: no event {} of this business is kept{policy}; list without \
                         after to start again",
                        after.trim()
                    ),
                )
            };
            let id = uuid::Uuid::parse_str(after.trim()).map_err(|_| kept())?;
            let cursor = crate::events::find_listed(&core.db, business, id)
                .await?
                .ok_or_else(kept)?;
            Position::After((cursor.commit_seq, cursor.id))
        }
        (starting_after, None) => match crate::domain::cursor_id(starting_after, "an event")? {
            None => Position::Newest(None),
            Some(id) => {
                let cursor = crate::events::find_listed(&core.db, business, id)
                    .await?
                    .ok_or_else(|| crate::domain::bad_cursor("an event"))?;
                Position::Newest(Some((cursor.commit_seq, cursor.id)))
            }
        },
    };
    let rows = crate::events::page(&core.db, business, event_type, position, limit + 1).await?;
    Ok(crate::domain::split_page(rows, limit))
}
