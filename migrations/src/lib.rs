//! The database schema. The core applies pending migrations at start (`core-service migrate`
//! applies them explicitly). Every migration runs on SQLite and on PostgreSQL.
//!
//! Times that rules compare in SQL (limits, leases) are stored as integer Unix milliseconds, so
//! comparisons mean the same on both databases; times that are only shown are timestamps.

pub use sea_orm_migration::prelude::*;

mod m20261122_000001_identity;
mod m20261122_000002_messaging;
mod m20261122_000003_webhooks;
mod m20261122_000004_qr;
mod m20261123_000005_pipeline;
mod m20261123_000006_attempts;
mod m20261123_000007_slow_endpoints;
mod m20261124_000008_retention;
mod m20261125_000009_audience;
mod m20261126_000010_usage_counters;
mod m20261127_000011_scheduling;
mod m20261128_000012_service_times;
mod m20261129_000013_broadcasts;
mod m20261130_000014_integrator;
mod m20261201_000015_conversations;
mod m20261202_000016_what_was_sent;
mod m20261203_000017_purge_by_id;
mod m20261204_000018_templates;
mod m20261205_000019_delivery_health;
mod m20261206_000020_consent_texts;
mod m20261207_000021_erasures;

pub struct Migrator;

#[async_trait::async_trait]
impl MigratorTrait for Migrator {
    fn migrations() -> Vec<Box<dyn MigrationTrait>> {
        vec![
            Box::new(m20261122_000001_identity::Migration),
            Box::new(m20261122_000002_messaging::Migration),
            Box::new(m20261122_000003_webhooks::Migration),
            Box::new(m20261122_000004_qr::Migration),
            Box::new(m20261123_000005_pipeline::Migration),
            Box::new(m20261123_000006_attempts::Migration),
            Box::new(m20261123_000007_slow_endpoints::Migration),
            Box::new(m20261124_000008_retention::Migration),
            Box::new(m20261125_000009_audience::Migration),
            Box::new(m20261126_000010_usage_counters::Migration),
            Box::new(m20261127_000011_scheduling::Migration),
            Box::new(m20261128_000012_service_times::Migration),
            Box::new(m20261129_000013_broadcasts::Migration),
            Box::new(m20261130_000014_integrator::Migration),
            Box::new(m20261201_000015_conversations::Migration),
            Box::new(m20261202_000016_what_was_sent::Migration),
            Box::new(m20261203_000017_purge_by_id::Migration),
            Box::new(m20261204_000018_templates::Migration),
            Box::new(m20261205_000019_delivery_health::Migration),
            Box::new(m20261206_000020_consent_texts::Migration),
            Box::new(m20261207_000021_erasures::Migration),
        ]
    }
}
