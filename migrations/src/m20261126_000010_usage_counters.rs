//! Usage counters: per business, the totals (`day` = 0) and the daily figures (`day` = days
//! since 1970-01-01, UTC), each in a few slots that readers sum. Filled from what is kept:
//! totals from the messages, deliveries and active follows; daily figures from the messages'
//! acceptance and outcome times, the settled deliveries' last update and the consent ledger.

use sea_orm_migration::prelude::*;
use sea_orm_migration::sea_orm::DbBackend;

#[derive(DeriveMigrationName)]
pub struct Migration;

const COUNTERS: &[&str] = &[
    "authentication",
    "utility",
    "marketing",
    "service",
    "accepted",
    "scheduled",
    "canceled",
    "delivered",
    "failed",
    "webhooks_pending",
    "webhooks_succeeded",
    "webhooks_failed",
    "followers_active",
    "followers_opt_in",
    "follows",
    "unfollows",
];

/// `INSERT INTO usage_counters` from `select` (business_id, day, then `columns`), adding to
/// what an earlier fill put in the same row.
fn fill(columns: &[&str], select: &str) -> String {
    let updates: Vec<String> = columns
        .iter()
        .map(|c| format!("{c} = usage_counters.{c} + excluded.{c}"))
        .collect();
    format!(
        "INSERT INTO usage_counters (business_id, day, slot, {}) {select} \
         ON CONFLICT (business_id, day, slot) DO UPDATE SET {}",
        columns.join(", "),
        updates.join(", ")
    )
}

fn count_when(condition: &str) -> String {
    format!("SUM(CASE WHEN {condition} THEN 1 ELSE 0 END)")
}

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        let mut table = Table::create();
        table
            .table("usage_counters")
            .col(ColumnDef::new("business_id").uuid().not_null())
            .col(ColumnDef::new("day").integer().not_null())
            .col(ColumnDef::new("slot").integer().not_null())
            .primary_key(Index::create().col("business_id").col("day").col("slot"));
        for counter in COUNTERS {
            table.col(ColumnDef::new(*counter).big_integer().not_null().default(0));
        }
        let db = manager.get_connection();
        match manager.get_database_backend() {
            // On SQLite the rows live in their key's b-tree (WITHOUT ROWID): an upsert writes
            // one page, not a table page and an index page, in every transaction that counts.
            DbBackend::Sqlite => {
                let sql = table.to_owned().to_string(SqliteQueryBuilder);
                db.execute_unprepared(&format!("{sql} WITHOUT ROWID"))
                    .await?;
            }
            _ => manager.create_table(table.to_owned()).await?,
        }

        let day = |column: &str| match manager.get_database_backend() {
            DbBackend::Postgres => {
                format!("CAST(FLOOR(EXTRACT(EPOCH FROM {column}) / 86400) AS INTEGER)")
            }
            _ => format!("CAST(strftime('%s', {column}) AS INTEGER) / 86400"),
        };
        let categories = ["authentication", "utility", "marketing", "service"];
        let by_category: Vec<String> = categories
            .iter()
            .map(|c| count_when(&format!("category = '{c}'")))
            .collect();
        let mut statements = Vec::new();
        // Totals: messages by category and status.
        let statuses = ["accepted", "delivered", "failed"];
        let by_status: Vec<String> = statuses
            .iter()
            .map(|s| count_when(&format!("status = '{s}'")))
            .collect();
        let columns: Vec<&str> = categories.iter().chain(&statuses).copied().collect();
        statements.push(fill(
            &columns,
            &format!(
                "SELECT business_id, 0, 0, {}, {} FROM messages WHERE 1 = 1 GROUP BY business_id",
                by_category.join(", "),
                by_status.join(", ")
            ),
        ));
        // Totals: deliveries by status; active followers.
        statements.push(fill(
            &["webhooks_pending", "webhooks_succeeded", "webhooks_failed"],
            &format!(
                "SELECT business_id, 0, 0, {}, {}, {} FROM webhook_deliveries WHERE 1 = 1 \
                 GROUP BY business_id",
                count_when("status IN ('pending', 'retrying')"),
                count_when("status = 'succeeded'"),
                count_when("status = 'failed'"),
            ),
        ));
        statements.push(fill(
            &["followers_active", "followers_opt_in"],
            &format!(
                "SELECT business_id, 0, 0, COUNT(*), {} FROM follows WHERE status = 'active' \
                 GROUP BY business_id",
                count_when("marketing_opt_in"),
            ),
        ));
        // Daily: messages on the day they were accepted, outcomes on theirs.
        statements.push(fill(
            &categories,
            &format!(
                "SELECT business_id, {d}, 0, {} FROM messages WHERE 1 = 1 \
                 GROUP BY business_id, {d}",
                by_category.join(", "),
                d = day("created_at"),
            ),
        ));
        statements.push(fill(
            &["delivered", "failed"],
            &format!(
                "SELECT business_id, {d}, 0, {}, {} FROM messages \
                 WHERE completed_at IS NOT NULL AND status IN ('delivered', 'failed') \
                 GROUP BY business_id, {d}",
                count_when("status = 'delivered'"),
                count_when("status = 'failed'"),
                d = day("completed_at"),
            ),
        ));
        // Daily: deliveries on the day they settled (their last update).
        statements.push(fill(
            &["webhooks_succeeded", "webhooks_failed"],
            &format!(
                "SELECT business_id, {d}, 0, {}, {} FROM webhook_deliveries \
                 WHERE status IN ('succeeded', 'failed') GROUP BY business_id, {d}",
                count_when("status = 'succeeded'"),
                count_when("status = 'failed'"),
                d = day("updated_at"),
            ),
        ));
        // Daily: follows and unfollows from the consent ledger (an entry that made the follow
        // active, or unfollowed; the ledger's first entry of a follow counts as its change).
        statements.push(fill(
            &["follows", "unfollows"],
            &format!(
                "SELECT business_id, {d}, 0, {}, {} FROM (SELECT business_id, at, status, \
                 LAG(status) OVER (PARTITION BY business_id, user_id ORDER BY id) AS previous \
                 FROM follow_changes) AS changes WHERE 1 = 1 GROUP BY business_id, {d}",
                count_when("status = 'active' AND (previous IS NULL OR previous <> 'active')"),
                count_when(
                    "status = 'unfollowed' AND (previous IS NULL OR previous <> 'unfollowed')"
                ),
                d = day("at"),
            ),
        ));
        for sql in statements {
            db.execute_unprepared(&sql).await?;
        }
        Ok(())
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        manager
            .drop_table(Table::drop().table("usage_counters").to_owned())
            .await
    }
}
