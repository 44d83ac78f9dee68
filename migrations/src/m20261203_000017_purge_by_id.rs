//! The purge walks messages, users' messages, events and webhook deliveries by their primary
//! key: their ids are UUIDv7 made from the time that ages them (`created_at`, `received_at`),
//! so the rows made before a time are a range of the key, and the four indexes the purge
//! walked go. Each was one more entry written with every send or user message (and, for a
//! delivery, with each of its updates).
//!
//! Rows written before this migration hold ids made from the wall clock when they were
//! written, as their time was, so the purge finds them in the same range.

use sea_orm_migration::prelude::*;

#[derive(DeriveMigrationName)]
pub struct Migration;

/// (index, table, column): as `m20261124_000008_retention` and
/// `m20261201_000015_conversations` made them.
const INDEXES: &[(&str, &str, &str)] = &[
    ("idx_messages_created", "messages", "created_at"),
    ("idx_events_created", "events", "created_at"),
    (
        "idx_inbound_messages_received",
        "inbound_messages",
        "received_at",
    ),
    (
        "idx_webhook_deliveries_created",
        "webhook_deliveries",
        "created_at",
    ),
];

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        for (name, table, _) in INDEXES {
            manager
                .drop_index(Index::drop().name(*name).table(*table).to_owned())
                .await?;
        }
        Ok(())
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), DbErr> {
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
}
