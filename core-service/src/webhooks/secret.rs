//! Webhook secrets: generated here or by the caller of a rotation, shown once, stored encrypted
//! (AES-256-GCM with a key derived from MASTER_KEY), and used as HMAC-SHA256 keys: the UTF-8
//! bytes of the whole secret for `X-Service-Signature`, and for a secret of the Standard
//! Webhooks form (`whsec_` + standard base64 of the key) the decoded key for
//! `webhook-signature`. The form is recorded per secret, never guessed from the string: the
//! secrets made before it looked alike (`whsec_` + 43 URL-safe characters).
//!
//! Stored form: `v2:<key id>:<base64(nonce || ciphertext || tag)>`. The key id is the first 8
//! hex digits of SHA-256 of the key, so a row names the key that sealed it (key rotation can
//! keep old keys by id). The associated data binds the ciphertext to its endpoint and key id:
//! a row's ciphertext copied onto another endpoint does not open. Rows of the first format
//! (`base64(...)`, no associated data) are still read, and [`upgrade`] rewrites them.

use aws_lc_rs::aead::{AES_256_GCM, Aad, LessSafeKey, NONCE_LEN, Nonce, UnboundKey};
use base64::Engine as _;
use hmac::{Hmac, KeyInit, Mac};
use sha2::Sha256;

use uuid::Uuid;

use crate::error::{AppError, AppResult};

const B64: base64::engine::GeneralPurpose = base64::engine::general_purpose::STANDARD;

/// A new secret in the Standard Webhooks form: `whsec_` + the standard base64 (with padding)
/// of 32 random bytes.
pub fn generate() -> String {
    let mut bytes = [0u8; 32];
    rand::fill(&mut bytes);
    format!("whsec_{}", B64.encode(bytes))
}

/// A secret of the form before the Standard Webhooks one (`whsec_` + URL-safe base64 without
/// padding): what endpoints made before it hold. Kept to test legacy endpoints.
pub fn generate_legacy() -> String {
    let mut bytes = [0u8; 32];
    rand::fill(&mut bytes);
    format!(
        "whsec_{}",
        base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(bytes)
    )
}

/// The shortest and longest keys a caller may rotate to, in bytes.
pub const CALLER_KEY_BYTES: std::ops::RangeInclusive<usize> = 24..=64;

/// A secret a caller generated for a rotation: `whsec_` + the standard base64 (with padding)
/// of 24 to 64 bytes.
///
/// Errors: `invalid_request`.
pub fn parse_caller_secret(input: &str) -> AppResult<String> {
    let err = || {
        AppError::new(
            proto::ErrorCode::InvalidRequest,
            "secret: whsec_ followed by the standard base64 (with padding) of 24 to 64 random \
             bytes",
        )
    };
    let key = standard_key(input).ok_or_else(err)?;
    if !CALLER_KEY_BYTES.contains(&key.len()) {
        return Err(err());
    }
    Ok(input.to_string())
}

/// The Standard Webhooks key of a secret of that form: the bytes its base64 part decodes to.
pub fn standard_key(secret: &str) -> Option<Vec<u8>> {
    B64.decode(secret.strip_prefix("whsec_")?).ok()
}

fn key(raw: &[u8; 32]) -> LessSafeKey {
    LessSafeKey::new(UnboundKey::new(&AES_256_GCM, raw).expect("a 32-byte AES-256 key"))
}

const PREFIX: &str = "v2:";

/// The id a stored secret names its key by: the first 8 hex digits of SHA-256 of the key.
pub fn key_id(raw_key: &[u8; 32]) -> String {
    use sha2::Digest as _;
    hex::encode(&Sha256::digest(raw_key)[..4])
}

fn associated_data(endpoint: Uuid, key_id: &str) -> Vec<u8> {
    format!("bm.webhook-secret.v2:{endpoint}:{key_id}").into_bytes()
}

/// `base64(nonce || ciphertext || tag)` of `secret` sealed with `aad`.
fn seal(raw_key: &[u8; 32], aad: &[u8], secret: &str) -> AppResult<String> {
    let mut nonce = [0u8; NONCE_LEN];
    rand::fill(&mut nonce);
    let mut sealed = secret.as_bytes().to_vec();
    key(raw_key)
        .seal_in_place_append_tag(
            Nonce::assume_unique_for_key(nonce),
            Aad::from(aad),
            &mut sealed,
        )
        .map_err(|_| AppError::internal("encrypting a webhook secret"))?;
    let mut out = nonce.to_vec();
    out.extend_from_slice(&sealed);
    Ok(B64.encode(out))
}

/// `v2:<key id>:base64(nonce || ciphertext || tag)`, bound to `endpoint`.
pub fn encrypt(raw_key: &[u8; 32], endpoint: Uuid, secret: &str) -> AppResult<String> {
    let kid = key_id(raw_key);
    let sealed = seal(raw_key, &associated_data(endpoint, &kid), secret)?;
    Ok(format!("{PREFIX}{kid}:{sealed}"))
}

/// A secret sealed in the first format (no associated data, no key id): what rows written
/// before the current format hold. Kept to test that such rows are read and upgraded.
pub fn seal_first_format(raw_key: &[u8; 32], secret: &str) -> AppResult<String> {
    seal(raw_key, &[], secret)
}

/// Whether a stored secret is in the current format.
pub fn is_current(stored: &str) -> bool {
    stored.starts_with(PREFIX)
}

/// The secret of `endpoint`, from either stored format.
pub fn decrypt(raw_key: &[u8; 32], endpoint: Uuid, stored: &str) -> AppResult<String> {
    let fail =
        || AppError::internal("a webhook secret could not be decrypted (MASTER_KEY changed?)");
    let (aad, sealed) = match stored.strip_prefix(PREFIX) {
        Some(rest) => {
            let (kid, sealed) = rest.split_once(':').ok_or_else(fail)?;
            if kid != key_id(raw_key) {
                return Err(AppError::internal(format!(
                    "a webhook secret was sealed with key {kid}, not the current MASTER_KEY"
                )));
            }
            (associated_data(endpoint, kid), sealed)
        }
        None => (Vec::new(), stored),
    };
    let bytes = B64.decode(sealed).map_err(|_| fail())?;
    if bytes.len() < NONCE_LEN {
        return Err(fail());
    }
    let (nonce, sealed) = bytes.split_at(NONCE_LEN);
    let nonce = Nonce::try_assume_unique_for_key(nonce).map_err(|_| fail())?;
    let mut sealed = sealed.to_vec();
    let plain = key(raw_key)
        .open_in_place(nonce, Aad::from(aad.as_slice()), &mut sealed)
        .map_err(|_| fail())?;
    String::from_utf8(plain.to_vec()).map_err(|_| fail())
}

/// The secret of `endpoint` with whichever of the keys sealed it: the current one or, during a
/// rotation, the retiring one (`MASTER_KEY_PREVIOUS`).
pub fn open(keys: &crate::secrets::Keys, endpoint: Uuid, stored: &str) -> AppResult<String> {
    match decrypt(&keys.webhook_key, endpoint, stored) {
        Ok(secret) => Ok(secret),
        Err(err) => match &keys.webhook_key_previous {
            Some(previous) => decrypt(previous, endpoint, stored).map_err(|_| err),
            None => Err(err),
        },
    }
}

/// Re-seals with the current key every secret that is not sealed with it (a MASTER_KEY
/// rotation: `core-service admin rekey`). Returns how many rows were re-sealed.
pub async fn rekey(
    db: &sea_orm::DatabaseConnection,
    keys: &crate::secrets::Keys,
) -> AppResult<u64> {
    let current = format!("{PREFIX}{}:%", key_id(&keys.webhook_key));
    reseal(db, &current, &keys.webhook_key, |id, stored| {
        open(keys, id, stored)
    })
    .await
}

/// Rewrites every secret stored in the first format into the current one (run by each core at
/// start). Returns how many rows were rewritten.
pub async fn upgrade(db: &sea_orm::DatabaseConnection, raw_key: &[u8; 32]) -> AppResult<u64> {
    reseal(db, &format!("{PREFIX}%"), raw_key, |id, stored| {
        decrypt(raw_key, id, stored)
    })
    .await
}

/// Seals with `raw_key` every secret (current, and previous during a rotation's grace) whose
/// stored form is not `LIKE sealed_like`, read with `read`. A conditional update per row, so
/// concurrent runs (cores starting together, two operators, a rotation) do not undo each
/// other. Returns how many rows were re-sealed.
async fn reseal(
    db: &sea_orm::DatabaseConnection,
    sealed_like: &str,
    raw_key: &[u8; 32],
    read: impl Fn(Uuid, &str) -> AppResult<String>,
) -> AppResult<u64> {
    use sea_orm::sea_query::Expr;
    use sea_orm::{ColumnTrait, Condition, EntityTrait, QueryFilter};

    use crate::entities::webhooks;
    let stale = webhooks::Entity::find()
        .filter(
            Condition::any()
                .add(webhooks::Column::SecretCiphertext.not_like(sealed_like))
                .add(webhooks::Column::PreviousSecretCiphertext.not_like(sealed_like)),
        )
        .all(db)
        .await?;
    let matches = |stored: &str| {
        let prefix = sealed_like.trim_end_matches('%');
        stored.starts_with(prefix)
    };
    let mut resealed = 0;
    for row in stale {
        let mut update = webhooks::Entity::update_many()
            .filter(webhooks::Column::Id.eq(row.id))
            .filter(webhooks::Column::SecretCiphertext.eq(row.secret_ciphertext.clone()));
        if !matches(&row.secret_ciphertext) {
            let secret = read(row.id, &row.secret_ciphertext)?;
            update = update.col_expr(
                webhooks::Column::SecretCiphertext,
                Expr::value(encrypt(raw_key, row.id, &secret)?),
            );
        }
        match &row.previous_secret_ciphertext {
            Some(previous) if !matches(previous) => {
                let secret = read(row.id, previous)?;
                update = update
                    .col_expr(
                        webhooks::Column::PreviousSecretCiphertext,
                        Expr::value(encrypt(raw_key, row.id, &secret)?),
                    )
                    .filter(webhooks::Column::PreviousSecretCiphertext.eq(previous.clone()));
            }
            Some(previous) => {
                update =
                    update.filter(webhooks::Column::PreviousSecretCiphertext.eq(previous.clone()))
            }
            None => update = update.filter(webhooks::Column::PreviousSecretCiphertext.is_null()),
        }
        resealed += update.exec(db).await?.rows_affected;
    }
    Ok(resealed)
}

/// `t=<t>,v1=<hex HMAC-SHA256(secret, "<t>." + body)>`.
pub fn signature_header(secret: &str, t: i64, body: &[u8]) -> String {
    signature_header_all(&[secret], t, body)
}

/// `t=<t>` and one `v1=` per secret, in order (the new secret first during a rotation).
pub fn signature_header_all(secrets: &[&str], t: i64, body: &[u8]) -> String {
    let mut header = format!("t={t}");
    for secret in secrets {
        let mut mac = Hmac::<Sha256>::new_from_slice(secret.as_bytes()).expect("any key length");
        mac.update(t.to_string().as_bytes());
        mac.update(b".");
        mac.update(body);
        header.push_str(",v1=");
        header.push_str(&hex::encode(mac.finalize().into_bytes()));
    }
    header
}

/// The Standard Webhooks `webhook-signature`: `v1,<base64 HMAC-SHA256(key, "<id>.<t>.<body>")>`
/// per key, space-separated.
pub fn standard_signature(keys: &[&[u8]], id: &str, t: i64, body: &[u8]) -> String {
    keys.iter()
        .map(|key| {
            let mut mac = Hmac::<Sha256>::new_from_slice(key).expect("any key length");
            mac.update(id.as_bytes());
            mac.update(b".");
            mac.update(t.to_string().as_bytes());
            mac.update(b".");
            mac.update(body);
            format!("v1,{}", B64.encode(mac.finalize().into_bytes()))
        })
        .collect::<Vec<_>>()
        .join(" ")
}

/// What signs an endpoint's deliveries now: its secret and, during a rotation's grace, the one
/// it replaced, each with its form.
#[derive(Debug, Clone)]
pub struct Signer {
    /// (secret, standard form), the current one first.
    secrets: Vec<(String, bool)>,
}

impl Signer {
    /// The endpoint's signing secrets at `now_ms`, opened with `keys`.
    pub fn of(
        keys: &crate::secrets::Keys,
        webhook: &crate::entities::webhooks::Model,
        now_ms: i64,
    ) -> AppResult<Signer> {
        let mut secrets = vec![(
            open(keys, webhook.id, &webhook.secret_ciphertext)?,
            webhook.secret_standard,
        )];
        if let Some(previous) = &webhook.previous_secret_ciphertext
            && webhook.previous_secret_expires_at_ms > now_ms
        {
            secrets.push((
                open(keys, webhook.id, previous)?,
                webhook.previous_secret_standard,
            ));
        }
        Ok(Signer { secrets })
    }

    /// The signature headers of one attempt: `X-Service-Signature` with every secret, and when
    /// the current secret has the standard form the three Standard Webhooks headers, signed by
    /// the standard-form secrets only.
    pub fn headers(&self, delivery_id: &str, t: i64, body: &[u8]) -> Vec<(&'static str, String)> {
        let all: Vec<&str> = self.secrets.iter().map(|(s, _)| s.as_str()).collect();
        let mut headers = vec![("X-Service-Signature", signature_header_all(&all, t, body))];
        if self.secrets[0].1 {
            let keys: Vec<Vec<u8>> = self
                .secrets
                .iter()
                .filter(|(_, standard)| *standard)
                .filter_map(|(s, _)| standard_key(s))
                .collect();
            let keys: Vec<&[u8]> = keys.iter().map(Vec::as_slice).collect();
            headers.push(("webhook-id", delivery_id.to_string()));
            headers.push(("webhook-timestamp", t.to_string()));
            headers.push((
                "webhook-signature",
                standard_signature(&keys, delivery_id, t, body),
            ));
        }
        headers
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn secrets_round_trip_through_encryption_and_a_wrong_key_fails() {
        let endpoint = Uuid::new_v4();
        let secret = generate();
        assert!(secret.starts_with("whsec_"));
        let stored = encrypt(&[7u8; 32], endpoint, &secret).unwrap();
        assert!(!stored.contains(&secret));
        assert!(stored.starts_with(&format!("v2:{}:", key_id(&[7u8; 32]))));
        assert_eq!(decrypt(&[7u8; 32], endpoint, &stored).unwrap(), secret);
        assert!(decrypt(&[8u8; 32], endpoint, &stored).is_err());
        assert_ne!(
            encrypt(&[7u8; 32], endpoint, &secret).unwrap(),
            stored,
            "fresh nonce each time"
        );
    }

    #[test]
    fn a_sealed_secret_is_bound_to_its_endpoint_and_names_its_key() {
        let (a, b) = (Uuid::new_v4(), Uuid::new_v4());
        let stored = encrypt(&[7u8; 32], a, "whsec_x").unwrap();
        // Copied onto another endpoint's row, it does not open.
        assert!(decrypt(&[7u8; 32], b, &stored).is_err());
        // A changed key id does not open either.
        let forged = stored.replacen(&key_id(&[7u8; 32]), "00000000", 1);
        assert!(decrypt(&[7u8; 32], a, &forged).is_err());
    }

    #[test]
    fn the_first_format_is_still_read() {
        let key_bytes = [7u8; 32];
        let legacy = seal_first_format(&key_bytes, "whsec_old").unwrap();
        assert!(!is_current(&legacy));
        assert_eq!(
            decrypt(&key_bytes, Uuid::new_v4(), &legacy).unwrap(),
            "whsec_old"
        );
    }

    #[test]
    fn new_secrets_have_the_standard_form_and_caller_secrets_are_checked() {
        let secret = generate();
        assert_eq!(secret.len(), "whsec_".len() + 44);
        assert_eq!(standard_key(&secret).unwrap().len(), 32);
        assert!(parse_caller_secret(&secret).is_ok());
        let short = format!("whsec_{}", B64.encode([1u8; 23]));
        let long = format!("whsec_{}", B64.encode([1u8; 65]));
        let unpadded = format!("whsec_{}", B64.encode([1u8; 32]).trim_end_matches('='));
        let url_safe = format!("whsec_{}", B64.encode([0xfbu8; 30]).replace('+', "-"));
        for bad in [
            "".to_string(),
            "whsec_".to_string(),
            B64.encode([1u8; 32]),
            short,
            long,
            unpadded,
            url_safe,
            generate_legacy(),
            format!(" {secret}"),
        ] {
            let err = parse_caller_secret(&bad).unwrap_err();
            assert_eq!(err.code, proto::ErrorCode::InvalidRequest, "{bad:?}");
        }
        for n in [24, 64] {
            assert!(parse_caller_secret(&format!("whsec_{}", B64.encode(vec![9u8; n]))).is_ok());
        }
    }

    #[test]
    fn the_standard_signature_matches_the_specification_example() {
        // The example of the Standard Webhooks specification (and of its libraries' tests).
        let key = standard_key("whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw").unwrap();
        let body = br#"{"test": 2432232314}"#;
        assert_eq!(
            standard_signature(&[&key], "msg_p5jXN8AQM9LWM0D4loKWxJek", 1614265330, body),
            "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE="
        );
    }

    #[test]
    fn the_signature_is_hmac_sha256_over_t_dot_body() {
        // Computed independently: Python hmac.new(b"key", b"1.{}", hashlib.sha256).hexdigest().
        assert_eq!(
            signature_header("key", 1, b"{}"),
            "t=1,v1=1ba6b8171186efc613e8bcc0cbdab2748f24984d7c5a84faa2637afa0e40d224"
        );
    }
}
