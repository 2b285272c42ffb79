//! The rulebook's gate conditions in z3, in the theories `theory` reads them in: each term (a
//! fact, an argument, an expression not looked into) is a JSON value, encoded as its kind (an
//! integer: null, boolean, number, text, list or mapping) beside one payload per kind (a
//! boolean, a real, an integer naming a text, an integer naming a list or mapping). Texts and
//! lists are compared only for equality, so naming each constant by an integer (the empty text,
//! list and mapping by fixed ones) decides the same as the texts would; numbers are reals, which
//! every JSON number is. For each path: whether its condition can hold, and whether the paths
//! before it with the same intent take every call it would.

use std::collections::BTreeMap;

use stalwart_record::{CompareOp, ExprIdx, Gate, RecordBody};
use z3::ast::{Bool, Int, Real};

use super::solver::{Outcome, Smt};
use crate::gate::{PathVerdict, earlier_with_same_intent};
use crate::theory::{EMPTY_LIST, EMPTY_MAP, Json, Node, node};

/// The most milliseconds z3 spends on the paths of one gate.
const GATE_MS: u32 = 5_000;

/// The kinds of a JSON value.
pub(super) const NULL: i64 = 0;
pub(super) const BOOL: i64 = 1;
pub(super) const NUM: i64 = 2;
pub(super) const TEXT: i64 = 3;
pub(super) const OTHER: i64 = 4;

/// The integer naming the empty text; `EMPTY_LIST` and `EMPTY_MAP` are named 0 and 1 among
/// lists and mappings.
const EMPTY_TEXT: i64 = 0;

/// z3's verdict on each path of a gate; `None` where it gives up.
pub fn gate_paths(body: &RecordBody, gate: &Gate) -> Vec<Option<PathVerdict>> {
    let smt = Smt::for_conditions(GATE_MS);
    let mut enc = Encoder::new(body, &smt);
    let mut queries = 0;
    let mut holds = |formula: Bool| {
        let q = Bool::new_const(format!("query_{queries}"));
        queries += 1;
        smt.assert(&q.implies(&formula));
        match smt.check(std::slice::from_ref(&q)) {
            Outcome::Sat(_) => Some(true),
            Outcome::Unsat => Some(false),
            Outcome::Unknown => None,
        }
    };
    (0..gate.paths.len())
        .map(|i| {
            let path = gate.paths.get(i)?;
            let own = enc.condition(path.condition);
            let earlier: Vec<Bool> = earlier_with_same_intent(gate, i)
                .iter()
                .map(|p| enc.condition(p.condition))
                .collect();
            if !holds(own.clone())? {
                return Some(PathVerdict::Never);
            }
            let before = if earlier.is_empty() {
                Bool::from_bool(false)
            } else {
                Bool::or(&earlier)
            };
            if !holds(Bool::and(&[own, before.not()]))? {
                return Some(PathVerdict::Shadowed);
            }
            Some(PathVerdict::Live)
        })
        .collect()
}

/// A JSON value: its kind and a payload per kind (those of other kinds mean nothing).
#[derive(Debug, Clone)]
pub(super) struct Value {
    pub(super) kind: Int,
    pub(super) boolean: Bool,
    pub(super) number: Real,
    pub(super) text: Int,
    pub(super) other: Int,
}

pub(super) struct Encoder<'a> {
    /// The record whose conditions are read (two records' conditions may share one encoder:
    /// their terms are named alike).
    pub(super) body: &'a RecordBody,
    smt: &'a Smt,
    pub(super) terms: BTreeMap<String, Value>,
    /// The integer naming each text constant (the empty text is [`EMPTY_TEXT`]).
    pub(super) texts: BTreeMap<String, i64>,
    /// The integer naming each list or mapping constant, by its canonical text.
    pub(super) others: BTreeMap<String, i64>,
}

impl<'a> Encoder<'a> {
    pub(super) fn new(body: &'a RecordBody, smt: &'a Smt) -> Self {
        Encoder {
            body,
            smt,
            terms: BTreeMap::new(),
            texts: BTreeMap::new(),
            others: BTreeMap::from([(EMPTY_LIST.to_string(), 0), (EMPTY_MAP.to_string(), 1)]),
        }
    }

    /// A path's condition (`None`: always).
    pub(super) fn condition(&mut self, c: Option<ExprIdx>) -> Bool {
        match c {
            None => Bool::from_bool(true),
            Some(c) => truthy(&self.value(c, 0)),
        }
    }

    fn value(&mut self, e: ExprIdx, depth: usize) -> Value {
        match node(self.body, e, depth) {
            Node::Term(key) => self.term(key),
            Node::Literal(j) => self.constant(&j),
            Node::Not(x) => boolean(truthy(&self.value(x, depth + 1)).not()),
            Node::And(a, b) => {
                let (a, b) = (self.value(a, depth + 1), self.value(b, depth + 1));
                boolean(Bool::and(&[truthy(&a), truthy(&b)]))
            }
            Node::Or(a, b) => {
                let (a, b) = (self.value(a, depth + 1), self.value(b, depth + 1));
                boolean(Bool::or(&[truthy(&a), truthy(&b)]))
            }
            Node::Compare(op, l, r) => {
                let (l, r) = (self.value(l, depth + 1), self.value(r, depth + 1));
                boolean(compare(op, &l, &r))
            }
            Node::IsNone(x) => boolean(is(&self.value(x, depth + 1), NULL)),
        }
    }

    /// The term named `key`: free constants, its kind one of the six.
    fn term(&mut self, key: String) -> Value {
        if let Some(v) = self.terms.get(&key) {
            return v.clone();
        }
        let v = Value {
            kind: Int::new_const(format!("{key} kind")),
            boolean: Bool::new_const(format!("{key} boolean")),
            number: Real::new_const(format!("{key} number")),
            text: Int::new_const(format!("{key} text")),
            other: Int::new_const(format!("{key} other")),
        };
        self.smt.assert(&Bool::and(&[
            v.kind.ge(Int::from_i64(NULL)),
            v.kind.le(Int::from_i64(OTHER)),
        ]));
        self.terms.insert(key, v.clone());
        v
    }

    fn constant(&mut self, j: &Json) -> Value {
        let mut v = Value {
            kind: Int::from_i64(NULL),
            boolean: Bool::from_bool(false),
            number: Real::from_rational(0, 1),
            text: Int::from_i64(EMPTY_TEXT),
            other: Int::from_i64(0),
        };
        match j {
            Json::Null => {}
            Json::Bool(b) => {
                v.kind = Int::from_i64(BOOL);
                v.boolean = Bool::from_bool(*b);
            }
            Json::Num(n) => {
                v.kind = Int::from_i64(NUM);
                v.number = real(*n);
            }
            Json::Str(s) => {
                v.kind = Int::from_i64(TEXT);
                v.text = Int::from_i64(name(&mut self.texts, s, 1));
            }
            Json::Other(o) => {
                v.kind = Int::from_i64(OTHER);
                v.other = Int::from_i64(name(&mut self.others, o, 0));
            }
        }
        v
    }
}

/// The integer naming `s` in `names`: the empty text is [`EMPTY_TEXT`], others are numbered
/// from `first` on in the order met.
fn name(names: &mut BTreeMap<String, i64>, s: &str, first: i64) -> i64 {
    if first > 0 && s.is_empty() {
        return EMPTY_TEXT;
    }
    let next = first + names.len() as i64;
    *names.entry(s.to_string()).or_insert(next)
}

/// A number as an exact real: its shortest decimal form (which orders and equals as the floats
/// do) as a fraction.
fn real(n: f64) -> Real {
    let text = format!("{n}");
    let (whole, fraction) = text.split_once('.').unwrap_or((&text, ""));
    let denominator = format!("1{}", "0".repeat(fraction.len()));
    Real::from_rational_str(&format!("{whole}{fraction}"), &denominator)
        .unwrap_or_else(|| Real::from_rational(0, 1))
}

fn boolean(b: Bool) -> Value {
    Value {
        kind: Int::from_i64(BOOL),
        boolean: b,
        number: Real::from_rational(0, 1),
        text: Int::from_i64(EMPTY_TEXT),
        other: Int::from_i64(0),
    }
}

fn is(v: &Value, kind: i64) -> Bool {
    v.kind.eq(Int::from_i64(kind))
}

fn truthy(v: &Value) -> Bool {
    Bool::or(&[
        Bool::and(&[is(v, BOOL), v.boolean.clone()]),
        Bool::and(&[is(v, NUM), v.number.eq(Real::from_rational(0, 1)).not()]),
        Bool::and(&[is(v, TEXT), v.text.eq(Int::from_i64(EMPTY_TEXT)).not()]),
        // The empty list and the empty mapping are named 0 and 1.
        Bool::and(&[
            is(v, OTHER),
            v.other.eq(Int::from_i64(0)).not(),
            v.other.eq(Int::from_i64(1)).not(),
        ]),
    ])
}

/// JSON equality: the same kind and the same payload of that kind.
fn equal(l: &Value, r: &Value) -> Bool {
    Bool::and(&[
        l.kind.eq(&r.kind),
        is(l, BOOL).implies(l.boolean.eq(&r.boolean)),
        is(l, NUM).implies(l.number.eq(&r.number)),
        is(l, TEXT).implies(l.text.eq(&r.text)),
        is(l, OTHER).implies(l.other.eq(&r.other)),
    ])
}

fn compare(op: CompareOp, l: &Value, r: &Value) -> Bool {
    let numbers = |order: Bool| Bool::and(&[is(l, NUM), is(r, NUM), order]);
    match op {
        CompareOp::Eq => equal(l, r),
        CompareOp::Ne => equal(l, r).not(),
        CompareOp::Lt => numbers(l.number.lt(&r.number)),
        CompareOp::Le => numbers(l.number.le(&r.number)),
        CompareOp::Gt => numbers(l.number.gt(&r.number)),
        CompareOp::Ge => numbers(l.number.ge(&r.number)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_number_is_the_real_its_decimal_form_writes() {
        assert_eq!(real(500.0).as_rational(), Some((500, 1)));
        assert_eq!(real(-2.5).as_rational(), Some((-5, 2)));
        assert_eq!(real(0.1).as_rational(), Some((1, 10)));
        assert_eq!(real(-0.5).as_rational(), Some((-1, 2)));
        assert_eq!(
            real(1e18).as_rational(),
            Some((1_000_000_000_000_000_000, 1))
        );
    }
}
