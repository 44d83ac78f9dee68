//! Every webhook attempt of a delivery (the deliveries log's detail): when, the receiver's
//! status or the error, and how long it took. And where a delivery's budget of attempts starts:
//! a failed delivery re-queued by hand gets a fresh budget while `attempts` keeps counting.

use sea_orm_migration::{prelude::*, schema::*};

#[derive(DeriveMigrationName)]
pub struct Migration;

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        manager
            .create_table(
                Table::create()
                    .table("webhook_attempts")
                    .col(uuid("delivery_id"))
                    .col(integer("attempt"))
                    .col(timestamp_with_time_zone("at"))
                    .col(integer_null("http_status"))
                    .col(string_len_null("error", 500))
                    .col(big_integer("duration_ms"))
                    .primary_key(Index::create().col("delivery_id").col("attempt"))
                    .to_owned(),
            )
            .await?;
        manager
            .alter_table(
                Table::alter()
                    .table("webhook_deliveries")
                    .add_column(integer("attempts_base").default(0))
                    .to_owned(),
            )
            .await
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        manager
            .alter_table(
                Table::alter()
                    .table("webhook_deliveries")
                    .drop_column("attempts_base")
                    .to_owned(),
            )
            .await?;
        manager
            .drop_table(
                Table::drop()
                    .table("webhook_attempts")
                    .if_exists()
                    .to_owned(),
            )
            .await
    }
}
