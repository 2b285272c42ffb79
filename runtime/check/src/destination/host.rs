//! Host names: which labels are names, which top-level domains are real, and when a bare
//! `name.tld` that no URL, `@` or path announces is a host rather than a file, a field or prose.
//!
//! Top-level domains are those of the ICANN section of the Public Suffix List, as the `psl` crate
//! ships it, compared ignoring ASCII case; a name written in look-alike characters is first mapped
//! to plain text (`super::mapping`). They come in tiers ([`TldKind`]). Country codes, the original
//! generic domains and internationalised ones are *strong*: `evil.io` is a host on its own. The
//! newer generic domains are mostly English words (`.email`, `.date`, `.app`, `.java`): a bare
//! two-label name ending in one is a host only with a sign that it is meant as one (see
//! [`is_bare_host`]).

use std::cmp::Ordering;

use psl::{List, Psl, Type};

use super::mapping::{is_hyphen, is_mapped_symbol};

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

/// Ports below 1024 that are common enough as service ports to mark a name as a host even when
/// its top-level domain is a file extension (`evil.pl:443`); other small numbers after a file name
/// read as a line (`main.rs:42`).
const SERVICE_PORTS: &[u16] = &[21, 22, 23, 25, 53, 80, 110, 143, 443, 465, 587, 993, 995];

/// Longest label, in characters.
const MAX_LABEL: usize = 63;
/// Longest host name, in characters.
const MAX_NAME: usize = 253;
/// Longest top-level domain looked up, in bytes (the longest in the root zone, `சிங்கப்பூர்`, has 33).
const MAX_TLD: usize = 64;

/// Whether `c` may appear in a label: letters, digits, `-`, `_`, letters, digits and combining
/// marks of other scripts, and the symbols host-name processing maps to letters (`™`, `㏄`).
pub(super) fn is_label_char(c: char) -> bool {
    c.is_ascii_alphanumeric()
        || c == '-'
        || c == '_'
        || (!c.is_ascii() && (is_unicode_word(c) || is_mapped_symbol(c)))
}

/// Whether `c` continues a word: a label character other than a hyphen.
pub(super) fn is_word_char(c: char) -> bool {
    is_label_char(c) && !is_hyphen(c)
}

fn is_unicode_word(c: char) -> bool {
    is_common_letter(c)
        || c.is_alphanumeric()
        || matches!(c as u32,
            0x0300..=0x036F          // combining diacritical marks
            | 0x0900..=0x0963        // Indic scripts, without the dandas
            | 0x0966..=0x0DFF
            | 0x200C..=0x200D) // zero-width joiners, as in IDNA
}

/// Letters of the largest blocks, known without the general Unicode tables: CJK ideographs, Hangul
/// syllables, hiragana and katakana. Host-name processing leaves each of them as it is.
pub(super) fn is_common_letter(c: char) -> bool {
    matches!(
        u32::from(c),
        0x3041..=0x3096 | 0x30A1..=0x30FA | 0x3400..=0x4DBF | 0x4E00..=0x9FFF | 0xAC00..=0xD7A3
    )
}

/// Compares a list entry (lower-case ASCII) with a label, ignoring ASCII case.
fn cmp_entry(entry: &str, label: &str) -> Ordering {
    entry
        .bytes()
        .cmp(label.bytes().map(|b| b.to_ascii_lowercase()))
}

fn is_one_of(label: &str, words: &[&str]) -> bool {
    words
        .binary_search_by(|entry| cmp_entry(entry, label))
        .is_ok()
}

/// Whether `label` is `word` (lower-case ASCII), ignoring ASCII case.
pub(super) fn label_is(label: &str, word: &str) -> bool {
    label.eq_ignore_ascii_case(word)
}

/// Whether `label`, in lower case, is a top-level domain of the ICANN section of the Public Suffix
/// List. The lookup is for a name under it, so that a country listed only through a wildcard
/// (`*.ck`) counts as well.
fn in_root_zone(label: &[u8]) -> bool {
    let info = List.find([label, b"-".as_slice()].into_iter());
    info.typ == Some(Type::Icann)
}

/// The tier of `label` as a top-level domain, or `None` when the root zone has no such name.
/// `label` is plain text or what host-name processing made of it (`super::mapping`): any case.
pub(super) fn tld_kind(label: &str) -> Option<TldKind> {
    if is_one_of(label, SPECIAL_USE) {
        return Some(TldKind::Special);
    }
    let mut buffer = [0u8; MAX_TLD];
    let lower = buffer.get_mut(..label.len())?;
    for (to, from) in lower.iter_mut().zip(label.bytes()) {
        *to = from.to_ascii_lowercase();
    }
    if !in_root_zone(lower) {
        return None;
    }
    let two_letters = lower.len() == 2;
    let idn = !label.is_ascii() || lower.starts_with(b"xn--");
    if two_letters || idn || is_one_of(label, LEGACY) {
        Some(TldKind::Strong)
    } else {
        Some(TldKind::Weak)
    }
}

/// Whether `label` is a valid DNS label: 1 to 63 characters, not starting or ending with `-`, and
/// nothing host-name processing refused (U+FFFD).
pub(super) fn is_valid_label(label: &str) -> bool {
    let count = if label.is_ascii() {
        label.len()
    } else {
        label.chars().count()
    };
    (1..=MAX_LABEL).contains(&count)
        && !label.starts_with('-')
        && !label.ends_with('-')
        && !label.contains('\u{FFFD}')
}

/// Whether a name of `chars` characters is short enough to be a host name.
pub(super) fn name_fits(chars: usize) -> bool {
    chars <= MAX_NAME
}

/// A `:number` after a name.
#[derive(Debug, Clone, Copy)]
pub(super) struct Port {
    pub number: u16,
    /// Another `:` follows the number (`main.rs:42:5`, `main.rs:42:` as `grep -n` writes it).
    pub then_colon: bool,
}

impl Port {
    /// Whether the number reads as a position in a file rather than a port: a line and column, or a
    /// number below 1024 that is not a common service port.
    fn reads_as_position(self) -> bool {
        self.then_colon || (self.number < 1024 && !SERVICE_PORTS.contains(&self.number))
    }
}

/// What is known about a bare dotted name (one no scheme or `@` introduces). Its labels are plain
/// text or what host-name processing made of them.
#[derive(Debug, Clone, Copy)]
pub(super) struct BareName<'a> {
    pub first: &'a str,
    pub tld: &'a str,
    pub labels: usize,
    /// Some label is all digits (`backup.2024.zip`).
    pub numeric_label: bool,
    /// Followed by `:port`.
    pub port: Option<Port>,
    /// Followed by `/`.
    pub path: bool,
    /// Preceded by two slashes or backslashes, as a scheme-relative URL (`//evil.com`) or a network
    /// share (`\\evil.com\share`) is.
    pub slashes: bool,
    /// Preceded by a single `/` or `\`, as a file in a folder is (`src/main.rs`).
    pub in_folder: bool,
}

/// Whether a bare dotted name whose labels are all valid is a host.
///
/// A name whose top-level domain (any case) is real or special-use is a host unless one of these
/// says otherwise, in this order:
/// 1. the first label is `www`, two slashes or backslashes come before it (`//evil.pl`,
///    `\\evil.pl\share`), or a `/` follows it: a host, whatever the rest says;
/// 2. the top-level domain is a common file extension (`main.rs`, `setup.py`, `Main.Rs`): a host
///    only outside a folder path (not `src/a.b.rs`) and with a host sign: three or more labels none
///    of which is all digits (`exfil.attacker.pl`, `a.b.sh`, but not `backup.2024.zip` or the
///    reverse names of rule 5), or a port that does not read as a position in the file (`evil.pl:443`
///    and `evil.pl:8080`, but not `main.rs:42` or `main.rs:1532:7`);
/// 3. a `:port` follows: a host;
/// 4. the top-level domain is a common field name or short word (`order.id`, `user.email`): not a
///    host;
/// 5. three or more labels starting with `com`, `net` or `org` and ending in a weak top-level domain
///    (`com.example.app`): not a host;
/// 6. otherwise a special-use or strong top-level domain makes a host, and a weak one does with three
///    or more labels (`api.evil.dev`, but not `report.java` or `Date.now`).
pub(super) fn is_bare_host(name: BareName<'_>) -> bool {
    let Some(kind) = tld_kind(name.tld) else {
        return false;
    };
    if label_is(name.first, "www") || name.slashes || name.path {
        return true;
    }
    let reverse_name =
        name.labels >= 3 && kind == TldKind::Weak && is_one_of(name.first, REVERSE_DNS_FIRST);
    if is_one_of(name.tld, FILE_EXTENSIONS) {
        let many_labels = name.labels >= 3 && !name.numeric_label && !reverse_name;
        let port = name.port.is_some_and(|port| !port.reads_as_position());
        return !name.in_folder && (many_labels || port);
    }
    if name.port.is_some() {
        return true;
    }
    if is_one_of(name.tld, IDENTIFIER_WORDS) || reverse_name {
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
        ] {
            assert!(list.windows(2).all(|w| w[0] < w[1]), "{list:?}");
        }
        assert!(SERVICE_PORTS.windows(2).all(|w| w[0] < w[1]));
    }

    #[test]
    fn file_extensions_and_words_are_real_tlds() {
        for word in FILE_EXTENSIONS.iter().chain(IDENTIFIER_WORDS).chain(LEGACY) {
            assert!(in_root_zone(word.as_bytes()), "{word}");
        }
    }

    #[test]
    fn common_letters_are_alphabetic() {
        for c in (0..0x1_0000)
            .filter_map(char::from_u32)
            .filter(|&c| is_common_letter(c))
        {
            assert!(c.is_alphabetic(), "{:X}", u32::from(c));
        }
    }

    #[test]
    fn tiers() {
        assert_eq!(tld_kind("com"), Some(TldKind::Strong));
        assert_eq!(tld_kind("COM"), Some(TldKind::Strong));
        assert_eq!(tld_kind("Com"), Some(TldKind::Strong));
        assert_eq!(tld_kind("io"), Some(TldKind::Strong));
        assert_eq!(tld_kind("Io"), Some(TldKind::Strong));
        assert_eq!(tld_kind("ck"), Some(TldKind::Strong));
        assert_eq!(tld_kind("xn--p1ai"), Some(TldKind::Strong));
        assert_eq!(tld_kind("XN--P1AI"), Some(TldKind::Strong));
        assert_eq!(tld_kind("рф"), Some(TldKind::Strong));
        assert_eq!(tld_kind("中国"), Some(TldKind::Strong));
        assert_eq!(tld_kind("shop"), Some(TldKind::Weak));
        assert_eq!(tld_kind("SHOP"), Some(TldKind::Weak));
        assert_eq!(tld_kind("invalid"), Some(TldKind::Special));
        assert_eq!(tld_kind("Invalid"), Some(TldKind::Special));
        assert_eq!(tld_kind("pdf"), None);
        assert_eq!(tld_kind("kawasaki"), None);
        assert_eq!(tld_kind("00"), None);
        assert_eq!(tld_kind(""), None);
        assert_eq!(tld_kind(&"a".repeat(100)), None);
    }

    #[test]
    fn root_zone_holds_every_country_code_and_original_generic_domain() {
        for tld in ["ac", "ck", "er", "fk", "jm", "mm", "np", "pg", "uk", "zw"] {
            assert!(in_root_zone(tld.as_bytes()), "{tld}");
        }
        for tld in ["pdf", "json", "yaml", "txt", "exe", "js", "ts"] {
            assert!(!in_root_zone(tld.as_bytes()), "{tld}");
        }
    }
}
