//! The `format` values step 3 asserts on strings: `date-time` and `date` (RFC 3339), `email`
//! (RFC 5321's mailbox: a dot-atom or quoted local part of at most 64 bytes, `@`, and a host name,
//! `[IPv4]` or `[IPv6:…]`), `uri` (RFC 3986, with a scheme) and `uuid` (RFC 4122's hyphenated
//! form, any version, either case). Each check reads the text once and allocates nothing.
//!
//! `date-time` takes `T` or `t` between date and time, `Z`, `z` or a `±hh:mm` offset, optional
//! fractional seconds, and a leap second (`:60`) only where it falls on 23:59 UTC; days are
//! checked against their month and leap years. A host name has labels of 1–63 letters, digits and
//! hyphens (not first or last), at most 253 bytes, and no final dot.

use std::net::{Ipv4Addr, Ipv6Addr};

use stalwart_record::StringFormat;

/// Whether `text` is in `format`.
pub fn matches(format: StringFormat, text: &str) -> bool {
    match format {
        StringFormat::DateTime => is_date_time(text),
        StringFormat::Date => is_date(text),
        StringFormat::Email => is_email(text),
        StringFormat::Uri => is_uri(text),
        StringFormat::Uuid => is_uuid(text),
    }
}

/// Two ASCII digits as a number.
fn two_digits(bytes: &[u8]) -> Option<u32> {
    match bytes {
        [a, b] if a.is_ascii_digit() && b.is_ascii_digit() => {
            Some(u32::from(a - b'0') * 10 + u32::from(b - b'0'))
        }
        _ => None,
    }
}

/// `full-date`: `YYYY-MM-DD`, a real day.
fn is_date(text: &str) -> bool {
    let bytes = text.as_bytes();
    let (Some(y), Some(dash1), Some(m), Some(dash2), Some(d)) = (
        bytes.get(0..4),
        bytes.get(4),
        bytes.get(5..7),
        bytes.get(7),
        bytes.get(8..10),
    ) else {
        return false;
    };
    if bytes.len() != 10 || *dash1 != b'-' || *dash2 != b'-' {
        return false;
    }
    let (Some(y1), Some(y2), Some(month), Some(day)) = (
        two_digits(y.get(0..2).unwrap_or(&[])),
        two_digits(y.get(2..4).unwrap_or(&[])),
        two_digits(m),
        two_digits(d),
    ) else {
        return false;
    };
    let year = y1 * 100 + y2;
    let leap = (year % 4 == 0 && year % 100 != 0) || year % 400 == 0;
    let last = match month {
        1 | 3 | 5 | 7 | 8 | 10 | 12 => 31,
        4 | 6 | 9 | 11 => 30,
        2 if leap => 29,
        2 => 28,
        _ => return false,
    };
    (1..=last).contains(&day)
}

/// `date-time`: a `full-date`, `T`, and a `full-time`.
fn is_date_time(text: &str) -> bool {
    match text.find(['T', 't']) {
        Some(at) => match (text.get(..at), text.get(at + 1..)) {
            (Some(date), Some(time)) => is_date(date) && is_time(time),
            _ => false,
        },
        None => false,
    }
}

/// `full-time`: `hh:mm:ss[.frac]` and an offset.
fn is_time(text: &str) -> bool {
    let bytes = text.as_bytes();
    let (Some(h), Some(m), Some(s)) = (
        bytes.get(0..2).and_then(two_digits),
        bytes.get(3..5).and_then(two_digits),
        bytes.get(6..8).and_then(two_digits),
    ) else {
        return false;
    };
    if bytes.get(2) != Some(&b':') || bytes.get(5) != Some(&b':') {
        return false;
    }
    if h > 23 || m > 59 || s > 60 {
        return false;
    }
    let mut at = 8;
    if bytes.get(at) == Some(&b'.') {
        at += 1;
        let start = at;
        while bytes.get(at).is_some_and(u8::is_ascii_digit) {
            at += 1;
        }
        if at == start {
            return false;
        }
    }
    let rest = bytes.get(at..).unwrap_or(&[]);
    // Minutes of the day in UTC, for the leap second.
    let local = (h * 60 + m) as i64;
    let utc = match rest {
        [b'Z' | b'z'] => local,
        [sign @ (b'+' | b'-'), oh1, oh2, b':', om1, om2] => {
            let (Some(oh), Some(om)) = (two_digits(&[*oh1, *oh2]), two_digits(&[*om1, *om2]))
            else {
                return false;
            };
            if oh > 23 || om > 59 {
                return false;
            }
            let offset = i64::from(oh * 60 + om);
            if *sign == b'+' {
                local - offset
            } else {
                local + offset
            }
        }
        _ => return false,
    };
    s != 60 || utc.rem_euclid(24 * 60) == 23 * 60 + 59
}

/// Characters of an unquoted (dot-atom) local part besides letters and digits.
const ATEXT: &[u8] = b"!#$%&'*+-/=?^_`{|}~";

/// `local@domain`.
fn is_email(text: &str) -> bool {
    let Some(at) = text.rfind('@') else {
        return false;
    };
    let (Some(local), Some(domain)) = (text.get(..at), text.get(at + 1..)) else {
        return false;
    };
    is_local_part(local) && is_mail_domain(domain)
}

fn is_local_part(local: &str) -> bool {
    if local.is_empty() || local.len() > 64 {
        return false;
    }
    let bytes = local.as_bytes();
    if let Some(inner) = local.strip_prefix('"').and_then(|l| l.strip_suffix('"')) {
        if local.len() < 2 {
            return false;
        }
        let mut escaped = false;
        for &b in inner.as_bytes() {
            if escaped {
                if !(b == b'\t' || (b' '..=b'~').contains(&b)) {
                    return false;
                }
                escaped = false;
            } else if b == b'\\' {
                escaped = true;
            } else if b == b'"' || !(b == b' ' || b == b'\t' || (b'!'..=b'~').contains(&b)) {
                return false;
            }
        }
        return !escaped;
    }
    let atom = |b: &u8| b.is_ascii_alphanumeric() || ATEXT.contains(b);
    bytes
        .split(|&b| b == b'.')
        .all(|part| !part.is_empty() && part.iter().all(atom))
}

fn is_mail_domain(domain: &str) -> bool {
    if let Some(literal) = domain.strip_prefix('[').and_then(|d| d.strip_suffix(']')) {
        return match literal.get(..5) {
            Some(tag) if tag.eq_ignore_ascii_case("IPv6:") => literal
                .get(5..)
                .is_some_and(|a| a.parse::<Ipv6Addr>().is_ok()),
            _ => literal.parse::<Ipv4Addr>().is_ok(),
        };
    }
    is_host_name(domain)
}

/// An RFC 1123 host name.
fn is_host_name(host: &str) -> bool {
    if host.is_empty() || host.len() > 253 || host.ends_with('.') {
        return false;
    }
    host.split('.').all(|label| {
        let bytes = label.as_bytes();
        !bytes.is_empty()
            && bytes.len() <= 63
            && bytes.first() != Some(&b'-')
            && bytes.last() != Some(&b'-')
            && bytes
                .iter()
                .all(|b| b.is_ascii_alphanumeric() || *b == b'-')
            && (bytes.get(2..4) != Some(b"--") || bytes.starts_with(b"xn--"))
    })
}

/// RFC 4122: `8-4-4-4-12` hexadecimal digits.
fn is_uuid(text: &str) -> bool {
    let bytes = text.as_bytes();
    bytes.len() == 36
        && bytes.iter().enumerate().all(|(i, b)| match i {
            8 | 13 | 18 | 23 => *b == b'-',
            _ => b.is_ascii_hexdigit(),
        })
}

/// `unreserved` and `sub-delims` (RFC 3986 §2.2–2.3).
fn is_unreserved_or_sub_delim(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b"-._~!$&'()*+,;=".contains(&b)
}

/// The end of a run of bytes that `allowed` accepts or that are `%XX` escapes, from `at`;
/// `None` on a broken escape.
fn scan(bytes: &[u8], mut at: usize, allowed: impl Fn(u8) -> bool) -> Option<usize> {
    while let Some(&b) = bytes.get(at) {
        if allowed(b) {
            at += 1;
        } else if b == b'%' {
            let hex = bytes.get(at + 1..at + 3)?;
            if !hex.iter().all(u8::is_ascii_hexdigit) {
                return None;
            }
            at += 3;
        } else {
            break;
        }
    }
    Some(at)
}

/// An absolute RFC 3986 URI: `scheme ":" hier-part [ "?" query ] [ "#" fragment ]`.
fn is_uri(text: &str) -> bool {
    let bytes = text.as_bytes();
    if !bytes.first().is_some_and(u8::is_ascii_alphabetic) {
        return false;
    }
    let Some(colon) = bytes
        .iter()
        .position(|&b| !(b.is_ascii_alphanumeric() || matches!(b, b'+' | b'-' | b'.')))
    else {
        return false;
    };
    if bytes.get(colon) != Some(&b':') {
        return false;
    }
    let mut at = colon + 1;
    if bytes.get(at..at + 2) == Some(b"//") {
        let start = at + 2;
        let end = bytes
            .iter()
            .skip(start)
            .position(|&b| matches!(b, b'/' | b'?' | b'#'))
            .map_or(bytes.len(), |p| start + p);
        if !is_authority(bytes.get(start..end).unwrap_or(&[])) {
            return false;
        }
        at = end;
    }
    let pchar = |b: u8| is_unreserved_or_sub_delim(b) || b == b':' || b == b'@';
    let Some(end) = scan(bytes, at, |b| pchar(b) || b == b'/') else {
        return false;
    };
    at = end;
    for mark in [b'?', b'#'] {
        if bytes.get(at) == Some(&mark) {
            let Some(end) = scan(bytes, at + 1, |b| pchar(b) || b == b'/' || b == b'?') else {
                return false;
            };
            at = end;
        }
    }
    at == bytes.len()
}

/// `[ userinfo "@" ] host [ ":" port ]`.
fn is_authority(bytes: &[u8]) -> bool {
    let (userinfo, host_port) = match bytes.iter().rposition(|&b| b == b'@') {
        Some(at) => (bytes.get(..at), bytes.get(at + 1..).unwrap_or(&[])),
        None => (None, bytes),
    };
    if let Some(userinfo) = userinfo
        && scan(userinfo, 0, |b| is_unreserved_or_sub_delim(b) || b == b':') != Some(userinfo.len())
    {
        return false;
    }
    let (host, port) = if host_port.first() == Some(&b'[') {
        let Some(close) = host_port.iter().position(|&b| b == b']') else {
            return false;
        };
        let literal = host_port.get(1..close).unwrap_or(&[]);
        if !is_ip_literal(literal) {
            return false;
        }
        (None, host_port.get(close + 1..).unwrap_or(&[]))
    } else {
        match host_port.iter().position(|&b| b == b':') {
            Some(at) => (host_port.get(..at), host_port.get(at..).unwrap_or(&[])),
            None => (Some(host_port), &[][..]),
        }
    };
    if let Some(host) = host
        && scan(host, 0, is_unreserved_or_sub_delim) != Some(host.len())
    {
        return false;
    }
    match port.split_first() {
        None => true,
        Some((b':', digits)) => digits.iter().all(u8::is_ascii_digit),
        Some(_) => false,
    }
}

/// `IPv6address` or `IPvFuture` inside brackets.
fn is_ip_literal(literal: &[u8]) -> bool {
    if let Some(rest) = literal
        .strip_prefix(b"v")
        .or_else(|| literal.strip_prefix(b"V"))
    {
        let Some(dot) = rest.iter().position(|&b| b == b'.') else {
            return false;
        };
        let (version, tail) = rest.split_at(dot);
        let tail = tail.get(1..).unwrap_or(&[]);
        return !version.is_empty()
            && version.iter().all(u8::is_ascii_hexdigit)
            && !tail.is_empty()
            && tail
                .iter()
                .all(|&b| is_unreserved_or_sub_delim(b) || b == b':');
    }
    std::str::from_utf8(literal).is_ok_and(|t| t.parse::<Ipv6Addr>().is_ok())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dates_are_real_days() {
        assert!(is_date("2024-02-29"));
        assert!(!is_date("2023-02-29"));
        assert!(is_date("2000-02-29"));
        assert!(!is_date("1900-02-29"));
        assert!(!is_date("2024-13-01"));
        assert!(!is_date("2024-04-31"));
        assert!(!is_date("2024-1-01"));
        assert!(!is_date("2024-01-01T"));
        assert!(!is_date("２024-01-01"));
    }

    #[test]
    fn date_times_need_an_offset_and_place_leap_seconds() {
        assert!(is_date_time("2024-05-01T12:30:00Z"));
        assert!(is_date_time("2024-05-01t12:30:00.125+02:00"));
        assert!(!is_date_time("2024-05-01T12:30:00"));
        assert!(!is_date_time("2024-05-01 12:30:00Z"));
        assert!(is_date_time("2016-12-31T23:59:60Z"));
        assert!(is_date_time("2016-12-31T15:59:60-08:00"));
        assert!(!is_date_time("2016-12-31T22:59:60Z"));
        assert!(!is_date_time("2024-05-01T24:00:00Z"));
        assert!(!is_date_time("2024-05-01T12:30:00.Z"));
    }

    #[test]
    fn emails_uuids_and_uris() {
        assert!(is_email("ana@example.com"));
        assert!(is_email("\"a b\"@example.com"));
        assert!(is_email("a@[127.0.0.1]"));
        assert!(is_email("a@[IPv6:::1]"));
        assert!(!is_email("a..b@example.com"));
        assert!(!is_email("@example.com"));
        assert!(!is_email("a@-example.com"));
        assert!(is_uuid("123e4567-e89b-12d3-a456-426614174000"));
        assert!(!is_uuid("123e4567e89b12d3a456426614174000"));
        assert!(is_uri("https://example.com/a?b#c"));
        assert!(is_uri("mailto:ana@example.com"));
        assert!(is_uri("urn:isbn:0451450523"));
        assert!(is_uri("http://[::1]:8080/"));
        assert!(!is_uri("//example.com/a"));
        assert!(!is_uri("https://exa mple.com"));
        assert!(!is_uri("https://example.com/%zz"));
    }
}
