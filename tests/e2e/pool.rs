//! The core's connection pool: a connection goes back to the pool without a round trip of its
//! own, yet a transaction dropped unfinished still gives its locks back at once, a statement
//! abandoned in flight never leaves its answer for the next one, and a connection the database
//! closed while it sat idle is replaced before a request uses it.

use std::time::Duration;

use sea_orm::sea_query::{Expr, Query};
use sea_orm::{
    ColumnTrait, ConnectionTrait, DbBackend, EntityTrait, QueryFilter, Statement, TransactionTrait,
};

use crate::e2e;
use crate::fixtures::{ALL_SCOPES, follower, live_business, send_v1, utility};
use crate::harness::TestApp;

const BIZ: &str = "+14155550100";
const FAN: &str = "+14155550200";

/// A pool of its own on the test's database, configured as the core's is.
async fn own_pool(app: &TestApp) -> sea_orm::DatabaseConnection {
    core_service::db::connect(&app.config.database.database_url, 1)
        .await
        .expect("a second pool")
}

e2e!(
    a_transaction_dropped_unfinished_gives_its_row_locks_back_when_its_connection_returns,
    |app| async move {
        let user: uuid::Uuid = app.create_user(FAN).await.parse().unwrap();
        // A pool that nothing else uses: the core's own would soon hand the connection to a
        // background task, whose first statement would send the ROLLBACK anyway.
        let pool = own_pool(&app).await;
        let txn = pool.begin().await.unwrap();
        let touched = touch(&txn, user).await.unwrap();
        assert_eq!(touched.rows_affected, 1);
        // Dropped without commit or rollback, as an error path or a canceled request does.
        drop(txn);
        // Another connection can take the row: the ROLLBACK went out when the connection went
        // back to the pool, not when the pool next hands that connection out.
        let other = own_pool(&app).await;
        let backend = other.get_database_backend();
        let updated = tokio::time::timeout(Duration::from_secs(30), async {
            let txn = other.begin().await.unwrap();
            if backend == DbBackend::Postgres {
                txn.execute_unprepared("SET LOCAL lock_timeout = '10s'")
                    .await
                    .unwrap();
            }
            let updated = touch(&txn, user).await?;
            txn.commit().await?;
            Ok(updated)
        })
        .await
        .expect("the other connection was not stuck behind the dropped transaction");
        assert_eq!(updated_rows(updated), 1);
    }
);

/// An UPDATE of the user's row that changes nothing but takes its lock.
async fn touch(
    db: &impl ConnectionTrait,
    user: uuid::Uuid,
) -> Result<sea_orm::UpdateResult, sea_orm::DbErr> {
    use core_service::entities::users;
    users::Entity::update_many()
        .col_expr(users::Column::Status, Expr::col(users::Column::Status))
        .filter(users::Column::Id.eq(user))
        .exec(db)
        .await
}

fn updated_rows(result: Result<sea_orm::UpdateResult, sea_orm::DbErr>) -> u64 {
    result
        .expect("the row was still locked by the dropped transaction")
        .rows_affected
}

e2e!(
    statements_abandoned_in_flight_never_leave_their_answers_to_the_next_statements,
    |app| async move {
        let db = &app.core.db;
        let backend = db.get_database_backend();
        let slow = match backend {
            DbBackend::Postgres => "SELECT pg_sleep(1)::text AS v, 'abandoned' AS w",
            _ => {
                "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c \
                 WHERE x < 1000000) SELECT count(*) AS v, 'abandoned' AS w FROM c"
            }
        };
        // As many as the pool holds, at once, each given up after a moment: every connection
        // goes back to the pool with a statement still running on it.
        let abandoned = (0..app.config.database.database_max_connections).map(|_| async {
            let statement = Statement::from_string(backend, slow);
            let _ =
                tokio::time::timeout(Duration::from_millis(150), db.query_one_raw(statement)).await;
        });
        futures::future::join_all(abandoned).await;
        for n in 0..40i64 {
            let statement = backend.build(Query::select().expr_as(Expr::val(n), "n"));
            let row = db
                .query_one_raw(statement)
                .await
                .expect("a statement after the abandoned ones")
                .expect("its row");
            assert_eq!(row.try_get::<i64>("", "n").unwrap(), n);
        }
    }
);

e2e!(
    a_connection_the_database_closed_while_it_sat_idle_is_replaced_before_a_send_uses_it,
    |app| async move {
        let biz = live_business(&app, BIZ, ALL_SCOPES).await;
        follower(&app, &biz, FAN, false).await;
        send_v1(&app, &biz, utility(FAN), None).await.assert_ok(200);
        // The database ends every connection of the core (a restart, a proxy's idle cut) and
        // takes new ones at once.
        if !app.postgres_down(true).await {
            return; // SQLite is in the process: it cannot close the core's connection.
        }
        app.postgres_down(false).await;
        // Longer than a connection may sit idle before it is tested when taken from the pool.
        tokio::time::sleep(core_service::db::IDLE_BEFORE_TEST + Duration::from_millis(500)).await;
        for _ in 0..5 {
            send_v1(&app, &biz, utility(FAN), None).await.assert_ok(200);
        }
    }
);
