//! Sends with an app token: to a follower of the app's business, and as a service message to
//! a number that wrote to the business. The rules are `service.rs`'s (`accept`); here the
//! token's context is read (batched, `reader.rs`) and the path's business checked against it.

use proto::vocabulary::MessageSource;
use uuid::Uuid;

use super::content::{self, Category, Outgoing};
use super::rules::require_live;
use super::service::*;
use super::store;
use crate::caller::{AppToken, invalid_app_token};
use crate::domain::{PhoneNumber, Scope, Scopes};
use crate::error::{AppError, AppResult};
use crate::identity::tokens::hash_token;
use crate::state::Core;

/// An app-token send to the app's own business (`business_account_id`).
pub async fn send_app(
    core: &Core,
    token: &AppToken,
    business_account_id: &str,
    fields: SendFields,
) -> AppResult<Uuid> {
    app_send(core, token, business_account_id, fields, Intent::Send)
        .await?
        .id()
}

/// What the app-token send of `fields` would answer now, without its Idempotency-Key.
pub async fn check_app(
    core: &Core,
    token: &AppToken,
    business_account_id: &str,
    fields: SendFields,
) -> AppResult<()> {
    let fields = SendFields {
        idempotency_key: None,
        ..fields
    };
    app_send(core, token, business_account_id, fields, Intent::Check).await?;
    Ok(())
}

async fn app_send(
    core: &Core,
    token: &AppToken,
    business_account_id: &str,
    fields: SendFields,
    intent: Intent,
) -> AppResult<Answer> {
    // The request's shape is checked after the credential, but parsed first so that the one
    // read can include the recipient.
    let parsed = fields.parse();
    let to = parsed.as_ref().ok().map(|o| o.to.as_str().to_string());
    let token_hash = hash_token(token.as_str());
    // A send goes from the context kept from the last read of this token and number, when
    // there is one: its write checks that the context still holds. Whatever else it comes to
    // is decided again from a fresh read, so that every answer is the fresh read's.
    if intent == Intent::Send
        && let (Some(to), Ok(outgoing)) = (&to, &parsed)
        && let Some(context) = core.send_reads.cached(&token_hash, to)
        && let Some(version) = context.version.clone()
    {
        let check = store::ContextCheck {
            token_hash: token_hash.clone(),
            to: to.clone(),
            version,
            template: None,
        };
        let decided = app_send_from(
            core,
            context,
            business_account_id,
            Ok(outgoing.clone()),
            &fields.timing,
            (intent, Some(check)),
        )
        .await;
        match decided {
            Ok(Answer::Stale) => {}
            Ok(answer) => {
                metrics::counter!("send_contexts_total", "context" => "kept").increment(1);
                return Ok(answer);
            }
            // The service's own failures (5xx) are answered as they are.
            Err(err) if err.code.http_status() >= 500 => return Err(err),
            Err(_) => {}
        }
        metrics::counter!("send_contexts_total", "context" => "stale").increment(1);
        core.send_reads.forget(&token_hash, to);
    }
    metrics::counter!("send_contexts_total", "context" => "read").increment(1);
    let context = core
        .send_reads
        .read(token_hash, to)
        .await?
        .ok_or_else(invalid_app_token)?;
    app_send_from(
        core,
        context,
        business_account_id,
        parsed,
        &fields.timing,
        (intent, None),
    )
    .await
}

/// The app-token send's checks from the business match on, given its context (kept, with
/// `check`, or read now).
async fn app_send_from(
    core: &Core,
    context: store::AppSendContext,
    business_account_id: &str,
    parsed: AppResult<Outgoing>,
    raw_timing: &RawTiming,
    (intent, check): (Intent, Option<store::ContextCheck>),
) -> AppResult<Answer> {
    let scopes = Scopes::from_db(&context.scopes)?;
    if Uuid::parse_str(business_account_id.trim()).ok() != Some(context.business_id) {
        return Err(mismatch());
    }
    let outgoing = parsed?;
    let timing = raw_timing.check(core.clock.now())?;
    let scope = match outgoing.category {
        Category::Authentication => Scope::Authentication,
        Category::Utility => Scope::Utility,
        Category::Marketing => Scope::Marketing,
        Category::Service => Scope::Service,
    };
    require_scope(&scopes, scope)?;
    let business = business_of(&context)?;
    require_live(business.status, business.mode)?;
    let sender = Sender {
        business_id: context.business_id,
        source: MessageSource::App,
        app_id: Some(context.app_id),
        user_id: None,
        check,
    };
    accept(
        core,
        sender,
        context.recipient,
        outgoing,
        (raw_timing.clone(), timing),
        intent,
        None,
    )
    .await
}

/// A service (free-form) send; `business_phone` is the business's own number.
pub async fn send_service(
    core: &Core,
    token: &AppToken,
    business_phone: &str,
    to: Option<&str>,
    body: Option<&str>,
    idempotency_key: Option<&str>,
    raw_timing: RawTiming,
) -> AppResult<Uuid> {
    let service = ServiceSend {
        business_phone,
        to,
        body,
        idempotency_key,
    };
    service_send(core, token, service, raw_timing, Intent::Send)
        .await?
        .id()
}

/// A service send's fields, as received.
pub struct ServiceSend<'a> {
    pub business_phone: &'a str,
    pub to: Option<&'a str>,
    pub body: Option<&'a str>,
    pub idempotency_key: Option<&'a str>,
}

/// What the service send would answer now, without its Idempotency-Key.
pub async fn check_service(
    core: &Core,
    token: &AppToken,
    service: ServiceSend<'_>,
    raw_timing: RawTiming,
) -> AppResult<()> {
    let service = ServiceSend {
        idempotency_key: None,
        ..service
    };
    service_send(core, token, service, raw_timing, Intent::Check).await?;
    Ok(())
}

async fn service_send(
    core: &Core,
    token: &AppToken,
    service: ServiceSend<'_>,
    raw_timing: RawTiming,
    intent: Intent,
) -> AppResult<Answer> {
    let ServiceSend {
        business_phone,
        to,
        body,
        idempotency_key,
    } = service;
    let parsed = content::parse_service_send(to, body, idempotency_key);
    let to = parsed.as_ref().ok().map(|o| o.to.as_str().to_string());
    let (context, scopes) = app_context(core, token, to.as_deref()).await?;
    let owner_phone = context
        .owner_phone
        .as_deref()
        .ok_or_else(|| AppError::internal("business without owner"))?;
    let path_phone = PhoneNumber::parse(business_phone).map_err(|_| mismatch())?;
    if path_phone.as_str() != owner_phone {
        return Err(mismatch());
    }
    let outgoing = parsed?;
    let timing = raw_timing.check(core.clock.now())?;
    require_scope(&scopes, Scope::Service)?;
    let business = business_of(&context)?;
    require_live(business.status, business.mode)?;
    let sender = Sender {
        business_id: context.business_id,
        source: MessageSource::Service,
        app_id: Some(context.app_id),
        user_id: None,
        check: None,
    };
    accept(
        core,
        sender,
        context.recipient,
        outgoing,
        (raw_timing, timing),
        intent,
        None,
    )
    .await
}
