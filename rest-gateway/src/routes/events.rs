//! `/business/events`: the business's events, newest first or polled in commit order.

use axum::extract::{RawQuery, State};
use axum::http::StatusCode;
use proto::v1 as pb;
use serde::Serialize;
use utoipa::ToSchema;

use crate::envelope::{ApiError, ApiResult, Envelope, ok};
use crate::extract::CallContext;
use crate::state::AppState;

/// One event: what a webhook delivery announces, with the same `data`.
#[derive(Debug, Serialize, ToSchema)]
pub struct Event {
    /// The `event_id` of every webhook payload announcing this event.
    #[schema(format = Uuid)]
    pub id: String,
    #[schema(value_type = crate::schema::EventType)]
    pub r#type: String,
    #[schema(format = DateTime)]
    pub created_at: String,
    /// The event's data, as in the webhook payload of its type (see `webhooks`).
    #[schema(value_type = Object)]
    pub data: serde_json::Value,
}

#[derive(Debug, Serialize, ToSchema)]
pub struct EventList {
    pub events: Vec<Event>,
    /// Whether more follow: ask again with `starting_after` (newest first) or `after` (a poll)
    /// = the last `id`.
    pub has_more: bool,
}

/// The business's events (every type but `webhook.test`, whatever the endpoints subscribe
/// to), in commit order: newest first a page at a time, or with `after` the events committed
/// after that one, oldest first. A poller calls it in a loop with `after` = the last `id` it
/// saw and never misses an event, even one committed late.
#[utoipa::path(get, path = "/business/events", tag = "webhooks",
    security(("bearer" = [])),
    params(
        ("limit" = Option<i64>, Query, minimum = 1, maximum = 200, description = "Default 50"),
        ("starting_after" = Option<String>, Query, format = Uuid,
            description = "Newest first: the `id` of the last event of the previous page"),
        ("after" = Option<String>, Query, format = Uuid,
            description = "Poll: the `id` of the last event seen; lists those committed after it, oldest first. Not with `starting_after`"),
        ("type" = Option<crate::schema::EventType>, Query),
    ),
    responses(
        (status = 200, description = "The events", body = Envelope<EventList>),
    ))]
pub async fn list_events(
    State(state): State<AppState>,
    ctx: CallContext,
    RawQuery(query): RawQuery,
) -> ApiResult {
    use crate::extract::{limit_query, query_param};
    let query = query.as_deref();
    let request = pb::ListEventsRequest {
        limit: limit_query(query)?,
        starting_after: query_param(query, "starting_after"),
        after: query_param(query, "after"),
        r#type: query_param(query, "type"),
    };
    let list = state
        .webhooks
        .clone()
        .list_events(ctx.request(request))
        .await?
        .into_inner();
    let events = list
        .events
        .into_iter()
        .map(|e| {
            let data = serde_json::from_str(&e.data_json).map_err(|_| {
                ApiError::new(
                    proto::ErrorCode::InternalError,
                    "an event's data is not JSON",
                )
            })?;
            Ok(Event {
                id: e.id,
                r#type: e.r#type,
                created_at: e.created_at,
                data,
            })
        })
        .collect::<Result<Vec<_>, ApiError>>()?;
    Ok(ok(
        StatusCode::OK,
        EventList {
            events,
            has_more: list.has_more,
        },
    ))
}
