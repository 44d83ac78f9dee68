//! Until when an endpoint counts as slow (Unix milliseconds; 0 = not slow): set when one of its
//! attempts took a second or more, timed out or could not connect. While it is slow, the job
//! stream holds at most `WEBHOOK_MAX_IN_FLIGHT_PER_ENDPOINT` of its deliveries in flight, so it
//! cannot take every worker slot from the other endpoints.

use sea_orm_migration::{prelude::*, schema::*};

#[derive(DeriveMigrationName)]
pub struct Migration;

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        manager
            .alter_table(
                Table::alter()
                    .table("webhooks")
                    .add_column(big_integer("slow_until_ms").default(0))
                    .to_owned(),
            )
            .await
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        manager
            .alter_table(
                Table::alter()
                    .table("webhooks")
                    .drop_column("slow_until_ms")
                    .to_owned(),
            )
            .await
    }
}
