//! Where each argument came from (DESIGN §5.1, §5.9) and the marks it carries (§5.4).

use std::collections::BTreeMap;

use serde_json::Value;
use smol_str::{SmolStr, SmolStrBuilder};
use stalwart_record::{ArchivedEffects, ArchivedRecordBody, ArchivedTrust, Trust};

use crate::compare::json_eq;
use crate::session::{Marks, Session};

/// Whether an origin is trusted for this value in this history.
pub fn origin_trusted(
    body: &ArchivedRecordBody,
    session: &Session,
    origin: &str,
    name: &str,
    value: &Value,
) -> bool {
    match origin {
        "typed" => typed(session, value),
        "reply" | "context" | "computed" => true,
        _ => match origin.strip_prefix("result:") {
            Some(rest) => result_origin(body, session, rest, name, value),
            None => false,
        },
    }
}

/// `typed`: the value occurs in one of the person's turns, as typed.
pub fn typed(session: &Session, value: &Value) -> bool {
    match value {
        Value::String(s) if !s.is_empty() => session.turns().any(|t| contains_at_boundaries(t, s)),
        Value::Number(n) => match n.as_f64() {
            Some(f) => session.turns().any(|t| numbers_in(t).any(|x| x == f)),
            None => false,
        },
        _ => false,
    }
}

fn is_word(c: char) -> bool {
    c.is_alphanumeric() || c == '_'
}

/// Whether `needle` occurs in `hay` with a non-word character (or an end) on each side.
fn contains_at_boundaries(hay: &str, needle: &str) -> bool {
    let mut from = 0;
    while let Some(start) = find_from(hay, needle, from) {
        let end = start + needle.len();
        let before_ok = hay
            .get(..start)
            .and_then(|h| h.chars().next_back())
            .is_none_or(|c| !is_word(c))
            && !(starts_with_digit(needle) && joined_before(hay.as_bytes(), start));
        let after_ok = hay
            .get(end..)
            .and_then(|h| h.chars().next())
            .is_none_or(|c| !is_word(c))
            && !(ends_with_digit(needle) && joined_after(hay.as_bytes(), end));
        if before_ok && after_ok {
            return true;
        }
        let step = hay
            .get(start..)
            .and_then(|h| h.chars().next())
            .map(char::len_utf8)
            .unwrap_or(1);
        from = start + step;
    }
    false
}

fn starts_with_digit(s: &str) -> bool {
    s.as_bytes().first().is_some_and(u8::is_ascii_digit)
}

fn ends_with_digit(s: &str) -> bool {
    s.as_bytes().last().is_some_and(u8::is_ascii_digit)
}

/// Whether the bytes before `at` are a joiner after a digit: a match there would be the end of a
/// longer written value (`411` in `4,411`, `01` in `2026-12-01`).
fn joined_before(hay: &[u8], at: usize) -> bool {
    at >= 2
        && hay.get(at - 1).copied().is_some_and(is_joiner)
        && hay.get(at - 2).is_some_and(u8::is_ascii_digit)
}

/// Whether the bytes from `at` are a joiner before a digit: a match there would be the start of
/// a longer written value (`2026` in `2026-12-01`, `4` in `4,411`).
fn joined_after(hay: &[u8], at: usize) -> bool {
    hay.get(at).copied().is_some_and(is_joiner) && hay.get(at + 1).is_some_and(u8::is_ascii_digit)
}

/// Needles up to this length are searched for byte by byte: no searcher to set up, and at most
/// this many comparisons per byte of the text.
const SHORT_NEEDLE: usize = 64;

/// The first occurrence of `needle` in `hay` at or after byte `from` (a character boundary), as
/// `str::find` finds it.
fn find_from(hay: &str, needle: &str, from: usize) -> Option<usize> {
    let rest = hay.get(from..)?;
    let Some((&first, tail)) = needle.as_bytes().split_first() else {
        return Some(from);
    };
    if needle.len() > SHORT_NEEDLE {
        return rest.find(needle).map(|at| from + at);
    }
    // A match starts where `first` does: never inside a character, since `first` begins one.
    let bytes = rest.as_bytes();
    let mut at = 0;
    while let Some(skip) = bytes.get(at..)?.iter().position(|&b| b == first) {
        let start = at + skip;
        if bytes.get(start + 1..start + needle.len()) == Some(tail) {
            return Some(from + start);
        }
        at = start + 1;
    }
    None
}

/// Characters that join digits into one written value: decimal points and group separators
/// (`40.00`, `4,411`), and the joins of dates, times, ranges and codes (`2026-12-01`, `12:30`,
/// `1/2`).
fn is_joiner(b: u8) -> bool {
    matches!(b, b'.' | b',' | b'-' | b'/' | b':')
}

/// Every number written in a text, as numbers, each read as one written value at word
/// boundaries:
///
/// - a run of digits and joiners ([`is_joiner`], each between two digits) with no letter, digit
///   or `_` on either side: `visa40` and `40kg` hold no number;
/// - read whole: digits (`4411`), a decimal (`40.00`), a number grouped by commas with an
///   optional decimal (`4,411`, `1,234.56`), or a decimal comma with one or two digits after it
///   (`40,5`, `40,00`); any other run — a date, a time, a range, a version (`2026-12-01`,
///   `12:30`, `10-20`, `1.2.3`) — is one value that is no number;
/// - a `-` right before the run, itself after a non-word character or the start, makes it
///   negative (`-3`); after a word it is a hyphen, and the run is part of a code (`A-12`).
fn numbers_in(text: &str) -> impl Iterator<Item = f64> + '_ {
    let bytes = text.as_bytes();
    let mut i = 0;
    std::iter::from_fn(move || {
        while i < bytes.len() {
            let c = bytes.get(i).copied().unwrap_or(0);
            if !c.is_ascii_digit() {
                i += 1;
                continue;
            }
            let start = i;
            while let Some(&b) = bytes.get(i) {
                let joined = is_joiner(b) && bytes.get(i + 1).is_some_and(u8::is_ascii_digit);
                if b.is_ascii_digit() || joined {
                    i += 1;
                } else {
                    break;
                }
            }
            let before = text.get(..start).and_then(|t| t.chars().next_back());
            let after = text.get(i..).and_then(|t| t.chars().next());
            if before.is_some_and(is_word) || after.is_some_and(is_word) {
                continue;
            }
            // A `-` right before: a sign after a space or the start, a hyphen after a word
            // (`x-3`, `A-12`: part of a code, no number).
            let before_sign = text
                .get(..start.saturating_sub(1))
                .and_then(|t| t.chars().next_back());
            let negative = before == Some('-') && before_sign.is_none_or(|c| !is_word(c));
            if before == Some('-') && !negative {
                continue;
            }
            let Some(n) = text.get(start..i).and_then(read_written_number) else {
                continue;
            };
            return Some(if negative { -n } else { n });
        }
        None
    })
}

/// A run of digits and joiners read as one number, if it is one (see [`numbers_in`]).
fn read_written_number(run: &str) -> Option<f64> {
    let bytes = run.as_bytes();
    if bytes.iter().any(|&b| matches!(b, b'-' | b'/' | b':')) {
        return None;
    }
    let dots = bytes.iter().filter(|&&b| b == b'.').count();
    let commas = bytes.iter().filter(|&&b| b == b',').count();
    match (commas, dots) {
        (0, 0 | 1) => parse_decimal(run),
        (1, 0) => {
            let (whole, part) = run.split_once(',')?;
            match part.len() {
                1 | 2 => parse_decimal(&format!("{whole}.{part}")),
                3 if whole.len() <= 3 => parse_decimal(&format!("{whole}{part}")),
                _ => None,
            }
        }
        (_, 0 | 1) => {
            let (grouped, fraction) = match run.split_once('.') {
                Some((g, f)) => (g, Some(f)),
                None => (run, None),
            };
            let mut groups = grouped.split(',');
            let first = groups.next()?;
            if first.is_empty() || first.len() > 3 || !groups.all(|g| g.len() == 3) {
                return None;
            }
            let digits: String = grouped.chars().filter(char::is_ascii_digit).collect();
            match fraction {
                Some(f) => parse_decimal(&format!("{digits}.{f}")),
                None => parse_decimal(&digits),
            }
        }
        _ => None,
    }
}

/// A number as `numbers_in` delimits it (`-`? digits, then `.` and digits or nothing), read as
/// `str::parse::<f64>` reads it. Up to 15 digits are read in integer arithmetic: the digits and
/// the power of ten are then exact as `f64`, so the one division rounds as the parser does.
fn parse_decimal(text: &str) -> Option<f64> {
    const POWERS: [f64; 16] = [
        1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15,
    ];
    let (negative, digits) = match text.as_bytes().split_first() {
        Some((b'-', rest)) => (true, rest),
        _ => (false, text.as_bytes()),
    };
    let mut mantissa: u64 = 0;
    let mut count = 0usize;
    let mut fraction: Option<usize> = None;
    for &b in digits {
        match b {
            b'0'..=b'9' => {
                mantissa = mantissa * 10 + u64::from(b - b'0');
                count += 1;
                if count > 15 {
                    return text.parse().ok();
                }
                if let Some(f) = fraction.as_mut() {
                    *f += 1;
                }
            }
            b'.' if fraction.is_none() => fraction = Some(0),
            _ => return text.parse().ok(),
        }
    }
    let scale = POWERS.get(fraction.unwrap_or(0)).copied()?;
    if count == 0 {
        return text.parse().ok();
    }
    let value = mantissa as f64 / scale;
    Some(if negative { -value } else { value })
}

/// `result:<step>` or `result:<step>.<field>`: that call ran here, its tool's result schema
/// declares the field, and the value equals the reported result's field.
fn result_origin(
    body: &ArchivedRecordBody,
    session: &Session,
    rest: &str,
    name: &str,
    value: &Value,
) -> bool {
    let (step, field) = match rest.split_once('.') {
        Some((s, f)) => (s, f),
        None => (rest, name),
    };
    let Ok(step) = step.parse::<u32>() else {
        return false;
    };
    let Some(call) = session.call(step) else {
        return false;
    };
    if !session.ran(call) {
        return false;
    }
    let Some(tool) = find_tool(body, &call.tool) else {
        return false;
    };
    if !tool.result_fields.iter().any(|f| f.as_str() == field) {
        return false;
    }
    session
        .result_of(call)
        .and_then(|r| r.get(field))
        .is_some_and(|v| json_eq(v, value))
}

/// A tool by name (the catalogue is sorted by name).
pub fn find_tool<'b>(
    body: &'b ArchivedRecordBody,
    name: &str,
) -> Option<&'b stalwart_record::ArchivedTool> {
    let tools = body.tools.as_slice();
    tool_index(body, name).and_then(|i| tools.get(i))
}

/// The index of the first tool named `name` in the record's tools (sorted by name).
pub fn tool_index(body: &ArchivedRecordBody, name: &str) -> Option<usize> {
    let tools = body.tools.as_slice();
    let mut at = tools.binary_search_by(|t| t.name.as_str().cmp(name)).ok()?;
    while at > 0 && tools.get(at - 1).is_some_and(|t| t.name.as_str() == name) {
        at -= 1;
    }
    Some(at)
}

/// The trust of a label the check knows: `untrusted` and `untrusted:<where>`, `low`, `medium`,
/// `high`, and `agent:<name>` for an agent of the record (with that agent's privilege); `None`
/// for any other.
fn known_trust(body: &ArchivedRecordBody, label: &str) -> Option<Trust> {
    if label == "untrusted" || label.starts_with("untrusted:") {
        return Some(Trust::Untrusted);
    }
    match label {
        "low" => return Some(Trust::Low),
        "medium" => return Some(Trust::Medium),
        "high" => return Some(Trust::High),
        _ => {}
    }
    let agent = label.strip_prefix("agent:")?;
    body.agents
        .iter()
        .find(|a| a.name.as_str() == agent)
        .map(|a| native_trust(&a.privilege))
}

/// The trust of a label. A label the check does not know (`Untrusted:x`, `agent:Desk` when the
/// record has no such agent) is bad input, which hosts refuse at intake ([`unknown_label`]);
/// one that reaches the check anyway is read as `untrusted`, never as something it cannot
/// claim.
pub fn label_trust(body: &ArchivedRecordBody, label: &str) -> Option<Trust> {
    Some(known_trust(body, label).unwrap_or(Trust::Untrusted))
}

/// The first label of `labels` the check does not know, if any (in the order of the names, then
/// of each list): what a host refuses as bad input, naming it.
pub fn unknown_label<'l>(
    body: &ArchivedRecordBody,
    labels: &'l BTreeMap<String, Vec<String>>,
) -> Option<&'l str> {
    labels
        .values()
        .flatten()
        .map(String::as_str)
        .find(|l| known_trust(body, l).is_none())
}

pub fn native_trust(t: &ArchivedTrust) -> Trust {
    match t {
        ArchivedTrust::Untrusted => Trust::Untrusted,
        ArchivedTrust::Low => Trust::Low,
        ArchivedTrust::Medium => Trust::Medium,
        ArchivedTrust::High => Trust::High,
    }
}

/// Each argument's marks (and the call's, under `call`): explicit labels plus derived ones.
pub fn marks(
    body: &ArchivedRecordBody,
    session: &Session,
    arguments: &serde_json::Map<String, Value>,
    origins: &BTreeMap<String, String>,
    labels: &BTreeMap<String, Vec<String>>,
) -> Marks {
    let mut out = Marks::new();
    for (name, list) in labels {
        let kept: Vec<SmolStr> = list
            .iter()
            .filter(|l| !is_own_agent(session, l))
            .map(SmolStr::new)
            .collect();
        if !kept.is_empty() {
            out.extend(name, kept);
        }
    }
    let outside = first_outside_read(body, session);
    for name in arguments.keys() {
        let origin = origins.get(name).map(String::as_str).unwrap_or("model");
        if let Some(rest) = origin.strip_prefix("result:") {
            let step = rest.split('.').next().and_then(|s| s.parse::<u32>().ok());
            if let Some(call) = step.and_then(|s| session.call(s))
                && find_tool(body, &call.tool).is_some_and(|t| t.reads_outside)
            {
                out.push(name, untrusted(&call.tool));
            }
            continue;
        }
        if is_model_origin(origin)
            && let Some(tool) = &outside
        {
            out.push(name, untrusted(tool));
        }
    }
    for list in out.values_mut() {
        list.dedup();
    }
    out
}

/// The mark of a value that follows what `tool` read from outside: `untrusted:<tool>`, inline
/// when it fits.
fn untrusted(tool: &str) -> SmolStr {
    let mut mark = SmolStrBuilder::new();
    mark.push_str("untrusted:");
    mark.push_str(tool);
    mark.finish()
}

fn is_own_agent(session: &Session, label: &str) -> bool {
    label.strip_prefix("agent:") == Some(session.agent.as_str())
}

/// Origins that derived marks attach to: `model` and anything the check does not know.
pub fn is_model_origin(origin: &str) -> bool {
    !matches!(origin, "typed" | "reply" | "context" | "computed") && !origin.starts_with("result:")
}

/// The first `reads_outside` tool allowed in this session, if any.
fn first_outside_read<'s>(body: &ArchivedRecordBody, session: &'s Session) -> Option<&'s str> {
    session
        .allowed_calls()
        .find(|c| find_tool(body, &c.tool).is_some_and(|t| t.reads_outside))
        .map(|c| c.tool.as_str())
}

/// Whether a tool writes (unknown effects count as writes).
pub fn is_write(tool: &stalwart_record::ArchivedTool) -> bool {
    !matches!(tool.effects, ArchivedEffects::Reads)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strings_match_only_at_word_boundaries() {
        assert!(contains_at_boundaries("refund order 4411 40.00", "4411"));
        assert!(!contains_at_boundaries("refund order 44110", "4411"));
        assert!(!contains_at_boundaries("order A4411", "4411"));
        assert!(contains_at_boundaries(
            "to ana@example.com, please",
            "ana@example.com"
        ));
        assert!(
            !contains_at_boundaries("Refund", "refund"),
            "case-sensitive"
        );
    }

    #[test]
    fn short_and_long_needles_are_found_alike() {
        assert!(contains_at_boundaries("é 4411 é", "4411"));
        assert!(contains_at_boundaries("x44 4411", "4411"));
        let long = "n".repeat(SHORT_NEEDLE + 1);
        assert!(contains_at_boundaries(&format!("a {long} b"), &long));
        assert!(!contains_at_boundaries(&format!("a {long}n b"), &long));
    }

    proptest::proptest! {
        #[test]
        fn short_needles_are_found_where_str_find_finds_them(
            hay in "[ab4é\u{1F600} ]{0,24}",
            needle in "[ab4é]{0,4}",
        ) {
            proptest::prop_assert_eq!(find_from(&hay, &needle, 0), hay.find(needle.as_str()));
        }
    }

    proptest::proptest! {
        #[test]
        fn decimals_are_read_as_the_parser_reads_them(
            text in "-?[0-9]{1,20}(\\.[0-9]{1,20})?",
        ) {
            proptest::prop_assert_eq!(
                parse_decimal(&text).map(f64::to_bits),
                text.parse::<f64>().ok().map(f64::to_bits)
            );
        }
    }

    fn numbers(text: &str) -> Vec<f64> {
        numbers_in(text).collect()
    }

    #[test]
    fn numbers_are_read_as_numbers() {
        assert_eq!(
            numbers("refund order 4411 40.00, then -3 and v1.5"),
            [4411.0, 40.0, -3.0]
        );
        assert_eq!(
            numbers("(40) $40 40% #4411. 40.00!"),
            [40.0, 40.0, 40.0, 4411.0, 40.0]
        );
    }

    #[test]
    fn numbers_are_read_at_word_boundaries_only() {
        for text in [
            "visa40", "40kg", "4411th", "a_40", "x40y", "é40", "40é", "1e5",
        ] {
            assert_eq!(numbers(text), Vec::<f64>::new(), "{text}");
        }
    }

    #[test]
    fn a_date_a_time_a_range_or_a_version_is_one_value_and_no_number() {
        for text in [
            "2026-12-01",
            "on 2026-12-01, please",
            "01/12/2026",
            "12:30",
            "10-20",
            "1.2.3",
            "+1 555-0100",
            "40,000,0",
            "1234,567",
        ] {
            let found = numbers(text);
            assert!(
                found.iter().all(|&n| n == 1.0),
                "{text}: {found:?} (only a lone `+1` may be read)"
            );
        }
        assert_eq!(numbers("2026-12-01"), Vec::<f64>::new());
    }

    #[test]
    fn grouped_numbers_and_decimal_commas_are_one_value() {
        assert_eq!(numbers("refund 4,411 now"), [4411.0]);
        assert_eq!(numbers("1,234,567.50"), [1_234_567.5]);
        assert_eq!(numbers("40,00 and 40,5"), [40.0, 40.5]);
        assert_eq!(numbers("-4,411"), [-4411.0]);
        assert_eq!(numbers("x-3"), Vec::<f64>::new(), "a hyphen inside a word");
    }

    #[test]
    fn a_typed_string_of_digits_is_a_whole_written_value() {
        assert!(contains_at_boundaries("order 4411, please", "4411"));
        assert!(!contains_at_boundaries("order 4,411", "411"));
        assert!(!contains_at_boundaries("order 4,411", "4"));
        assert!(!contains_at_boundaries("on 2026-12-01", "12"));
        assert!(!contains_at_boundaries("on 2026-12-01", "2026"));
        assert!(contains_at_boundaries("on 2026-12-01", "2026-12-01"));
        assert!(contains_at_boundaries("A-12", "A"));
    }
}
