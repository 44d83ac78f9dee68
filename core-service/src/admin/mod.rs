//! The internal operator service (`bm.v1.AdminService`) and the `core-service admin` CLI that
//! calls it.

pub mod cli;
pub mod grpc;
pub mod service;
