//! Set-based statements whose text does not depend on how many rows they carry.
//!
//! A multi-row `INSERT ... VALUES (..), (..)` or an `IN (..)` list has another text for every
//! count, and every text is a statement of its own: sqlx prepares it on the connection (its cache
//! keeps 100 per connection, and the batched paths make far more than that, so most executions
//! prepared again) and PostgreSQL parses and plans it each time. On PostgreSQL these helpers send
//! the rows as one `jsonb` parameter read by `jsonb_populate_recordset`, and a list as one array
//! compared with `= ANY($1)`, so each is one prepared statement whatever the batch's size. SQLite
//! prepares in-process and cheaply: there they build the usual statements.

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
    if rows.is_empty() {
        return Ok(0);
    }
    if db.get_database_backend() != DbBackend::Postgres {
        let mut insert = <A::Entity as EntityTrait>::insert_many(rows);
        if !conflict.is_empty() {
            insert = insert.on_conflict(
                OnConflict::columns(conflict.iter().copied())
                    .do_nothing()
                    .to_owned(),
            );
        }
        return insert.exec_without_returning(db).await;
    }
    let Records {
        table,
        names,
        json: records,
    } = records(&rows)?;
    let mut sql = format!(
        "INSERT INTO \"{table}\" ({names}) SELECT {names} FROM jsonb_populate_recordset(NULL::\"{table}\", $1)"
    );
    if !conflict.is_empty() {
        let target = conflict
            .iter()
            .map(|c| format!("\"{}\"", c.as_str()))
            .collect::<Vec<_>>()
            .join(", ");
        sql.push_str(&format!(" ON CONFLICT ({target}) DO NOTHING"));
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

/// Rows as PostgreSQL's `jsonb_populate_recordset(NULL::"table", $n)` reads them back: the
/// table's name, the quoted names of the columns some row sets (a row leaving one of them unset
/// is an error, never a value dropped) and the rows as one `jsonb` parameter.
pub struct Records {
    pub table: String,
    pub names: String,
    pub json: Value,
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
    let mut records = Vec::with_capacity(rows.len());
    for row in rows {
        let mut record = serde_json::Map::with_capacity(columns.len());
        for column in &columns {
            let value = row.get(*column).into_value().ok_or_else(|| {
                DbErr::Custom(format!("{}: a row leaves it unset", column.as_str()))
            })?;
            record.insert(column.as_str().to_string(), json(value)?);
        }
        records.push(serde_json::Value::Object(record));
    }
    let names = columns
        .iter()
        .map(|c| format!("\"{}\"", c.as_str()))
        .collect::<Vec<_>>()
        .join(", ");
    Ok(Records {
        table: <A::Entity as Default>::default().table_name().to_string(),
        names,
        json: Value::Json(Some(Box::new(serde_json::Value::Array(records)))),
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

/// The JSON that `jsonb_populate_recordset` reads back into the column's type.
fn json(value: Value) -> Result<serde_json::Value, DbErr> {
    use serde_json::Value as J;
    Ok(match value {
        Value::Bool(v) => v.map_or(J::Null, J::Bool),
        Value::SmallInt(v) => v.map_or(J::Null, J::from),
        Value::Int(v) => v.map_or(J::Null, J::from),
        Value::BigInt(v) => v.map_or(J::Null, J::from),
        Value::Double(v) => v.map_or(J::Null, J::from),
        Value::String(v) => v.map_or(J::Null, J::String),
        Value::Uuid(v) => v.map_or(J::Null, |v| J::String(v.to_string())),
        Value::ChronoDateTimeUtc(v) => v.map_or(J::Null, |v| {
            J::String(v.to_rfc3339_opts(chrono::SecondsFormat::Micros, true))
        }),
        Value::Json(v) => v.map_or(J::Null, |v| *v),
        other => {
            return Err(DbErr::Custom(format!(
                "insert_all: no JSON form for {other:?}"
            )));
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_become_the_json_postgresql_reads_back() {
        let at = chrono::DateTime::parse_from_rfc3339("2026-11-25T03:00:00.123456Z")
            .unwrap()
            .to_utc();
        assert_eq!(
            json(Value::from(at)).unwrap(),
            serde_json::json!("2026-11-25T03:00:00.123456Z")
        );
        assert_eq!(json(Value::String(None)).unwrap(), serde_json::Value::Null);
        assert_eq!(json(Value::from(7_i64)).unwrap(), serde_json::json!(7));
        assert!(json(Value::Char(Some('x'))).is_err());
    }
}
