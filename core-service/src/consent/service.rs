//! The consent rules (SPEC's follow state machine): PUT follows a live business, PATCH changes
//! marketing consent on an active follow, DELETE always leaves it unfollowed; support may only
//! withdraw (unfollow, or withdraw consent) on a user's request.
//!
//! Every change of a follow's status or consent is one transaction: the follow, its entry in
//! the consent ledger (with its source), its event (`follow.created` when it becomes active,
//! `follow.updated` when consent changes on an active follow, `follow.deleted` when it becomes
//! unfollowed) and the usage counters. A call that changes nothing records nothing.

use chrono::{DateTime, Utc};
use proto::ErrorCode;
use proto::vocabulary::{ChangeSource, EventType, FollowStatus};
use sea_orm::TransactionTrait;
use uuid::Uuid;

use super::{store, wording};
use crate::business::store as business_store;
use crate::caller::User;
use crate::entities::{business_accounts, follows};
use crate::error::{AppError, AppResult};
use crate::state::Core;
use crate::usage::Tally;

/// The event a change announces, if it changed the status or the consent.
fn event_of(before: Option<&follows::Model>, after: &follows::Model) -> Option<EventType> {
    let was_active = before.is_some_and(|f| f.status == FollowStatus::Active);
    match (was_active, after.status == FollowStatus::Active) {
        (false, true) => Some(EventType::FollowCreated),
        (true, false) => Some(EventType::FollowDeleted),
        (true, true) if before.map(|f| f.marketing_opt_in) != Some(after.marketing_opt_in) => {
            Some(EventType::FollowUpdated)
        }
        _ => None,
    }
}

/// Changes the follow of (`business_id`, `user_id`) as `change` decides from the current one
/// (`None`: never followed), in one transaction with its ledger entry and its event. `change`
/// answers `None` to write nothing. Returns the follow as it is after.
async fn apply(
    core: &Core,
    business_id: Uuid,
    user_id: Uuid,
    source: ChangeSource,
    named: Option<i32>,
    change: impl Fn(Option<&follows::Model>, DateTime<Utc>) -> AppResult<Option<follows::Model>>,
) -> AppResult<Option<follows::Model>> {
    // A first follow racing another first follow of the same pair inserts once; the loser
    // reads the winner's row and decides again.
    for _ in 0..2 {
        let now = core.clock.now();
        let txn = core.db.begin().await?;
        let before = store::follow_for_update(&txn, business_id, user_id).await?;
        // A consent wording version the user named must be the one in force, whatever the
        // call changes (even nothing).
        let named_in_force = match named {
            Some(_) => Some(wording::in_force(&txn, business_id, named).await?),
            None => None,
        };
        let Some(after) = change(before.as_ref(), now)? else {
            return Ok(before);
        };
        match &before {
            None => {
                if !store::insert_new(&txn, &after).await? {
                    drop(txn);
                    continue;
                }
            }
            Some(_) => {
                store::save(&txn, after.clone()).await?;
            }
        }
        let mut tally = Tally::new();
        let queued = match event_of(before.as_ref(), &after) {
            Some(event_type) => {
                // A marketing opt-in records the wording in force and whether the user named it.
                let opted_in =
                    |f: &follows::Model| f.status == FollowStatus::Active && f.marketing_opt_in;
                let opt_in = opted_in(&after) && !before.as_ref().is_some_and(opted_in);
                let consent_text_version = match (opt_in, named_in_force) {
                    (false, _) => None,
                    (true, Some(version)) => version,
                    (true, None) => wording::in_force(&txn, business_id, None).await?,
                };
                let change = store::Change {
                    follow: &after,
                    at: now,
                    source,
                    consent_text_version,
                    user_named_version: opt_in && named.is_some(),
                };
                store::log_changes(&txn, &[change]).await?;
                tally.follow(
                    business_id,
                    before.as_ref().map(counted),
                    counted(&after),
                    now.timestamp_millis(),
                );
                let data = follow_data(&after, now);
                crate::events::record(&txn, business_id, event_type, data, now, &mut tally).await?
            }
            None => 0,
        };
        tally.apply(&txn).await?;
        txn.commit().await?;
        if queued > 0 {
            core.webhook_wakeup.wake();
        }
        return Ok(Some(after));
    }
    Err(AppError::internal("a follow changed twice under one call"))
}

/// New follows of one live business, written in one transaction (the demo's audience, a batch
/// at a time): each an ordinary follow with its ledger entry (source `user`) and its
/// `follow.created` event. The users must not follow the business yet.
pub async fn follow_many(core: &Core, business_id: Uuid, people: &[(Uuid, bool)]) -> AppResult<()> {
    let now = core.clock.now();
    let follows: Vec<follows::Model> = people
        .iter()
        .map(|(user_id, marketing_opt_in)| follows::Model {
            business_id,
            user_id: *user_id,
            status: FollowStatus::Active,
            marketing_opt_in: *marketing_opt_in,
            followed_at: Some(now),
            updated_at: Some(now),
        })
        .collect();
    let txn = core.db.begin().await?;
    let in_force = match people.iter().any(|(_, opt_in)| *opt_in) {
        true => wording::in_force(&txn, business_id, None).await?,
        false => None,
    };
    let changes: Vec<store::Change> = follows
        .iter()
        .map(|follow| store::Change {
            follow,
            at: now,
            source: ChangeSource::User,
            consent_text_version: in_force.filter(|_| follow.marketing_opt_in),
            user_named_version: false,
        })
        .collect();
    let events = follows
        .iter()
        .map(|follow| crate::events::NewEvent {
            business_id,
            event_type: EventType::FollowCreated,
            data: follow_data(follow, now),
            broadcast: false,
        })
        .collect();
    let mut tally = Tally::new();
    for follow in &follows {
        tally.follow(business_id, None, counted(follow), now.timestamp_millis());
    }
    store::insert_many(&txn, &follows).await?;
    store::log_changes(&txn, &changes).await?;
    let queued = crate::events::record_many(&txn, events, now, &mut tally).await?;
    tally.apply(&txn).await?;
    txn.commit().await?;
    if queued > 0 {
        core.webhook_wakeup.wake();
    }
    Ok(())
}

/// What a follow counts as in the usage counters: (active, marketing_opt_in).
fn counted(follow: &follows::Model) -> (bool, bool) {
    (
        follow.status == FollowStatus::Active,
        follow.marketing_opt_in,
    )
}

/// The data of a follow event.
fn follow_data(follow: &follows::Model, now: DateTime<Utc>) -> serde_json::Value {
    serde_json::json!({
        "user_id": follow.user_id,
        "status": follow.status,
        "marketing_opt_in": follow.marketing_opt_in,
        "changed_at": crate::clock::rfc3339(now),
    })
}

async fn business(core: &Core, business_id: &str) -> AppResult<business_accounts::Model> {
    let not_found = || AppError::new(ErrorCode::BusinessNotFound, "no such business account");
    let id = Uuid::parse_str(business_id.trim()).map_err(|_| not_found())?;
    let business = business_store::business(&core.db, id)
        .await?
        .ok_or_else(not_found)?;
    Ok(business)
}

/// The caller's follow of a business, active or unfollowed.
///
/// Errors: `unauthorized`, `account_suspended`, `business_not_found`, `follow_not_found`.
pub async fn get(core: &Core, user: &User, business_id: &str) -> AppResult<follows::Model> {
    let business = business(core, business_id).await?;
    store::follow(&core.db, business.id, user.id)
        .await?
        .ok_or_else(|| {
            AppError::new(
                ErrorCode::FollowNotFound,
                "you never followed this business",
            )
        })
}

/// Follows a live, active business (again); `marketing_opt_in` defaults to false. A
/// `consent_text_version` must be the business's wording in force.
///
/// Errors: `unauthorized`, `account_suspended`, `business_not_found`,
/// `cannot_follow_own_business`, `business_not_live`, `consent_text_changed`.
pub async fn put(
    core: &Core,
    user: &User,
    business_id: &str,
    marketing_opt_in: Option<bool>,
    consent_text_version: Option<i32>,
) -> AppResult<follows::Model> {
    let business = business(core, business_id).await?;
    if business.id == user.id {
        return Err(AppError::new(
            ErrorCode::CannotFollowOwnBusiness,
            "a business cannot be followed by its owner",
        ));
    }
    let live = crate::messaging::rules::require_live(business.status, business.mode).is_ok()
        // A business is its owner's profile: a suspended or banned owner suspends it.
        && crate::identity::store::user_by_id(&core.db, business.id)
            .await?
            .is_some_and(|owner| owner.status == crate::domain::UserStatus::Active);
    if !live {
        return Err(AppError::new(
            ErrorCode::BusinessNotLive,
            "only live, active businesses can be followed",
        ));
    }
    let follow = apply(
        core,
        business.id,
        user.id,
        ChangeSource::User,
        consent_text_version,
        |existing, now| {
            let followed_at = match existing {
                Some(f) if f.status == FollowStatus::Active => f.followed_at.or(Some(now)),
                _ => Some(now),
            };
            Ok(Some(follows::Model {
                business_id: business.id,
                user_id: user.id,
                status: FollowStatus::Active,
                marketing_opt_in: marketing_opt_in.unwrap_or(false),
                followed_at,
                updated_at: Some(now),
            }))
        },
    )
    .await?;
    follow.ok_or_else(|| AppError::internal("a follow was not written"))
}

/// Changes marketing consent on an active follow. A `consent_text_version` must be the
/// business's wording in force.
///
/// Errors: `unauthorized`, `account_suspended`, `invalid_request`, `business_not_found`,
/// `follow_not_found`, `consent_text_changed`.
pub async fn patch(
    core: &Core,
    user: &User,
    business_id: &str,
    marketing_opt_in: Option<bool>,
    consent_text_version: Option<i32>,
) -> AppResult<follows::Model> {
    let business = business(core, business_id).await?;
    let opt_in = marketing_opt_in
        .ok_or_else(|| AppError::new(ErrorCode::InvalidRequest, "marketing_opt_in: is required"))?;
    let follow = apply(
        core,
        business.id,
        user.id,
        ChangeSource::User,
        consent_text_version,
        |existing, now| {
            let follow = existing
                .filter(|f| f.status == FollowStatus::Active)
                .ok_or_else(|| {
                    AppError::new(ErrorCode::FollowNotFound, "you do not follow this business")
                })?;
            Ok(Some(follows::Model {
                marketing_opt_in: opt_in,
                updated_at: Some(now),
                ..follow.clone()
            }))
        },
    )
    .await?;
    follow.ok_or_else(|| AppError::internal("a follow was not written"))
}

/// Unfollows (withdrawing marketing consent too). Idempotent, also when never followed.
///
/// Errors: `unauthorized`, `account_suspended`, `business_not_found`.
pub async fn delete(core: &Core, user: &User, business_id: &str) -> AppResult<()> {
    let business = business(core, business_id).await?;
    apply(
        core,
        business.id,
        user.id,
        ChangeSource::User,
        None,
        unfollow,
    )
    .await?;
    Ok(())
}

/// The change of an unfollow: an active follow becomes unfollowed (consent withdrawn too);
/// anything else stays as it is.
fn unfollow(
    existing: Option<&follows::Model>,
    now: DateTime<Utc>,
) -> AppResult<Option<follows::Model>> {
    Ok(existing
        .filter(|f| f.status == FollowStatus::Active)
        .map(|f| follows::Model {
            status: FollowStatus::Unfollowed,
            marketing_opt_in: false,
            updated_at: Some(now),
            ..f.clone()
        }))
}

/// What support may change on a follow at its user's request: unfollow, or withdraw consent.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Withdrawal {
    Unfollow,
    MarketingConsent,
}

impl Withdrawal {
    /// The withdrawal an operator asked for: unfollow, or marketing consent set to false.
    ///
    /// Errors: `invalid_request` (neither or both, or consent set to true: support never grants
    /// it).
    pub fn asked(unfollow: bool, marketing_opt_in: Option<bool>) -> AppResult<Withdrawal> {
        match (unfollow, marketing_opt_in) {
            (true, None) => Ok(Withdrawal::Unfollow),
            (false, Some(false)) => Ok(Withdrawal::MarketingConsent),
            (false, Some(true)) => Err(AppError::new(
                ErrorCode::InvalidRequest,
                "marketing_opt_in: support may only withdraw consent (false), never grant it",
            )),
            _ => Err(AppError::new(
                ErrorCode::InvalidRequest,
                "give unfollow or marketing_opt_in false (one of them)",
            )),
        }
    }
}

/// Changes an existing follow on its user's request (an operator): unfollows it or withdraws
/// its marketing consent, recorded with source `operator` and the same events as the user's
/// own call. Never creates a follow nor grants consent; a withdrawal that changes nothing
/// records nothing.
///
/// Errors: `invalid_phone_number`, `business_not_found`, `follow_not_found`.
pub async fn withdraw(
    core: &Core,
    business_id: &str,
    phone: &str,
    withdrawal: Withdrawal,
) -> AppResult<follows::Model> {
    let phone = crate::domain::PhoneNumber::parse(phone)?;
    let not_found = || AppError::new(ErrorCode::BusinessNotFound, "no such business account");
    let business_id = Uuid::parse_str(business_id.trim()).map_err(|_| not_found())?;
    let business = business_store::business(&core.db, business_id)
        .await?
        .ok_or_else(not_found)?;
    let no_follow = || {
        AppError::new(
            ErrorCode::FollowNotFound,
            "this user never followed this business",
        )
    };
    let user = crate::identity::store::user_by_phone(&core.db, phone.as_str())
        .await?
        .ok_or_else(no_follow)?;
    let follow = apply(
        core,
        business.id,
        user.id,
        ChangeSource::Operator,
        None,
        |existing, now| {
            let follow = existing.ok_or_else(no_follow)?;
            Ok(match withdrawal {
                Withdrawal::Unfollow => unfollow(Some(follow), now)?,
                Withdrawal::MarketingConsent => (follow.status == FollowStatus::Active
                    && follow.marketing_opt_in)
                    .then(|| follows::Model {
                        marketing_opt_in: false,
                        updated_at: Some(now),
                        ..follow.clone()
                    }),
            })
        },
    )
    .await?;
    follow.ok_or_else(no_follow)
}
