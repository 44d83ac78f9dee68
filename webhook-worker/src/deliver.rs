//! One attempt: the signed job POSTed to its endpoint, and what happened described for the
//! report.

use super::*;

/// The most of a receiver's answer body read (and dropped) so that its connection is kept for
/// the next delivery; a longer body closes the connection instead.
const DRAIN_BODY: usize = 64 * 1024;

/// The most of a receiver's answer reported (and kept with the attempt).
const RESPONSE_BODY_KEPT: usize = 1024;

/// POSTs one job and describes what happened.
pub async fn deliver(http: &reqwest::Client, job: &pb::Job) -> pb::JobReport {
    let mut report = pb::JobReport {
        delivery_id: job.delivery_id.clone(),
        lease_token: job.lease_token.clone(),
        http_status: None,
        error: None,
        duration_ms: None,
        payload: Some(job.body.clone()),
        response_body: None,
    };
    let started = std::time::Instant::now();
    if !job.allow_private_targets
        && let Err(err) = check_literal(&job.url)
    {
        report.error = Some(err);
        return report;
    }
    let mut request = http
        .post(&job.url)
        .timeout(Duration::from_millis(u64::from(job.timeout_ms.max(1))))
        .body(job.body.clone());
    for header in &job.headers {
        request = request.header(&header.name, &header.value);
    }
    match request.send().await {
        Ok(mut response) => {
            report.http_status = Some(u32::from(response.status().as_u16()));
            // Read a short answer to its end: only then does the connection go back to the
            // pool for the endpoint's next delivery (the request's timeout bounds this too).
            // The start of it is kept with the attempt.
            let mut read = 0;
            let mut kept = Vec::new();
            while read <= DRAIN_BODY {
                match response.chunk().await {
                    Ok(Some(chunk)) => {
                        let room = RESPONSE_BODY_KEPT.saturating_sub(kept.len());
                        kept.extend_from_slice(&chunk[..chunk.len().min(room)]);
                        read += chunk.len();
                    }
                    _ => break,
                }
            }
            report.response_body = Some(kept);
        }
        Err(err) if err.is_timeout() => report.error = Some("timeout".to_string()),
        Err(err) => report.error = Some(describe(&err)),
    }
    report.duration_ms = Some(started.elapsed().as_millis().min(u128::from(u32::MAX)) as u32);
    report
}

fn describe(err: &reqwest::Error) -> String {
    let mut text = String::from(if err.is_connect() {
        "connection failed"
    } else {
        "request failed"
    });
    let mut source = std::error::Error::source(err);
    while let Some(cause) = source {
        let cause_text = cause.to_string();
        if cause_text.contains(guard::BLOCKED) {
            return cause_text;
        }
        source = cause.source();
        if source.is_none() {
            text = format!("{text}: {cause_text}");
        }
    }
    text
}
