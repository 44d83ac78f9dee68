//! The broadcast rules (DESIGN, "Broadcasts"), for the console and for app tokens, in the send
//! paths' order: credential (401) -> the path's business matches the credential's (403) ->
//! request shape (400) -> role or scope (403) -> business live and active (403) ->
//! idempotency replay or conflict (201 / 409).
//!
//! A broadcast is created `scheduled` (a future `send_at`) or `running`; a runner (`runner.rs`)
//! fixes its audience when it starts and creates its messages, paced. Cancel turns `scheduled`
//! or `running` into `canceled`: messages already created go on, the rest are `not_created`.

use chrono::{DateTime, Utc};
use proto::ErrorCode;
use proto::vocabulary::{BroadcastCategory, BroadcastStatus, MessageSource};
use sea_orm::TransactionTrait;
use sha2::{Digest, Sha256};
use uuid::Uuid;

use super::store::{self, Created, KeyClaim};
use crate::caller::{AppToken, Member};
use crate::domain::Scope;
use crate::entities::broadcasts;
use crate::error::{AppError, AppResult};
use crate::messaging::content::{self, Category};
use crate::messaging::rules::{require_active, require_live};
use crate::messaging::service::{
    IDEMPOTENCY_RETENTION, RawTiming, app_context, business_of, mismatch, require_scope,
};
use crate::state::Core;
use crate::templates::send::TemplateSend;
use crate::templates::service as templates;

/// A broadcast as received.
#[derive(Debug, Clone, Default)]
pub struct BroadcastFields {
    pub name: Option<String>,
    pub category: Option<String>,
    pub body: Option<String>,
    pub message_content_json: Option<String>,
    /// JSON text: `{"name", "version"?, "variables", "locale"?}`.
    pub template_json: Option<String>,
    pub send_at: Option<String>,
    pub max_per_second: Option<i64>,
    pub idempotency_key: Option<String>,
}

/// A broadcast request that passed every shape check.
struct Parsed {
    name: String,
    category: Category,
    body: Option<String>,
    content: Option<serde_json::Value>,
    template: Option<TemplateSend>,
    send_at: Option<DateTime<Utc>>,
    max_per_second: i32,
    key: Option<String>,
    /// Hash of the content as sent, for the Idempotency-Key.
    request_hash: String,
}

/// The fastest pace a broadcast may ask for: half the business send budget, so single sends
/// always keep the other half.
pub fn max_pace(core: &Core) -> i64 {
    i64::from(core.limits.business_sends_per_second / 2).max(1)
}

fn parse(core: &Core, fields: &BroadcastFields) -> AppResult<Parsed> {
    let name = crate::domain::parse_name("name", fields.name.as_deref().unwrap_or(""))?;
    let category = match fields
        .category
        .as_deref()
        .and_then(BroadcastCategory::from_wire)
    {
        Some(category) => Category::from(category),
        None => {
            return Err(AppError::new(
                ErrorCode::InvalidMessageCategory,
                "category: utility or marketing (authentication and service messages go to one \
                 recipient at a time)",
            ));
        }
    };
    let (body, content, template) = content::check_content_or_template(
        category,
        content::RawContent {
            body: fields.body.as_deref(),
            content_json: fields.message_content_json.as_deref(),
            template_json: fields.template_json.as_deref(),
        },
    )?;
    let timing = RawTiming {
        send_at: fields.send_at.clone(),
        expires_at: None,
    }
    .check(core.clock.now())?;
    let fastest = max_pace(core);
    let max_per_second = match fields.max_per_second {
        None => fastest,
        Some(n) if (1..=fastest).contains(&n) => n,
        Some(_) => {
            return Err(AppError::new(
                ErrorCode::InvalidRequest,
                format!("max_per_second: 1 to {fastest}"),
            ));
        }
    };
    let key = content::parse_idempotency_key(fields.idempotency_key.as_deref())?;
    let mut canonical = serde_json::json!({
        "kind": MessageSource::Broadcast,
        "name": name,
        "category": category.as_str(),
        "body": body,
        "message_content": content,
        "send_at": fields.send_at,
        "max_per_second": fields.max_per_second,
    });
    // Only when given, so that keys claimed before templates existed keep their hash.
    if let Some(template) = &template {
        canonical["template"] = template.canonical();
    }
    Ok(Parsed {
        name,
        category,
        body,
        content,
        template,
        send_at: timing.send_at,
        max_per_second: max_per_second as i32,
        key,
        request_hash: hex::encode(Sha256::digest(canonical.to_string().as_bytes())),
    })
}

/// Who creates a broadcast for which business.
struct Creator {
    business_id: Uuid,
    app_id: Option<Uuid>,
    user_id: Option<Uuid>,
}

/// A console user's broadcast (owner or admin). Returns it and whether the Idempotency-Key
/// replayed an earlier one.
///
/// Errors: `unauthorized`, `account_suspended`, `not_a_business_account`, `business_suspended`,
/// `insufficient_role`, `invalid_request`, `invalid_message_category`, `message_body_required`,
/// `invalid_message_content`, `invalid_idempotency_key`, `live_business_required`,
/// `idempotency_key_conflict`, `idempotency_in_progress`.
pub async fn create_console(
    core: &Core,
    console: &Member,
    fields: BroadcastFields,
) -> AppResult<(broadcasts::Model, bool)> {
    console.require_manager()?;
    let parsed = parse(core, &fields)?;
    require_live(console.business.status, console.business.mode)?;
    let creator = Creator {
        business_id: console.business.id,
        app_id: None,
        user_id: Some(console.user.id),
    };
    create(core, creator, parsed).await
}

/// An app token's broadcast to its own business (`business_account_id`), with the category's
/// scope.
///
/// Errors: `invalid_app_token`, `app_business_mismatch`, then as [`create_console`] with
/// `app_scope_required` instead of the user and role errors.
pub async fn create_app(
    core: &Core,
    token: &AppToken,
    business_account_id: &str,
    fields: BroadcastFields,
) -> AppResult<(broadcasts::Model, bool)> {
    let (context, scopes) = app_context(core, token, None).await?;
    if Uuid::parse_str(business_account_id.trim()).ok() != Some(context.business_id) {
        return Err(mismatch());
    }
    let parsed = parse(core, &fields)?;
    let scope = match parsed.category {
        Category::Marketing => Scope::Marketing,
        _ => Scope::Utility,
    };
    require_scope(&scopes, scope)?;
    let business = business_of(&context)?;
    require_live(business.status, business.mode)?;
    let creator = Creator {
        business_id: context.business_id,
        app_id: Some(context.app_id),
        user_id: None,
    };
    create(core, creator, parsed).await
}

async fn create(
    core: &Core,
    creator: Creator,
    parsed: Parsed,
) -> AppResult<(broadcasts::Model, bool)> {
    let now = core.clock.now();
    let now_ms = now.timestamp_millis();
    let key = parsed.key.map(|key| KeyClaim {
        key,
        request_hash: parsed.request_hash,
        keep_until_ms: now_ms + IDEMPOTENCY_RETENTION.as_millis() as i64,
    });
    let mut template = None;
    if let Some(send) = &parsed.template {
        // After the replay: a replay answers the original even when the template was archived
        // or changed since.
        if let Some(claim) = &key
            && let Some(earlier) =
                store::earlier(&core.db, creator.business_id, claim, now_ms).await?
        {
            return answered(core, earlier);
        }
        let (found, _) =
            templates::find_for_send(core, creator.business_id, send, parsed.category, None)
                .await?;
        found.check_every_variant(send)?;
        template = Some(found.for_broadcast(send));
    }
    let scheduled = parsed.send_at.is_some_and(|at| at > now);
    let broadcast = broadcasts::Model {
        id: Uuid::now_v7(),
        business_id: creator.business_id,
        name: parsed.name,
        category: parsed.category,
        body: parsed.body,
        message_content: parsed.content.map(|c| c.to_string()),
        status: if scheduled {
            BroadcastStatus::Scheduled
        } else {
            BroadcastStatus::Running
        },
        send_at: parsed.send_at,
        max_per_second: parsed.max_per_second,
        app_id: creator.app_id,
        sender_user_id: creator.user_id,
        created_at: now,
        completed_at: None,
        due_at_ms: match parsed.send_at {
            Some(at) if scheduled => at.timestamp_millis(),
            _ => now_ms,
        },
        lease_owner: None,
        lease_until_ms: 0,
        cursor: None,
        creation_done: false,
        audience: None,
        template,
        accepted: 0,
        skipped: 0,
        not_created: 0,
        delivered: 0,
        failed: 0,
    };
    let txn = core.db.begin().await?;
    let created = store::create(&txn, broadcast, key, now_ms).await?;
    txn.commit().await?;
    answered(core, created)
}

/// A creation's answer: the broadcast and whether it replayed an earlier one.
fn answered(core: &Core, created: Created) -> AppResult<(broadcasts::Model, bool)> {
    match created {
        Created::New(broadcast) => {
            core.broadcast_wakeup.notify_one();
            metrics::counter!("broadcasts_created_total", "category" => broadcast.category.as_str())
                .increment(1);
            Ok((broadcast, false))
        }
        Created::Replay(broadcast) => Ok((broadcast, true)),
        Created::Conflict => Err(AppError::key_conflict()),
        Created::InProgress => Err(AppError::key_in_progress()),
    }
}

/// A page of a business's broadcasts.
#[derive(Debug, Clone, Default)]
pub struct ListQuery {
    pub limit: Option<i64>,
    pub starting_after: Option<String>,
    pub status: Option<String>,
}

/// The caller's business's broadcasts, newest first, `limit` at a time after `starting_after`
/// (the id of the previous page's last broadcast), filtered by status. Returns the page and
/// whether more follow.
///
/// Errors: `unauthorized`, `account_suspended`, `not_a_business_account`, `business_suspended`,
/// `invalid_limit`, `invalid_request` (an unknown status, or a cursor that is not a broadcast of
/// this business).
pub async fn list(
    core: &Core,
    console: &Member,
    query: ListQuery,
) -> AppResult<(Vec<broadcasts::Model>, bool)> {
    let limit = crate::domain::page_limit(query.limit)?;
    let status = crate::domain::filter("status", query.status.as_deref(), BroadcastStatus::parse)?;
    let after = match crate::domain::cursor_id(query.starting_after.as_deref(), "a broadcast")? {
        None => None,
        Some(id) => {
            let cursor = store::find(&core.db, console.business.id, id)
                .await?
                .ok_or_else(|| crate::domain::bad_cursor("a broadcast"))?;
            Some((cursor.created_at, cursor.id))
        }
    };
    let rows = store::list(&core.db, console.business.id, status, after, limit + 1).await?;
    Ok(crate::domain::split_page(rows, limit))
}

fn not_found() -> AppError {
    AppError::new(ErrorCode::BroadcastNotFound, "no such broadcast")
}

/// The broadcast `id` (as given in a path) of the business, else `broadcast_not_found`.
async fn business_broadcast(
    core: &Core,
    business_id: Uuid,
    id: &str,
) -> AppResult<broadcasts::Model> {
    let id = Uuid::parse_str(id.trim()).map_err(|_| not_found())?;
    store::find(&core.db, business_id, id)
        .await?
        .ok_or_else(not_found)
}

/// One broadcast of the caller's business (any role).
///
/// Errors: as [`list`] without `invalid_limit`, and `broadcast_not_found`.
pub async fn get(core: &Core, console: &Member, id: &str) -> AppResult<broadcasts::Model> {
    business_broadcast(core, console.business.id, id).await
}

/// The app token's business, checked against the path's.
async fn app_business(core: &Core, token: &AppToken, business_account_id: &str) -> AppResult<Uuid> {
    let (context, _) = app_context(core, token, None).await?;
    if Uuid::parse_str(business_account_id.trim()).ok() != Some(context.business_id) {
        return Err(mismatch());
    }
    require_active(business_of(&context)?.status)?;
    Ok(context.business_id)
}

/// One broadcast of the app token's business (any scope).
///
/// Errors: `invalid_app_token`, `app_business_mismatch`, `business_suspended`,
/// `broadcast_not_found`.
pub async fn get_app(
    core: &Core,
    token: &AppToken,
    business_account_id: &str,
    id: &str,
) -> AppResult<broadcasts::Model> {
    let business_id = app_business(core, token, business_account_id).await?;
    business_broadcast(core, business_id, id).await
}

/// Cancels a scheduled or running broadcast of the caller's business (owner or admin).
///
/// Errors: as [`get`], `insufficient_role`, `broadcast_not_cancelable`.
pub async fn cancel_console(
    core: &Core,
    console: &Member,
    id: &str,
) -> AppResult<broadcasts::Model> {
    console.require_manager()?;
    let broadcast = business_broadcast(core, console.business.id, id).await?;
    cancel(core, broadcast).await
}

/// Cancels a scheduled or running broadcast of the app token's business (any scope).
///
/// Errors: as [`get_app`], and `broadcast_not_cancelable`.
pub async fn cancel_app(
    core: &Core,
    token: &AppToken,
    business_account_id: &str,
    id: &str,
) -> AppResult<broadcasts::Model> {
    let business_id = app_business(core, token, business_account_id).await?;
    let broadcast = business_broadcast(core, business_id, id).await?;
    cancel(core, broadcast).await
}

fn not_cancelable(status: impl std::fmt::Display) -> AppError {
    AppError::new(
        ErrorCode::BroadcastNotCancelable,
        format!("only a scheduled or running broadcast can be canceled; this one is {status}"),
    )
}

async fn cancel(core: &Core, broadcast: broadcasts::Model) -> AppResult<broadcasts::Model> {
    if !matches!(
        broadcast.status,
        BroadcastStatus::Scheduled | BroadcastStatus::Running
    ) {
        return Err(not_cancelable(broadcast.status));
    }
    let now = core.clock.now();
    let txn = core.db.begin().await?;
    let Some((canceled, event)) = store::cancel(&txn, broadcast.id, now).await? else {
        drop(txn);
        let status = store::find(&core.db, broadcast.business_id, broadcast.id)
            .await?
            .map_or_else(|| "gone".to_string(), |b| b.status.to_string());
        return Err(not_cancelable(&status));
    };
    let queued = record(&txn, event, now).await?;
    txn.commit().await?;
    if queued > 0 {
        core.webhook_wakeup.wake();
    }
    Ok(canceled)
}

/// Records a `broadcast.completed` event (when there is one) with its deliveries and the usage
/// counters, inside `txn`. Returns how many deliveries were queued.
pub(super) async fn record(
    txn: &sea_orm::DatabaseTransaction,
    event: Option<crate::events::NewEvent>,
    now: DateTime<Utc>,
) -> AppResult<usize> {
    let Some(event) = event else {
        return Ok(0);
    };
    let mut tally = crate::usage::Tally::new();
    let queued = crate::events::record_many(txn, vec![event], now, &mut tally).await?;
    tally.apply(txn).await?;
    Ok(queued)
}
