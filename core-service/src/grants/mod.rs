//! Login grants: a user's consent to sign in to a developer app (the client). Revoking one
//! announces `grant.revoked` to the app's business.

pub mod grpc;
pub mod service;
