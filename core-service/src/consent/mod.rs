//! Consent: a user's follow of a business and their marketing opt-in.

pub mod grpc;
pub mod service;
pub mod store;
