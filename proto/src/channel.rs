//! How the gateway, the workers and the operator commands reach the core: `http://` in plain
//! gRPC (a private network), or `https://` with TLS, trusting the system's roots or one CA
//! certificate given as a PEM file (`CORE_TLS_CA`).

use std::path::Path;

use tonic::transport::{Certificate, ClientTlsConfig, Endpoint};

/// An endpoint for `core_url`, with TLS when it is `https://`.
///
/// Errors name the setting at fault: a malformed `CORE_URL`, an unreadable `CORE_TLS_CA`, or a
/// CA given for a plain `http://` URL (which would silently not be used).
pub fn endpoint(core_url: &str, tls_ca: Option<&Path>) -> Result<Endpoint, String> {
    let endpoint = Endpoint::from_shared(core_url.to_string())
        .map_err(|e| format!("CORE_URL {core_url}: {e}"))?;
    let https = core_url.starts_with("https://");
    if !https {
        if let Some(ca) = tls_ca {
            return Err(format!(
                "CORE_TLS_CA ({}) is set but CORE_URL {core_url} is not https://",
                ca.display()
            ));
        }
        return Ok(endpoint);
    }
    let mut tls = ClientTlsConfig::new().with_native_roots();
    if let Some(ca) = tls_ca {
        let pem = std::fs::read(ca).map_err(|e| format!("CORE_TLS_CA {}: {e}", ca.display()))?;
        tls = tls.ca_certificate(Certificate::from_pem(pem));
    }
    endpoint
        .tls_config(tls)
        .map_err(|e| format!("CORE_URL {core_url}: TLS: {e}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_ca_for_a_plain_url_and_a_missing_ca_file_are_refused_by_name() {
        let err =
            endpoint("http://core:50051", Some(Path::new("/nonexistent/ca.pem"))).unwrap_err();
        assert!(err.starts_with("CORE_TLS_CA"), "{err}");
        let err =
            endpoint("https://core:50051", Some(Path::new("/nonexistent/ca.pem"))).unwrap_err();
        assert!(err.starts_with("CORE_TLS_CA /nonexistent/ca.pem"), "{err}");
        let err = endpoint("not a url", None).unwrap_err();
        assert!(err.starts_with("CORE_URL"), "{err}");
        assert!(endpoint("http://core:50051", None).is_ok());
        assert!(endpoint("https://core:50051", None).is_ok());
    }
}
