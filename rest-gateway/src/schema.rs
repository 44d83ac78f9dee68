//! The value sets of the public document. Fields keep their wire type (`String`) and name one of
//! these as their schema (`#[schema(value_type = Category)]`), so the document lists exactly the
//! values the core accepts and answers. The end-to-end suite checks each set against the core's
//! own enums, so a value added there and not here fails a test.

use serde::Serialize;
use utoipa::openapi::schema::{ArrayBuilder, Schema};
use utoipa::openapi::{Ref, RefOr};
use utoipa::{PartialSchema, ToSchema};

/// The E.164 form the core accepts: `+`, then 2 to 15 digits, the first not 0. (The number must
/// also be a valid number by libphonenumber's rules, which a pattern cannot say.)
pub const E164_PATTERN: &str = r"^\+[1-9][0-9]{1,14}$";

/// A message category a business may send.
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum Category {
    Authentication,
    Utility,
    Marketing,
}

/// A message's category in the history: a send category, or `service` for free-form text.
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum RecordCategory {
    Authentication,
    Utility,
    Marketing,
    Service,
}

/// A developer-app scope.
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum Scope {
    Authentication,
    Utility,
    Marketing,
    Service,
}

/// An event a webhook endpoint may subscribe to.
#[derive(Serialize, ToSchema)]
pub enum EventType {
    #[serde(rename = "message.sent")]
    MessageSent,
    #[serde(rename = "message.failed")]
    MessageFailed,
    #[serde(rename = "grant.revoked")]
    GrantRevoked,
    #[serde(rename = "follow.created")]
    FollowCreated,
    #[serde(rename = "follow.updated")]
    FollowUpdated,
    #[serde(rename = "follow.deleted")]
    FollowDeleted,
    #[serde(rename = "broadcast.completed")]
    BroadcastCompleted,
}

/// An event type in the deliveries log: a subscribable event, or `webhook.test`.
#[derive(Serialize, ToSchema)]
pub enum DeliveryEventType {
    #[serde(rename = "message.sent")]
    MessageSent,
    #[serde(rename = "message.failed")]
    MessageFailed,
    #[serde(rename = "grant.revoked")]
    GrantRevoked,
    #[serde(rename = "follow.created")]
    FollowCreated,
    #[serde(rename = "follow.updated")]
    FollowUpdated,
    #[serde(rename = "follow.deleted")]
    FollowDeleted,
    #[serde(rename = "broadcast.completed")]
    BroadcastCompleted,
    #[serde(rename = "webhook.test")]
    WebhookTest,
}

/// A team role.
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum Role {
    Owner,
    Admin,
    Member,
}

/// A role that can be given (`owner` cannot).
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum AssignableRole {
    Admin,
    Member,
}

/// A business account's mode: a sandbox business cannot send; an operator makes it live.
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum BusinessMode {
    Sandbox,
    Live,
}

/// A business account's status.
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum BusinessStatus {
    Active,
    Suspended,
}

/// A user account's status.
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum UserStatus {
    Active,
    Suspended,
    Banned,
}

/// A follow's status.
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum FollowStatus {
    Active,
    Unfollowed,
}

/// A message's status: `accepted` until the outcome is known.
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum MessageStatus {
    /// Waiting for its `send_at`.
    Scheduled,
    Accepted,
    Delivered,
    Failed,
    /// Canceled while scheduled.
    Canceled,
}

/// Where a message came from.
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum MessageSource {
    Console,
    App,
    Service,
    /// A message of a broadcast.
    Broadcast,
}

/// A broadcast's status.
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum BroadcastStatus {
    /// Waiting for its `send_at`.
    Scheduled,
    /// Creating its messages.
    Running,
    /// Every recipient handled and every created message has its outcome.
    Completed,
    /// Canceled, or its business stopped being live and active: messages already created go
    /// on, the rest are `not_created`.
    Canceled,
}

/// What a broadcast may send.
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum BroadcastCategory {
    Utility,
    Marketing,
}

/// Why a message failed.
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum FailureReason {
    /// The recipient's account is no longer active.
    RecipientInactive,
    /// The provider refused the message.
    ProviderRejected,
    /// The provider answered that it cannot take messages now.
    ProviderUnavailable,
    /// The provider did not answer in time.
    ProviderTimeout,
    /// The provider could not be reached.
    ProviderUnreachable,
    /// When it was due, the recipient no longer followed the business, or no longer consented
    /// to its marketing.
    ConsentWithdrawn,
    /// When it was due, the business was no longer live and active.
    BusinessNotLive,
    /// It was not handed out by its `expires_at`.
    Expired,
    /// It was canceled while scheduled.
    Canceled,
}

/// A webhook delivery's status.
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum DeliveryStatus {
    Pending,
    Retrying,
    Succeeded,
    Failed,
}

/// A QR session's status while it can still be exchanged.
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum QrStatus {
    Pending,
    Approved,
}

/// The accepted send's status: always `sent` (the outcome arrives later).
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum SendStatus {
    Sent,
}

/// The token type of an access token.
#[derive(Serialize, ToSchema)]
pub enum TokenType {
    Bearer,
}

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

/// `webhook.test`: sent by `POST /business/webhooks/{id}/test`.
#[derive(Serialize, ToSchema)]
pub struct WebhookTestData {
    pub message: String,
}
