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

/// A provider's request error without its URL: `SMS_HTTP_URL` may carry an API key in its
/// query, and these errors reach the log.
pub fn redacted(err: reqwest::Error) -> String {
    err.without_url().to_string()
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
