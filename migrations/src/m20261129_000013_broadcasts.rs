//! Broadcasts: one message to a business's audience.
//!
//! - `broadcasts` holds each broadcast, its state, its counts and the lease of the core that
//!   runs it (`due_at_ms` is when it may be taken: its send time, then its lease's end, so the
//!   runner's index serves only broadcasts that can be taken).
//! - `broadcast_recipients` is the audience fixed when a broadcast starts, read in pages by
//!   `user_id` and deleted once every recipient has been handled.
//! - `messages.broadcast_id`, with a unique (broadcast, recipient) key over broadcast messages:
//!   no follower ever gets two messages of one broadcast, whichever core creates them.
//! - `idempotency_keys.broadcast_id`: a key of the business's one key space may name a
//!   broadcast.
//! - `webhook_deliveries.class`: 1 for deliveries of broadcast messages, leased only after every
//!   other due delivery; the job queue's index leads with it.

use sea_orm_migration::{prelude::*, schema::*};

#[derive(DeriveMigrationName)]
pub struct Migration;

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        manager
            .create_table(
                Table::create()
                    .table("broadcasts")
                    .col(pk_uuid("id"))
                    .col(uuid("business_id"))
                    .col(string_len("name", 100))
                    .col(string_len("category", 32))
                    .col(text_null("body"))
                    .col(text_null("message_content"))
                    .col(string_len("status", 16))
                    .col(timestamp_with_time_zone_null("send_at"))
                    .col(integer("max_per_second"))
                    .col(uuid_null("app_id"))
                    .col(uuid_null("sender_user_id"))
                    .col(timestamp_with_time_zone("created_at"))
                    .col(timestamp_with_time_zone_null("completed_at"))
                    .col(big_integer("due_at_ms"))
                    .col(string_len_null("lease_owner", 64))
                    .col(big_integer("lease_until_ms").default(0))
                    .col(uuid_null("cursor"))
                    .col(boolean("creation_done").default(false))
                    .col(big_integer_null("audience"))
                    .col(big_integer("accepted").default(0))
                    .col(big_integer("skipped").default(0))
                    .col(big_integer("not_created").default(0))
                    .col(big_integer("delivered").default(0))
                    .col(big_integer("failed").default(0))
                    .to_owned(),
            )
            .await?;
        manager
            .create_index(
                Index::create()
                    .name("idx_broadcasts_business")
                    .table("broadcasts")
                    .col("business_id")
                    .col("created_at")
                    .to_owned(),
            )
            .await?;
        manager
            .create_index(
                Index::create()
                    .name("idx_broadcasts_due")
                    .table("broadcasts")
                    .col("status")
                    .col("due_at_ms")
                    .to_owned(),
            )
            .await?;
        manager
            .create_table(
                Table::create()
                    .table("broadcast_recipients")
                    .col(uuid("broadcast_id"))
                    .col(uuid("user_id"))
                    .primary_key(Index::create().col("broadcast_id").col("user_id"))
                    .to_owned(),
            )
            .await?;
        manager
            .alter_table(
                Table::alter()
                    .table("messages")
                    .add_column(uuid_null("broadcast_id"))
                    .to_owned(),
            )
            .await?;
        manager
            .get_connection()
            .execute_unprepared(
                "CREATE UNIQUE INDEX idx_messages_broadcast_recipient ON messages \
                 (broadcast_id, recipient_user_id) WHERE broadcast_id IS NOT NULL",
            )
            .await?;
        manager
            .alter_table(
                Table::alter()
                    .table("idempotency_keys")
                    .add_column(uuid_null("broadcast_id"))
                    .to_owned(),
            )
            .await?;
        manager
            .alter_table(
                Table::alter()
                    .table("webhook_deliveries")
                    .add_column(integer("class").default(0))
                    .to_owned(),
            )
            .await?;
        manager
            .drop_index(
                Index::drop()
                    .name("idx_webhook_deliveries_queue")
                    .table("webhook_deliveries")
                    .to_owned(),
            )
            .await?;
        manager
            .create_index(
                Index::create()
                    .name("idx_webhook_deliveries_class_queue")
                    .table("webhook_deliveries")
                    .col("queued")
                    .col("class")
                    .col("next_attempt_at_ms")
                    .to_owned(),
            )
            .await
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        manager
            .drop_index(
                Index::drop()
                    .name("idx_webhook_deliveries_class_queue")
                    .table("webhook_deliveries")
                    .to_owned(),
            )
            .await?;
        manager
            .create_index(
                Index::create()
                    .name("idx_webhook_deliveries_queue")
                    .table("webhook_deliveries")
                    .col("queued")
                    .col("next_attempt_at_ms")
                    .to_owned(),
            )
            .await?;
        manager
            .alter_table(
                Table::alter()
                    .table("webhook_deliveries")
                    .drop_column("class")
                    .to_owned(),
            )
            .await?;
        manager
            .alter_table(
                Table::alter()
                    .table("idempotency_keys")
                    .drop_column("broadcast_id")
                    .to_owned(),
            )
            .await?;
        manager
            .drop_index(
                Index::drop()
                    .name("idx_messages_broadcast_recipient")
                    .table("messages")
                    .to_owned(),
            )
            .await?;
        manager
            .alter_table(
                Table::alter()
                    .table("messages")
                    .drop_column("broadcast_id")
                    .to_owned(),
            )
            .await?;
        manager
            .drop_table(Table::drop().table("broadcast_recipients").to_owned())
            .await?;
        manager
            .drop_table(Table::drop().table("broadcasts").to_owned())
            .await
    }
}
