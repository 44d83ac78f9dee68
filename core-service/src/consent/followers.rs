//! A business's audience, as its team sees it: the followers list, a look-up of numbers the
//! business already holds, and one follower's consent ledger. Any role of an active business.
//! Phone numbers are never shown: following a business does not hand it the number; the
//! look-up answers for numbers the business sends in, and no account looks like never
//! followed.

use std::collections::HashMap;
use std::time::Duration;

use proto::ErrorCode;
use proto::vocabulary::FollowStatus;
use uuid::Uuid;

use super::store::{self, FollowerFilter};
use crate::caller::Member;
use crate::domain::PhoneNumber;
use crate::entities::{follow_changes, follows};
use crate::error::{AppError, AppResult};
use crate::limits::Rate;
use crate::state::Core;

/// The most numbers one look-up holds.
pub const MAX_LOOKUP: usize = 100;

/// A page of the followers list: filters and where the previous page ended.
#[derive(Debug, Clone, Default)]
pub struct FollowerQuery {
    pub limit: Option<i64>,
    pub starting_after: Option<String>,
    pub status: Option<String>,
    pub marketing_opt_in: Option<String>,
}

/// The business's follows, newest follow first, a page at a time. Returns the page and
/// whether more follow.
///
/// Errors: `unauthorized`, `account_suspended`, `not_a_business_account`, `business_suspended`,
/// `invalid_limit`, `invalid_request` (an unknown filter value, or a cursor that is not a
/// follower of this business).
pub async fn list(
    core: &Core,
    console: &Member,
    query: FollowerQuery,
) -> AppResult<(Vec<follows::Model>, bool)> {
    let limit = crate::domain::page_limit(query.limit)?;
    let filter = FollowerFilter {
        status: crate::domain::filter("status", query.status.as_deref(), FollowStatus::parse)?,
        marketing_opt_in: crate::domain::bool_filter(
            "marketing_opt_in",
            query.marketing_opt_in.as_deref(),
        )?,
    };
    let business_id = console.business.id;
    let after = match crate::domain::cursor_id(query.starting_after.as_deref(), "a follower")? {
        None => None,
        Some(user_id) => {
            let cursor = store::follow(&core.db, business_id, user_id)
                .await?
                .ok_or_else(|| crate::domain::bad_cursor("a follower"))?;
            Some((cursor.followed_at, cursor.user_id))
        }
    };
    let rows = store::followers_page(&core.db, business_id, &filter, after, limit + 1).await?;
    Ok(crate::domain::split_page(rows, limit))
}

/// What a look-up says of one number.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Lookup {
    /// E.164.
    pub phone_number: String,
    pub follows: bool,
    pub marketing_opt_in: bool,
    /// Only for a number that follows or once followed this business.
    pub user_id: Option<Uuid>,
}

/// Whether each number follows the business, in request order. A number with no account and a
/// number that never followed look alike. Takes one unit of `FOLLOWER_LOOKUPS_PER_HOUR` per
/// distinct number, all or none.
///
/// Errors: as [`list`], `invalid_request` (no numbers, or over 100), `invalid_phone_number`
/// (the detail names the index), `rate_limited`.
pub async fn lookup(
    core: &Core,
    console: &Member,
    phone_numbers: &[String],
) -> AppResult<Vec<Lookup>> {
    if phone_numbers.is_empty() || phone_numbers.len() > MAX_LOOKUP {
        return Err(AppError::new(
            ErrorCode::InvalidRequest,
            format!("phone_numbers: 1 to {MAX_LOOKUP} numbers"),
        ));
    }
    let parsed: Vec<String> = phone_numbers
        .iter()
        .enumerate()
        .map(|(i, raw)| {
            PhoneNumber::parse(raw)
                .map(|p| p.as_str().to_string())
                .map_err(|_| {
                    AppError::new(
                        ErrorCode::InvalidPhoneNumber,
                        format!("phone_numbers[{i}]: must be an E.164 number such as +14155550123"),
                    )
                })
        })
        .collect::<AppResult<_>>()?;
    let mut distinct = parsed.clone();
    distinct.sort();
    distinct.dedup();
    let business_id = console.business.id;
    core.limiter
        .acquire_units(
            &format!("follower_lookup:business:{business_id}"),
            Rate::per(
                core.limits.follower_lookups_per_hour,
                Duration::from_secs(3600),
            ),
            distinct.len() as u32,
            ErrorCode::RateLimited,
        )
        .await?;
    let found: HashMap<String, (Uuid, Option<follows::Model>)> =
        store::by_phones(&core.db, business_id, &distinct)
            .await?
            .into_iter()
            .map(|(user, follow)| (user.phone_number, (user.id, follow)))
            .collect();
    Ok(parsed
        .into_iter()
        .map(|phone_number| {
            let follow = found.get(&phone_number).and_then(|(_, f)| f.as_ref());
            let active = follow.is_some_and(|f| f.status == FollowStatus::Active);
            Lookup {
                follows: active,
                marketing_opt_in: active && follow.is_some_and(|f| f.marketing_opt_in),
                user_id: follow.map(|f| f.user_id),
                phone_number,
            }
        })
        .collect())
}

/// One follower's consent ledger, oldest first.
///
/// Errors: as [`list`], `follow_not_found` (that user never followed this business).
pub async fn history(
    core: &Core,
    console: &Member,
    user_id: &str,
) -> AppResult<Vec<follow_changes::Model>> {
    let not_found = || {
        AppError::new(
            ErrorCode::FollowNotFound,
            "this user never followed this business",
        )
    };
    let user_id = Uuid::parse_str(user_id.trim()).map_err(|_| not_found())?;
    let business_id = console.business.id;
    store::follow(&core.db, business_id, user_id)
        .await?
        .ok_or_else(not_found)?;
    store::changes(&core.db, business_id, user_id).await
}
