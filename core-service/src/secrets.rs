//! The core's keys: the access-token signing secret and the master key from which the OTP HMAC
//! key (and later the webhook-secret encryption key) are derived.
//!
//! When a key is not configured and the database is a SQLite file, it is generated once into
//! `<database>.secrets.json` beside the file (mode 0600) and reused; on PostgreSQL a missing key
//! stops the start, since a key kept in the same database would protect nothing.

use std::path::{Path, PathBuf};

use anyhow::{Context, bail};
use base64::Engine as _;
use hmac::{Hmac, KeyInit, Mac};
use serde::{Deserialize, Serialize};
use sha2::Sha256;

use crate::config::CoreConfig;
use crate::db::Backend;

/// The keys the core works with, all derived at start.
#[derive(Clone)]
pub struct Keys {
    pub jwt_secret: Vec<u8>,
    pub otp_hmac_key: [u8; 32],
    pub webhook_key: [u8; 32],
    /// JWT_SECRET_PREVIOUS: still verifies access tokens during a rotation.
    pub jwt_previous: Option<Vec<u8>>,
    /// Derived from MASTER_KEY_PREVIOUS: still opens webhook secrets until they are re-sealed.
    pub webhook_key_previous: Option<[u8; 32]>,
}

impl std::fmt::Debug for Keys {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Keys(..)")
    }
}

#[derive(Serialize, Deserialize)]
struct SecretsFile {
    jwt_secret: String,
    master_key: String,
}

const MIN_KEY_BYTES: usize = 32;

impl Keys {
    /// Loads the configured keys or, for a SQLite file database, the generated ones.
    pub fn load(config: &CoreConfig, backend: &Backend) -> anyhow::Result<Keys> {
        let (jwt, master) = match (&config.jwt_secret, &config.master_key) {
            (Some(jwt), Some(master)) => (jwt.clone(), master.clone()),
            (jwt, master) => match backend {
                Backend::Postgres => {
                    let missing: Vec<&str> = [
                        jwt.is_none().then_some("JWT_SECRET"),
                        master.is_none().then_some("MASTER_KEY"),
                    ]
                    .into_iter()
                    .flatten()
                    .collect();
                    bail!(
                        "{} must be set when DATABASE_URL is PostgreSQL (generate one with \
                         `openssl rand -hex 32`)",
                        missing.join(" and ")
                    );
                }
                Backend::Sqlite { file } => {
                    let stored = match file {
                        Some(path) => load_or_create(&secrets_path(path))?,
                        None => {
                            tracing::warn!("in-memory database: using throwaway keys");
                            generate()
                        }
                    };
                    (
                        jwt.clone().unwrap_or(stored.jwt_secret),
                        master.clone().unwrap_or(stored.master_key),
                    )
                }
            },
        };
        let mut keys = Keys::from_parts(&jwt, &master)?;
        keys.retiring(
            config.jwt_secret_previous.as_deref(),
            config.master_key_previous.as_deref(),
        )?;
        Ok(keys)
    }

    /// Adds the keys being retired (`JWT_SECRET_PREVIOUS`, `MASTER_KEY_PREVIOUS`).
    pub fn retiring(&mut self, jwt: Option<&str>, master: Option<&str>) -> anyhow::Result<()> {
        if let Some(jwt) = jwt.filter(|j| !j.is_empty()) {
            if jwt.len() < MIN_KEY_BYTES {
                bail!("JWT_SECRET_PREVIOUS must be at least {MIN_KEY_BYTES} bytes");
            }
            self.jwt_previous = Some(jwt.as_bytes().to_vec());
        }
        if let Some(master) = master.filter(|m| !m.is_empty()) {
            let master = decode_key(master).context("MASTER_KEY_PREVIOUS")?;
            self.webhook_key_previous = Some(derive(&master, b"webhook-secret-encryption-v1"));
        }
        Ok(())
    }

    /// The secret keys access tokens are verified with: the current one, then the retiring one.
    pub fn jwt_verifying(&self) -> impl Iterator<Item = &[u8]> {
        std::iter::once(self.jwt_secret.as_slice()).chain(self.jwt_previous.as_deref())
    }

    /// Builds the keys from a JWT secret (raw text, at least 32 bytes) and a master key (hex or
    /// base64 of at least 32 bytes).
    pub fn from_parts(jwt_secret: &str, master_key: &str) -> anyhow::Result<Keys> {
        if jwt_secret.len() < MIN_KEY_BYTES {
            bail!("JWT_SECRET must be at least {MIN_KEY_BYTES} bytes");
        }
        let master = decode_key(master_key).context("MASTER_KEY")?;
        Ok(Keys {
            jwt_secret: jwt_secret.as_bytes().to_vec(),
            otp_hmac_key: derive(&master, b"otp-code-hmac-v1"),
            webhook_key: derive(&master, b"webhook-secret-encryption-v1"),
            jwt_previous: None,
            webhook_key_previous: None,
        })
    }
}

fn derive(master: &[u8], label: &[u8]) -> [u8; 32] {
    let mut mac = Hmac::<Sha256>::new_from_slice(master).expect("HMAC takes any key length");
    mac.update(label);
    mac.finalize().into_bytes().into()
}

fn decode_key(text: &str) -> anyhow::Result<Vec<u8>> {
    let text = text.trim();
    let bytes = hex::decode(text)
        .ok()
        .or_else(|| base64::engine::general_purpose::STANDARD.decode(text).ok())
        .or_else(|| {
            base64::engine::general_purpose::URL_SAFE_NO_PAD
                .decode(text)
                .ok()
        })
        .context("must be hex or base64")?;
    if bytes.len() < MIN_KEY_BYTES {
        bail!(
            "must decode to at least {MIN_KEY_BYTES} bytes, got {}",
            bytes.len()
        );
    }
    Ok(bytes)
}

fn secrets_path(db_file: &Path) -> PathBuf {
    let mut name = db_file
        .file_name()
        .map(|n| n.to_os_string())
        .unwrap_or_default();
    name.push(".secrets.json");
    db_file.with_file_name(name)
}

fn generate() -> SecretsFile {
    let mut jwt = [0u8; 32];
    let mut master = [0u8; 32];
    rand::fill(&mut jwt);
    rand::fill(&mut master);
    SecretsFile {
        jwt_secret: hex::encode(jwt),
        master_key: hex::encode(master),
    }
}

fn load_or_create(path: &Path) -> anyhow::Result<SecretsFile> {
    if let Ok(text) = std::fs::read_to_string(path) {
        return serde_json::from_str(&text)
            .with_context(|| format!("reading generated keys from {}", path.display()));
    }
    let secrets = generate();
    let text = serde_json::to_string_pretty(&secrets)?;
    write_private(path, text.as_bytes())
        .with_context(|| format!("writing generated keys to {}", path.display()))?;
    tracing::warn!(path = %path.display(), "JWT_SECRET/MASTER_KEY not set: generated keys into this file");
    Ok(secrets)
}

#[cfg(unix)]
fn write_private(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    use std::io::Write;
    use std::os::unix::fs::OpenOptionsExt;
    let mut file = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(0o600)
        .open(path)?;
    file.write_all(bytes)
}

#[cfg(not(unix))]
fn write_private(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    std::fs::write(path, bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn master_key_accepts_hex_and_base64_of_32_bytes_and_refuses_short_ones() {
        let hex_key = "ab".repeat(32);
        assert!(Keys::from_parts(&"j".repeat(32), &hex_key).is_ok());
        let b64 = base64::engine::general_purpose::STANDARD.encode([7u8; 32]);
        assert!(Keys::from_parts(&"j".repeat(32), &b64).is_ok());
        assert!(Keys::from_parts(&"j".repeat(32), "abcd").is_err());
        assert!(Keys::from_parts("short", &hex_key).is_err());
    }

    #[test]
    fn postgres_without_keys_refuses_to_start_and_names_the_setting() {
        let mut config = crate::config::CoreConfig::for_database("postgres://u@h/db");
        config.jwt_secret = None;
        config.master_key = None;
        let err = Keys::load(&config, &Backend::Postgres)
            .unwrap_err()
            .to_string();
        assert!(err.contains("JWT_SECRET and MASTER_KEY"), "{err}");
        config.jwt_secret = Some("j".repeat(32));
        let err = Keys::load(&config, &Backend::Postgres)
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("MASTER_KEY") && !err.contains("JWT_SECRET"),
            "{err}"
        );
        config.master_key = Some("ab".repeat(32));
        assert!(Keys::load(&config, &Backend::Postgres).is_ok());
    }

    #[test]
    fn generated_keys_are_reused_and_private() {
        let dir = std::env::temp_dir().join(format!("keys-{}", uuid::Uuid::new_v4()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("core.db.secrets.json");
        let first = load_or_create(&path).unwrap();
        let second = load_or_create(&path).unwrap();
        assert_eq!(first.master_key, second.master_key);
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = std::fs::metadata(&path).unwrap().permissions().mode();
            assert_eq!(mode & 0o777, 0o600);
        }
        std::fs::remove_dir_all(dir).unwrap();
    }
}
