//! Consent wording: what a business asks its followers to agree to before they opt in to its
//! marketing. Each change is a new version (from 1), kept for ever: the evidence of what each
//! opt-in agreed to. The owner and admins set it; any member reads it, and so does any user
//! (the app shows it beside the opt-in).
//!
//! A marketing opt-in records the version in force and whether the user's call named it
//! ([`in_force`], from the follow's own transaction); a call naming a version that is no longer
//! current is refused (`consent_text_changed`), so a user never agrees to wording they were not
//! shown. The evidence of one follower joins their consent ledger with the wording of each
//! opt-in and the marketing messages sent to them that are still kept.

use proto::ErrorCode;
use proto::vocabulary::FollowStatus;
use sea_orm::ConnectionTrait;
use uuid::Uuid;

use super::store;
use crate::caller::{Manager, Member, User};
use crate::entities::{consent_texts, follow_changes, messages};
use crate::error::{AppError, AppResult};
use crate::state::Core;

/// The longest wording, in characters.
pub const MAX_TEXT_CHARS: usize = 2_000;

/// The most marketing messages one evidence answer lists (newest first).
pub const EVIDENCE_MESSAGES: u64 = 1_000;

/// Sets the business's consent wording: a new version, unless `text` is the wording in force
/// (then nothing changes and the current version answers).
///
/// Errors: `invalid_request` (empty, blank or over 2,000 characters), and the caller's.
pub async fn set(core: &Core, manager: &Manager, text: &str) -> AppResult<consent_texts::Model> {
    let chars = text.chars().count();
    if text.trim().is_empty() || chars > MAX_TEXT_CHARS {
        return Err(AppError::new(
            ErrorCode::InvalidRequest,
            format!("text: 1 to {MAX_TEXT_CHARS} characters, not blank (got {chars})"),
        ));
    }
    let business_id = manager.business.id;
    // Two changes at once may pick the same next number: the loser reads again.
    for _ in 0..5 {
        let current = store::consent_text(&core.db, business_id).await?;
        if let Some(current) = current.as_ref().filter(|c| c.text == text) {
            return Ok(current.clone());
        }
        let next = consent_texts::Model {
            business_id,
            version: current.map_or(1, |c| c.version + 1),
            text: text.to_string(),
            created_at: core.clock.now(),
            created_by: Some(manager.user.id),
        };
        if store::insert_consent_text(&core.db, &next).await? {
            return Ok(next);
        }
    }
    Err(AppError::new(
        ErrorCode::ServiceUnavailable,
        "the consent wording is being changed by another call; try again",
    ))
}

/// The business's consent wording in force, if it set any (any member).
pub async fn current(core: &Core, member: &Member) -> AppResult<Option<consent_texts::Model>> {
    store::consent_text(&core.db, member.business.id).await
}

/// A business's consent wording in force, as a user sees it before opting in.
///
/// Errors: `business_not_found`, and the caller's.
pub async fn for_user(
    core: &Core,
    _user: &User,
    business_id: &str,
) -> AppResult<Option<consent_texts::Model>> {
    let not_found = || AppError::new(ErrorCode::BusinessNotFound, "no such business account");
    let id = Uuid::parse_str(business_id.trim()).map_err(|_| not_found())?;
    crate::business::store::business(&core.db, id)
        .await?
        .ok_or_else(not_found)?;
    store::consent_text(&core.db, id).await
}

/// The wording version a follow change records, read in the change's own transaction:
/// `Some(version in force)` (None inside when none is set) once checked against `named`.
///
/// Errors: `consent_text_changed` when `named` is not the version in force (or names one while
/// none is set).
pub async fn in_force(
    db: &impl ConnectionTrait,
    business_id: Uuid,
    named: Option<i32>,
) -> AppResult<Option<i32>> {
    let current = store::consent_text(db, business_id)
        .await?
        .map(|c| c.version);
    match named {
        Some(version) if Some(version) != current => Err(AppError::new(
            ErrorCode::ConsentTextChanged,
            match current {
                Some(current) => format!(
                    "consent_text_version: version {version} is not the wording in force \
                     (version {current}): show the user the current wording and ask again"
                ),
                None => format!(
                    "consent_text_version: this business has set no consent wording \
                     (version {version} named)"
                ),
            },
        )),
        _ => Ok(current),
    }
}

/// One change of a follower's consent ledger with the wording its opt-in was given under.
#[derive(Debug, Clone)]
pub struct EvidenceChange {
    pub change: follow_changes::Model,
    /// An opt-in's wording (None: no wording was set then, or not an opt-in).
    pub consent_text: Option<consent_texts::Model>,
    /// Whether this change is a marketing opt-in (consent given).
    pub opt_in: bool,
}

/// What proves one follower's marketing consent.
#[derive(Debug, Clone)]
pub struct Evidence {
    pub user_id: Uuid,
    pub changes: Vec<EvidenceChange>,
    /// The marketing messages sent to them that are still kept, newest first.
    pub marketing_messages: Vec<messages::Model>,
}

/// A follower's consent ledger, each opt-in with the wording it was given under and whether
/// the user named it, and the marketing messages sent to them that are still kept.
///
/// Errors: `follow_not_found` (that user never followed this business), and the caller's.
pub async fn evidence(core: &Core, member: &Member, user_id: &str) -> AppResult<Evidence> {
    let not_found = || {
        AppError::new(
            ErrorCode::FollowNotFound,
            "this user never followed this business",
        )
    };
    let user_id = Uuid::parse_str(user_id.trim()).map_err(|_| not_found())?;
    let business_id = member.business.id;
    store::follow(&core.db, business_id, user_id)
        .await?
        .ok_or_else(not_found)?;
    let changes = store::changes(&core.db, business_id, user_id).await?;
    let mut versions: Vec<i32> = changes
        .iter()
        .filter_map(|c| c.consent_text_version)
        .collect();
    versions.sort_unstable();
    versions.dedup();
    let texts = store::consent_text_versions(&core.db, business_id, versions).await?;
    let mut was_opted_in = false;
    let changes = changes
        .into_iter()
        .map(|change| {
            let opted_in = change.status == FollowStatus::Active && change.marketing_opt_in;
            let opt_in = opted_in && !was_opted_in;
            was_opted_in = opted_in;
            let consent_text = change
                .consent_text_version
                .and_then(|v| texts.iter().find(|t| t.version == v).cloned());
            EvidenceChange {
                change,
                consent_text,
                opt_in,
            }
        })
        .collect();
    let marketing_messages =
        store::marketing_messages(&core.db, business_id, user_id, EVIDENCE_MESSAGES).await?;
    Ok(Evidence {
        user_id,
        changes,
        marketing_messages,
    })
}
