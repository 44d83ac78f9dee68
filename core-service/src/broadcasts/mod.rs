//! Broadcasts: one message to a business's whole audience, created by a runner on any core,
//! paced, crash-proof, and handed out behind every single and scheduled send.

pub mod grpc;
pub mod runner;
pub mod service;
pub mod store;
