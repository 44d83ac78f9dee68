//! The send rules, once for all three paths (console, app token, service), in DESIGN's order:
//! credential (401) -> the path's business matches the credential's (403) -> request shape (400)
//! -> scope (403) -> business live and active (403) -> recipient exists (400) -> idempotency
//! replay or conflict (200 / 409) -> follow and opt-in (403) -> rate limits (429).
//! Accepting writes the message, its outbox row and the key's claim in one transaction (shared
//! with concurrent sends: `writer.rs`) before answering.

use std::time::Duration;

use chrono::{DateTime, Utc};
use proto::ErrorCode;
use proto::vocabulary::{MessageSource, MessageStatus};
use sha2::{Digest, Sha256};
use uuid::Uuid;

use super::content::{self, Category, Outgoing};
use super::rules::{self, require_live};
use super::store::{self, Written};
use crate::caller::{AppToken, Console, invalid_app_token};
use crate::domain::{Scope, Scopes};
use crate::entities::messages;
use crate::error::{AppError, AppResult};
use crate::identity::tokens::hash_token;
use crate::limits::Rate;
use crate::state::Core;
use crate::templates::service as templates;

/// How long an Idempotency-Key is remembered.
pub const IDEMPOTENCY_RETENTION: Duration = Duration::from_secs(24 * 3600);

/// What a call to a send path asks for: the send itself, or only its answer (a send check:
/// every rule, nothing stored, no limit spent, the Idempotency-Key ignored).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Intent {
    Send,
    Check,
}

/// What a send path answered: the accepted message's id, or for a check that the send would
/// be accepted now.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Answer {
    Accepted(Uuid),
    WouldSend,
    /// A send decided from a kept context that no longer holds: nothing was stored or spent;
    /// to be decided again from a fresh read.
    Stale,
}

impl Answer {
    /// The accepted message's id (`Intent::Send` never answers `WouldSend`).
    pub(crate) fn id(self) -> AppResult<Uuid> {
        match self {
            Answer::Accepted(id) => Ok(id),
            Answer::WouldSend => Err(AppError::internal("a send was answered as a check")),
            Answer::Stale => Err(AppError::internal("a send was left undecided")),
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
    /// JSON text: `{"name", "version"?, "variables", "locale"?}`.
    pub template_json: Option<String>,
    pub idempotency_key: Option<String>,
    pub timing: RawTiming,
}

/// `send_at` and `expires_at` as received (RFC 3339), part of an Idempotency-Key's content as
/// sent.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RawTiming {
    pub send_at: Option<String>,
    pub expires_at: Option<String>,
}

/// How far ahead `send_at` and `expires_at` may be.
pub const MAX_AHEAD: Duration = Duration::from_secs(30 * 24 * 3600);

/// When a send is handed out and until when it may be.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Timing {
    /// As given (null when not given); a past or present time means now.
    pub send_at: Option<DateTime<Utc>>,
    pub expires_at: Option<DateTime<Utc>>,
}

impl Timing {
    /// Whether the message waits for its time (`scheduled`) rather than going out now.
    pub fn scheduled(&self, now: DateTime<Utc>) -> bool {
        self.send_at.is_some_and(|at| at > now)
    }
}

impl RawTiming {
    /// Checks the times against `now`: each an RFC 3339 date-time at most 30 days ahead,
    /// `expires_at` after `send_at` (or after now without it). Errors: `invalid_request`
    /// naming the field.
    pub fn check(&self, now: DateTime<Utc>) -> AppResult<Timing> {
        let bad = |field: &str, why: &str| {
            AppError::new(ErrorCode::InvalidRequest, format!("{field}: {why}"))
        };
        let latest = now + chrono::TimeDelta::from_std(MAX_AHEAD).expect("30 days");
        let parse = |field: &str, value: &Option<String>| -> AppResult<Option<DateTime<Utc>>> {
            let Some(value) = value else {
                return Ok(None);
            };
            let at = DateTime::parse_from_rfc3339(value.trim())
                .map_err(|_| bad(field, "an RFC 3339 date-time, e.g. 2026-12-01T09:00:00Z"))?
                .with_timezone(&Utc);
            if at > latest {
                return Err(bad(field, "at most 30 days ahead"));
            }
            Ok(Some(at))
        };
        let send_at = parse("send_at", &self.send_at)?;
        let expires_at = parse("expires_at", &self.expires_at)?;
        if let Some(expires) = expires_at {
            let from = send_at.map_or(now, |at| at.max(now));
            if expires <= from {
                return Err(bad(
                    "expires_at",
                    if send_at.is_some() {
                        "after send_at"
                    } else {
                        "in the future"
                    },
                ));
            }
        }
        Ok(Timing {
            send_at,
            expires_at,
        })
    }
}

impl SendFields {
    pub(super) fn parse(&self) -> AppResult<Outgoing> {
        content::parse_category_send(
            self.to.as_deref(),
            self.category.as_deref(),
            content::RawContent {
                body: self.body.as_deref(),
                content_json: self.message_content_json.as_deref(),
                template_json: self.template_json.as_deref(),
            },
            self.idempotency_key.as_deref(),
        )
    }
}

/// Who is sending on behalf of which business.
pub(crate) struct Sender {
    pub(crate) business_id: Uuid,
    pub(crate) source: MessageSource,
    pub(crate) app_id: Option<Uuid>,
    pub(crate) user_id: Option<Uuid>,
    /// When the send is decided from a kept context: what its write must find unchanged.
    pub(crate) check: Option<store::ContextCheck>,
}

/// A console user's send (any role; `authentication` is reserved for app tokens).
pub async fn send_console(core: &Core, console: &Console, fields: SendFields) -> AppResult<Uuid> {
    console_send(core, console, fields, Intent::Send)
        .await?
        .id()
}

/// What the console send of `fields` would answer now, without its Idempotency-Key.
pub async fn check_console(core: &Core, console: &Console, fields: SendFields) -> AppResult<()> {
    let fields = SendFields {
        idempotency_key: None,
        ..fields
    };
    console_send(core, console, fields, Intent::Check).await?;
    Ok(())
}

async fn console_send(
    core: &Core,
    console: &Console,
    fields: SendFields,
    intent: Intent,
) -> AppResult<Answer> {
    let outgoing = fields.parse()?;
    let timing = fields.timing.check(core.clock.now())?;
    if outgoing.category == Category::Authentication {
        return Err(AppError::new(
            ErrorCode::AuthenticationReserved,
            "authentication messages are sent with an app token",
        ));
    }
    require_live(console.business.status, console.business.mode)?;
    let recipient =
        store::recipient_state(&core.db, console.business.id, outgoing.to.as_str()).await?;
    let sender = Sender {
        business_id: console.business.id,
        source: MessageSource::Console,
        app_id: None,
        user_id: Some(console.user.id),
        check: None,
    };
    accept(
        core,
        sender,
        recipient,
        outgoing,
        (fields.timing, timing),
        intent,
        None,
    )
    .await
}

pub(crate) fn require_scope(scopes: &Scopes, scope: Scope) -> AppResult<()> {
    if scopes.contains(scope) {
        Ok(())
    } else {
        Err(AppError::new(
            ErrorCode::AppScopeRequired,
            format!("this app token lacks the {} scope", scope.as_str()),
        ))
    }
}

pub(crate) fn mismatch() -> AppError {
    AppError::new(
        ErrorCode::AppBusinessMismatch,
        "this app token belongs to another business",
    )
}

/// The app behind the credential and everything the checks need, in one read. `to` is the
/// recipient's number when the request names a valid one.
pub(crate) async fn app_context(
    core: &Core,
    token: &AppToken,
    to: Option<&str>,
) -> AppResult<(store::AppSendContext, Scopes)> {
    let context = core
        .send_reads
        .read(hash_token(token.as_str()), to.map(str::to_string))
        .await?
        .ok_or_else(invalid_app_token)?;
    let scopes = Scopes::from_db(&context.scopes)?;
    Ok((context, scopes))
}

pub(crate) fn business_of(context: &store::AppSendContext) -> AppResult<&store::BusinessState> {
    context
        .business
        .as_ref()
        .ok_or_else(|| AppError::new(ErrorCode::BusinessNotFound, "no such business"))
}

pub(crate) fn request_hash(sender: &Sender, outgoing: &Outgoing, timing: &RawTiming) -> String {
    let mut canonical = serde_json::json!({
        "source": sender.source.as_str(),
        "to": outgoing.to.as_str(),
        "category": outgoing.category.as_str(),
        "body": outgoing.body,
        "message_content": outgoing.content,
    });
    // Only when given, so that keys claimed before templates existed keep their hash.
    if let Some(template) = &outgoing.template {
        canonical["template"] = template.canonical();
    }
    // Only when given, so that keys claimed before send times existed keep their hash.
    if let Some(send_at) = &timing.send_at {
        canonical["send_at"] = serde_json::Value::String(send_at.clone());
    }
    if let Some(expires_at) = &timing.expires_at {
        canonical["expires_at"] = serde_json::Value::String(expires_at.clone());
    }
    hex::encode(Sha256::digest(canonical.to_string().as_bytes()))
}

/// What a key already holds decides before a later check refuses: a replay gets its id even
/// if the recipient has unfollowed since or the business is at its limit (DESIGN's order).
pub(crate) async fn earlier_answer(
    core: &Core,
    business_id: Uuid,
    key: Option<&store::KeyClaim>,
    refusal: AppError,
) -> AppResult<Uuid> {
    let Some(claim) = key else {
        return Err(refusal);
    };
    let Some(existing) =
        store::live_key(&core.db, business_id, &claim.key, core.clock.now_ms()).await?
    else {
        return Err(refusal);
    };
    if existing.request_hash != claim.request_hash {
        return Err(AppError::key_conflict());
    }
    existing.message_id.ok_or_else(AppError::key_in_progress)
}

/// A refusal before the write: the key's earlier answer, or the refusal; for a send decided
/// from a kept context, neither (`Stale`: the fresh read decides, credential first).
pub(crate) async fn refused(
    core: &Core,
    sender: &Sender,
    key: Option<&store::KeyClaim>,
    refusal: AppError,
) -> AppResult<Answer> {
    if sender.check.is_some() {
        return Ok(Answer::Stale);
    }
    earlier_answer(core, sender.business_id, key, refusal)
        .await
        .map(Answer::Accepted)
}

/// The checks from "recipient exists" on, and the acceptance itself: the message and its outbox
/// row are committed (with the key's claim, in a shared transaction) before this returns. A
/// check stops before the first write, reading what the writes would have checked.
pub(crate) async fn accept(
    core: &Core,
    mut sender: Sender,
    recipient: store::RecipientState,
    mut outgoing: Outgoing,
    (raw_timing, timing): (RawTiming, Timing),
    intent: Intent,
    thread: Option<store::ThreadSend>,
) -> AppResult<Answer> {
    let recipient_id = recipient.user_id.ok_or_else(|| {
        AppError::new(
            ErrorCode::RecipientNotFound,
            "no user has this phone number",
        )
    })?;

    let now = core.clock.now();
    let now_ms = now.timestamp_millis();
    let key = outgoing
        .idempotency_key
        .as_ref()
        .map(|key| store::KeyClaim {
            key: key.clone(),
            request_hash: request_hash(&sender, &outgoing, &raw_timing),
            keep_until_ms: now_ms + IDEMPOTENCY_RETENTION.as_millis() as i64,
        });

    let mut template_ref = None;
    if let Some(send) = &outgoing.template {
        // The recipient's own language counts only while they follow the business.
        let follows = recipient.follow_status == Some(proto::vocabulary::FollowStatus::Active);
        // A send decided from a kept context renders from the kept template row when there is
        // one, its write checking that row with the context; else the template is read now.
        let kept = sender.check.as_mut().and_then(|check| {
            let language = recipient.language.as_deref().filter(|_| follows);
            let kept = templates::resolve_kept(
                core,
                sender.business_id,
                send,
                outgoing.category,
                language,
            )?;
            Some(kept.map(|(resolved, row)| {
                check.template = Some(row);
                resolved
            }))
        });
        metrics::counter!(
            "send_templates_total",
            "template" => if kept.is_some() { "kept" } else { "read" },
        )
        .increment(1);
        let resolved = match kept {
            Some(kept) => kept,
            None => {
                let follower = follows.then_some(recipient_id);
                templates::resolve(core, sender.business_id, send, outgoing.category, follower)
                    .await
            }
        };
        let resolved = match resolved {
            Ok(resolved) => resolved,
            // The template's refusals come after the replay: a key that already holds this
            // request answers the original whatever became of the template since (and one
            // holding another request is a conflict). A key still free is the writer's to
            // claim, so the happy path reads nothing more. (From a kept context, the fresh
            // read decides.)
            Err(refusal) if refusal.code.http_status() < 500 => {
                return refused(core, &sender, key.as_ref(), refusal).await;
            }
            Err(err) => return Err(err),
        };
        outgoing.body = resolved.body;
        outgoing.content = resolved.content;
        template_ref = Some(resolved.reference.to_string());
    }

    if let Err(refusal) = rules::check_consent(
        recipient.follow_status,
        recipient.marketing_opt_in,
        outgoing.category,
    ) {
        return refused(core, &sender, key.as_ref(), refusal).await;
    }

    let budget_key = format!("send:business:{}", sender.business_id);
    let rate = Rate::per(
        core.limits.business_sends_per_second.max(1),
        Duration::from_secs(1),
    );
    if intent == Intent::Check {
        core.send_budget
            .peek(&budget_key, rate, ErrorCode::BusinessSendRateLimited)
            .await?;
        if let Some(thread) = &thread {
            let wait =
                crate::limits::peek_in(&core.db, &thread.key, thread.rate, now_ms * 1000).await?;
            if let Some(wait) = wait {
                return Err(replies_limited(wait));
            }
        } else if outgoing.category == Category::Service {
            let at = timing.send_at.map_or(now, |at| at.max(now));
            let spacing = rules::SERVICE_SPACING;
            if let Some(other) =
                store::service_conflict(&core.db, sender.business_id, recipient_id, at, spacing)
                    .await?
            {
                return Err(service_limited(rules::service_wait_after(other, now_ms)));
            }
        }
        return Ok(Answer::WouldSend);
    }
    if let Err(refusal) = core
        .send_budget
        .take(&budget_key, rate, ErrorCode::BusinessSendRateLimited)
        .await
    {
        return refused(core, &sender, key.as_ref(), refusal).await;
    }

    // Aged by `created_at`: see `clock::id_at`.
    let id = crate::clock::id_at(now);
    let outgoing_category = outgoing.category.as_str();
    let service_limit =
        (outgoing.category == Category::Service && thread.is_none()).then(|| store::ServiceLimit {
            key: format!("send:service:{}:{}", sender.business_id, recipient_id),
            spacing: rules::SERVICE_SPACING,
        });
    let message = messages::Model {
        id,
        business_id: sender.business_id,
        source: sender.source,
        app_id: sender.app_id,
        sender_user_id: sender.user_id,
        recipient_user_id: recipient_id,
        to_phone: outgoing.to.as_str().to_string(),
        category: outgoing.category,
        body: outgoing.body,
        message_content: outgoing.content.map(|c| c.to_string()),
        status: if timing.scheduled(now) {
            MessageStatus::Scheduled
        } else {
            MessageStatus::Accepted
        },
        failure_reason: None,
        emits_event: sender.source == MessageSource::App || thread.is_some(),
        created_at: now,
        completed_at: None,
        send_at: timing.send_at,
        expires_at: timing.expires_at,
        broadcast_id: None,
        conversation_id: thread.as_ref().map(|t| t.conversation_id),
        reply_to: thread.as_ref().and_then(|t| t.reply_to),
        template: template_ref,
    };
    let source_label = sender.source.as_str();
    let category_label = outgoing_category;
    let written = core
        .sends
        .write(store::NewSend {
            message,
            key,
            service_limit,
            check: sender.check,
            thread,
        })
        .await;
    let answer = match written {
        Ok(Written::Accepted) => {
            core.dispatch_wakeup.notify_one();
            metrics::counter!(
                "messages_accepted_total",
                "source" => source_label,
                "category" => category_label,
            )
            .increment(1);
            return Ok(Answer::Accepted(id));
        }
        Ok(Written::Replay(original)) => Ok(Answer::Accepted(original)),
        Ok(Written::Stale) => Ok(Answer::Stale),
        Ok(Written::Conflict) => Err(AppError::key_conflict()),
        Ok(Written::InProgress) => Err(AppError::key_in_progress()),
        Ok(Written::RepliesLimited(wait)) => Err({
            crate::limits::count_refusal("conversation_replies");
            replies_limited(wait)
        }),
        Ok(Written::Limited(other)) => Err({
            crate::limits::count_refusal("service_recipient");
            service_limited(rules::service_wait_after(other, now_ms))
        }),
        Err(err) => Err(err),
    };
    // Nothing was sent: the unit goes back.
    core.send_budget.refund(&budget_key).await;
    answer
}

fn service_limited(wait: Duration) -> AppError {
    AppError::retry_after(
        ErrorCode::BusinessSendRateLimited,
        wait,
        "one service message per recipient per minute of send time",
    )
}

fn replies_limited(wait: Duration) -> AppError {
    AppError::retry_after(
        ErrorCode::BusinessSendRateLimited,
        wait,
        "REPLIES_PER_MINUTE: too many replies in this conversation",
    )
}
