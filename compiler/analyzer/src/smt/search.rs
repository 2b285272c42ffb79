//! The order of questions the SMT engine asks: windows of transitions, then transition by
//! transition where a window holds something, with each model swept by a one-transition solver
//! (see the module above for why each answer is sound and each witness shortest).

use std::collections::{BTreeMap, BTreeSet};
use std::sync::mpsc;
use std::time::Instant;

use z3::ast::Bool;

use super::decode;
use super::encode::{State, Unrolling, or_false};
use super::solver::{Outcome, Smt};
use super::tables::{NEXT_TURN, Slice};
use crate::system::{Answer, Obligation, System};

/// The most transitions one query looks at together.
const MAX_WINDOW: usize = 8;

/// The most models the induction over runs asked ahead looks at: it starts with every obligation,
/// the reachable ones among them, and each model drops at least one.
const AHEAD_MODELS: usize = 8;

/// Answers the obligations `wanted` in a slice of the system, giving up at `deadline`.
///
/// With `ahead`, the induction over runs is asked at once, of every obligation, on a thread of
/// its own beside the windows (each thread has its own z3 context): what it proves is closed as
/// soon as it answers, and the windows need then only go on for the rest. Its proof needs
/// nothing of the windows (the initial state is one a run starts in), so it may come first. A
/// small catalogue's one search asks it so; a large one's many searches would only contend for
/// the cores.
pub(super) fn run<'s>(
    sys: &'s System<'_>,
    slice: &Slice,
    wanted: &[&'s Obligation],
    deadline: Instant,
    ahead: bool,
) -> BTreeMap<Obligation, Answer> {
    if !ahead {
        return run_with(sys, slice, wanted, deadline, None);
    }
    std::thread::scope(|scope| {
        let (tx, rx) = mpsc::channel();
        scope.spawn(move || {
            let smt = Smt::until(deadline);
            let (unrolling, _) = Unrolling::new(sys, slice, Some(&kept(sys, wanted)));
            let proved = no_run_raises(&smt, &unrolling, wanted, AHEAD_MODELS).ok();
            // The search may have ended without waiting for it: nothing is then listening.
            let _ = tx.send(proved);
        });
        run_with(sys, slice, wanted, deadline, Some(rx))
    })
}

/// The tools the obligations name: the slice keeps their nodes apart from the others.
fn kept(sys: &System<'_>, wanted: &[&Obligation]) -> BTreeSet<usize> {
    wanted
        .iter()
        .filter_map(|o| sys.tool_index(&o.subject))
        .collect()
}

/// What the induction over runs asked ahead answers: the obligations it proved unreachable, or
/// nothing when it gave up.
type Ahead<'s> = mpsc::Receiver<Option<Vec<&'s Obligation>>>;

fn run_with<'s>(
    sys: &'s System<'_>,
    slice: &Slice,
    wanted: &[&'s Obligation],
    deadline: Instant,
    ahead: Option<Ahead<'s>>,
) -> BTreeMap<Obligation, Answer> {
    let mut search = Search::new(sys, slice, wanted, deadline);
    search.ahead = ahead;
    let transitions = search.unrolling.tables.transitions;
    let run_length = sys.bounds.depth as usize;
    let mut from = 0;
    let mut width = 1;
    for j in 0..transitions {
        if search.open.is_empty() {
            break;
        }
        search.extend();
        if j == 1 {
            search.close_eventless();
            // One cheap question first: whether two transitions from any state can end in any
            // open event at all (asked ahead, the induction over runs is the stronger question).
            if search.ahead.is_none() && !search.open.is_empty() && search.induct(1, 1).is_err() {
                return search.finish(true);
            }
        }
        // A window also ends with the first run, where induction over runs is asked.
        if j + 1 - from < width && j + 1 < transitions && j + 1 != run_length {
            continue;
        }
        let terms = search.events(from..j + 1);
        if !terms.is_empty() {
            match search.query(terms) {
                Outcome::Unsat => {}
                Outcome::Unknown => return search.finish(true),
                Outcome::Sat(_) => {
                    for step in from..=j {
                        if search.close_at(step).is_err() {
                            return search.finish(true);
                        }
                    }
                }
            }
        }
        // Every transition up to `j` is ruled out for what is open: once that covers a whole
        // first run, what is left is reachable only in a later turn, or not at all.
        search.take_ahead(false);
        if j + 1 >= run_length && !search.by_runs_tried {
            search.by_runs_tried = true;
            // What was asked ahead answers first; asked again, the question holds only what is
            // still open, which it may settle where the first gave up.
            search.take_ahead(true);
            // A question the solver gave up on leaves everything open: the windows go on.
            if !search.open.is_empty() {
                let _ = search.by_runs(INDUCTION_MODELS);
            }
        }
        if j + 1 >= INDUCT_AFTER && !search.inducted {
            search.inducted = true;
            for k in INDUCTION {
                if search.open.is_empty() || search.induct(k, INDUCTION_MODELS).is_err() {
                    break;
                }
            }
        }
        // Windows widen as the search goes deeper, where most of what is left is unreachable.
        width = (width * 2).min(MAX_WINDOW);
        from = j + 1;
    }
    search.finish(false)
}

/// When the search has ruled out this many transitions (past the first run of the bounds the
/// tests and examples use, where most witnesses are), it tries to prove what is left unreachable
/// by induction, with these many transitions of history.
const INDUCT_AFTER: usize = 15;
const INDUCTION: [usize; 2] = [1, 3];
/// The most models one induction attempt looks at before it gives up on what is left.
const INDUCTION_MODELS: usize = 4;

/// The solver, the unrolling so far, and what is answered.
struct Search<'s, 'a> {
    smt: Smt,
    unrolling: Unrolling<'s, 'a>,
    /// `live_j`: transition `j` is taken. A path stops at its first transition that is not.
    live: Vec<Bool>,
    queries: usize,
    /// Per transition, a literal for each obligation open when it was added whose event can
    /// happen there: it holds when the transition is live and raises the event.
    events: Vec<BTreeMap<&'s Obligation, Bool>>,
    /// Per transition, a literal that implies one of its event literals whose obligation's
    /// literal in `enabled` holds.
    any: Vec<Bool>,
    /// Per obligation, a literal assumed false once it is closed.
    enabled: BTreeMap<&'s Obligation, Bool>,
    /// The second solver of `sweep`, made when first needed.
    one: Option<OneStep<'s, 'a>>,
    answers: BTreeMap<Obligation, Answer>,
    open: Vec<&'s Obligation>,
    /// The search tried induction already.
    inducted: bool,
    /// The search tried induction over runs already.
    by_runs_tried: bool,
    /// The induction over runs asked ahead, until it has answered.
    ahead: Option<Ahead<'s>>,
}

/// One transition from any state, in a solver of its own, with a literal per obligation's event.
struct OneStep<'s, 'a> {
    smt: Smt,
    unrolling: Unrolling<'s, 'a>,
    events: BTreeMap<&'s Obligation, Bool>,
    /// Implies one of the event literals whose obligation's `enabled` literal holds.
    any: Bool,
    pins: usize,
}

impl<'s, 'a> OneStep<'s, 'a> {
    fn new(
        smt: &Smt,
        of: &Unrolling<'s, 'a>,
        open: &[&'s Obligation],
        enabled: &BTreeMap<&'s Obligation, Bool>,
    ) -> Self {
        let smt = smt.sibling();
        let mut unrolling = of.unrolling_from_any_state();
        let transition = unrolling.extend();
        for c in transition.taken.iter().chain(transition.defined.iter()) {
            smt.assert(c);
        }
        let mut events = BTreeMap::new();
        for o in open {
            if let Some(e) = unrolling.event(o, 0) {
                let literal = Bool::new_const(format!("event_{}_{}", o.rule, o.subject));
                smt.assert(&literal.eq(e));
                events.insert(*o, literal);
            }
        }
        let any = Bool::new_const("any_event");
        let all = events
            .iter()
            .filter_map(|(o, e)| Some(Bool::and(&[e.clone(), enabled.get(o)?.clone()])))
            .collect();
        smt.assert(&any.implies(or_false(all)));
        Self {
            smt,
            unrolling,
            events,
            any,
            pins: 0,
        }
    }
}

/// Answers reachable, with `path`, every obligation whose event literal holds in `model`; how many.
fn close_held(
    answers: &mut BTreeMap<Obligation, Answer>,
    model: &z3::Model,
    events: &[(&Obligation, Bool)],
    path: &[usize],
) -> usize {
    let held: Vec<&Obligation> = events
        .iter()
        .filter(|(_, e)| decode::holds(model, e))
        .map(|(o, _)| *o)
        .collect();
    for o in &held {
        answers.insert((*o).clone(), Answer::Reachable(path.to_vec()));
    }
    held.len()
}

/// The solver gave up or a model made no sense: what is open stays undecided.
struct GaveUp;

impl<'s, 'a> Search<'s, 'a> {
    fn new(
        sys: &'s System<'a>,
        slice: &Slice,
        wanted: &[&'s Obligation],
        deadline: Instant,
    ) -> Self {
        let smt = Smt::until(deadline);
        let (unrolling, initial) = Unrolling::new(sys, slice, Some(&kept(sys, wanted)));
        for c in &initial {
            smt.assert(c);
        }
        Self {
            smt,
            unrolling,
            live: Vec::new(),
            queries: 0,
            events: Vec::new(),
            any: Vec::new(),
            enabled: wanted
                .iter()
                .map(|&o| (o, Bool::new_const(format!("open_{}_{}", o.rule, o.subject))))
                .collect(),
            one: None,
            answers: BTreeMap::new(),
            open: wanted.to_vec(),
            inducted: false,
            by_runs_tried: false,
            ahead: None,
        }
    }

    /// Adds the next transition, taken only when it is live.
    fn extend(&mut self) {
        let j = self.live.len();
        let live = Bool::new_const(format!("live_{j}"));
        if let Some(before) = self.live.last() {
            self.smt.assert(&live.implies(before));
        }
        let transition = self.unrolling.extend();
        for c in &transition.taken {
            self.smt.assert(&live.implies(c));
        }
        for c in &transition.defined {
            self.smt.assert(c);
        }
        let mut events = BTreeMap::new();
        for o in &self.open {
            if let Some(e) = self.unrolling.event(o, j) {
                let literal = Bool::new_const(format!("event_{j}_{}_{}", o.rule, o.subject));
                self.smt.assert(&literal.eq(Bool::and(&[live.clone(), e])));
                events.insert(*o, literal);
            }
        }
        // Some open obligation's event at `j`: with the closed obligations' `open` literals
        // assumed false, this asks for an open one without adding a formula per question.
        let any = Bool::new_const(format!("any_event_{j}"));
        let all: Vec<Bool> = events
            .iter()
            .filter_map(|(o, e)| Some(Bool::and(&[e.clone(), self.enabled.get(o)?.clone()])))
            .collect();
        self.smt.assert(&any.implies(or_false(all)));
        self.any.push(any);
        self.events.push(events);
        self.live.push(live);
    }

    /// Closes, unreachable, every open obligation whose event neither transition 0 nor 1 can
    /// raise: every later transition is made as transition 1 is (from a state of the same
    /// variables), so none can.
    fn close_eventless(&mut self) {
        let (Some(first), Some(second)) = (self.events.first(), self.events.get(1)) else {
            return;
        };
        let never: Vec<&'s Obligation> = self
            .open
            .iter()
            .filter(|o| !first.contains_key(*o) && !second.contains_key(*o))
            .copied()
            .collect();
        for o in never {
            self.answers.insert(o.clone(), Answer::Unreachable);
        }
        let answers = &self.answers;
        self.open.retain(|o| !answers.contains_key(*o));
    }

    /// Induction with `k` transitions of history: in a solver of its own, `k + 1` transitions
    /// from any state (reachable or not), asks whether the last can raise an open obligation's
    /// event. Where it cannot, no transition `k` or later of a real path can (its `k` before are
    /// such a history), and the search has ruled out every earlier one: the obligation is
    /// unreachable. A model names events that can happen after some history; those stay open,
    /// and the question is asked again of the others, at most `models` times in all.
    fn induct(&mut self, k: usize, models: usize) -> Result<(), GaveUp> {
        let smt = self.smt.sibling();
        let mut unrolling = self.unrolling.unrolling_from_any_state();
        for _ in 0..=k {
            let transition = unrolling.extend();
            for c in transition.taken.iter().chain(transition.defined.iter()) {
                smt.assert(c);
            }
        }
        let mut candidates: Vec<(&'s Obligation, Bool)> = Vec::new();
        let mut proved: Vec<&'s Obligation> = Vec::new();
        for o in &self.open {
            match unrolling.event(o, k) {
                Some(e) => candidates.push((*o, e)),
                None => proved.push(*o),
            }
        }
        let proved = settle(&smt, &format!("induct_{k}"), candidates, proved, models)?;
        self.close_unreachable(proved);
        Ok(())
    }

    /// Closes, unreachable, the obligations a question proved that are still open.
    fn close_unreachable(&mut self, proved: Vec<&'s Obligation>) {
        for o in proved {
            self.answers.entry(o.clone()).or_insert(Answer::Unreachable);
        }
        let answers = &self.answers;
        self.open.retain(|o| !answers.contains_key(*o));
    }

    /// Induction over runs ([`no_run_raises`]) for what is open, closing what it proves.
    fn by_runs(&mut self, models: usize) -> Result<(), GaveUp> {
        let proved = no_run_raises(&self.smt.sibling(), &self.unrolling, &self.open, models)?;
        self.close_unreachable(proved);
        Ok(())
    }

    /// The open obligations' events at the given transitions, each with its transition live.
    fn events(&self, steps: std::ops::Range<usize>) -> Vec<Bool> {
        let mut out = Vec::new();
        for o in &self.open {
            for at in self.events.get(steps.clone()).into_iter().flatten() {
                if let Some(e) = at.get(o) {
                    out.push(e.clone());
                }
            }
        }
        out
    }

    /// Whether some of these can hold, under a fresh assumption.
    fn query(&mut self, terms: Vec<Bool>) -> Outcome {
        let q = Bool::new_const(format!("query_{}", self.queries));
        self.queries += 1;
        self.smt.assert(&q.implies(Bool::or(&terms)));
        self.smt.check(std::slice::from_ref(&q))
    }

    /// Closes every open obligation whose event can happen at transition `j`, with a witness
    /// of `j + 1` edges. Every earlier transition is already ruled out for what is open, so each
    /// witness is a shortest one.
    fn close_at(&mut self, j: usize) -> Result<(), GaveUp> {
        loop {
            let Some(at) = self.events.get(j) else {
                return Ok(());
            };
            let events: Vec<(&'s Obligation, Bool)> = self
                .open
                .iter()
                .filter_map(|o| Some((*o, at.get(o)?.clone())))
                .collect();
            if events.is_empty() {
                return Ok(());
            }
            let mut assume: Vec<Bool> = self.any.get(j).cloned().into_iter().collect();
            assume.extend(self.closed_at(j));
            let model = match self.smt.check(&assume) {
                Outcome::Sat(model) => model,
                Outcome::Unsat => return Ok(()),
                Outcome::Unknown => return Err(GaveUp),
            };
            let path = decode::witness(&model, &self.unrolling, j);
            let resumed = decode::state(&model, &self.unrolling, j);
            if close_held(&mut self.answers, &model, &events, &path) == 0 {
                // A model of the disjunction satisfies none of it.
                return Err(GaveUp);
            }
            let answers = &self.answers;
            self.open.retain(|o| !answers.contains_key(*o));
            if let Some(state) = resumed {
                self.sweep(state, path.get(..j).unwrap_or_default());
            }
        }
    }

    /// The `enabled` literals, negated, of the obligations closed since transition `j` was
    /// added.
    fn closed_at(&self, j: usize) -> Vec<Bool> {
        self.events
            .get(j)
            .into_iter()
            .flatten()
            .filter(|(o, _)| !self.open.contains(o))
            .filter_map(|(o, _)| Some(self.enabled.get(o)?.not()))
            .collect()
    }

    /// Closes what else can happen in one step from a state a model reached at transition `j`
    /// by `prefix`: a second solver holds one transition from any state, pinned to this state
    /// by an assumption, so each of its answers is cheap.
    fn sweep(&mut self, state: State, prefix: &[usize]) {
        if self.one.is_none() {
            self.one = Some(OneStep::new(
                &self.smt,
                &self.unrolling,
                &self.open,
                &self.enabled,
            ));
        }
        let Some(one) = self.one.as_mut() else { return };
        let pin = Bool::new_const(format!("pin_{}", one.pins));
        one.pins += 1;
        if let Some(from) = one.unrolling.states.first() {
            one.smt.assert(&pin.eq(from.equals(&state)));
        }
        loop {
            let events: Vec<(&'s Obligation, Bool)> = self
                .open
                .iter()
                .filter_map(|o| Some((*o, one.events.get(o)?.clone())))
                .collect();
            if events.is_empty() {
                return;
            }
            let mut assume = vec![pin.clone(), one.any.clone()];
            assume.extend(
                one.events
                    .keys()
                    .filter(|o| !self.open.contains(o))
                    .filter_map(|o| Some(self.enabled.get(o)?.not())),
            );
            let Outcome::Sat(model) = one.smt.check(&assume) else {
                return;
            };
            let mut path = prefix.to_vec();
            path.extend(decode::witness(&model, &one.unrolling, 0));
            if close_held(&mut self.answers, &model, &events, &path) == 0 {
                return;
            }
            let answers = &self.answers;
            self.open.retain(|o| !answers.contains_key(*o));
        }
    }

    /// Closes what the induction over runs asked ahead proved, once it has answered; with
    /// `wait`, waiting for it.
    fn take_ahead(&mut self, wait: bool) {
        let Some(ahead) = &self.ahead else { return };
        let answer = if wait {
            ahead.recv().ok()
        } else {
            match ahead.try_recv() {
                Ok(answer) => Some(answer),
                Err(mpsc::TryRecvError::Empty) => return,
                Err(mpsc::TryRecvError::Disconnected) => None,
            }
        };
        self.ahead = None;
        if let Some(Some(proved)) = answer {
            self.close_unreachable(proved);
        }
    }

    /// Every obligation's answer: what is still open is unreachable when the search ran to the
    /// bounds, undecided when it gave up (after what was asked ahead has answered: its proof
    /// stands whatever the windows did).
    fn finish(mut self, gave_up: bool) -> BTreeMap<Obligation, Answer> {
        if gave_up {
            self.take_ahead(true);
        }
        for o in std::mem::take(&mut self.open) {
            let answer = if gave_up {
                Answer::Undecided
            } else {
                Answer::Unreachable
            };
            self.answers.entry(o.clone()).or_insert(answer);
        }
        self.answers
    }
}

/// Induction over runs: every run of a path starts in a state `unrolling_from_run_start`
/// allows (the first at the initial state, each later one after a next turn), and takes at most
/// `depth` steps before the next turn. In `smt` (a solver of its own), the first `depth`
/// transitions from any such state (no next turn among them) are asked whether one can raise an
/// event of `open`. Where none can, no run of any path can: the obligation is unreachable,
/// however many turns the bounds allow. A model names events some run can raise; those stay
/// open, and the question is asked again of the others, at most `models` times in all. The
/// obligations proved unreachable.
fn no_run_raises<'s>(
    smt: &Smt,
    of: &Unrolling<'s, '_>,
    open: &[&'s Obligation],
    models: usize,
) -> Result<Vec<&'s Obligation>, GaveUp> {
    let (mut unrolling, start) = of.unrolling_from_run_start();
    for c in &start {
        smt.assert(c);
    }
    let depth = of.sys.bounds.depth as usize;
    let mut live: Vec<Bool> = Vec::with_capacity(depth);
    let mut candidates: Vec<(&'s Obligation, Vec<Bool>)> =
        open.iter().map(|o| (*o, Vec::new())).collect();
    for j in 0..depth {
        let l = Bool::new_const(format!("run_live_{j}"));
        if let Some(before) = live.last() {
            smt.assert(&l.implies(before));
        }
        let transition = unrolling.extend();
        for c in &transition.taken {
            smt.assert(&l.implies(c));
        }
        for c in &transition.defined {
            smt.assert(c);
        }
        smt.assert(&l.implies(unrolling.class_is(j, NEXT_TURN).not()));
        for (o, events) in &mut candidates {
            if let Some(e) = unrolling.event(o, j) {
                events.push(Bool::and(&[l.clone(), e]));
            }
        }
        live.push(l);
    }
    let (candidates, proved): (Vec<_>, Vec<_>) =
        candidates.into_iter().partition(|(_, e)| !e.is_empty());
    let proved: Vec<&'s Obligation> = proved.into_iter().map(|(o, _)| o).collect();
    let candidates: Vec<(&'s Obligation, Bool)> = candidates
        .into_iter()
        .map(|(o, e)| (o, Bool::or(&e)))
        .collect();
    settle(smt, "run_query", candidates, proved, models)
}

/// Asks `smt`, at most `models` times, whether one of the candidates' events can hold. A model
/// drops the candidates it raises (some path raises them: they stay open); an unsatisfiable
/// question proves the rest. What is proved, with `proved`.
fn settle<'s>(
    smt: &Smt,
    label: &str,
    mut candidates: Vec<(&'s Obligation, Bool)>,
    mut proved: Vec<&'s Obligation>,
    models: usize,
) -> Result<Vec<&'s Obligation>, GaveUp> {
    for at in 0..models {
        if candidates.is_empty() {
            break;
        }
        let q = Bool::new_const(format!("{label}_{at}"));
        let any: Vec<Bool> = candidates.iter().map(|(_, e)| e.clone()).collect();
        smt.assert(&q.implies(Bool::or(&any)));
        match smt.check(std::slice::from_ref(&q)) {
            Outcome::Unsat => {
                proved.extend(candidates.drain(..).map(|(o, _)| o));
            }
            Outcome::Sat(model) => {
                let before = candidates.len();
                candidates.retain(|(_, e)| !decode::holds(&model, e));
                if candidates.len() == before {
                    // A model of the disjunction satisfies none of it.
                    return Err(GaveUp);
                }
            }
            Outcome::Unknown => return Err(GaveUp),
        }
    }
    Ok(proved)
}
