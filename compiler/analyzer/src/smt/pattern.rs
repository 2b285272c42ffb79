//! Two schemas' `pattern`s compared in z3's theory of strings (`stalwart diff`): a string one
//! pattern finds and the other does not, within both schemas' lengths.
//!
//! A pattern is read with `regex-syntax` and written as a z3 regular expression over the whole
//! string (the check searches unanchored: `Σ* R Σ*`, with `^`/`$` at the ends of the pattern or of
//! an alternative's branch taken as anchors). The strings asked for are printable ASCII without a
//! backslash: there `\d`, `\w`, `\s` and case folding mean in Unicode what the check's
//! `regex-lite` means (ASCII), so a class's ranges are cut to that alphabet and the translation
//! is exact on it. A pattern with a look-around other than the anchors at its ends (`\b`, `^` in
//! the middle), or a repetition above [`MAX_REPEAT`], is not translated: no string is offered.
//! Every string found is only a candidate — `stalwart diff` reports a difference only after the
//! runtime's check decides differently on it.

use regex_syntax::hir::{Class, Hir, HirKind, Look};
use z3::ast::{Int, Regexp, String as Str};
use z3::{SatResult, Solver};

/// The most milliseconds z3 spends on one pair of patterns.
const PATTERN_MS: u32 = 2_000;
/// The largest counted repetition translated (`a{1,500}` is not).
const MAX_REPEAT: u32 = 64;
/// The alphabet of the strings asked for: printable ASCII without `\`.
const ALPHABET: [(char, char); 2] = [(' ', '['), (']', '~')];

/// Lengths a string must have: at least `min`, at most `max`.
#[derive(Debug, Clone, Copy, Default)]
pub struct Lengths {
    pub min: u32,
    pub max: Option<u32>,
}

/// Strings on which `old` and `new` disagree (one finds the string, the other does not), each of
/// a length within `lengths`: at most one found by each pattern alone. `None` for a pattern is a
/// schema without one (every string passes). Empty when the patterns agree on every such string,
/// or one cannot be translated, or z3 gives up.
pub fn pattern_witnesses(old: Option<&str>, new: Option<&str>, lengths: Lengths) -> Vec<String> {
    let (Some(a), Some(b)) = (language(old), language(new)) else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for (yes, no) in [(&a, &b), (&b, &a)] {
        if let Some(s) = witness(yes, no, lengths)
            && !out.contains(&s)
        {
            out.push(s);
        }
    }
    out
}

/// The strings a pattern finds, over the alphabet; `None` when it cannot be translated.
fn language(pattern: Option<&str>) -> Option<Regexp> {
    let Some(pattern) = pattern else {
        return Some(any_string());
    };
    let hir = regex_syntax::ParserBuilder::new()
        .build()
        .parse(pattern)
        .ok()?;
    searched(&hir)
}

/// What an unanchored search finds: each branch of a top-level alternation on its own, anchored
/// where it starts with `^` or ends with `$`.
fn searched(hir: &Hir) -> Option<Regexp> {
    if let HirKind::Alternation(branches) = hir.kind() {
        let parts: Option<Vec<Regexp>> = branches.iter().map(searched).collect();
        return Some(union(&parts?));
    }
    let items: &[Hir] = match hir.kind() {
        HirKind::Concat(items) => items,
        _ => std::slice::from_ref(hir),
    };
    let start = matches!(
        items.first().map(Hir::kind),
        Some(HirKind::Look(Look::Start))
    );
    let end = matches!(items.last().map(Hir::kind), Some(HirKind::Look(Look::End)));
    let inner = &items[usize::from(start)..items.len() - usize::from(end)];
    let mut parts = Vec::with_capacity(inner.len() + 2);
    if !start {
        parts.push(any_string());
    }
    for item in inner {
        parts.push(translate(item)?);
    }
    if !end {
        parts.push(any_string());
    }
    Some(concat(&parts))
}

/// An anchor-free piece of a pattern as a z3 regular expression.
fn translate(hir: &Hir) -> Option<Regexp> {
    Some(match hir.kind() {
        HirKind::Empty => Regexp::literal(""),
        HirKind::Literal(lit) => Regexp::literal(std::str::from_utf8(&lit.0).ok()?),
        HirKind::Class(Class::Unicode(class)) => ranges(
            class
                .iter()
                .map(|r| (u32::from(r.start()), u32::from(r.end()))),
        ),
        HirKind::Class(Class::Bytes(class)) => ranges(
            class
                .iter()
                .map(|r| (u32::from(r.start()), u32::from(r.end()))),
        ),
        HirKind::Look(_) => return None,
        HirKind::Repetition(rep) => {
            let sub = translate(&rep.sub)?;
            if rep.min > MAX_REPEAT || rep.max.is_some_and(|m| m > MAX_REPEAT) {
                return None;
            }
            match rep.max {
                Some(max) => sub.r#loop(rep.min, max),
                None if rep.min == 0 => sub.star(),
                None => concat(&[sub.r#loop(rep.min, rep.min), sub.star()]),
            }
        }
        HirKind::Capture(cap) => translate(&cap.sub)?,
        HirKind::Concat(items) => {
            let parts: Option<Vec<Regexp>> = items.iter().map(translate).collect();
            concat(&parts?)
        }
        HirKind::Alternation(items) => {
            let parts: Option<Vec<Regexp>> = items.iter().map(translate).collect();
            union(&parts?)
        }
    })
}

/// A class's ranges cut to the alphabet (the empty language when none is left).
fn ranges(class: impl Iterator<Item = (u32, u32)>) -> Regexp {
    let mut parts = Vec::new();
    for (lo, hi) in class {
        for (a, b) in ALPHABET {
            let lo = lo.max(u32::from(a));
            let hi = hi.min(u32::from(b));
            if lo <= hi
                && let (Some(lo), Some(hi)) = (char::from_u32(lo), char::from_u32(hi))
            {
                parts.push(Regexp::range(&lo, &hi));
            }
        }
    }
    union(&parts)
}

/// z3 (4.8) takes a union of two or more.
fn union(parts: &[Regexp]) -> Regexp {
    match parts {
        [] => Regexp::empty(),
        [one] => one.clone(),
        _ => Regexp::union(parts),
    }
}

fn concat(parts: &[Regexp]) -> Regexp {
    match parts {
        [] => Regexp::literal(""),
        [one] => one.clone(),
        _ => Regexp::concat(parts),
    }
}

/// Any string over the alphabet.
fn any_string() -> Regexp {
    let letters: Vec<Regexp> = ALPHABET.iter().map(|(a, b)| Regexp::range(a, b)).collect();
    union(&letters).star()
}

/// A string of `yes` not in `no`, within the lengths.
fn witness(yes: &Regexp, no: &Regexp, lengths: Lengths) -> Option<String> {
    let solver = Solver::new();
    let mut params = z3::Params::new();
    params.set_u32("timeout", PATTERN_MS);
    solver.set_params(&params);
    let s = Str::new_const("pattern_witness");
    solver.assert(s.regex_matches(&any_string()));
    solver.assert(s.regex_matches(yes));
    solver.assert(s.regex_matches(no).not());
    let len = s.length();
    solver.assert(len.ge(Int::from_u64(u64::from(lengths.min))));
    if let Some(max) = lengths.max {
        solver.assert(len.le(Int::from_u64(u64::from(max))));
    }
    if solver.check() != SatResult::Sat {
        return None;
    }
    let model = solver.get_model()?;
    let text = model.eval(&s, true)?.as_string()?;
    // z3 escapes what is not printable; the alphabet has no such character.
    text.chars()
        .all(|c| ALPHABET.iter().any(|(a, b)| (*a..=*b).contains(&c)))
        .then_some(text)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn finds(pattern: &str, s: &str) -> bool {
        regex_lite::Regex::new(pattern).unwrap().is_match(s)
    }

    #[test]
    fn a_widened_count_has_a_string_only_the_new_pattern_finds() {
        let old = "^[A-Z]{2}[0-9]{4}$";
        let new = "^[A-Z]{2}[0-9]{4,6}$";
        let found = pattern_witnesses(Some(old), Some(new), Lengths::default());
        assert_eq!(found.len(), 1, "{found:?}");
        assert!(finds(new, &found[0]) && !finds(old, &found[0]), "{found:?}");
    }

    #[test]
    fn an_unanchored_pattern_finds_what_an_anchored_one_does_not_both_ways() {
        let found = pattern_witnesses(Some("ab"), Some("^ab$"), Lengths::default());
        assert_eq!(found.len(), 1, "{found:?}");
        assert!(finds("ab", &found[0]) && !finds("^ab$", &found[0]));
        let found = pattern_witnesses(Some("^a|b$"), Some("^(a|b)$"), Lengths::default());
        assert_eq!(found.len(), 1, "{found:?}");
        assert!(finds("^a|b$", &found[0]) && !finds("^(a|b)$", &found[0]));
    }

    #[test]
    fn ascii_classes_mean_what_the_check_means() {
        // `\d` and `[0-9]` find the same ASCII strings; `\w` is more than `[a-z]`.
        assert!(pattern_witnesses(Some(r"^\d+$"), Some("^[0-9]+$"), Lengths::default()).is_empty());
        let found = pattern_witnesses(Some(r"^\w+$"), Some("^[a-z]+$"), Lengths::default());
        assert_eq!(found.len(), 1);
        assert!(finds(r"^\w+$", &found[0]) && !finds("^[a-z]+$", &found[0]));
        // Case folding.
        assert!(
            pattern_witnesses(Some("^(?i)ab$"), Some("^[aA][bB]$"), Lengths::default()).is_empty()
        );
    }

    #[test]
    fn a_pattern_added_is_failed_by_some_string_and_lengths_bound_the_search() {
        let found = pattern_witnesses(
            None,
            Some("^[a-z]+$"),
            Lengths {
                min: 3,
                max: Some(3),
            },
        );
        assert_eq!(found.len(), 1);
        assert_eq!(found[0].chars().count(), 3);
        assert!(!finds("^[a-z]+$", &found[0]));
        // Within lengths 1–3, `^a{1,3}$` and `^a+$` agree.
        assert!(
            pattern_witnesses(
                Some("^a{1,3}$"),
                Some("^a+$"),
                Lengths {
                    min: 1,
                    max: Some(3)
                }
            )
            .is_empty()
        );
        assert_eq!(
            pattern_witnesses(Some("^a{1,3}$"), Some("^a+$"), Lengths::default()).len(),
            1
        );
    }

    #[test]
    fn what_is_not_translated_offers_nothing() {
        assert!(pattern_witnesses(Some(r"\bab"), Some("ab"), Lengths::default()).is_empty());
        assert!(pattern_witnesses(Some("a{100}"), Some("a"), Lengths::default()).is_empty());
        assert!(pattern_witnesses(Some("("), Some("a"), Lengths::default()).is_empty());
    }
}
