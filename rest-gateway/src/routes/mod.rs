//! The route table: each route extracts, builds one proto request, calls one RPC and wraps the
//! reply in the envelope.

pub mod apps;
pub mod audience;
pub mod auth;
pub mod broadcasts;
pub mod business;
pub mod consent;
pub mod conversations;
pub mod events;
pub mod grants;
pub mod messages;
pub mod ops;
pub mod qr;
pub mod team;
pub mod templates;
pub mod webhooks;

use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use crate::state::AppState;

pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(auth::otp_request))
        .routes(routes!(auth::otp_verify))
        .routes(routes!(auth::refresh))
        .routes(routes!(auth::logout))
        .routes(routes!(auth::me, auth::update_me))
        .routes(routes!(qr::create))
        .routes(routes!(qr::preview))
        .routes(routes!(qr::status))
        .routes(routes!(qr::approve))
        .routes(routes!(qr::exchange))
        .routes(routes!(business::get_me, business::patch_me))
        .routes(routes!(business::create_sandbox))
        .routes(routes!(
            consent::get_follow,
            consent::put_follow,
            consent::patch_follow,
            consent::delete_follow
        ))
        .routes(routes!(consent::get_consent_text))
        .routes(routes!(audience::list_followers))
        .routes(routes!(audience::lookup_followers))
        .routes(routes!(audience::follower_history))
        .routes(routes!(audience::follower_evidence))
        .routes(routes!(
            audience::put_consent_text,
            audience::get_consent_text
        ))
        .routes(routes!(team::list_team, team::add_member))
        .routes(routes!(team::remove_member))
        .routes(routes!(apps::list_apps, apps::create_app))
        .routes(routes!(apps::rotate_app))
        .routes(routes!(apps::delete_app))
        .routes(routes!(messages::history, messages::send_console))
        .routes(routes!(messages::get_message))
        .routes(routes!(messages::cancel_console))
        .routes(routes!(messages::cancel_app))
        .routes(routes!(messages::send_app))
        .routes(routes!(messages::send_service))
        .routes(routes!(messages::check_console))
        .routes(routes!(messages::check_app))
        .routes(routes!(messages::check_service))
        .routes(routes!(messages::usage))
        .routes(routes!(messages::daily_usage))
        .routes(routes!(
            broadcasts::list_broadcasts,
            broadcasts::create_broadcast
        ))
        .routes(routes!(broadcasts::get_broadcast))
        .routes(routes!(broadcasts::cancel_broadcast))
        .routes(routes!(broadcasts::create_app_broadcast))
        .routes(routes!(broadcasts::get_app_broadcast))
        .routes(routes!(broadcasts::cancel_app_broadcast))
        .routes(routes!(
            conversations::write_to_business,
            conversations::user_thread
        ))
        .routes(routes!(conversations::user_read))
        .routes(routes!(conversations::my_conversations))
        .routes(routes!(conversations::list_conversations))
        .routes(routes!(
            conversations::get_conversation,
            conversations::update_conversation
        ))
        .routes(routes!(
            conversations::conversation_messages,
            conversations::send_conversation_message
        ))
        .routes(routes!(conversations::check_conversation_message))
        .routes(routes!(conversations::mark_conversation_read))
        .routes(routes!(conversations::block_conversation))
        .routes(routes!(conversations::unblock_conversation))
        .routes(routes!(conversations::list_app_conversations))
        .routes(routes!(
            conversations::get_app_conversation,
            conversations::update_app_conversation
        ))
        .routes(routes!(
            conversations::app_conversation_messages,
            conversations::send_app_conversation_message
        ))
        .routes(routes!(conversations::check_app_conversation_message))
        .routes(routes!(conversations::mark_app_conversation_read))
        .routes(routes!(
            templates::list_templates,
            templates::create_template
        ))
        .routes(routes!(templates::get_template, templates::update_template))
        .routes(routes!(templates::archive_template))
        .routes(routes!(templates::render_template))
        .routes(routes!(webhooks::list_webhooks, webhooks::create_webhook))
        .routes(routes!(webhooks::update_webhook, webhooks::delete_webhook))
        .routes(routes!(webhooks::test_webhook))
        .routes(routes!(webhooks::deliveries))
        .routes(routes!(webhooks::get_delivery))
        .routes(routes!(webhooks::retry_delivery))
        .routes(routes!(webhooks::recover_webhook))
        .routes(routes!(webhooks::webhook_stats))
        .routes(routes!(webhooks::rotate_secret))
        .routes(routes!(events::list_events))
        .routes(routes!(grants::revoke_grant))
        .routes(routes!(ops::healthz))
        .routes(routes!(ops::readyz))
}
