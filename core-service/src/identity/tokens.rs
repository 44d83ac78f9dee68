//! Access tokens (HS256 JWTs with pinned algorithm, issuer and audience) and opaque secrets
//! (refresh tokens) stored only as hashes.

use base64::Engine as _;
use jsonwebtoken::{Algorithm, DecodingKey, EncodingKey, Header, Validation};
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use uuid::Uuid;

use crate::config::TokenSettings;

#[derive(Debug, Serialize, Deserialize)]
pub struct Claims {
    pub sub: String,
    pub iss: String,
    pub aud: String,
    pub exp: i64,
    pub iat: i64,
    /// Not issued by this service; refused when in the future (beyond the skew) if present.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub nbf: Option<i64>,
    pub jti: String,
}

/// How far in the future a token's `iat` or `nbf` may be (clocks of other signers drift).
/// The fixed prefix of app tokens.
pub const TOKEN_PREFIX: &str = "sva_";

pub const CLOCK_SKEW_SECS: i64 = 60;

/// Signs an access token for `user_id`, valid for the configured lifetime from `now_secs`.
pub fn issue_access_token(
    secret: &[u8],
    settings: &TokenSettings,
    user_id: Uuid,
    now_secs: i64,
) -> Result<String, jsonwebtoken::errors::Error> {
    let claims = Claims {
        sub: user_id.to_string(),
        iss: settings.issuer.clone(),
        aud: settings.audience.clone(),
        iat: now_secs,
        exp: now_secs + settings.access_ttl.as_secs() as i64,
        nbf: None,
        jti: Uuid::new_v4().to_string(),
    };
    jsonwebtoken::encode(
        &Header::new(Algorithm::HS256),
        &claims,
        &EncodingKey::from_secret(secret),
    )
}

/// Verifies an access token: HS256 only, signature, `iss`, `aud`, and `exp` against the
/// service clock (not the wall clock, so tests can move time); an `iat` or `nbf` more than
/// [`CLOCK_SKEW_SECS`] in the future is refused. Returns the user id.
pub fn verify_access_token(
    secret: &[u8],
    settings: &TokenSettings,
    token: &str,
    now_secs: i64,
) -> Option<Uuid> {
    let mut validation = Validation::new(Algorithm::HS256);
    validation.set_issuer(&[&settings.issuer]);
    validation.set_audience(&[&settings.audience]);
    validation.set_required_spec_claims(&["exp", "iss", "aud", "sub"]);
    validation.validate_exp = false;
    validation.validate_nbf = false;
    validation.leeway = 0;
    let data =
        jsonwebtoken::decode::<Claims>(token, &DecodingKey::from_secret(secret), &validation)
            .ok()?;
    if data.claims.exp <= now_secs {
        return None;
    }
    let future = |t: i64| t > now_secs + CLOCK_SKEW_SECS;
    if future(data.claims.iat) || data.claims.nbf.is_some_and(future) {
        return None;
    }
    Uuid::parse_str(&data.claims.sub).ok()
}

/// A new opaque secret: 256 random bits, base64url.
pub fn new_opaque_token() -> String {
    let mut bytes = [0u8; 32];
    rand::fill(&mut bytes);
    base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(bytes)
}

/// The stored form of a high-entropy secret: hex SHA-256.
pub fn hash_token(token: &str) -> String {
    hex::encode(Sha256::digest(token.as_bytes()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    fn settings() -> TokenSettings {
        TokenSettings {
            issuer: "iss".into(),
            audience: "aud".into(),
            access_ttl: Duration::from_secs(900),
            refresh_ttl: Duration::from_secs(3600),
        }
    }

    #[test]
    fn a_token_verifies_until_it_expires_on_the_service_clock() {
        let secret = [1u8; 32];
        let user = Uuid::new_v4();
        let token = issue_access_token(&secret, &settings(), user, 1_000).unwrap();
        assert_eq!(
            verify_access_token(&secret, &settings(), &token, 1_000),
            Some(user)
        );
        assert_eq!(
            verify_access_token(&secret, &settings(), &token, 1_899),
            Some(user)
        );
        assert_eq!(
            verify_access_token(&secret, &settings(), &token, 1_900),
            None
        );
        assert_eq!(
            verify_access_token(&[2u8; 32], &settings(), &token, 1_000),
            None
        );
    }

    #[test]
    fn tokens_for_another_issuer_or_audience_are_refused() {
        let secret = [1u8; 32];
        let mut other = settings();
        other.audience = "elsewhere".into();
        let token = issue_access_token(&secret, &other, Uuid::new_v4(), 1_000).unwrap();
        assert_eq!(
            verify_access_token(&secret, &settings(), &token, 1_000),
            None
        );
        let mut other = settings();
        other.issuer = "elsewhere".into();
        let token = issue_access_token(&secret, &other, Uuid::new_v4(), 1_000).unwrap();
        assert_eq!(
            verify_access_token(&secret, &settings(), &token, 1_000),
            None
        );
    }

    #[test]
    fn a_token_issued_or_valid_only_in_the_future_is_refused_beyond_the_skew() {
        let secret = [1u8; 32];
        let user = Uuid::new_v4();
        // Issued 60 s ahead of this clock: within the skew. 61 s: refused.
        let ahead = issue_access_token(&secret, &settings(), user, 1_060).unwrap();
        assert_eq!(
            verify_access_token(&secret, &settings(), &ahead, 1_000),
            Some(user)
        );
        let too_far = issue_access_token(&secret, &settings(), user, 1_061).unwrap();
        assert_eq!(
            verify_access_token(&secret, &settings(), &too_far, 1_000),
            None
        );
        let sign = |nbf: i64| {
            let claims = Claims {
                sub: user.to_string(),
                iss: "iss".into(),
                aud: "aud".into(),
                exp: 5_000,
                iat: 1_000,
                nbf: Some(nbf),
                jti: "j".into(),
            };
            jsonwebtoken::encode(
                &jsonwebtoken::Header::new(Algorithm::HS256),
                &claims,
                &EncodingKey::from_secret(&secret),
            )
            .unwrap()
        };
        assert_eq!(
            verify_access_token(&secret, &settings(), &sign(1_060), 1_000),
            Some(user)
        );
        assert_eq!(
            verify_access_token(&secret, &settings(), &sign(1_061), 1_000),
            None
        );
    }

    #[test]
    fn an_unsigned_token_is_refused() {
        let b64 = |s: &str| base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(s);
        let claims = format!(
            r#"{{"sub":"{}","iss":"iss","aud":"aud","exp":99999999999,"iat":1,"jti":"x"}}"#,
            Uuid::new_v4()
        );
        let token = format!("{}.{}.", b64(r#"{"alg":"none","typ":"JWT"}"#), b64(&claims));
        assert_eq!(
            verify_access_token(&[1u8; 32], &settings(), &token, 1_000),
            None
        );
    }
}
