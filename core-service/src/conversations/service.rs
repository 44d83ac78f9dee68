//! The conversation rules (DESIGN, "Conversations"): the user's side (writing, the list of
//! threads, a thread, the read mark) and the business's side (its conversations, their threads,
//! replies in the send order with the window, read marks, assignment, labels, blocks).

use std::time::Duration;

use chrono::{DateTime, TimeDelta, Utc};
use proto::ErrorCode;
use proto::vocabulary::{
    BroadcastCategory, BusinessMode, BusinessStatus, Category, ConversationStatus, EventType,
    FollowStatus, MessageSource, MessageStatus, Role, UserStatus, WindowState,
};
use sea_orm::TransactionTrait;
use uuid::Uuid;

use super::store::{self, Position, Side};
use super::writer::{Pending, replay};
use crate::business::store as business_store;
use crate::caller::{AppToken, Console, User, UserToken};
use crate::clock::rfc3339;
use crate::domain::{Scope, Scopes};
use crate::entities::{conversations, inbound_messages, read_marks};
use crate::error::{AppError, AppResult};
use crate::limits::Rate;
use crate::messaging::content::{self, Outgoing};
use crate::messaging::service::{Answer, Intent, RawTiming, Timing};
use crate::messaging::store::{RecipientState, ThreadSend};
use crate::state::Core;
use crate::usage::Tally;

/// The longest user message, in characters.
pub const MAX_TEXT: usize = 4096;

/// The longest label, in characters.
pub const MAX_LABEL: usize = 100;

fn invalid(detail: impl Into<String>) -> AppError {
    AppError::new(ErrorCode::InvalidRequest, detail)
}

fn not_found() -> AppError {
    AppError::new(ErrorCode::ConversationNotFound, "no such conversation")
}

fn business_not_found() -> AppError {
    AppError::new(ErrorCode::BusinessNotFound, "no such business")
}

fn window(core: &Core) -> TimeDelta {
    TimeDelta::hours(i64::from(core.limits.service_window_hours))
}

/// When the window of a conversation whose user last wrote at `last_inbound_at` closes.
pub fn window_expires_at(core: &Core, last_inbound_at: DateTime<Utc>) -> DateTime<Utc> {
    last_inbound_at + window(core)
}

/// A user message's text: 1 to 4,096 characters, not only spaces.
fn parse_text(text: Option<&str>) -> AppResult<String> {
    let text = text.unwrap_or_default();
    if text.trim().is_empty() || text.chars().count() > MAX_TEXT {
        return Err(invalid("text: 1 to 4,096 characters"));
    }
    Ok(text.to_string())
}

fn parse_uuid(field: &str, value: Option<&str>) -> AppResult<Option<Uuid>> {
    value
        .map(|v| Uuid::parse_str(v.trim()).map_err(|_| invalid(format!("{field}: a message id"))))
        .transpose()
}

// ---------------------------------------------------------------------------------------------
// The user's side.

/// A user's message to a business, as received.
#[derive(Debug, Clone, Default)]
pub struct UserMessage {
    pub business_account_id: String,
    pub text: Option<String>,
    pub reply_to: Option<String>,
    pub client_message_id: Option<String>,
}

/// A user writes to a business (DESIGN's order: the token's user, shape, business, the replay
/// of a client message id, who may write, `reply_to`, the block, the per-user limit). The
/// message, the conversation's update and `message.received` are one transaction, shared with
/// other users' messages (`intake.rs`).
///
/// A well-formed message without `reply_to` is queued at once: the intake decides all of it,
/// reading its batch's writers and businesses in one statement. Any other is decided up to
/// `reply_to` here first, so its errors come in the same order, and decided again in the batch.
///
/// Errors: `unauthorized`, `account_suspended`, `invalid_request`, `business_not_found`,
/// `idempotency_key_conflict`, `idempotency_in_progress`, `business_not_live`,
/// `business_follow_required`, `conversation_blocked`, `rate_limited`.
pub async fn write(
    core: &Core,
    token: &UserToken,
    request: UserMessage,
) -> AppResult<inbound_messages::Model> {
    let user_id = token.user_id();
    let text = parse_text(request.text.as_deref());
    let client_id = request
        .client_message_id
        .as_deref()
        .map(|v| Uuid::parse_str(v.trim()).map_err(|_| invalid("client_message_id: a UUID")))
        .transpose();
    let reply_to = parse_uuid("reply_to", request.reply_to.as_deref());
    let business_id = Uuid::parse_str(request.business_account_id.trim()).ok();
    match (text, client_id, reply_to, business_id) {
        (Ok(text), Ok(client_id), Ok(None), Some(business_id)) => {
            core.inbound
                .write(Pending {
                    business_id,
                    user_id,
                    client_id,
                    text,
                    reply_to: None,
                })
                .await
        }
        (text, client_id, reply_to, business_id) => {
            write_checked(core, user_id, text, client_id, reply_to, business_id).await
        }
    }
}

/// [`write`] of a malformed message or one with `reply_to`: decided here up to `reply_to`, in
/// DESIGN's order, then queued.
async fn write_checked(
    core: &Core,
    user_id: Uuid,
    text: AppResult<String>,
    client_id: AppResult<Option<Uuid>>,
    reply_to: AppResult<Option<Uuid>>,
    business_id: Option<Uuid>,
) -> AppResult<inbound_messages::Model> {
    // No business id is no business: the nil id finds none, and the user is still read.
    let pair = (business_id.unwrap_or_default(), user_id);
    let context = store::writer_contexts(&core.db, &[pair])
        .await?
        .remove(&pair);
    crate::caller::admit(context.as_ref().map(|c| c.user_status))?;
    let (text, client_id, reply_to) = (text?, client_id?, reply_to?);
    let business = context
        .as_ref()
        .and_then(|c| c.business.as_ref())
        .ok_or_else(business_not_found)?;
    if let Some(client_id) = client_id
        && let Some(existing) = store::by_client_ids(&core.db, &[(user_id, client_id)])
            .await?
            .remove(&(user_id, client_id))
    {
        return replay(existing, pair.0, &text);
    }
    may_write(business)?;
    if let Some(reply_to) = reply_to
        && !visible_to_user(core, pair.0, user_id, reply_to).await?
    {
        return Err(invalid("reply_to: not a message of this thread"));
    }

    core.inbound
        .write(Pending {
            business_id: pair.0,
            user_id,
            client_id,
            text,
            reply_to,
        })
        .await
}

/// The writer of a well-formed message admitted (their token's user exists and is active) and
/// the business found: its side of the context.
///
/// Errors: `unauthorized`, `account_suspended`, `business_not_found`.
pub(super) fn admitted(context: Option<&store::WriterContext>) -> AppResult<&store::BusinessSide> {
    crate::caller::admit(context.map(|c| c.user_status))?;
    context
        .and_then(|c| c.business.as_ref())
        .ok_or_else(business_not_found)
}

/// Who may write to a business: anyone following it while it is active and live, its own team
/// while it is active.
///
/// Errors: `business_not_live`, `business_follow_required`.
pub(super) fn may_write(business: &store::BusinessSide) -> AppResult<()> {
    if business.status != BusinessStatus::Active
        || (!business.member && business.mode != BusinessMode::Live)
    {
        return Err(AppError::new(
            ErrorCode::BusinessNotLive,
            "this business is not live",
        ));
    }
    if !business.member && business.follow != Some(FollowStatus::Active) {
        return Err(AppError::new(
            ErrorCode::BusinessFollowRequired,
            "follow this business to write to it",
        ));
    }
    Ok(())
}

/// Whether message `id` is one the user sees in their thread with the business: their own, or
/// a business message delivered to them.
async fn visible_to_user(
    core: &Core,
    business_id: Uuid,
    user_id: Uuid,
    id: Uuid,
) -> AppResult<bool> {
    Ok(user_position(core, business_id, user_id, id)
        .await?
        .is_some())
}

/// The position of a message the user sees (None: not one).
async fn user_position(
    core: &Core,
    business_id: Uuid,
    user_id: Uuid,
    id: Uuid,
) -> AppResult<Option<Position>> {
    if let Some(own) = store::inbound(&core.db, business_id, user_id, id).await? {
        return Ok(Some((own.received_at, own.id)));
    }
    Ok(store::outbound(&core.db, business_id, user_id, id)
        .await?
        .filter(|m| m.status == MessageStatus::Delivered)
        .map(|m| store::outbound_position(&m)))
}

/// The position of any message of the pair's thread (None: not one).
async fn thread_position(
    core: &Core,
    business_id: Uuid,
    user_id: Uuid,
    id: Uuid,
) -> AppResult<Option<Position>> {
    if let Some(own) = store::inbound(&core.db, business_id, user_id, id).await? {
        return Ok(Some((own.received_at, own.id)));
    }
    Ok(store::outbound(&core.db, business_id, user_id, id)
        .await?
        .map(|m| store::outbound_position(&m)))
}

/// One business in the user's list of threads.
#[derive(Debug, Clone)]
pub struct MyConversation {
    pub business_id: Uuid,
    pub business_name: String,
    pub last_message_at: DateTime<Utc>,
    pub unread: i64,
    pub window_expires_at: Option<DateTime<Utc>>,
}

/// Every business the user has a thread with, newest activity first, `limit` at a time after
/// `starting_after` (a business id of the previous page).
///
/// Errors: `invalid_limit`, `invalid_request` (a cursor that is not a business of the list).
pub async fn my_conversations(
    core: &Core,
    user: &User,
    limit: Option<i64>,
    starting_after: Option<&str>,
) -> AppResult<(Vec<MyConversation>, bool)> {
    let limit = crate::domain::page_limit(limit)?;
    let threads = store::user_threads(&core.db, user.id).await?;
    let start = match starting_after {
        None => 0,
        Some(cursor) => {
            let bad = || invalid("starting_after: not a business of your conversations");
            let id = Uuid::parse_str(cursor.trim()).map_err(|_| bad())?;
            threads
                .iter()
                .position(|t| t.business_id == id)
                .ok_or_else(bad)?
                + 1
        }
    };
    let rows: Vec<MyConversation> = threads
        .into_iter()
        .skip(start)
        .take(limit as usize + 1)
        .map(|t| MyConversation {
            business_id: t.business_id,
            business_name: t.business_name,
            last_message_at: t.last_message_at,
            unread: t.unread,
            window_expires_at: t.last_inbound_at.map(|at| window_expires_at(core, at)),
        })
        .collect();
    Ok(crate::domain::split_page(rows, limit))
}

/// A thread entry, for either side.
#[derive(Debug, Clone)]
pub struct Entry {
    pub id: Uuid,
    pub inbound: bool,
    pub at: DateTime<Utc>,
    pub category: Option<Category>,
    pub body: Option<String>,
    pub message_content: Option<String>,
    pub status: Option<MessageStatus>,
    pub reply_to: Option<Uuid>,
    pub sequence: Option<i32>,
    pub conversation_id: Option<Uuid>,
    pub read_at: Option<DateTime<Utc>>,
}

/// A page of a thread, newest first.
pub type Page = (Vec<Entry>, bool);

/// Which side reads a thread.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Reader {
    User,
    /// The business, and whether the user shows their reads.
    Business {
        receipts: bool,
    },
}

/// The first advance among `advances` (oldest first) at or after `position` made after
/// `not_before`.
fn covered_at(
    advances: &[read_marks::Model],
    position: Position,
    not_before: Option<DateTime<Utc>>,
    receipts_only: bool,
) -> Option<DateTime<Utc>> {
    advances
        .iter()
        .filter(|a| (a.up_to_at, a.up_to_id) >= position)
        .filter(|a| not_before.is_none_or(|t| a.read_at >= t))
        .find(|a| !receipts_only || a.receipts)
        .map(|a| a.read_at)
}

async fn thread_page(
    core: &Core,
    business_id: Uuid,
    user_id: Uuid,
    conversation: Option<&conversations::Model>,
    reader: Reader,
    before: Option<Position>,
    limit: u64,
) -> AppResult<Page> {
    let inbound = match conversation {
        Some(c) => store::inbound_page(&core.db, c.id, before, limit + 1).await?,
        None => Vec::new(),
    };
    let outbound = store::outbound_page(
        &core.db,
        business_id,
        user_id,
        before,
        reader == Reader::User,
        limit + 1,
    )
    .await?;
    let mut entries: Vec<(Position, Entry)> = Vec::with_capacity(inbound.len() + outbound.len());
    for m in inbound {
        entries.push((
            (m.received_at, m.id),
            Entry {
                id: m.id,
                inbound: true,
                at: m.received_at,
                category: None,
                body: Some(m.body),
                message_content: None,
                status: None,
                reply_to: m.reply_to,
                sequence: Some(m.sequence),
                conversation_id: Some(m.conversation_id),
                read_at: None,
            },
        ));
    }
    let mut delivered_at = std::collections::HashMap::new();
    for m in outbound {
        let position = store::outbound_position(&m);
        if m.status == MessageStatus::Delivered {
            delivered_at.insert(m.id, m.completed_at);
        }
        let content = match reader {
            Reader::User => m.message_content,
            Reader::Business { .. } => content::masked_for_business(m.category, m.message_content),
        };
        entries.push((
            position,
            Entry {
                id: m.id,
                inbound: false,
                at: position.0,
                category: Some(m.category),
                body: m.body,
                message_content: content,
                status: matches!(reader, Reader::Business { .. }).then_some(m.status),
                reply_to: m.reply_to,
                sequence: None,
                conversation_id: m.conversation_id,
                read_at: None,
            },
        ));
    }
    entries.sort_by_key(|(position, _)| std::cmp::Reverse(*position));
    let (mut entries, has_more) = crate::domain::split_page(entries, limit);
    if let Some((oldest, _)) = entries.last() {
        let oldest = *oldest;
        let business_reads =
            store::advances_from(&core.db, business_id, user_id, Side::Business, Some(oldest))
                .await?;
        let show_user_reads = match reader {
            Reader::User => true,
            Reader::Business { receipts } => receipts,
        };
        let user_reads = if show_user_reads {
            store::advances_from(&core.db, business_id, user_id, Side::User, Some(oldest)).await?
        } else {
            Vec::new()
        };
        for (position, entry) in &mut entries {
            entry.read_at = if entry.inbound {
                covered_at(&business_reads, *position, None, false)
            } else {
                match delivered_at.get(&entry.id) {
                    Some(delivered) => covered_at(
                        &user_reads,
                        *position,
                        *delivered,
                        matches!(reader, Reader::Business { .. }),
                    ),
                    None => None,
                }
            };
        }
    }
    Ok((entries.into_iter().map(|(_, e)| e).collect(), has_more))
}

async fn business_exists(core: &Core, business_account_id: &str) -> AppResult<Uuid> {
    let id = Uuid::parse_str(business_account_id.trim()).map_err(|_| business_not_found())?;
    business_store::business(&core.db, id)
        .await?
        .ok_or_else(business_not_found)?;
    Ok(id)
}

/// The user's thread with a business, newest first (their messages and the business's
/// delivered ones; empty when nothing was exchanged).
///
/// Errors: `invalid_limit`, `invalid_request` (cursor), `business_not_found`.
pub async fn user_thread(
    core: &Core,
    user: &User,
    business_account_id: &str,
    limit: Option<i64>,
    starting_after: Option<&str>,
) -> AppResult<Page> {
    let limit = crate::domain::page_limit(limit)?;
    let business_id = business_exists(core, business_account_id).await?;
    let user_id = user.id;
    let before = match starting_after {
        None => None,
        Some(cursor) => {
            let bad = || invalid("starting_after: not a message of this thread");
            let id = Uuid::parse_str(cursor.trim()).map_err(|_| bad())?;
            Some(
                user_position(core, business_id, user_id, id)
                    .await?
                    .ok_or_else(bad)?,
            )
        }
    };
    let conversation = store::pair(&core.db, business_id, user_id).await?;
    thread_page(
        core,
        business_id,
        user_id,
        conversation.as_ref(),
        Reader::User,
        before,
        limit,
    )
    .await
}

/// A read mark as answered: the message it stands on and when it last moved.
#[derive(Debug, Clone, Default)]
pub struct Mark {
    pub read_up_to: Option<Uuid>,
    pub read_at: Option<DateTime<Utc>>,
}

impl From<Option<read_marks::Model>> for Mark {
    fn from(mark: Option<read_marks::Model>) -> Mark {
        Mark {
            read_up_to: mark.as_ref().map(|m| m.up_to_id),
            read_at: mark.map(|m| m.read_at),
        }
    }
}

/// Moves the user's read mark forward to `up_to` (a message they see); never back. An advance
/// over delivered business messages emits `message.read` when the user's read receipts are on.
///
/// Errors: `invalid_request`, `business_not_found`.
pub async fn user_read(
    core: &Core,
    user: &User,
    business_account_id: &str,
    up_to: Option<&str>,
) -> AppResult<Mark> {
    let business_id = business_exists(core, business_account_id).await?;
    let user_id = user.id;
    let bad = || invalid("up_to: a message of this thread you can see");
    let up_to = parse_uuid("up_to", up_to)?.ok_or_else(bad)?;
    let position = user_position(core, business_id, user_id, up_to)
        .await?
        .ok_or_else(bad)?;
    let receipts = store::user(&core.db, user_id)
        .await?
        .is_none_or(|u| u.read_receipts);
    let now = core.clock.now();
    let txn = core.db.begin().await?;
    // Advances of one pair's mark take turns: each sees the one before.
    crate::limits::hold(
        &txn,
        &format!("read:{business_id}:{user_id}"),
        now.timestamp_millis() + 60_000,
    )
    .await?;
    let current = store::mark(&txn, business_id, user_id, Side::User).await?;
    let from = current.as_ref().map(|m| (m.up_to_at, m.up_to_id));
    if from.is_some_and(|from| from >= position) {
        return Ok(current.into());
    }
    store::record_mark(
        &txn,
        business_id,
        user_id,
        Side::User,
        position,
        now,
        receipts,
    )
    .await?;
    let mut tally = Tally::new();
    let mut queued = 0;
    if receipts
        && store::delivered_between(&txn, business_id, user_id, from, Some(position)).await? > 0
    {
        let conversation = store::pair(&txn, business_id, user_id).await?;
        let data = serde_json::json!({
            "conversation_id": conversation.map(|c| c.id),
            "user_id": user_id,
            "read_up_to": up_to,
            "read_at": rfc3339(now),
        });
        queued = crate::events::record(
            &txn,
            business_id,
            EventType::MessageRead,
            data,
            now,
            &mut tally,
        )
        .await?;
    }
    tally.apply(&txn).await?;
    txn.commit().await?;
    if queued > 0 {
        core.webhook_wakeup.wake();
    }
    Ok(Mark {
        read_up_to: Some(up_to),
        read_at: Some(now),
    })
}

// ---------------------------------------------------------------------------------------------
// The business's side.

/// Who calls a business-side route: a console user, or an app token for the business in the
/// path (the `/v1` twins).
pub enum Credential {
    Console(Console),
    App(AppToken, String),
}

/// The business a business-side call acts for, and what the caller may do in it.
#[derive(Debug, Clone)]
pub struct Acting {
    pub business_id: Uuid,
    status: BusinessStatus,
    mode: BusinessMode,
    source: MessageSource,
    app_id: Option<Uuid>,
    /// The console user.
    user_id: Option<Uuid>,
    role: Option<Role>,
    scopes: Option<Scopes>,
}

impl Acting {
    /// Resolves the credential (`invalid_app_token`, `app_business_mismatch`).
    pub async fn of(core: &Core, credential: Credential) -> AppResult<Acting> {
        match credential {
            Credential::Console(console) => {
                let status = if console.owner_active {
                    console.business.status
                } else {
                    BusinessStatus::Suspended
                };
                Ok(Acting {
                    business_id: console.business.id,
                    status,
                    mode: console.business.mode,
                    source: MessageSource::Console,
                    app_id: None,
                    user_id: Some(console.user.id),
                    role: Some(console.role),
                    scopes: None,
                })
            }
            Credential::App(token, path_business) => {
                let (context, scopes) =
                    crate::messaging::service::app_context(core, &token, None).await?;
                if Uuid::parse_str(path_business.trim()).ok() != Some(context.business_id) {
                    return Err(crate::messaging::service::mismatch());
                }
                let business = crate::messaging::service::business_of(&context)?;
                Ok(Acting {
                    business_id: context.business_id,
                    status: business.status,
                    mode: business.mode,
                    source: MessageSource::App,
                    app_id: Some(context.app_id),
                    user_id: None,
                    role: None,
                    scopes: Some(scopes),
                })
            }
        }
    }

    fn require_scope(&self, scope: Scope) -> AppResult<()> {
        match &self.scopes {
            Some(scopes) => crate::messaging::service::require_scope(scopes, scope),
            None => Ok(()),
        }
    }

    /// What every route but the send needs first: scope `service` (app tokens), then an active
    /// business.
    fn require_reader(&self) -> AppResult<()> {
        self.require_scope(Scope::Service)?;
        crate::messaging::rules::require_active(self.status)
    }

    fn require_manager(&self) -> AppResult<()> {
        match self.role {
            Some(Role::Owner | Role::Admin) => Ok(()),
            _ => Err(AppError::new(
                ErrorCode::InsufficientRole,
                "this needs the owner or an admin",
            )),
        }
    }
}

async fn conversation_of(
    core: &Core,
    acting: &Acting,
    id: &str,
) -> AppResult<conversations::Model> {
    let id = Uuid::parse_str(id.trim()).map_err(|_| not_found())?;
    store::find(&core.db, acting.business_id, id)
        .await?
        .ok_or_else(not_found)
}

/// A conversation as its business sees it.
#[derive(Debug, Clone)]
pub struct BusinessView {
    pub conversation: conversations::Model,
    pub display_name: Option<String>,
    pub follows: bool,
    pub marketing_opt_in: bool,
    pub window_expires_at: DateTime<Utc>,
    pub unread: i64,
}

async fn views(
    core: &Core,
    business_id: Uuid,
    rows: Vec<conversations::Model>,
) -> AppResult<Vec<BusinessView>> {
    let users: Vec<Uuid> = rows.iter().map(|c| c.user_id).collect();
    let people = store::people(&core.db, business_id, &users).await?;
    Ok(rows
        .into_iter()
        .map(|c| {
            let follow = people.follows.get(&c.user_id);
            let follows = follow.is_some_and(|f| f.status == FollowStatus::Active);
            BusinessView {
                display_name: people.names.get(&c.user_id).cloned().flatten(),
                follows,
                marketing_opt_in: follows && follow.is_some_and(|f| f.marketing_opt_in),
                window_expires_at: window_expires_at(core, c.last_inbound_at),
                unread: i64::from(c.inbound_count - c.business_read_seq),
                conversation: c,
            }
        })
        .collect())
}

async fn view(core: &Core, conversation: conversations::Model) -> AppResult<BusinessView> {
    let business_id = conversation.business_id;
    let mut views = views(core, business_id, vec![conversation]).await?;
    views
        .pop()
        .ok_or_else(|| AppError::internal("a conversation lost"))
}

/// The conversation list's query, as received.
#[derive(Debug, Clone, Default)]
pub struct ListQuery {
    pub limit: Option<i64>,
    pub starting_after: Option<String>,
    pub status: Option<String>,
    pub window: Option<String>,
    pub unread: Option<String>,
    pub assigned_to: Option<String>,
}

/// The business's conversations, newest activity first, with how many have unread messages.
///
/// Errors: the caller's, `invalid_limit`, `invalid_request` (a filter or cursor).
pub async fn list(
    core: &Core,
    acting: &Acting,
    query: ListQuery,
) -> AppResult<(Vec<BusinessView>, bool, i64)> {
    acting.require_reader()?;
    let limit = crate::domain::page_limit(query.limit)?;
    let now = core.clock.now();
    let window_open = crate::domain::filter("window", query.window.as_deref(), WindowState::parse)?
        .map(|state| state == WindowState::Open);
    let assigned_to = match query.assigned_to.as_deref().map(str::trim) {
        None => None,
        Some("none") => Some(None),
        Some("me") => match acting.user_id {
            Some(me) => Some(Some(me)),
            None => return Err(invalid("assigned_to: \"me\" needs a console user")),
        },
        Some(id) => Some(Some(Uuid::parse_str(id).map_err(|_| {
            invalid("assigned_to: a team member's user id, me or none")
        })?)),
    };
    let filter = store::ListFilter {
        status: crate::domain::filter(
            "status",
            query.status.as_deref(),
            ConversationStatus::parse,
        )?,
        window_open: window_open.map(|open| (open, now - window(core))),
        unread: crate::domain::bool_filter("unread", query.unread.as_deref())?,
        assigned_to,
    };
    let after = match crate::domain::cursor_id(query.starting_after.as_deref(), "a conversation")? {
        None => None,
        Some(id) => {
            let cursor = store::find(&core.db, acting.business_id, id)
                .await?
                .ok_or_else(|| crate::domain::bad_cursor("a conversation"))?;
            Some((cursor.last_message_at, cursor.id))
        }
    };
    let rows = store::list(&core.db, acting.business_id, &filter, after, limit + 1).await?;
    let (rows, has_more) = crate::domain::split_page(rows, limit);
    let totals = crate::usage::totals(&core.db, acting.business_id).await?;
    let unread = totals[crate::usage::Counter::UnreadConversations as usize];
    Ok((
        views(core, acting.business_id, rows).await?,
        has_more,
        unread,
    ))
}

/// One conversation of the business.
///
/// Errors: the caller's, `conversation_not_found`.
pub async fn get(core: &Core, acting: &Acting, id: &str) -> AppResult<BusinessView> {
    acting.require_reader()?;
    let conversation = conversation_of(core, acting, id).await?;
    view(core, conversation).await
}

/// A conversation's thread, newest first: the user's messages and every message of the
/// business to the user, with its status.
///
/// Errors: the caller's, `invalid_limit`, `invalid_request` (cursor), `conversation_not_found`.
pub async fn thread(
    core: &Core,
    acting: &Acting,
    id: &str,
    limit: Option<i64>,
    starting_after: Option<&str>,
) -> AppResult<Page> {
    acting.require_reader()?;
    let conversation = conversation_of(core, acting, id).await?;
    let limit = crate::domain::page_limit(limit)?;
    let (business_id, user_id) = (conversation.business_id, conversation.user_id);
    let before = match starting_after {
        None => None,
        Some(cursor) => {
            let bad = || invalid("starting_after: not a message of this conversation");
            let id = Uuid::parse_str(cursor.trim()).map_err(|_| bad())?;
            Some(
                thread_position(core, business_id, user_id, id)
                    .await?
                    .ok_or_else(bad)?,
            )
        }
    };
    let receipts = store::user(&core.db, user_id)
        .await?
        .is_none_or(|u| u.read_receipts);
    thread_page(
        core,
        business_id,
        user_id,
        Some(&conversation),
        Reader::Business { receipts },
        before,
        limit,
    )
    .await
}

/// Moves the business's read mark forward to `up_to` (a user message of the conversation);
/// never back.
///
/// Errors: the caller's, `invalid_request`, `conversation_not_found`.
pub async fn business_read(
    core: &Core,
    acting: &Acting,
    id: &str,
    up_to: Option<&str>,
) -> AppResult<Mark> {
    acting.require_reader()?;
    let conversation = conversation_of(core, acting, id).await?;
    let bad = || invalid("up_to: a user message of this conversation");
    let up_to = parse_uuid("up_to", up_to)?.ok_or_else(bad)?;
    let message = store::inbound(
        &core.db,
        conversation.business_id,
        conversation.user_id,
        up_to,
    )
    .await?
    .ok_or_else(bad)?;
    let now = core.clock.now();
    let txn = core.db.begin().await?;
    if let Some(count) =
        store::advance_business_mark(&txn, conversation.id, message.sequence).await?
    {
        store::record_mark(
            &txn,
            conversation.business_id,
            conversation.user_id,
            Side::Business,
            (message.received_at, message.id),
            now,
            true,
        )
        .await?;
        if count == message.sequence {
            let mut tally = Tally::new();
            tally.unread_conversations(conversation.business_id, -1);
            tally.apply(&txn).await?;
        }
    }
    let mark = store::mark(
        &txn,
        conversation.business_id,
        conversation.user_id,
        Side::Business,
    )
    .await?;
    txn.commit().await?;
    Ok(mark.into())
}

/// What a team may change of a conversation, as received.
#[derive(Debug, Clone, Default)]
pub struct Update {
    pub status: Option<String>,
    /// Some(None): unassign.
    pub assigned_to: Option<Option<String>>,
    /// Some(None): clear.
    pub label: Option<Option<String>>,
}

/// Changes a conversation's status, assignee or label.
///
/// Errors: the caller's, `invalid_request`, `conversation_not_found`.
pub async fn update(
    core: &Core,
    acting: &Acting,
    id: &str,
    change: Update,
) -> AppResult<BusinessView> {
    acting.require_reader()?;
    let conversation = conversation_of(core, acting, id).await?;
    let status = crate::domain::filter(
        "status",
        change.status.as_deref(),
        ConversationStatus::parse,
    )?;
    let label = match change.label {
        None => None,
        Some(None) => Some(None),
        Some(Some(label)) => {
            let label = label.trim().to_string();
            if label.chars().count() > MAX_LABEL {
                return Err(invalid("label: at most 100 characters"));
            }
            Some((!label.is_empty()).then_some(label))
        }
    };
    let assigned_to = match change.assigned_to {
        None => None,
        Some(None) => Some(None),
        Some(Some(user)) => {
            let bad = || invalid("assigned_to: a member of this business's team");
            let user = Uuid::parse_str(user.trim()).map_err(|_| bad())?;
            let member = business_store::membership(&core.db, user)
                .await?
                .is_some_and(|m| m.business_id == acting.business_id);
            if !member {
                return Err(bad());
            }
            Some(Some(user))
        }
    };
    let txn = core.db.begin().await?;
    let mut row = store::pair_for_update(&txn, conversation.business_id, conversation.user_id)
        .await?
        .ok_or_else(not_found)?;
    if let Some(status) = status {
        row.status = status;
    }
    if let Some(label) = label {
        row.label = label;
    }
    if let Some(assigned_to) = assigned_to {
        row.assigned_to = assigned_to;
    }
    let saved = store::save(&txn, row).await?;
    txn.commit().await?;
    view(core, saved).await
}

/// Blocks (or unblocks) the user's messages to the business (console owner and admin).
///
/// Errors: the caller's, `insufficient_role`, `conversation_not_found`.
pub async fn set_blocked(
    core: &Core,
    acting: &Acting,
    id: &str,
    blocked: bool,
) -> AppResult<BusinessView> {
    crate::messaging::rules::require_active(acting.status)?;
    acting.require_manager()?;
    let conversation = conversation_of(core, acting, id).await?;
    let txn = core.db.begin().await?;
    let mut row = store::pair_for_update(&txn, conversation.business_id, conversation.user_id)
        .await?
        .ok_or_else(not_found)?;
    row.blocked = blocked;
    let saved = store::save(&txn, row).await?;
    txn.commit().await?;
    view(core, saved).await
}

/// A business's message in a conversation, as received.
#[derive(Debug, Clone, Default)]
pub struct Reply {
    pub text: Option<String>,
    pub reply_to: Option<String>,
    pub category: Option<String>,
    pub body: Option<String>,
    pub message_content_json: Option<String>,
    /// JSON text: `{"name", "version"?, "variables", "locale"?}`.
    pub template_json: Option<String>,
    pub idempotency_key: Option<String>,
    pub send_at: Option<String>,
    pub expires_at: Option<String>,
}

/// Sends (or checks) a message in a conversation, in DESIGN's order: credential, path
/// business, the conversation (404), the shape, the scope, the business live and active, the
/// idempotency replay or conflict, follow and opt-in, the window (free text only), limits.
///
/// Errors: those of a send, `conversation_not_found`, `invalid_message_category`,
/// `service_window_closed`.
pub async fn send(
    core: &Core,
    acting: &Acting,
    id: &str,
    reply: Reply,
    intent: Intent,
) -> AppResult<Answer> {
    let conversation = conversation_of(core, acting, id).await?;
    if reply.send_at.is_some() || reply.expires_at.is_some() {
        return Err(invalid(
            "send_at and expires_at: not on conversation routes (messages go now)",
        ));
    }
    let user = store::user(&core.db, conversation.user_id)
        .await?
        .ok_or_else(not_found)?;
    if user.status == UserStatus::Erased {
        // The thread stays readable (its metadata is kept); nobody is there to write to.
        return Err(AppError::new(
            ErrorCode::RecipientNotFound,
            "the user of this conversation was erased",
        ));
    }
    let idempotency_key = match intent {
        Intent::Send => reply.idempotency_key.as_deref(),
        Intent::Check => None,
    };
    let free_text = reply.text.is_some();
    let outgoing = if free_text {
        if reply.category.is_some()
            || reply.body.is_some()
            || reply.message_content_json.is_some()
            || reply.template_json.is_some()
        {
            return Err(invalid(
                "text: free text goes alone; a category message has category and body, \
                 message_content or template",
            ));
        }
        let text = parse_text(reply.text.as_deref())?;
        Outgoing {
            to: crate::domain::PhoneNumber::parse(&user.phone_number)?,
            category: Category::Service,
            body: Some(text),
            content: None,
            template: None,
            idempotency_key: content::parse_idempotency_key(idempotency_key)?,
        }
    } else {
        match reply
            .category
            .as_deref()
            .and_then(BroadcastCategory::from_wire)
        {
            Some(_) => {}
            None => {
                return Err(AppError::new(
                    ErrorCode::InvalidMessageCategory,
                    "category: utility or marketing (or send text alone, inside the window)",
                ));
            }
        }
        content::parse_category_send(
            Some(&user.phone_number),
            reply.category.as_deref(),
            content::RawContent {
                body: reply.body.as_deref(),
                content_json: reply.message_content_json.as_deref(),
                template_json: reply.template_json.as_deref(),
            },
            idempotency_key,
        )?
    };
    let reply_to = parse_uuid("reply_to", reply.reply_to.as_deref())?;
    if let Some(reply_to) = reply_to
        && thread_position(
            core,
            conversation.business_id,
            conversation.user_id,
            reply_to,
        )
        .await?
        .is_none()
    {
        return Err(invalid("reply_to: not a message of this conversation"));
    }
    acting.require_scope(match outgoing.category {
        Category::Service => Scope::Service,
        Category::Utility => Scope::Utility,
        Category::Marketing => Scope::Marketing,
        Category::Authentication => Scope::Authentication,
    })?;
    crate::messaging::rules::require_live(acting.status, acting.mode)?;
    let follow =
        crate::consent::store::follow(&core.db, conversation.business_id, conversation.user_id)
            .await?;
    let recipient = RecipientState {
        user_id: Some(conversation.user_id),
        follow_status: follow.as_ref().map(|f| f.status),
        marketing_opt_in: follow.is_some_and(|f| f.marketing_opt_in),
        language: None,
    };
    let sender = crate::messaging::service::Sender {
        business_id: acting.business_id,
        source: acting.source,
        app_id: acting.app_id,
        user_id: acting.user_id,
        check: None,
    };
    let now = core.clock.now();
    if free_text {
        let closes = window_expires_at(core, conversation.last_inbound_at);
        let follows = recipient.follow_status == Some(FollowStatus::Active);
        if follows && closes <= now {
            let refusal = AppError::new(
                ErrorCode::ServiceWindowClosed,
                format!(
                    "the service window closed at {} ({} h after the user's last message, at \
                     {}): send a utility message, or marketing to an opted-in follower",
                    rfc3339(closes),
                    core.limits.service_window_hours,
                    rfc3339(conversation.last_inbound_at),
                ),
            );
            let key =
                outgoing
                    .idempotency_key
                    .as_ref()
                    .map(|key| crate::messaging::store::KeyClaim {
                        key: key.clone(),
                        request_hash: crate::messaging::service::request_hash(
                            &sender,
                            &outgoing,
                            &RawTiming::default(),
                        ),
                        keep_until_ms: 0,
                    });
            return crate::messaging::service::refused(core, &sender, key.as_ref(), refusal).await;
        }
    }
    let thread = ThreadSend {
        conversation_id: conversation.id,
        reply_to,
        key: format!("replies:{}", conversation.id),
        rate: Rate::per(core.limits.replies_per_minute, Duration::from_secs(60)),
    };
    crate::messaging::service::accept(
        core,
        sender,
        recipient,
        outgoing,
        (RawTiming::default(), Timing::default()),
        intent,
        Some(thread),
    )
    .await
}

/// A removed team member's assignments end with their membership.
pub async fn member_removed(
    db: &impl sea_orm::ConnectionTrait,
    business_id: Uuid,
    user_id: Uuid,
) -> AppResult<()> {
    store::unassign(db, business_id, user_id).await
}
