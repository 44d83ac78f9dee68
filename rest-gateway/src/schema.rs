//! The schemas of the public document that are not a route's own: the value sets (re-exported from
//! the vocabulary in `proto`, the one place they are declared), lists of them, and the webhook
//! payloads. Fields keep their wire type (`String`) and name a set as their schema
//! (`#[schema(value_type = RecordCategory)]`), so the document lists exactly the values the core
//! accepts and answers.

use serde::Serialize;
use utoipa::openapi::schema::{ArrayBuilder, Schema};
use utoipa::openapi::{Ref, RefOr};
use utoipa::{PartialSchema, ToSchema};

/// The E.164 form the core accepts: `+`, then 2 to 15 digits, the first not 0. (The number must
/// also be a valid number by libphonenumber's rules, which a pattern cannot say.)
pub const E164_PATTERN: &str = r"^\+[1-9][0-9]{1,14}$";

// The value sets, declared once in the vocabulary; here under the names the gateway's fields
// use (`RecordCategory` is a message's category in the history, `EventType` what a webhook
// may subscribe to).
pub use proto::vocabulary::{
    AssignableRole, BroadcastCategory, BroadcastStatus, BusinessMode, BusinessStatus,
    Category as RecordCategory, ChangeSource, ConversationStatus, DeliveryStatus, Direction,
    EventType as DeliveryEventType, FailureReason, FollowStatus, MessageSource, MessageStatus,
    QrStatus, Role, Scope, SendStatus, SubscribableEvent as EventType, TemplateStatus, TokenType,
    UserStatus, WebhookHealthState, WindowState,
};

/// A list of distinct values of `T`, at least one (`uniqueItems`, `minItems: 1`).
pub struct UniqueList<T>(std::marker::PhantomData<T>);

impl<T: ToSchema> PartialSchema for UniqueList<T> {
    fn schema() -> RefOr<Schema> {
        ArrayBuilder::new()
            .items(RefOr::Ref(Ref::from_schema_name(T::name())))
            .unique_items(true)
            .min_items(Some(1))
            .into()
    }
}

impl<T: ToSchema> ToSchema for UniqueList<T> {
    fn name() -> std::borrow::Cow<'static, str> {
        format!("{}List", T::name()).into()
    }

    fn schemas(schemas: &mut Vec<(String, RefOr<Schema>)>) {
        schemas.push((T::name().into_owned(), T::schema()));
        T::schemas(schemas);
    }
}

/// Distinct scopes, at least one.
pub type Scopes = UniqueList<Scope>;
/// Distinct subscribable events, at least one.
pub type Events = UniqueList<EventType>;

/// What a webhook delivery carries: the same envelope for every event, `data` per event.
#[derive(Serialize, ToSchema)]
#[schema(bound = "T: ToSchema")]
pub struct WebhookPayload<T> {
    /// New for every attempt.
    #[schema(value_type = String, format = Uuid)]
    pub id: String,
    /// The event type, also in `X-Service-Event`.
    #[schema(value_type = DeliveryEventType)]
    pub r#type: String,
    /// When the event happened.
    #[schema(value_type = String, format = DateTime)]
    pub created_at: String,
    /// The delivery's id, the same on every retry (also `X-Service-Delivery`): deduplicate on it.
    #[schema(value_type = String, format = Uuid)]
    pub delivery_id: String,
    /// The event's id: the same for every endpoint's delivery and every attempt of one event.
    #[schema(value_type = String, format = Uuid)]
    pub event_id: String,
    pub data: T,
}

/// `message.sent`: a send reached its recipient.
#[derive(Serialize, ToSchema)]
pub struct MessageSentData {
    #[schema(format = Uuid)]
    pub message_send_id: String,
    #[schema(value_type = RecordCategory)]
    pub category: String,
    #[schema(format = Uuid)]
    pub recipient_user_id: String,
    /// `delivered`.
    #[schema(pattern = "^delivered$")]
    pub status: String,
    /// The broadcast the message belongs to; null for single sends.
    #[schema(format = Uuid)]
    pub broadcast_id: Option<String>,
    /// The conversation the message was sent in; null elsewhere.
    #[schema(format = Uuid)]
    pub conversation_id: Option<String>,
}

/// `message.failed`: a send was not delivered.
#[derive(Serialize, ToSchema)]
pub struct MessageFailedData {
    #[schema(format = Uuid)]
    pub message_send_id: String,
    #[schema(value_type = RecordCategory)]
    pub category: String,
    #[schema(format = Uuid)]
    pub recipient_user_id: String,
    /// `failed`.
    #[schema(pattern = "^failed$")]
    pub status: String,
    #[schema(value_type = FailureReason)]
    pub reason: String,
    /// The broadcast the message belongs to; null for single sends.
    #[schema(format = Uuid)]
    pub broadcast_id: Option<String>,
    /// The conversation the message was sent in; null elsewhere.
    #[schema(format = Uuid)]
    pub conversation_id: Option<String>,
}

/// Where a broadcast stands. `audience = accepted + skipped + not_created` once it started.
#[derive(Debug, Serialize, ToSchema)]
pub struct BroadcastCounts {
    /// The business's active followers when it started; null before.
    pub audience: Option<i64>,
    /// Messages created (each an ordinary message of the history, source `broadcast`).
    pub accepted: i64,
    /// Followers who no longer followed, or no longer consented to marketing, when their
    /// message would have been created: no message, no event.
    pub skipped: i64,
    /// Followers never reached because the broadcast was canceled (or its business stopped
    /// being live and active) first.
    pub not_created: i64,
    /// Created messages delivered, and failed.
    pub delivered: i64,
    pub failed: i64,
}

/// `message.received`: a user wrote to the business. Recorded once per message, delivered at
/// least once: deduplicate by `event_id`, order by `sequence`.
#[derive(Serialize, ToSchema)]
pub struct MessageReceivedData {
    #[schema(format = Uuid)]
    pub message_id: String,
    #[schema(format = Uuid)]
    pub conversation_id: String,
    /// The writer (phone numbers are never shown).
    #[schema(format = Uuid)]
    pub user_id: String,
    /// The user's messages in this conversation so far, from 1, in commit order.
    pub sequence: i64,
    pub body: String,
    /// A message of the thread the user answered; null otherwise.
    #[schema(format = Uuid)]
    pub reply_to: Option<String>,
    #[schema(format = DateTime)]
    pub received_at: String,
    /// Free text may be sent to the user until then.
    #[schema(format = DateTime)]
    pub window_expires_at: String,
}

/// `message.read`: the user's read mark moved forward over delivered messages of the business
/// (never sent while the user's read receipts are off).
#[derive(Serialize, ToSchema)]
pub struct MessageReadData {
    /// Null when the user never wrote to the business.
    #[schema(format = Uuid)]
    pub conversation_id: Option<String>,
    #[schema(format = Uuid)]
    pub user_id: String,
    /// The message the mark now stands on: the business's messages at or before it are read.
    #[schema(format = Uuid)]
    pub read_up_to: String,
    #[schema(format = DateTime)]
    pub read_at: String,
}

/// `broadcast.completed`: every message a broadcast created has its outcome.
#[derive(Serialize, ToSchema)]
pub struct BroadcastCompletedData {
    #[schema(format = Uuid)]
    pub broadcast_id: String,
    /// `completed`, or `canceled` (canceled, or its business stopped being live and active).
    #[schema(value_type = BroadcastStatus, pattern = "^(completed|canceled)$")]
    pub status: String,
    pub counts: BroadcastCounts,
}

/// `grant.revoked`: a user revoked a developer app's sign-in grant.
#[derive(Serialize, ToSchema)]
pub struct GrantRevokedData {
    /// The developer app's id.
    #[schema(format = Uuid)]
    pub client_id: String,
    /// The user who revoked it.
    #[schema(format = Uuid)]
    pub chatx_user_id: String,
}

/// `user.redacted`: a user the business knew (sent a message to, heard from, or had as a
/// follower) was erased on their request. Their number, what they wrote and what was sent to
/// them are gone from the business's history, conversations, events and deliveries; the
/// consent ledger and message metadata stay, by `user_id`. Delete your own copies.
#[derive(Serialize, ToSchema)]
pub struct UserRedactedData {
    #[schema(format = Uuid)]
    pub user_id: String,
    /// When the user was erased (RFC 3339).
    #[schema(format = DateTime)]
    pub erased_at: String,
}

/// `follow.created`, `follow.updated`, `follow.deleted`: a follow became active (a first
/// follow or a re-follow), its marketing consent changed while active, or it became
/// `unfollowed`.
#[derive(Serialize, ToSchema)]
pub struct FollowEventData {
    /// The follower (phone numbers are never shown).
    #[schema(format = Uuid)]
    pub user_id: String,
    #[schema(value_type = FollowStatus)]
    pub status: String,
    pub marketing_opt_in: bool,
    #[schema(format = DateTime)]
    pub changed_at: String,
}

/// `webhook.failing`, `webhook.recovered`: another endpoint of the business turned failing, or
/// answered again (to the business's other endpoints that subscribe, and the events API).
#[derive(Serialize, ToSchema)]
pub struct WebhookHealthData {
    /// The endpoint that turned.
    #[schema(format = Uuid)]
    pub webhook_id: String,
    #[schema(format = "uri")]
    pub url: String,
    /// When it turned failing.
    #[schema(format = DateTime)]
    pub failing_since: Option<String>,
    /// Failed attempts in a row when it turned (for a recovery: before the success).
    pub consecutive_failures: i32,
    pub last_failure: Option<crate::routes::webhooks::LastFailure>,
}

/// `webhook.test`: sent by `POST /business/webhooks/{id}/test`.
#[derive(Serialize, ToSchema)]
pub struct WebhookTestData {
    pub message: String,
}
