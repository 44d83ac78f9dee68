//! The core service: every rule and all state of the business messaging service, served over
//! gRPC. The REST gateway and the webhook workers are clients of it.

pub mod admin;
pub mod app;
pub mod apps;
pub mod batch;
pub mod broadcasts;
pub mod business;
pub mod caller;
pub mod clock;
pub mod config;
pub mod consent;
pub mod conversations;
pub mod db;
pub mod domain;
pub mod entities;
pub mod error;
pub mod events;
pub mod grants;
pub mod identity;
pub mod layers;
pub mod limits;
pub mod messaging;
pub mod metrics;
pub mod privacy;
pub mod qr;
pub mod retention;
pub mod secrets;
pub mod sms;
pub mod state;
pub mod telemetry;
pub mod templates;
pub mod usage;
pub mod webhooks;

pub use app::{CoreApp, Overrides};
pub use config::CoreConfig;
