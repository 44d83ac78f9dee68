//! Delivery health: each endpoint's state kept by the reports that change it, per-day counters,
//! and the alert SMS waiting to go out.
//!
//! - `webhook_health`: one row per endpoint (made with it, removed with it): `state`
//!   (`healthy` or `failing`; `paused` is read from the endpoint), the failed attempts in a row,
//!   since when it fails, the last success and failure (status and error), and when its last
//!   alert SMS went out (one per 24 h). Rows for the endpoints already there start healthy.
//! - `webhook_daily`: per endpoint, UTC day (days since 1970-01-01) and slot (like
//!   `usage_counters`: concurrent reports mostly land on different rows), the attempts, those
//!   answered 2xx and those not, and the deliveries that ended failed that day.
//! - `webhook_alerts`: alert SMS to send, one per member, due at `due_at_ms` and held by one
//!   core while it sends (`lease_until_ms`).
//! - `users.webhook_alerts`: whether the member gets those SMS (on unless they turned it off).

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
                    .table("webhook_health")
                    .col(pk_uuid("webhook_id"))
                    .col(string_len("state", 16).default("healthy"))
                    .col(integer("consecutive_failures").default(0))
                    .col(timestamp_with_time_zone_null("failing_since"))
                    .col(timestamp_with_time_zone_null("last_success_at"))
                    .col(timestamp_with_time_zone_null("last_failure_at"))
                    .col(integer_null("last_failure_status"))
                    .col(text_null("last_failure_error"))
                    .col(timestamp_with_time_zone_null("alerted_at"))
                    .to_owned(),
            )
            .await?;
        manager
            .create_table(
                Table::create()
                    .table("webhook_daily")
                    .col(uuid("webhook_id"))
                    .col(integer("day"))
                    .col(integer("slot"))
                    .col(big_integer("attempts").default(0))
                    .col(big_integer("succeeded_attempts").default(0))
                    .col(big_integer("failed_attempts").default(0))
                    .col(big_integer("exhausted").default(0))
                    .primary_key(Index::create().col("webhook_id").col("day").col("slot"))
                    .to_owned(),
            )
            .await?;
        manager
            .create_table(
                Table::create()
                    .table("webhook_alerts")
                    .col(pk_uuid("id"))
                    .col(uuid("webhook_id"))
                    .col(string_len("phone_number", 32))
                    .col(text("text"))
                    .col(big_integer("due_at_ms"))
                    .col(big_integer("lease_until_ms").default(0))
                    .col(integer("attempts").default(0))
                    .to_owned(),
            )
            .await?;
        let db = manager.get_connection();
        for sql in [
            "CREATE INDEX idx_webhook_alerts_due ON webhook_alerts (due_at_ms)",
            "INSERT INTO webhook_health (webhook_id, state, consecutive_failures) \
             SELECT id, 'healthy', 0 FROM webhooks",
        ] {
            db.execute_unprepared(sql).await?;
        }
        manager
            .alter_table(
                Table::alter()
                    .table("users")
                    .add_column(boolean("webhook_alerts").default(true))
                    .to_owned(),
            )
            .await
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        manager
            .alter_table(
                Table::alter()
                    .table("users")
                    .drop_column("webhook_alerts")
                    .to_owned(),
            )
            .await?;
        for table in ["webhook_alerts", "webhook_daily", "webhook_health"] {
            manager
                .drop_table(Table::drop().table(table).to_owned())
                .await?;
        }
        Ok(())
    }
}
