//! PostgreSQL's one-statement paths of the outbox store (data-modifying `WITH`): the portable
//! functions in `mod.rs` call these when the connection is PostgreSQL's.

use std::collections::HashMap;

use chrono::{DateTime, Utc};
use proto::vocabulary::UserStatus;
use sea_orm::{ConnectionTrait, DatabaseConnection, DbBackend, Statement};
use uuid::Uuid;

use super::*;

/// PostgreSQL, outcomes of messages that are not a broadcast's: [`record_outcomes`] as one
/// statement outside any transaction (one statement is atomic on its own), so a batch costs
/// one round trip instead of seven. Its first part locks the decided messages still
/// `accepted` (in id order); every other part writes only when that is all of them (and when
/// `planning.check` and every recipient of `inboxed` hold), so the statement either records
/// every outcome, event, delivery, inbox row, outbox row gone and counter planned here, or
/// writes nothing and says why.
///
/// With `inboxed`, messages of `decided` are delivered by this statement: their inbox rows are
/// written (once: a row already there stays) provided that every one's recipient is active.
pub async fn record_outcomes_at_once(
    db: &DatabaseConnection,
    decided: &[(messages::Model, Outcome)],
    done: &[Uuid],
    now: DateTime<Utc>,
    planning: Planning<'_>,
    inboxed: Option<Inboxed<'_>>,
) -> AppResult<AtOnce> {
    let (inboxed, active) = match inboxed {
        Some(Inboxed {
            messages,
            active_status,
        }) => (messages, Some(active_status)),
        None => (&[][..], None),
    };
    let mut tally = Tally::new();
    let mut events = Vec::new();
    let mut ids = Vec::with_capacity(decided.len());
    let mut outcomes = Vec::with_capacity(decided.len());
    for (message, outcome) in decided {
        tally.decided(
            message.business_id,
            outcome.is_delivered(),
            now.timestamp_millis(),
        );
        if message.emits_event {
            events.push(outcome_event(message, outcome));
        }
        ids.push(message.id);
        outcomes.push(serde_json::json!({
            "id": message.id,
            "status": outcome.status(),
            "reason": outcome.reason(),
        }));
    }
    let read;
    let endpoints = match planning.endpoints {
        Some(endpoints) => endpoints,
        None if events.is_empty() => &[],
        None => {
            let mut businesses: Vec<Uuid> = events.iter().map(|e| e.business_id).collect();
            businesses.sort();
            businesses.dedup();
            read = crate::events::active_endpoints(db, businesses).await?;
            &read
        }
    };
    let planned = crate::events::plan(events, now, &mut tally, planning.lease, endpoints);
    let mut values = vec![
        crate::db::bulk::uuid_array(ids),
        (decided.len() as i64).into(),
        sea_orm::Value::Json(Some(Box::new(serde_json::Value::Array(outcomes)))),
        now.into(),
        crate::db::bulk::uuid_array(done.iter().copied()),
    ];
    let mut sql = String::from(
        "WITH l AS (SELECT id FROM messages WHERE id = ANY($1) AND status = 'accepted' \
         ORDER BY id FOR UPDATE), \
         c AS (SELECT count(*) = $2 AS ok FROM l)",
    );
    let endpoints_ok = match planning.check {
        Some(check) => {
            let first = values.len() + 1;
            values.extend(check.values());
            sql.push_str(&format!(
                ", k AS ({})",
                crate::events::EndpointCheck::sql(first, first + 1)
            ));
            "(SELECT ok FROM k)"
        }
        None => "true",
    };
    let recipients_ok = if inboxed.is_empty() {
        "true"
    } else {
        let mut recipients: Vec<Uuid> = inboxed.iter().map(|m| m.recipient_user_id).collect();
        recipients.sort();
        recipients.dedup();
        sql.push_str(&format!(
            ", a AS (SELECT count(*) = ${} AS ok FROM users WHERE id = ANY(${}) AND status = ${})",
            values.len() + 1,
            values.len() + 2,
            values.len() + 3,
        ));
        values.push((recipients.len() as i64).into());
        values.push(crate::db::bulk::uuid_array(recipients));
        values.push(active.into());
        "(SELECT ok FROM a)"
    };
    let all = ["(SELECT ok FROM c)", endpoints_ok, recipients_ok]
        .into_iter()
        .filter(|check| *check != "true")
        .collect::<Vec<_>>()
        .join(" AND ");
    sql.push_str(&format!(
        ", d AS (UPDATE messages SET status = x.status, failure_reason = x.reason, \
         completed_at = $4 FROM jsonb_to_recordset($3) AS x(id uuid, status text, reason text) \
         WHERE messages.id = ANY($1) AND messages.id = x.id AND {all})"
    ));
    let mut part = |name: &str,
                    records: crate::db::bulk::Records,
                    conflict: &str,
                    values: &mut Vec<sea_orm::Value>| {
        let source = records.source(values.len() + 1);
        values.push(records.json);
        sql.push_str(&format!(
            ", {name} AS (INSERT INTO \"{table}\" ({names}) SELECT {names} \
             FROM {source} WHERE {all}{conflict})",
            table = records.table,
            names = records.names,
        ));
    };
    if !planned.events.is_empty() {
        let rows: Vec<_> = planned
            .events
            .iter()
            .map(|e| crate::events::active(db, e))
            .collect();
        part("e", crate::db::bulk::records(&rows)?, "", &mut values);
    }
    if !planned.deliveries.is_empty() {
        part(
            "w",
            crate::db::bulk::records(&planned.deliveries)?,
            "",
            &mut values,
        );
    }
    if !inboxed.is_empty() {
        let rows: Vec<_> = inboxed.iter().map(|m| inbox_row(m, now)).collect();
        part(
            "i",
            crate::db::bulk::records(&rows)?,
            " ON CONFLICT (message_id) DO NOTHING",
            &mut values,
        );
    }
    sql.push_str(&format!(
        ", o AS (DELETE FROM message_outbox WHERE message_id = ANY($5) AND {all})"
    ));
    if let Some((upsert, records)) = tally.pg_upsert(values.len() + 1, &all) {
        values.push(records);
        sql.push_str(&format!(", u AS ({upsert})"));
    }
    sql.push_str(&format!(
        " SELECT (SELECT ok FROM c) AS decided_ok, {endpoints_ok} AS endpoints_ok, \
         {recipients_ok} AS recipients_ok"
    ));
    let Some(row) = db.query_one_raw(statement(db, &sql, values)).await? else {
        return Ok(AtOnce::Decided);
    };
    if !row.try_get::<bool>("", "decided_ok")? {
        return Ok(AtOnce::Decided);
    }
    if !row.try_get::<bool>("", "endpoints_ok")? {
        return Ok(AtOnce::EndpointsMoved);
    }
    if !row.try_get::<bool>("", "recipients_ok")? {
        return Ok(AtOnce::RecipientInactive);
    }
    count_outcomes(decided.iter().map(|(_, o)| o));
    Ok(AtOnce::Recorded(Recorded {
        decided: decided.len(),
        queued: planned.deliveries.len(),
        leased: planned.leased,
        endpoints_moved: false,
    }))
}

/// PostgreSQL: the statuses of `recipients`, and the inbox rows of those of `messages` whose
/// recipient is active written (once: a row already there stays), in one statement.
pub(super) async fn read_and_put_in_inboxes(
    db: &impl ConnectionTrait,
    recipients: Vec<Uuid>,
    messages: &[messages::Model],
    now: DateTime<Utc>,
    active: UserStatus,
) -> AppResult<HashMap<Uuid, UserStatus>> {
    let rows: Vec<_> = messages
        .iter()
        .map(|message| super::inbox_row(message, now))
        .collect();
    let records = crate::db::bulk::records(&rows)?;
    let source = records.source(2);
    let crate::db::bulk::Records {
        table,
        names,
        json: records,
    } = records;
    let sql = format!(
        "WITH u AS (SELECT id, status FROM users WHERE id = ANY($1)), \
         i AS (INSERT INTO \"{table}\" ({names}) SELECT {names} \
         FROM {source} r \
         WHERE EXISTS (SELECT 1 FROM u WHERE u.id = r.user_id AND u.status = '{active}') \
         ON CONFLICT (message_id) DO NOTHING) \
         SELECT id, status FROM u",
    );
    let values = [crate::db::bulk::uuid_array(recipients), records];
    let rows = db
        .query_all_raw(Statement::from_sql_and_values(
            DbBackend::Postgres,
            sql,
            values,
        ))
        .await?;
    rows.iter()
        .map(|row| Ok((row.try_get("", "id")?, row.try_get("", "status")?)))
        .collect::<Result<_, sea_orm::DbErr>>()
        .map_err(Into::into)
}
