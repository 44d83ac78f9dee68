//! Conversations: users write to businesses, both sides mark what they read.
//!
//! - `conversations`: one row per (business, user) pair, created by the user's first message.
//!   `inbound_count` numbers the user's messages (their `sequence`, taken under the row's lock,
//!   so in commit order and gap-free); `business_read_seq` is the business's read mark as the
//!   sequence of the last user message it covers, so `unread` is their difference and the
//!   partial index holds exactly the conversations with unread messages. Activity
//!   (`last_message_at`) moves with user messages and messages sent through conversation
//!   routes only.
//! - `inbound_messages`: the user's messages. Their receipt time only grows within a
//!   conversation (each at least a microsecond after the one before), so the thread index
//!   `(conversation_id, received_at, id)` is also their `sequence` order.
//!   `(user_id, client_message_id)` is the user's idempotency key.
//! - `read_marks`: every advance of either side's read mark (a thread position and when it was
//!   made). The newest is the mark; a message's `read_at` is the first advance covering it.
//! - `messages.conversation_id` and `messages.reply_to`: set on messages sent through
//!   conversation routes.
//! - The thread's read of a business's messages to a user, by position, is
//!   `idx_messages_thread` (business, recipient, effective time, id). It replaces
//!   `idx_messages_service_recipient`: the service limit reads the same range of the same key
//!   (within a minute of effective time) and filters category and conversation there, so every
//!   service send keeps one index and the `/v1/service` rule counts only messages without a
//!   conversation.
//! - `users.display_name` and `users.read_receipts`; `usage_counters.received` (user messages:
//!   kept in the totals, received that day in the daily rows) and
//!   `usage_counters.unread_conversations` (totals only).

use sea_orm_migration::prelude::*;
use sea_orm_migration::schema::*;

#[derive(DeriveMigrationName)]
pub struct Migration;

const EFFECTIVE_TIME: &str = "(CASE WHEN send_at > created_at THEN send_at ELSE created_at END)";

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        manager
            .create_table(
                Table::create()
                    .table("conversations")
                    .col(pk_uuid("id"))
                    .col(uuid("business_id"))
                    .col(uuid("user_id"))
                    .col(string_len("status", 16))
                    .col(boolean("blocked").default(false))
                    .col(text_null("label"))
                    .col(uuid_null("assigned_to"))
                    .col(integer("inbound_count").default(0))
                    .col(integer("business_read_seq").default(0))
                    .col(timestamp_with_time_zone("created_at"))
                    .col(timestamp_with_time_zone("last_message_at"))
                    .col(timestamp_with_time_zone("last_inbound_at"))
                    .to_owned(),
            )
            .await?;
        let db = manager.get_connection();
        for sql in [
            "CREATE UNIQUE INDEX idx_conversations_pair ON conversations (business_id, user_id)",
            "CREATE INDEX idx_conversations_activity ON conversations \
             (business_id, last_message_at, id)",
            "CREATE INDEX idx_conversations_unread ON conversations \
             (business_id, last_message_at, id) WHERE inbound_count > business_read_seq",
            "CREATE INDEX idx_conversations_user ON conversations (user_id)",
        ] {
            db.execute_unprepared(sql).await?;
        }

        manager
            .create_table(
                Table::create()
                    .table("inbound_messages")
                    .col(pk_uuid("id"))
                    .col(uuid("conversation_id"))
                    .col(uuid("business_id"))
                    .col(uuid("user_id"))
                    .col(integer("sequence"))
                    .col(text("body"))
                    .col(uuid_null("reply_to"))
                    .col(uuid_null("client_message_id"))
                    .col(timestamp_with_time_zone("received_at"))
                    .to_owned(),
            )
            .await?;
        for sql in [
            "CREATE UNIQUE INDEX idx_inbound_messages_thread ON inbound_messages \
             (conversation_id, received_at, id)",
            "CREATE UNIQUE INDEX idx_inbound_messages_client ON inbound_messages \
             (user_id, client_message_id)",
            "CREATE INDEX idx_inbound_messages_received ON inbound_messages (received_at)",
        ] {
            db.execute_unprepared(sql).await?;
        }

        manager
            .create_table(
                Table::create()
                    .table("read_marks")
                    .col(uuid("business_id"))
                    .col(uuid("user_id"))
                    // `by_user` (the user's mark over the business's messages) or `by_business`.
                    .col(string_len("side", 16))
                    .col(timestamp_with_time_zone("up_to_at"))
                    .col(uuid("up_to_id"))
                    .col(timestamp_with_time_zone("read_at"))
                    // Whether the user's read receipts were on when the user's mark moved.
                    .col(boolean("receipts").default(true))
                    .primary_key(
                        Index::create()
                            .col("business_id")
                            .col("user_id")
                            .col("side")
                            .col("up_to_at")
                            .col("up_to_id"),
                    )
                    .to_owned(),
            )
            .await?;

        manager
            .alter_table(
                Table::alter()
                    .table("messages")
                    .add_column(uuid_null("conversation_id"))
                    .to_owned(),
            )
            .await?;
        manager
            .alter_table(
                Table::alter()
                    .table("messages")
                    .add_column(uuid_null("reply_to"))
                    .to_owned(),
            )
            .await?;
        manager
            .drop_index(
                Index::drop()
                    .name("idx_messages_service_recipient")
                    .table("messages")
                    .to_owned(),
            )
            .await?;
        db.execute_unprepared(&format!(
            "CREATE INDEX idx_messages_thread ON messages \
             (business_id, recipient_user_id, {EFFECTIVE_TIME}, id)"
        ))
        .await?;

        for mut column in [
            text_null("display_name"),
            boolean("read_receipts").default(true).to_owned(),
        ] {
            manager
                .alter_table(
                    Table::alter()
                        .table("users")
                        .add_column(&mut column)
                        .to_owned(),
                )
                .await?;
        }
        for name in ["received", "unread_conversations"] {
            manager
                .alter_table(
                    Table::alter()
                        .table("usage_counters")
                        .add_column(big_integer(name).default(0))
                        .to_owned(),
                )
                .await?;
        }
        Ok(())
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        for name in ["unread_conversations", "received"] {
            manager
                .alter_table(
                    Table::alter()
                        .table("usage_counters")
                        .drop_column(name)
                        .to_owned(),
                )
                .await?;
        }
        for name in ["read_receipts", "display_name"] {
            manager
                .alter_table(Table::alter().table("users").drop_column(name).to_owned())
                .await?;
        }
        manager
            .drop_index(
                Index::drop()
                    .name("idx_messages_thread")
                    .table("messages")
                    .to_owned(),
            )
            .await?;
        manager
            .get_connection()
            .execute_unprepared(&format!(
                "CREATE INDEX idx_messages_service_recipient ON messages \
                 (business_id, recipient_user_id, {EFFECTIVE_TIME}) WHERE category = 'service'"
            ))
            .await?;
        for name in ["reply_to", "conversation_id"] {
            manager
                .alter_table(
                    Table::alter()
                        .table("messages")
                        .drop_column(name)
                        .to_owned(),
                )
                .await?;
        }
        for table in ["read_marks", "inbound_messages", "conversations"] {
            manager
                .drop_table(Table::drop().table(table).to_owned())
                .await?;
        }
        Ok(())
    }
}
