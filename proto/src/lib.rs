//! The contract between the core, the gateway and the workers: the generated gRPC code
//! (`bm.v1`), the error catalogue that maps every error code to its gRPC code and HTTP status,
//! and the vocabulary: every public value set, declared once.

pub mod channel;
pub mod cores;
pub mod error_code;
pub mod metrics;
pub mod net;
pub mod runtime;
pub mod shutdown;
pub mod telemetry;
pub mod vocabulary;

pub use error_code::{ErrorCode, RemoteError};

/// The most delivery ids a resumed job stream names as held (`JobsRequest.held`): more than a
/// worker ever holds (four times its in-flight jobs, reports on their way included). A core
/// refuses more; a worker holding more names none and resumes nothing.
pub const MAX_HELD_JOBS: usize = 4096;

/// Generated messages, clients and servers of the `bm.v1` package.
#[allow(clippy::all, clippy::pedantic, missing_docs)]
pub mod v1 {
    tonic::include_proto!("bm.v1");

    /// The encoded file descriptor set, for gRPC server reflection.
    pub const FILE_DESCRIPTOR_SET: &[u8] =
        include_bytes!(concat!(env!("OUT_DIR"), "/bm_descriptor.bin"));
}
