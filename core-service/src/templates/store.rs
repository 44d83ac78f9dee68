//! Queries for templates and their versions. Every query takes the business.

use proto::vocabulary::{Category, TemplateStatus};
use sea_orm::sea_query::Expr;
use sea_orm::{
    ActiveModelTrait, ColumnTrait, ConnectionTrait, EntityTrait, FromQueryResult, QueryFilter,
    QueryOrder, QuerySelect, Set,
};
use uuid::Uuid;

use crate::entities::{template_versions, templates};
use crate::error::AppResult;

/// A template with one of its versions.
pub type Versioned = (templates::Model, template_versions::Model);

pub async fn insert(
    db: &impl ConnectionTrait,
    template: templates::Model,
    version: template_versions::Model,
) -> Result<(), sea_orm::DbErr> {
    templates::ActiveModel::from(template).insert(db).await?;
    template_versions::ActiveModel::from(version)
        .insert(db)
        .await?;
    Ok(())
}

/// The template `id` of the business, locked for a new version where the database locks rows
/// (SQLite's writer is alone anyway).
pub async fn find(
    db: &impl ConnectionTrait,
    business_id: Uuid,
    id: Uuid,
    lock: bool,
) -> AppResult<Option<templates::Model>> {
    let mut query =
        templates::Entity::find_by_id(id).filter(templates::Column::BusinessId.eq(business_id));
    if lock && db.get_database_backend() == sea_orm::DatabaseBackend::Postgres {
        query = query.lock_exclusive();
    }
    Ok(query.one(db).await?)
}

/// The template `id`, whichever business (a broadcast's, found by the id it kept).
pub async fn by_id(db: &impl ConnectionTrait, id: Uuid) -> AppResult<Option<templates::Model>> {
    Ok(templates::Entity::find_by_id(id).one(db).await?)
}

/// What a send naming a template asks for: the business, the template's name, a version
/// (None: the newest), and whose language to read (None: nobody's).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SendKey {
    pub business_id: Uuid,
    pub name: String,
    pub version: Option<i64>,
    pub reader: Option<Uuid>,
}

/// What a send naming a template read.
#[derive(Debug, Clone)]
pub struct ForSend {
    pub template: templates::Model,
    /// The version asked for (None when the template has no such version).
    pub version: Option<template_versions::Model>,
    /// The reader's language (None: not set, or not asked).
    pub language: Option<String>,
    /// PostgreSQL: the template row's version (`xmin`), which any change of it (an archive, a
    /// new newest version) changes; None on SQLite.
    pub row_version: Option<String>,
}

/// What many sends naming templates read, one entry per key in order (None: the business has
/// no template of that name). PostgreSQL: one statement for them all, the keys travelling as
/// one JSON array (so the statement's text and plan are the same whatever the batch's size);
/// SQLite (in-process, no round trip to save): one read each.
pub async fn for_sends(
    db: &impl ConnectionTrait,
    keys: &[SendKey],
) -> AppResult<Vec<Option<ForSend>>> {
    if db.get_database_backend() != sea_orm::DatabaseBackend::Postgres {
        let mut found = Vec::with_capacity(keys.len());
        for key in keys {
            found.push(for_send(db, key).await?);
        }
        return Ok(found);
    }
    let json = serde_json::to_string(
        &keys
            .iter()
            .map(|k| (k.business_id, k.name.as_str(), k.version, k.reader))
            .collect::<Vec<_>>(),
    )
    .map_err(|_| crate::error::AppError::internal("encoding a read"))?;
    let sql = format!(
        "SELECT q.n, {COLUMNS}, t.xmin::text AS t_row_version FROM (SELECT CAST(e.n - 1 AS BIGINT) AS n, \
         CAST(e.v->>0 AS uuid) AS business_id, e.v->>1 AS name, \
         CAST(e.v->>2 AS INTEGER) AS version, CAST(e.v->>3 AS uuid) AS reader \
         FROM jsonb_array_elements(CAST($1 AS jsonb)) WITH ORDINALITY AS e(v, n)) q \
         JOIN templates t ON t.business_id = q.business_id AND t.name = q.name \
         LEFT JOIN template_versions v ON v.template_id = t.id \
         AND v.version = COALESCE(q.version, t.version) \
         LEFT JOIN users u ON u.id = q.reader"
    );
    let statement = sea_orm::Statement::from_sql_and_values(
        db.get_database_backend(),
        sql,
        vec![sea_orm::Value::from(json)],
    );
    let mut found: Vec<Option<ForSend>> = keys.iter().map(|_| None).collect();
    for row in db.query_all_raw(statement).await? {
        let n: i64 = row.try_get("", "n")?;
        if let Some(slot) = found.get_mut(n as usize) {
            *slot = Some(from_row(&row)?);
        }
    }
    Ok(found)
}

/// The columns [`from_row`] reads: the template (`t_`), its version (`v_`), the language.
const COLUMNS: &str = "t.id AS t_id, t.business_id AS t_business_id, t.name AS t_name, \
     t.category AS t_category, t.status AS t_status, t.version AS t_version, \
     t.created_at AS t_created_at, t.updated_at AS t_updated_at, \
     v.template_id AS v_template_id, v.version AS v_version, v.variables AS v_variables, \
     v.variants AS v_variants, v.default_locale AS v_default_locale, \
     v.created_at AS v_created_at, u.language AS language";

fn from_row(row: &sea_orm::QueryResult) -> AppResult<ForSend> {
    Ok(ForSend {
        template: templates::Model::from_query_result(row, "t_")?,
        version: template_versions::Model::from_query_result_optional(row, "v_")?,
        language: row.try_get("", "language")?,
        row_version: row.try_get("", "t_row_version")?,
    })
}

/// One send's read of [`for_sends`].
async fn for_send(db: &impl ConnectionTrait, key: &SendKey) -> AppResult<Option<ForSend>> {
    let which = match key.version {
        Some(_) => "$3",
        None => "t.version",
    };
    let sql = format!(
        "SELECT {COLUMNS}, CAST(NULL AS TEXT) AS t_row_version FROM templates t \
         LEFT JOIN template_versions v ON v.template_id = t.id AND v.version = {which} \
         LEFT JOIN users u ON u.id = $4 \
         WHERE t.business_id = $1 AND t.name = $2"
    );
    let values: Vec<sea_orm::Value> = vec![
        key.business_id.into(),
        key.name.clone().into(),
        key.version.unwrap_or(0).into(),
        key.reader.unwrap_or(Uuid::nil()).into(),
    ];
    let statement = sea_orm::Statement::from_sql_and_values(db.get_database_backend(), sql, values);
    match db.query_one_raw(statement).await? {
        Some(row) => Ok(Some(from_row(&row)?)),
        None => Ok(None),
    }
}

pub async fn version(
    db: &impl ConnectionTrait,
    template_id: Uuid,
    version: i32,
) -> AppResult<Option<template_versions::Model>> {
    Ok(
        template_versions::Entity::find_by_id((template_id, version))
            .one(db)
            .await?,
    )
}

/// Every given template's newest version, in any order.
pub async fn newest_versions(
    db: &impl ConnectionTrait,
    list: &[templates::Model],
) -> AppResult<Vec<template_versions::Model>> {
    if list.is_empty() {
        return Ok(Vec::new());
    }
    let pairs = list.iter().map(|t| (t.id, t.version)).collect::<Vec<_>>();
    let mut condition = sea_orm::Condition::any();
    for (id, version) in pairs {
        condition = condition.add(
            sea_orm::Condition::all()
                .add(template_versions::Column::TemplateId.eq(id))
                .add(template_versions::Column::Version.eq(version)),
        );
    }
    Ok(template_versions::Entity::find()
        .filter(condition)
        .all(db)
        .await?)
}

/// A page of the business's templates, newest first: `status`, and `category` when given,
/// after the template `after` (by id, which grows with creation).
pub async fn list(
    db: &impl ConnectionTrait,
    business_id: Uuid,
    status: TemplateStatus,
    category: Option<Category>,
    after: Option<Uuid>,
    limit: u64,
) -> AppResult<Vec<templates::Model>> {
    let mut query = templates::Entity::find()
        .filter(templates::Column::BusinessId.eq(business_id))
        .filter(templates::Column::Status.eq(status));
    if let Some(category) = category {
        query = query.filter(templates::Column::Category.eq(category));
    }
    if let Some(after) = after {
        query = query.filter(templates::Column::Id.lt(after));
    }
    Ok(query
        .order_by_desc(templates::Column::Id)
        .limit(limit)
        .all(db)
        .await?)
}

/// Adds version `version.version` and makes it the newest.
pub async fn add_version(
    db: &impl ConnectionTrait,
    template: &templates::Model,
    version: template_versions::Model,
) -> AppResult<templates::Model> {
    let updated_at = version.created_at;
    let number = version.version;
    template_versions::ActiveModel::from(version)
        .insert(db)
        .await?;
    let mut row: templates::ActiveModel = template.clone().into();
    row.version = Set(number);
    row.updated_at = Set(updated_at);
    Ok(row.update(db).await?)
}

/// Archives the template (once: an archived one stays as it is). Returns whether it changed.
pub async fn archive(
    db: &impl ConnectionTrait,
    business_id: Uuid,
    id: Uuid,
    now: chrono::DateTime<chrono::Utc>,
) -> AppResult<bool> {
    let result = templates::Entity::update_many()
        .col_expr(
            templates::Column::Status,
            Expr::value(TemplateStatus::Archived),
        )
        .col_expr(templates::Column::UpdatedAt, Expr::value(now))
        .filter(templates::Column::Id.eq(id))
        .filter(templates::Column::BusinessId.eq(business_id))
        .filter(templates::Column::Status.eq(TemplateStatus::Active))
        .exec(db)
        .await?;
    Ok(result.rows_affected == 1)
}
