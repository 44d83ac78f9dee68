//! The service limit between effective times: a partial index over the service messages of a
//! business to a recipient, by effective time (`send_at`, or the accept time when that is
//! later). The accept transaction reads it to find another service message less than a minute
//! away; other categories pay nothing for it. The expression is spelled exactly as the query
//! spells it, and `category` is compared with a literal, so both databases use the index.

use sea_orm_migration::prelude::*;

#[derive(DeriveMigrationName)]
pub struct Migration;

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        manager
            .get_connection()
            .execute_unprepared(
                "CREATE INDEX idx_messages_service_recipient ON messages \
                 (business_id, recipient_user_id, \
                 (CASE WHEN send_at > created_at THEN send_at ELSE created_at END)) \
                 WHERE category = 'service'",
            )
            .await?;
        Ok(())
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        manager
            .drop_index(
                Index::drop()
                    .name("idx_messages_service_recipient")
                    .table("messages")
                    .to_owned(),
            )
            .await
    }
}
