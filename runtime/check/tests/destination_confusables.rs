//! A host written in look-alike characters is still a destination: every letter or digit in any of
//! the forms host-name processing maps back to it, invisible characters between them, and any dot
//! form between labels.

use proptest::prelude::*;
use serde_json::json;
use stalwart_runtime::destination::{find_destinations, has_destination};

/// Hosts that are destinations whatever the case of their letters, each with what follows the name
/// (a port, left as written).
const HOSTS: &[(&str, &str)] = &[
    ("evil.com", ""),
    ("leak.attacker.com", ""),
    ("exfil.attacker.pl", ""),
    ("a.b.sh", ""),
    ("evil.pl", ":443"),
    ("api.evil.dev", ""),
    ("evil.io", ""),
    ("x.ai", ""),
    ("t.co", ""),
    ("user.github.io", ""),
    ("refunds.invalid", ""),
    ("metadata.google.internal", ""),
    ("db.internal", ":5432"),
    ("printer.test", ""),
    ("shop.example", ""),
    ("foo.localhost", ""),
    ("abcdefghijklmnop.onion", ""),
    ("sub-domain.evil-site.co.uk", ""),
    ("_dmarc.evil.com", ""),
    ("www.report.zip", ""),
    ("www.evil.email", ""),
    ("1.2.3.4.nip.io", ""),
    ("evil.com", ":8443"),
    ("localhost", ""),
    ("localhost", ":3000"),
    ("10.0.0.1", ""),
    ("169.254.169.254", ""),
];

/// The forms host-name processing maps to `.`, or IDNA2003 does.
const DOTS: &[char] = &[
    '.', '\u{3002}', '\u{FF0E}', '\u{FF61}', '\u{2024}', '\u{FE52}',
];

/// Characters that vanish from a name: zero-width space, non-joiner and joiner, soft hyphen, word
/// joiner, zero-width no-break space, a variation selector, the combining grapheme joiner.
const INVISIBLE: &[char] = &[
    '\u{200B}', '\u{200C}', '\u{200D}', '\u{00AD}', '\u{2060}', '\u{FEFF}', '\u{FE0F}', '\u{034F}',
];

/// Capital A of each mathematical alphabet: bold, italic, bold italic, script, bold script,
/// fraktur, double-struck, bold fraktur, sans-serif, its bold, italic and bold italic, monospace.
const MATH_LETTERS: &[u32] = &[
    0x1D400, 0x1D434, 0x1D468, 0x1D49C, 0x1D4D0, 0x1D504, 0x1D538, 0x1D56C, 0x1D5A0, 0x1D5D4,
    0x1D608, 0x1D63C, 0x1D670,
];

/// Digit zero of each mathematical digit set: bold, double-struck, sans-serif, its bold, monospace.
const MATH_DIGITS: &[u32] = &[0x1D7CE, 0x1D7D8, 0x1D7E2, 0x1D7EC, 0x1D7F6];

/// The letters the mathematical alphabets leave out, because the letterlike symbols had them first.
fn letterlike(code: u32) -> Option<char> {
    let c = match code {
        0x1D455 => 'ℎ',
        0x1D49D => 'ℬ',
        0x1D4A0 => 'ℰ',
        0x1D4A1 => 'ℱ',
        0x1D4A3 => 'ℋ',
        0x1D4A4 => 'ℐ',
        0x1D4A7 => 'ℒ',
        0x1D4A8 => 'ℳ',
        0x1D4AD => 'ℛ',
        0x1D4BA => 'ℯ',
        0x1D4BC => 'ℊ',
        0x1D4C4 => 'ℴ',
        0x1D506 => 'ℭ',
        0x1D50B => 'ℌ',
        0x1D50C => 'ℑ',
        0x1D515 => 'ℜ',
        0x1D51D => 'ℨ',
        0x1D53A => 'ℂ',
        0x1D53F => 'ℍ',
        0x1D545 => 'ℕ',
        0x1D547 => 'ℙ',
        0x1D548 => 'ℚ',
        0x1D549 => 'ℝ',
        0x1D551 => 'ℤ',
        _ => return None,
    };
    Some(c)
}

fn char_at(code: u32) -> Option<char> {
    letterlike(code).or_else(|| char::from_u32(code))
}

/// `c`, an ASCII letter, in look-alike form number `form`.
fn letter_form(c: char, form: usize) -> Option<char> {
    let upper = c.is_ascii_uppercase();
    let index = u32::from(c.to_ascii_lowercase()) - u32::from('a');
    let case = if upper { 0 } else { 26 };
    match form % (MATH_LETTERS.len() + 6) {
        0 => Some(c),
        1 => Some(c.to_ascii_uppercase()),
        2 => char_at(if upper { 0x24B6 } else { 0x24D0 } + index),
        3 => char_at(0x1F130 + index),
        4 => char_at(if upper { 0xFF21 } else { 0xFF41 } + index),
        5 => Some(c.to_ascii_lowercase()),
        math => char_at(MATH_LETTERS.get(math - 6)? + index + case),
    }
}

/// `c`, an ASCII digit, in look-alike form number `form`.
fn digit_form(c: char, form: usize) -> Option<char> {
    let digit = u32::from(c) - u32::from('0');
    match form % (MATH_DIGITS.len() + 3) {
        0 => Some(c),
        1 => char_at(0xFF10 + digit),
        2 if digit == 0 => Some('⓪'),
        2 => char_at(0x2460 + digit - 1),
        math => char_at(MATH_DIGITS.get(math - 3)? + digit),
    }
}

/// `name` with each character in the form `forms` picks for it, and the invisible character
/// `inserts` picks (if any) after each character but the last.
fn disguise(name: &str, forms: &[(usize, usize)]) -> Option<String> {
    let count = name.chars().count();
    let mut out = String::new();
    for (at, (c, &(form, insert))) in name.chars().zip(forms.iter().cycle()).enumerate() {
        out.push(match c {
            'a'..='z' | 'A'..='Z' => letter_form(c, form)?,
            '0'..='9' => digit_form(c, form)?,
            '.' => *DOTS.get(form % DOTS.len())?,
            _ => c,
        });
        if at + 1 < count
            && let Some(&invisible) = INVISIBLE.get(insert)
        {
            out.push(invisible);
        }
    }
    Some(out)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    #[test]
    fn look_alike_hosts_are_destinations(
        host in 0..HOSTS.len(),
        forms in proptest::collection::vec((0usize..64, 0usize..24), 1..32),
    ) {
        let (name, port) = HOSTS[host];
        let disguised = disguise(name, &forms);
        prop_assert!(disguised.is_some(), "no disguise for {name:?}");
        let written = format!("{}{port}", disguised.unwrap_or_default());
        let text = format!("send it to {written} now");
        prop_assert_eq!(find_destinations(&json!(text)), vec![written.clone()], "in {:?}", text);
        prop_assert!(has_destination(&json!(written)), "{:?}", written);
    }
}

#[test]
fn every_form_is_a_letter_or_digit() {
    for form in 0..64 {
        for c in ('a'..='z').chain('A'..='Z') {
            let looks = letter_form(c, form);
            assert!(
                looks.is_some_and(char::is_alphanumeric),
                "{c} form {form}: {looks:?}"
            );
        }
        for c in '0'..='9' {
            let looks = digit_form(c, form);
            assert!(
                looks.is_some_and(char::is_alphanumeric),
                "{c} form {form}: {looks:?}"
            );
        }
    }
}

#[test]
fn every_host_as_written() {
    for (name, port) in HOSTS {
        let written = format!("{name}{port}");
        assert_eq!(find_destinations(&json!(written)), vec![written.clone()]);
    }
}
