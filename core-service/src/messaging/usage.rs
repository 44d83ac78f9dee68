//! Usage (DESIGN, "Usage"): the caller's totals over what is kept and its daily figures, both
//! read from the usage counters (see `crate::usage`), never from a scan of messages or
//! deliveries.

use std::collections::BTreeMap;

use proto::ErrorCode;
use proto::vocabulary::Category;

use crate::caller::Member;
use crate::error::{AppError, AppResult};
use crate::state::Core;
use crate::usage::{self, Counter, Counts};

/// Message, webhook and follower totals of a business.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Usage {
    /// Every kept message, whatever its status.
    pub total: i64,
    pub accepted: i64,
    pub delivered: i64,
    /// Failed, canceled excluded.
    pub failed: i64,
    pub scheduled: i64,
    pub canceled: i64,
    pub by_category: BTreeMap<String, i64>,
    pub webhooks: WebhookUsage,
    pub followers: FollowerUsage,
}

/// Kept webhook deliveries: `pending` counts pending and retrying ones.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct WebhookUsage {
    pub deliveries: i64,
    pub succeeded: i64,
    pub failed: i64,
    pub pending: i64,
}

/// Active followers, and those of them opted in to marketing.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct FollowerUsage {
    pub active: i64,
    pub marketing_opt_in: i64,
}

/// One UTC day's figures.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct DayUsage {
    /// `YYYY-MM-DD`
    pub date: String,
    pub authentication: i64,
    pub utility: i64,
    pub marketing: i64,
    pub service: i64,
    pub delivered: i64,
    pub failed: i64,
    pub webhooks_succeeded: i64,
    pub webhooks_failed: i64,
    pub follows: i64,
    pub unfollows: i64,
    /// User messages received that day.
    pub received: i64,
}

impl DayUsage {
    /// Messages accepted that day, every category.
    pub fn messages(&self) -> i64 {
        self.authentication + self.utility + self.marketing + self.service
    }
}

/// Days `GET /business/usage/daily` shows when not told.
pub const DEFAULT_DAYS: i32 = 30;
/// The most days it shows.
pub const MAX_DAYS: i32 = 90;

const CATEGORIES: [(Category, Counter); 4] = [
    (Category::Authentication, Counter::Authentication),
    (Category::Utility, Counter::Utility),
    (Category::Marketing, Counter::Marketing),
    (Category::Service, Counter::Service),
];

fn get(counts: &Counts, counter: Counter) -> i64 {
    counts[counter as usize]
}

fn totals_of(counts: &Counts) -> Usage {
    let by_category: BTreeMap<String, i64> = CATEGORIES
        .iter()
        .map(|(name, counter)| (name.to_string(), get(counts, *counter)))
        .collect();
    let webhooks = WebhookUsage {
        succeeded: get(counts, Counter::WebhooksSucceeded),
        failed: get(counts, Counter::WebhooksFailed),
        pending: get(counts, Counter::WebhooksPending),
        deliveries: get(counts, Counter::WebhooksSucceeded)
            + get(counts, Counter::WebhooksFailed)
            + get(counts, Counter::WebhooksPending),
    };
    Usage {
        total: by_category.values().sum(),
        accepted: get(counts, Counter::Accepted),
        delivered: get(counts, Counter::Delivered),
        failed: get(counts, Counter::Failed),
        scheduled: get(counts, Counter::Scheduled),
        canceled: get(counts, Counter::Canceled),
        by_category,
        webhooks,
        followers: FollowerUsage {
            active: get(counts, Counter::FollowersActive),
            marketing_opt_in: get(counts, Counter::FollowersOptIn),
        },
    }
}

fn day_of(date: String, counts: &Counts) -> DayUsage {
    DayUsage {
        date,
        authentication: get(counts, Counter::Authentication),
        utility: get(counts, Counter::Utility),
        marketing: get(counts, Counter::Marketing),
        service: get(counts, Counter::Service),
        delivered: get(counts, Counter::Delivered),
        failed: get(counts, Counter::Failed),
        webhooks_succeeded: get(counts, Counter::WebhooksSucceeded),
        webhooks_failed: get(counts, Counter::WebhooksFailed),
        follows: get(counts, Counter::Follows),
        unfollows: get(counts, Counter::Unfollows),
        received: get(counts, Counter::Received),
    }
}

/// The totals of the caller's business.
///
/// Errors: `unauthorized`, `account_suspended`, `not_a_business_account`, `business_suspended`.
pub async fn totals(core: &Core, console: &Member) -> AppResult<Usage> {
    Ok(totals_of(
        &usage::totals(&core.db, console.business.id).await?,
    ))
}

/// The daily figures of the caller's business over the last `days` UTC days (default 30),
/// oldest first, every day present (zeros for a day without activity), the last one today.
///
/// Errors: as [`totals`], `invalid_request` (`days` not 1-90).
pub async fn daily(core: &Core, console: &Member, days: Option<i32>) -> AppResult<Vec<DayUsage>> {
    let days = days.unwrap_or(DEFAULT_DAYS);
    if !(1..=MAX_DAYS).contains(&days) {
        return Err(AppError::new(
            ErrorCode::InvalidRequest,
            format!("days: from 1 to {MAX_DAYS}"),
        ));
    }
    let today = usage::day_of(core.clock.now_ms());
    let first = today - (days - 1);
    let mut kept: BTreeMap<i32, Counts> = usage::daily(&core.db, console.business.id, first, today)
        .await?
        .into_iter()
        .collect();
    Ok((first..=today)
        .map(|day| {
            let counts = kept.remove(&day).unwrap_or_default();
            day_of(date(day), &counts)
        })
        .collect())
}

/// A day (days since 1970-01-01) as `YYYY-MM-DD`.
fn date(day: i32) -> String {
    let epoch = chrono::NaiveDate::from_ymd_opt(1970, 1, 1).expect("a date");
    (epoch + chrono::Days::new(day.max(0) as u64))
        .format("%Y-%m-%d")
        .to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn days_are_dates() {
        assert_eq!(date(0), "1970-01-01");
        assert_eq!(date(20_781), "2026-11-24");
    }

    #[test]
    fn totals_add_up() {
        let mut counts: Counts = Default::default();
        counts[Counter::Utility as usize] = 3;
        counts[Counter::Marketing as usize] = 2;
        counts[Counter::Accepted as usize] = 1;
        counts[Counter::Delivered as usize] = 3;
        counts[Counter::Failed as usize] = 1;
        counts[Counter::WebhooksPending as usize] = 2;
        counts[Counter::WebhooksSucceeded as usize] = 5;
        let usage = totals_of(&counts);
        assert_eq!(usage.total, 5);
        assert_eq!(usage.by_category["authentication"], 0);
        assert_eq!(usage.webhooks.deliveries, 7);
    }
}
