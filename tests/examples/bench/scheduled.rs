//! The benchmark's `scheduled` phase: `--scheduled N` messages (default 10,000) accepted through
//! `/v1` with the same `send_at`, a whole second `--lead` seconds ahead, then single sends at
//! `--rate` per second from two seconds before that second until `--duration` seconds after it.
//! After the phase it reads from the database when each message's outcome was recorded and
//! prints:
//!
//! - how long after `send_at` the scheduled messages were handed to the provider (their outcome
//!   recorded), p50, p99 and the last, and how many were;
//! - the single sends' accept latency and send-to-outcome latency, both counted from each send's
//!   scheduled time in the load (so a stall is not hidden).
//!
//!     bench --db postgres --phases scheduled --scheduled 10000 --rate 200

use std::collections::HashMap;
use std::sync::Arc;
use std::time::{Duration, Instant};

use axum::body::Bytes;
use chrono::{DateTime, TimeDelta, Utc};
use sea_orm::{ColumnTrait, EntityTrait, QueryFilter, QuerySelect};
use serde_json::json;
use uuid::Uuid;

use crate::harness::TestApp;
use crate::{Load, fixed_rate, percentile};

/// What the scheduled phase is told.
pub struct ScheduledArgs {
    pub count: usize,
    pub lead: Duration,
    pub rate: u32,
    pub duration: Duration,
    pub connections: usize,
}

/// A clock reading as wall time, from a pair read together.
struct WallClock {
    instant: Instant,
    wall: DateTime<Utc>,
}

impl WallClock {
    fn now() -> WallClock {
        WallClock {
            instant: Instant::now(),
            wall: Utc::now(),
        }
    }

    fn wall(&self, at: Instant) -> DateTime<Utc> {
        let since = at.saturating_duration_since(self.instant);
        self.wall + TimeDelta::from_std(since).unwrap()
    }
}

pub async fn run(app: &TestApp, singles: Arc<Load>, args: &ScheduledArgs) {
    let clock = WallClock::now();
    // A whole second far enough ahead to accept them all first.
    let send_at = {
        let at = clock.wall + TimeDelta::from_std(args.lead).unwrap();
        DateTime::from_timestamp(at.timestamp() + 1, 0).unwrap()
    };
    let stamp = send_at.to_rfc3339_opts(chrono::SecondsFormat::Secs, true);
    let scheduled = Arc::new(
        singles.with_bodies(
            singles
                .bodies
                .iter()
                .map(|body| {
                    let mut body: serde_json::Value = serde_json::from_slice(body).unwrap();
                    body["send_at"] = json!(stamp);
                    Bytes::from(body.to_string())
                })
                .collect(),
        ),
    );
    let accepting = Instant::now();
    let accepted = accept_count(scheduled, args.count, args.connections).await;
    let accepted_in = accepting.elapsed();
    println!(
        "\n== scheduled: {} messages due at {stamp}, single sends at {}/s around it ==",
        accepted.len(),
        args.rate
    );
    println!(
        "accepted {} scheduled messages in {:.1} s ({:.0}/s)",
        accepted.len(),
        accepted_in.as_secs_f64(),
        accepted.len() as f64 / accepted_in.as_secs_f64()
    );
    let due = clock.instant + (send_at - clock.wall).to_std().unwrap_or_default();
    let load_from = due.checked_sub(Duration::from_secs(2)).unwrap_or(due);
    if Instant::now() > load_from {
        println!(
            "WARNING: accepting took past the load's start; raise --lead (the hand-out overlaps the accepts)"
        );
    }
    tokio::time::sleep_until(load_from.into()).await;
    let load_started = Instant::now();
    let result = fixed_rate(
        singles,
        args.rate,
        args.duration + Duration::from_secs(2),
        "around",
    )
    .await;

    // Wait for every outcome, then read them.
    let ids: Vec<Uuid> = accepted.iter().map(|id| id.parse().unwrap()).collect();
    let singles_ids: Vec<Uuid> = result
        .accepted
        .iter()
        .map(|(id, _)| id.parse().unwrap())
        .collect();
    let scheduled_outcomes = outcomes(app, &ids, Duration::from_secs(120)).await;
    let single_outcomes = outcomes(app, &singles_ids, Duration::from_secs(60)).await;

    let mut handed: Vec<Duration> = scheduled_outcomes
        .values()
        .map(|at| (*at - send_at).to_std().unwrap_or_default())
        .collect();
    handed.sort();
    let within = handed
        .iter()
        .filter(|d| **d <= Duration::from_secs(5))
        .count();
    println!(
        "scheduled handed out: {} of {}; after send_at p50 {:.0} ms, p99 {:.0} ms, last {:.0} ms; within 5 s: {}",
        handed.len(),
        ids.len(),
        percentile(&handed, 0.5),
        percentile(&handed, 0.99),
        percentile(&handed, 1.0),
        within
    );
    let mut accept = result.latencies.clone();
    accept.sort();
    // Each single send's scheduled time: the load's start plus its index over the rate.
    let interval = Duration::from_secs_f64(1.0 / f64::from(args.rate.max(1)));
    let mut to_outcome: Vec<Duration> = result
        .accepted
        .iter()
        .filter_map(|(id, _)| {
            let index = result.keys.get(id)?;
            let planned = clock.wall(load_started + interval * *index as u32);
            let done = single_outcomes.get(&id.parse::<Uuid>().ok()?)?;
            Some((*done - planned).to_std().unwrap_or_default())
        })
        .collect();
    to_outcome.sort();
    println!(
        "single sends: {} accepted ({} refused); accept p50 {:.1} ms, p99 {:.1} ms; send-to-outcome p50 {:.1} ms, p99 {:.1} ms, max {:.1} ms ({} outcomes)",
        result.accepted.len(),
        result.refused,
        percentile(&accept, 0.5),
        percentile(&accept, 0.99),
        percentile(&to_outcome, 0.5),
        percentile(&to_outcome, 0.99),
        percentile(&to_outcome, 1.0),
        to_outcome.len()
    );
}

/// Accepts `count` sends over `connections` connections; returns their ids.
async fn accept_count(load: Arc<Load>, count: usize, connections: usize) -> Vec<String> {
    let next = Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let tasks: Vec<_> = (0..connections)
        .map(|_| {
            let load = load.clone();
            let next = next.clone();
            tokio::spawn(async move {
                let mut ids = Vec::new();
                let mut connection = load.connect().await;
                loop {
                    let n = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                    if n >= count {
                        return ids;
                    }
                    match load
                        .send(&mut connection, &format!("scheduled-{n}"), n)
                        .await
                    {
                        Some(id) => ids.push(id),
                        None => connection = load.connect().await,
                    }
                }
            })
        })
        .collect();
    let mut ids = Vec::with_capacity(count);
    for task in tasks {
        ids.extend(task.await.unwrap());
    }
    ids
}

/// When each message's outcome was recorded, once all of them have one (or `timeout` passed).
async fn outcomes(app: &TestApp, ids: &[Uuid], timeout: Duration) -> HashMap<Uuid, DateTime<Utc>> {
    use core_service::entities::messages;
    let deadline = Instant::now() + timeout;
    loop {
        let mut done = HashMap::with_capacity(ids.len());
        for chunk in ids.chunks(500) {
            let rows: Vec<(Uuid, Option<DateTime<Utc>>)> = messages::Entity::find()
                .select_only()
                .column(messages::Column::Id)
                .column(messages::Column::CompletedAt)
                .filter(messages::Column::Id.is_in(chunk.iter().copied()))
                .into_tuple()
                .all(&app.core.db)
                .await
                .unwrap();
            done.extend(rows.into_iter().filter_map(|(id, at)| Some((id, at?))));
        }
        if done.len() == ids.len() || Instant::now() > deadline {
            return done;
        }
        tokio::time::sleep(Duration::from_millis(250)).await;
    }
}
