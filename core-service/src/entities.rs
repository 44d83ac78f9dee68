//! sea-orm entities, one module per table. Queries live in each domain's `store.rs`.

pub mod users {
    use proto::vocabulary::UserStatus;
    use sea_orm::entity::prelude::*;

    #[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel)]
    #[sea_orm(table_name = "users")]
    pub struct Model {
        #[sea_orm(primary_key, auto_increment = false)]
        pub id: Uuid,
        #[sea_orm(unique)]
        pub phone_number: String,
        pub status: UserStatus,
        pub created_at: DateTimeUtc,
        pub updated_at: DateTimeUtc,
        /// Shown to a business only in the conversations the user started.
        pub display_name: Option<String>,
        /// Whether businesses see when the user read their messages.
        pub read_receipts: bool,
        /// The user's own language (a canonical BCP 47 tag): which variant of a template a
        /// business they follow sends them.
        pub language: Option<String>,
        /// Whether a business's owner or admin gets the SMS alert of a failing endpoint.
        pub webhook_alerts: bool,
    }

    #[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
    pub enum Relation {}

    impl ActiveModelBehavior for ActiveModel {}
}

pub mod otp_codes {
    use sea_orm::entity::prelude::*;

    #[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel)]
    #[sea_orm(table_name = "otp_codes")]
    pub struct Model {
        #[sea_orm(primary_key, auto_increment = false)]
        pub id: Uuid,
        pub user_id: Uuid,
        pub purpose: String,
        pub code_hash: String,
        pub expires_at_ms: i64,
        pub attempts: i32,
        pub consumed_at: Option<DateTimeUtc>,
        pub created_at: DateTimeUtc,
    }

    #[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
    pub enum Relation {}

    impl ActiveModelBehavior for ActiveModel {}
}

pub mod refresh_families {
    use sea_orm::entity::prelude::*;

    #[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel)]
    #[sea_orm(table_name = "refresh_families")]
    pub struct Model {
        #[sea_orm(primary_key, auto_increment = false)]
        pub id: Uuid,
        pub user_id: Uuid,
        pub created_at: DateTimeUtc,
        pub revoked_at: Option<DateTimeUtc>,
    }

    #[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
    pub enum Relation {}

    impl ActiveModelBehavior for ActiveModel {}
}

pub mod refresh_tokens {
    use sea_orm::entity::prelude::*;

    #[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel)]
    #[sea_orm(table_name = "refresh_tokens")]
    pub struct Model {
        #[sea_orm(primary_key, auto_increment = false)]
        pub id: Uuid,
        pub family_id: Uuid,
        pub user_id: Uuid,
        #[sea_orm(unique)]
        pub token_hash: String,
        pub expires_at_ms: i64,
        pub used_at: Option<DateTimeUtc>,
        pub created_at: DateTimeUtc,
    }

    #[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
    pub enum Relation {}

    impl ActiveModelBehavior for ActiveModel {}
}

pub mod business_accounts {
    use proto::vocabulary::{BusinessMode, BusinessStatus};
    use sea_orm::entity::prelude::*;

    #[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel)]
    #[sea_orm(table_name = "business_accounts")]
    pub struct Model {
        /// The owner's user id.
        #[sea_orm(primary_key, auto_increment = false)]
        pub id: Uuid,
        pub business_name: String,
        pub category: Option<String>,
        pub website_url: Option<String>,
        pub status: BusinessStatus,
        pub mode: BusinessMode,
        pub created_at: DateTimeUtc,
        pub updated_at: DateTimeUtc,
    }

    #[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
    pub enum Relation {}

    impl ActiveModelBehavior for ActiveModel {}
}

pub mod team_members {
    use proto::vocabulary::Role;
    use sea_orm::entity::prelude::*;

    #[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel)]
    #[sea_orm(table_name = "team_members")]
    pub struct Model {
        #[sea_orm(primary_key, auto_increment = false)]
        pub user_id: Uuid,
        pub business_id: Uuid,
        pub role: Role,
        pub added_at: DateTimeUtc,
    }

    #[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
    pub enum Relation {}

    impl ActiveModelBehavior for ActiveModel {}
}

pub mod rate_limits {
    use sea_orm::entity::prelude::*;

    #[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel)]
    #[sea_orm(table_name = "rate_limits")]
    pub struct Model {
        #[sea_orm(primary_key, auto_increment = false)]
        pub key: String,
        pub value: i64,
        pub expires_at_ms: i64,
    }

    #[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
    pub enum Relation {}

    impl ActiveModelBehavior for ActiveModel {}
}

pub mod follows {
    use proto::vocabulary::FollowStatus;
    use sea_orm::entity::prelude::*;

    #[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel)]
    #[sea_orm(table_name = "follows")]
    pub struct Model {
        #[sea_orm(primary_key, auto_increment = false)]
        pub business_id: Uuid,
        #[sea_orm(primary_key, auto_increment = false)]
        pub user_id: Uuid,
        pub status: FollowStatus,
        pub marketing_opt_in: bool,
        pub followed_at: Option<DateTimeUtc>,
        pub updated_at: Option<DateTimeUtc>,
    }

    #[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
    pub enum Relation {}

    impl ActiveModelBehavior for ActiveModel {}
}

/// The consent ledger: one row per change of a follow's status or marketing consent.
pub mod follow_changes {
    use proto::vocabulary::{ChangeSource, FollowStatus};
    use sea_orm::entity::prelude::*;

    #[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel)]
    #[sea_orm(table_name = "follow_changes")]
    pub struct Model {
        #[sea_orm(primary_key)]
        pub id: i64,
        pub business_id: Uuid,
        pub user_id: Uuid,
        pub at: DateTimeUtc,
        pub status: FollowStatus,
        pub marketing_opt_in: bool,
        /// `user` (the user's own follow calls) or `operator` (support, on the user's request).
        pub source: ChangeSource,
        /// On a marketing opt-in: the business's consent wording version in force then (None
        /// when it had set none, and on every other change).
        pub consent_text_version: Option<i32>,
        /// On a marketing opt-in: whether the user's call named that version.
        pub user_named_version: bool,
    }

    #[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
    pub enum Relation {}

    impl ActiveModelBehavior for ActiveModel {}
}

pub mod consent_texts {
    use sea_orm::entity::prelude::*;

    /// A business's consent wording, one row per version (from 1; the highest in force), never
    /// changed: the evidence of what each marketing opt-in agreed to.
    #[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel)]
    #[sea_orm(table_name = "consent_texts")]
    pub struct Model {
        #[sea_orm(primary_key, auto_increment = false)]
        pub business_id: Uuid,
        #[sea_orm(primary_key, auto_increment = false)]
        pub version: i32,
        pub text: String,
        pub created_at: DateTimeUtc,
        /// The member who set it.
        pub created_by: Option<Uuid>,
    }

    #[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
    pub enum Relation {}

    impl ActiveModelBehavior for ActiveModel {}
}

pub mod developer_apps {
    use sea_orm::entity::prelude::*;

    #[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel)]
    #[sea_orm(table_name = "developer_apps")]
    pub struct Model {
        #[sea_orm(primary_key, auto_increment = false)]
        pub id: Uuid,
        pub business_id: Uuid,
        pub name: String,
        pub scopes: String,
        #[sea_orm(unique)]
        pub token_hash: String,
        pub created_at: DateTimeUtc,
        pub updated_at: DateTimeUtc,
    }

    #[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
    pub enum Relation {}

    impl ActiveModelBehavior for ActiveModel {}
}

pub mod messages {
    use proto::vocabulary::{Category, FailureReason, MessageSource, MessageStatus};
    use sea_orm::entity::prelude::*;

    #[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel)]
    #[sea_orm(table_name = "messages")]
    pub struct Model {
        #[sea_orm(primary_key, auto_increment = false)]
        pub id: Uuid,
        pub business_id: Uuid,
        pub source: MessageSource,
        pub app_id: Option<Uuid>,
        pub sender_user_id: Option<Uuid>,
        pub recipient_user_id: Uuid,
        pub to_phone: String,
        pub category: Category,
        pub body: Option<String>,
        pub message_content: Option<String>,
        pub status: MessageStatus,
        pub failure_reason: Option<FailureReason>,
        pub emits_event: bool,
        pub created_at: DateTimeUtc,
        pub completed_at: Option<DateTimeUtc>,
        /// When it is to be handed out; null: at once.
        pub send_at: Option<DateTimeUtc>,
        /// After this it is never handed out (it fails `expired`); null: never.
        pub expires_at: Option<DateTimeUtc>,
        /// The broadcast it belongs to; null for single sends.
        pub broadcast_id: Option<Uuid>,
        /// Set on messages sent through a conversation route.
        pub conversation_id: Option<Uuid>,
        /// A conversation message's `reply_to`: a message of the thread.
        pub reply_to: Option<Uuid>,
        /// What a templated message was rendered from: `{"id", "name", "version", "locale"}`.
        pub template: Option<String>,
    }

    #[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
    pub enum Relation {}

    impl ActiveModelBehavior for ActiveModel {}
}

pub mod message_outbox {
    use sea_orm::entity::prelude::*;

    #[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel)]
    #[sea_orm(table_name = "message_outbox")]
    pub struct Model {
        #[sea_orm(primary_key, auto_increment = false)]
        pub message_id: Uuid,
        pub due_at_ms: i64,
        pub lease_until_ms: i64,
        pub lease_owner: Option<String>,
        pub attempts: i32,
        /// The dispatcher's order: 0 single sends due now, 1 scheduled messages, 2 broadcast
        /// messages.
        pub class: i32,
    }

    #[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
    pub enum Relation {}

    impl ActiveModelBehavior for ActiveModel {}
}

pub mod idempotency_keys {
    use sea_orm::entity::prelude::*;

    #[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel)]
    #[sea_orm(table_name = "idempotency_keys")]
    pub struct Model {
        #[sea_orm(primary_key, auto_increment = false)]
        pub business_id: Uuid,
        #[sea_orm(primary_key, auto_increment = false)]
        pub key: String,
        pub request_hash: String,
        pub message_id: Option<Uuid>,
        pub expires_at_ms: i64,
        /// Set when the key created a broadcast (the key space is shared with sends).
        pub broadcast_id: Option<Uuid>,
    }

    #[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
    pub enum Relation {}

    impl ActiveModelBehavior for ActiveModel {}
}

pub mod inbox_messages {
    use proto::vocabulary::Category;
    use sea_orm::entity::prelude::*;

    #[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel)]
    #[sea_orm(table_name = "inbox_messages")]
    pub struct Model {
        #[sea_orm(primary_key, auto_increment = false)]
        pub message_id: Uuid,
        pub user_id: Uuid,
        pub business_id: Uuid,
        pub category: Category,
        pub body: Option<String>,
        pub message_content: Option<String>,
        pub delivered_at: DateTimeUtc,
    }

    #[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
    pub enum Relation {}

    impl ActiveModelBehavior for ActiveModel {}
}

pub mod events {
    use proto::vocabulary::EventType;
    use sea_orm::entity::prelude::*;

    #[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel)]
    #[sea_orm(table_name = "events")]
    pub struct Model {
        #[sea_orm(primary_key, auto_increment = false)]
        pub id: Uuid,
        pub business_id: Uuid,
        pub event_type: EventType,
        pub data: String,
        pub created_at: DateTimeUtc,
        /// The listing order: on PostgreSQL the writing transaction's id (the column's
        /// default, `txid_current()`), on SQLite a number the core gives as it inserts.
        pub commit_seq: i64,
    }

    #[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
    pub enum Relation {}

    impl ActiveModelBehavior for ActiveModel {}
}

pub mod webhooks {
    use sea_orm::entity::prelude::*;

    #[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel)]
    #[sea_orm(table_name = "webhooks")]
    pub struct Model {
        #[sea_orm(primary_key, auto_increment = false)]
        pub id: Uuid,
        pub business_id: Uuid,
        pub url: String,
        pub events: String,
        pub active: bool,
        pub secret_ciphertext: String,
        pub created_at: DateTimeUtc,
        pub updated_at: DateTimeUtc,
        /// Until when (Unix ms) the endpoint counts as slow; 0 = not slow.
        pub slow_until_ms: i64,
        /// Whether the current secret has the Standard Webhooks form (recorded, never guessed).
        pub secret_standard: bool,
        /// The secret the last rotation replaced, sealed like the current one; it signs too
        /// until `previous_secret_expires_at_ms`.
        pub previous_secret_ciphertext: Option<String>,
        pub previous_secret_standard: bool,
        /// Unix ms; 0 = no previous secret.
        pub previous_secret_expires_at_ms: i64,
    }

    #[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
    pub enum Relation {}

    impl ActiveModelBehavior for ActiveModel {}
}

pub mod webhook_health {
    use proto::vocabulary::WebhookHealthState;
    use sea_orm::entity::prelude::*;

    /// An endpoint's delivery health, kept by the reports of its attempts.
    #[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel)]
    #[sea_orm(table_name = "webhook_health")]
    pub struct Model {
        #[sea_orm(primary_key, auto_increment = false)]
        pub webhook_id: Uuid,
        /// `healthy` or `failing` (`paused` is read from the endpoint).
        pub state: WebhookHealthState,
        pub consecutive_failures: i32,
        pub failing_since: Option<DateTimeUtc>,
        pub last_success_at: Option<DateTimeUtc>,
        pub last_failure_at: Option<DateTimeUtc>,
        pub last_failure_status: Option<i32>,
        pub last_failure_error: Option<String>,
        /// When its last alert SMS were queued (one per 24 h).
        pub alerted_at: Option<DateTimeUtc>,
    }

    #[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
    pub enum Relation {}

    impl ActiveModelBehavior for ActiveModel {}
}

pub mod webhook_daily {
    use sea_orm::entity::prelude::*;

    /// An endpoint's attempts of one UTC day, in one of its slots (readers sum them).
    #[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel)]
    #[sea_orm(table_name = "webhook_daily")]
    pub struct Model {
        #[sea_orm(primary_key, auto_increment = false)]
        pub webhook_id: Uuid,
        /// Days since 1970-01-01.
        #[sea_orm(primary_key, auto_increment = false)]
        pub day: i32,
        #[sea_orm(primary_key, auto_increment = false)]
        pub slot: i32,
        pub attempts: i64,
        pub succeeded_attempts: i64,
        pub failed_attempts: i64,
        /// Deliveries that ended failed.
        pub exhausted: i64,
    }

    #[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
    pub enum Relation {}

    impl ActiveModelBehavior for ActiveModel {}
}

pub mod webhook_alerts {
    use sea_orm::entity::prelude::*;

    /// An alert SMS to send (a failing endpoint), held by one core while it sends it.
    #[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel)]
    #[sea_orm(table_name = "webhook_alerts")]
    pub struct Model {
        #[sea_orm(primary_key, auto_increment = false)]
        pub id: Uuid,
        pub webhook_id: Uuid,
        pub phone_number: String,
        pub text: String,
        pub due_at_ms: i64,
        pub lease_until_ms: i64,
        pub attempts: i32,
    }

    #[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
    pub enum Relation {}

    impl ActiveModelBehavior for ActiveModel {}
}

pub mod webhook_deliveries {
    use proto::vocabulary::{DeliveryStatus, EventType};
    use sea_orm::entity::prelude::*;

    #[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel)]
    #[sea_orm(table_name = "webhook_deliveries")]
    pub struct Model {
        /// Also the `X-Service-Delivery` header and the payload's `delivery_id`.
        #[sea_orm(primary_key, auto_increment = false)]
        pub id: Uuid,
        pub webhook_id: Uuid,
        pub business_id: Uuid,
        pub event_id: Uuid,
        pub event_type: EventType,
        pub data: String,
        pub status: DeliveryStatus,
        pub attempts: i32,
        pub last_http_status: Option<i32>,
        pub last_error: Option<String>,
        pub next_attempt_at_ms: i64,
        pub lease_until_ms: i64,
        pub lease_token: Option<String>,
        pub created_at: DateTimeUtc,
        pub updated_at: DateTimeUtc,
        /// 1 while the delivery waits for an attempt on an active endpoint (the job queue's
        /// index), else 0.
        pub queued: i32,
        /// `attempts` when the delivery was last (re-)queued: the retry budget counts from here.
        pub attempts_base: i32,
        /// The job queue's priority: 0 for every delivery but those of broadcast messages (1),
        /// which are leased only after every other due delivery.
        pub class: i32,
        /// The message a `message.sent` / `message.failed` delivery announces.
        pub message_id: Option<Uuid>,
    }

    #[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
    pub enum Relation {}

    impl ActiveModelBehavior for ActiveModel {}
}

pub mod webhook_attempts {
    use sea_orm::entity::prelude::*;

    #[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel)]
    #[sea_orm(table_name = "webhook_attempts")]
    pub struct Model {
        #[sea_orm(primary_key, auto_increment = false)]
        pub delivery_id: Uuid,
        #[sea_orm(primary_key, auto_increment = false)]
        pub attempt: i32,
        pub at: DateTimeUtc,
        pub http_status: Option<i32>,
        pub error: Option<String>,
        pub duration_ms: i64,
        /// The exact bytes the attempt sent (JSON text), as the worker reported them.
        pub payload: Option<String>,
        /// The first 1,024 bytes the receiver answered, as UTF-8 (invalid sequences replaced).
        pub response_body: Option<String>,
    }

    #[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
    pub enum Relation {}

    impl ActiveModelBehavior for ActiveModel {}
}

pub mod grants {
    use sea_orm::entity::prelude::*;

    #[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel)]
    #[sea_orm(table_name = "grants")]
    pub struct Model {
        #[sea_orm(primary_key, auto_increment = false)]
        pub user_id: Uuid,
        /// The developer app the grant was issued to.
        #[sea_orm(primary_key, auto_increment = false)]
        pub client_id: Uuid,
        pub created_at: DateTimeUtc,
        pub revoked_at: Option<DateTimeUtc>,
    }

    #[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
    pub enum Relation {}

    impl ActiveModelBehavior for ActiveModel {}
}

pub mod qr_sessions {
    use proto::vocabulary::QrState;
    use sea_orm::entity::prelude::*;

    #[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel)]
    #[sea_orm(table_name = "qr_sessions")]
    pub struct Model {
        #[sea_orm(primary_key, auto_increment = false)]
        pub id: Uuid,
        pub secret_hash: String,
        pub client_name: String,
        pub origin_hint: String,
        pub status: QrState,
        pub approved_by: Option<Uuid>,
        pub expires_at_ms: i64,
        pub created_at: DateTimeUtc,
        pub approved_at: Option<DateTimeUtc>,
        pub exchanged_at: Option<DateTimeUtc>,
    }

    #[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
    pub enum Relation {}

    impl ActiveModelBehavior for ActiveModel {}
}

pub mod broadcasts {
    use proto::vocabulary::{BroadcastStatus, Category};
    use sea_orm::entity::prelude::*;

    #[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel)]
    #[sea_orm(table_name = "broadcasts")]
    pub struct Model {
        #[sea_orm(primary_key, auto_increment = false)]
        pub id: Uuid,
        pub business_id: Uuid,
        pub name: String,
        pub category: Category,
        pub body: Option<String>,
        pub message_content: Option<String>,
        /// `scheduled`, `running`, `completed` or `canceled`.
        pub status: BroadcastStatus,
        pub send_at: Option<DateTimeUtc>,
        pub max_per_second: i32,
        /// The app whose token created it (null from the console).
        pub app_id: Option<Uuid>,
        /// The team member who created it (null for an app token).
        pub sender_user_id: Option<Uuid>,
        pub created_at: DateTimeUtc,
        /// Set once every created message has its outcome (`broadcast.completed`).
        pub completed_at: Option<DateTimeUtc>,
        /// When a runner may take it: its send time, then the end of its runner's lease.
        pub due_at_ms: i64,
        pub lease_owner: Option<String>,
        pub lease_until_ms: i64,
        /// The last recipient (by user id) whose message was created or skipped.
        pub cursor: Option<Uuid>,
        /// Every recipient has been handled (or the rest will never be).
        pub creation_done: bool,
        /// Active followers when it started; null before.
        pub audience: Option<i64>,
        pub accepted: i64,
        pub skipped: i64,
        pub not_created: i64,
        pub delivered: i64,
        pub failed: i64,
        /// A templated broadcast's template request (`{"name", "version"?, "variables",
        /// "locale"?}`), rendered for each recipient; null otherwise.
        pub template: Option<String>,
    }

    #[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
    pub enum Relation {}

    impl ActiveModelBehavior for ActiveModel {}
}

/// The audience of a running broadcast, fixed when it starts.
pub mod broadcast_recipients {
    use sea_orm::entity::prelude::*;

    #[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel)]
    #[sea_orm(table_name = "broadcast_recipients")]
    pub struct Model {
        #[sea_orm(primary_key, auto_increment = false)]
        pub broadcast_id: Uuid,
        #[sea_orm(primary_key, auto_increment = false)]
        pub user_id: Uuid,
    }

    #[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
    pub enum Relation {}

    impl ActiveModelBehavior for ActiveModel {}
}

/// A (business, user) pair's conversation, created by the user's first message.
pub mod conversations {
    use proto::vocabulary::ConversationStatus;
    use sea_orm::entity::prelude::*;

    #[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel)]
    #[sea_orm(table_name = "conversations")]
    pub struct Model {
        #[sea_orm(primary_key, auto_increment = false)]
        pub id: Uuid,
        pub business_id: Uuid,
        pub user_id: Uuid,
        pub status: ConversationStatus,
        pub blocked: bool,
        pub label: Option<String>,
        pub assigned_to: Option<Uuid>,
        /// The user's messages so far: the last one's `sequence`.
        pub inbound_count: i32,
        /// The business's read mark: the `sequence` of the last user message it covers.
        pub business_read_seq: i32,
        pub created_at: DateTimeUtc,
        pub last_message_at: DateTimeUtc,
        pub last_inbound_at: DateTimeUtc,
    }

    #[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
    pub enum Relation {}

    impl ActiveModelBehavior for ActiveModel {}
}

/// A user's message to a business.
pub mod inbound_messages {
    use sea_orm::entity::prelude::*;

    #[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel)]
    #[sea_orm(table_name = "inbound_messages")]
    pub struct Model {
        #[sea_orm(primary_key, auto_increment = false)]
        pub id: Uuid,
        pub conversation_id: Uuid,
        pub business_id: Uuid,
        pub user_id: Uuid,
        pub sequence: i32,
        pub body: String,
        pub reply_to: Option<Uuid>,
        pub client_message_id: Option<Uuid>,
        pub received_at: DateTimeUtc,
    }

    #[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
    pub enum Relation {}

    impl ActiveModelBehavior for ActiveModel {}
}

/// Every advance of a read mark: `side` `user` covers the business's messages, `business` the
/// user's.
pub mod read_marks {
    use sea_orm::entity::prelude::*;

    #[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel)]
    #[sea_orm(table_name = "read_marks")]
    pub struct Model {
        #[sea_orm(primary_key, auto_increment = false)]
        pub business_id: Uuid,
        #[sea_orm(primary_key, auto_increment = false)]
        pub user_id: Uuid,
        #[sea_orm(primary_key, auto_increment = false)]
        pub side: String,
        #[sea_orm(primary_key, auto_increment = false)]
        pub up_to_at: DateTimeUtc,
        #[sea_orm(primary_key, auto_increment = false)]
        pub up_to_id: Uuid,
        pub read_at: DateTimeUtc,
        pub receipts: bool,
    }

    #[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
    pub enum Relation {}

    impl ActiveModelBehavior for ActiveModel {}
}

pub mod templates {
    use proto::vocabulary::{Category, TemplateStatus};
    use sea_orm::entity::prelude::*;

    #[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel)]
    #[sea_orm(table_name = "templates")]
    pub struct Model {
        #[sea_orm(primary_key, auto_increment = false)]
        pub id: Uuid,
        pub business_id: Uuid,
        /// Unique in the business for ever.
        pub name: String,
        /// `utility` or `marketing`; never changes.
        pub category: Category,
        pub status: TemplateStatus,
        /// The newest version's number.
        pub version: i32,
        pub created_at: DateTimeUtc,
        pub updated_at: DateTimeUtc,
    }

    #[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
    pub enum Relation {}

    impl ActiveModelBehavior for ActiveModel {}
}

pub mod template_versions {
    use sea_orm::entity::prelude::*;

    /// One version of a template, as it was made; never changed.
    #[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel)]
    #[sea_orm(table_name = "template_versions")]
    pub struct Model {
        #[sea_orm(primary_key, auto_increment = false)]
        pub template_id: Uuid,
        #[sea_orm(primary_key, auto_increment = false)]
        pub version: i32,
        /// `{"<name>": {"max_length"}}`, canonical JSON.
        pub variables: String,
        /// `{"<locale>": {"body"} | {"message_content"}}`, canonical JSON.
        pub variants: String,
        pub default_locale: String,
        pub created_at: DateTimeUtc,
    }

    #[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
    pub enum Relation {}

    impl ActiveModelBehavior for ActiveModel {}
}

/// The erasure ledger: one row per erased user, written before anything of theirs is
/// destroyed, never removed; no number and no text in it.
pub mod erasures {
    use proto::vocabulary::ErasureStatus;
    use sea_orm::entity::prelude::*;

    #[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel)]
    #[sea_orm(table_name = "erasures")]
    pub struct Model {
        #[sea_orm(primary_key, auto_increment = false)]
        pub id: Uuid,
        #[sea_orm(unique)]
        pub user_id: Uuid,
        pub status: ErasureStatus,
        /// The job's phase (`privacy::job::Phase`).
        pub phase: i32,
        /// Where the phase has got to: a business, and a position in its messages.
        pub cursor_business: Option<Uuid>,
        pub cursor_at: Option<DateTimeUtc>,
        pub cursor_id: Option<Uuid>,
        /// Rows the job changed or removed so far.
        pub rows_changed: i64,
        pub erased_at: DateTimeUtc,
        pub completed_at: Option<DateTimeUtc>,
        /// When a core may take the job: now, then the end of its runner's lease.
        pub due_at_ms: i64,
        pub lease_owner: Option<String>,
        pub lease_until_ms: i64,
    }

    #[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
    pub enum Relation {}

    impl ActiveModelBehavior for ActiveModel {}
}

/// The businesses that knew an erased user, each told `user.redacted` when the job ends.
pub mod erasure_businesses {
    use sea_orm::entity::prelude::*;

    #[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel)]
    #[sea_orm(table_name = "erasure_businesses")]
    pub struct Model {
        #[sea_orm(primary_key, auto_increment = false)]
        pub erasure_id: Uuid,
        #[sea_orm(primary_key, auto_increment = false)]
        pub business_id: Uuid,
        /// The user's messages from this business are redacted.
        pub done: bool,
    }

    #[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
    pub enum Relation {}

    impl ActiveModelBehavior for ActiveModel {}
}
