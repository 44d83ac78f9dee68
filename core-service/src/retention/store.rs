//! The purge's statements: one batch of a class deleted in one short transaction (its rows
//! picked, and on PostgreSQL locked with `SKIP LOCKED`, so cores purging at once take different
//! rows), with the usage totals moved for the rows they count.

use proto::vocabulary::{Category, DeliveryStatus, MessageStatus};
use sea_orm::{
    ConnectionTrait, DatabaseConnection, DbBackend, DbErr, Statement, TransactionTrait, Value,
};

use crate::usage::Tally;

/// A DELETE of the rows of `table` whose key is among the first `limit` rows matching
/// `condition` in `order` (locked with SKIP LOCKED on PostgreSQL).
pub(super) struct Batch {
    pub table: &'static str,
    pub key: &'static str,
    pub condition: &'static str,
    pub order: &'static str,
    /// Tables whose rows belong to the purged ones: `(table, column naming the key)`.
    pub children: &'static [(&'static str, &'static str)],
    /// What the usage totals count of a purged row, if they count it.
    pub counted: Option<Counted>,
}

/// The purged rows the usage totals count, decremented in the purge's transaction.
#[derive(Clone, Copy)]
pub(super) enum Counted {
    Messages,
    Deliveries,
    Received,
}

impl Counted {
    fn returning(self) -> &'static str {
        match self {
            Counted::Messages => " RETURNING business_id, category, status",
            Counted::Deliveries => " RETURNING business_id, status",
            Counted::Received => " RETURNING business_id",
        }
    }

    fn tally(self, rows: &[sea_orm::QueryResult]) -> Result<Tally, DbErr> {
        let mut tally = Tally::new();
        for row in rows {
            let business: uuid::Uuid = row.try_get_by_index(0)?;
            match self {
                Counted::Messages => {
                    let category: Category = row.try_get_by_index(1)?;
                    let status: MessageStatus = row.try_get_by_index(2)?;
                    tally.purged_message(business, category, status);
                }
                Counted::Deliveries => {
                    let status: DeliveryStatus = row.try_get_by_index(1)?;
                    tally.purged_delivery(business, status);
                }
                Counted::Received => tally.purged_received(business),
            }
        }
        Ok(tally)
    }
}

pub(super) async fn delete_batch(
    db: &DatabaseConnection,
    limit: u32,
    batch: &Batch,
    values: Vec<Value>,
) -> Result<u64, DbErr> {
    let backend = db.get_database_backend();
    let lock = if backend == DbBackend::Postgres {
        " FOR UPDATE SKIP LOCKED"
    } else {
        ""
    };
    let Batch {
        table,
        key,
        condition,
        order,
        children,
        counted,
    } = batch;
    let pick =
        format!("SELECT {key} FROM {table} WHERE {condition} ORDER BY {order} LIMIT {limit}{lock}");
    if children.is_empty() && counted.is_none() {
        // One statement: the subquery picks (and on PostgreSQL locks) the batch.
        let sql = format!("DELETE FROM {table} WHERE ({key}) IN ({pick})");
        let done = db
            .execute_raw(Statement::from_sql_and_values(backend, sql, values))
            .await?;
        return Ok(done.rows_affected());
    }
    let txn = db.begin().await?;
    let deleted = if backend == DbBackend::Postgres {
        // Pick and lock the keys, then delete the children and the rows by key.
        let rows = txn
            .query_all_raw(Statement::from_sql_and_values(backend, pick, values))
            .await?;
        let keys: Vec<Value> = rows
            .iter()
            .filter_map(|row| row.try_get_by_index::<uuid::Uuid>(0).ok())
            .map(Value::from)
            .collect();
        if keys.is_empty() {
            txn.commit().await?;
            return Ok(0);
        }
        let placeholders = (1..=keys.len())
            .map(|i| format!("${i}"))
            .collect::<Vec<_>>()
            .join(", ");
        for (child, column) in *children {
            let sql = format!("DELETE FROM {child} WHERE {column} IN ({placeholders})");
            txn.execute_raw(Statement::from_sql_and_values(backend, sql, keys.clone()))
                .await?;
        }
        let sql = format!("DELETE FROM {table} WHERE {key} IN ({placeholders})");
        delete_counted(
            &txn,
            Statement::from_sql_and_values(backend, sql, keys),
            *counted,
        )
        .await?
    } else {
        // SQLite: the transaction's first statement writes, so it waits for the one writer's
        // lock (a read first would fail instead of waiting when another core wrote since); the
        // lock then keeps the picked batch the same for every statement.
        for (child, column) in *children {
            let sql = format!("DELETE FROM {child} WHERE {column} IN ({pick})");
            txn.execute_raw(Statement::from_sql_and_values(backend, sql, values.clone()))
                .await?;
        }
        let sql = format!("DELETE FROM {table} WHERE {key} IN ({pick})");
        delete_counted(
            &txn,
            Statement::from_sql_and_values(backend, sql, values),
            *counted,
        )
        .await?
    };
    txn.commit().await?;
    Ok(deleted)
}

/// Runs the batch's last DELETE; when the usage totals count its rows, decrements them in the
/// same transaction (the counters' statement last). Returns the rows deleted.
async fn delete_counted(
    txn: &sea_orm::DatabaseTransaction,
    delete: Statement,
    counted: Option<Counted>,
) -> Result<u64, DbErr> {
    let Some(counted) = counted else {
        return Ok(txn.execute_raw(delete).await?.rows_affected());
    };
    let delete = Statement {
        sql: format!("{}{}", delete.sql, counted.returning()),
        ..delete
    };
    let rows = txn.query_all_raw(delete).await?;
    counted
        .tally(&rows)?
        .apply(txn)
        .await
        .map_err(|err| DbErr::Custom(err.to_string()))?;
    Ok(rows.len() as u64)
}
