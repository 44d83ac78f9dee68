//! SMS providers for one-time codes: `log` (development) and `http`.

use std::time::Duration;

use futures::future::BoxFuture;

/// Why a text could not be handed to the provider.
#[derive(Debug, thiserror::Error)]
#[error("sms provider failed: {0}")]
pub struct SmsError(pub String);

/// Sends a text to a phone number. Implementations must not retry for long: the OTP request
/// waits for the answer.
pub trait SmsSender: Send + Sync + 'static {
    fn send<'a>(&'a self, to: &'a str, text: &'a str) -> BoxFuture<'a, Result<(), SmsError>>;
}

/// Writes each text to the log, code included. For development only.
#[derive(Debug, Default)]
pub struct LogSms;

impl SmsSender for LogSms {
    fn send<'a>(&'a self, to: &'a str, text: &'a str) -> BoxFuture<'a, Result<(), SmsError>> {
        Box::pin(async move {
            tracing::info!(target: "sms", to, text, "sms (log provider)");
            Ok(())
        })
    }
}

/// POSTs `{"to": "+E164", "text": "..."}` to a URL; any 2xx is success.
#[derive(Debug, Clone)]
pub struct HttpSms {
    client: reqwest::Client,
    url: String,
}

impl HttpSms {
    pub fn new(url: String) -> anyhow::Result<Self> {
        let client = reqwest::Client::builder()
            .timeout(Duration::from_secs(5))
            .redirect(reqwest::redirect::Policy::none())
            .build()?;
        url::Url::parse(&url).map_err(|e| anyhow::anyhow!("SMS_HTTP_URL: {e}"))?;
        Ok(HttpSms { client, url })
    }
}

impl SmsSender for HttpSms {
    fn send<'a>(&'a self, to: &'a str, text: &'a str) -> BoxFuture<'a, Result<(), SmsError>> {
        Box::pin(async move {
            let response = self
                .client
                .post(&self.url)
                .json(&serde_json::json!({ "to": to, "text": text }))
                .send()
                .await
                .map_err(|e| SmsError(redacted(e)))?;
            if response.status().is_success() {
                Ok(())
            } else {
                Err(SmsError(format!("status {}", response.status())))
            }
        })
    }
}

/// What this core has seen of its SMS provider lately: how long a send takes (a moving
/// average over the attempts) and whether the last attempts failed. An OTP request for an
/// unknown number reads it to look like one for a known number: it waits as long as a send
/// currently takes, and answers 503 while the provider is failing (DESIGN.md, "OTP requests
/// look alike").
#[derive(Debug, Default)]
pub struct SmsGauge(std::sync::Mutex<GaugeState>);

#[derive(Debug, Default)]
struct GaugeState {
    /// The moving estimate of one attempt, store and send; `None` before the first.
    estimate: Option<Duration>,
    /// When the last attempt failed, if it did (a success clears it).
    failed_at: Option<chrono::DateTime<chrono::Utc>>,
}

impl SmsGauge {
    /// The weight of the newest attempt in the moving estimate.
    const WEIGHT: f64 = 0.2;
    /// How long a failure keeps the provider "failing" when no attempt has been made since:
    /// a known number's next request then tries the provider again.
    pub const FAILURE_MEMORY: Duration = Duration::from_secs(30);

    /// Records one attempt and how long it took.
    pub fn record(&self, took: Duration, ok: bool, now: chrono::DateTime<chrono::Utc>) {
        let mut state = self.0.lock().unwrap_or_else(|e| e.into_inner());
        state.estimate = Some(match state.estimate {
            None => took,
            Some(old) => old.mul_f64(1.0 - Self::WEIGHT) + took.mul_f64(Self::WEIGHT),
        });
        state.failed_at = if ok { None } else { Some(now) };
    }

    /// How long a send currently takes (zero before the first).
    pub fn estimate(&self) -> Duration {
        let state = self.0.lock().unwrap_or_else(|e| e.into_inner());
        state.estimate.unwrap_or_default()
    }

    /// Whether the provider's last attempt failed, less than [`Self::FAILURE_MEMORY`] ago.
    pub fn failing(&self, now: chrono::DateTime<chrono::Utc>) -> bool {
        let state = self.0.lock().unwrap_or_else(|e| e.into_inner());
        state
            .failed_at
            .is_some_and(|at| (now - at).to_std().unwrap_or_default() < Self::FAILURE_MEMORY)
    }
}

/// A provider's request error without its URL: `SMS_HTTP_URL` may carry an API key in its
/// query, and these errors reach the log.
pub fn redacted(err: reqwest::Error) -> String {
    err.without_url().to_string()
}

#[cfg(test)]
mod gauge_tests {
    use super::*;

    #[test]
    fn the_estimate_follows_the_attempts_and_a_success_clears_a_failure() {
        let gauge = SmsGauge::default();
        let t0 = chrono::Utc::now();
        assert_eq!(gauge.estimate(), Duration::ZERO);
        assert!(!gauge.failing(t0));
        gauge.record(Duration::from_millis(250), true, t0);
        assert_eq!(gauge.estimate(), Duration::from_millis(250));
        gauge.record(Duration::from_millis(500), false, t0);
        assert_eq!(gauge.estimate(), Duration::from_millis(300));
        assert!(gauge.failing(t0));
        assert!(gauge.failing(t0 + chrono::TimeDelta::seconds(29)));
        assert!(!gauge.failing(t0 + chrono::TimeDelta::seconds(30)));
        gauge.record(Duration::from_millis(300), true, t0);
        assert!(!gauge.failing(t0));
    }
}

#[cfg(test)]
mod redaction_tests {
    use super::*;

    #[tokio::test]
    async fn a_provider_error_never_shows_the_url_and_its_key() {
        let provider = HttpSms::new("http://127.0.0.1:9/send?api_key=SECRET-KEY".into()).unwrap();
        let err = provider.send("+14155550123", "hi").await.unwrap_err();
        assert!(!err.0.contains("SECRET-KEY"), "{}", err.0);
        assert!(!err.0.contains("127.0.0.1:9"), "{}", err.0);
    }
}
