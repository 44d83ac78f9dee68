//! Business accounts: the console's workspace, its members and their roles.

pub mod grpc;
pub mod service;
pub mod store;
pub mod team;
