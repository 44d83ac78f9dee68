//! Identity: users, sign-in by one-time code, access and refresh tokens, and turning a
//! request's credential into a caller.

pub mod grpc;
pub mod service;
pub mod store;
pub mod tokens;
