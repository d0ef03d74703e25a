//! Who may use the server: the page it serves, and nobody else's. A web
//! site open in the same browser could otherwise have the browser make
//! requests here (to have engines play, to read the logs' games), or
//! reach it under a name of its own that resolves to this machine (DNS
//! rebinding). So a request is answered only when:
//!
//! - its `Host` is an IP address or `localhost`, with the server's port:
//!   a rebinding site's requests carry the site's own name;
//! - its `Origin`, if it has one, is `http://` and that same host;
//! - its `Sec-Fetch-Site`, if the browser sends one, is `same-origin` or
//!   `none` (typed in the address bar, a bookmark).

use std::net::IpAddr;

use crate::error::{ApiError, shorten};

/// Whether a request with these headers' values may be answered by the
/// server on `port`; why not.
pub fn allowed(
    host: Option<&str>,
    origin: Option<&str>,
    fetch_site: Option<&str>,
    port: u16,
) -> Result<(), ApiError> {
    let host = host.ok_or_else(|| ApiError::Refused("the request has no Host header".into()))?;
    if !is_own_host(host, port) {
        return Err(ApiError::Refused(format!(
            "Host '{}' is not this server's (an IP address or localhost, port {port})",
            shorten(host)
        )));
    }
    if let Some(origin) = origin
        && origin != format!("http://{host}")
    {
        return Err(ApiError::Refused(format!(
            "requests from the page at '{}' are refused: only this server's own page may use it",
            shorten(origin)
        )));
    }
    if let Some(site) = fetch_site
        && site != "same-origin"
        && site != "none"
    {
        return Err(ApiError::Refused(format!(
            "a {} request is refused: only this server's own page may use it",
            shorten(site)
        )));
    }
    Ok(())
}

/// Whether `host` (`name:port`) names this server: an IP address or
/// `localhost`, and `port`.
fn is_own_host(host: &str, port: u16) -> bool {
    let Some((name, p)) = host.rsplit_once(':') else {
        return false;
    };
    if p.parse::<u16>() != Ok(port) {
        return false;
    }
    let name = name
        .strip_prefix('[')
        .and_then(|n| n.strip_suffix(']'))
        .unwrap_or(name);
    name.eq_ignore_ascii_case("localhost") || name.parse::<IpAddr>().is_ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_the_server_s_own_page_is_answered() {
        let ok = |host, origin, site| allowed(host, origin, site, 8080).is_ok();
        assert!(ok(Some("127.0.0.1:8080"), None, None));
        assert!(ok(
            Some("localhost:8080"),
            Some("http://localhost:8080"),
            None
        ));
        assert!(ok(Some("[::1]:8080"), None, Some("same-origin")));
        assert!(ok(Some("192.168.1.5:8080"), None, Some("none")));
        // Rebinding: a name that is not ours, or another port.
        assert!(!ok(Some("evil.example:8080"), None, None));
        assert!(!ok(Some("127.0.0.1:9090"), None, None));
        assert!(!ok(Some("127.0.0.1"), None, None));
        assert!(!ok(None, None, None));
        // Another site's page.
        assert!(!ok(
            Some("127.0.0.1:8080"),
            Some("http://evil.example"),
            None
        ));
        assert!(!ok(Some("127.0.0.1:8080"), Some("null"), None));
        assert!(!ok(Some("127.0.0.1:8080"), None, Some("cross-site")));
        assert!(!ok(Some("127.0.0.1:8080"), None, Some("same-site")));
        let why = allowed(
            Some("127.0.0.1:8080"),
            Some("http://evil.example"),
            None,
            8080,
        );
        assert!(
            why.unwrap_err()
                .to_string()
                .contains("'http://evil.example'")
        );
    }
}
