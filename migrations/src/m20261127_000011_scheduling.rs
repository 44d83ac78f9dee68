//! Scheduled and expiring sends: a message's `send_at` and `expires_at` (null when not given),
//! and the outbox's `class`, the dispatcher's order: 0 for single sends due now, 1 for scheduled
//! messages. The dispatcher reads each class's due rows in `(class, due_at_ms)` order, so a
//! backlog of future scheduled messages is never scanned past.

use sea_orm_migration::{prelude::*, schema::*};

#[derive(DeriveMigrationName)]
pub struct Migration;

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        for column in ["send_at", "expires_at"] {
            manager
                .alter_table(
                    Table::alter()
                        .table("messages")
                        .add_column(timestamp_with_time_zone_null(column))
                        .to_owned(),
                )
                .await?;
        }
        manager
            .alter_table(
                Table::alter()
                    .table("message_outbox")
                    .add_column(integer("class").default(0))
                    .to_owned(),
            )
            .await?;
        manager
            .drop_index(
                Index::drop()
                    .name("idx_message_outbox_due")
                    .table("message_outbox")
                    .to_owned(),
            )
            .await?;
        manager
            .create_index(
                Index::create()
                    .name("idx_message_outbox_class_due")
                    .table("message_outbox")
                    .col("class")
                    .col("due_at_ms")
                    .to_owned(),
            )
            .await
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        manager
            .drop_index(
                Index::drop()
                    .name("idx_message_outbox_class_due")
                    .table("message_outbox")
                    .to_owned(),
            )
            .await?;
        manager
            .create_index(
                Index::create()
                    .name("idx_message_outbox_due")
                    .table("message_outbox")
                    .col("due_at_ms")
                    .to_owned(),
            )
            .await?;
        manager
            .alter_table(
                Table::alter()
                    .table("message_outbox")
                    .drop_column("class")
                    .to_owned(),
            )
            .await?;
        for column in ["send_at", "expires_at"] {
            manager
                .alter_table(
                    Table::alter()
                        .table("messages")
                        .drop_column(column)
                        .to_owned(),
                )
                .await?;
        }
        Ok(())
    }
}
