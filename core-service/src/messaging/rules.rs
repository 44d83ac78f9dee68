//! The send rules that more than one path applies, each said once: the business is active (and
//! live, to send), the recipient follows it (and, for marketing, has opted in), and the service
//! limit's spacing. `service.rs` applies them when a send is accepted or checked, the broadcast
//! service when a broadcast is created, and the dispatcher again when a message with a send
//! time falls due. Pure functions over stored values: no I/O.

use std::time::Duration;

use chrono::{DateTime, Utc};
use proto::ErrorCode;
use proto::vocabulary::{BusinessMode, BusinessStatus, Category, FollowStatus};

use crate::error::{AppError, AppResult};

/// `business_suspended` unless the business is active.
pub fn require_active(status: BusinessStatus) -> AppResult<()> {
    if status == BusinessStatus::Suspended {
        return Err(AppError::new(
            ErrorCode::BusinessSuspended,
            "this business account is suspended",
        ));
    }
    Ok(())
}

/// `business_suspended` unless the business is active, `live_business_required` unless it is
/// live.
pub fn require_live(status: BusinessStatus, mode: BusinessMode) -> AppResult<()> {
    require_active(status)?;
    if mode != BusinessMode::Live {
        return Err(AppError::new(
            ErrorCode::LiveBusinessRequired,
            "sends need a live business",
        ));
    }
    Ok(())
}

/// Whether a message of `category` may reach a recipient whose follow of the business is
/// `follow_status` (None: no follow): an authentication message always; any other only to an
/// active follower, and marketing only with the follower's opt-in.
///
/// Errors: `business_follow_required`, `marketing_opt_in_required`.
pub fn check_consent(
    follow_status: Option<FollowStatus>,
    marketing_opt_in: bool,
    category: Category,
) -> AppResult<()> {
    if category == Category::Authentication {
        return Ok(());
    }
    if follow_status != Some(FollowStatus::Active) {
        return Err(AppError::new(
            ErrorCode::BusinessFollowRequired,
            "the recipient does not follow this business",
        ));
    }
    if category == Category::Marketing && !marketing_opt_in {
        return Err(AppError::new(
            ErrorCode::MarketingOptInRequired,
            "the recipient has not opted in to marketing",
        ));
    }
    Ok(())
}

/// The service limit: a business's service messages to one recipient are at least this far
/// apart in effective time (a canceled one not counting). The send store applies it in the
/// writing transaction, under the recipient's limit row.
pub const SERVICE_SPACING: Duration = Duration::from_secs(60);

/// The wait told to a service message refused because of a message at effective time `other`:
/// until `other` plus the spacing, at least a second.
pub fn service_wait_after(other: DateTime<Utc>, now_ms: i64) -> Duration {
    let free_at_ms = other.timestamp_millis() + SERVICE_SPACING.as_millis() as i64;
    Duration::from_millis(Ord::max(free_at_ms - now_ms, 1000) as u64)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn consent_follows_the_category() {
        assert!(check_consent(None, false, Category::Authentication).is_ok());
        let refused = check_consent(None, false, Category::Utility).unwrap_err();
        assert_eq!(refused.code, ErrorCode::BusinessFollowRequired);
        assert!(check_consent(Some(FollowStatus::Active), false, Category::Utility).is_ok());
        let refused =
            check_consent(Some(FollowStatus::Active), false, Category::Marketing).unwrap_err();
        assert_eq!(refused.code, ErrorCode::MarketingOptInRequired);
        assert!(check_consent(Some(FollowStatus::Active), true, Category::Marketing).is_ok());
        let refused =
            check_consent(Some(FollowStatus::Unfollowed), true, Category::Marketing).unwrap_err();
        assert_eq!(refused.code, ErrorCode::BusinessFollowRequired);
    }

    #[test]
    fn a_refused_service_message_waits_at_least_a_second() {
        let other = DateTime::from_timestamp_millis(100_000).unwrap();
        assert_eq!(service_wait_after(other, 100_000), SERVICE_SPACING);
        assert_eq!(
            service_wait_after(other, 159_500),
            Duration::from_secs(1),
            "half a second left is told as one"
        );
    }
}
