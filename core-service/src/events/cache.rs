//! The active endpoints of recently seen businesses, kept in memory on PostgreSQL and checked
//! where used.

use sea_orm::ConnectionTrait;
use uuid::Uuid;

use super::EndpointCheck;
use crate::entities::webhooks;
use crate::error::AppResult;

/// PostgreSQL: the active endpoints of recently seen businesses as last read, so that the
/// dispatcher plans an outcome batch's deliveries without reading them first. Never trusted
/// alone: the statement that writes the deliveries checks that the endpoints are still those
/// read ([`EndpointCheck::sql`]) and writes nothing otherwise, so an endpoint created,
/// changed or removed by any core since is seen by the next batch.
#[derive(Debug, Default)]
pub struct EndpointCache {
    /// Each business's active endpoints, each with its `id:xmin`.
    businesses: std::sync::Mutex<std::collections::HashMap<Uuid, Vec<(webhooks::Model, String)>>>,
}

/// The most businesses [`EndpointCache`] holds; when full it starts again empty.
const CACHED_BUSINESSES: usize = 10_000;

impl EndpointCache {
    fn map(
        &self,
    ) -> std::sync::MutexGuard<'_, std::collections::HashMap<Uuid, Vec<(webhooks::Model, String)>>>
    {
        self.businesses
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// The active endpoints of `businesses` (sorted, no duplicates), with the check that they
    /// still hold; reads and keeps those of businesses not known yet.
    pub async fn endpoints(
        &self,
        db: &impl ConnectionTrait,
        businesses: Vec<Uuid>,
    ) -> AppResult<(Vec<webhooks::Model>, EndpointCheck)> {
        let missing: Vec<Uuid> = {
            let map = self.map();
            businesses
                .iter()
                .copied()
                .filter(|b| !map.contains_key(b))
                .collect()
        };
        if !missing.is_empty() {
            let read = super::pg::active_endpoints_versioned(db, &missing).await?;
            let mut map = self.map();
            if map.len() + missing.len() > CACHED_BUSINESSES {
                map.clear();
            }
            for business in &missing {
                map.insert(*business, Vec::new());
            }
            for (endpoint, version) in read {
                // Kept as the check compares it.
                let version = format!("{}:{version}", endpoint.id);
                map.entry(endpoint.business_id)
                    .or_default()
                    .push((endpoint, version));
            }
        }
        let map = self.map();
        let mut endpoints = Vec::new();
        let mut versions = Vec::new();
        for business in &businesses {
            for (endpoint, version) in map.get(business).into_iter().flatten() {
                endpoints.push(endpoint.clone());
                versions.push((endpoint.id, version.clone()));
            }
        }
        versions.sort();
        Ok((
            endpoints,
            EndpointCheck {
                businesses,
                versions: versions.into_iter().map(|(_, version)| version).collect(),
            },
        ))
    }

    /// Drops what is known of `businesses` (their endpoints moved): the next batch reads them.
    pub fn forget(&self, businesses: &[Uuid]) {
        let mut map = self.map();
        for business in businesses {
            map.remove(business);
        }
    }
}
