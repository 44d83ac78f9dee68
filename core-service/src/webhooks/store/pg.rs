//! PostgreSQL's one-statement path of the webhook store: a batch of successful attempts recorded
//! by one statement of data-modifying `WITH` parts.

use super::*;

/// PostgreSQL: successful attempts recorded as [`record_successes`], [`log_attempts`] and the
/// usage counters' [`Tally::settled`] record them, with one statement outside any transaction
/// (one statement is atomic on its own): one round trip instead of five. An attempt whose lease
/// no longer holds changes nothing, as in [`record_successes`]. Returns how many it recorded.
pub async fn record_successes_at_once(
    db: &DatabaseConnection,
    successes: &[Success<'_>],
    now: DateTime<Utc>,
) -> AppResult<usize> {
    if successes.is_empty() {
        return Ok(0);
    }
    let array = |ty: ArrayType, values: Vec<Value>| Value::Array(ty, Some(Box::new(values)));
    let values = vec![
        crate::db::bulk::uuid_array(successes.iter().map(|s| s.id)),
        array(
            ArrayType::String,
            successes
                .iter()
                .map(|s| s.lease_token.to_string().into())
                .collect(),
        ),
        array(
            ArrayType::Int,
            successes.iter().map(|s| s.http_status.into()).collect(),
        ),
        array(
            ArrayType::BigInt,
            successes.iter().map(|s| s.duration_ms.into()).collect(),
        ),
        now.into(),
        crate::usage::random_slot().into(),
        crate::usage::day_of(now.timestamp_millis()).into(),
        array(
            ArrayType::String,
            successes.iter().map(|s| s.payload.clone().into()).collect(),
        ),
        array(
            ArrayType::String,
            successes
                .iter()
                .map(|s| s.response_body.clone().into())
                .collect(),
        ),
    ];
    let sql = format!(
        "WITH r AS (SELECT * FROM unnest($1::uuid[], $2::text[], $3::int4[], $4::int8[], \
         $8::text[], $9::text[]) \
         AS r(id, lease_token, http_status, duration_ms, payload, response_body)), \
         s AS (UPDATE webhook_deliveries d SET status = 'succeeded', attempts = d.attempts + 1, \
         last_http_status = r.http_status, last_error = NULL, queued = 0, lease_until_ms = 0, \
         lease_token = NULL, updated_at = $5 FROM r \
         WHERE d.id = r.id AND d.lease_token = r.lease_token \
         RETURNING d.id, d.business_id, d.attempts, r.http_status, r.duration_ms, r.payload, \
         r.response_body), \
         a AS (INSERT INTO webhook_attempts (delivery_id, attempt, at, http_status, error, \
         duration_ms, payload, response_body) \
         SELECT id, attempts, $5, http_status, NULL, duration_ms, payload, response_body FROM s \
         ON CONFLICT (delivery_id, attempt) DO NOTHING), \
         u AS ({usage}) \
         SELECT count(*) AS n FROM s",
        usage = crate::usage::succeeded_in("s", 6, 7),
    );
    let row = db
        .query_one_raw(sea_orm::Statement::from_sql_and_values(
            db.get_database_backend(),
            sql,
            values,
        ))
        .await?;
    let recorded = match row {
        Some(row) => row.try_get::<i64>("", "n")?,
        None => 0,
    };
    Ok(recorded as usize)
}
