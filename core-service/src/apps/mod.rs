//! Developer apps: named, scoped tokens with which a business's servers send messages.

pub mod grpc;
pub mod service;
pub mod store;
