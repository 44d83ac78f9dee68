//! PostgreSQL's statements of the usage counters: rows as one `jsonb` parameter, and the
//! upserts that end a one-statement write (counting what its `WITH` parts returned).

use proto::vocabulary::{Category, MessageStatus};
use sea_orm::{ConnectionTrait, DbBackend, Statement, Value};

use super::{COLUMNS, Row, TOTALS};
use crate::error::AppResult;

/// [`super::Tally::apply_to_slot`] on PostgreSQL: one upsert, its rows as one parameter.
pub(super) async fn apply(
    db: &impl ConnectionTrait,
    rows: &[Row],
    used: &[usize],
    slot: i32,
) -> AppResult<()> {
    let (sql, records) = upsert(rows, used, slot, 1, "");
    db.execute_raw(Statement::from_sql_and_values(
        DbBackend::Postgres,
        sql,
        [records],
    ))
    .await?;
    Ok(())
}

/// The upsert of `rows` (their `used` columns) into `slot`, as one `jsonb` parameter `$param`
/// (the text depends on the columns, not on the rows), filtered by `condition` when not empty.
pub(super) fn upsert(
    rows: &[Row],
    used: &[usize],
    slot: i32,
    param: usize,
    condition: &str,
) -> (String, Value) {
    let names: Vec<&str> = used.iter().map(|&c| COLUMNS[c]).collect();
    let updates: Vec<String> = names
        .iter()
        .map(|name| format!("{name} = usage_counters.{name} + excluded.{name}"))
        .collect();
    let records: Vec<serde_json::Value> = rows
        .iter()
        .map(|((business, day), counts)| {
            let mut record = serde_json::Map::new();
            record.insert("business_id".into(), business.to_string().into());
            record.insert("day".into(), (*day).into());
            record.insert("slot".into(), slot.into());
            for &c in used {
                record.insert(COLUMNS[c].into(), counts[c].into());
            }
            serde_json::Value::Object(record)
        })
        .collect();
    let filter = if condition.is_empty() {
        String::new()
    } else {
        format!(" WHERE {condition}")
    };
    let sql = format!(
        "INSERT INTO usage_counters (business_id, day, slot, {names}) \
         SELECT business_id, day, slot, {names} \
         FROM jsonb_populate_recordset(NULL::usage_counters, ${param}){filter} \
         ON CONFLICT (business_id, day, slot) DO UPDATE SET {}",
        updates.join(", "),
        names = names.join(", "),
    );
    (
        sql,
        Value::Json(Some(Box::new(serde_json::Value::Array(records)))),
    )
}

/// The last part of a PostgreSQL statement that counts as accepted, like [`Tally::accepted`],
/// the messages its `WITH` part `source` returns (with `business_id`, `category` and
/// `status`): one upsert into slot `$slot` of the totals and of day `$day` (parameter
/// numbers), rows in (business, day) order like [`Tally::apply`]'s. `$day` must not be
/// [`TOTALS`].
pub fn accepted_in(source: &str, slot: usize, day: usize) -> String {
    let statuses = [MessageStatus::Accepted, MessageStatus::Scheduled];
    let mut counts: Vec<String> = Category::ALL
        .iter()
        .map(|c| format!("count(*) FILTER (WHERE s.category = '{c}')"))
        .collect();
    counts.extend(statuses.iter().map(|status| {
        format!("count(*) FILTER (WHERE d.day = {TOTALS} AND s.status = '{status}')")
    }));
    let names: Vec<&str> = Category::ALL
        .iter()
        .map(|c| c.as_str())
        .chain(statuses.iter().map(|s| s.as_str()))
        .collect();
    let updates: Vec<String> = names
        .iter()
        .map(|name| format!("{name} = usage_counters.{name} + excluded.{name}"))
        .collect();
    format!(
        "INSERT INTO usage_counters (business_id, day, slot, {names}) \
         SELECT s.business_id, d.day, CAST(${slot} AS INTEGER), {counts} \
         FROM {source} s CROSS JOIN (VALUES ({TOTALS}), (CAST(${day} AS INTEGER))) AS d(day) \
         GROUP BY s.business_id, d.day ORDER BY s.business_id, d.day \
         ON CONFLICT (business_id, day, slot) DO UPDATE SET {updates}",
        names = names.join(", "),
        counts = counts.join(", "),
        updates = updates.join(", "),
    )
}

/// The last part of a PostgreSQL statement that counts as succeeded, like [`Tally::settled`],
/// the deliveries its `WITH` part `source` returns (with `business_id`): one upsert into slot
/// `$slot` of the totals and of day `$day` (parameter numbers), rows in (business, day) order
/// like [`Tally::apply`]'s. `$day` must not be [`TOTALS`].
pub fn succeeded_in(source: &str, slot: usize, day: usize) -> String {
    format!(
        "INSERT INTO usage_counters (business_id, day, slot, webhooks_pending, \
         webhooks_succeeded) \
         SELECT s.business_id, d.day, CAST(${slot} AS INTEGER), \
         -count(*) FILTER (WHERE d.day = {TOTALS}), count(*) \
         FROM {source} s CROSS JOIN (VALUES ({TOTALS}), (CAST(${day} AS INTEGER))) AS d(day) \
         GROUP BY s.business_id, d.day ORDER BY s.business_id, d.day \
         ON CONFLICT (business_id, day, slot) DO UPDATE SET \
         webhooks_pending = usage_counters.webhooks_pending + excluded.webhooks_pending, \
         webhooks_succeeded = usage_counters.webhooks_succeeded + excluded.webhooks_succeeded"
    )
}
