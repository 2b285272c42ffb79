//! Host names: which labels are names, which top-level domains are real, and when a bare
//! `name.tld` that no URL, `@` or path announces is a host rather than a file, a field or prose.
//!
//! Top-level domains come in tiers ([`TldKind`]). Country codes, the original generic domains and
//! internationalised ones are *strong*: `evil.io` is a host on its own. The newer generic domains
//! are mostly English words (`.email`, `.date`, `.app`, `.java`): a bare two-label name ending in one
//! is a host only with a sign that it is meant as one (see [`is_bare_host`]).

use std::cmp::Ordering;

use super::generated::TLDS;

/// How much a top-level domain says about the name it ends.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum TldKind {
    /// A special-use name (RFC 6761, RFC 7686, ICANN's `.internal`): never a real host, always a
    /// destination.
    Special,
    /// A country code, an original generic domain or an internationalised one.
    Strong,
    /// Any other top-level domain in the root zone.
    Weak,
}

/// Special-use top-level names, sorted.
const SPECIAL_USE: &[&str] = &[
    "example",
    "internal",
    "invalid",
    "localhost",
    "onion",
    "test",
];

/// The generic top-level domains that predate the 2012 expansion and read as domains, not words.
const LEGACY: &[&str] = &[
    "arpa", "biz", "com", "edu", "gov", "info", "int", "mil", "net", "org",
];

/// Top-level domains that are also common file extensions: `main.rs`, `setup.py`, `run.sh`,
/// `README.md`, `backup.zip`, `clip.mov`, `Safari.app`, `id_rsa.pub`, `main.tf`, `kernel.cu`.
const FILE_EXTENSIONS: &[&str] = &[
    "app", "cab", "cc", "cu", "fish", "gs", "java", "la", "md", "mk", "ml", "mo", "mov", "nc",
    "pl", "pm", "ps", "pub", "py", "rs", "sh", "so", "sv", "tf", "zip",
];

/// Top-level domains that are also common field names or short words, so that `order.id`,
/// `customer.email`, `user.name` or `Date.now` read as what they are.
const IDENTIFIER_WORDS: &[&str] = &[
    "am", "as", "at", "be", "by", "call", "city", "country", "data", "date", "day", "do", "email",
    "host", "id", "in", "is", "it", "link", "map", "me", "my", "name", "new", "no", "now", "one",
    "page", "phone", "play", "read", "run", "save", "search", "show", "style", "to", "today",
    "total",
];

/// First labels that mark a reverse domain name (`com.example.app`, `org.apache.commons`).
const REVERSE_DNS_FIRST: &[&str] = &["com", "net", "org"];

/// Longest label, in characters.
const MAX_LABEL: usize = 63;
/// Longest host name, in characters.
const MAX_NAME: usize = 253;

/// Whether `c` may appear in a label: letters, digits, `-`, `_`, and letters, digits and combining
/// marks of other scripts.
pub(super) fn is_label_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '-' || c == '_' || (!c.is_ascii() && is_unicode_word(c))
}

/// Whether `c` continues a word: a label character other than `-`.
pub(super) fn is_word_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_' || (!c.is_ascii() && is_unicode_word(c))
}

fn is_unicode_word(c: char) -> bool {
    c.is_alphanumeric()
        || matches!(c as u32,
            0x0300..=0x036F          // combining diacritical marks
            | 0x0900..=0x0963        // Indic scripts, without the dandas
            | 0x0966..=0x0DFF
            | 0x200C..=0x200D) // zero-width joiners, as in IDNA
}

/// Whether `c` separates labels: `.`, the full-width `．`, the ideographic `。` and the half-width
/// ideographic `｡`.
pub(super) fn is_dot(c: char) -> bool {
    matches!(c, '.' | '\u{FF0E}' | '\u{3002}' | '\u{FF61}')
}

/// Full-width ASCII forms as ASCII, then lower case.
fn fold(c: char) -> impl Iterator<Item = char> {
    let narrow = match u32::from(c) {
        code @ 0xFF01..=0xFF5E => char::from_u32(code - 0xFEE0).unwrap_or(c),
        _ => c,
    };
    narrow.to_lowercase()
}

fn folded(label: &str) -> impl Iterator<Item = char> + '_ {
    label.chars().flat_map(fold)
}

/// Compares a list entry with a label, ignoring case and full width.
fn cmp_entry(entry: &str, label: &str) -> Ordering {
    entry.chars().cmp(folded(label))
}

fn is_one_of(label: &str, words: &[&str]) -> bool {
    words
        .binary_search_by(|entry| cmp_entry(entry, label))
        .is_ok()
}

/// Whether `label` is `word`, ignoring case and full width.
pub(super) fn label_is(label: &str, word: &str) -> bool {
    cmp_entry(word, label) == Ordering::Equal
}

/// The tier of `label` as a top-level domain, or `None` when the root zone has no such name.
pub(super) fn tld_kind(label: &str) -> Option<TldKind> {
    if is_one_of(label, SPECIAL_USE) {
        return Some(TldKind::Special);
    }
    if !is_one_of(label, TLDS) {
        return None;
    }
    let two_letters = folded(label).take(3).count() == 2;
    let idn = !label.is_ascii() || folded(label).take(4).eq("xn--".chars());
    if two_letters || idn || is_one_of(label, LEGACY) {
        Some(TldKind::Strong)
    } else {
        Some(TldKind::Weak)
    }
}

/// Whether `label` is a valid DNS label: 1 to 63 characters, not starting or ending with `-`.
pub(super) fn is_valid_label(label: &str) -> bool {
    let count = label.chars().count();
    (1..=MAX_LABEL).contains(&count) && !label.starts_with('-') && !label.ends_with('-')
}

/// Whether a name of `chars` characters is short enough to be a host name.
pub(super) fn name_fits(chars: usize) -> bool {
    chars <= MAX_NAME
}

/// Written like a capitalised word (`Next`, `Com`): a sentence run together, `Done.Next`.
fn is_capitalised(label: &str) -> bool {
    let mut chars = label.chars();
    let Some(first) = chars.next() else {
        return false;
    };
    let mut rest = chars.peekable();
    first.is_ascii_uppercase() && rest.peek().is_some() && rest.all(|c| c.is_ascii_lowercase())
}

/// What is known about a bare dotted name (one no scheme or `@` introduces).
#[derive(Debug, Clone, Copy)]
pub(super) struct BareName<'a> {
    pub first: &'a str,
    pub tld: &'a str,
    pub labels: usize,
    /// Followed by `:port`.
    pub port: bool,
    /// Followed by `/`.
    pub path: bool,
}

/// Whether a bare dotted name whose labels are all valid is a host.
///
/// A name whose top-level domain is real or special-use is a host unless one of these says
/// otherwise, in this order:
/// 1. the first label is `www`, or a `/` follows: a host, whatever the rest says;
/// 2. the top-level domain is a common file extension (`main.rs`, `setup.py`, `a.b.zip`): not a host,
///    even with a `:number` after it (`main.rs:42` is a line number);
/// 3. a `:port` follows: a host;
/// 4. the top-level domain is written capitalised (`Done.Next`): not a host;
/// 5. the top-level domain is a common field name or short word (`order.id`, `user.email`): not a host;
/// 6. three or more labels starting with `com`, `net` or `org` (`com.example.app`): not a host;
/// 7. otherwise a special-use or strong top-level domain makes a host, and a weak one does with three
///    or more labels (`api.evil.dev`, but not `report.java` or `Date.now`).
pub(super) fn is_bare_host(name: BareName<'_>) -> bool {
    let Some(kind) = tld_kind(name.tld) else {
        return false;
    };
    if label_is(name.first, "www") || name.path {
        return true;
    }
    if is_one_of(name.tld, FILE_EXTENSIONS) {
        return false;
    }
    if name.port {
        return true;
    }
    if is_capitalised(name.tld) || is_one_of(name.tld, IDENTIFIER_WORDS) {
        return false;
    }
    if name.labels >= 3 && is_one_of(name.first, REVERSE_DNS_FIRST) {
        return false;
    }
    match kind {
        TldKind::Special | TldKind::Strong => true,
        TldKind::Weak => name.labels >= 3,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lists_are_sorted_for_binary_search() {
        for list in [
            SPECIAL_USE,
            LEGACY,
            FILE_EXTENSIONS,
            IDENTIFIER_WORDS,
            REVERSE_DNS_FIRST,
            TLDS,
        ] {
            assert!(list.windows(2).all(|w| w[0] < w[1]), "{list:?}");
        }
    }

    #[test]
    fn file_extensions_and_words_are_real_tlds() {
        for word in FILE_EXTENSIONS.iter().chain(IDENTIFIER_WORDS).chain(LEGACY) {
            assert!(TLDS.binary_search(word).is_ok(), "{word}");
        }
    }

    #[test]
    fn tiers() {
        assert_eq!(tld_kind("com"), Some(TldKind::Strong));
        assert_eq!(tld_kind("COM"), Some(TldKind::Strong));
        assert_eq!(tld_kind("ｃｏｍ"), Some(TldKind::Strong));
        assert_eq!(tld_kind("io"), Some(TldKind::Strong));
        assert_eq!(tld_kind("xn--p1ai"), Some(TldKind::Strong));
        assert_eq!(tld_kind("рф"), Some(TldKind::Strong));
        assert_eq!(tld_kind("РФ"), Some(TldKind::Strong));
        assert_eq!(tld_kind("shop"), Some(TldKind::Weak));
        assert_eq!(tld_kind("invalid"), Some(TldKind::Special));
        assert_eq!(tld_kind("pdf"), None);
        assert_eq!(tld_kind("00"), None);
        assert_eq!(tld_kind(""), None);
    }
}
