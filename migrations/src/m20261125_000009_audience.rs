//! A business's audience: the consent ledger (`follow_changes`, one row per change of a follow's
//! status or marketing consent, written in the change's transaction, with its source) and the
//! indexes the followers list pages through (newest follow first, by status, by consent).
//!
//! Follows that exist before the ledger get one entry at their `updated_at` (else `followed_at`),
//! source `user`.

use sea_orm_migration::{prelude::*, schema::*};

#[derive(DeriveMigrationName)]
pub struct Migration;

/// (index, columns of `follows`)
const FOLLOW_INDEXES: &[(&str, &[&str])] = &[
    (
        "idx_follows_business_followed",
        &["business_id", "followed_at", "user_id"],
    ),
    (
        "idx_follows_business_status_followed",
        &["business_id", "status", "followed_at", "user_id"],
    ),
    (
        "idx_follows_business_opt_in_followed",
        &["business_id", "marketing_opt_in", "followed_at", "user_id"],
    ),
];

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        manager
            .create_table(
                Table::create()
                    .table("follow_changes")
                    .col(big_pk_auto("id"))
                    .col(uuid("business_id"))
                    .col(uuid("user_id"))
                    .col(timestamp_with_time_zone("at"))
                    .col(string_len("status", 16))
                    .col(boolean("marketing_opt_in"))
                    .col(string_len("source", 16))
                    .to_owned(),
            )
            .await?;
        manager
            .create_index(
                Index::create()
                    .name("idx_follow_changes_follow")
                    .table("follow_changes")
                    .col("business_id")
                    .col("user_id")
                    .col("id")
                    .to_owned(),
            )
            .await?;
        for (name, columns) in FOLLOW_INDEXES {
            let mut index = Index::create().name(*name).table("follows").to_owned();
            for column in *columns {
                index.col(*column);
            }
            manager.create_index(index).await?;
        }
        manager
            .get_connection()
            .execute_unprepared(
                "INSERT INTO follow_changes (business_id, user_id, at, status, marketing_opt_in, source) \
                 SELECT business_id, user_id, COALESCE(updated_at, followed_at), status, \
                 marketing_opt_in, 'user' FROM follows \
                 WHERE COALESCE(updated_at, followed_at) IS NOT NULL",
            )
            .await?;
        Ok(())
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        for (name, _) in FOLLOW_INDEXES {
            manager
                .drop_index(Index::drop().name(*name).table("follows").to_owned())
                .await?;
        }
        manager
            .drop_table(Table::drop().table("follow_changes").to_owned())
            .await
    }
}
