//! PostgreSQL's one-statement path of the send store: a batch of sends written by one statement
//! of data-modifying `WITH` parts (`mod.rs::write_batch` takes it on PostgreSQL).

use super::context::{CONTEXT_JOINS, CONTEXT_VERSION};
use super::*;

/// PostgreSQL: the sends at `indices` (none with a service limit) written by one statement,
/// outside any transaction (one statement is atomic on its own): the key claims (a key already
/// held claims nothing), the messages of the sends without a key or whose claim was inserted,
/// their outbox rows and their usage counts, each part a data-modifying `WITH` reading the
/// rows the one before it wrote, so a batch costs one round trip instead of
/// [`write_sends`]' six. Locks are taken in [`write_sends`]' order: keys (sorted), then the
/// new rows, then the counters. The sends with a [`ContextCheck`] that fails write nothing, key
/// claim included.
pub(super) async fn write_at_once(
    db: &DatabaseConnection,
    sends: &[NewSend],
    indices: &[usize],
    now_ms: i64,
    lease: Option<OutboxLease<'_>>,
) -> AppResult<AtOnce> {
    let (keyed, claims) = claims(sends, indices.iter().copied());
    let messages: Vec<messages::ActiveModel> = indices
        .iter()
        .map(|&i| messages::ActiveModel::from(sends[i].message.clone()))
        .collect();
    let mut leased = Vec::new();
    let outbox: Vec<message_outbox::ActiveModel> = indices
        .iter()
        .map(|&i| {
            let (row, handed) = outbox_row(&sends[i].message, now_ms, lease, leased.len());
            if handed {
                leased.push(i);
            }
            row
        })
        .collect();
    let messages = crate::db::bulk::records(&messages)?;
    let outbox = crate::db::bulk::records(&outbox)?;
    let mut values: Vec<Value> = Vec::with_capacity(7);
    let mut sql = String::from("WITH ");
    // Which messages are written: those whose context check holds, and whose key is claimed.
    let mut conditions: Vec<String> = Vec::new();
    let checks: Vec<(Uuid, &ContextCheck)> = indices
        .iter()
        .filter_map(|&i| sends[i].check.as_ref().map(|c| (sends[i].message.id, c)))
        .collect();
    if !checks.is_empty() {
        // A templated send rendered from a kept template row checks that row too; the join is
        // there only when one in the batch does.
        let templated = checks.iter().any(|(_, c)| c.template.is_some());
        let json = if templated {
            let checks: Vec<_> = checks
                .iter()
                .map(|(id, c)| {
                    let template = c.template.as_ref();
                    (
                        *id,
                        c.token_hash.as_str(),
                        c.to.as_str(),
                        c.version.as_str(),
                        template.map(|t| t.0),
                        template.map(|t| t.1.as_str()),
                    )
                })
                .collect();
            serde_json::to_string(&checks)
        } else {
            let checks: Vec<_> = checks
                .iter()
                .map(|(id, c)| {
                    (
                        *id,
                        c.token_hash.as_str(),
                        c.to.as_str(),
                        c.version.as_str(),
                    )
                })
                .collect();
            serde_json::to_string(&checks)
        }
        .map_err(|_| AppError::internal("encoding a check"))?;
        values.push(json.into());
        let (template_columns, template_join, template_holds) = if templated {
            (
                ", CAST(e.v->>4 AS uuid) AS template_id, e.v->>5 AS template_version",
                " LEFT JOIN templates tk ON tk.id = q.template_id",
                " AND (q.template_id IS NULL OR tk.xmin::text = q.template_version)",
            )
        } else {
            ("", "", "")
        };
        sql.push_str(&format!(
            "cq AS (SELECT CAST(e.v->>0 AS uuid) AS id, e.v->>1 AS token_hash, \
             e.v->>2 AS to_phone, e.v->>3 AS version{template_columns} \
             FROM jsonb_array_elements(CAST(${n} AS jsonb)) AS e(v)), \
             st AS (SELECT id FROM cq WHERE id NOT IN \
             (SELECT q.id FROM cq q {CONTEXT_JOINS}{template_join} \
             WHERE {CONTEXT_VERSION} = q.version{template_holds})), ",
            n = values.len(),
        ));
        conditions.push("r.id NOT IN (SELECT id FROM st)".into());
    }
    if !claims.is_empty() {
        let claims = crate::db::bulk::records(&claims)?;
        let source = claims.source(values.len() + 1);
        values.push(claims.json);
        values.push(crate::db::bulk::uuid_array(
            keyed.iter().map(|&i| sends[i].message.id),
        ));
        let unchecked = if checks.is_empty() {
            ""
        } else {
            " WHERE message_id NOT IN (SELECT id FROM st)"
        };
        sql.push_str(&format!(
            "k AS (INSERT INTO \"{table}\" ({names}) SELECT {names} \
             FROM {source}{unchecked} \
             ON CONFLICT (business_id, key) DO NOTHING RETURNING message_id), ",
            table = claims.table,
            names = claims.names,
        ));
        conditions.push(format!(
            "(r.id IN (SELECT message_id FROM k) OR NOT (r.id = ANY(${})))",
            values.len()
        ));
    }
    let filter = if conditions.is_empty() {
        String::new()
    } else {
        format!(" WHERE {}", conditions.join(" AND "))
    };
    let m = messages.source(values.len() + 1);
    values.push(messages.json);
    let o = outbox.source(values.len() + 1);
    values.push(outbox.json);
    values.push(crate::usage::random_slot().into());
    let slot = values.len();
    values.push(crate::usage::day_of(now_ms).into());
    let day = values.len();
    sql.push_str(&format!(
        "m AS (INSERT INTO \"{mt}\" ({mn}) SELECT {mn} \
         FROM {m} AS r{filter} \
         RETURNING id, business_id, category, status), \
         o AS (INSERT INTO \"{ot}\" ({on}) SELECT {on} \
         FROM {o} AS r \
         WHERE r.message_id IN (SELECT id FROM m)), \
         u AS ({usage}) \
         SELECT id, false AS stale FROM m{stale}",
        mt = messages.table,
        mn = messages.names,
        ot = outbox.table,
        on = outbox.names,
        usage = crate::usage::accepted_in("m", slot, day),
        stale = if checks.is_empty() {
            ""
        } else {
            " UNION ALL SELECT id, true FROM st"
        },
    ));
    let mut answer = AtOnce {
        done: HashSet::with_capacity(indices.len()),
        stale: HashSet::new(),
        leased,
    };
    for row in db.query_all_raw(statement(db, &sql, values)).await? {
        let id = row.try_get::<Uuid>("", "id")?;
        if row.try_get::<bool>("", "stale")? {
            answer.stale.insert(id);
        } else {
            answer.done.insert(id);
        }
    }
    let done = &answer.done;
    answer
        .leased
        .retain(|&i| done.contains(&sends[i].message.id));
    Ok(answer)
}

/// What [`write_at_once`] came to: the ids of the messages written, of those whose context
/// check failed, and the indices of those written leased.
pub(super) struct AtOnce {
    pub done: HashSet<Uuid>,
    pub stale: HashSet<Uuid>,
    pub leased: Vec<usize>,
}
