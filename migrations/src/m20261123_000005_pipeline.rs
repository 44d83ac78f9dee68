//! Indexes the job queues by what can be taken: a webhook delivery is `queued` while it is
//! pending or retrying on an active endpoint, and the lease reads `(queued, next_attempt_at_ms)`
//! in index order whatever the backlog (paused endpoints' deliveries leave the queue instead of
//! being scanned past).

use sea_orm_migration::{prelude::*, schema::*};

#[derive(DeriveMigrationName)]
pub struct Migration;

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        manager
            .alter_table(
                Table::alter()
                    .table("webhook_deliveries")
                    .add_column(integer("queued").default(0))
                    .to_owned(),
            )
            .await?;
        manager
            .get_connection()
            .execute_unprepared(
                "UPDATE webhook_deliveries SET queued = 1 \
                 WHERE status IN ('pending', 'retrying') \
                 AND webhook_id IN (SELECT id FROM webhooks WHERE active = true)",
            )
            .await?;
        manager
            .drop_index(
                Index::drop()
                    .name("idx_webhook_deliveries_due")
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
            .create_index(
                Index::create()
                    .name("idx_webhook_deliveries_webhook")
                    .table("webhook_deliveries")
                    .col("webhook_id")
                    .col("status")
                    .to_owned(),
            )
            .await?;
        Ok(())
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        for name in [
            "idx_webhook_deliveries_queue",
            "idx_webhook_deliveries_webhook",
        ] {
            manager
                .drop_index(
                    Index::drop()
                        .name(name)
                        .table("webhook_deliveries")
                        .to_owned(),
                )
                .await?;
        }
        manager
            .create_index(
                Index::create()
                    .name("idx_webhook_deliveries_due")
                    .table("webhook_deliveries")
                    .col("status")
                    .col("next_attempt_at_ms")
                    .to_owned(),
            )
            .await?;
        manager
            .alter_table(
                Table::alter()
                    .table("webhook_deliveries")
                    .drop_column("queued")
                    .to_owned(),
            )
            .await
    }
}
