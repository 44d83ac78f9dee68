//! The core's error type: a catalogue code, a detail for logs and gRPC callers, and an optional
//! retry delay. Database failures never leak their text.

use std::time::Duration;

use proto::ErrorCode;
use sea_orm::DbErr;

#[derive(Debug, Clone, thiserror::Error)]
#[error("{code}: {detail}")]
pub struct AppError {
    pub code: ErrorCode,
    pub detail: String,
    pub retry_after: Option<Duration>,
}

pub type AppResult<T> = Result<T, AppError>;

impl AppError {
    pub fn new(code: ErrorCode, detail: impl Into<String>) -> Self {
        AppError {
            code,
            detail: detail.into(),
            retry_after: None,
        }
    }

    /// A 429-class error with the time until a request would succeed.
    pub fn retry_after(code: ErrorCode, wait: Duration, detail: impl Into<String>) -> Self {
        AppError {
            code,
            detail: detail.into(),
            retry_after: Some(wait),
        }
    }

    /// A request that a background task of this core should have answered, and did not (it
    /// stopped: the core is shutting down).
    pub fn shutting_down() -> Self {
        Self::new(ErrorCode::ServiceUnavailable, "the core is shutting down")
    }

    pub fn internal(detail: impl Into<String>) -> Self {
        Self::new(ErrorCode::InternalError, detail)
    }

    /// An idempotency key (or a client message id) that holds another request.
    pub fn key_conflict() -> Self {
        Self::new(
            ErrorCode::IdempotencyKeyConflict,
            "this Idempotency-Key was used for another request",
        )
    }

    /// An idempotency key (or a client message id) whose request has not finished.
    pub fn key_in_progress() -> Self {
        Self::new(
            ErrorCode::IdempotencyInProgress,
            "a request with this Idempotency-Key is still being accepted",
        )
    }
}

impl From<proto::vocabulary::InvalidValue> for AppError {
    fn from(err: proto::vocabulary::InvalidValue) -> Self {
        Self::new(ErrorCode::InvalidRequest, err.to_string())
    }
}

impl From<DbErr> for AppError {
    fn from(err: DbErr) -> Self {
        if matches!(err, DbErr::ConnectionAcquire(_) | DbErr::Conn(_)) {
            // No connection, so no statement was sent and the pool's statement callback never
            // saw it: count it here, so that an outage shows in `db_statement_failures_total`
            // even when it starts between statements.
            crate::db::FAILED_STATEMENTS.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        }
        if is_read_only(&err) {
            // The connection goes back to the pool once this error is answered: the pool
            // tests it then (and its siblings at checkout) and closes it.
            crate::db::read_only_seen();
        }
        if is_unavailable(&err) {
            tracing::error!(error = %err, "database unavailable");
            AppError::new(ErrorCode::ServiceUnavailable, "database unavailable")
        } else {
            tracing::error!(error = %err, "database error");
            AppError::internal("internal error")
        }
    }
}

/// True when the database could not be reached or went away, at whatever step: no connection
/// to be had, a connection lost mid-query (I/O, a truncated message, TLS), the server shutting
/// down or refusing connections (SQLSTATE class 08, 57P01-57P03, 53300), a server that turned
/// read-only under the pool (25006: a demoted primary, a standby reached during a failover), or
/// SQLite busy. The request may succeed once the database is back: 503, never 500.
pub fn is_unavailable(err: &DbErr) -> bool {
    let runtime = match err {
        DbErr::ConnectionAcquire(_) | DbErr::Conn(_) => return true,
        DbErr::Exec(e) | DbErr::Query(e) => e,
        _ => return false,
    };
    let sea_orm::RuntimeErr::SqlxError(sqlx) = runtime else {
        return false;
    };
    match sqlx.as_ref() {
        sqlx::Error::Io(_)
        | sqlx::Error::Tls(_)
        | sqlx::Error::Protocol(_)
        | sqlx::Error::PoolTimedOut
        | sqlx::Error::PoolClosed
        | sqlx::Error::WorkerCrashed
        | sqlx::Error::BeginFailed => true,
        sqlx::Error::Database(db) => db.code().is_some_and(|code| {
            code.starts_with("08")
                || matches!(code.as_ref(), "57P01" | "57P02" | "57P03" | "53300" | READ_ONLY)
                // SQLite (numeric codes, shorter than SQLSTATE's five characters): SQLITE_BUSY
                // and its extended codes, another writer held the lock past busy_timeout.
                || (code.len() < 5 && code.parse::<i32>().is_ok_and(|n| n & 0xff == 5))
        }),
        _ => false,
    }
}

/// SQLSTATE read_only_sql_transaction: a write sent to a server that takes none.
const READ_ONLY: &str = "25006";

/// True when a statement was refused because its server is read-only (SQLSTATE 25006).
pub fn is_read_only(err: &DbErr) -> bool {
    match err {
        DbErr::Exec(sea_orm::RuntimeErr::SqlxError(e))
        | DbErr::Query(sea_orm::RuntimeErr::SqlxError(e)) => matches!(
            e.as_ref(),
            sqlx::Error::Database(db) if db.code().as_deref() == Some(READ_ONLY)
        ),
        _ => false,
    }
}

impl From<AppError> for tonic::Status {
    fn from(err: AppError) -> Self {
        let detail = if err.code == ErrorCode::InternalError {
            "internal error".to_string()
        } else {
            err.detail
        };
        err.code.to_status(detail, err.retry_after)
    }
}

/// True when a database error is a unique-constraint violation (a lost insert race).
pub fn is_unique_violation(err: &DbErr) -> bool {
    matches!(
        err.sql_err(),
        Some(sea_orm::SqlErr::UniqueConstraintViolation(_))
    )
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::*;

    #[test]
    fn a_call_that_got_no_connection_counts_as_a_failed_statement() {
        use std::sync::atomic::Ordering::Relaxed;
        let before = crate::db::FAILED_STATEMENTS.load(Relaxed);
        let err = AppError::from(DbErr::ConnectionAcquire(sea_orm::ConnAcquireErr::Timeout));
        assert_eq!(err.code, ErrorCode::ServiceUnavailable);
        assert!(crate::db::FAILED_STATEMENTS.load(Relaxed) > before);
    }

    fn sqlx(err: sqlx::Error) -> DbErr {
        DbErr::Exec(sea_orm::RuntimeErr::SqlxError(Arc::new(err)))
    }

    #[test]
    fn a_lost_or_refused_database_connection_is_503_at_any_step() {
        let lost = [
            sqlx(sqlx::Error::Io(std::io::Error::new(
                std::io::ErrorKind::UnexpectedEof,
                "expected to read 5 bytes, got 0 bytes at EOF",
            ))),
            sqlx(sqlx::Error::Protocol("unexpected message".into())),
            sqlx(sqlx::Error::PoolTimedOut),
            sqlx(sqlx::Error::PoolClosed),
            sqlx(sqlx::Error::WorkerCrashed),
            DbErr::ConnectionAcquire(sea_orm::ConnAcquireErr::Timeout),
        ];
        for err in lost {
            let app: AppError = err.into();
            assert_eq!(app.code, ErrorCode::ServiceUnavailable);
        }
        let bug = DbErr::Custom("a bug".into());
        assert_eq!(AppError::from(bug).code, ErrorCode::InternalError);
        let decode = sqlx(sqlx::Error::ColumnNotFound("x".into()));
        assert_eq!(AppError::from(decode).code, ErrorCode::InternalError);
    }

    /// A database error with only a SQLSTATE, as the server sends it.
    #[derive(Debug)]
    struct Sqlstate(&'static str);

    impl std::fmt::Display for Sqlstate {
        fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            write!(f, "SQLSTATE {}", self.0)
        }
    }

    impl std::error::Error for Sqlstate {}

    impl sqlx::error::DatabaseError for Sqlstate {
        fn message(&self) -> &str {
            "cannot execute INSERT in a read-only transaction"
        }
        fn code(&self) -> Option<std::borrow::Cow<'_, str>> {
            Some(self.0.into())
        }
        fn as_error(&self) -> &(dyn std::error::Error + Send + Sync + 'static) {
            self
        }
        fn as_error_mut(&mut self) -> &mut (dyn std::error::Error + Send + Sync + 'static) {
            self
        }
        fn into_error(self: Box<Self>) -> Box<dyn std::error::Error + Send + Sync + 'static> {
            self
        }
        fn kind(&self) -> sqlx::error::ErrorKind {
            sqlx::error::ErrorKind::Other
        }
    }

    #[test]
    fn a_write_refused_by_a_read_only_server_is_503_and_marks_the_pool_suspect() {
        let read_only = sqlx(sqlx::Error::Database(Box::new(Sqlstate("25006"))));
        assert!(is_read_only(&read_only));
        let app = AppError::from(read_only);
        assert_eq!(app.code, ErrorCode::ServiceUnavailable);
        assert!(crate::db::read_only_suspected());
        let bug = sqlx(sqlx::Error::Database(Box::new(Sqlstate("42P01"))));
        assert!(!is_read_only(&bug));
        assert_eq!(AppError::from(bug).code, ErrorCode::InternalError);
    }
}
