//! Webhook endpoints, their deliveries (the workers' job queue and the deliveries log), and
//! login grants whose revocation is announced by `grant.revoked`.

use sea_orm_migration::{prelude::*, schema::*};

#[derive(DeriveMigrationName)]
pub struct Migration;

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        manager
            .create_table(
                Table::create()
                    .table("webhooks")
                    .col(pk_uuid("id"))
                    .col(uuid("business_id"))
                    .col(string_len("url", 2048))
                    // Comma-separated event names.
                    .col(string_len("events", 200))
                    .col(boolean("active"))
                    // The secret, encrypted with a key derived from MASTER_KEY.
                    .col(text("secret_ciphertext"))
                    .col(timestamp_with_time_zone("created_at"))
                    .col(timestamp_with_time_zone("updated_at"))
                    .to_owned(),
            )
            .await?;
        manager
            .create_index(
                Index::create()
                    .name("idx_webhooks_business_url")
                    .table("webhooks")
                    .col("business_id")
                    .col("url")
                    .unique()
                    .to_owned(),
            )
            .await?;

        manager
            .create_table(
                Table::create()
                    .table("webhook_deliveries")
                    .col(pk_uuid("id"))
                    .col(uuid("webhook_id"))
                    .col(uuid("business_id"))
                    .col(uuid("event_id"))
                    .col(string_len("event_type", 32))
                    .col(text("data"))
                    .col(string_len("status", 16))
                    .col(integer("attempts"))
                    .col(integer_null("last_http_status"))
                    .col(string_len_null("last_error", 500))
                    .col(big_integer("next_attempt_at_ms"))
                    .col(big_integer("lease_until_ms"))
                    .col(string_len_null("lease_token", 64))
                    .col(timestamp_with_time_zone("created_at"))
                    .col(timestamp_with_time_zone("updated_at"))
                    .to_owned(),
            )
            .await?;
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
            .create_index(
                Index::create()
                    .name("idx_webhook_deliveries_business")
                    .table("webhook_deliveries")
                    .col("business_id")
                    .col("created_at")
                    .to_owned(),
            )
            .await?;

        manager
            .create_table(
                Table::create()
                    .table("grants")
                    .col(uuid("user_id"))
                    .col(uuid("client_id"))
                    .col(timestamp_with_time_zone("created_at"))
                    .col(timestamp_with_time_zone_null("revoked_at"))
                    .primary_key(Index::create().col("user_id").col("client_id"))
                    .to_owned(),
            )
            .await?;
        Ok(())
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        for table in ["grants", "webhook_deliveries", "webhooks"] {
            manager
                .drop_table(Table::drop().table(table).if_exists().to_owned())
                .await?;
        }
        Ok(())
    }
}
