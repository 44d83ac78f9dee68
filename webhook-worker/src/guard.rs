//! The SSRF guard: receivers are reached only at public addresses. The check runs on the
//! addresses DNS returned, at connect time (so a name that rebinds to a private address between
//! validation and delivery is still refused), and on IP-literal URLs before any connection.

use std::net::{IpAddr, SocketAddr};
use std::sync::Arc;

use proto::net::is_public_ip;
use reqwest::dns::{Addrs, Name, Resolve, Resolving};

/// The text of every refusal, so reports are recognisable.
pub const BLOCKED: &str = "blocked: not a public address";

/// The machine's resolver.
#[derive(Debug, Default)]
pub struct SystemResolver;

impl Resolve for SystemResolver {
    fn resolve(&self, name: Name) -> Resolving {
        Box::pin(async move {
            let addrs = tokio::net::lookup_host((name.as_str(), 0)).await?;
            let addrs: Addrs = Box::new(addrs.collect::<Vec<_>>().into_iter());
            Ok(addrs)
        })
    }
}

/// Wraps a resolver and drops every non-public address (unless private targets are allowed);
/// a name left with none fails.
pub struct GuardedResolver {
    inner: Arc<dyn Resolve>,
    allow_private: bool,
}

impl GuardedResolver {
    pub fn new(inner: Arc<dyn Resolve>, allow_private: bool) -> Self {
        GuardedResolver {
            inner,
            allow_private,
        }
    }
}

#[derive(Debug)]
struct Blocked(String);

impl std::fmt::Display for Blocked {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{BLOCKED} ({})", self.0)
    }
}

impl std::error::Error for Blocked {}

impl Resolve for GuardedResolver {
    fn resolve(&self, name: Name) -> Resolving {
        let host = name.as_str().to_string();
        let resolving = self.inner.resolve(name);
        let allow_private = self.allow_private;
        Box::pin(async move {
            let addrs: Vec<SocketAddr> = resolving.await?.collect();
            if allow_private {
                return Ok(Box::new(addrs.into_iter()) as Addrs);
            }
            let public: Vec<SocketAddr> =
                addrs.into_iter().filter(|a| is_public_ip(a.ip())).collect();
            if public.is_empty() {
                return Err(Box::new(Blocked(host)) as Box<dyn std::error::Error + Send + Sync>);
            }
            Ok(Box::new(public.into_iter()) as Addrs)
        })
    }
}

/// Refuses a URL whose host is a non-public IP literal (the resolver never sees those).
pub fn check_literal(url: &str) -> Result<(), String> {
    let parsed = url::Url::parse(url).map_err(|_| "invalid url".to_string())?;
    let ip: Option<IpAddr> = match parsed.host() {
        Some(url::Host::Ipv4(ip)) => Some(IpAddr::V4(ip)),
        Some(url::Host::Ipv6(ip)) => Some(IpAddr::V6(ip)),
        _ => None,
    };
    match ip {
        Some(ip) if !is_public_ip(ip) => Err(format!("{BLOCKED} ({ip})")),
        _ => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    struct Stub(Vec<IpAddr>);

    impl Resolve for Stub {
        fn resolve(&self, _: Name) -> Resolving {
            let addrs: Vec<SocketAddr> = self.0.iter().map(|ip| SocketAddr::new(*ip, 0)).collect();
            Box::pin(async move { Ok(Box::new(addrs.into_iter()) as Addrs) })
        }
    }

    async fn resolve(ips: &[&str], allow_private: bool) -> Result<Vec<IpAddr>, String> {
        let stub = Stub(ips.iter().map(|ip| ip.parse().unwrap()).collect());
        let guard = GuardedResolver::new(Arc::new(stub), allow_private);
        let name: Name = "hooks.example".parse().unwrap();
        guard
            .resolve(name)
            .await
            .map(|addrs| addrs.map(|a| a.ip()).collect())
            .map_err(|e| e.to_string())
    }

    #[tokio::test]
    async fn names_that_resolve_only_to_private_addresses_are_blocked() {
        for ip in [
            "127.0.0.1",
            "10.0.0.7",
            "169.254.169.254",
            "::1",
            "::ffff:192.168.0.1",
            "64:ff9b::a00:1",
            "2002:c0a8:1::1",
        ] {
            let err = resolve(&[ip], false).await.unwrap_err();
            assert!(err.contains(BLOCKED), "{ip}: {err}");
        }
    }

    #[tokio::test]
    async fn only_the_public_addresses_of_a_mixed_answer_are_used() {
        let ok = resolve(&["10.0.0.1", "93.184.216.34"], false)
            .await
            .unwrap();
        assert_eq!(ok, vec!["93.184.216.34".parse::<IpAddr>().unwrap()]);
    }

    #[tokio::test]
    async fn private_targets_pass_when_allowed() {
        assert_eq!(resolve(&["127.0.0.1"], true).await.unwrap().len(), 1);
    }

    #[test]
    fn ip_literal_urls_are_checked_before_connecting() {
        assert!(check_literal("https://127.0.0.1/x").is_err());
        assert!(check_literal("https://[::ffff:10.0.0.1]/x").is_err());
        assert!(check_literal("https://93.184.216.34/x").is_ok());
        assert!(check_literal("https://hooks.example/x").is_ok());
    }
}
