//! Destination detection for step 4 of the tool check: the URLs, e-mail addresses, host names and IP
//! literals written anywhere in a call's arguments.
//!
//! Every string is read: values at any depth, in arrays and objects, and object keys, depth first in
//! document order. Each destination is reported once, as its text appears, in order of appearance.
//!
//! What counts as a destination:
//! - a URL of any scheme written `scheme://…` (scheme at least two characters), up to whitespace, a
//!   quote, `<`, `>`, `{`, `}`, `|`, `\`, `^`, a backtick, ideographic punctuation, or a `)` or `]`
//!   that closes nothing opened inside the URL; trailing `.,;:!?` (and full-width or ideographic full
//!   stops) are trimmed, and a `)` is kept only when it closes a `(` of the URL
//!   (`https://en.wikipedia.org/wiki/Rust_(language)`). After a special scheme (`http`, `https`,
//!   `ws`, `wss`, `ftp`, `file`), `\` belongs to the URL, and the `//` may be missing or written
//!   with backslashes, as browsers read it: `https:evil.com`, `https:/evil.com`, `https:\\evil.com`
//!   and `http:\/\/evil.com` are URLs when the WHATWG URL parser finds an IP address, `localhost` or
//!   a name of two or more labels in them. Other schemes without `//` (`mailto:`, `data:`, `tel:`)
//!   are not URLs: `mailto:bob@evil.com` yields the address `bob@evil.com`. A host inside a URL is
//!   not reported again;
//! - an e-mail address `local@domain` whose domain has a real or special-use top-level domain, or is
//!   `localhost`; its domain is not reported separately;
//! - an IPv4 literal: exactly four dotted octets 0–255, with an optional `:port` (`1.2.3` and
//!   `1.2.3.4.5` are not addresses; a four-part version number is indistinguishable and counts);
//! - an IPv6 literal: bracketed (`[::1]`, `[fe80::1%eth0]:8080`), or bare with at least two colons and
//!   a digit (`::1`, `2001:db8::1`, `fe80::1%eth0`), valid as an address;
//! - a host name: dotted labels ending in a top-level domain of the root zone (the ICANN section of
//!   the Public Suffix List, any case) or a special-use one (`.example`, `.internal`, `.invalid`,
//!   `.localhost`, `.onion`, `.test`), with an optional `:port`; and `localhost` alone. A bare name
//!   (no scheme or `@`) is weighed by its top-level domain so that file names (`main.rs`), field
//!   paths (`order.id`), identifiers (`Date.now`, `com.example.app`) and prose run together
//!   (`Hello.World`) are not hosts: the exact rule is on `host::is_bare_host`. Ports are part of what
//!   is reported, paths after a bare host are not; the `//` or `\\` before a scheme-relative or
//!   network-share name (`//evil.com`, `\\evil.com\share`) marks it as a host but is not reported.
//!
//! Names are read the way host-name processing reads them (UTS-46, `mapping`): mathematical,
//! circled and full-width letters and digits, capitals and squared abbreviations map to plain
//! lower-case ones, default-ignorable characters (zero-width space, soft hyphen, word joiner) inside
//! a name vanish, and the full-width `．`, ideographic `。` and half-width `｡` full stops separate
//! labels, as do the `․` and `﹒` of IDNA2003 (whose `⒈`…`⒛` are a number and a dot);
//! `𝐞𝐯𝐢𝐥.𝐜𝐨𝐦` is the host `evil.com`, reported as written.
//! Percent-encoded text is decoded (up to three times, for double encoding) and read again: a
//! destination found only in the decoded text is reported as the encoded text it came from
//! (`https%3A%2F%2Fevil.com`), and where the raw and decoded readings overlap, the one starting first
//! (then the longer) is kept.

mod host;
mod mapping;
mod scan;
mod whatwg;

use std::ops::ControlFlow;

use serde_json::Value;

/// Levels of percent-encoding undone.
const DECODE_LEVELS: usize = 3;

/// Nesting beyond which the walk over the arguments keeps its own stack instead of recursing.
const MAX_RECURSION: usize = 128;

/// The destinations written in `args`, each once, in order of appearance.
pub fn find_destinations(args: &Value) -> Vec<String> {
    let mut found = Vec::new();
    let _ = walk(args, 0, &mut |text| {
        collect(text, &mut found);
        ControlFlow::<()>::Continue(())
    });
    found
}

/// Whether `args` holds any destination; what [`find_destinations`] would find non-empty. A string
/// without a `.`, `:`, `@`, `%`, non-ASCII character or `localhost` is dismissed without scanning,
/// and no string is copied unless it holds a `%XX` escape or a name in non-ASCII characters.
pub fn has_destination(args: &Value) -> bool {
    walk(args, 0, &mut |text| {
        if text_has_destination(text) {
            ControlFlow::Break(())
        } else {
            ControlFlow::Continue(())
        }
    })
    .is_break()
}

/// [`find_destinations`] over a call's arguments, without building a value around them.
pub fn find_destinations_in(fields: &serde_json::Map<String, Value>) -> Vec<String> {
    let mut found = Vec::new();
    let _ = walk_fields(fields, 0, &mut |text| {
        collect(text, &mut found);
        ControlFlow::<()>::Continue(())
    });
    found
}

/// [`has_destination`] over a call's arguments, without building a value around them.
pub fn has_destination_in(fields: &serde_json::Map<String, Value>) -> bool {
    walk_fields(fields, 0, &mut |text| {
        if text_has_destination(text) {
            ControlFlow::Break(())
        } else {
            ControlFlow::Continue(())
        }
    })
    .is_break()
}

/// [`find_destinations_in`] over the arguments `skip` does not name (arguments declared to carry
/// a destination: `argument_kinds` `url` or `destination`).
pub fn find_destinations_in_except(
    fields: &serde_json::Map<String, Value>,
    skip: impl Fn(&str) -> bool,
) -> Vec<String> {
    let mut found = Vec::new();
    for (key, item) in fields.iter().filter(|(key, _)| !skip(key)) {
        let mut visit = |text: &str| {
            collect(text, &mut found);
            ControlFlow::<()>::Continue(())
        };
        let _ = visit(key);
        let _ = walk(item, 1, &mut visit);
    }
    found
}

/// [`has_destination_in`] over the arguments `skip` does not name.
pub fn has_destination_in_except(
    fields: &serde_json::Map<String, Value>,
    skip: impl Fn(&str) -> bool,
) -> bool {
    let mut visit = |text: &str| {
        if text_has_destination(text) {
            ControlFlow::Break(())
        } else {
            ControlFlow::Continue(())
        }
    };
    fields
        .iter()
        .filter(|(key, _)| !skip(key))
        .try_for_each(|(key, item)| {
            visit(key)?;
            walk(item, 1, &mut visit)
        })
        .is_break()
}

fn walk_fields(
    fields: &serde_json::Map<String, Value>,
    depth: usize,
    visit: &mut impl FnMut(&str) -> ControlFlow<()>,
) -> ControlFlow<()> {
    fields.iter().try_for_each(|(key, item)| {
        visit(key)?;
        walk(item, depth + 1, visit)
    })
}

/// Calls `visit` on every string of `value`, keys before their values, depth first.
fn walk(
    value: &Value,
    depth: usize,
    visit: &mut impl FnMut(&str) -> ControlFlow<()>,
) -> ControlFlow<()> {
    if depth >= MAX_RECURSION {
        return walk_deep(value, visit);
    }
    match value {
        Value::String(text) => visit(text),
        Value::Array(items) => items
            .iter()
            .try_for_each(|item| walk(item, depth + 1, visit)),
        Value::Object(fields) => walk_fields(fields, depth, visit),
        Value::Null | Value::Bool(_) | Value::Number(_) => ControlFlow::Continue(()),
    }
}

/// [`walk`] with a stack on the heap, for deeply nested values.
fn walk_deep(value: &Value, visit: &mut impl FnMut(&str) -> ControlFlow<()>) -> ControlFlow<()> {
    enum Item<'a> {
        Value(&'a Value),
        Key(&'a str),
    }
    let mut stack = vec![Item::Value(value)];
    while let Some(item) = stack.pop() {
        match item {
            Item::Key(key) => visit(key)?,
            Item::Value(Value::String(text)) => visit(text)?,
            Item::Value(Value::Array(items)) => stack.extend(items.iter().rev().map(Item::Value)),
            Item::Value(Value::Object(fields)) => {
                for (key, item) in fields.iter().rev() {
                    stack.push(Item::Value(item));
                    stack.push(Item::Key(key));
                }
            }
            Item::Value(_) => {}
        }
    }
    ControlFlow::Continue(())
}

/// Whether `text` could hold a destination at all. Every destination has a `.`, `:`, `@` or a `%XX`
/// escape, a dot form (`。`), or is `localhost`, which in look-alike characters (`ｌｏｃａｌｈｏｓｔ`)
/// needs a character that is neither ASCII nor of a script that never maps to ASCII. A `/` or `\`
/// alone makes none: `//evil.com` and `\\evil.com\share` have their dot.
fn may_hold_destination(text: &str) -> bool {
    let bytes = text.as_bytes();
    let mut ascii = true;
    for &b in bytes {
        if matches!(b, b'.' | b':' | b'@' | b'%') {
            return true;
        }
        ascii &= b.is_ascii();
    }
    bytes
        .windows(9)
        .any(|window| window.eq_ignore_ascii_case(b"localhost"))
        || (!ascii && text.chars().any(may_hide_destination))
}

/// Whether `c`, not ASCII, may make a destination without an ASCII `.`, `:`, `@` or `%`: a dot form,
/// or a character of a name that may map to `localhost`.
fn may_hide_destination(c: char) -> bool {
    !c.is_ascii()
        && !mapping::is_other_script(c)
        && (mapping::is_dot(c)
            || mapping::is_number_dot(c)
            || mapping::is_ignorable(c)
            || host::is_label_char(c))
}

fn has_escape(bytes: &[u8]) -> bool {
    (0..bytes.len()).any(|at| scan::escape_at(bytes, at))
}

fn text_has_destination(text: &str) -> bool {
    if !may_hold_destination(text) {
        return false;
    }
    let bytes = text.as_bytes();
    if scan::scan(bytes, &mut |_, _| ControlFlow::Break(())).is_break() {
        return true;
    }
    let mut found = false;
    each_decoding(bytes, |decoded, _| {
        found = scan::scan(decoded, &mut |_, _| ControlFlow::Break(())).is_break();
        if found {
            ControlFlow::Break(())
        } else {
            ControlFlow::Continue(())
        }
    });
    found
}

/// Adds the destinations of `text` to `found`, skipping those already there.
fn collect(text: &str, found: &mut Vec<String>) {
    if !may_hold_destination(text) {
        return;
    }
    let bytes = text.as_bytes();
    if !has_escape(bytes) {
        let _ = scan::scan(bytes, &mut |start, end| {
            push_span(text, start, end, found);
            ControlFlow::<()>::Continue(())
        });
        return;
    }
    let mut spans = Vec::new();
    let _ = scan::scan(bytes, &mut |start, end| {
        spans.push((start, end));
        ControlFlow::<()>::Continue(())
    });
    each_decoding(bytes, |decoded, origin| {
        let _ = scan::scan(decoded, &mut |start, end| {
            if let (Some(&start), Some(&end)) = (origin.get(start), origin.get(end)) {
                spans.push((start, end));
            }
            ControlFlow::<()>::Continue(())
        });
        ControlFlow::Continue(())
    });
    spans.sort_by(|a, b| a.0.cmp(&b.0).then(b.1.cmp(&a.1)));
    let mut covered = 0;
    for (start, end) in spans {
        if start >= covered && end > start {
            push_span(text, start, end, found);
            covered = end;
        }
    }
}

fn push_span(text: &str, start: usize, end: usize, found: &mut Vec<String>) {
    if let Some(destination) = text.get(start..end)
        && !found.iter().any(|known| known == destination)
    {
        found.push(destination.to_owned());
    }
}

/// Percent-decodes `text` up to [`DECODE_LEVELS`] times, while it holds `%XX` escapes, and calls
/// `visit` with each decoded text and, for each of its byte offsets (and its end), the offset in
/// `text` it came from.
fn each_decoding(text: &[u8], mut visit: impl FnMut(&[u8], &[usize]) -> ControlFlow<()>) {
    if !has_escape(text) {
        return;
    }
    let mut current = text.to_vec();
    let mut origin: Vec<usize> = (0..=text.len()).collect();
    for _ in 0..DECODE_LEVELS {
        if !has_escape(&current) {
            return;
        }
        let (decoded, decoded_origin) = percent_decode(&current, &origin);
        if visit(&decoded, &decoded_origin).is_break() {
            return;
        }
        current = decoded;
        origin = decoded_origin;
    }
}

/// Decodes every `%XX` escape of `text`; `origin` maps each offset of `text` (and its end) to the
/// original text, and the map returned does the same for the decoded bytes.
fn percent_decode(text: &[u8], origin: &[usize]) -> (Vec<u8>, Vec<usize>) {
    let mut decoded = Vec::with_capacity(text.len());
    let mut decoded_origin = Vec::with_capacity(text.len() + 1);
    let mut at = 0;
    while let Some(&byte) = text.get(at) {
        decoded_origin.push(origin.get(at).copied().unwrap_or(at));
        let escaped = scan::escape_at(text, at)
            .then(|| Some(hex(*text.get(at + 1)?)? << 4 | hex(*text.get(at + 2)?)?))
            .flatten();
        match escaped {
            Some(value) => {
                decoded.push(value);
                at += 3;
            }
            None => {
                decoded.push(byte);
                at += 1;
            }
        }
    }
    decoded_origin.push(origin.get(text.len()).copied().unwrap_or(text.len()));
    (decoded, decoded_origin)
}

fn hex(digit: u8) -> Option<u8> {
    char::from(digit)
        .to_digit(16)
        .and_then(|value| u8::try_from(value).ok())
}
