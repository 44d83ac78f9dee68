//! Consent: a user's follow of a business and their marketing opt-in, the consent ledger of
//! every change, the follow events, the business's view of its audience, and the consent
//! wording each opt-in agreed to.

pub mod followers;
pub mod grpc;
pub mod service;
pub mod store;
pub mod wording;
