//! The vocabulary: every public value set (statuses, categories, sources, reasons, roles, event
//! types), declared once with its wire names. The core stores and checks them (behind the `db`
//! feature each set is a string-backed sea-orm active enum over the existing text column), the
//! gateway's OpenAPI document lists them (behind the `schema` feature each set is a
//! `utoipa::ToSchema`), and the filters parse them. A subset (what a send may name, a role that
//! can be given) is declared as the variants it keeps of its set and takes the set's wire names.

use std::fmt;

/// A value that is not one of its set's wire names: `field` says which input, `allowed` lists
/// what it may be.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InvalidValue {
    pub field: String,
    pub allowed: &'static [&'static str],
}

impl fmt::Display for InvalidValue {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: one of {}", self.field, self.allowed.join(", "))
    }
}

impl std::error::Error for InvalidValue {}

/// The joined doc lines of a set, as its schema's description.
#[cfg(feature = "schema")]
#[doc(hidden)]
pub fn describe(lines: &[&str]) -> String {
    lines
        .iter()
        .map(|line| line.trim())
        .collect::<Vec<_>>()
        .join("\n")
}

#[cfg(feature = "schema")]
#[doc(hidden)]
pub fn string_schema(
    description: String,
    values: &'static [&'static str],
) -> utoipa::openapi::RefOr<utoipa::openapi::schema::Schema> {
    use utoipa::openapi::schema::{ObjectBuilder, SchemaType, Type};
    ObjectBuilder::new()
        .schema_type(SchemaType::Type(Type::String))
        .enum_values(Some(values.iter().copied()))
        .description(Some(description))
        .into()
}

/// The methods every set and subset has, from its `ALL` and `as_str`.
macro_rules! common {
    ($name:ident, $schema:literal, [$($doc:literal),*]) => {
        impl $name {
            /// Every wire name, in declaration order.
            pub const WIRE: &'static [&'static str] = &{
                let mut names = [""; $name::ALL.len()];
                let mut i = 0;
                while i < names.len() {
                    names[i] = $name::ALL[i].as_str();
                    i += 1;
                }
                names
            };

            /// The value with this wire name, if there is one.
            pub fn from_wire(name: &str) -> Option<$name> {
                $name::ALL.iter().copied().find(|value| value.as_str() == name)
            }

            /// Parses the wire name; anything else names `field` and the allowed values.
            pub fn parse(input: &str, field: &str) -> Result<$name, InvalidValue> {
                $name::from_wire(input).ok_or_else(|| InvalidValue {
                    field: field.to_string(),
                    allowed: $name::WIRE,
                })
            }
        }

        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(self.as_str())
            }
        }

        #[cfg(feature = "serde")]
        impl serde::Serialize for $name {
            fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
                serializer.serialize_str(self.as_str())
            }
        }

        #[cfg(feature = "serde")]
        impl<'de> serde::Deserialize<'de> for $name {
            fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<$name, D::Error> {
                let name = <std::borrow::Cow<'de, str>>::deserialize(deserializer)?;
                $name::from_wire(&name).ok_or_else(|| {
                    serde::de::Error::unknown_variant(&name, $name::WIRE)
                })
            }
        }

        #[cfg(feature = "schema")]
        impl utoipa::PartialSchema for $name {
            fn schema() -> utoipa::openapi::RefOr<utoipa::openapi::schema::Schema> {
                string_schema(describe(&[$($doc),*]), $name::WIRE)
            }
        }

        #[cfg(feature = "schema")]
        impl utoipa::ToSchema for $name {
            fn name() -> std::borrow::Cow<'static, str> {
                std::borrow::Cow::Borrowed($schema)
            }
        }
    };
}

/// A value set: the enum, its wire names and, behind `db`, its sea-orm column type.
macro_rules! value_set {
    ($(
        $(#[doc = $doc:literal])*
        pub enum $name:ident as $schema:literal {
            $( $(#[doc = $vdoc:literal])* $variant:ident = $wire:literal, )*
        }
    )*) => {$(
        $(#[doc = $doc])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        #[cfg_attr(feature = "db", derive(sea_orm::EnumIter, sea_orm::DeriveActiveEnum))]
        #[cfg_attr(feature = "db", sea_orm(rs_type = "String", db_type = "Text"))]
        pub enum $name {
            $(
                $(#[doc = $vdoc])*
                #[cfg_attr(feature = "db", sea_orm(string_value = $wire))]
                $variant,
            )*
        }

        impl $name {
            /// Every value, in declaration order.
            pub const ALL: &'static [$name] = &[$($name::$variant),*];

            /// The wire name (also the stored text).
            pub const fn as_str(self) -> &'static str {
                match self { $($name::$variant => $wire,)* }
            }
        }

        common!($name, $schema, [$($doc),*]);
    )*};
}

/// A subset of a value set: the variants it keeps, with the set's wire names, and conversions
/// both ways (into the set always; from it when the value is in the subset).
macro_rules! subset {
    ($(
        $(#[doc = $doc:literal])*
        pub enum $name:ident as $schema:literal of $set:ident {
            $( $(#[doc = $vdoc:literal])* $variant:ident, )*
        }
    )*) => {$(
        $(#[doc = $doc])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        pub enum $name {
            $( $(#[doc = $vdoc])* $variant, )*
        }

        impl $name {
            /// Every value, in declaration order.
            pub const ALL: &'static [$name] = &[$($name::$variant),*];

            /// The wire name, the set's.
            pub const fn as_str(self) -> &'static str {
                self.widen().as_str()
            }

            #[doc = concat!("The ", stringify!($set), " this value is.")]
            pub const fn widen(self) -> $set {
                match self { $($name::$variant => $set::$variant,)* }
            }
        }

        impl From<$name> for $set {
            fn from(value: $name) -> $set {
                value.widen()
            }
        }

        impl TryFrom<$set> for $name {
            type Error = $set;

            fn try_from(value: $set) -> Result<$name, $set> {
                match value {
                    $($set::$variant => Ok($name::$variant),)*
                    #[allow(unreachable_patterns)]
                    other => Err(other),
                }
            }
        }

        common!($name, $schema, [$($doc),*]);
    )*};
}

value_set! {
    /// A user account's status.
    pub enum UserStatus as "UserStatus" {
        Active = "active",
        Suspended = "suspended",
        Banned = "banned",
        /// Erased on their request: signed out for good, their number free to register again
        /// as a new user, what they left removed (the consent ledger and message metadata
        /// kept). Never set by hand.
        Erased = "erased",
    }

    /// A business account's status.
    pub enum BusinessStatus as "BusinessStatus" {
        Active = "active",
        Suspended = "suspended",
    }

    /// A business account's mode: a sandbox business cannot send; an operator makes it live.
    pub enum BusinessMode as "BusinessMode" {
        Sandbox = "sandbox",
        Live = "live",
    }

    /// A team role.
    pub enum Role as "Role" {
        Owner = "owner",
        Admin = "admin",
        Member = "member",
    }

    /// A developer-app scope.
    pub enum Scope as "Scope" {
        Authentication = "authentication",
        Utility = "utility",
        Marketing = "marketing",
        Service = "service",
    }

    /// A message's category in the history: a send category, or `service` for free-form text.
    pub enum Category as "RecordCategory" {
        Authentication = "authentication",
        Utility = "utility",
        Marketing = "marketing",
        /// Free-form text inside the service limit.
        Service = "service",
    }

    /// A message's status: `accepted` until the outcome is known.
    pub enum MessageStatus as "MessageStatus" {
        /// Waiting for its `send_at`.
        Scheduled = "scheduled",
        Accepted = "accepted",
        Delivered = "delivered",
        Failed = "failed",
        /// Canceled while scheduled.
        Canceled = "canceled",
    }

    /// Where a message came from.
    pub enum MessageSource as "MessageSource" {
        Console = "console",
        App = "app",
        Service = "service",
        /// A message of a broadcast.
        Broadcast = "broadcast",
    }

    /// Why a message failed.
    pub enum FailureReason as "FailureReason" {
        /// The recipient's account is no longer active.
        RecipientInactive = "recipient_inactive",
        /// The provider refused the message (a 4xx other than 408 and 429).
        ProviderRejected = "provider_rejected",
        /// The provider kept answering 408, 429 or 5xx for the whole retry budget.
        ProviderUnavailable = "provider_unavailable",
        /// The provider did not answer in time.
        ProviderTimeout = "provider_timeout",
        /// The provider could not be reached.
        ProviderUnreachable = "provider_unreachable",
        /// When it was due, the recipient no longer followed the business, or no longer
        /// consented to its marketing.
        ConsentWithdrawn = "consent_withdrawn",
        /// When it was due, the business was no longer live and active.
        BusinessNotLive = "business_not_live",
        /// It was not handed out by its `expires_at`.
        Expired = "expired",
        /// It was canceled while scheduled.
        Canceled = "canceled",
        /// Its recipient was erased before it was handed out.
        RecipientErased = "recipient_erased",
    }

    /// A follow's status.
    pub enum FollowStatus as "FollowStatus" {
        Active = "active",
        Unfollowed = "unfollowed",
    }

    /// A template's status.
    pub enum TemplateStatus as "TemplateStatus" {
        /// Sendable; `PATCH` makes a new version.
        Active = "active",
        /// Refused at send (`template_archived`); its versions stay readable.
        Archived = "archived",
    }

    /// A broadcast's status.
    pub enum BroadcastStatus as "BroadcastStatus" {
        /// Waiting for its `send_at`.
        Scheduled = "scheduled",
        /// Creating its messages.
        Running = "running",
        /// Every recipient handled and every created message has its outcome.
        Completed = "completed",
        /// Canceled, or its business stopped being live and active: messages already created
        /// go on, the rest are `not_created`.
        Canceled = "canceled",
    }

    /// An erasure's status: its job is `running` until everything is removed and
    /// `user.redacted` sent, then `completed`.
    pub enum ErasureStatus as "ErasureStatus" {
        Running = "running",
        Completed = "completed",
    }

    /// An event type in the deliveries log: a subscribable event, or `webhook.test`.
    pub enum EventType as "DeliveryEventType" {
        MessageSent = "message.sent",
        MessageFailed = "message.failed",
        GrantRevoked = "grant.revoked",
        FollowCreated = "follow.created",
        FollowUpdated = "follow.updated",
        FollowDeleted = "follow.deleted",
        BroadcastCompleted = "broadcast.completed",
        MessageReceived = "message.received",
        MessageRead = "message.read",
        /// Sent by `POST /business/webhooks/{id}/test`, to that endpoint only.
        WebhookTest = "webhook.test",
        /// An endpoint turned failing (to the business's other endpoints).
        WebhookFailing = "webhook.failing",
        /// A failing endpoint turned healthy (to the business's other endpoints).
        WebhookRecovered = "webhook.recovered",
        /// A user the business knew (sent to, heard from, or had as a follower) was erased.
        UserRedacted = "user.redacted",
    }

    /// A webhook endpoint's delivery health: `failing` after `WEBHOOK_FAILING_AFTER` failed
    /// attempts in a row or a delivery that ended failed, `healthy` again at its next success,
    /// `paused` while a person paused it (reactivation restores the state it had).
    pub enum WebhookHealthState as "WebhookHealthState" {
        Healthy = "healthy",
        Failing = "failing",
        Paused = "paused",
    }

    /// A webhook delivery's status.
    pub enum DeliveryStatus as "DeliveryStatus" {
        Pending = "pending",
        Retrying = "retrying",
        Succeeded = "succeeded",
        Failed = "failed",
    }

    /// A QR sign-in session's state: waiting for the user, approved, then exchanged once.
    pub enum QrState as "QrState" {
        Pending = "pending",
        Approved = "approved",
        Exchanged = "exchanged",
    }

    /// Who changed a follow: `user` (the user's own follow calls) or `operator` (support, on
    /// the user's request).
    pub enum ChangeSource as "ChangeSource" {
        User = "user",
        Operator = "operator",
        /// The user was erased: their follow ended with them.
        Erasure = "erasure",
    }

    /// The accepted send's status: always `sent` (the outcome arrives later).
    pub enum SendStatus as "SendStatus" {
        Sent = "sent",
    }

    /// A conversation's status: a user message reopens a closed one.
    pub enum ConversationStatus as "ConversationStatus" {
        Open = "open",
        Closed = "closed",
    }

    /// Whether a conversation's service window is open (free text may go to the user).
    pub enum WindowState as "WindowState" {
        Open = "open",
        Closed = "closed",
    }

    /// Which side wrote a thread entry: the user (`inbound`) or the business (`outbound`).
    pub enum Direction as "Direction" {
        Inbound = "inbound",
        Outbound = "outbound",
    }

    /// The token type of an access token.
    pub enum TokenType as "TokenType" {
        Bearer = "Bearer",
    }
}

subset! {
    /// A QR session's status while it can still be exchanged.
    pub enum QrStatus as "QrStatus" of QrState {
        Pending,
        Approved,
    }

    /// A role that can be given (`owner` cannot).
    pub enum AssignableRole as "AssignableRole" of Role {
        Admin,
        Member,
    }

    /// A message category a business may send.
    pub enum SendCategory as "Category" of Category {
        Authentication,
        Utility,
        Marketing,
    }

    /// What a broadcast may send.
    pub enum BroadcastCategory as "BroadcastCategory" of Category {
        Utility,
        Marketing,
    }

    /// An event a webhook endpoint may subscribe to.
    pub enum SubscribableEvent as "EventType" of EventType {
        MessageSent,
        MessageFailed,
        GrantRevoked,
        FollowCreated,
        FollowUpdated,
        FollowDeleted,
        BroadcastCompleted,
        MessageReceived,
        MessageRead,
        WebhookFailing,
        WebhookRecovered,
        UserRedacted,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wire_names_round_trip_and_strangers_name_the_field() {
        for status in MessageStatus::ALL {
            assert_eq!(MessageStatus::from_wire(status.as_str()), Some(*status));
        }
        assert_eq!(
            MessageStatus::WIRE,
            ["scheduled", "accepted", "delivered", "failed", "canceled"]
        );
        let err = MessageStatus::parse("Accepted", "status").unwrap_err();
        assert_eq!(
            err.to_string(),
            "status: one of scheduled, accepted, delivered, failed, canceled"
        );
    }

    #[test]
    fn a_subset_takes_its_sets_wire_names_and_converts_both_ways() {
        assert_eq!(
            SendCategory::WIRE,
            ["authentication", "utility", "marketing"]
        );
        assert_eq!(Category::from(SendCategory::Utility), Category::Utility);
        assert_eq!(
            SendCategory::try_from(Category::Service),
            Err(Category::Service)
        );
        assert_eq!(
            BroadcastCategory::try_from(Category::Marketing),
            Ok(BroadcastCategory::Marketing)
        );
        assert!(SendCategory::parse("service", "category").is_err());
        assert_eq!(SubscribableEvent::ALL.len() + 1, EventType::ALL.len());
        assert!(SubscribableEvent::from_wire("webhook.test").is_none());
    }
}
