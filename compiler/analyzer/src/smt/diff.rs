//! Two gates compared in z3 (`stalwart diff`), for conditions beyond the enumeration's
//! fragment: is there a value of each term, and an intent, on which the first path that holds
//! in one gate answers otherwise than in the other? Both gates' conditions share one encoder, so
//! a fact or argument is the same constant in both.

use std::collections::BTreeMap;

use stalwart_record::{Gate, GateDefault, RecordBody};
use z3::ast::{Bool, Int};

use super::conditions::{BOOL, Encoder, NUM, OTHER, TEXT};
use super::solver::{Outcome as SmtOutcome, Smt};
use crate::diff::{Assignment, GateDiff, Outcome, action_outcome, intents};
use crate::theory::Json;

/// The most milliseconds z3 spends on one pair of gates.
const DIFF_MS: u32 = 5_000;

/// Whether the two gates answer some call differently, in z3.
pub fn gate_diff(old_body: &RecordBody, old: &Gate, new_body: &RecordBody, new: &Gate) -> GateDiff {
    let smt = Smt::for_conditions(DIFF_MS);
    let mut enc = Encoder::new(old_body, &smt);
    let old_conds: Vec<Bool> = old
        .paths
        .iter()
        .map(|p| enc.condition(p.condition))
        .collect();
    enc.body = new_body;
    let new_conds: Vec<Bool> = new
        .paths
        .iter()
        .map(|p| enc.condition(p.condition))
        .collect();
    let mut undecided = false;
    for (q, intent) in intents(&[old, new]).into_iter().enumerate() {
        let a = outcomes(old, &old_conds, intent.as_deref());
        let b = outcomes(new, &new_conds, intent.as_deref());
        let mut differ = Vec::new();
        for (o, holds) in &a {
            let other = b
                .iter()
                .find(|(p, _)| p == o)
                .map_or(Bool::from_bool(false), |(_, h)| h.clone());
            differ.push(Bool::and(&[holds.clone(), other.not()]));
        }
        for (o, holds) in &b {
            if !a.iter().any(|(p, _)| p == o) {
                differ.push(holds.clone());
            }
        }
        let query = Bool::new_const(format!("differ_{q}"));
        smt.assert(&query.implies(Bool::or(&differ)));
        match smt.check(std::slice::from_ref(&query)) {
            SmtOutcome::Sat(model) => {
                let terms = enc
                    .terms
                    .iter()
                    .map(|(key, v)| {
                        let int = |i: &Int| model.eval(i, true).and_then(|x| x.as_i64());
                        let kind = int(&v.kind).unwrap_or(0);
                        let json = match kind {
                            BOOL => Json::Bool(
                                model.eval(&v.boolean, true).and_then(|b| b.as_bool())
                                    == Some(true),
                            ),
                            NUM => {
                                let (n, d) = model
                                    .eval(&v.number, true)
                                    .and_then(|r| r.as_rational())
                                    .unwrap_or((0, 1));
                                Json::Num(n as f64 / d as f64)
                            }
                            TEXT => Json::Str(named(&enc.texts, int(&v.text).unwrap_or(0), "t")),
                            OTHER => {
                                let n = int(&v.other).unwrap_or(2);
                                let text = named(&enc.others, n, "o");
                                Json::Other(if text.starts_with(['[', '{']) {
                                    text
                                } else {
                                    format!("[\"{text}\"]")
                                })
                            }
                            _ => Json::Null,
                        };
                        (key.clone(), json)
                    })
                    .collect();
                return GateDiff::Differ(vec![Assignment { intent, terms }]);
            }
            SmtOutcome::Unsat => {}
            SmtOutcome::Unknown => undecided = true,
        }
    }
    if undecided {
        GateDiff::Undecided("z3 did not decide within its time".into())
    } else {
        GateDiff::Same
    }
}

/// The constant named `n` in `names`, or a fresh one (a value no condition names).
fn named(names: &BTreeMap<String, i64>, n: i64, prefix: &str) -> String {
    if n == 0 && prefix == "t" {
        return String::new();
    }
    names
        .iter()
        .find(|(_, v)| **v == n)
        .map_or_else(|| format!("{prefix}{n}"), |(k, _)| k.clone())
}

/// Each answer the gate can give a call with `intent`, with the formula under which it does.
fn outcomes(gate: &Gate, conds: &[Bool], intent: Option<&str>) -> Vec<(Outcome, Bool)> {
    if !gate.governed {
        return vec![(Outcome::Pass, Bool::from_bool(true))];
    }
    let mut out: Vec<(Outcome, Vec<Bool>)> = Vec::new();
    let mut earlier: Vec<Bool> = Vec::new();
    let add = |o: Outcome, f: Bool, out: &mut Vec<(Outcome, Vec<Bool>)>| match out
        .iter_mut()
        .find(|(p, _)| *p == o)
    {
        Some((_, fs)) => fs.push(f),
        None => out.push((o, vec![f])),
    };
    for (path, cond) in gate.paths.iter().zip(conds) {
        if path.intent.as_deref().is_some_and(|i| Some(i) != intent) {
            continue;
        }
        let none_before = earlier.iter().map(|e| e.not()).collect::<Vec<_>>();
        let taken = Bool::and(&[std::slice::from_ref(cond), none_before.as_slice()].concat());
        add(action_outcome(&path.action), taken, &mut out);
        earlier.push(cond.clone());
    }
    let none = earlier.iter().map(|e| e.not()).collect::<Vec<_>>();
    let default = match gate.default {
        Some(GateDefault::Allow) => Outcome::Pass,
        _ => Outcome::NoFlow,
    };
    add(
        default,
        if none.is_empty() {
            Bool::from_bool(true)
        } else {
            Bool::and(&none)
        },
        &mut out,
    );
    out.into_iter().map(|(o, fs)| (o, Bool::or(&fs))).collect()
}
