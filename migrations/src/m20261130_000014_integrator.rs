//! The integrator's kit: events listed in commit order, and webhook secret rotation with the
//! form of each secret recorded.
//!
//! - `events.commit_seq` orders events as they became visible. On PostgreSQL it is the writing
//!   transaction's id (`txid_current()`, the column's default), so a listing can stop below
//!   every transaction still open and never skip an event committed late; on SQLite (one
//!   writer) the core numbers events as it inserts them. Events older than this migration get
//!   0, so they sort by id before every newer one. The business's index now carries the order
//!   (it replaces the plain `business_id` index, so inserting an event costs no more).
//! - `webhooks.secret_standard` records whether the current secret has the Standard Webhooks
//!   form (`whsec_` + standard base64 of the key). Secrets made before it are legacy (false):
//!   never guessed from the string. `previous_secret_*` hold the secret a rotation replaced,
//!   sealed like the current one, until `previous_secret_expires_at_ms`.

use sea_orm_migration::prelude::*;
use sea_orm_migration::schema::*;
use sea_orm_migration::sea_orm::DbBackend;

#[derive(DeriveMigrationName)]
pub struct Migration;

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        manager
            .alter_table(
                Table::alter()
                    .table("events")
                    .add_column(big_integer("commit_seq").default(0))
                    .to_owned(),
            )
            .await?;
        if manager.get_database_backend() == DbBackend::Postgres {
            manager
                .get_connection()
                .execute_unprepared(
                    "ALTER TABLE events ALTER COLUMN commit_seq SET DEFAULT txid_current()",
                )
                .await?;
        }
        manager
            .drop_index(
                Index::drop()
                    .name("idx_events_business")
                    .table("events")
                    .to_owned(),
            )
            .await?;
        manager
            .create_index(
                Index::create()
                    .name("idx_events_business_order")
                    .table("events")
                    .col("business_id")
                    .col("commit_seq")
                    .col("id")
                    .to_owned(),
            )
            .await?;

        for column in [
            boolean("secret_standard").default(false).to_owned(),
            text_null("previous_secret_ciphertext"),
            boolean("previous_secret_standard")
                .default(false)
                .to_owned(),
            big_integer("previous_secret_expires_at_ms")
                .default(0)
                .to_owned(),
        ] {
            let mut column = column;
            manager
                .alter_table(
                    Table::alter()
                        .table("webhooks")
                        .add_column(&mut column)
                        .to_owned(),
                )
                .await?;
        }
        Ok(())
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        for column in [
            "previous_secret_expires_at_ms",
            "previous_secret_standard",
            "previous_secret_ciphertext",
            "secret_standard",
        ] {
            manager
                .alter_table(
                    Table::alter()
                        .table("webhooks")
                        .drop_column(column)
                        .to_owned(),
                )
                .await?;
        }
        manager
            .drop_index(
                Index::drop()
                    .name("idx_events_business_order")
                    .table("events")
                    .to_owned(),
            )
            .await?;
        manager
            .create_index(
                Index::create()
                    .name("idx_events_business")
                    .table("events")
                    .col("business_id")
                    .to_owned(),
            )
            .await?;
        manager
            .alter_table(
                Table::alter()
                    .table("events")
                    .drop_column("commit_seq")
                    .to_owned(),
            )
            .await
    }
}
