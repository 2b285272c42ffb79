//! The rulebook's compiled conditions, read as propositions: whether a gate path's condition can
//! hold at all. Every atom (a fact, a comparison, an argument) is a free truth value, so a
//! condition that is unsatisfiable here never holds whatever the facts and arguments are.

use stalwart_record::{Expr, ExprIdx, RecordBody, Value};

/// The most atoms enumerated; a condition with more is taken as satisfiable.
const MAX_ATOMS: usize = 16;

/// Whether some assignment of the condition's atoms makes it true.
pub fn satisfiable(body: &RecordBody, root: ExprIdx) -> bool {
    let mut atoms = Vec::new();
    collect(body, root, &mut atoms);
    if atoms.len() > MAX_ATOMS {
        return true;
    }
    (0u32..(1u32 << atoms.len())).any(|bits| eval(body, root, &atoms, bits) == Some(true))
}

fn collect(body: &RecordBody, e: ExprIdx, atoms: &mut Vec<ExprIdx>) {
    match body.exprs.get(e as usize) {
        Some(Expr::Not(x)) => collect(body, *x, atoms),
        Some(Expr::And(a, b) | Expr::Or(a, b)) => {
            collect(body, *a, atoms);
            collect(body, *b, atoms);
        }
        Some(Expr::Literal(_)) | None => {}
        Some(_) => {
            if !atoms.iter().any(|&a| same(body, a, e)) {
                atoms.push(e);
            }
        }
    }
}

fn same(body: &RecordBody, a: ExprIdx, b: ExprIdx) -> bool {
    match (body.exprs.get(a as usize), body.exprs.get(b as usize)) {
        (Some(Expr::Fact(x)), Some(Expr::Fact(y))) | (Some(Expr::Arg(x)), Some(Expr::Arg(y))) => {
            x == y
        }
        _ => a == b,
    }
}

fn eval(body: &RecordBody, e: ExprIdx, atoms: &[ExprIdx], bits: u32) -> Option<bool> {
    match body.exprs.get(e as usize)? {
        Expr::Not(x) => eval(body, *x, atoms, bits).map(|v| !v),
        Expr::And(a, b) => Some(eval(body, *a, atoms, bits)? && eval(body, *b, atoms, bits)?),
        Expr::Or(a, b) => Some(eval(body, *a, atoms, bits)? || eval(body, *b, atoms, bits)?),
        Expr::Literal(v) => Some(match body.values.get(*v as usize)? {
            Value::Bool(b) => *b,
            Value::Null => false,
            Value::Number(n) => *n != 0.0,
            Value::String(s) => !s.is_empty(),
            Value::Array(a) => !a.is_empty(),
            Value::Object(o) => !o.is_empty(),
        }),
        _ => {
            let i = atoms.iter().position(|&a| same(body, a, e))?;
            Some(bits & (1 << i) != 0)
        }
    }
}
