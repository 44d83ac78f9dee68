//! Reporting outcomes to the core: gathered into batches, sent with retries, pipelined under
//! load.

use super::*;

impl Worker {
    /// Sends reports in batches (one call and one transaction in the core for many
    /// deliveries): a batch with no call on its way first waits up to [`REPORT_LINGER`] for
    /// [`PIPELINE_AT`] reports, and those that arrive while a call is on its way go in the
    /// next. While a call is on its way, another starts only once [`PIPELINE_AT`] reports wait
    /// (up to [`REPORTS_IN_FLIGHT`] calls): the core gives the stream room for more jobs as
    /// each call arrives, so under a heavy load a report does not wait behind another's
    /// transaction, and under a light one the batches stay whole.
    pub(crate) async fn report_loop(
        self: Arc<Self>,
        client: WebhookJobServiceClient<CoreChannel>,
        mut reports: mpsc::UnboundedReceiver<pb::JobReport>,
    ) {
        let mut calls = tokio::task::JoinSet::new();
        let mut batch = Vec::with_capacity(REPORT_BATCH);
        let mut open = true;
        loop {
            if calls.is_empty() {
                if batch.is_empty()
                    && (!open || reports.recv_many(&mut batch, REPORT_BATCH).await == 0)
                {
                    break;
                }
            } else {
                let room = REPORT_BATCH - batch.len();
                tokio::select! {
                    _ = calls.join_next() => {}
                    n = reports.recv_many(&mut batch, room), if open && room > 0 => {
                        open = n > 0;
                    }
                }
                if batch.len() < PIPELINE_AT || calls.len() >= REPORTS_IN_FLIGHT {
                    continue;
                }
            }
            if calls.is_empty() && open && batch.len() < PIPELINE_AT {
                open = linger(&mut reports, &mut batch).await;
            }
            let sent = std::mem::take(&mut batch);
            calls.spawn(self.clone().report(client.clone(), sent));
        }
        while calls.join_next().await.is_some() {}
    }

    /// One report call, tried again (through any live core) when it fails: a report is
    /// idempotent (the core applies it only while its lease token is current, and an attempt
    /// is logged once), so a call lost with a core that died is simply sent again rather than
    /// left to the lease's lapse, which would deliver the webhook a second time.
    pub(crate) async fn report(
        self: Arc<Self>,
        mut client: WebhookJobServiceClient<CoreChannel>,
        reports: Vec<pb::JobReport>,
    ) {
        let count = reports.len();
        // Answered or given up, these jobs are no longer this worker's to name.
        struct Done<'a>(&'a HeldJobs, &'a [pb::JobReport]);
        impl Drop for Done<'_> {
            fn drop(&mut self) {
                self.0.done(self.1.iter().map(|r| r.delivery_id.as_str()));
            }
        }
        let _done = Done(&self.jobs_held, &reports);
        for (n, pause) in REPORT_RETRIES.iter().enumerate() {
            let request = self.request(pb::JobReports {
                reports: reports.clone(),
            });
            match client.report_batch(request).await {
                Ok(_) => return,
                Err(err) if n + 1 < REPORT_RETRIES.len() => {
                    tracing::info!(error = %err, reports = count, "report failed; sending it again");
                    tokio::time::sleep(*pause).await;
                }
                Err(err) => {
                    tracing::warn!(error = %err, reports = count, "could not report; the leases will lapse");
                }
            }
        }
    }
}

/// Adds to `batch` the reports that arrive within [`REPORT_LINGER`], until it holds
/// [`PIPELINE_AT`]; false when the queue has closed (the stream is over: report at once).
async fn linger(
    reports: &mut mpsc::UnboundedReceiver<pb::JobReport>,
    batch: &mut Vec<pb::JobReport>,
) -> bool {
    let until = tokio::time::Instant::now() + REPORT_LINGER;
    while batch.len() < PIPELINE_AT {
        let room = PIPELINE_AT - batch.len();
        tokio::select! {
            n = reports.recv_many(batch, room) => {
                if n == 0 {
                    return false;
                }
            }
            () = tokio::time::sleep_until(until) => break,
        }
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    fn report(n: u32) -> pb::JobReport {
        pb::JobReport {
            http_status: Some(n),
            ..Default::default()
        }
    }

    #[tokio::test(start_paused = true)]
    async fn a_report_waits_for_those_that_come_within_the_linger() {
        let (tx, mut rx) = mpsc::unbounded_channel();
        tx.send(report(1)).unwrap();
        let late = tx.clone();
        tokio::spawn(async move {
            tokio::time::sleep(REPORT_LINGER / 4).await;
            late.send(report(2)).unwrap();
            tokio::time::sleep(REPORT_LINGER).await;
            late.send(report(3)).unwrap();
        });
        let mut batch = Vec::new();
        let started = tokio::time::Instant::now();
        assert!(linger(&mut rx, &mut batch).await);
        assert_eq!(
            started.elapsed(),
            REPORT_LINGER,
            "the whole linger, no longer"
        );
        let statuses: Vec<_> = batch.iter().map(|r| r.http_status).collect();
        assert_eq!(statuses, vec![Some(1), Some(2)], "the third came after it");
        assert_eq!(rx.recv().await.unwrap().http_status, Some(3));
    }

    #[tokio::test(start_paused = true)]
    async fn a_full_batch_or_a_closed_queue_ends_the_linger_at_once() {
        let (tx, mut rx) = mpsc::unbounded_channel();
        for n in 0..PIPELINE_AT as u32 + 1 {
            tx.send(report(n)).unwrap();
        }
        let mut batch = Vec::new();
        let started = tokio::time::Instant::now();
        assert!(linger(&mut rx, &mut batch).await);
        assert_eq!(batch.len(), PIPELINE_AT);
        assert_eq!(started.elapsed(), Duration::ZERO);

        drop(tx);
        let mut rest = Vec::new();
        assert!(!linger(&mut rx, &mut rest).await, "the stream is over");
        assert_eq!(rest.len(), 1);
        assert_eq!(started.elapsed(), Duration::ZERO);
    }

    #[test]
    fn a_stream_after_the_first_names_the_jobs_still_held() {
        let held = HeldJobs::default();
        assert_eq!(
            held.for_request(),
            (false, vec![]),
            "the first stream resumes nothing"
        );
        held.opened();
        assert_eq!(held.for_request(), (true, vec![]));
        for id in ["c", "a", "b"] {
            held.received(id);
        }
        held.done(["b", "unknown"]);
        assert_eq!(
            held.for_request(),
            (true, vec!["a".to_string(), "c".to_string()])
        );
        held.done(["a", "c"]);
        assert_eq!(held.for_request(), (true, vec![]));
    }

    #[test]
    fn a_worker_holding_more_than_a_stream_can_name_resumes_nothing() {
        let held = HeldJobs::default();
        held.opened();
        for i in 0..=proto::MAX_HELD_JOBS {
            held.received(&i.to_string());
        }
        assert_eq!(
            held.for_request(),
            (false, vec![]),
            "nothing it holds is given back"
        );
    }
}
