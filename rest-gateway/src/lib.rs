//! The REST gateway: the public JSON API over the core's gRPC services. It maps paths, bodies and
//! the envelope, forwards the caller's credential, IP and User-Agent as metadata, and maps
//! catalogue errors to HTTP statuses. It holds no rule and no database connection.

pub mod app;
pub mod config;
pub mod console;
pub mod envelope;
pub mod extract;
pub mod guide;
pub mod openapi;
pub mod routes;
pub mod schema;
pub mod state;

pub use app::{GatewayApp, openapi};
pub use config::{GatewayConfig, HttpSettings};
