//! Messaging: one implementation of the send rules for the three send paths, idempotency, the
//! durable outbox and its dispatcher, delivery providers, history and usage.

pub mod app_sends;
pub mod cancel;
pub mod content;
pub mod delivery;
pub mod dispatcher;
pub mod grpc;
pub mod history;
pub mod outbox;
pub mod reader;
pub mod rules;
pub mod service;
pub mod store;
pub mod usage;
pub mod writer;
