//! URLs with a special scheme written without `//`, read the way browsers read them.
//!
//! For the special schemes of the WHATWG URL standard (`http`, `https`, `ws`, `wss`, `ftp`, `file`),
//! a browser treats `\` as `/` and skips any run of slashes after the scheme, so `https:evil.com`,
//! `https:/evil.com`, `https:\\evil.com` and `http:\/\/evil.com` all name the host `evil.com`. Such
//! a text is handed to the WHATWG parser of the `url` crate, which decides whether it names a host.

use url::{Host, Url};

/// Whether `scheme` (without its `:`) is one of the WHATWG special schemes, in any case.
pub(super) fn is_special_scheme(scheme: &[u8]) -> bool {
    ["http", "https", "ws", "wss", "ftp", "file"]
        .iter()
        .any(|special| scheme.eq_ignore_ascii_case(special.as_bytes()))
}

/// Whether `text`, a special scheme, its `:` and what follows (its authority is enough), parses as
/// a URL naming a host: an IP address, `localhost`, or a name of two or more labels. A single-label
/// name (`https:intranet`) does not count without the `//` that would make it unmistakable, so that
/// prose such as `http:/https:` is not read as a URL.
pub(super) fn names_host(text: &str) -> bool {
    if !may_name_host(text) {
        return false;
    }
    let Ok(url) = Url::parse(text) else {
        return false;
    };
    match url.host() {
        Some(Host::Ipv4(_) | Host::Ipv6(_)) => true,
        Some(Host::Domain(domain)) => {
            domain == "localhost"
                || domain.split('.').filter(|label| !label.is_empty()).count() >= 2
        }
        None => false,
    }
}

/// Whether `text` has what such a host needs, so that text without it is not parsed: a dot, a digit
/// (an IP address may be one number), `[`, a `%XX` escape, a non-ASCII character, or `localhost`.
fn may_name_host(text: &str) -> bool {
    let bytes = text.as_bytes();
    bytes
        .iter()
        .any(|&b| matches!(b, b'.' | b'[' | b'%') || b.is_ascii_digit() || !b.is_ascii())
        || bytes
            .windows(9)
            .any(|window| window.eq_ignore_ascii_case(b"localhost"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hosts_browsers_find() {
        for text in [
            "https:evil.com",
            "HTTPS:evil.Com",
            "https:/evil.com",
            "https:\\evil.com",
            "https:\\\\evil.com",
            "http:\\/\\/evil.com/x",
            "ws:localhost:8080",
            "ftp:1.2.3.4",
            "http:[::1]",
            "file:\\\\evil.com\\share",
            "https:𝐞𝐯𝐢𝐥.𝐜𝐨𝐦",
        ] {
            assert!(names_host(text), "{text:?}");
        }
    }

    #[test]
    fn no_host() {
        for text in [
            "https:",
            "https:/",
            "http:/https:",
            "https:intranet",
            "file:main.rs",
            "file:/etc/passwd",
            "https:...",
            "https:evil.com:99999",
        ] {
            assert!(!names_host(text), "{text:?}");
        }
    }

    #[test]
    fn special_schemes() {
        assert!(is_special_scheme(b"HTTPS"));
        assert!(is_special_scheme(b"file"));
        assert!(!is_special_scheme(b"mailto"));
        assert!(!is_special_scheme(b"httpx"));
    }
}
