//! The SMT engine: bounded model checking of the transition system with z3.
//!
//! `encode` unrolls the system one transition at a time; `solver` runs z3; `decode` reads a
//! model back into a witness. The engine asks, after each new transition `j`, whether any open
//! obligation's event can happen at exactly that transition, so the first witness it finds for an
//! obligation is a shortest one, as the explicit search's is. One solver answers every obligation:
//! the unrolling's constraints are asserted once and stay, and each query is a fresh assumption
//! that implies the disjunction of the open obligations' events. A satisfiable query closes every
//! obligation whose event holds in its model; an unsatisfiable one moves on to the next
//! transition. An obligation still open after the longest path the bounds allow
//! (`turns × (depth + 1) − 1` transitions) is unreachable; when the solver gives up or the
//! budget (`Bounds::solver_ms`) runs out, every open obligation is undecided.

mod decode;
mod encode;
mod solver;

use std::collections::BTreeMap;

use z3::ast::Bool;

use crate::system::{Answer, Obligation, System};
use encode::Unrolling;
use solver::{Outcome, Smt};

/// Answers every obligation of the system.
pub fn solve(sys: &System<'_>) -> BTreeMap<Obligation, Answer> {
    let smt = Smt::new(sys.bounds.solver_ms);
    let (mut unrolling, initial) = Unrolling::new(sys);
    for c in &initial {
        smt.assert(c);
    }
    let mut answers = BTreeMap::new();
    let mut open: Vec<&Obligation> = sys.obligations.iter().collect();
    let mut undecided = false;
    'transitions: for j in 0..unrolling.tables.transitions {
        if open.is_empty() {
            break;
        }
        for c in unrolling.extend() {
            smt.assert(&c);
        }
        let mut events: Vec<(&Obligation, Bool)> = open
            .iter()
            .filter_map(|o| unrolling.event(o, j).map(|e| (*o, e)))
            .collect();
        let mut round = 0;
        while !events.is_empty() {
            let query = Bool::new_const(format!("query_{j}_{round}"));
            round += 1;
            let any: Vec<Bool> = events.iter().map(|(_, e)| e.clone()).collect();
            smt.assert(&query.implies(Bool::or(&any)));
            match smt.check(&query) {
                Outcome::Sat(model) => {
                    let path = decode::witness(&model, &unrolling, j);
                    let before = events.len();
                    events.retain(|(o, e)| {
                        if decode::holds(&model, e) {
                            answers.insert((*o).clone(), Answer::Reachable(path.clone()));
                            false
                        } else {
                            true
                        }
                    });
                    if events.len() == before {
                        // A model of the disjunction satisfies none of it: the solver is not
                        // to be trusted further.
                        undecided = true;
                        break 'transitions;
                    }
                }
                Outcome::Unsat => break,
                Outcome::Unknown => {
                    undecided = true;
                    break 'transitions;
                }
            }
        }
        open.retain(|o| !answers.contains_key(*o));
    }
    for o in open {
        if !answers.contains_key(o) {
            let answer = if undecided {
                Answer::Undecided
            } else {
                Answer::Unreachable
            };
            answers.insert(o.clone(), answer);
        }
    }
    answers
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
        for c in unrolling.extend() {
            smt.assert(&c);
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
