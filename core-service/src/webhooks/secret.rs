//! Webhook secrets: generated here, shown once, stored encrypted (AES-256-GCM with a key
//! derived from MASTER_KEY), and used as HMAC-SHA256 keys (the UTF-8 bytes of the secret).

use aws_lc_rs::aead::{AES_256_GCM, Aad, LessSafeKey, NONCE_LEN, Nonce, UnboundKey};
use base64::Engine as _;
use hmac::{Hmac, KeyInit, Mac};
use sha2::Sha256;

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

/// `base64(nonce || ciphertext || tag)`.
pub fn encrypt(raw_key: &[u8; 32], secret: &str) -> AppResult<String> {
    let mut nonce = [0u8; NONCE_LEN];
    rand::fill(&mut nonce);
    let mut sealed = secret.as_bytes().to_vec();
    key(raw_key)
        .seal_in_place_append_tag(
            Nonce::assume_unique_for_key(nonce),
            Aad::empty(),
            &mut sealed,
        )
        .map_err(|_| AppError::internal("encrypting a webhook secret"))?;
    let mut out = nonce.to_vec();
    out.extend_from_slice(&sealed);
    Ok(B64.encode(out))
}

pub fn decrypt(raw_key: &[u8; 32], stored: &str) -> AppResult<String> {
    let fail =
        || AppError::internal("a webhook secret could not be decrypted (MASTER_KEY changed?)");
    let bytes = B64.decode(stored).map_err(|_| fail())?;
    if bytes.len() < NONCE_LEN {
        return Err(fail());
    }
    let (nonce, sealed) = bytes.split_at(NONCE_LEN);
    let nonce = Nonce::try_assume_unique_for_key(nonce).map_err(|_| fail())?;
    let mut sealed = sealed.to_vec();
    let plain = key(raw_key)
        .open_in_place(nonce, Aad::empty(), &mut sealed)
        .map_err(|_| fail())?;
    String::from_utf8(plain.to_vec()).map_err(|_| fail())
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
        let secret = generate();
        assert!(secret.starts_with("whsec_"));
        let stored = encrypt(&[7u8; 32], &secret).unwrap();
        assert!(!stored.contains(&secret));
        assert_eq!(decrypt(&[7u8; 32], &stored).unwrap(), secret);
        assert!(decrypt(&[8u8; 32], &stored).is_err());
        assert_ne!(
            encrypt(&[7u8; 32], &secret).unwrap(),
            stored,
            "fresh nonce each time"
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
