//! Webhook secrets: generated here, shown once, stored encrypted (AES-256-GCM with a key
//! derived from MASTER_KEY), and used as HMAC-SHA256 keys (the UTF-8 bytes of the secret).
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

/// A new secret: `whsec_` + 256 random bits.
pub fn generate() -> String {
    let mut bytes = [0u8; 32];
    rand::fill(&mut bytes);
    format!(
        "whsec_{}",
        base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(bytes)
    )
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

/// Seals with `raw_key` every secret whose stored form is not `LIKE sealed_like`, read with
/// `read`. A conditional update per row, so concurrent runs (cores starting together, two
/// operators) do not undo each other. Returns how many rows were re-sealed.
async fn reseal(
    db: &sea_orm::DatabaseConnection,
    sealed_like: &str,
    raw_key: &[u8; 32],
    read: impl Fn(Uuid, &str) -> AppResult<String>,
) -> AppResult<u64> {
    use sea_orm::sea_query::Expr;
    use sea_orm::{ColumnTrait, EntityTrait, QueryFilter};

    use crate::entities::webhooks;
    let stale = webhooks::Entity::find()
        .filter(webhooks::Column::SecretCiphertext.not_like(sealed_like))
        .all(db)
        .await?;
    let mut resealed = 0;
    for row in stale {
        let secret = read(row.id, &row.secret_ciphertext)?;
        let sealed = encrypt(raw_key, row.id, &secret)?;
        let result = webhooks::Entity::update_many()
            .col_expr(webhooks::Column::SecretCiphertext, Expr::value(sealed))
            .filter(webhooks::Column::Id.eq(row.id))
            .filter(webhooks::Column::SecretCiphertext.eq(row.secret_ciphertext.clone()))
            .exec(db)
            .await?;
        resealed += result.rows_affected;
    }
    Ok(resealed)
}

/// `t=<t>,v1=<hex HMAC-SHA256(secret, "<t>." + body)>`.
pub fn signature_header(secret: &str, t: i64, body: &[u8]) -> String {
    let mut mac = Hmac::<Sha256>::new_from_slice(secret.as_bytes()).expect("any key length");
    mac.update(t.to_string().as_bytes());
    mac.update(b".");
    mac.update(body);
    format!("t={t},v1={}", hex::encode(mac.finalize().into_bytes()))
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
    fn the_signature_is_hmac_sha256_over_t_dot_body() {
        // Computed independently: Python hmac.new(b"key", b"1.{}", hashlib.sha256).hexdigest().
        assert_eq!(
            signature_header("key", 1, b"{}"),
            "t=1,v1=1ba6b8171186efc613e8bcc0cbdab2748f24984d7c5a84faa2637afa0e40d224"
        );
    }
}
