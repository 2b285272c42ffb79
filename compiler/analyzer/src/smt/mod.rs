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
mod diff;
mod encode;
mod event;
mod search;
mod solver;
mod tables;

use std::collections::BTreeMap;

use z3::ast::Bool;

pub use conditions::gate_paths;
pub use diff::gate_diff;

use crate::system::{Answer, Obligation, System};
use encode::Unrolling;
use solver::Smt;

/// Answers every obligation of the system.
pub fn solve(sys: &System<'_>) -> BTreeMap<Obligation, Answer> {
    search::run(sys)
}

/// The formula of `transitions` steps of the system as SMT-LIB text: the initial states, each
/// transition, and for each obligation a constant `reach <rule> <subject>` that holds when its
/// event happens at one of those steps. Names are deterministic, so the text is stable.
pub fn smtlib(sys: &System<'_>, transitions: usize) -> String {
    let smt = Smt::new(0);
    let (mut unrolling, initial) = Unrolling::new(sys);
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
