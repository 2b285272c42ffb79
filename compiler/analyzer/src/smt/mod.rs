//! The SMT engine: bounded model checking of the transition system with z3.
//!
//! `tables` indexes the system's facts; `encode` unrolls the system one transition at a time,
//! with exactly the semantics of `explicit::take`; `event` says when a transition raises an
//! obligation's event; `solver` is the only place that runs z3; `decode` reads models back into
//! witnesses and states; `search` decides which questions to ask. `conditions` checks the
//! rulebook's gate conditions (QG004, QG010) over integers, reals and booleans with the same
//! solver code.
//!
//! How the search answers: transition `j` is taken only when its literal `live_j` holds, so a
//! path may stop after any transition. A query asks whether an open obligation's event can
//! happen within a window of transitions. An unsatisfiable window rules every open obligation
//! out there, and the next window is twice as wide (up to `MAX_WINDOW`); a satisfiable one is
//! asked again transition by transition from its start, so the first witness found for an
//! obligation is a shortest one, as the explicit search's is. Those questions add no formula:
//! each is an assumption that some event of the transition happens, with the literal of every
//! obligation already closed assumed false. A model found at transition `j` is then swept: a
//! second solver holding one transition from any state, pinned to the model's state at `j`,
//! closes every other obligation the same path reaches with another last edge. An obligation
//! still open when every transition the bounds allow (`turns × (depth + 1) − 1`) is ruled out is
//! unreachable; when the solver gives up or the budget (`Bounds::solver_ms`) runs out, every
//! open obligation is undecided, never unreachable.

mod conditions;
mod decode;
mod encode;
mod event;
mod search;
mod solver;
mod tables;

use std::collections::BTreeMap;
use std::time::{Duration, Instant};

use z3::ast::Bool;

pub use conditions::gate_paths;

use crate::explicit::{self, View, Witness};
use crate::system::{Answer, Obligation, System};
use encode::Unrolling;
use solver::Smt;
use tables::{Cone, Slice};

/// Answers every obligation of the system within `Bounds::solver_ms`: one search per slice (the
/// explicit search's view of the obligation, and the cone of state its event reads), and again
/// with more kept for every witness that does not replay through the real check.
pub fn solve(sys: &System<'_>) -> BTreeMap<Obligation, Answer> {
    let deadline = Instant::now() + Duration::from_millis(u64::from(sys.bounds.solver_ms));
    let mut answers: BTreeMap<Obligation, Answer> = BTreeMap::new();
    let mut round: BTreeMap<Slice, Vec<&Obligation>> = BTreeMap::new();
    for o in &sys.obligations {
        let slice = Slice {
            view: View::for_obligation(sys, o),
            cone: Cone::of(o.rule),
        };
        round.entry(slice).or_default().push(o);
    }
    while !round.is_empty() {
        // Witnesses that do not replay are searched again together, per cone, in one view that
        // keeps what each of their refusals named: one unrolling, not one per view.
        let mut next: BTreeMap<Cone, (View, Vec<&Obligation>)> = BTreeMap::new();
        for (slice, wanted) in round {
            let mut found = search::run(sys, &slice, &wanted, deadline);
            for o in wanted {
                let answer = found.remove(o).unwrap_or(Answer::Undecided);
                let Answer::Reachable(path) = &answer else {
                    answers.insert(o.clone(), answer);
                    continue;
                };
                match explicit::check_witness(sys, &slice.view, path, o) {
                    Witness::Replays => {
                        answers.insert(o.clone(), answer);
                    }
                    Witness::Retry(view) => {
                        let (joined, retry) = next
                            .entry(slice.cone)
                            .or_insert_with(|| (View::none(sys), Vec::new()));
                        joined.join(&view);
                        retry.push(o);
                    }
                    Witness::Undecided => {
                        answers.insert(o.clone(), Answer::Undecided);
                    }
                }
            }
        }
        round = next
            .into_iter()
            .map(|(cone, (view, retry))| (Slice { view, cone }, retry))
            .collect();
    }
    sys.obligations
        .iter()
        .map(|o| {
            let answer = answers.get(o).cloned().unwrap_or(Answer::Undecided);
            (o.clone(), answer)
        })
        .collect()
}

/// The formula of `transitions` steps of the system as SMT-LIB text: the initial states, each
/// transition, and for each obligation a constant `reach <rule> <subject>` that holds when its
/// event happens at one of those steps. Names are deterministic, so the text is stable.
pub fn smtlib(sys: &System<'_>, transitions: usize) -> String {
    let smt = Smt::new(0);
    let (mut unrolling, initial) = Unrolling::new(sys, &Slice::all(sys));
    for c in &initial {
        smt.assert(c);
    }
    for _ in 0..transitions {
        let transition = unrolling.extend();
        for c in transition.taken.iter().chain(transition.defined.iter()) {
            smt.assert(c);
        }
    }
    for o in &sys.obligations {
        let events: Vec<Bool> = (0..transitions)
            .filter_map(|j| unrolling.event(o, j))
            .collect();
        let reach = Bool::new_const(format!("reach {} {}", o.rule, o.subject));
        let any = if events.is_empty() {
            Bool::from_bool(false)
        } else {
            Bool::or(&events)
        };
        smt.assert(&reach.eq(&any));
    }
    smt.smtlib()
}
