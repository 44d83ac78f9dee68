//! What was sent: a business finds the webhook deliveries of one of its messages, and sees what
//! each attempt carried and what the receiver answered.
//!
//! - `webhook_deliveries.message_id`: the message a `message.sent` / `message.failed` delivery
//!   announces (null for other events), indexed for the deliveries list's `message_send_id`
//!   filter.
//! - `webhook_attempts.payload` (the exact bytes the attempt sent, as the worker reports them)
//!   and `webhook_attempts.response_body` (the first 1,024 bytes the receiver answered, decoded
//!   as UTF-8 with invalid sequences replaced). A delivery's payload is its last attempt's. Both
//!   go with the delivery when the purge removes it.

use sea_orm_migration::prelude::*;
use sea_orm_migration::schema::*;

#[derive(DeriveMigrationName)]
pub struct Migration;

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        manager
            .alter_table(
                Table::alter()
                    .table("webhook_deliveries")
                    .add_column(uuid_null("message_id"))
                    .to_owned(),
            )
            .await?;
        manager
            .create_index(
                Index::create()
                    .name("idx_webhook_deliveries_message")
                    .table("webhook_deliveries")
                    .col("message_id")
                    .to_owned(),
            )
            .await?;
        for name in ["payload", "response_body"] {
            manager
                .alter_table(
                    Table::alter()
                        .table("webhook_attempts")
                        .add_column(text_null(name))
                        .to_owned(),
                )
                .await?;
        }
        Ok(())
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        for name in ["response_body", "payload"] {
            manager
                .alter_table(
                    Table::alter()
                        .table("webhook_attempts")
                        .drop_column(name)
                        .to_owned(),
                )
                .await?;
        }
        manager
            .drop_index(
                Index::drop()
                    .name("idx_webhook_deliveries_message")
                    .table("webhook_deliveries")
                    .to_owned(),
            )
            .await?;
        manager
            .alter_table(
                Table::alter()
                    .table("webhook_deliveries")
                    .drop_column("message_id")
                    .to_owned(),
            )
            .await
    }
}
