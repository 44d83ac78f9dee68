//! QR sign-in sessions.

use sea_orm_migration::{prelude::*, schema::*};

#[derive(DeriveMigrationName)]
pub struct Migration;

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        manager
            .create_table(
                Table::create()
                    .table("qr_sessions")
                    .col(pk_uuid("id"))
                    // SHA-256 of the exchange secret.
                    .col(string_len("secret_hash", 64))
                    .col(string_len("client_name", 200))
                    .col(string_len("origin_hint", 64))
                    // "pending" | "approved" | "exchanged"
                    .col(string_len("status", 16))
                    .col(uuid_null("approved_by"))
                    .col(big_integer("expires_at_ms"))
                    .col(timestamp_with_time_zone("created_at"))
                    .col(timestamp_with_time_zone_null("approved_at"))
                    .col(timestamp_with_time_zone_null("exchanged_at"))
                    .to_owned(),
            )
            .await?;
        manager
            .create_index(
                Index::create()
                    .name("idx_qr_sessions_expires")
                    .table("qr_sessions")
                    .col("expires_at_ms")
                    .to_owned(),
            )
            .await
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        manager
            .drop_table(Table::drop().table("qr_sessions").if_exists().to_owned())
            .await
    }
}
