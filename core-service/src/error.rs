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
}

impl From<DbErr> for AppError {
    fn from(err: DbErr) -> Self {
        match &err {
            DbErr::ConnectionAcquire(_) | DbErr::Conn(_) => {
                tracing::error!(error = %err, "database unavailable");
                AppError::new(ErrorCode::ServiceUnavailable, "database unavailable")
            }
            _ => {
                tracing::error!(error = %err, "database error");
                AppError::internal("internal error")
            }
        }
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
