//! Consent: a user's follow of a business and their marketing opt-in, the consent ledger of
//! every change, the follow events, and the business's view of its audience.

pub mod followers;
pub mod grpc;
pub mod service;
pub mod store;
