//! The SMT engine: bounded model checking of the transition system with z3.
//!
//! `tables` indexes the system's facts; `encode` unrolls the system one transition at a time,
//! with exactly the semantics of `explicit::take`; `event` says when a transition raises an
//! obligation's event; `solver` is the only place that runs z3; `decode` reads models back into
//! witnesses and states; `search` decides which questions to ask. `conditions` checks the
//! rulebook's gate conditions (QG004, QG010) over integers, reals and booleans with the same
//! solver code; `diff` and `pattern` compare two versions' gates and schema patterns for
//! `stalwart diff`.
//!
//! What a search encodes: a *slice* of the system (`tables::Slice`). Its view is the explicit
//! search's (`explicit::View`): only the tool bits and counters its obligations' events read are
//! variables, and a check that would read a forgotten one lets the call through; a witness is
//! kept only when it replays through the real check, and otherwise the obligation is searched
//! again with what the refusing check reads kept too (all such obligations of a rule and cone
//! together, in one view). Its cone (`tables::Cone`) is the part of the run's state the obligations' events
//! read: the rest (the marks only other rules' events read) stays constant. Two edges with the
//! same ends, class and agent are one transition, and tool nodes the slice cannot tell apart
//! (other than the tools the obligations name) are one node. Obligations are grouped by rule and
//! slice, and each group is one search, so a group's unrolling holds only its own obligations'
//! events.
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
//! unreachable. Three shortcuts close obligations unreachable earlier: one whose event neither
//! transition 0 nor 1 can raise (every later transition is made as transition 1 is); once the
//! first run is ruled out (or at once, on a thread of its own, for a small catalogue's one
//! search), one no run can raise: `depth` transitions from any state a run starts
//! in (its run state reset, the sessions free but for `Unrolling::session_lemmas`) cannot raise
//! it; and, once fifteen transitions are ruled out, one that induction proves: `k + 1`
//! transitions from any state (reachable or not) cannot end in its event, for `k` of 1 or 3.
//! A small catalogue's obligations are one search, over the whole state; a larger one's start,
//! per rule, in the view that keeps what their events and their tools' checks read. When the
//! solver gives up or
//! the budget (`Bounds::solver_ms`, one deadline for every search of a proof) runs out, every
//! open obligation is undecided, never unreachable.

mod conditions;
mod decode;
mod diff;
mod encode;
mod event;
mod pattern;
mod search;
mod solver;
mod tables;

use std::collections::BTreeMap;
use std::time::{Duration, Instant};

use z3::ast::Bool;

pub use conditions::gate_paths;
pub use diff::gate_diff;
pub use pattern::{Lengths, pattern_witnesses};

use crate::explicit::{self, View, Witness};
use crate::system::{Answer, Obligation, System};
use encode::Unrolling;
use solver::Smt;
use tables::{Cone, Slice};

/// The most tool bits and counters a check may read for the search to encode all of them from
/// the start rather than only the obligation's view.
const SMALL_CHECK: usize = 16;

/// The key of the one search of a small catalogue, which answers every rule's obligations.
const EVERY_RULE: &str = "*";

/// Answers every obligation of the system within `Bounds::solver_ms`: one search per slice (the
/// explicit search's view of the obligation, and the cone of state its event reads), and again
/// with more kept for every witness that does not replay through the real check.
pub fn solve(sys: &System<'_>) -> BTreeMap<Obligation, Answer> {
    let deadline = Instant::now() + Duration::from_millis(u64::from(sys.bounds.solver_ms));
    let mut answers: BTreeMap<Obligation, Answer> = BTreeMap::new();
    // One search per rule and slice: a search's obligations are then alike, and one question
    // (the induction's first, say) can settle all of them at once.
    // A small catalogue's check is cheap to encode whole, and a view there costs more searches
    // again than it saves. Otherwise a rule's obligations start in one view: what their events
    // read and what the checks of the tools they run read, so a first witness passes those
    // checks (one search per rule rather than one per view, and no second round for those).
    let small = sys.relevant_count + sys.counted_count <= SMALL_CHECK;
    let mut first: BTreeMap<(&str, Cone), (View, Vec<&Obligation>)> = BTreeMap::new();
    for o in &sys.obligations {
        // A small catalogue's obligations are one search over the whole state: one unrolling
        // and one run of windows for all of them, rather than one per rule.
        let (view, key) = if small {
            (View::all(sys), (EVERY_RULE, Cone::all()))
        } else {
            (
                View::for_obligation_with_check(sys, o),
                (o.rule, Cone::of(o.rule)),
            )
        };
        let (joined, wanted) = first
            .entry(key)
            .or_insert_with(|| (View::none(sys), Vec::new()));
        joined.join(&view);
        wanted.push(o);
    }
    let mut round: BTreeMap<(&str, Slice), Vec<&Obligation>> = first
        .into_iter()
        .map(|((rule, cone), (view, wanted))| ((rule, Slice { view, cone }), wanted))
        .collect();
    // Searches cut short by their share of the budget, to be run again with what is left once
    // every other search has had its share.
    let mut late: Vec<((&str, Slice), Vec<&Obligation>)> = Vec::new();
    while !round.is_empty() || !late.is_empty() {
        let last_chance = round.is_empty();
        let groups: Vec<((&str, Slice), Vec<&Obligation>)> = if last_chance {
            std::mem::take(&mut late)
        } else {
            std::mem::take(&mut round).into_iter().collect()
        };
        // Witnesses that do not replay are searched again together, per rule and cone, in one
        // view that keeps what each of their refusals named: one unrolling, not one per view.
        let mut next: BTreeMap<(&str, Cone), (View, Vec<&Obligation>)> = BTreeMap::new();
        let count = groups.len();
        for (i, ((rule, slice), wanted)) in groups.into_iter().enumerate() {
            // Each search gets an equal share of what is left, so one hard group does not starve
            // the others.
            let now = Instant::now();
            let share =
                deadline.saturating_duration_since(now) / u32::try_from(count - i).unwrap_or(1);
            let final_word = last_chance || now + share >= deadline;
            let ahead = rule == EVERY_RULE;
            let mut found = search::run(sys, &slice, &wanted, now + share, ahead);
            let mut again = Vec::new();
            for o in wanted {
                let answer = found.remove(o).unwrap_or(Answer::Undecided);
                let path = match &answer {
                    Answer::Reachable(path) => path,
                    Answer::Undecided if !final_word => {
                        again.push(o);
                        continue;
                    }
                    _ => {
                        answers.insert(o.clone(), answer);
                        continue;
                    }
                };
                match explicit::check_witness(sys, &slice.view, path, o) {
                    Witness::Replays => {
                        answers.insert(o.clone(), answer);
                    }
                    Witness::Retry(view) => {
                        let (joined, retry) = next
                            .entry((rule, slice.cone))
                            .or_insert_with(|| (View::none(sys), Vec::new()));
                        joined.join(&view);
                        retry.push(o);
                    }
                    Witness::Undecided => {
                        answers.insert(o.clone(), Answer::Undecided);
                    }
                }
            }
            if !again.is_empty() {
                late.push(((rule, slice), again));
            }
        }
        round = next
            .into_iter()
            .map(|((rule, cone), (view, retry))| ((rule, Slice { view, cone }), retry))
            .collect();
        if Instant::now() >= deadline {
            // Nothing more can be decided: what is left is undecided.
            break;
        }
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
    let (mut unrolling, initial) = Unrolling::new(sys, &Slice::all(sys), None);
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
