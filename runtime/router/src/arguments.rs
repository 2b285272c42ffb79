//! A tool's arguments written from the person's words: each argument's kind read from its schema
//! and its name (an id, an address, a URL, a quoted text, a number, a count), the values of the
//! turn matched to them — first those a word names (`order 4411`), then by kind — and each value
//! typed by the schema (`"4411"` where it says string, `40.0` where it says number).
//!
//! Nothing is ever guessed: an argument two values fit equally is *ambiguous* (the plan asks
//! which), one no value fits is *missing*; booleans, lists and objects are never written from a
//! turn.

use serde_json::Value;
use stalwart_record::{ArchivedRecordBody, ArchivedTool, TypeSet};

use crate::slots::{Slot, SlotKind};

/// How an argument is filled.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ArgKind {
    /// A string naming a thing: a code or a number without a decimal part, as written.
    Id,
    Email,
    Url,
    /// A string of free text: only a quoted text.
    Text,
    Number,
    Integer,
    /// Booleans, lists, objects: never written from a turn.
    Never,
}

/// One declared argument.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ArgSpec {
    pub name: String,
    pub kind: ArgKind,
    pub required: bool,
    /// The words of its name (`order_id` → `order`, `id`).
    pub words: Vec<String>,
}

/// The declared arguments of `tool`, in declaration order.
pub fn arg_specs(body: &ArchivedRecordBody, tool: &ArchivedTool) -> Vec<ArgSpec> {
    let Some(root) = tool
        .arguments
        .as_ref()
        .and_then(|i| body.schema_nodes.get(i.to_native() as usize))
    else {
        return Vec::new();
    };
    root.properties
        .iter()
        .map(|property| {
            let name = property.0.as_str().to_string();
            let types = types_of(body, property.1.to_native(), 0);
            let words = crate::compile::name_parts(&name);
            let kind = kind_of(types, &words);
            ArgSpec {
                required: root.required.iter().any(|r| r.as_str() == name),
                name,
                kind,
                words,
            }
        })
        .collect()
}

/// The types a schema node allows (`anyOf` alternatives joined, `null` left out).
fn types_of(body: &ArchivedRecordBody, node: u32, depth: u32) -> u8 {
    let Some(n) = body.schema_nodes.get(node as usize) else {
        return 0;
    };
    let mut types = n.types;
    if depth < 4 {
        for alt in n.any_of.iter() {
            types |= types_of(body, alt.to_native(), depth + 1);
        }
    }
    types & !TypeSet::NULL
}

fn kind_of(types: u8, words: &[String]) -> ArgKind {
    let has = |w: &[&str]| words.iter().any(|x| w.contains(&x.as_str()));
    let string = types == 0 || types & TypeSet::STRING != 0;
    if types & (TypeSet::ARRAY | TypeSet::OBJECT | TypeSet::BOOLEAN) != 0
        && types & (TypeSet::STRING | TypeSet::NUMBER | TypeSet::INTEGER) == 0
    {
        return ArgKind::Never;
    }
    if types & TypeSet::NUMBER != 0 && !string {
        return ArgKind::Number;
    }
    if types & TypeSet::INTEGER != 0 && !string {
        return ArgKind::Integer;
    }
    if has(&[
        "email",
        "mail",
        "to",
        "recipient",
        "address",
        "cc",
        "bcc",
        "destinatario",
    ]) {
        ArgKind::Email
    } else if has(&["url", "link", "website", "site", "uri", "webhook", "href"]) {
        ArgKind::Url
    } else if has(&[
        "id",
        "number",
        "no",
        "num",
        "code",
        "ref",
        "reference",
        "sku",
        "key",
        "order",
        "invoice",
        "account",
        "ticket",
        "tracking",
        "pedido",
        "numero",
        "codigo",
    ]) {
        ArgKind::Id
    } else {
        ArgKind::Text
    }
}

/// How well a value fits an argument of a kind: 0 not at all, higher better.
fn fit(kind: ArgKind, slot: &Slot) -> u32 {
    match (kind, slot.kind) {
        (ArgKind::Id, SlotKind::Code) => 2,
        (
            ArgKind::Id,
            SlotKind::Number {
                whole: true,
                digits,
                money: false,
                ..
            },
        ) => {
            if digits >= 3 {
                2
            } else {
                1
            }
        }
        (ArgKind::Email, SlotKind::Email) => 2,
        (ArgKind::Url, SlotKind::Url) => 2,
        (ArgKind::Text, SlotKind::Text) => 2,
        (
            ArgKind::Number,
            SlotKind::Number {
                whole,
                money,
                digits,
                ..
            },
        ) => {
            if money || !whole {
                3
            } else if digits <= 3 {
                2
            } else {
                1
            }
        }
        (ArgKind::Integer, SlotKind::Number { whole: true, .. }) => 2,
        (ArgKind::Integer, SlotKind::Count(_)) => 1,
        _ => 0,
    }
}

/// A value given to an argument.
#[derive(Debug, Clone, PartialEq)]
pub struct Given {
    pub argument: String,
    pub value: Value,
    /// Index of the slot in the list `fill` was given.
    pub slot: usize,
}

/// What filling a tool's arguments gave.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Filled {
    pub given: Vec<Given>,
    /// Required arguments no value fits.
    pub missing: Vec<String>,
    /// An argument several values fit equally, with those values as written.
    pub ambiguous: Option<(String, Vec<String>)>,
    /// Values of the turn that went to no argument.
    pub stray: usize,
}

/// Matches `slots` to `specs`. `named(slot, spec)` says whether the word before or after the
/// value names the argument. Slots before `first_own` come from an earlier turn and are used
/// only for arguments no value of this turn fits.
pub fn fill(
    specs: &[ArgSpec],
    slots: &[Slot],
    first_own: usize,
    named: &dyn Fn(&Slot, &ArgSpec) -> bool,
) -> Filled {
    let mut out = Filled::default();
    let mut used = vec![false; slots.len()];
    let mut done = vec![false; specs.len()];
    // 1. Values a word names, this turn's first.
    for (a, spec) in specs.iter().enumerate() {
        let named_slots: Vec<usize> = (0..slots.len())
            .filter(|&s| {
                slots
                    .get(s)
                    .is_some_and(|slot| fit(spec.kind, slot) > 0 && named(slot, spec))
            })
            .collect();
        let own: Vec<usize> = named_slots
            .iter()
            .copied()
            .filter(|&s| s >= first_own)
            .collect();
        let pick = if own.is_empty() { named_slots } else { own };
        if let [only] = pick.as_slice()
            && !used.get(*only).copied().unwrap_or(true)
        {
            give(&mut out, spec, slots, *only);
            if let Some(u) = used.get_mut(*only) {
                *u = true;
            }
            if let Some(d) = done.get_mut(a) {
                *d = true;
            }
        } else if pick.len() > 1 {
            out.ambiguous.get_or_insert_with(|| {
                (
                    spec.name.clone(),
                    pick.iter()
                        .filter_map(|&s| slots.get(s).map(|x| x.text.clone()))
                        .collect(),
                )
            });
            for &s in &pick {
                if let Some(u) = used.get_mut(s) {
                    *u = true;
                }
            }
            if let Some(d) = done.get_mut(a) {
                *d = true;
            }
        }
    }
    // 2. The others by kind: the best fit, this turn's values before earlier ones.
    for (a, spec) in specs.iter().enumerate() {
        if done.get(a).copied().unwrap_or(true) || spec.kind == ArgKind::Never {
            if spec.kind == ArgKind::Never && spec.required {
                out.missing.push(spec.name.clone());
            }
            continue;
        }
        let free = |s: &usize| !used.get(*s).copied().unwrap_or(true);
        let mut best: Vec<(u32, usize)> = (first_own..slots.len())
            .filter(free)
            .filter_map(|s| slots.get(s).map(|slot| (fit(spec.kind, slot), s)))
            .filter(|(f, _)| *f > 0)
            .collect();
        if best.is_empty() {
            best = (0..first_own.min(slots.len()))
                .filter(free)
                .filter_map(|s| slots.get(s).map(|slot| (fit(spec.kind, slot), s)))
                .filter(|(f, _)| *f > 0)
                .collect();
        }
        let top = best.iter().map(|(f, _)| *f).max().unwrap_or(0);
        let tops: Vec<usize> = best
            .iter()
            .filter(|(f, _)| *f == top)
            .map(|(_, s)| *s)
            .collect();
        match tops.as_slice() {
            [] => {
                if spec.required {
                    out.missing.push(spec.name.clone());
                }
            }
            [only] => {
                // Another argument later in the list may want this value more.
                give(&mut out, spec, slots, *only);
                if let Some(u) = used.get_mut(*only) {
                    *u = true;
                }
            }
            several => {
                out.ambiguous.get_or_insert_with(|| {
                    (
                        spec.name.clone(),
                        several
                            .iter()
                            .filter_map(|&s| slots.get(s).map(|x| x.text.clone()))
                            .collect(),
                    )
                });
                for &s in several {
                    if let Some(u) = used.get_mut(s) {
                        *u = true;
                    }
                }
            }
        }
    }
    // A value of this turn no argument took, that would fit an argument already given, makes
    // that argument ambiguous (`order 4411 and 5530`).
    if out.ambiguous.is_none() {
        for s in first_own..slots.len() {
            if used.get(s).copied().unwrap_or(true) {
                continue;
            }
            let Some(slot) = slots.get(s) else { continue };
            if matches!(slot.kind, SlotKind::Count(_)) {
                continue;
            }
            let taken = out.given.iter().find(|g| {
                specs
                    .iter()
                    .find(|spec| spec.name == g.argument)
                    .is_some_and(|spec| fit(spec.kind, slot) > 0)
                    && slots.get(g.slot).is_some_and(|given| {
                        specs
                            .iter()
                            .find(|spec| spec.name == g.argument)
                            .is_some_and(|spec| fit(spec.kind, slot) >= fit(spec.kind, given))
                    })
            });
            if let Some(g) = taken {
                let values = [
                    slots
                        .get(g.slot)
                        .map(|x| x.text.clone())
                        .unwrap_or_default(),
                    slot.text.clone(),
                ];
                out.ambiguous = Some((g.argument.clone(), values.to_vec()));
                let argument = g.argument.clone();
                out.given.retain(|g| g.argument != argument);
                if let Some(u) = used.get_mut(s) {
                    *u = true;
                }
                break;
            }
        }
    }
    // Values of this turn no argument took (number words aside: they are often no value).
    out.stray = (first_own..slots.len())
        .filter(|&s| !used.get(s).copied().unwrap_or(true))
        .filter(|&s| {
            slots
                .get(s)
                .is_some_and(|slot| !matches!(slot.kind, SlotKind::Count(_)))
        })
        .count();
    out
}

fn give(out: &mut Filled, spec: &ArgSpec, slots: &[Slot], s: usize) {
    let Some(slot) = slots.get(s) else { return };
    let Some(value) = typed(spec.kind, slot) else {
        return;
    };
    out.given.push(Given {
        argument: spec.name.clone(),
        value,
        slot: s,
    });
}

/// The value of `slot` typed for an argument of `kind`.
pub fn typed(kind: ArgKind, slot: &Slot) -> Option<Value> {
    match (kind, slot.kind) {
        (ArgKind::Number, SlotKind::Number { value, .. }) => {
            serde_json::Number::from_f64(value).map(Value::Number)
        }
        (ArgKind::Integer, SlotKind::Number { value, .. }) if value.fract() == 0.0 => {
            Some(Value::Number(serde_json::Number::from(value as i64)))
        }
        (ArgKind::Integer, SlotKind::Count(n)) => Some(Value::Number(n.into())),
        (ArgKind::Id | ArgKind::Email | ArgKind::Url | ArgKind::Text, _) => {
            (!slot.text.is_empty()).then(|| Value::String(slot.text.clone()))
        }
        _ => None,
    }
}

/// Whether a value of this kind would fit the argument at all (for the chain's listing tools).
pub fn fits(kind: ArgKind, slot: &Slot) -> bool {
    fit(kind, slot) > 0
}

#[cfg(test)]
mod tests {
    use super::*;

    fn num(text: &str, value: f64, whole: bool, start: usize) -> Slot {
        Slot {
            kind: SlotKind::Number {
                value,
                whole,
                digits: text.chars().filter(char::is_ascii_digit).count() as u32,
                money: false,
            },
            text: text.into(),
            start,
            end: start + text.len(),
            before: None,
            after: None,
            item: 0,
        }
    }

    fn spec(name: &str, kind: ArgKind) -> ArgSpec {
        ArgSpec {
            name: name.into(),
            kind,
            required: true,
            words: crate::compile::name_parts(name),
        }
    }

    #[test]
    fn an_id_and_an_amount_are_told_apart_by_their_kind() {
        let specs = [
            spec("order_id", ArgKind::Id),
            spec("amount", ArgKind::Number),
        ];
        let slots = [num("4411", 4411.0, true, 0), num("40.00", 40.0, false, 5)];
        let filled = fill(&specs, &slots, 0, &|_, _| false);
        assert_eq!(
            filled.given,
            vec![
                Given {
                    argument: "order_id".into(),
                    value: Value::String("4411".into()),
                    slot: 0
                },
                Given {
                    argument: "amount".into(),
                    value: serde_json::json!(40.0),
                    slot: 1
                },
            ]
        );
        assert!(filled.missing.is_empty());
        assert_eq!(filled.ambiguous, None);
    }

    #[test]
    fn a_number_word_fills_a_count_and_nothing_else() {
        let count = Slot {
            kind: SlotKind::Count(2),
            text: "duas".into(),
            start: 0,
            end: 4,
            before: None,
            after: None,
            item: 0,
        };
        assert_eq!(typed(ArgKind::Integer, &count), Some(serde_json::json!(2)));
        assert_eq!(typed(ArgKind::Number, &count), None);
        let specs = [
            spec("quantity", ArgKind::Integer),
            spec("amount", ArgKind::Number),
        ];
        let filled = fill(&specs, &[count], 0, &|_, _| false);
        assert_eq!(
            filled.given,
            vec![Given {
                argument: "quantity".into(),
                value: serde_json::json!(2),
                slot: 0
            }]
        );
        assert_eq!(filled.missing, ["amount"]);
    }

    #[test]
    fn two_values_that_fit_equally_are_asked_about() {
        let specs = [spec("amount", ArgKind::Number)];
        let slots = [num("40.00", 40.0, false, 0), num("50.00", 50.0, false, 9)];
        let filled = fill(&specs, &slots, 0, &|_, _| false);
        assert_eq!(
            filled.ambiguous,
            Some(("amount".into(), vec!["40.00".into(), "50.00".into()]))
        );
        assert!(filled.given.is_empty());
    }
}
