//! PostgreSQL's reads of the events store: endpoints with their row versions, for the cache
//! whose reads the recording statement checks.

use sea_orm::{ConnectionTrait, DbBackend};
use uuid::Uuid;

use crate::entities::webhooks;
use crate::error::AppResult;

/// PostgreSQL: [`active_endpoints`], each with its row version (`xmin`, which every update
/// of the row changes), for [`EndpointCache`].
pub async fn active_endpoints_versioned(
    db: &impl ConnectionTrait,
    businesses: &[Uuid],
) -> AppResult<Vec<(webhooks::Model, String)>> {
    use sea_orm::FromQueryResult;
    let rows = db
        .query_all_raw(sea_orm::Statement::from_sql_and_values(
            DbBackend::Postgres,
            "SELECT *, xmin::text AS row_version FROM webhooks \
             WHERE business_id = ANY($1) AND active",
            [crate::db::bulk::uuid_array(businesses.iter().copied())],
        ))
        .await?;
    rows.iter()
        .map(|row| {
            Ok((
                webhooks::Model::from_query_result(row, "")?,
                row.try_get::<String>("", "row_version")?,
            ))
        })
        .collect::<Result<_, sea_orm::DbErr>>()
        .map_err(Into::into)
}
