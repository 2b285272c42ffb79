//! The rulebook's compiled gates: whether each path of a tool's gate can ever decide a call. A
//! path is dead when its condition never holds, or when the paths before it with the same intent
//! take every call it would (the first path that holds decides).
//!
//! Conditions are read in their own theories (`theory`): facts and arguments are JSON values,
//! `< <= > >=` hold between numbers only, `==` is JSON equality, so `$args.amount > 500 and
//! $args.amount < 100` never holds. Two engines answer: an enumeration of one value of each
//! class of values the conditions tell apart (here), exact inside `theory`'s fragment and
//! undecided beyond it, and z3 (`smt::conditions`) over integers, reals and the values' kinds.
//! Where both decide and differ, the path is a disagreement (QG312); where one cannot decide,
//! the other's answer stands.

use stalwart_record::{ExprIdx, Gate, GateAction, GatePath, RecordBody, SourceSpan};

use crate::theory::{Cond, Fragment, Json, next_combination};

/// The deepest condition read; a deeper node (or one naming a node that is not there) is null,
/// as the runtime reads it.
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

/// The enumeration's verdict on each path of a gate; `None` where it does not decide (the
/// conditions are beyond the exact fragment of `theory`, or have too many classes of values).
pub fn enumerate_paths(body: &RecordBody, gate: &Gate) -> Vec<Option<PathVerdict>> {
    (0..gate.paths.len())
        .map(|i| {
            let path = gate.paths.get(i)?;
            let mut fragment = Fragment::default();
            let mut read = |c: Option<ExprIdx>| c.map(|c| fragment.add(body, c, 0)).transpose();
            let own = read(path.condition).ok()?;
            let earlier = earlier_with_same_intent(gate, i)
                .iter()
                .map(|p| read(p.condition))
                .collect::<Result<Vec<Option<Cond>>, _>>()
                .ok()?;
            let standing = fragment.standing().ok()?;
            let holds = |c: &Option<Cond>, terms: &[Json]| {
                c.as_ref().is_none_or(|c| c.eval(terms).truthy())
            };
            let (mut held, mut shadowed) = (false, true);
            let mut at = vec![0; standing.len()];
            loop {
                let terms: Vec<Json> = at
                    .iter()
                    .zip(&standing)
                    .filter_map(|(&d, values)| values.get(d).cloned())
                    .collect();
                if holds(&own, &terms) {
                    held = true;
                    if !earlier.iter().any(|c| holds(c, &terms)) {
                        shadowed = false;
                        break;
                    }
                }
                if !next_combination(&mut at, &standing) {
                    break;
                }
            }
            Some(match (held, shadowed) {
                (false, _) => PathVerdict::Never,
                (true, true) => PathVerdict::Shadowed,
                (true, false) => PathVerdict::Live,
            })
        })
        .collect()
}
