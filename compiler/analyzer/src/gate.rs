//! The rulebook's compiled gates, read as propositions: whether each path of a tool's gate can
//! ever decide a call. A path is dead when its condition never holds, or when the paths before
//! it with the same intent take every call it would (the first path that holds decides).
//!
//! Every atom of a condition (a fact, an argument, a comparison) is a free truth value, so a
//! condition that is unsatisfiable here never holds whatever the facts and arguments are. Two
//! engines answer: an enumeration of the atoms' values (here), and z3 (`smt::conditions`) over
//! the same propositions. Where both decide and differ, the path is a disagreement (QG312); where
//! one cannot decide (the enumeration stops past `MAX_ATOMS`), the other's answer stands.

use stalwart_record::{Expr, ExprIdx, Gate, GateAction, GatePath, RecordBody, SourceSpan, Value};

/// The most atoms enumerated; past it, the enumeration does not decide.
const MAX_ATOMS: usize = 16;

/// The deepest condition read; a deeper one (or one naming a node that is not there) never
/// holds, as the runtime reads nothing past its own limit.
pub const MAX_DEPTH: usize = 64;

/// What an engine says of one path.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PathVerdict {
    /// It can decide a call.
    Live,
    /// Its condition never holds.
    Never,
    /// The paths before it with the same intent take every call it would.
    Shadowed,
}

impl PathVerdict {
    pub fn describe(self) -> &'static str {
        match self {
            PathVerdict::Live => "it can be taken",
            PathVerdict::Never => "its condition never holds",
            PathVerdict::Shadowed => "the paths before it with the same intent take every call",
        }
    }
}

/// The paths before `i` that apply to every call path `i` applies to: those with its intent.
pub fn earlier_with_same_intent(gate: &Gate, i: usize) -> Vec<&GatePath> {
    let Some(path) = gate.paths.get(i) else {
        return Vec::new();
    };
    gate.paths
        .iter()
        .take(i)
        .filter(|p| p.intent == path.intent)
        .collect()
}

/// Each engine's verdicts on the paths of a gate, by engine name: the enumeration first.
pub fn path_verdicts(
    body: &RecordBody,
    gate: &Gate,
) -> Vec<(&'static str, Vec<Option<PathVerdict>>)> {
    #[cfg_attr(not(feature = "z3"), allow(unused_mut))]
    let mut out = vec![("enumeration", enumerate_paths(body, gate))];
    #[cfg(feature = "z3")]
    out.push(("z3", crate::smt::gate_paths(body, gate)));
    out
}

/// Each engine's answer to whether a call can reach the gate's default, by engine name:
/// `Some(true)` when one can, `Some(false)` when the paths decide every call, `None` where the
/// engine does not decide. The default is read as one more path, last, with no intent and no
/// condition: a call whose intent no path names meets only the paths with no intent, so the
/// default is reached exactly when that last path is not shadowed.
pub fn default_verdicts(body: &RecordBody, gate: &Gate) -> Vec<(&'static str, Option<bool>)> {
    let mut with_default = gate.clone();
    with_default.paths.push(GatePath {
        flow: String::new(),
        intent: None,
        condition: None,
        action: GateAction::Allow,
        span: SourceSpan::default(),
    });
    path_verdicts(body, &with_default)
        .into_iter()
        .map(|(engine, verdicts)| {
            let last = verdicts.last().copied().flatten();
            (engine, last.map(|v| v == PathVerdict::Live))
        })
        .collect()
}

/// The enumeration's verdict on each path of a gate; `None` where it does not decide.
pub fn enumerate_paths(body: &RecordBody, gate: &Gate) -> Vec<Option<PathVerdict>> {
    (0..gate.paths.len())
        .map(|i| {
            let path = gate.paths.get(i)?;
            let earlier: Vec<Option<ExprIdx>> = earlier_with_same_intent(gate, i)
                .iter()
                .map(|p| p.condition)
                .collect();
            let mut atoms = Vec::new();
            for c in std::iter::once(&path.condition)
                .chain(earlier.iter())
                .flatten()
            {
                collect(body, *c, &mut atoms, 0);
            }
            if atoms.len() > MAX_ATOMS {
                return None;
            }
            let holds = |c: Option<ExprIdx>, bits: u32| match c {
                None => true,
                Some(c) => eval(body, c, &atoms, bits, 0) == Some(true),
            };
            let assignments = 0u32..(1u32 << atoms.len());
            if !assignments.clone().any(|bits| holds(path.condition, bits)) {
                return Some(PathVerdict::Never);
            }
            let taken_before = |bits: u32| earlier.iter().any(|&c| holds(c, bits));
            if assignments
                .filter(|&bits| holds(path.condition, bits))
                .all(taken_before)
            {
                return Some(PathVerdict::Shadowed);
            }
            Some(PathVerdict::Live)
        })
        .collect()
}

fn collect(body: &RecordBody, e: ExprIdx, atoms: &mut Vec<ExprIdx>, depth: usize) {
    if depth > MAX_DEPTH {
        return;
    }
    match body.exprs.get(e as usize) {
        Some(Expr::Not(x)) => collect(body, *x, atoms, depth + 1),
        Some(Expr::And(a, b) | Expr::Or(a, b)) => {
            collect(body, *a, atoms, depth + 1);
            collect(body, *b, atoms, depth + 1);
        }
        Some(Expr::Literal(_)) | None => {}
        Some(_) => {
            if !atoms.iter().any(|&a| same(body, a, e)) {
                atoms.push(e);
            }
        }
    }
}

/// Whether two atoms are the same proposition: a fact or an argument by name, anything else by
/// its node.
pub fn same(body: &RecordBody, a: ExprIdx, b: ExprIdx) -> bool {
    match (body.exprs.get(a as usize), body.exprs.get(b as usize)) {
        (Some(Expr::Fact(x)), Some(Expr::Fact(y))) | (Some(Expr::Arg(x)), Some(Expr::Arg(y))) => {
            x == y
        }
        _ => a == b,
    }
}

/// A literal's truth, as the runtime reads a value.
pub fn truthy(v: &Value) -> bool {
    match v {
        Value::Bool(b) => *b,
        Value::Null => false,
        Value::Number(n) => *n != 0.0,
        Value::String(s) => !s.is_empty(),
        Value::Array(a) => !a.is_empty(),
        Value::Object(o) => !o.is_empty(),
    }
}

fn eval(body: &RecordBody, e: ExprIdx, atoms: &[ExprIdx], bits: u32, depth: usize) -> Option<bool> {
    if depth > MAX_DEPTH {
        return None;
    }
    let at = |x: ExprIdx| eval(body, x, atoms, bits, depth + 1);
    match body.exprs.get(e as usize)? {
        Expr::Not(x) => at(*x).map(|v| !v),
        Expr::And(a, b) => Some(at(*a)? && at(*b)?),
        Expr::Or(a, b) => Some(at(*a)? || at(*b)?),
        Expr::Literal(v) => Some(truthy(body.values.get(*v as usize)?)),
        _ => {
            let i = atoms.iter().position(|&a| same(body, a, e))?;
            Some(bits & (1 << i) != 0)
        }
    }
}
