//! An outcome's fan-out, owned here once: which endpoints get a batch's `message.*` events,
//! room on one of this core's job streams for their deliveries, and, after the recording
//! transaction, the hand-over of the deliveries written leased, the credit left over given back,
//! the endpoints that moved forgotten and the wake-up of the streams for the rest.
//!
//! The dispatcher calls [`plan`] before it records a batch's outcomes (the plan's
//! [`Plan::lease`], [`Plan::endpoints`] and [`Plan::check`] go to the recording) and
//! [`committed`] after, whatever the recording came to. Nothing else of `webhooks` or `events`
//! is the dispatcher's business.
//!
//! These are functions over `Core` rather than a handle `Core` holds: what they use (the job
//! streams' credits, the endpoint cache, the wake-up, the signing keys, the clock) is `Core`'s
//! already, and a handle would hold a second copy of each.

use proto::vocabulary::EventType;
use uuid::Uuid;

use super::flow::Reservation;
use super::jobs;
use crate::entities::webhooks;
use crate::error::AppResult;
use crate::events::{self, DeliveryLease, EndpointCheck, LeasedDelivery};
use crate::state::Core;

/// One outcome as the fan-out sees it.
#[derive(Debug, Clone, Copy)]
pub struct Outcome {
    pub business_id: Uuid,
    /// `message.sent` or `message.failed`.
    pub event_type: EventType,
    /// Whether the message emits an event at all.
    pub emits_event: bool,
    /// A broadcast's message: its deliveries wait behind every other, never handed over.
    pub broadcast: bool,
}

/// What [`plan`] decided for a batch: the endpoints (when read here) and the room reserved.
#[derive(Debug, Default)]
pub struct Plan {
    /// The active endpoints of the outcomes' businesses and, on a shared database, the check
    /// that they still hold. None: the recording reads them itself.
    endpoints: Option<(Vec<webhooks::Model>, Option<EndpointCheck>)>,
    reservation: Option<Reservation>,
    /// When the deliveries written leased are due again if never handed over.
    lease_until_ms: i64,
}

impl Plan {
    /// The lease that the deliveries written under this plan's room carry.
    pub fn lease(&self) -> Option<DeliveryLease<'_>> {
        self.reservation.as_ref().map(|r| DeliveryLease {
            token: &r.token,
            until_ms: self.lease_until_ms,
            room: r.count,
        })
    }

    /// The endpoints read for the batch, if they were.
    pub fn endpoints(&self) -> Option<&[webhooks::Model]> {
        self.endpoints.as_ref().map(|(e, _)| e.as_slice())
    }

    /// The check that [`Plan::endpoints`] still hold, made by the recording statement.
    pub fn check(&self) -> Option<&EndpointCheck> {
        self.endpoints
            .as_ref()
            .and_then(|(_, check)| check.as_ref())
    }
}

/// What the recording wrote of a plan's deliveries.
#[derive(Debug, Default)]
pub struct Written {
    /// The deliveries written leased under the plan's room.
    pub leased: Vec<LeasedDelivery>,
    /// Every delivery queued.
    pub queued: usize,
}

/// The fan-out of `outcomes`: the active endpoints of their businesses (on a shared database
/// as this core knows them, with the check that they still hold), and, when a job stream of
/// this core has room to spare, room for the deliveries of their events (not those of a
/// broadcast's messages, which wait behind every other). Nothing read when no outcome emits
/// an event, or (on SQLite, where the recording reads them) when no stream has room.
pub async fn plan(core: &Core, outcomes: &[Outcome]) -> AppResult<Plan> {
    let emitting: Vec<&Outcome> = outcomes.iter().filter(|o| o.emits_event).collect();
    let cached = core.tuning.shared;
    if emitting.is_empty() || (!cached && core.job_credits.spare() == 0) {
        return Ok(Plan::default());
    }
    let mut businesses: Vec<Uuid> = emitting.iter().map(|o| o.business_id).collect();
    businesses.sort();
    businesses.dedup();
    let (endpoints, check) = if cached {
        let (endpoints, check) = core.endpoint_cache.endpoints(&core.db, businesses).await?;
        (endpoints, Some(check))
    } else {
        (events::active_endpoints(&core.db, businesses).await?, None)
    };
    let reservation = if core.job_credits.spare() == 0 {
        None
    } else {
        let deliveries: usize = emitting
            .iter()
            .filter(|o| !o.broadcast)
            .map(|o| events::subscribed(&endpoints, o.business_id, o.event_type).count())
            .sum();
        jobs::reserve(core, deliveries).await
    };
    Ok(Plan {
        endpoints: Some((endpoints, check)),
        lease_until_ms: core.clock.now_ms() + jobs::lease_duration(core).as_millis() as i64,
        reservation,
    })
}

/// After the recording: with `written` (it committed), hands the deliveries written leased to
/// their stream and wakes the streams for the others; without (nothing was written), gives
/// the room back. When the endpoints checked had moved, this core reads them again next time.
pub async fn committed(core: &Core, plan: Plan, written: Option<Written>, endpoints_moved: bool) {
    if endpoints_moved && let Some((_, Some(check))) = &plan.endpoints {
        core.endpoint_cache.forget(&check.businesses);
    }
    let Some(written) = written else {
        if let Some(reservation) = &plan.reservation {
            core.job_credits.give_back(reservation, reservation.count);
        }
        return;
    };
    let handed = written.leased.len();
    if let Some(reservation) = plan.reservation {
        jobs::hand_over(core, reservation, written.leased).await;
    }
    if written.queued > handed {
        core.webhook_wakeup.wake();
    }
}
