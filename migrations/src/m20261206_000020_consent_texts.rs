//! Consent wording: what a business asks its followers to agree to, kept by version, and the
//! version each marketing opt-in was given under.
//!
//! - `consent_texts`: one row per (business, version), versions counting from 1, never
//!   changed or removed (the evidence of what opt-ins agreed to); the highest is in force.
//! - `follow_changes.consent_text_version`: on a marketing opt-in, the version in force when it
//!   was given (null when the business had set no wording, and on every other change).
//! - `follow_changes.user_named_version`: whether the user's call named that version (the app
//!   showed the user that wording).

use sea_orm_migration::prelude::*;
use sea_orm_migration::schema::*;

#[derive(DeriveMigrationName)]
pub struct Migration;

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        manager
            .create_table(
                Table::create()
                    .table("consent_texts")
                    .col(uuid("business_id"))
                    .col(integer("version"))
                    .col(text("text"))
                    .col(timestamp_with_time_zone("created_at"))
                    .col(uuid_null("created_by"))
                    .primary_key(Index::create().col("business_id").col("version"))
                    .to_owned(),
            )
            .await?;
        // One column per statement: SQLite alters one thing at a time.
        manager
            .alter_table(
                Table::alter()
                    .table("follow_changes")
                    .add_column(integer_null("consent_text_version"))
                    .to_owned(),
            )
            .await?;
        manager
            .alter_table(
                Table::alter()
                    .table("follow_changes")
                    .add_column(boolean("user_named_version").default(false))
                    .to_owned(),
            )
            .await
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        for column in ["user_named_version", "consent_text_version"] {
            manager
                .alter_table(
                    Table::alter()
                        .table("follow_changes")
                        .drop_column(column)
                        .to_owned(),
                )
                .await?;
        }
        manager
            .drop_table(Table::drop().table("consent_texts").to_owned())
            .await
    }
}
