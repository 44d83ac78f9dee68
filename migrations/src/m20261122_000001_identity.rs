//! Users, one-time codes, refresh-token families, business accounts, team members and the
//! request-limit state.

use sea_orm_migration::{prelude::*, schema::*};

#[derive(DeriveMigrationName)]
pub struct Migration;

fn fk(
    from_table: &'static str,
    from_col: &'static str,
    to_table: &'static str,
    to_col: &'static str,
) -> ForeignKeyCreateStatement {
    ForeignKey::create()
        .name(format!("fk_{from_table}_{from_col}"))
        .from(from_table, from_col)
        .to(to_table, to_col)
        .on_delete(ForeignKeyAction::Cascade)
        .to_owned()
}

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        manager
            .create_table(
                Table::create()
                    .table("users")
                    .col(pk_uuid("id"))
                    .col(string_len_uniq("phone_number", 20))
                    .col(string_len("status", 16))
                    .col(timestamp_with_time_zone("created_at"))
                    .col(timestamp_with_time_zone("updated_at"))
                    .to_owned(),
            )
            .await?;

        manager
            .create_table(
                Table::create()
                    .table("otp_codes")
                    .col(pk_uuid("id"))
                    .col(uuid("user_id"))
                    .col(string_len("purpose", 32))
                    .col(string_len("code_hash", 64))
                    .col(big_integer("expires_at_ms"))
                    .col(integer("attempts"))
                    .col(timestamp_with_time_zone_null("consumed_at"))
                    .col(timestamp_with_time_zone("created_at"))
                    .foreign_key(&mut fk("otp_codes", "user_id", "users", "id"))
                    .to_owned(),
            )
            .await?;
        manager
            .create_index(
                Index::create()
                    .name("idx_otp_codes_user_purpose")
                    .table("otp_codes")
                    .col("user_id")
                    .col("purpose")
                    .to_owned(),
            )
            .await?;

        manager
            .create_table(
                Table::create()
                    .table("refresh_families")
                    .col(pk_uuid("id"))
                    .col(uuid("user_id"))
                    .col(timestamp_with_time_zone("created_at"))
                    .col(timestamp_with_time_zone_null("revoked_at"))
                    .foreign_key(&mut fk("refresh_families", "user_id", "users", "id"))
                    .to_owned(),
            )
            .await?;
        manager
            .create_table(
                Table::create()
                    .table("refresh_tokens")
                    .col(pk_uuid("id"))
                    .col(uuid("family_id"))
                    .col(uuid("user_id"))
                    .col(string_len_uniq("token_hash", 64))
                    .col(big_integer("expires_at_ms"))
                    .col(timestamp_with_time_zone_null("used_at"))
                    .col(timestamp_with_time_zone("created_at"))
                    .foreign_key(&mut fk(
                        "refresh_tokens",
                        "family_id",
                        "refresh_families",
                        "id",
                    ))
                    .to_owned(),
            )
            .await?;
        manager
            .create_index(
                Index::create()
                    .name("idx_refresh_tokens_family")
                    .table("refresh_tokens")
                    .col("family_id")
                    .to_owned(),
            )
            .await?;

        manager
            .create_table(
                Table::create()
                    .table("business_accounts")
                    // The business account id is its owner's user id.
                    .col(pk_uuid("id"))
                    .col(string_len("business_name", 100))
                    .col(string_len_null("category", 100))
                    .col(string_len_null("website_url", 2048))
                    .col(string_len("status", 16))
                    .col(string_len("mode", 16))
                    .col(timestamp_with_time_zone("created_at"))
                    .col(timestamp_with_time_zone("updated_at"))
                    .foreign_key(&mut fk("business_accounts", "id", "users", "id"))
                    .to_owned(),
            )
            .await?;
        manager
            .create_table(
                Table::create()
                    .table("team_members")
                    // A user belongs to at most one business.
                    .col(pk_uuid("user_id"))
                    .col(uuid("business_id"))
                    .col(string_len("role", 16))
                    .col(timestamp_with_time_zone("added_at"))
                    .foreign_key(&mut fk("team_members", "user_id", "users", "id"))
                    .foreign_key(&mut fk(
                        "team_members",
                        "business_id",
                        "business_accounts",
                        "id",
                    ))
                    .to_owned(),
            )
            .await?;
        manager
            .create_index(
                Index::create()
                    .name("idx_team_members_business")
                    .table("team_members")
                    .col("business_id")
                    .to_owned(),
            )
            .await?;

        manager
            .create_table(
                Table::create()
                    .table("rate_limits")
                    .col(string_len("key", 200).primary_key())
                    // A GCRA theoretical arrival time (ms) or a counter, per limit kind.
                    .col(big_integer("value"))
                    .col(big_integer("expires_at_ms"))
                    .to_owned(),
            )
            .await?;
        manager
            .create_index(
                Index::create()
                    .name("idx_rate_limits_expires")
                    .table("rate_limits")
                    .col("expires_at_ms")
                    .to_owned(),
            )
            .await?;
        Ok(())
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        for table in [
            "rate_limits",
            "team_members",
            "business_accounts",
            "refresh_tokens",
            "refresh_families",
            "otp_codes",
            "users",
        ] {
            manager
                .drop_table(Table::drop().table(table).if_exists().to_owned())
                .await?;
        }
        Ok(())
    }
}
