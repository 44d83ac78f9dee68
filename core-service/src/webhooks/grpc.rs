//! `bm.v1.WebhookService` (console) and `bm.v1.WebhookJobService` (workers).

use std::pin::Pin;
use std::sync::Arc;
use std::time::Duration;

use futures::Stream;
use proto::v1 as pb;
use tokio::sync::mpsc;
use tokio_stream::wrappers::ReceiverStream;
use tonic::{Request, Response, Status};

use super::credits::Credits;
use super::jobs;
use super::service::{self, Endpoint, EndpointPatch};
use crate::admin::service::authorize_internal;
use crate::clock::rfc3339;
use crate::entities::{webhook_attempts, webhook_deliveries};
use crate::grpc_util::authorization;
use crate::state::Core;

pub struct WebhookGrpc {
    pub core: Arc<Core>,
}

pub fn webhook_pb(e: Endpoint, secret: Option<String>) -> pb::Webhook {
    pb::Webhook {
        id: e.webhook.id.to_string(),
        url: e.webhook.url,
        events: e.events,
        active: e.webhook.active,
        secret,
        created_at: rfc3339(e.webhook.created_at),
        updated_at: rfc3339(e.webhook.updated_at),
    }
}

fn delivery_pb(d: webhook_deliveries::Model) -> pb::Delivery {
    let open = matches!(d.status.as_str(), "pending" | "retrying");
    pb::Delivery {
        id: d.id.to_string(),
        webhook_id: d.webhook_id.to_string(),
        event_type: d.event_type,
        event_id: d.event_id.to_string(),
        status: d.status,
        attempts: d.attempts,
        last_http_status: d.last_http_status,
        last_error: d.last_error,
        next_attempt_at: open
            .then(|| chrono::DateTime::from_timestamp_millis(d.next_attempt_at_ms))
            .flatten()
            .map(rfc3339),
        message_send_id: serde_json::from_str::<serde_json::Value>(&d.data)
            .ok()
            .and_then(|data| data["message_send_id"].as_str().map(str::to_string)),
        created_at: rfc3339(d.created_at),
        updated_at: rfc3339(d.updated_at),
        attempts_log: Vec::new(),
    }
}

fn attempt_pb(a: webhook_attempts::Model) -> pb::Attempt {
    pb::Attempt {
        attempt: a.attempt,
        at: rfc3339(a.at),
        http_status: a.http_status,
        error: a.error,
        duration_ms: a.duration_ms,
    }
}

#[tonic::async_trait]
impl pb::webhook_service_server::WebhookService for WebhookGrpc {
    async fn list_webhooks(
        &self,
        request: Request<pb::ListWebhooksRequest>,
    ) -> Result<Response<pb::WebhookList>, Status> {
        let list = service::list(&self.core, authorization(&request)).await?;
        Ok(Response::new(pb::WebhookList {
            webhooks: list.into_iter().map(|e| webhook_pb(e, None)).collect(),
        }))
    }

    async fn create_webhook(
        &self,
        request: Request<pb::CreateWebhookRequest>,
    ) -> Result<Response<pb::Webhook>, Status> {
        let body = request.get_ref();
        let (endpoint, secret) =
            service::create(&self.core, authorization(&request), &body.url, &body.events).await?;
        Ok(Response::new(webhook_pb(endpoint, Some(secret))))
    }

    async fn update_webhook(
        &self,
        request: Request<pb::UpdateWebhookRequest>,
    ) -> Result<Response<pb::Webhook>, Status> {
        let auth = authorization(&request).map(str::to_string);
        let body = request.into_inner();
        let patch = EndpointPatch {
            url: body.url,
            events: body.set_events.then_some(body.events),
            active: body.active,
        };
        let endpoint = service::update(&self.core, auth.as_deref(), &body.id, patch).await?;
        Ok(Response::new(webhook_pb(endpoint, None)))
    }

    async fn delete_webhook(
        &self,
        request: Request<pb::WebhookRequest>,
    ) -> Result<Response<pb::Empty>, Status> {
        service::delete(&self.core, authorization(&request), &request.get_ref().id).await?;
        Ok(Response::new(pb::Empty {}))
    }

    async fn test_webhook(
        &self,
        request: Request<pb::WebhookRequest>,
    ) -> Result<Response<pb::Empty>, Status> {
        service::test(&self.core, authorization(&request), &request.get_ref().id).await?;
        Ok(Response::new(pb::Empty {}))
    }

    async fn list_deliveries(
        &self,
        request: Request<pb::ListDeliveriesRequest>,
    ) -> Result<Response<pb::DeliveryList>, Status> {
        let body = request.get_ref();
        let query = service::DeliveryQuery {
            limit: body.limit,
            starting_after: body.starting_after.clone(),
            webhook_id: body.webhook_id.clone(),
            status: body.status.clone(),
            event_type: body.event_type.clone(),
        };
        let (list, has_more) =
            service::deliveries(&self.core, authorization(&request), query).await?;
        Ok(Response::new(pb::DeliveryList {
            deliveries: list.into_iter().map(delivery_pb).collect(),
            has_more,
        }))
    }

    async fn retry_delivery(
        &self,
        request: Request<pb::DeliveryRequest>,
    ) -> Result<Response<pb::Delivery>, Status> {
        let delivery =
            service::retry_delivery(&self.core, authorization(&request), &request.get_ref().id)
                .await?;
        Ok(Response::new(delivery_pb(delivery)))
    }

    async fn recover_webhook(
        &self,
        request: Request<pb::RecoverWebhookRequest>,
    ) -> Result<Response<pb::RecoverResult>, Status> {
        let body = request.get_ref();
        let requeued = service::recover(
            &self.core,
            authorization(&request),
            &body.id,
            body.since.as_deref(),
        )
        .await?;
        Ok(Response::new(pb::RecoverResult {
            requeued: requeued as i64,
        }))
    }

    async fn get_delivery(
        &self,
        request: Request<pb::DeliveryRequest>,
    ) -> Result<Response<pb::Delivery>, Status> {
        let (delivery, attempts) =
            service::delivery(&self.core, authorization(&request), &request.get_ref().id).await?;
        let mut delivery = delivery_pb(delivery);
        delivery.attempts_log = attempts.into_iter().map(attempt_pb).collect();
        Ok(Response::new(delivery))
    }
}

pub struct JobGrpc {
    pub core: Arc<Core>,
    /// Ends every stream when the core shuts down (a graceful shutdown waits for them).
    pub shutdown: tokio_util::sync::CancellationToken,
}

/// The most unreported jobs one stream holds for its worker.
const MAX_IN_FLIGHT: u32 = 256;

/// Unreported jobs a stream may hold per slot of its worker: the slot's job and one more
/// waiting, so the next job is there when a slot frees.
const PREFETCH: usize = 2;

/// How long a busy stream waits for more room before leasing for a few slots.
const LINGER: Duration = Duration::from_millis(2);

/// How often an idle stream looks for deliveries that became due (retries, other cores).
const POLL: Duration = Duration::from_millis(250);

type JobStream = Pin<Box<dyn Stream<Item = Result<pb::Job, Status>> + Send>>;

#[tonic::async_trait]
impl pb::webhook_job_service_server::WebhookJobService for JobGrpc {
    type JobsStream = JobStream;

    async fn jobs(
        &self,
        request: Request<pb::JobsRequest>,
    ) -> Result<Response<Self::JobsStream>, Status> {
        authorize_internal(&self.core, authorization(&request), request.remote_addr())?;
        let worker = request.get_ref().worker_id.clone();
        // The stream holds at most PREFETCH times what the worker says it can have in flight,
        // counted from lease to report (see `credits`): the worker never waits for a lease
        // round, and no more than that waits leased on its way.
        let room = match request.get_ref().max_in_flight {
            0 => 16,
            n => n.clamp(1, MAX_IN_FLIGHT),
        } as usize
            * PREFETCH;
        let core = self.core.clone();
        let shutdown = self.shutdown.clone();
        let (tx, rx) = mpsc::channel::<Result<pb::Job, Status>>(room);
        tokio::spawn(async move {
            tracing::info!(worker = %worker, "worker connected to the job stream");
            let credits = Credits::new(room);
            loop {
                let notified = core.webhook_wakeup.notified();
                tokio::pin!(notified);
                notified.as_mut().enable();
                // Wait until the worker has reported enough to take at least one more job.
                let mut free = credits.free();
                while free == 0 {
                    tokio::select! {
                        () = credits.freed.notified() => {}
                        () = tokio::time::sleep(POLL) => {}
                        () = tx.closed() => break,
                        () = shutdown.cancelled() => break,
                    }
                    free = credits.free();
                }
                if free == 0 {
                    break;
                }
                if free < room / 2 {
                    // The worker is busy and has just freed a slot: give it a moment to free
                    // more, so one lease serves several jobs.
                    tokio::time::sleep(LINGER).await;
                    free = credits.free();
                }
                let leased = match jobs::lease(&core, free as u64).await {
                    Ok(jobs) => jobs,
                    Err(err) => {
                        tracing::warn!(error = %err, "leasing deliveries failed");
                        Vec::new()
                    }
                };
                if leased.is_empty() {
                    tokio::select! {
                        () = &mut notified => {}
                        () = tokio::time::sleep(POLL) => {}
                        () = tx.closed() => break,
                        () = shutdown.cancelled() => break,
                    }
                    continue;
                }
                core.job_credits.leased(
                    &credits,
                    &leased[0].lease_token,
                    leased.len(),
                    jobs::lease_duration(&core),
                );
                let mut gone = false;
                for job in leased {
                    if tx.send(Ok(job)).await.is_err() {
                        gone = true;
                        break;
                    }
                }
                if gone {
                    break;
                }
            }
            core.job_credits.closed(&credits);
            tracing::info!(worker = %worker, "worker left the job stream");
        });
        Ok(Response::new(Box::pin(ReceiverStream::new(rx))))
    }

    async fn report(&self, request: Request<pb::JobReport>) -> Result<Response<pb::Empty>, Status> {
        authorize_internal(&self.core, authorization(&request), request.remote_addr())?;
        self.core
            .job_credits
            .reported([request.get_ref().lease_token.as_str()]);
        jobs::report(&self.core, request.get_ref()).await?;
        Ok(Response::new(pb::Empty {}))
    }

    async fn report_batch(
        &self,
        request: Request<pb::JobReports>,
    ) -> Result<Response<pb::Empty>, Status> {
        authorize_internal(&self.core, authorization(&request), request.remote_addr())?;
        let reports = &request.get_ref().reports;
        self.core
            .job_credits
            .reported(reports.iter().map(|r| r.lease_token.as_str()));
        jobs::report_many(&self.core, reports).await?;
        Ok(Response::new(pb::Empty {}))
    }
}

/// On PostgreSQL, turns other cores' `pg_notify` into this core's wake-ups.
pub async fn listen_for_other_cores(core: Arc<Core>, cancel: tokio_util::sync::CancellationToken) {
    if core.db.get_database_backend() != sea_orm::DbBackend::Postgres {
        return;
    }
    let pool = core.db.get_postgres_connection_pool().clone();
    loop {
        let listening = async {
            let mut listener = sqlx::postgres::PgListener::connect_with(&pool).await?;
            listener.listen(crate::state::WEBHOOK_CHANNEL).await?;
            loop {
                listener.recv().await?;
                core.webhook_wakeup.notify_waiters();
            }
            #[allow(unreachable_code)]
            Ok::<(), sqlx::Error>(())
        };
        tokio::select! {
            () = cancel.cancelled() => return,
            result = listening => {
                if let Err(err) = result {
                    tracing::warn!(error = %err, "LISTEN for webhook jobs failed; retrying");
                }
            }
        }
        tokio::select! {
            () = cancel.cancelled() => return,
            () = tokio::time::sleep(Duration::from_secs(2)) => {}
        }
    }
}
