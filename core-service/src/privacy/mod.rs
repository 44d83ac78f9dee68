//! Privacy: erasing a user on their request (`bm.v1.PrivacyService.EraseUser`, `core-service
//! admin erase-user`) and exporting what is kept about them (`ExportUser`, `admin
//! export-user`). Both over the internal gRPC guard (INTERNAL_TOKEN).
//!
//! An erasure has two parts. At once, in one transaction ([`service::erase`]): the user turns
//! `erased` (their tokens answer `unauthorized`, their number is freed for a new user), the
//! erasure ledger entry is written, and the small rows go: one-time codes, refresh tokens,
//! QR sessions they approved, rate-limit counters keyed by their number, their language and
//! display name; their grants are revoked (`grant.revoked`), their follows end (`unfollowed`,
//! ledger source `erasure`, no `follow.*` event), a team member leaves the team. Then a job
//! ([`job`]), held by one core through a lease and resumed by another, goes through the rest
//! in paced batches: see [`job::Phase`].

pub mod export;
pub mod grpc;
pub mod job;
pub mod service;
