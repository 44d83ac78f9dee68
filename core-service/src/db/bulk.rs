//! Set-based statements whose text does not depend on how many rows they carry.
//!
//! A multi-row `INSERT ... VALUES (..), (..)` or an `IN (..)` list has another text for every
//! count, and every text is a statement of its own: sqlx prepares it on the connection (its cache
//! keeps 100 per connection, and the batched paths make far more than that, so most executions
//! prepared again) and PostgreSQL parses and plans it each time. On PostgreSQL these helpers send
//! the rows as one parameter (their JSON text) read by `jsonb_populate_recordset`, and a list as
//! one array compared with `= ANY($1)`, so each is one prepared statement whatever the batch's
//! size. SQLite prepares in-process and cheaply: there they build the usual statements.

use sea_orm::sea_query::{ArrayType, Expr, ExprTrait as _, OnConflict, PgFunc, SimpleExpr};
use sea_orm::{
    ActiveModelTrait, ColumnTrait, Condition, ConnectionTrait, DbBackend, DbErr, EntityName,
    EntityTrait, IdenStatic, Iterable, Statement, Value,
};
use uuid::Uuid;

/// Inserts `rows` (each setting the same columns), skipping a row that conflicts on `conflict`
/// when it names columns; returns how many rows were inserted.
pub async fn insert_all<A>(
    db: &impl ConnectionTrait,
    rows: Vec<A>,
    conflict: &[<A::Entity as EntityTrait>::Column],
) -> Result<u64, DbErr>
where
    A: ActiveModelTrait + Send,
{
    upsert_all(db, rows, conflict, &[]).await
}

/// Inserts `rows` (each setting the same columns); a row that conflicts on `conflict` sets
/// the `update` columns of the row it meets to its own (with no `update` columns it is
/// skipped). Returns how many rows were written.
pub async fn upsert_all<A>(
    db: &impl ConnectionTrait,
    rows: Vec<A>,
    conflict: &[<A::Entity as EntityTrait>::Column],
    update: &[<A::Entity as EntityTrait>::Column],
) -> Result<u64, DbErr>
where
    A: ActiveModelTrait + Send,
{
    if rows.is_empty() {
        return Ok(0);
    }
    if db.get_database_backend() != DbBackend::Postgres {
        let mut insert = <A::Entity as EntityTrait>::insert_many(rows);
        if !conflict.is_empty() {
            let mut on = OnConflict::columns(conflict.iter().copied());
            if update.is_empty() {
                on.do_nothing();
            } else {
                on.update_columns(update.iter().copied());
            }
            insert = insert.on_conflict(on);
        }
        return insert.exec_without_returning(db).await;
    }
    let records = records(&rows)?;
    let source = records.source(1);
    let Records {
        table,
        names,
        json: records,
    } = records;
    let mut sql = format!("INSERT INTO \"{table}\" ({names}) SELECT {names} FROM {source}");
    if !conflict.is_empty() {
        let target = conflict
            .iter()
            .map(|c| format!("\"{}\"", c.as_str()))
            .collect::<Vec<_>>()
            .join(", ");
        if update.is_empty() {
            sql.push_str(&format!(" ON CONFLICT ({target}) DO NOTHING"));
        } else {
            let set = update
                .iter()
                .map(|c| format!("\"{0}\" = excluded.\"{0}\"", c.as_str()))
                .collect::<Vec<_>>()
                .join(", ");
            sql.push_str(&format!(" ON CONFLICT ({target}) DO UPDATE SET {set}"));
        }
    }
    let done = db
        .execute_raw(Statement::from_sql_and_values(
            DbBackend::Postgres,
            sql,
            [records],
        ))
        .await?;
    Ok(done.rows_affected())
}

/// Rows as PostgreSQL's `jsonb_populate_recordset(NULL::"table", $n::jsonb)` reads them back:
/// the table's name, the quoted names of the columns some row sets (a row leaving one of them
/// unset is an error, never a value dropped) and the rows as one parameter, their JSON text
/// (written straight from the values: no tree of JSON values is built, copied when the
/// statement is bound and walked again to encode it).
pub struct Records {
    pub table: String,
    pub names: String,
    pub json: Value,
}

impl Records {
    /// The rows in parameter `$n`, as a `FROM` item.
    pub fn source(&self, n: usize) -> String {
        format!(
            "jsonb_populate_recordset(NULL::\"{}\", ${n}::jsonb)",
            self.table
        )
    }
}

/// The [`Records`] of `rows`.
pub fn records<A>(rows: &[A]) -> Result<Records, DbErr>
where
    A: ActiveModelTrait,
{
    let columns: Vec<<A::Entity as EntityTrait>::Column> =
        <A::Entity as EntityTrait>::Column::iter()
            .filter(|c| rows.iter().any(|row| !row.is_not_set(*c)))
            .collect();
    let mut text = Vec::with_capacity(rows.len() * columns.len() * 24 + 2);
    text.push(b'[');
    for (i, row) in rows.iter().enumerate() {
        if i > 0 {
            text.push(b',');
        }
        text.push(b'{');
        for (j, column) in columns.iter().enumerate() {
            let value = row.get(*column).into_value().ok_or_else(|| {
                DbErr::Custom(format!("{}: a row leaves it unset", column.as_str()))
            })?;
            if j > 0 {
                text.push(b',');
            }
            write_json(&mut text, &column.as_str())?;
            text.push(b':');
            write_json(&mut text, &Json(value))?;
        }
        text.push(b'}');
    }
    text.push(b']');
    let text = String::from_utf8(text).map_err(|e| DbErr::Custom(e.to_string()))?;
    let names = columns
        .iter()
        .map(|c| format!("\"{}\"", c.as_str()))
        .collect::<Vec<_>>()
        .join(", ");
    Ok(Records {
        table: <A::Entity as Default>::default().table_name().to_string(),
        names,
        json: Value::String(Some(text)),
    })
}

/// `ids` as one PostgreSQL `uuid[]` parameter.
pub fn uuid_array(ids: impl IntoIterator<Item = Uuid>) -> Value {
    let ids: Vec<Value> = ids.into_iter().map(Into::into).collect();
    Value::Array(ArrayType::Uuid, Some(Box::new(ids)))
}

/// `column IN (ids)`: `column = ANY($1)` with one uuid array on PostgreSQL.
pub fn uuid_in<C: ColumnTrait>(
    backend: DbBackend,
    column: C,
    ids: impl IntoIterator<Item = Uuid>,
) -> SimpleExpr {
    any_of(backend, column, ArrayType::Uuid, ids)
}

/// `column IN (values)` for text: `column = ANY($1)` with one text array on PostgreSQL.
pub fn text_in<C: ColumnTrait>(
    backend: DbBackend,
    column: C,
    values: impl IntoIterator<Item = String>,
) -> SimpleExpr {
    any_of(backend, column, ArrayType::String, values)
}

fn any_of<C: ColumnTrait, V: Into<Value>>(
    backend: DbBackend,
    column: C,
    ty: ArrayType,
    values: impl IntoIterator<Item = V>,
) -> SimpleExpr {
    let values: Vec<Value> = values.into_iter().map(Into::into).collect();
    if backend != DbBackend::Postgres {
        return column.is_in(values);
    }
    Expr::col(column).eq(PgFunc::any(Expr::val(Value::Array(
        ty,
        Some(Box::new(values)),
    ))))
}

/// `(a, b) IN ((a1, b1), ..)`: `(a, b) IN (SELECT * FROM unnest($1, $2))` with two arrays (of
/// `types`) on PostgreSQL.
pub fn pairs_in<C: ColumnTrait>(
    backend: DbBackend,
    (a, b): (C, C),
    types: (ArrayType, ArrayType),
    pairs: impl IntoIterator<Item = (Value, Value)>,
) -> Condition {
    let (left, right): (Vec<Value>, Vec<Value>) = pairs.into_iter().unzip();
    if backend != DbBackend::Postgres {
        let mut any = Condition::any();
        for (x, y) in left.into_iter().zip(right) {
            any = any.add(Condition::all().add(a.eq(x)).add(b.eq(y)));
        }
        return any;
    }
    let sql = format!(
        "(\"{}\", \"{}\") IN (SELECT * FROM unnest($1, $2))",
        a.as_str(),
        b.as_str()
    );
    Condition::all().add(Expr::cust_with_values(
        sql,
        [
            Value::Array(types.0, Some(Box::new(left))),
            Value::Array(types.1, Some(Box::new(right))),
        ],
    ))
}

/// A value as the JSON that `jsonb_populate_recordset` reads back into the column's type.
struct Json(Value);

impl serde::Serialize for Json {
    fn serialize<S: serde::Serializer>(&self, out: S) -> Result<S::Ok, S::Error> {
        use serde::ser::Error as _;
        match &self.0 {
            Value::Bool(v) => v.serialize(out),
            Value::SmallInt(v) => v.serialize(out),
            Value::Int(v) => v.serialize(out),
            Value::BigInt(v) => v.serialize(out),
            Value::Double(v) => v.serialize(out),
            Value::String(v) => v.serialize(out),
            Value::Uuid(v) => v.serialize(out),
            Value::ChronoDateTimeUtc(v) => match v {
                Some(at) => out.collect_str(&at.format("%Y-%m-%dT%H:%M:%S%.6fZ")),
                None => out.serialize_none(),
            },
            Value::Json(v) => v.serialize(out),
            other => Err(S::Error::custom(format!("no JSON form for {other:?}"))),
        }
    }
}

/// Appends `value`'s JSON text to `out`.
fn write_json(out: &mut Vec<u8>, value: &impl serde::Serialize) -> Result<(), DbErr> {
    serde_json::to_writer(out, value).map_err(|e| DbErr::Custom(format!("records: {e}")))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn json(value: Value) -> Result<String, DbErr> {
        let mut out = Vec::new();
        write_json(&mut out, &Json(value))?;
        Ok(String::from_utf8(out).unwrap())
    }

    #[test]
    fn values_become_the_json_postgresql_reads_back() {
        let at =
            |text: &str| Value::from(chrono::DateTime::parse_from_rfc3339(text).unwrap().to_utc());
        for (text, written) in [
            (
                "2026-11-25T03:00:00.123456Z",
                r#""2026-11-25T03:00:00.123456Z""#,
            ),
            ("2026-11-25T03:00:00Z", r#""2026-11-25T03:00:00.000000Z""#),
        ] {
            assert_eq!(json(at(text)).unwrap(), written);
        }
        assert_eq!(json(Value::String(None)).unwrap(), "null");
        assert_eq!(json(Value::from("a \"b\"\n")).unwrap(), r#""a \"b\"\n""#);
        assert_eq!(json(Value::from(7_i64)).unwrap(), "7");
        assert_eq!(json(Value::from(f64::NAN)).unwrap(), "null");
        let id = Uuid::nil();
        assert_eq!(
            json(Value::from(id)).unwrap(),
            r#""00000000-0000-0000-0000-000000000000""#
        );
        assert_eq!(
            json(Value::Json(Some(Box::new(serde_json::json!({"k": [1]}))))).unwrap(),
            r#"{"k":[1]}"#
        );
        assert!(json(Value::Char(Some('x'))).is_err());
    }
}
