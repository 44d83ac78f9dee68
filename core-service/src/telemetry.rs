//! Logging setup shared by the binaries.

/// Installs the shared logging setup ([`proto::telemetry`]): `RUST_LOG`, `LOG_FORMAT=json`,
/// colours only on a terminal.
pub fn init() {
    proto::telemetry::init_logging(proto::telemetry::DEFAULT_FILTER);
}
