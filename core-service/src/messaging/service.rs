//! The send rules, once for all three paths (console, app token, service), in DESIGN's order:
//! credential (401) -> the path's business matches the credential's (403) -> request shape (400)
//! -> scope (403) -> business live and active (403) -> recipient exists (400) -> idempotency
//! replay or conflict (200 / 409) -> follow and opt-in (403) -> rate limits (429).
//! Accepting writes the message and its outbox row in one transaction before answering.

use std::collections::BTreeMap;
use std::time::Duration;

use proto::ErrorCode;
use sha2::{Digest, Sha256};
use uuid::Uuid;

use super::content::{self, Category, Outgoing};
use super::store::{self, Claim};
use crate::apps::service::{AppCaller, authenticate_app};
use crate::business::service::console;
use crate::business::store as business_store;
use crate::consent::{service::ACTIVE, store as consent_store};
use crate::domain::{BusinessMode, BusinessStatus, PhoneNumber, Scope};
use crate::entities::{business_accounts, messages};
use crate::error::{AppError, AppResult};
use crate::identity::store as identity_store;
use crate::limits::Rate;
use crate::state::Core;

/// How long an Idempotency-Key is remembered.
pub const IDEMPOTENCY_RETENTION: Duration = Duration::from_secs(24 * 3600);
/// How long a request may hold a key while it is being accepted.
const IDEMPOTENCY_CLAIM: Duration = Duration::from_secs(60);
/// Service messages per recipient per business.
pub const SERVICE_RATE: Rate = Rate::per(1, Duration::from_secs(60));

/// Where a send came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Source {
    Console,
    App,
    Service,
}

impl Source {
    pub const fn as_str(self) -> &'static str {
        match self {
            Source::Console => "console",
            Source::App => "app",
            Source::Service => "service",
        }
    }
}

/// The fields of a category send, as received.
#[derive(Debug, Clone, Default)]
pub struct SendFields {
    pub to: Option<String>,
    pub category: Option<String>,
    pub body: Option<String>,
    pub message_content_json: Option<String>,
    pub idempotency_key: Option<String>,
}

impl SendFields {
    fn parse(&self) -> AppResult<Outgoing> {
        content::parse_category_send(
            self.to.as_deref(),
            self.category.as_deref(),
            self.body.as_deref(),
            self.message_content_json.as_deref(),
            self.idempotency_key.as_deref(),
        )
    }
}

/// Who is sending on behalf of which business.
struct Sender {
    business_id: Uuid,
    source: Source,
    app_id: Option<Uuid>,
    user_id: Option<Uuid>,
}

/// A console user's send (any role; `authentication` is reserved for app tokens).
pub async fn send_console(
    core: &Core,
    authorization: Option<&str>,
    fields: SendFields,
) -> AppResult<Uuid> {
    let console = console(core, authorization).await?;
    let outgoing = fields.parse()?;
    if outgoing.category == Category::Authentication {
        return Err(AppError::new(
            ErrorCode::AuthenticationReserved,
            "authentication messages are sent with an app token",
        ));
    }
    let sender = Sender {
        business_id: console.business.id,
        source: Source::Console,
        app_id: None,
        user_id: Some(console.user.id),
    };
    accept(core, sender, Some(console.business), outgoing).await
}

fn require_scope(app: &AppCaller, scope: Scope) -> AppResult<()> {
    if app.scopes.contains(scope) {
        Ok(())
    } else {
        Err(AppError::new(
            ErrorCode::AppScopeRequired,
            format!("this app token lacks the {} scope", scope.as_str()),
        ))
    }
}

fn mismatch() -> AppError {
    AppError::new(
        ErrorCode::AppBusinessMismatch,
        "this app token belongs to another business",
    )
}

/// An app-token send to the app's own business (`business_account_id`).
pub async fn send_app(
    core: &Core,
    authorization: Option<&str>,
    business_account_id: &str,
    fields: SendFields,
) -> AppResult<Uuid> {
    let app = authenticate_app(core, authorization).await?;
    if Uuid::parse_str(business_account_id.trim()).ok() != Some(app.app.business_id) {
        return Err(mismatch());
    }
    let outgoing = fields.parse()?;
    let scope = match outgoing.category {
        Category::Authentication => Scope::Authentication,
        Category::Utility => Scope::Utility,
        Category::Marketing => Scope::Marketing,
        Category::Service => Scope::Service,
    };
    require_scope(&app, scope)?;
    let sender = Sender {
        business_id: app.app.business_id,
        source: Source::App,
        app_id: Some(app.app.id),
        user_id: None,
    };
    accept(core, sender, None, outgoing).await
}

/// A service (free-form) send; `business_phone` is the business's own number.
pub async fn send_service(
    core: &Core,
    authorization: Option<&str>,
    business_phone: &str,
    to: Option<&str>,
    body: Option<&str>,
    idempotency_key: Option<&str>,
) -> AppResult<Uuid> {
    let app = authenticate_app(core, authorization).await?;
    let owner = identity_store::user_by_id(&core.db, app.app.business_id)
        .await?
        .ok_or_else(|| AppError::internal("business without owner"))?;
    let path_phone = PhoneNumber::parse(business_phone).map_err(|_| mismatch())?;
    if path_phone.as_str() != owner.phone_number {
        return Err(mismatch());
    }
    let outgoing = content::parse_service_send(to, body, idempotency_key)?;
    require_scope(&app, Scope::Service)?;
    let sender = Sender {
        business_id: app.app.business_id,
        source: Source::Service,
        app_id: Some(app.app.id),
        user_id: None,
    };
    accept(core, sender, None, outgoing).await
}

fn request_hash(sender: &Sender, outgoing: &Outgoing) -> String {
    let canonical = serde_json::json!({
        "source": sender.source.as_str(),
        "to": outgoing.to.as_str(),
        "category": outgoing.category.as_str(),
        "body": outgoing.body,
        "message_content": outgoing.content,
    });
    hex::encode(Sha256::digest(canonical.to_string().as_bytes()))
}

fn require_live(business: &business_accounts::Model) -> AppResult<()> {
    if BusinessStatus::from_db(&business.status)? == BusinessStatus::Suspended {
        return Err(AppError::new(
            ErrorCode::BusinessSuspended,
            "this business account is suspended",
        ));
    }
    if BusinessMode::from_db(&business.mode)? != BusinessMode::Live {
        return Err(AppError::new(
            ErrorCode::LiveBusinessRequired,
            "sends need a live business",
        ));
    }
    Ok(())
}

/// The checks from "business live" on, and the acceptance itself.
async fn accept(
    core: &Core,
    sender: Sender,
    business: Option<business_accounts::Model>,
    outgoing: Outgoing,
) -> AppResult<Uuid> {
    let business = match business {
        Some(b) => b,
        None => business_store::business(&core.db, sender.business_id)
            .await?
            .ok_or_else(|| AppError::new(ErrorCode::BusinessNotFound, "no such business"))?,
    };
    require_live(&business)?;
    let recipient = identity_store::user_by_phone(&core.db, outgoing.to.as_str())
        .await?
        .ok_or_else(|| {
            AppError::new(
                ErrorCode::RecipientNotFound,
                "no user has this phone number",
            )
        })?;

    let now = core.clock.now();
    let now_ms = now.timestamp_millis();
    let key = outgoing.idempotency_key.clone();
    if let Some(key) = &key {
        let hash = request_hash(&sender, &outgoing);
        let claim_until = now_ms + IDEMPOTENCY_CLAIM.as_millis() as i64;
        match store::claim_key(&core.db, business.id, key, &hash, now_ms, claim_until).await? {
            Claim::Claimed => {}
            Claim::Replay(id) => return Ok(id),
            Claim::Conflict => {
                return Err(AppError::new(
                    ErrorCode::IdempotencyKeyConflict,
                    "this Idempotency-Key was used for another request",
                ));
            }
            Claim::InProgress => {
                return Err(AppError::new(
                    ErrorCode::IdempotencyInProgress,
                    "a request with this Idempotency-Key is still being accepted",
                ));
            }
        }
    }
    let release_key = async || {
        if let Some(key) = &key
            && let Err(err) = store::release_key(&core.db, business.id, key).await
        {
            tracing::warn!(error = %err, "could not release an idempotency key");
        }
    };

    if let Err(err) = check_consent(core, business.id, recipient.id, outgoing.category).await {
        release_key().await;
        return Err(err);
    }

    let mut limits = vec![(
        format!("send:business:{}", business.id),
        Rate::per(
            core.limits.business_sends_per_second.max(1),
            Duration::from_secs(1),
        ),
    )];
    if outgoing.category == Category::Service {
        limits.push((
            format!("send:service:{}:{}", business.id, recipient.id),
            SERVICE_RATE,
        ));
    }
    let taken = match core
        .limiter
        .acquire(&limits, ErrorCode::BusinessSendRateLimited)
        .await
    {
        Ok(taken) => taken,
        Err(err) => {
            release_key().await;
            return Err(err);
        }
    };

    let id = Uuid::now_v7();
    let message = messages::Model {
        id,
        business_id: business.id,
        source: sender.source.as_str().to_string(),
        app_id: sender.app_id,
        sender_user_id: sender.user_id,
        recipient_user_id: recipient.id,
        to_phone: outgoing.to.as_str().to_string(),
        category: outgoing.category.as_str().to_string(),
        body: outgoing.body,
        message_content: outgoing.content.map(|c| c.to_string()),
        status: "accepted".to_string(),
        failure_reason: None,
        emits_event: sender.source == Source::App,
        created_at: now,
        completed_at: None,
    };
    let keep_until = now_ms + IDEMPOTENCY_RETENTION.as_millis() as i64;
    let key_record = key.as_deref().map(|k| (k, keep_until));
    if let Err(err) = store::accept(&core.db, message, key_record, now_ms).await {
        core.limiter.release(&taken).await;
        release_key().await;
        return Err(err);
    }
    core.dispatch_wakeup.notify_one();
    Ok(id)
}

async fn check_consent(
    core: &Core,
    business_id: Uuid,
    recipient_id: Uuid,
    category: Category,
) -> AppResult<()> {
    if category == Category::Authentication {
        return Ok(());
    }
    let follow = consent_store::follow(&core.db, business_id, recipient_id)
        .await?
        .filter(|f| f.status == ACTIVE)
        .ok_or_else(|| {
            AppError::new(
                ErrorCode::BusinessFollowRequired,
                "the recipient does not follow this business",
            )
        })?;
    if category == Category::Marketing && !follow.marketing_opt_in {
        return Err(AppError::new(
            ErrorCode::MarketingOptInRequired,
            "the recipient has not opted in to marketing",
        ));
    }
    Ok(())
}

/// The newest messages of the caller's business (`limit` 1 to 200, default 50).
///
/// Errors: `unauthorized`, `account_suspended`, `not_a_business_account`, `business_suspended`,
/// `invalid_limit`.
pub async fn history(
    core: &Core,
    authorization: Option<&str>,
    limit: Option<i64>,
) -> AppResult<Vec<messages::Model>> {
    let console = console(core, authorization).await?;
    console.require_active_business()?;
    let limit = limit.unwrap_or(50);
    if !(1..=200).contains(&limit) {
        return Err(AppError::new(
            ErrorCode::InvalidLimit,
            "limit must be 1 to 200",
        ));
    }
    store::recent(&core.db, console.business.id, limit as u64).await
}

/// Message and webhook totals of the caller's business.
#[derive(Debug, Clone, Default)]
pub struct MessageUsage {
    pub total: i64,
    pub accepted: i64,
    pub delivered: i64,
    pub failed: i64,
    pub by_category: BTreeMap<String, i64>,
    pub webhooks: crate::webhooks::service::DeliveryUsage,
}

/// Message totals of the caller's business.
///
/// Errors: `unauthorized`, `account_suspended`, `not_a_business_account`, `business_suspended`.
pub async fn usage(core: &Core, authorization: Option<&str>) -> AppResult<MessageUsage> {
    let console = console(core, authorization).await?;
    console.require_active_business()?;
    let mut usage = MessageUsage::default();
    for category in ["authentication", "utility", "marketing", "service"] {
        usage.by_category.insert(category.to_string(), 0);
    }
    for (status, category, n) in store::counts(&core.db, console.business.id).await? {
        usage.total += n;
        match status.as_str() {
            "accepted" => usage.accepted += n,
            "delivered" => usage.delivered += n,
            "failed" => usage.failed += n,
            _ => {}
        }
        *usage.by_category.entry(category).or_default() += n;
    }
    usage.webhooks = crate::webhooks::service::usage(core, console.business.id).await?;
    Ok(usage)
}
