//! Host names written with look-alike characters, read the way host-name processing reads them.
//!
//! Before a name is looked up, UTS-46 (the mapping browsers apply through the WHATWG URL standard)
//! folds mathematical (`𝐞`), circled (`ⓔ`), full-width (`ｅ`) and other compatibility forms of
//! letters and digits to plain ones, expands squared abbreviations (`㏄` is `cc`), lowers capitals,
//! drops default-ignorable characters (zero-width space, soft hyphen, word joiner, variation
//! selectors) and reads the ideographic `。`, full-width `．` and half-width `｡` full stops as dots.
//! The older IDNA2003 processing, still behind Python's `idna` codec, also reads the one dot leader
//! `․` and the small full stop `﹒` as dots and `⒈`…`⒛` as a number and a dot, so those count too.
//!
//! The scanner asks the predicates here where a name written that way ends, without mapping
//! anything; [`canonical_name`] then maps that one name with the `idna` crate, so that its labels can
//! be judged as plain text. The unit tests hold the predicates to the `idna` crate's own tables.

use std::borrow::Cow;

use idna::uts46::{AsciiDenyList, Hyphens, Uts46};

/// Whether `c` vanishes from a name: what UTS-46 ignores (soft hyphen, zero-width space, word joiner,
/// invisible operators, variation selectors, Hangul fillers, …), and the zero-width non-joiner and
/// joiner, which UTS-46 keeps only between letters of the scripts that need them and which are
/// removed here so that one inserted into a Latin name does not hide it.
pub(super) fn is_ignorable(c: char) -> bool {
    matches!(
        u32::from(c),
        0x00AD
            | 0x034F
            | 0x115F..=0x1160
            | 0x17B4..=0x17B5
            | 0x180B..=0x180F
            | 0x200B..=0x200D
            | 0x2060..=0x2064
            | 0x206A..=0x206F
            | 0x3164
            | 0xFE00..=0xFE0F
            | 0xFEFF
            | 0xFFA0
            | 0x1BCA0..=0x1BCA3
            | 0x1D173..=0x1D17A
            | 0xE0100..=0xE01EF
    )
}

/// Whether `c` separates labels: `.`, the full stops UTS-46 maps to it (`。`, `．`, `｡`), and those
/// IDNA2003 maps to it as well (the one dot leader `․` and the small full stop `﹒`).
pub(super) fn is_dot(c: char) -> bool {
    matches!(
        c,
        '.' | '\u{3002}' | '\u{FF0E}' | '\u{FF61}' | '\u{2024}' | '\u{FE52}'
    )
}

/// Whether `c` is one of `⒈`…`⒛`, which IDNA2003 reads as a number and a dot.
pub(super) fn is_number_dot(c: char) -> bool {
    matches!(c, '\u{2488}'..='\u{249B}')
}

/// Whether `c` is a symbol, neither letter nor digit, that UTS-46 maps to letters, digits, `-` or
/// `_`: `™` is `tm`, `㏄` is `cc`, `🅪` is `mc`, `₨` is `rs`, `－` is `-`, `⼀` is `一`.
pub(super) fn is_mapped_symbol(c: char) -> bool {
    matches!(
        u32::from(c),
        0x0558
            | 0x058B..=0x058C
            | 0x209D..=0x209F
            | 0x20A8
            | 0x2116
            | 0x2120..=0x2122
            | 0x213B
            | 0x2E9F
            | 0x2EF3
            | 0x2F00..=0x2FD5
            | 0x3196..=0x319F
            | 0x3244..=0x3247
            | 0x3250
            | 0x3260..=0x327E
            | 0x328A..=0x32B0
            | 0x32C0..=0x33A6
            | 0x33A9..=0x33AD
            | 0x33B0..=0x33C1
            | 0x33C3..=0x33C5
            | 0x33C8..=0x33D7
            | 0x33D9..=0x33DD
            | 0x33E0..=0x33FF
            | 0xA7DD
            | 0xA7E2
            | 0xAB6C..=0xAB6D
            | 0xFDFC
            | 0xFE33..=0xFE34
            | 0xFE4D..=0xFE4F
            | 0xFE63
            | 0xFF0D
            | 0xFF3F
            | 0x107BB..=0x107BF
            | 0x1B123..=0x1B126
            | 0x1CCD6..=0x1CCEF
            | 0x1D6A6
            | 0x1DF95
            | 0x1DFD0..=0x1DFD6
            | 0x1DFD9..=0x1DFDA
            | 0x1DFDC..=0x1DFDF
            | 0x1DFE1..=0x1DFE3
            | 0x1DFE5..=0x1DFFF
            | 0x1F12B..=0x1F12E
            | 0x1F14A..=0x1F14F
            | 0x1F16A..=0x1F16C
            | 0x1F190
            | 0x1F200..=0x1F202
            | 0x1F210..=0x1F23B
            | 0x1F250..=0x1F251
    )
}

/// Whether `c` maps to a hyphen, so that it joins words rather than continuing one.
pub(super) fn is_hyphen(c: char) -> bool {
    matches!(c, '-' | '\u{FE63}' | '\u{FF0D}')
}

/// Whether the single label `label` could map to `localhost`: at most nine characters that do not
/// vanish, its ASCII letters all among those of `localhost`, and none of its characters from a
/// script that never maps to ASCII. A cheap test that spares mapping every word of non-ASCII prose.
pub(super) fn may_map_to_localhost(label: &str) -> bool {
    let mut count = 0;
    for c in label.chars().filter(|&c| !is_ignorable(c)) {
        count += 1;
        let fits = if c.is_ascii() {
            b"localhostLOCALHOST".contains(&(c as u8))
        } else {
            !is_other_script(c)
        };
        if count > 9 || !fits {
            return false;
        }
    }
    count > 0
}

/// Whether `c` is a letter or mark of a script whose characters UTS-46 never maps to ASCII: the
/// Latin-1 letters with diacritics, Greek, Cyrillic, Hebrew, Arabic, the Indic scripts, Thai, Lao,
/// kana, CJK ideographs and Hangul syllables.
pub(super) fn is_other_script(c: char) -> bool {
    matches!(
        u32::from(c),
        0x00C0..=0x00FF
            | 0x0370..=0x052F
            | 0x0590..=0x06FF
            | 0x0900..=0x0EFF
            | 0x3040..=0x30FF
            | 0x3400..=0x4DBF
            | 0x4E00..=0x9FFF
            | 0xAC00..=0xD7A3
    )
}

/// `name` as host-name processing reads it: lower case, compatibility forms folded, ignorable
/// characters removed and every dot form a `.`. An ASCII name is returned as written, for its labels
/// are compared ignoring ASCII case. A label that UTS-46 refuses comes back holding U+FFFD.
pub(super) fn canonical_name(name: &str) -> Cow<'_, str> {
    if name.is_ascii() {
        return Cow::Borrowed(name);
    }
    let mut prepared = String::with_capacity(name.len());
    for c in name.chars() {
        match u32::from(c) {
            0x200C | 0x200D => {}
            0x2024 | 0xFE52 => prepared.push('.'),
            code @ 0x2488..=0x249B => {
                prepared.push_str(&(code - 0x2487).to_string());
                prepared.push('.');
            }
            _ => prepared.push(c),
        }
    }
    let (mapped, _) =
        Uts46::new().to_unicode(prepared.as_bytes(), AsciiDenyList::EMPTY, Hyphens::Allow);
    Cow::Owned(mapped.into_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What UTS-46 makes of `text`: `None` when it refuses it.
    fn mapped(text: &str) -> Option<String> {
        let (out, result) =
            Uts46::new().to_unicode(text.as_bytes(), AsciiDenyList::EMPTY, Hyphens::Allow);
        result.ok()?;
        Some(out.into_owned())
    }

    /// What UTS-46 makes of `c` between two letters, without them: `None` when it refuses it.
    fn mapped_between_letters(c: char) -> Option<String> {
        let out = mapped(&format!("a{c}b"))?;
        Some(out.strip_prefix('a')?.strip_suffix('b')?.to_owned())
    }

    fn is_label_content(text: &str) -> bool {
        !text.is_empty()
            && text
                .chars()
                .all(|c| c.is_alphanumeric() || c == '-' || c == '_')
    }

    /// The planes that hold every character UTS-46 maps or ignores (checked over all of Unicode
    /// when these lists were made): the basic and supplementary multilingual planes, and the
    /// supplementary special-purpose plane of variation selectors.
    fn characters() -> impl Iterator<Item = char> {
        (0x80..0x20000)
            .chain(0xE0000..0xE1000)
            .filter_map(char::from_u32)
    }

    #[test]
    fn predicates_agree_with_uts46() {
        for c in characters() {
            let between = mapped_between_letters(c);
            let joiner = matches!(c, '\u{200C}' | '\u{200D}');
            assert_eq!(
                is_ignorable(c),
                between.as_deref() == Some("") || joiner,
                "ignorable {:X}",
                u32::from(c)
            );
            let legacy_dot = matches!(c, '\u{2024}' | '\u{FE52}');
            assert_eq!(
                is_dot(c),
                between.as_deref() == Some(".") || legacy_dot,
                "dot {:X}",
                u32::from(c)
            );
            if !c.is_alphanumeric() || is_mapped_symbol(c) {
                let alone = mapped(c.encode_utf8(&mut [0; 4]));
                assert_eq!(
                    is_mapped_symbol(c),
                    !c.is_alphanumeric() && alone.as_deref().is_some_and(is_label_content),
                    "symbol {:X} maps to {alone:?}",
                    u32::from(c)
                );
            }
        }
    }

    #[test]
    fn other_scripts_never_map_to_ascii() {
        for c in characters().filter(|&c| is_other_script(c)) {
            let alone = mapped(c.encode_utf8(&mut [0; 4])).unwrap_or_default();
            assert!(
                !alone.chars().any(|c| c.is_ascii_alphanumeric()),
                "{:X} maps to {alone:?}",
                u32::from(c)
            );
        }
    }

    #[test]
    fn common_letters_map_to_themselves() {
        let common = characters().filter(|&c| super::super::host::is_common_letter(c));
        for c in common {
            let text = c.to_string();
            assert_eq!(mapped(&text), Some(text), "{:X}", u32::from(c));
        }
    }

    #[test]
    fn localhost_look_alikes() {
        for label in [
            "ｌｏｃａｌｈｏｓｔ",
            "𝐥𝐨𝐜𝐚𝐥𝐡𝐨𝐬𝐭",
            "ⓛⓞⓒⓐⓛⓗⓞⓢⓣ",
            "lo\u{200B}calhost",
            "LOCALHOSｔ",
        ] {
            assert!(may_map_to_localhost(label), "{label:?}");
            assert_eq!(canonical_name(label), "localhost", "{label:?}");
        }
        for label in [
            "für",
            "Müller",
            "请退款四十欧元",
            "ｌｏｃａｌｈｏｓｔｓ",
            "localhostx",
            "\u{200B}",
        ] {
            assert!(!may_map_to_localhost(label), "{label:?}");
        }
    }

    #[test]
    fn canonical_names() {
        for (name, expected) in [
            ("evil.com", "evil.com"),
            ("EVIL.Com", "EVIL.Com"),
            ("𝐞𝐯𝐢𝐥.𝐜𝐨𝐦", "evil.com"),
            ("ⓔⓥⓘⓛ.ⓒⓞⓜ", "evil.com"),
            ("ＥＶＩＬ．ＣＯＭ", "evil.com"),
            ("ev\u{200B}il.c\u{00AD}om", "evil.com"),
            ("ev\u{200D}il.com\u{2060}", "evil.com"),
            ("evil\u{2024}com", "evil.com"),
            ("evil\u{FE52}com", "evil.com"),
            ("evil\u{2488}com", "evil1.com"),
            ("evil\u{249B}com", "evil20.com"),
            ("evil。co｡uk", "evil.co.uk"),
            ("evil.㏄", "evil.cc"),
            ("пример.РФ", "пример.рф"),
        ] {
            assert_eq!(canonical_name(name), expected, "{name:?}");
        }
    }
}
