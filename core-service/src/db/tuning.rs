//! The numbers and paths that differ by database, decided once from the connection and held by
//! `Core`: runtimes read these named fields and never ask which database they run on.

use sea_orm::DbBackend;

/// One database's tuning.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Tuning {
    /// Group-commit writers of accepted sends, and batched readers of app sends' contexts.
    /// SQLite has one connection: one. PostgreSQL: a few, so that one batch commits while the
    /// next is gathered.
    pub send_writers: usize,
    /// Leased batches one dispatcher delivers and records at once.
    pub dispatch_in_flight: usize,
    /// The most scheduled messages one lease takes: a backlog due at once is handed out in
    /// short transactions, between which single sends get the database. SQLite's transactions
    /// take turns on one connection anyway, so fewer, larger ones cost less there.
    pub scheduled_lease: u64,
    /// The most broadcast messages one lease takes, after single sends and scheduled messages.
    pub broadcast_lease: u64,
    /// The most messages a broadcast creates in one batch (before its pace lowers it).
    pub broadcast_batch: u64,
    /// Other processes may share the database (PostgreSQL): committed deliveries are announced
    /// to the other cores, the outcomes' endpoints are cached (and checked in the recording
    /// transaction), and demo data needs a confirmation (a production database, most likely).
    pub shared: bool,
    /// The stores' one-statement paths for the common case (PostgreSQL's data-modifying `WITH`):
    /// inbox deliveries recorded with their outcomes, and reports of successes.
    pub one_statement: bool,
}

impl Tuning {
    pub const POSTGRES: Tuning = Tuning {
        send_writers: 2,
        dispatch_in_flight: 4,
        scheduled_lease: 32,
        broadcast_lease: 256,
        broadcast_batch: 1000,
        shared: true,
        one_statement: true,
    };

    pub const SQLITE: Tuning = Tuning {
        send_writers: 1,
        dispatch_in_flight: 2,
        scheduled_lease: 64,
        broadcast_lease: 256,
        broadcast_batch: 250,
        shared: false,
        one_statement: false,
    };

    pub fn of(backend: DbBackend) -> Tuning {
        match backend {
            DbBackend::Postgres => Tuning::POSTGRES,
            _ => Tuning::SQLITE,
        }
    }
}
