//! Delivery providers: where an accepted message goes, and what came of it.
//!
//! - `inbox` stores the message in the recipient's inbox and reports delivered, or failed when
//!   the recipient's account is not active.
//! - `http` POSTs `{"message_id","to","recipient_user_id","category","body"|"message_content"}`:
//!   2xx is delivered; 408, 429, 5xx and connection errors are retried at most 3 times within
//!   5 s, then failed; any other answer fails at once. The provider may see a message twice only
//!   after a crash, so it deduplicates on `message_id`.

use std::time::{Duration, Instant};

use futures::StreamExt;
use futures::future::BoxFuture;

use super::outbox::{self, Outcome};
use crate::domain::UserStatus;
use crate::entities::messages;
use crate::error::{AppError, AppResult};
use crate::identity::store as identity_store;
use crate::state::Core;

pub use proto::vocabulary::FailureReason;

/// Hands a message to whatever delivers it. An `Err` means the attempt could not be made (the
/// database was unreachable): the message stays in the outbox and is tried again.
pub trait DeliveryProvider: Send + Sync + 'static {
    fn deliver<'a>(
        &'a self,
        core: &'a Core,
        message: &'a messages::Model,
    ) -> BoxFuture<'a, AppResult<Outcome>>;

    /// Whether this provider is the in-app inbox: a message is delivered by storing it in its
    /// recipient's inbox when the recipient is active, and fails `recipient_inactive`
    /// otherwise. The dispatcher may then do that itself in the statement that records the
    /// outcomes (PostgreSQL), and asks the provider only when a recipient is not active.
    fn stores_in_inbox(&self) -> bool {
        false
    }

    /// Delivers a batch, `concurrency` at a time; each message gets its own result. A provider
    /// that can do better than one by one (the inbox: one read and one insert for the batch)
    /// overrides this.
    fn deliver_batch<'a>(
        &'a self,
        core: &'a Core,
        messages: &'a [messages::Model],
        concurrency: usize,
    ) -> BoxFuture<'a, Vec<AppResult<Outcome>>> {
        Box::pin(async move {
            let mut results: Vec<Option<AppResult<Outcome>>> =
                messages.iter().map(|_| None).collect();
            let mut running = futures::stream::FuturesUnordered::new();
            let mut next = 0;
            while next < messages.len() || !running.is_empty() {
                while next < messages.len() && running.len() < concurrency.max(1) {
                    let delivery = self.deliver(core, &messages[next]);
                    let index = next;
                    running.push(async move { (index, delivery.await) });
                    next += 1;
                }
                if let Some((index, result)) = running.next().await {
                    results[index] = Some(result);
                }
            }
            results
                .into_iter()
                .map(|r| r.unwrap_or_else(|| Err(AppError::internal("delivery not run"))))
                .collect()
        })
    }
}

/// Stores messages in the recipients' inboxes.
#[derive(Debug, Default)]
pub struct InboxDelivery;

impl DeliveryProvider for InboxDelivery {
    fn stores_in_inbox(&self) -> bool {
        true
    }

    fn deliver<'a>(
        &'a self,
        core: &'a Core,
        message: &'a messages::Model,
    ) -> BoxFuture<'a, AppResult<Outcome>> {
        Box::pin(async move {
            let status = identity_store::user_by_id(&core.db, message.recipient_user_id)
                .await?
                .map(|user| user.status);
            if let Some(failed) = not_deliverable(status) {
                return Ok(failed);
            }
            outbox::put_in_inboxes(&core.db, &[message], core.clock.now()).await?;
            Ok(Outcome::Delivered)
        })
    }

    fn deliver_batch<'a>(
        &'a self,
        core: &'a Core,
        messages: &'a [messages::Model],
        _concurrency: usize,
    ) -> BoxFuture<'a, Vec<AppResult<Outcome>>> {
        Box::pin(async move {
            match inbox_batch(core, messages).await {
                Ok(outcomes) => outcomes.into_iter().map(Ok).collect(),
                Err(err) => messages.iter().map(|_| Err(err.clone())).collect(),
            }
        })
    }
}

/// The inbox for a batch: the recipients' statuses read and the active ones' inbox rows
/// written (see `outbox::put_in_active_inboxes`).
async fn inbox_batch(core: &Core, messages: &[messages::Model]) -> AppResult<Vec<Outcome>> {
    let now = core.clock.now();
    let statuses =
        outbox::put_in_active_inboxes(&core.db, messages, now, UserStatus::Active).await?;
    let mut outcomes = Vec::with_capacity(messages.len());
    for message in messages {
        let status = statuses.get(&message.recipient_user_id).copied();
        outcomes.push(not_deliverable(status).unwrap_or(Outcome::Delivered));
    }
    Ok(outcomes)
}

/// The failure of a message whose recipient has `status` (None: no such user), or None when
/// the recipient is active.
fn not_deliverable(status: Option<UserStatus>) -> Option<Outcome> {
    match status {
        Some(UserStatus::Active) => None,
        Some(UserStatus::Erased) => Some(Outcome::Failed(FailureReason::RecipientErased)),
        _ => Some(Outcome::Failed(FailureReason::RecipientInactive)),
    }
}

/// POSTs messages to an HTTP endpoint.
#[derive(Debug, Clone)]
pub struct HttpDelivery {
    client: reqwest::Client,
    url: String,
    budget: Duration,
}

impl HttpDelivery {
    pub fn new(url: String) -> anyhow::Result<Self> {
        url::Url::parse(&url).map_err(|e| anyhow::anyhow!("DELIVERY_HTTP_URL: {e}"))?;
        let client = reqwest::Client::builder()
            .redirect(reqwest::redirect::Policy::none())
            .build()?;
        Ok(HttpDelivery {
            client,
            url,
            budget: Duration::from_secs(5),
        })
    }

    fn payload(message: &messages::Model) -> serde_json::Value {
        let mut payload = serde_json::json!({
            "message_id": message.id,
            "to": message.to_phone,
            "recipient_user_id": message.recipient_user_id,
            "category": message.category,
        });
        if let Some(body) = &message.body {
            payload["body"] = serde_json::Value::String(body.clone());
        }
        if let Some(content) = message
            .message_content
            .as_deref()
            .and_then(|c| serde_json::from_str::<serde_json::Value>(c).ok())
        {
            payload["message_content"] = content;
        }
        payload
    }
}

const RETRIES: u32 = 3;

fn retryable(status: reqwest::StatusCode) -> bool {
    status == reqwest::StatusCode::REQUEST_TIMEOUT
        || status == reqwest::StatusCode::TOO_MANY_REQUESTS
        || status.is_server_error()
}

impl DeliveryProvider for HttpDelivery {
    fn deliver<'a>(
        &'a self,
        _core: &'a Core,
        message: &'a messages::Model,
    ) -> BoxFuture<'a, AppResult<Outcome>> {
        Box::pin(async move {
            let payload = Self::payload(message);
            let started = Instant::now();
            let mut pause = Duration::from_millis(200);
            let mut last_error = FailureReason::ProviderTimeout;
            for attempt in 0..=RETRIES {
                let left = self.budget.saturating_sub(started.elapsed());
                if left.is_zero() {
                    break;
                }
                let sent = self
                    .client
                    .post(&self.url)
                    .timeout(left)
                    .json(&payload)
                    .send()
                    .await;
                match sent {
                    Ok(response) if response.status().is_success() => {
                        return Ok(Outcome::Delivered);
                    }
                    Ok(response) if !retryable(response.status()) => {
                        return Ok(Outcome::Failed(FailureReason::ProviderRejected));
                    }
                    Ok(_) => last_error = FailureReason::ProviderUnavailable,
                    Err(err) if err.is_timeout() => last_error = FailureReason::ProviderTimeout,
                    Err(_) => last_error = FailureReason::ProviderUnreachable,
                }
                if attempt < RETRIES {
                    let left = self.budget.saturating_sub(started.elapsed());
                    tokio::time::sleep(pause.min(left)).await;
                    pause *= 2;
                }
            }
            Ok(Outcome::Failed(last_error))
        })
    }
}
