//! The scanner: the byte spans of the destinations in one text, left to right, never overlapping.
//!
//! The text is bytes, not `str`, because a percent-decoded text need not be UTF-8; a byte that does
//! not start a character is skipped. Candidates start only at a word boundary (the start, after a
//! character that is not a letter, digit or `_`, or right after a `%XX` escape), and at each start the
//! kinds are tried in this order: a URL (`scheme://…`), a bracketed IPv6 literal, a bare IPv6
//! literal, an e-mail address, then a dotted name (IPv4 literal, host name, `localhost`). A dotted run
//! that is none of these is skipped whole, so `1.2.3.4.5` never yields `2.3.4.5`; only a URL scheme
//! ending such a run is still read (`访问https://…`). Every look-ahead that a failed match does not
//! skip is bounded, so the scan is linear in the text. Nothing here allocates.

use std::net::Ipv6Addr;
use std::ops::ControlFlow;

use super::host::{
    BareName, is_bare_host, is_dot, is_label_char, is_valid_label, is_word_char, label_is,
    name_fits, tld_kind,
};

/// Longest local part of an e-mail address, in bytes.
const MAX_LOCAL: usize = 64;
/// Longest URL scheme read, in bytes.
const MAX_SCHEME: usize = 32;
/// Longest IPv6 literal without its zone (`ffff:…:255.255.255.255` is 45 bytes).
const MAX_IPV6: usize = 45;

/// Calls `found(start, end)` for each destination in `text`, in order; stops when it breaks.
pub(super) fn scan(
    text: &[u8],
    found: &mut impl FnMut(usize, usize) -> ControlFlow<()>,
) -> ControlFlow<()> {
    let mut at = 0;
    while at < text.len() {
        let Some((c, width)) = char_at(text, at) else {
            at += 1;
            continue;
        };
        if could_start(c) && !in_escape(text, at) && at_boundary(text, at) {
            match match_at(text, at, c) {
                Step::Found(end) => {
                    found(at, end)?;
                    at = end.max(at + width);
                    continue;
                }
                Step::Skip(end) => {
                    // A URL's scheme written on to a word: `访问https://…`.
                    if let Some((start, url_end)) = url_after_run(text, at, end) {
                        found(start, url_end)?;
                        at = url_end;
                    } else {
                        at = end.max(at + width);
                    }
                    continue;
                }
                Step::Miss => {}
            }
        }
        at += width;
    }
    ControlFlow::Continue(())
}

/// What a start position holds.
enum Step {
    /// A destination ending here.
    Found(usize),
    /// A run that is no destination, ending here: resume after it.
    Skip(usize),
    /// Nothing: resume at the next character.
    Miss,
}

fn could_start(c: char) -> bool {
    is_word_char(c) || c == ':' || c == '['
}

fn match_at(text: &[u8], at: usize, c: char) -> Step {
    if c == '[' {
        return bracketed_ipv6(text, at).map_or(Step::Miss, Step::Found);
    }
    if c.is_ascii_alphabetic()
        && let Some(end) = url(text, at)
    {
        return Step::Found(end);
    }
    if (c.is_ascii_hexdigit() || c == ':')
        && let Some(end) = bare_ipv6(text, at)
    {
        return Step::Found(end);
    }
    if c == ':' {
        return Step::Miss;
    }
    if let Some(end) = email(text, at) {
        return Step::Found(end);
    }
    dotted(text, at)
}

// ---------------------------------------------------------------------------------------------
// Characters

/// The character at `at` and its width: `None` past the end or where the bytes are not UTF-8.
fn char_at(text: &[u8], at: usize) -> Option<(char, usize)> {
    let lead = *text.get(at)?;
    let width = match lead {
        0x00..=0x7F => return Some((char::from(lead), 1)),
        0xC0..=0xDF => 2,
        0xE0..=0xEF => 3,
        0xF0..=0xF7 => 4,
        _ => return None,
    };
    let bytes = text.get(at..at + width)?;
    let c = std::str::from_utf8(bytes).ok()?.chars().next()?;
    Some((c, width))
}

/// The character that ends at `at`, if the bytes before `at` end with one.
fn char_before(text: &[u8], at: usize) -> Option<char> {
    for back in 1..=4 {
        let start = at.checked_sub(back)?;
        let byte = *text.get(start)?;
        if byte & 0xC0 != 0x80 {
            return match char_at(text, start) {
                Some((c, width)) if start + width == at => Some(c),
                _ => None,
            };
        }
    }
    None
}

fn byte(text: &[u8], at: usize) -> Option<u8> {
    text.get(at).copied()
}

/// The end of the run of bytes from `from` that satisfy `keep`.
fn run(text: &[u8], from: usize, keep: impl Fn(u8) -> bool) -> usize {
    let len = text
        .get(from..)
        .map_or(0, |rest| rest.iter().take_while(|&&b| keep(b)).count());
    from + len
}

/// [`run`], or `None` when it is longer than `cap` bytes.
fn run_capped(text: &[u8], from: usize, cap: usize, keep: impl Fn(u8) -> bool) -> Option<usize> {
    let len = text.get(from..).map_or(0, |rest| {
        rest.iter().take(cap + 1).take_while(|&&b| keep(b)).count()
    });
    (len <= cap).then_some(from + len)
}

/// Whether a `%XX` escape starts at `at`.
pub(super) fn escape_at(text: &[u8], at: usize) -> bool {
    byte(text, at) == Some(b'%')
        && text.get(at + 1).is_some_and(u8::is_ascii_hexdigit)
        && text.get(at + 2).is_some_and(u8::is_ascii_hexdigit)
}

/// Whether `at` is one of the two hex digits of a `%XX` escape.
fn in_escape(text: &[u8], at: usize) -> bool {
    (1..=2).any(|back| {
        at.checked_sub(back)
            .is_some_and(|start| escape_at(text, start))
    })
}

fn at_boundary(text: &[u8], at: usize) -> bool {
    at == 0
        || at
            .checked_sub(3)
            .is_some_and(|start| escape_at(text, start))
        || char_before(text, at).is_none_or(|c| !is_word_char(c))
}

fn continues_word(text: &[u8], at: usize) -> bool {
    char_at(text, at).is_some_and(|(c, _)| is_word_char(c))
}

// ---------------------------------------------------------------------------------------------
// URLs

/// `scheme://…` up to whitespace, a quote, an angle bracket or an unbalanced `)` or `]`, without
/// trailing `.,;:!?` (or a full-width or ideographic full stop).
fn url(text: &[u8], at: usize) -> Option<usize> {
    let scheme_end = run_capped(text, at, MAX_SCHEME, |b| {
        b.is_ascii_alphanumeric() || matches!(b, b'+' | b'-' | b'.')
    })?;
    if scheme_end - at < 2 || text.get(scheme_end..scheme_end + 3) != Some(b"://".as_slice()) {
        return None;
    }
    let body = scheme_end + 3;
    let end = trim_end(text, body, url_end(text, body));
    (end > body).then_some(end)
}

/// A URL whose scheme ends the word run `start..end`, where the run began with other letters.
fn url_after_run(text: &[u8], start: usize, end: usize) -> Option<(usize, usize)> {
    if text.get(end..end + 3) != Some(b"://".as_slice()) {
        return None;
    }
    let mut scheme = end;
    while scheme > start
        && byte(text, scheme - 1).is_some_and(|b| b.is_ascii_alphanumeric() || b == b'-')
    {
        scheme -= 1;
    }
    while scheme < end && !byte(text, scheme).is_some_and(|b| b.is_ascii_alphabetic()) {
        scheme += 1;
    }
    url(text, scheme).map(|url_end| (scheme, url_end))
}

fn url_end(text: &[u8], from: usize) -> usize {
    let (mut parens, mut brackets) = (0usize, 0usize);
    let mut at = from;
    while let Some((c, width)) = char_at(text, at) {
        match c {
            '(' => parens += 1,
            '[' => brackets += 1,
            ')' if parens == 0 => break,
            ')' => parens -= 1,
            ']' if brackets == 0 => break,
            ']' => brackets -= 1,
            c if stops_url(c) => break,
            _ => {}
        }
        at += width;
    }
    at
}

fn stops_url(c: char) -> bool {
    c.is_whitespace()
        || c.is_control()
        || matches!(
            c,
            '"' | '\''
                | '<'
                | '>'
                | '`'
                | '{'
                | '}'
                | '|'
                | '\\'
                | '^'
                | '，'
                | '、'
                | '；'
                | '：'
                | '！'
                | '？'
                | '）'
                | '「'
                | '」'
                | '『'
                | '』'
                | '【'
                | '】'
                | '〈'
                | '〉'
                | '《'
                | '》'
        )
}

fn trim_end(text: &[u8], start: usize, mut end: usize) -> usize {
    while end > start {
        match char_before(text, end) {
            Some(c) if matches!(c, '.' | ',' | ';' | ':' | '!' | '?') || is_dot(c) => {
                end -= c.len_utf8();
            }
            _ => break,
        }
    }
    end
}

// ---------------------------------------------------------------------------------------------
// IP literals

fn is_ipv6_byte(b: u8) -> bool {
    b.is_ascii_hexdigit() || b == b':' || b == b'.'
}

fn is_ipv6(text: &[u8], from: usize, to: usize) -> bool {
    text.get(from..to)
        .and_then(|bytes| std::str::from_utf8(bytes).ok())
        .is_some_and(|addr| addr.parse::<Ipv6Addr>().is_ok())
}

/// `[v6]`, `[v6%zone]`, each with an optional `:port`.
fn bracketed_ipv6(text: &[u8], at: usize) -> Option<usize> {
    let inner = at + 1;
    let addr_end = run_capped(text, inner, MAX_IPV6, is_ipv6_byte)?;
    if !is_ipv6(text, inner, addr_end) {
        return None;
    }
    let close = zone_end(text, addr_end);
    if byte(text, close) != Some(b']') {
        return None;
    }
    let end = close + 1;
    Some(port_end(text, end).unwrap_or(end))
}

/// A bare IPv6 literal: at least two colons and a digit, optionally with a `%zone`.
fn bare_ipv6(text: &[u8], at: usize) -> Option<usize> {
    if matches!(char_before(text, at), Some(':' | '.')) {
        return None;
    }
    let run_end = run_capped(text, at, MAX_IPV6, is_ipv6_byte)?;
    let candidate = text.get(at..run_end)?;
    if candidate.iter().filter(|&&b| b == b':').count() < 2 {
        return None;
    }
    let mut end = run_end;
    while end > at && byte(text, end - 1) == Some(b'.') {
        end -= 1;
    }
    if !is_ipv6(text, at, end) {
        // A colon that ends a sentence: `fe80::1:`.
        let single_colon = byte(text, end.checked_sub(1)?) == Some(b':')
            && byte(text, end.checked_sub(2)?) != Some(b':');
        if !single_colon || !is_ipv6(text, at, end - 1) {
            return None;
        }
        end -= 1;
    }
    let has_digit = text.get(at..end)?.iter().any(u8::is_ascii_digit);
    if !has_digit || continues_word(text, end) {
        return None;
    }
    Some(zone_end(text, end))
}

/// After an address ending at `at`: the end of its `%zone`, or `at` when there is none.
fn zone_end(text: &[u8], at: usize) -> usize {
    if byte(text, at) != Some(b'%') {
        return at;
    }
    let mut end = run(text, at + 1, |b| {
        b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-' | b'.')
    });
    while end > at + 1 && byte(text, end - 1) == Some(b'.') {
        end -= 1;
    }
    if end > at + 1 { end } else { at }
}

/// After a name ending at `at`: the end of its `:port` (1 to 65535), if one follows.
fn port_end(text: &[u8], at: usize) -> Option<usize> {
    if byte(text, at) != Some(b':') {
        return None;
    }
    let digits_end = run(text, at + 1, |b| b.is_ascii_digit());
    let digits = text.get(at + 1..digits_end)?;
    if !(1..=5).contains(&digits.len()) || continues_word(text, digits_end) {
        return None;
    }
    let port = digits
        .iter()
        .fold(0u32, |n, d| n * 10 + u32::from(d - b'0'));
    (port <= 65535).then_some(digits_end)
}

// ---------------------------------------------------------------------------------------------
// Names

/// A run of labels joined by dots.
struct Name<'a> {
    end: usize,
    labels: usize,
    first: &'a str,
    tld: &'a str,
    /// Every label is a valid DNS label and the name is not too long.
    valid: bool,
    /// Every label is digits.
    numeric: bool,
    /// Every label is an IPv4 octet: 1 to 3 digits, at most 255.
    octets: bool,
}

/// The labels from `from`: each a run of label characters, joined by a dot that a label character
/// follows (so a sentence's final full stop is not part of the name).
fn read_name(text: &[u8], from: usize) -> Option<Name<'_>> {
    let mut name = Name {
        end: from,
        labels: 0,
        first: "",
        tld: "",
        valid: true,
        numeric: true,
        octets: true,
    };
    let mut chars = 0usize;
    let mut at = from;
    loop {
        let start = at;
        while let Some((c, width)) = char_at(text, at)
            && is_label_char(c)
        {
            at += width;
        }
        let label = std::str::from_utf8(text.get(start..at)?).ok()?;
        if label.is_empty() {
            return None;
        }
        name.labels += 1;
        if name.labels == 1 {
            name.first = label;
        }
        name.tld = label;
        name.valid &= is_valid_label(label);
        name.numeric &= label.bytes().all(|b| b.is_ascii_digit());
        name.octets &= is_octet(label);
        chars += label.chars().count();
        name.end = at;
        match char_at(text, at) {
            Some((dot, width))
                if is_dot(dot)
                    && char_at(text, at + width).is_some_and(|(c, _)| is_label_char(c)) =>
            {
                chars += 1;
                at += width;
            }
            _ => break,
        }
    }
    name.valid &= name_fits(chars);
    Some(name)
}

fn is_octet(label: &str) -> bool {
    (1..=3).contains(&label.len())
        && label.bytes().all(|b| b.is_ascii_digit())
        && label.parse::<u16>().is_ok_and(|n| n <= 255)
}

/// `local@domain`, the domain a host name with a real or special-use top-level domain, or
/// `localhost`.
fn email(text: &[u8], at: usize) -> Option<usize> {
    let mut local_end = at;
    while let Some((c, width)) = char_at(text, local_end)
        && (is_label_char(c) || c == '.' || c == '+')
    {
        local_end += width;
        if local_end - at > MAX_LOCAL {
            return None;
        }
    }
    if byte(text, local_end) != Some(b'@')
        || local_end == at
        || char_before(text, local_end) == Some('.')
    {
        return None;
    }
    let domain = read_name(text, local_end + 1)?;
    let is_domain = if domain.labels == 1 {
        label_is(domain.first, "localhost")
    } else {
        domain.valid && !domain.numeric && tld_kind(domain.tld).is_some()
    };
    is_domain.then_some(domain.end)
}

/// An IPv4 literal, a host name or `localhost`, each with an optional `:port`.
fn dotted(text: &[u8], at: usize) -> Step {
    let Some(name) = read_name(text, at) else {
        return Step::Miss;
    };
    let port = port_end(text, name.end);
    let end = port.unwrap_or(name.end);
    if name.labels == 4 && name.octets && char_before(text, at) != Some('.') {
        return Step::Found(end);
    }
    if name.numeric {
        return Step::Skip(name.end);
    }
    let host = if name.labels == 1 {
        label_is(name.first, "localhost")
    } else {
        name.valid
            && is_bare_host(BareName {
                first: name.first,
                tld: name.tld,
                labels: name.labels,
                port: port.is_some(),
                path: byte(text, end) == Some(b'/'),
            })
    };
    if host {
        Step::Found(end)
    } else {
        Step::Skip(name.end)
    }
}
