//! Reads a model back: the edges a satisfying path takes (as graph edge indices, what a witness
//! names), and whether an obligation's event holds in it.

use z3::Model;
use z3::ast::{BV, Bool};

use super::encode::{State, Unrolling};

/// The edges of transitions `0..=last` in the model: at each, the row its choice names among
/// those leaving the node the model's state is at. A choice past them decodes to `usize::MAX`,
/// which no replay accepts.
pub(crate) fn witness(model: &Model, unrolling: &Unrolling<'_, '_>, last: usize) -> Vec<usize> {
    let tables = &unrolling.tables;
    let value = |v: &BV| {
        model
            .eval(v, true)
            .and_then(|v| v.as_u64())
            .and_then(|v| usize::try_from(v).ok())
    };
    unrolling
        .steps
        .iter()
        .zip(unrolling.states.iter())
        .take(last + 1)
        .map(|(step, state)| {
            let (lo, hi) = value(&state.node)
                .and_then(|v| tables.ranges.get(v))
                .copied()
                .unwrap_or((0, 0));
            value(&step.choice)
                .map(|k| lo + k)
                .filter(|&i| i < hi)
                .and_then(|i| tables.rows.get(i))
                .map_or(usize::MAX, |row| row.graph_index)
        })
        .collect()
}

/// Whether a condition is true in the model.
pub(crate) fn holds(model: &Model, condition: &Bool) -> bool {
    model
        .eval(condition, true)
        .and_then(|v| v.as_bool())
        .unwrap_or(false)
}

/// State `j` of the unrolling, with the values the model gives it.
pub(crate) fn state(model: &Model, unrolling: &Unrolling<'_, '_>, j: usize) -> Option<State> {
    let s = unrolling.states.get(j)?;
    Some(s.map(
        &|b| model.eval(b, true).unwrap_or_else(|| b.clone()),
        &|v| model.eval(v, true).unwrap_or_else(|| v.clone()),
    ))
}
