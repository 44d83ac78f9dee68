//! Usage: a business's totals and its days.

use super::*;

/// Kept messages: `total` counts every status, `failed` excludes `canceled`.
#[derive(Debug, Serialize, ToSchema)]
pub struct MessageTotals {
    pub total: i64,
    pub accepted: i64,
    pub delivered: i64,
    pub failed: i64,
    pub scheduled: i64,
    pub canceled: i64,
    #[schema(example = json!({"authentication": 0, "utility": 3, "marketing": 1, "service": 0}))]
    pub by_category: BTreeMap<String, i64>,
}

/// Kept webhook deliveries; `pending` counts pending and retrying ones.
#[derive(Debug, Serialize, ToSchema)]
pub struct WebhookTotals {
    pub deliveries: i64,
    pub succeeded: i64,
    pub failed: i64,
    pub pending: i64,
}

/// Active followers, and those of them opted in to marketing.
#[derive(Debug, Serialize, ToSchema)]
pub struct FollowerTotals {
    pub active: i64,
    pub marketing_opt_in: i64,
}

#[derive(Debug, Serialize, ToSchema)]
pub struct Usage {
    pub messages: MessageTotals,
    pub webhooks: WebhookTotals,
    pub followers: FollowerTotals,
}

/// Totals over what is kept (messages and deliveries leave them when the retention purges
/// them), read from counters kept with every change.
#[utoipa::path(get, path = "/business/usage", operation_id = "get_usage", tag = "messages",
    security(("bearer" = [])),
    responses((status = 200, description = "Totals", body = Envelope<Usage>)))]
pub async fn usage(State(state): State<AppState>, ctx: CallContext) -> ApiResult {
    let usage = state
        .messaging
        .clone()
        .get_usage(ctx.request(pb::GetUsageRequest {}))
        .await?
        .into_inner();
    let m = usage.messages.unwrap_or_default();
    let w = usage.webhooks.unwrap_or_default();
    let f = usage.followers.unwrap_or_default();
    Ok(ok(
        StatusCode::OK,
        Usage {
            messages: MessageTotals {
                total: m.total,
                accepted: m.accepted,
                delivered: m.delivered,
                failed: m.failed,
                scheduled: m.scheduled,
                canceled: m.canceled,
                by_category: m.by_category.into_iter().collect(),
            },
            webhooks: WebhookTotals {
                deliveries: w.deliveries,
                succeeded: w.succeeded,
                failed: w.failed,
                pending: w.pending,
            },
            followers: FollowerTotals {
                active: f.active,
                marketing_opt_in: f.marketing_opt_in,
            },
        },
    ))
}

/// Messages accepted on one day.
#[derive(Debug, Serialize, ToSchema)]
pub struct DayMessages {
    pub total: i64,
    pub authentication: i64,
    pub utility: i64,
    pub marketing: i64,
    pub service: i64,
}

/// One UTC day: messages count on the day they were accepted, outcomes on theirs, deliveries on
/// the day they settled; `follows` are `follow.created`, `unfollows` `follow.deleted`.
#[derive(Debug, Serialize, ToSchema)]
pub struct DayUsage {
    #[schema(format = Date, example = "2026-11-24")]
    pub date: String,
    pub messages: DayMessages,
    pub delivered: i64,
    pub failed: i64,
    pub webhooks_succeeded: i64,
    pub webhooks_failed: i64,
    pub follows: i64,
    pub unfollows: i64,
    /// Messages users wrote to the business that day.
    pub received: i64,
}

#[derive(Debug, Serialize, ToSchema)]
pub struct DailyUsage {
    /// Oldest first, every day present, the last one today (UTC).
    pub days: Vec<DayUsage>,
}

/// Daily figures over the last `days` UTC days. They count what happened that day and outlive
/// the retention of what they count.
#[utoipa::path(get, path = "/business/usage/daily", operation_id = "get_daily_usage", tag = "messages",
    security(("bearer" = [])),
    params(("days" = Option<i32>, Query, minimum = 1, maximum = 90, description = "Default 30")),
    responses((status = 200, description = "One entry per day", body = Envelope<DailyUsage>)))]
pub async fn daily_usage(
    State(state): State<AppState>,
    ctx: CallContext,
    RawQuery(query): RawQuery,
) -> ApiResult {
    let days = crate::extract::query_param(query.as_deref(), "days")
        .map(|days| {
            days.trim().parse::<i32>().map_err(|_| {
                ApiError::new(ErrorCode::InvalidRequest, "days: an integer from 1 to 90")
            })
        })
        .transpose()?;
    let daily = state
        .messaging
        .clone()
        .get_daily_usage(ctx.request(pb::GetDailyUsageRequest { days }))
        .await?
        .into_inner();
    Ok(ok(
        StatusCode::OK,
        DailyUsage {
            days: daily
                .days
                .into_iter()
                .map(|d| {
                    let m = d.messages.unwrap_or_default();
                    DayUsage {
                        date: d.date,
                        messages: DayMessages {
                            total: m.total,
                            authentication: m.authentication,
                            utility: m.utility,
                            marketing: m.marketing,
                            service: m.service,
                        },
                        delivered: d.delivered,
                        failed: d.failed,
                        webhooks_succeeded: d.webhooks_succeeded,
                        webhooks_failed: d.webhooks_failed,
                        follows: d.follows,
                        unfollows: d.unfollows,
                        received: d.received,
                    }
                })
                .collect(),
        },
    ))
}
