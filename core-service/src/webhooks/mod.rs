//! Webhooks: endpoints, the deliveries log, and the workers' job stream (lease, sign, report,
//! retry policy). Deliveries are created with the events they announce (`crate::events`).

pub mod deliveries;
pub mod endpoints;
pub mod events;
pub mod fanout;
pub mod flow;
pub mod grpc;
pub mod health;
pub mod jobs;
pub mod reports;
pub mod secret;
pub mod store;
pub mod wakeup;
