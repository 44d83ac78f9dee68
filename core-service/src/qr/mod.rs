//! QR web sign-in: create, preview, poll, approve from a signed-in phone, exchange once.

pub mod grpc;
pub mod service;
