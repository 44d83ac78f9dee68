//! Erasure: the ledger of users erased, and the job that removes what they left.
//!
//! - `erasures`: one row per erased user, written before anything of theirs is destroyed and
//!   never removed. It holds no number and no text: the user's id, when, and how far the job
//!   has gone (`phase`, a cursor, the rows it changed). A core runs the job while it holds the
//!   row's lease (`lease_owner`, `lease_until_ms`); `due_at_ms` says when a core may take it.
//! - `erasure_businesses`: the businesses that knew the user (sent to them, heard from them,
//!   or had them as a follower), found by the job's first phase; each gets `user.redacted`
//!   once, when the job ends. `done` marks those whose messages are already redacted.
//! - `users.phone_number` takes 64 characters (PostgreSQL; SQLite never limited it): an
//!   erased user's becomes `erased:<their id>`, which frees the number and is no number.

use sea_orm_migration::prelude::*;
use sea_orm_migration::schema::*;
use sea_orm_migration::sea_orm::DbBackend;

#[derive(DeriveMigrationName)]
pub struct Migration;

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        manager
            .create_table(
                Table::create()
                    .table("erasures")
                    .col(uuid("id").primary_key())
                    .col(uuid("user_id").unique_key())
                    .col(text("status"))
                    .col(integer("phase"))
                    .col(uuid_null("cursor_business"))
                    .col(timestamp_with_time_zone_null("cursor_at"))
                    .col(uuid_null("cursor_id"))
                    .col(big_integer("rows_changed"))
                    .col(timestamp_with_time_zone("erased_at"))
                    .col(timestamp_with_time_zone_null("completed_at"))
                    .col(big_integer("due_at_ms"))
                    .col(text_null("lease_owner"))
                    .col(big_integer("lease_until_ms"))
                    .to_owned(),
            )
            .await?;
        manager
            .create_index(
                Index::create()
                    .name("idx_erasures_due")
                    .table("erasures")
                    .col("status")
                    .col("due_at_ms")
                    .to_owned(),
            )
            .await?;
        manager
            .create_table(
                Table::create()
                    .table("erasure_businesses")
                    .col(uuid("erasure_id"))
                    .col(uuid("business_id"))
                    .col(boolean("done").default(false))
                    .primary_key(Index::create().col("erasure_id").col("business_id"))
                    .to_owned(),
            )
            .await?;
        if manager.get_database_backend() == DbBackend::Postgres {
            manager
                .get_connection()
                .execute_unprepared("ALTER TABLE users ALTER COLUMN phone_number TYPE varchar(64)")
                .await?;
        }
        Ok(())
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        if manager.get_database_backend() == DbBackend::Postgres {
            // Erased users' placeholders do not fit the old width: they go back to none.
            manager
                .get_connection()
                .execute_unprepared(
                    "UPDATE users SET phone_number = 'e' || substr(md5(id::text), 1, 19) \
                     WHERE status = 'erased'",
                )
                .await?;
            manager
                .get_connection()
                .execute_unprepared("ALTER TABLE users ALTER COLUMN phone_number TYPE varchar(20)")
                .await?;
        }
        manager
            .drop_table(Table::drop().table("erasure_businesses").to_owned())
            .await?;
        manager
            .drop_table(Table::drop().table("erasures").to_owned())
            .await
    }
}
