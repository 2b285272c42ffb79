//! The rulebook's gate conditions in z3: each path's condition over the same propositions the
//! enumeration of `gate.rs` reads (a fact, an argument or a comparison is a free boolean), and
//! for each path whether its condition can hold and whether the paths before it with the same
//! intent imply it.

use stalwart_record::{Expr, ExprIdx, Gate, RecordBody};
use z3::ast::Bool;

use super::solver::{Outcome, Smt};
use crate::gate::{MAX_DEPTH, PathVerdict, earlier_with_same_intent, truthy};

/// The most milliseconds z3 spends on the paths of one gate.
const GATE_MS: u32 = 5_000;

/// z3's verdict on each path of a gate; `None` where it gives up or the condition names a node
/// that is not in the record.
pub fn gate_paths(body: &RecordBody, gate: &Gate) -> Vec<Option<PathVerdict>> {
    let smt = Smt::new(GATE_MS);
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
            let own = condition(body, path.condition)?;
            let earlier = earlier_with_same_intent(gate, i)
                .iter()
                .map(|p| condition(body, p.condition))
                .collect::<Option<Vec<Bool>>>()?;
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

/// A path's condition (`None`: always), or `None` when it cannot be read.
fn condition(body: &RecordBody, c: Option<ExprIdx>) -> Option<Bool> {
    match c {
        None => Some(Bool::from_bool(true)),
        Some(c) => encode(body, c, 0),
    }
}

fn encode(body: &RecordBody, e: ExprIdx, depth: usize) -> Option<Bool> {
    if depth > MAX_DEPTH {
        return None;
    }
    let at = |x: ExprIdx| encode(body, x, depth + 1);
    Some(match body.exprs.get(e as usize)? {
        Expr::Not(x) => at(*x)?.not(),
        Expr::And(a, b) => Bool::and(&[at(*a)?, at(*b)?]),
        Expr::Or(a, b) => Bool::or(&[at(*a)?, at(*b)?]),
        Expr::Literal(v) => Bool::from_bool(truthy(body.values.get(*v as usize)?)),
        Expr::Fact(name) => Bool::new_const(format!("fact {name}")),
        Expr::Arg(name) => Bool::new_const(format!("arg {name}")),
        // A comparison (or any other value read as a truth) is a proposition of its own, named
        // by its node, as `gate::same` reads it; an unknown one is free, never a proof.
        _ => Bool::new_const(format!("atom {e}")),
    })
}
