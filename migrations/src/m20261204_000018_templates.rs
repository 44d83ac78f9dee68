//! Templates: named variables, a fixed category, immutable versions, one variant per locale.
//!
//! - `templates`: one row per template; `name` is unique in its business for ever (archived
//!   templates keep theirs), `category` never changes, `version` is the newest version's number
//!   and `status` `active` or `archived`. The list reads `(business_id, status, id)`.
//! - `template_versions`: every version as it was made, never changed: its variables
//!   (`{"<name>": {"max_length"}}`) and variants (`{"<locale>": {"body"} | {"message_content"}}`)
//!   as canonical JSON, and its default locale.
//! - `messages.template`: what a templated message was rendered from, `{"id", "name",
//!   "version", "locale"}` as JSON; null for every other message.
//! - `broadcasts.template`: a templated broadcast's template request (name, version,
//!   variables, locale), rendered for each recipient when its message is made.
//! - `users.language`: the user's own language (a canonical BCP 47 tag), null when not set.

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
                    .table("templates")
                    .col(pk_uuid("id"))
                    .col(uuid("business_id"))
                    .col(string_len("name", 64))
                    .col(string_len("category", 16))
                    .col(string_len("status", 16))
                    .col(integer("version"))
                    .col(timestamp_with_time_zone("created_at"))
                    .col(timestamp_with_time_zone("updated_at"))
                    .to_owned(),
            )
            .await?;
        let db = manager.get_connection();
        for sql in [
            "CREATE UNIQUE INDEX idx_templates_name ON templates (business_id, name)",
            "CREATE INDEX idx_templates_list ON templates (business_id, status, id)",
        ] {
            db.execute_unprepared(sql).await?;
        }
        manager
            .create_table(
                Table::create()
                    .table("template_versions")
                    .col(uuid("template_id"))
                    .col(integer("version"))
                    .col(text("variables"))
                    .col(text("variants"))
                    .col(string_len("default_locale", 64))
                    .col(timestamp_with_time_zone("created_at"))
                    .primary_key(Index::create().col("template_id").col("version"))
                    .to_owned(),
            )
            .await?;
        for (table, column) in [
            ("messages", "template"),
            ("broadcasts", "template"),
            ("users", "language"),
        ] {
            manager
                .alter_table(
                    Table::alter()
                        .table(table)
                        .add_column(text_null(column))
                        .to_owned(),
                )
                .await?;
        }
        Ok(())
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        for (table, column) in [
            ("users", "language"),
            ("broadcasts", "template"),
            ("messages", "template"),
        ] {
            manager
                .alter_table(Table::alter().table(table).drop_column(column).to_owned())
                .await?;
        }
        manager
            .drop_table(Table::drop().table("template_versions").to_owned())
            .await?;
        manager
            .drop_table(Table::drop().table("templates").to_owned())
            .await
    }
}
