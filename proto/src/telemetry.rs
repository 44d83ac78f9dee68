//! The logging setup every binary shares: `RUST_LOG` filters, `LOG_FORMAT=json` writes one JSON
//! object per line (with the fields of the spans the line happened in: a request's
//! `request_id`, a delivery's `delivery_id`), anything else writes text. Colours only when
//! standard error is a terminal and `NO_COLOR` is unset, so a log file never holds escape codes.

use std::io::IsTerminal;

use tracing_subscriber::EnvFilter;

/// How log lines are written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LogFormat {
    Text,
    Json,
}

impl LogFormat {
    /// `LOG_FORMAT`: `json` or `text` (the default); `None` for anything else.
    pub fn from_env() -> Option<LogFormat> {
        match std::env::var("LOG_FORMAT") {
            Err(_) => Some(LogFormat::Text),
            Ok(v) if v.is_empty() || v.eq_ignore_ascii_case("text") => Some(LogFormat::Text),
            Ok(v) if v.eq_ignore_ascii_case("json") => Some(LogFormat::Json),
            Ok(_) => None,
        }
    }
}

/// Installs the subscriber (to standard error). `default_filter` applies when `RUST_LOG` is
/// unset. Safe to call twice (the second call does nothing).
pub fn init_logging(default_filter: &str) {
    let filter =
        EnvFilter::try_from_default_env().unwrap_or_else(|_| EnvFilter::new(default_filter));
    let format = LogFormat::from_env();
    let colours = std::io::stderr().is_terminal()
        && std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty());
    // A line that cannot be written (standard error a pipe whose reader is gone) is dropped:
    // the subscriber's own report of it goes to standard error too, through `eprintln!`, which
    // panics there, and that panic took down whichever task was logging (the one waiting for
    // SIGTERM among them, so the process no longer stopped).
    let builder = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .log_internal_errors(false);
    let _ = match format {
        Some(LogFormat::Json) => builder
            .json()
            .with_current_span(false)
            .with_span_list(true)
            .try_init(),
        _ => builder.with_ansi(colours).try_init(),
    };
    if format.is_none() {
        tracing::warn!("LOG_FORMAT must be `text` or `json`; writing text");
    }
}

/// The default filter of the binaries: our own lines at `info`, chatty libraries at `warn`.
pub const DEFAULT_FILTER: &str =
    "info,sqlx=warn,sea_orm=warn,sea_orm_migration=info,h2=warn,tower=warn,hyper=warn";
