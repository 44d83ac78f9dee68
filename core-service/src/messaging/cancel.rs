//! Cancel (DESIGN, "Scheduled, expiring and canceled sends"): a `scheduled` message becomes
//! `canceled` (`failure_reason` `canceled`), on the console by its business's owner or an admin
//! or the member who sent it, and with an app token for the messages its business sent with app
//! tokens. A message that emits events ends in exactly one `message.failed` (`reason`
//! `canceled`). Anything but `scheduled` is 409 `message_not_cancelable`.

use proto::ErrorCode;
use proto::vocabulary::MessageStatus;
use uuid::Uuid;

use super::{outbox, service, store};
use crate::caller::{AppToken, Member};
use crate::entities::messages;
use crate::error::{AppError, AppResult};
use crate::state::Core;

fn not_found() -> AppError {
    AppError::new(ErrorCode::MessageNotFound, "no such message")
}

fn not_cancelable(status: impl std::fmt::Display) -> AppError {
    AppError::new(
        ErrorCode::MessageNotCancelable,
        format!("only a scheduled message can be canceled; this one is {status}"),
    )
}

/// Cancels a scheduled message of the caller's business.
///
/// Errors: `unauthorized`, `account_suspended`, `not_a_business_account`, `business_suspended`,
/// `message_not_found`, `insufficient_role` (a member canceling another's message),
/// `message_not_cancelable`.
pub async fn console_cancel(core: &Core, console: &Member, id: &str) -> AppResult<messages::Model> {
    let message = super::history::business_message(core, console.business.id, id).await?;
    if console.require_manager().is_err() && message.sender_user_id != Some(console.user.id) {
        return Err(AppError::new(
            ErrorCode::InsufficientRole,
            "only the owner, an admin or the member who sent it can cancel this message",
        ));
    }
    cancel(core, message).await
}

/// Cancels a scheduled message that the app token's business sent with an app token.
///
/// Errors: `invalid_app_token`, `app_business_mismatch`, `business_suspended`,
/// `message_not_found`, `message_not_cancelable`.
pub async fn app_cancel(
    core: &Core,
    token: &AppToken,
    business_account_id: &str,
    id: &str,
) -> AppResult<messages::Model> {
    let (context, _) = service::app_context(core, token, None).await?;
    if Uuid::parse_str(business_account_id.trim()).ok() != Some(context.business_id) {
        return Err(service::mismatch());
    }
    super::rules::require_active(service::business_of(&context)?.status)?;
    let message = super::history::business_message(core, context.business_id, id).await?;
    // Console messages are not an app token's to cancel.
    if message.app_id.is_none() {
        return Err(not_found());
    }
    cancel(core, message).await
}

async fn cancel(core: &Core, message: messages::Model) -> AppResult<messages::Model> {
    if message.status != MessageStatus::Scheduled {
        return Err(not_cancelable(message.status));
    }
    match outbox::cancel(&core.db, message.id, core.clock.now()).await? {
        Some((canceled, queued)) => {
            if queued > 0 {
                core.webhook_wakeup.wake();
            }
            Ok(canceled)
        }
        // A dispatcher leased it in the meantime.
        None => {
            let now = store::find_message(&core.db, message.business_id, message.id)
                .await?
                .map_or_else(|| "gone".to_string(), |m| m.status.to_string());
            Err(not_cancelable(&now))
        }
    }
}
