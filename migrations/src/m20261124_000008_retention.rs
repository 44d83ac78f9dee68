//! Indexes the retention purge walks: each class is deleted oldest first by the column that ages
//! it, so a batch reads an index range instead of scanning the table.

use sea_orm_migration::prelude::*;

#[derive(DeriveMigrationName)]
pub struct Migration;

/// (index, table, column)
const INDEXES: &[(&str, &str, &str)] = &[
    ("idx_messages_created", "messages", "created_at"),
    (
        "idx_inbox_messages_delivered",
        "inbox_messages",
        "delivered_at",
    ),
    ("idx_events_created", "events", "created_at"),
    (
        "idx_webhook_deliveries_created",
        "webhook_deliveries",
        "created_at",
    ),
    ("idx_otp_codes_expires", "otp_codes", "expires_at_ms"),
    (
        "idx_refresh_families_created",
        "refresh_families",
        "created_at",
    ),
];

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        for (name, table, column) in INDEXES {
            manager
                .create_index(
                    Index::create()
                        .name(*name)
                        .table(*table)
                        .col(*column)
                        .to_owned(),
                )
                .await?;
        }
        Ok(())
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        for (name, table, _) in INDEXES {
            manager
                .drop_index(Index::drop().name(*name).table(*table).to_owned())
                .await?;
        }
        Ok(())
    }
}
