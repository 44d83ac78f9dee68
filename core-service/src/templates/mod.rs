//! Templates (DESIGN, "Templates"): named variables, a fixed category, immutable versions and
//! one variant per locale, rendered when a send's recipient is known. A self-hosted platform
//! needs no outside approval: consent is enforced on every send already; what templates add is
//! that they cannot be sent wrong (every variable declared, given and within its length; the
//! category fixed; the reader's own language).

pub mod definition;
pub mod grpc;
pub mod reader;
pub mod send;
pub mod service;
pub mod store;
