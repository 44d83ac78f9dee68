//! PostgreSQL's one-statement path of the webhook store: a batch of successful attempts recorded
//! by one statement of data-modifying `WITH` parts.

use super::*;

/// PostgreSQL: successful attempts recorded as [`record_successes`], [`log_attempts`], the
/// usage counters' [`Tally::settled`] and `webhooks::health::record` record them, with one
/// statement outside any transaction (one statement is atomic on its own): one round trip
/// instead of seven. An attempt whose lease no longer holds changes nothing, as in
/// [`record_successes`]. The endpoints' health rows are locked only where the success changes
/// them (failures counted, a last success over a second old): a healthy endpoint's row is
/// written at most once a second however many successes it gets. An endpoint found failing
/// is left as it is, returned with its business for `webhooks::health::recovered` (its turn and
/// events). Returns how many attempts it recorded, and those endpoints.
pub async fn record_successes_at_once(
    db: &DatabaseConnection,
    successes: &[Success<'_>],
    now: DateTime<Utc>,
) -> AppResult<(usize, Vec<(Uuid, Uuid)>)> {
    if successes.is_empty() {
        return Ok((0, Vec::new()));
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
         RETURNING d.id, d.business_id, d.webhook_id, d.event_type, d.attempts, r.http_status, \
         r.duration_ms, r.payload, r.response_body), \
         a AS (INSERT INTO webhook_attempts (delivery_id, attempt, at, http_status, error, \
         duration_ms, payload, response_body) \
         SELECT id, attempts, $5, http_status, NULL, duration_ms, payload, response_body FROM s \
         ON CONFLICT (delivery_id, attempt) DO NOTHING), \
         c AS (SELECT webhook_id, business_id, count(*) AS n FROM s \
         WHERE event_type <> 'webhook.test' GROUP BY webhook_id, business_id), \
         k AS (SELECT wh.webhook_id, wh.state FROM webhook_health wh \
         WHERE wh.webhook_id IN (SELECT webhook_id FROM c) AND (wh.state <> 'healthy' \
         OR wh.consecutive_failures > 0 OR wh.last_success_at IS NULL \
         OR wh.last_success_at < CAST($5 AS timestamptz) - interval '1 second') \
         ORDER BY wh.webhook_id FOR UPDATE), \
         h AS (UPDATE webhook_health wh SET consecutive_failures = 0, last_success_at = $5 \
         FROM k WHERE wh.webhook_id = k.webhook_id AND k.state = 'healthy' \
         RETURNING wh.webhook_id), \
         w AS (INSERT INTO webhook_daily (webhook_id, day, slot, attempts, succeeded_attempts, \
         failed_attempts, exhausted) \
         SELECT webhook_id, CAST($7 AS INTEGER), CAST($6 AS INTEGER), n, n, 0, 0 FROM c \
         WHERE (SELECT count(*) FROM h) >= 0 ORDER BY webhook_id \
         ON CONFLICT (webhook_id, day, slot) DO UPDATE SET \
         attempts = webhook_daily.attempts + excluded.attempts, \
         succeeded_attempts = webhook_daily.succeeded_attempts + excluded.succeeded_attempts \
         RETURNING 1), \
         t AS (SELECT * FROM s WHERE (SELECT count(*) FROM w) >= 0), \
         u AS ({usage}) \
         SELECT (SELECT count(*) FROM s) AS n, CAST(NULL AS uuid) AS webhook_id, \
         CAST(NULL AS uuid) AS business_id \
         UNION ALL SELECT NULL, k.webhook_id, c.business_id FROM k \
         JOIN c ON c.webhook_id = k.webhook_id WHERE k.state <> 'healthy'",
        // Rows are locked in the general path's order (`reports::report_many`): deliveries, then
        // health rows, then the day's counters, then the usage counters (`h`, `w` and `t` run
        // each part to its end before the next starts).
        usage = crate::usage::succeeded_in("t", 6, 7),
    );
    let rows = db
        .query_all_raw(sea_orm::Statement::from_sql_and_values(
            db.get_database_backend(),
            sql,
            values,
        ))
        .await?;
    let mut recorded = 0;
    let mut failing = Vec::new();
    for row in rows {
        if let Some(n) = row.try_get::<Option<i64>>("", "n")? {
            recorded = n as usize;
        } else if let (Some(webhook), Some(business)) = (
            row.try_get::<Option<Uuid>>("", "webhook_id")?,
            row.try_get::<Option<Uuid>>("", "business_id")?,
        ) {
            failing.push((webhook, business));
        }
    }
    Ok((recorded, failing))
}
