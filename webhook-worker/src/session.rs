//! One job stream: held to a core until it ends, its jobs attempted by the worker's slots,
//! urgent ones before a broadcast's.

use super::*;

impl Worker {
    /// One job stream, to the core with the fewest (or the next that answers), until it ends.
    pub(crate) async fn session(
        self: Arc<Self>,
        cores: &Cores,
        strict: reqwest::Client,
        permissive: reqwest::Client,
        cancel: CancellationToken,
        held: &mut bool,
    ) -> anyhow::Result<()> {
        let channel = match self.quietest(cores).await {
            Some(core) => cores.preferring(core),
            None => cores.channel(),
        };
        let mut client = WebhookJobServiceClient::new(channel);
        let slots = Arc::new(Semaphore::new(self.config.settings.concurrency.max(1)));
        let (resumed, held_ids) = self.jobs_held.for_request();
        let request = self.request(pb::JobsRequest {
            worker_id: self.id.clone(),
            max_in_flight: self.config.settings.concurrency as u32,
            resumed,
            held: held_ids,
        });
        let response = client.jobs(request).await?;
        *held = true;
        self.jobs_held.opened();
        let core = response.extensions().get::<CoreIndex>().map_or(0, |c| c.0);
        let mut stream = response.into_inner();
        // Reports go out through one task that batches them; it ends once every delivery of
        // this session has handed in its report. They go to the stream's core, which counts
        // them as room for more jobs; to another core only when that one is gone (a core
        // accepts any report whose lease is still current).
        let (reports, pending) = mpsc::unbounded_channel();
        let reporter = WebhookJobServiceClient::new(cores.preferring(core));
        let reporting = tokio::spawn(self.clone().report_loop(reporter, pending));
        // Fired when this stream should move to a core with fewer (see `balance`).
        let moving = CancellationToken::new();
        // Jobs are read as they come (the core sends no more than the room it gave this
        // worker) into two queues: a broadcast's deliveries wait behind every other job.
        let (urgent_tx, mut urgent) = mpsc::unbounded_channel::<pb::Job>();
        let (bulk_tx, mut bulk) = mpsc::unbounded_channel::<pb::Job>();
        let stop_reading = moving.clone();
        let this = self.clone();
        let reader = tokio::spawn(async move {
            loop {
                let next = tokio::select! {
                    biased;
                    // Moving: the stream stays open, unread, until the session lets it go.
                    () = stop_reading.cancelled() => return Ok(Some(stream)),
                    next = stream.next() => next,
                };
                let Some(job) = next else { break };
                let job = job?;
                this.jobs_held.received(&job.delivery_id);
                let queue = if job.bulk { &bulk_tx } else { &urgent_tx };
                if queue.send(job).is_err() {
                    break;
                }
            }
            Ok::<_, tonic::Status>(None)
        });
        // The reader goes with the session.
        struct Abort(tokio::task::AbortHandle);
        impl Drop for Abort {
            fn drop(&mut self) {
                self.0.abort();
            }
        }
        let _reader = Abort(reader.abort_handle());
        let balancer = tokio::spawn(self.clone().balance(cores.clone(), core, moving.clone()));
        let _balancer = Abort(balancer.abort_handle());
        tracing::info!(worker = %self.id, core = %cores.urls()[core], "pulling webhook jobs");
        loop {
            // Take the next job only when a slot is free.
            let permit = tokio::select! {
                () = cancel.cancelled() => return Ok(()),
                () = moving.cancelled() => break,
                permit = slots.clone().acquire_owned() => permit?,
            };
            let job = tokio::select! {
                biased;
                () = cancel.cancelled() => return Ok(()),
                () = moving.cancelled() => break,
                job = next_job(&mut urgent, &mut bulk) => job,
            };
            let Some(job) = job else {
                // The stream ended (both queues drained): with the core's error, if it sent one.
                reader.await??;
                return Ok(());
            };
            let http = if job.allow_private_targets {
                permissive.clone()
            } else {
                strict.clone()
            };
            let reports = reports.clone();
            let cancel = cancel.clone();
            // Every line about this delivery names it.
            let span = tracing::info_span!("delivery", delivery_id = %job.delivery_id);
            tokio::spawn(tracing::Instrument::instrument(
                async move {
                    let _permit = permit;
                    let report = tokio::select! {
                        () = cancel.cancelled() => return,
                        report = deliver(&http, &job) => report,
                    };
                    let result = match (report.http_status, report.error.as_deref()) {
                        (Some(status), _) if (200..300).contains(&status) => "2xx",
                        (Some(_), _) => "non_2xx",
                        (None, Some("timeout")) => "timeout",
                        (None, _) => "connection_error",
                    };
                    metrics::counter!("webhook_worker_deliveries_total", "result" => result)
                        .increment(1);
                    match (report.http_status, &report.error) {
                        (Some(status), _) if (200..300).contains(&status) => {
                            tracing::debug!(status, "delivered");
                        }
                        (status, error) => {
                            tracing::info!(
                                ?status,
                                error = error.as_deref().unwrap_or(""),
                                duration_ms = report.duration_ms,
                                "attempt failed"
                            );
                        }
                    }
                    let _ = reports.send(report);
                },
                span,
            ));
        }
        // Moving. The deliveries under way finish and are reported while the stream is still
        // open; the jobs it holds that were not started are given back by the core when it
        // closes (due at once, no attempt counted), so nothing is attempted twice.
        let stream = match reader.await {
            Ok(Ok(stream)) => stream,
            _ => None,
        };
        for queue in [&mut urgent, &mut bulk] {
            while let Ok(job) = queue.try_recv() {
                self.jobs_held.done([job.delivery_id.as_str()]);
            }
        }
        drop((urgent, bulk, reports));
        tokio::select! {
            () = cancel.cancelled() => {}
            _ = tokio::time::timeout(DRAIN_LIMIT, reporting) => {}
        }
        drop(stream);
        Ok(())
    }
}

/// The next job to attempt: one of `urgent` first, else one of `bulk`; `None` once both are
/// closed and empty (the job stream ended).
async fn next_job(
    urgent: &mut mpsc::UnboundedReceiver<pb::Job>,
    bulk: &mut mpsc::UnboundedReceiver<pb::Job>,
) -> Option<pb::Job> {
    tokio::select! {
        biased;
        Some(job) = urgent.recv() => Some(job),
        Some(job) = bulk.recv() => Some(job),
        else => None,
    }
}
