//! The scanner: the byte spans of the destinations in one text, left to right, never overlapping.
//!
//! The text is bytes, not `str`, because a percent-decoded text need not be UTF-8; a byte that does
//! not start a character is skipped. Candidates start only at a word boundary (the start, after a
//! character that is not a letter, digit or `_`, or right after a `%XX` escape), and at each start the
//! kinds are tried in this order: a URL (`scheme://…`, or a special scheme without `//`), a bracketed
//! IPv6 literal, a bare IPv6 literal, an e-mail address, then a dotted name (IPv4 literal, host name,
//! `localhost`). A dotted run that is none of these is skipped whole, so `1.2.3.4.5` never yields
//! `2.3.4.5`; only a URL scheme ending such a run is still read (`访问https://…`). Every look-ahead
//! that a failed match does not skip is bounded, so the scan is linear in the text. Nothing here
//! allocates, except to map a name holding non-ASCII characters and to parse a URL written without
//! `//`.

use std::borrow::Cow;
use std::net::Ipv6Addr;
use std::ops::ControlFlow;

use super::host::{
    BareName, Port, is_bare_host, is_common_letter, is_label_char, is_valid_label, is_word_char,
    label_is, name_fits, tld_kind,
};
use super::mapping::{canonical_name, is_dot, is_ignorable, is_number_dot, may_map_to_localhost};
use super::whatwg;

/// Longest local part of an e-mail address, in bytes.
const MAX_LOCAL: usize = 64;
/// Longest URL scheme read, in bytes.
const MAX_SCHEME: usize = 32;
/// Most slashes or backslashes read after a special scheme written without `//`.
const MAX_SLASHES: usize = 16;
/// Longest authority (user, host and port) read in a URL written without `//`, in bytes.
const MAX_AUTHORITY: usize = 320;
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
    let (width, bits, least) = match lead {
        0x00..=0x7F => return Some((char::from(lead), 1)),
        0xC0..=0xDF => (2, lead & 0x1F, 0x80),
        0xE0..=0xEF => (3, lead & 0x0F, 0x800),
        0xF0..=0xF7 => (4, lead & 0x07, 0x1_0000),
        _ => return None,
    };
    let mut code = u32::from(bits);
    for &next in text.get(at + 1..at + width)? {
        if next & 0xC0 != 0x80 {
            return None;
        }
        code = code << 6 | u32::from(next & 0x3F);
    }
    // INVARIANT: what `str` accepts: no overlong form, no surrogate, nothing past U+10FFFF.
    if code < least {
        return None;
    }
    char::from_u32(code).map(|c| (c, width))
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
/// trailing `.,;:!?` (or a full-width or ideographic full stop); or a special scheme without `//`
/// that names a host as browsers read it (`https:evil.com`, `https:\\evil.com`). After a special
/// scheme, `\` is part of the URL, as browsers read it as `/`.
fn url(text: &[u8], at: usize) -> Option<usize> {
    let scheme_end = run_capped(text, at, MAX_SCHEME, |b| {
        b.is_ascii_alphanumeric() || matches!(b, b'+' | b'-' | b'.')
    })?;
    if scheme_end - at < 2 || byte(text, scheme_end) != Some(b':') {
        return None;
    }
    let special = whatwg::is_special_scheme(text.get(at..scheme_end)?);
    if text.get(scheme_end + 1..scheme_end + 3) == Some(b"//".as_slice()) {
        let body = scheme_end + 3;
        let end = trim_end(text, body, url_end(text, body, special), special);
        return (end > body).then_some(end);
    }
    if !special {
        return None;
    }
    let body = scheme_end + 1;
    let slashes_end = run_capped(text, body, MAX_SLASHES, |b| matches!(b, b'/' | b'\\'))?;
    let authority = std::str::from_utf8(text.get(at..authority_end(text, slashes_end)?)?).ok()?;
    if !whatwg::names_host(authority) {
        return None;
    }
    let end = trim_end(text, body, url_end(text, body, true), true);
    (end > body).then_some(end)
}

/// The end of the authority (user, host and port) of a URL written without `//`, from `from`: up to
/// its path, query or fragment, or where the URL stops. `None` past [`MAX_AUTHORITY`] bytes or a
/// third `:` outside brackets (one may end the user name, one start the port), so that a failed
/// match costs a short look-ahead, even in `https:https:https:…`.
fn authority_end(text: &[u8], from: usize) -> Option<usize> {
    let mut at = from;
    let (mut colons, mut in_brackets) = (0, false);
    while let Some(&b) = text.get(at) {
        let width = if b.is_ascii() {
            if matches!(b, b'/' | b'\\' | b'?' | b'#' | b')') || stops_url(char::from(b)) {
                break;
            }
            match b {
                b'[' => in_brackets = true,
                b']' => in_brackets = false,
                b':' if !in_brackets => {
                    colons += 1;
                    if colons > 2 {
                        return None;
                    }
                }
                _ => {}
            }
            1
        } else {
            match char_at(text, at) {
                Some((c, width)) if !stops_url(c) => width,
                _ => break,
            }
        };
        at += width;
        if at - from > MAX_AUTHORITY {
            return None;
        }
    }
    Some(at)
}

/// A URL whose scheme ends the word run `start..end`, where the run began with other letters.
fn url_after_run(text: &[u8], start: usize, end: usize) -> Option<(usize, usize)> {
    if byte(text, end) != Some(b':') {
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

/// The end of a URL's text from `from`: where it stops, or a `)` or `]` closes nothing opened in it.
/// `special` keeps `\` in it.
fn url_end(text: &[u8], from: usize, special: bool) -> usize {
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
            '\\' if special => {}
            c if stops_url(c) => break,
            _ => {}
        }
        at += width;
    }
    at
}

fn stops_url(c: char) -> bool {
    if c.is_ascii_alphanumeric() {
        return false;
    }
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

/// `end` moved back over trailing punctuation (and, after a special scheme, a trailing `\\`).
fn trim_end(text: &[u8], start: usize, mut end: usize, special: bool) -> usize {
    while end > start {
        match char_before(text, end) {
            Some(c)
                if matches!(c, '.' | ',' | ';' | ':' | '!' | '?')
                    || is_dot(c)
                    || (special && c == '\\') =>
            {
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

/// After a name ending at `at`: the end of its `:port` (0 to 65535), if one follows.
fn port_end(text: &[u8], at: usize) -> Option<usize> {
    port_at(text, at).map(|(end, _)| end)
}

/// After a name ending at `at`: the end of its `:port` and the port, if one follows.
fn port_at(text: &[u8], at: usize) -> Option<(usize, u16)> {
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
    Some((digits_end, u16::try_from(port).ok()?))
}

// ---------------------------------------------------------------------------------------------
// Names

/// The end of the name that starts at `from`, and whether it has more than one label (or a `⒈`…`⒛`,
/// which makes two): labels of label characters, ignorable ones anywhere inside, joined by a dot form
/// that a label follows, so that a sentence's final full stop is not part of the name. `None` when
/// no label starts at `from`.
fn name_end(text: &[u8], from: usize) -> Option<(usize, bool)> {
    let mut at = from;
    let mut end = None;
    let mut dotted = false;
    loop {
        let mut label_end = None;
        while let Some((c, width)) = char_at(text, at) {
            if is_label_char(c) {
                at += width;
                label_end = Some(at);
                dotted |= is_number_dot(c);
            } else if is_ignorable(c) {
                at += width;
            } else {
                break;
            }
        }
        let Some(label_end) = label_end else {
            return end;
        };
        dotted |= end.is_some();
        end = Some((label_end, dotted));
        match char_at(text, at) {
            Some((dot, width)) if is_dot(dot) && label_follows(text, at + width) => at += width,
            _ => return end,
        }
    }
}

/// Whether a label character comes at `at`, after any ignorable ones.
fn label_follows(text: &[u8], mut at: usize) -> bool {
    while let Some((c, width)) = char_at(text, at) {
        if is_label_char(c) {
            return true;
        }
        if !is_ignorable(c) {
            return false;
        }
        at += width;
    }
    false
}

/// The labels of a name as host-name processing reads it.
struct Name<'a> {
    labels: usize,
    first: &'a str,
    tld: &'a str,
    /// Every label is a valid DNS label and the name is not too long.
    valid: bool,
    /// Every label is digits.
    numeric: bool,
    /// Some label is digits.
    numeric_label: bool,
    /// Every label is an IPv4 octet: 1 to 3 digits, at most 255.
    octets: bool,
}

/// The name written at `start..end`, mapped by host-name processing (`canonical` holds the mapped
/// text), then split into labels. `None` when the bytes are not UTF-8, or when the name is not
/// ASCII and its last label, written in characters that map to themselves, is plainly no top-level
/// domain (a sentence run together with an ideographic full stop): then it is no host, and not
/// worth mapping.
fn read_name<'a>(
    canonical: &'a mut String,
    text: &'a [u8],
    start: usize,
    end: usize,
) -> Option<Name<'a>> {
    let written = std::str::from_utf8(text.get(start..end)?).ok()?;
    if !written.is_ascii() && plainly_no_tld(written) {
        return None;
    }
    let name = match canonical_name(written) {
        Cow::Borrowed(name) => name,
        Cow::Owned(mapped) => {
            *canonical = mapped;
            canonical.as_str()
        }
    };
    let mut labels = Name {
        labels: 0,
        first: "",
        tld: "",
        valid: name_fits(char_count(name)),
        numeric: true,
        numeric_label: false,
        octets: true,
    };
    for label in name.split('.') {
        labels.labels += 1;
        if labels.labels == 1 {
            labels.first = label;
        }
        labels.tld = label;
        labels.valid &= is_valid_label(label);
        let digits = !label.is_empty() && label.bytes().all(|b| b.is_ascii_digit());
        labels.numeric &= digits;
        labels.numeric_label |= digits;
        labels.octets &= is_octet(label);
    }
    Some(labels)
}

/// Whether the last label of `name` is written only in characters that host-name processing leaves
/// as they are (but for ASCII case), is not all digits (an IPv4 literal's last label) and is no
/// top-level domain.
fn plainly_no_tld(name: &str) -> bool {
    let last = name.rsplit(is_dot).next().unwrap_or(name);
    last.chars()
        .all(|c| c.is_ascii_alphanumeric() || c == '-' || is_common_letter(c))
        && !last.bytes().all(|b| b.is_ascii_digit())
        && tld_kind(last).is_none()
}

/// The characters in `text`, counted without decoding when it is ASCII.
fn char_count(text: &str) -> usize {
    if text.is_ascii() {
        text.len()
    } else {
        text.chars().count()
    }
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
    let domain_start = local_end + 1;
    let (domain_end, dotted) = name_end(text, domain_start)?;
    let is_domain = if dotted {
        let mut canonical = String::new();
        let domain = read_name(&mut canonical, text, domain_start, domain_end)?;
        domain.valid && !domain.numeric && tld_kind(domain.tld).is_some()
    } else {
        is_localhost(text, domain_start, domain_end)
    };
    is_domain.then_some(domain_end)
}

fn is_separator(b: u8) -> bool {
    matches!(b, b'/' | b'\\')
}

/// Whether two slashes or backslashes come right before `at`, at the start of the text or after a
/// character that is neither a word character, a separator nor a `:` (`src//main.rs` and
/// `C:\\main.rs` are paths).
fn after_slashes(text: &[u8], at: usize) -> bool {
    let Some(first) = at.checked_sub(2) else {
        return false;
    };
    byte(text, first).is_some_and(is_separator)
        && byte(text, first + 1).is_some_and(is_separator)
        && (first == 0
            || char_before(text, first)
                .is_none_or(|c| !is_word_char(c) && !matches!(c, '/' | '\\' | ':')))
}

/// Whether the single label written at `start..end` is `localhost`, in any of its look-alike forms.
fn is_localhost(text: &[u8], start: usize, end: usize) -> bool {
    let Some(written) = text.get(start..end) else {
        return false;
    };
    if written.is_ascii() {
        return written.eq_ignore_ascii_case(b"localhost");
    }
    let Ok(written) = std::str::from_utf8(written) else {
        return false;
    };
    may_map_to_localhost(written) && canonical_name(written) == "localhost"
}

/// An IPv4 literal, a host name or `localhost`, each with an optional `:port`.
fn dotted(text: &[u8], at: usize) -> Step {
    let Some((name_end, dotted)) = name_end(text, at) else {
        return Step::Miss;
    };
    if !dotted {
        return if is_localhost(text, at, name_end) {
            Step::Found(port_end(text, name_end).unwrap_or(name_end))
        } else {
            Step::Skip(name_end)
        };
    }
    let mut canonical = String::new();
    let Some(name) = read_name(&mut canonical, text, at, name_end) else {
        return Step::Skip(name_end);
    };
    let port = port_at(text, name_end);
    let end = port.map_or(name_end, |(end, _)| end);
    if name.labels == 4 && name.octets && char_before(text, at) != Some('.') {
        return Step::Found(end);
    }
    if name.numeric {
        return Step::Skip(name_end);
    }
    let host = if name.labels == 1 {
        label_is(name.first, "localhost")
    } else {
        let slashes = after_slashes(text, at);
        name.valid
            && is_bare_host(BareName {
                first: name.first,
                tld: name.tld,
                labels: name.labels,
                numeric_label: name.numeric_label,
                port: port.map(|(end, number)| Port {
                    number,
                    then_colon: byte(text, end) == Some(b':'),
                }),
                path: byte(text, end) == Some(b'/'),
                slashes,
                in_folder: !slashes
                    && at
                        .checked_sub(1)
                        .and_then(|before| byte(text, before))
                        .is_some_and(is_separator),
            })
    };
    if host {
        Step::Found(end)
    } else {
        Step::Skip(name_end)
    }
}
