//! Follows (consent), developer apps, messages with their outbox and idempotency keys, the
//! recipients' inboxes, and the events waiting for webhook fan-out.

use sea_orm_migration::{prelude::*, schema::*};

#[derive(DeriveMigrationName)]
pub struct Migration;

fn index(name: &str, table: &'static str, cols: &[&'static str]) -> IndexCreateStatement {
    let mut index = Index::create();
    index.name(name).table(table);
    for col in cols {
        index.col(*col);
    }
    index.to_owned()
}

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        manager
            .create_table(
                Table::create()
                    .table("follows")
                    .col(uuid("business_id"))
                    .col(uuid("user_id"))
                    .col(string_len("status", 16))
                    .col(boolean("marketing_opt_in"))
                    .col(timestamp_with_time_zone_null("followed_at"))
                    .col(timestamp_with_time_zone_null("updated_at"))
                    .primary_key(Index::create().col("business_id").col("user_id"))
                    .to_owned(),
            )
            .await?;

        manager
            .create_table(
                Table::create()
                    .table("developer_apps")
                    .col(pk_uuid("id"))
                    .col(uuid("business_id"))
                    .col(string_len("name", 100))
                    // Comma-separated scope names.
                    .col(string_len("scopes", 100))
                    .col(string_len_uniq("token_hash", 64))
                    .col(timestamp_with_time_zone("created_at"))
                    .col(timestamp_with_time_zone("updated_at"))
                    .to_owned(),
            )
            .await?;
        manager
            .create_index(index(
                "idx_developer_apps_business",
                "developer_apps",
                &["business_id"],
            ))
            .await?;

        manager
            .create_table(
                Table::create()
                    .table("messages")
                    .col(pk_uuid("id"))
                    .col(uuid("business_id"))
                    .col(string_len("source", 16))
                    .col(uuid_null("app_id"))
                    .col(uuid_null("sender_user_id"))
                    .col(uuid("recipient_user_id"))
                    .col(string_len("to_phone", 20))
                    .col(string_len("category", 32))
                    .col(text_null("body"))
                    .col(text_null("message_content"))
                    .col(string_len("status", 16))
                    .col(string_len_null("failure_reason", 200))
                    .col(boolean("emits_event"))
                    .col(timestamp_with_time_zone("created_at"))
                    .col(timestamp_with_time_zone_null("completed_at"))
                    .to_owned(),
            )
            .await?;
        manager
            .create_index(index(
                "idx_messages_business_created",
                "messages",
                &["business_id", "created_at"],
            ))
            .await?;

        manager
            .create_table(
                Table::create()
                    .table("message_outbox")
                    .col(pk_uuid("message_id"))
                    .col(big_integer("due_at_ms"))
                    // 0 when no dispatcher holds it.
                    .col(big_integer("lease_until_ms"))
                    .col(string_len_null("lease_owner", 64))
                    .col(integer("attempts"))
                    .to_owned(),
            )
            .await?;
        manager
            .create_index(index(
                "idx_message_outbox_due",
                "message_outbox",
                &["due_at_ms"],
            ))
            .await?;

        manager
            .create_table(
                Table::create()
                    .table("idempotency_keys")
                    .col(uuid("business_id"))
                    .col(string_len("key", 255))
                    .col(string_len("request_hash", 64))
                    .col(uuid_null("message_id"))
                    .col(big_integer("expires_at_ms"))
                    .primary_key(Index::create().col("business_id").col("key"))
                    .to_owned(),
            )
            .await?;
        manager
            .create_index(index(
                "idx_idempotency_keys_expires",
                "idempotency_keys",
                &["expires_at_ms"],
            ))
            .await?;

        manager
            .create_table(
                Table::create()
                    .table("inbox_messages")
                    .col(pk_uuid("message_id"))
                    .col(uuid("user_id"))
                    .col(uuid("business_id"))
                    .col(string_len("category", 32))
                    .col(text_null("body"))
                    .col(text_null("message_content"))
                    .col(timestamp_with_time_zone("delivered_at"))
                    .to_owned(),
            )
            .await?;
        manager
            .create_index(index(
                "idx_inbox_messages_user",
                "inbox_messages",
                &["user_id"],
            ))
            .await?;

        manager
            .create_table(
                Table::create()
                    .table("events")
                    .col(pk_uuid("id"))
                    .col(uuid("business_id"))
                    .col(string_len("event_type", 32))
                    // The event's `data` object, as JSON text.
                    .col(text("data"))
                    .col(timestamp_with_time_zone("created_at"))
                    .to_owned(),
            )
            .await?;
        manager
            .create_index(index("idx_events_business", "events", &["business_id"]))
            .await?;
        Ok(())
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        for table in [
            "events",
            "inbox_messages",
            "idempotency_keys",
            "message_outbox",
            "messages",
            "developer_apps",
            "follows",
        ] {
            manager
                .drop_table(Table::drop().table(table).if_exists().to_owned())
                .await?;
        }
        Ok(())
    }
}
