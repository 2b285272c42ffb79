//! The bounded-model-checking formula: the transition system of `system.rs` unrolled one
//! transition at a time over z3 bit-vectors and booleans, with exactly the semantics of
//! `explicit::take`: its guard (the check's order rules and session limits), its agent switching
//! and session resets, its resets at the next turn, the run's step limit and the turns.
//!
//! Edge choice is compact: one small bit-vector per transition chooses among the rows of
//! `tables` that leave the node the state is at (a row is taken when the state is at its node
//! and the choice names it), and the next node, the class and the agent each narrow the choice
//! back to the rows they can come from. What a tool run does is read from the
//! tool node it reaches (`pending` and `last_irreversible` hold tool nodes). Counters are unary
//! (`steps_3_2` is "at least two steps this run"), and a part of the state that nothing can set
//! is a constant. Every variable has a deterministic name (`node_3`, `ran_2_get_order`), so the
//! SMT-LIB text of an unrolling is stable.

use stalwart_graph::NodeKind;
use z3::ast::{BV, Bool};

use super::tables::{
    CALL, CHANNEL, CLASS_BITS, HANDS_OFF, NEXT_TURN, RUNS, Slice, Tables, UNGUARDED,
};
use crate::system::System;

/// The state after `j` steps.
#[derive(Debug, Clone)]
pub(crate) struct State {
    pub node: BV,
    pub(super) agent: BV,
    pub(super) session: Vec<Bool>,
    /// Per counted slot, unary: `counts[c][k - 1]` is "at least `k` calls".
    pub(super) counts: Vec<Vec<Bool>>,
    pub(super) tainted: Bool,
    pub(super) escaped: Vec<Bool>,
    pub(super) escaped_taint: Bool,
    pub(super) run_wrote: Bool,
    pub(super) run_untrusted: Bool,
    pub(super) run_confidential: Bool,
    pub(super) last_irreversible: BV,
    pub(super) pending: BV,
    pub(super) via_model: Bool,
    /// Unary: `steps[k - 1]` is "at least `k` steps this run".
    pub(super) steps: Vec<Bool>,
    /// Unary: `turn[k - 1]` is "at least `k` turns past the first".
    pub(super) turn: Vec<Bool>,
}

impl State {
    /// This state is `other`: every variable equals its counterpart.
    pub(crate) fn equals(&self, other: &State) -> Bool {
        let mut all = vec![
            self.node.eq(&other.node),
            self.agent.eq(&other.agent),
            self.tainted.eq(&other.tainted),
            self.escaped_taint.eq(&other.escaped_taint),
            self.run_wrote.eq(&other.run_wrote),
            self.run_untrusted.eq(&other.run_untrusted),
            self.run_confidential.eq(&other.run_confidential),
            self.last_irreversible.eq(&other.last_irreversible),
            self.pending.eq(&other.pending),
            self.via_model.eq(&other.via_model),
        ];
        let pairs = |a: &[Bool], b: &[Bool], all: &mut Vec<Bool>| {
            all.extend(a.iter().zip(b.iter()).map(|(x, y)| x.eq(y)));
        };
        pairs(&self.session, &other.session, &mut all);
        pairs(&self.escaped, &other.escaped, &mut all);
        pairs(&self.steps, &other.steps, &mut all);
        pairs(&self.turn, &other.turn, &mut all);
        for (a, b) in self.counts.iter().zip(other.counts.iter()) {
            pairs(a, b, &mut all);
        }
        and(&all)
    }

    /// The same state with every boolean and bit-vector mapped (to its value in a model).
    pub(crate) fn map(&self, b: &dyn Fn(&Bool) -> Bool, v: &dyn Fn(&BV) -> BV) -> State {
        let bools = |x: &[Bool]| x.iter().map(b).collect::<Vec<_>>();
        State {
            node: v(&self.node),
            agent: v(&self.agent),
            session: bools(&self.session),
            counts: self.counts.iter().map(|c| bools(c)).collect(),
            tainted: b(&self.tainted),
            escaped: bools(&self.escaped),
            escaped_taint: b(&self.escaped_taint),
            run_wrote: b(&self.run_wrote),
            run_untrusted: b(&self.run_untrusted),
            run_confidential: b(&self.run_confidential),
            last_irreversible: v(&self.last_irreversible),
            pending: v(&self.pending),
            via_model: b(&self.via_model),
            steps: bools(&self.steps),
            turn: bools(&self.turn),
        }
    }
}

/// Transition `j`: the edge taken and what it is.
#[derive(Debug, Clone)]
pub(crate) struct Step {
    /// Which of the rows leaving the state's node is taken, counted from the first.
    pub choice: BV,
    /// Per row of `tables`: it is taken (the state is at its node and the choice names it).
    pub take: Vec<Bool>,
    pub(super) class: BV,
    pub(super) edge_agent: BV,
    /// The step runs a write; runs a write that has an undo (shared by many events).
    pub(super) write: Option<Bool>,
    pub(super) undoable: Option<Bool>,
}

/// One transition's constraints.
#[derive(Debug, Default)]
pub(crate) struct Transition {
    /// What must hold for the transition to be taken: the edge leaves the node the state is at,
    /// the run and the conversation have room, the route may run as its agent, the check allows
    /// the call.
    pub taken: Vec<Bool>,
    /// What defines the transition's variables and the next state, taken or not.
    pub defined: Vec<Bool>,
}

impl Transition {
    /// Defines a state variable; a part of the state nothing sets is a constant and needs none.
    fn define(&mut self, var: &Bool, value: Bool) {
        if var.as_bool().is_none() {
            self.defined.push(var.eq(value));
        }
    }

    fn define_bv(&mut self, var: &BV, value: BV) {
        if var.as_u64().is_none() {
            self.defined.push(var.eq(value));
        }
    }
}

/// The unrolling so far: states `0..=j` and the transitions between them.
#[derive(Debug)]
pub(crate) struct Unrolling<'s, 'a> {
    pub(super) sys: &'s System<'a>,
    pub tables: Tables,
    pub states: Vec<State>,
    pub steps: Vec<Step>,
}

pub(super) fn or(terms: Vec<Bool>) -> Option<Bool> {
    match terms.len() {
        0 => None,
        1 => terms.into_iter().next(),
        _ => Some(Bool::or(&terms)),
    }
}

pub(super) fn or_false(terms: Vec<Bool>) -> Bool {
    or(terms).unwrap_or_else(|| Bool::from_bool(false))
}

pub(super) fn and(terms: &[Bool]) -> Bool {
    Bool::and(terms)
}

/// A tool's name, safe inside a variable name.
fn tag(name: &str) -> String {
    name.chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
        .collect()
}

impl<'s, 'a> Unrolling<'s, 'a> {
    /// The initial states (any start node, nothing run) and their constraints, for a slice of
    /// the system; with `keep`, the tools the obligations name (the others may be merged).
    pub(crate) fn new(
        sys: &'s System<'a>,
        slice: &Slice,
        keep: Option<&std::collections::BTreeSet<usize>>,
    ) -> (Self, Vec<Bool>) {
        let tables = Tables::new(sys, slice, keep);
        let f = || Bool::from_bool(false);
        let node = BV::new_const("node_0", tables.node_bits);
        let none_node = BV::from_u64(tables.nodes as u64, tables.node_bits);
        let state = State {
            agent: BV::from_u64(tables.agents as u64, tables.agent_bits),
            session: (0..sys.relevant_count).map(|_| f()).collect(),
            counts: (0..sys.counted_count)
                .map(|c| (0..tables.cap(c)).map(|_| f()).collect())
                .collect(),
            tainted: f(),
            escaped: (0..sys.relevant_count).map(|_| f()).collect(),
            escaped_taint: f(),
            run_wrote: f(),
            run_untrusted: f(),
            run_confidential: f(),
            last_irreversible: none_node.clone(),
            pending: none_node,
            via_model: f(),
            steps: (0..sys.bounds.depth).map(|_| f()).collect(),
            turn: (1..tables.turns).map(|_| f()).collect(),
            node,
        };
        let start = or_false(
            sys.start_nodes
                .iter()
                .map(|&v| state.node.eq(v as u64))
                .collect(),
        );
        (
            Self {
                sys,
                tables,
                states: vec![state],
                steps: Vec::new(),
            },
            vec![start],
        )
    }

    /// An unrolling of the same system from any state: its first state is free.
    pub(crate) fn unrolling_from_any_state(&self) -> Self {
        let mut any = Self {
            sys: self.sys,
            tables: self.tables.clone(),
            states: Vec::new(),
            steps: Vec::new(),
        };
        any.states.push(any.fresh_state(0));
        any
    }

    /// An unrolling of the same system from any state a run can start in, and its constraints:
    /// the run's own state as every run starts it (no steps, nothing written, read or escaped
    /// in the run, no model left), at a start node or where a next turn leads; the agent, the
    /// sessions, their counters and marks, and the turn are free. Every run of every path starts
    /// in such a state (the first at the initial state, each later one after `next_turn`).
    pub(crate) fn unrolling_from_run_start(&self) -> (Self, Vec<Bool>) {
        let mut any = self.unrolling_from_any_state();
        let t = &any.tables;
        let no = || Bool::from_bool(false);
        let none_node = BV::from_u64(t.nodes as u64, t.node_bits);
        let mut starts: Vec<usize> = self.sys.start_nodes.clone();
        starts.extend(t.rows.iter().filter(|r| r.class == NEXT_TURN).map(|r| r.to));
        starts.sort_unstable();
        starts.dedup();
        let mut constraints = Vec::new();
        if let Some(s) = any.states.first_mut() {
            s.escaped.iter_mut().for_each(|b| *b = no());
            s.escaped_taint = no();
            s.run_wrote = no();
            s.run_untrusted = no();
            s.run_confidential = no();
            s.last_irreversible = none_node.clone();
            s.pending = none_node;
            s.via_model = no();
            s.steps.iter_mut().for_each(|b| *b = no());
            constraints.push(or_false(
                starts.iter().map(|&v| s.node.eq(v as u64)).collect(),
            ));
            let agents = BV::from_u64(t.agents as u64, t.agent_bits);
            constraints.push(s.agent.bvule(&agents));
        }
        if let Some(s) = any.states.first() {
            constraints.extend(any.session_lemmas(s));
        }
        (any, constraints)
    }

    /// What holds of every reachable state's session: a tool both tracked as run and counted
    /// ran in the session exactly when its count is at least one. Both start empty, both are set
    /// by its run (through the check or around it) and both are emptied by a change of agent, and
    /// nothing else changes either; a next turn keeps both. Without it, a run could start with a
    /// tool run but not counted, and call it again past its limit.
    pub(crate) fn session_lemmas(&self, s: &State) -> Vec<Bool> {
        let t = &self.tables;
        let set = &t.settable;
        let mut out = Vec::new();
        for (c, &(tool, _)) in t.count_tool.iter().enumerate() {
            let Some(Some(r)) = self.sys.relevant.get(tool) else {
                continue;
            };
            let both = set.counts.get(c).copied().unwrap_or(false)
                && set.slots.get(*r).copied().unwrap_or(false);
            if let (true, Some(ran), Some(once)) = (
                both,
                s.session.get(*r),
                s.counts.get(c).and_then(|k| k.first()),
            ) {
                out.push(ran.eq(once));
            }
        }
        out
    }

    fn fresh_state(&self, j: usize) -> State {
        let sys = self.sys;
        let t = &self.tables;
        let set = &t.settable;
        let slot_name = |what: &str, slot: usize| {
            let tool = t.slot_tool.get(slot).copied().unwrap_or(0);
            format!("{what}_{j}_{}", tag(sys.tool_name(tool)))
        };
        // A part nothing sets stays as every state starts: false, or no tool node.
        let var = |settable: bool, name: String| {
            if settable {
                Bool::new_const(name)
            } else {
                Bool::from_bool(false)
            }
        };
        let node_var = |settable: bool, name: String| {
            if settable {
                BV::new_const(name, t.node_bits)
            } else {
                BV::from_u64(t.nodes as u64, t.node_bits)
            }
        };
        let slot = |r: usize| set.slots.get(r).copied().unwrap_or(false);
        State {
            node: BV::new_const(format!("node_{j}"), t.node_bits),
            agent: BV::new_const(format!("agent_{j}"), t.agent_bits),
            session: (0..sys.relevant_count)
                .map(|r| var(slot(r), slot_name("ran", r)))
                .collect(),
            counts: (0..sys.counted_count)
                .map(|c| {
                    let tool = t.count_tool.get(c).map_or(0, |x| x.0);
                    let counted = set.counts.get(c).copied().unwrap_or(false);
                    (1..=t.cap(c))
                        .map(|k| {
                            var(
                                counted,
                                format!("count_{j}_{}_{k}", tag(sys.tool_name(tool))),
                            )
                        })
                        .collect()
                })
                .collect(),
            tainted: var(set.taints, format!("tainted_{j}")),
            escaped: (0..sys.relevant_count)
                .map(|r| var(set.escapes && slot(r), slot_name("escaped", r)))
                .collect(),
            escaped_taint: var(set.escapes && set.taints, format!("escaped_taint_{j}")),
            run_wrote: var(set.wrote, format!("run_wrote_{j}")),
            run_untrusted: var(set.run_untrusted, format!("run_untrusted_{j}")),
            run_confidential: var(set.confidential, format!("run_confidential_{j}")),
            last_irreversible: node_var(set.irreversible, format!("last_irreversible_{j}")),
            pending: node_var(set.candidate, format!("pending_{j}")),
            via_model: var(set.via_model, format!("via_model_{j}")),
            steps: (1..=sys.bounds.depth)
                .map(|k| Bool::new_const(format!("steps_{j}_{k}")))
                .collect(),
            turn: (1..t.turns)
                .map(|k| Bool::new_const(format!("turn_{j}_{k}")))
                .collect(),
        }
    }

    /// `node_{j+1}` is one of these nodes (leaving out nodes no row leads to).
    pub(super) fn reaches(&self, j: usize, nodes: impl IntoIterator<Item = usize>) -> Option<Bool> {
        self.reaches_by(j, nodes, u8::MAX)
    }

    /// `node_{j+1}` is one of these nodes, leaving out nodes no row of the classes in `classes`
    /// (a bit per class) leads to: those cannot be reached that way.
    pub(super) fn reaches_by(
        &self,
        j: usize,
        nodes: impl IntoIterator<Item = usize>,
        classes: u8,
    ) -> Option<Bool> {
        let next = &self.states.get(j + 1)?.node;
        let incoming = &self.tables.incoming;
        or(nodes
            .into_iter()
            .filter(|&v| incoming.get(v).is_some_and(|b| b & classes != 0))
            .map(|v| next.eq(v as u64))
            .collect())
    }

    /// `node_j` is one of these nodes.
    fn leaves(&self, j: usize, nodes: impl IntoIterator<Item = usize>) -> Option<Bool> {
        let at = &self.states.get(j)?.node;
        or(nodes.into_iter().map(|v| at.eq(v as u64)).collect())
    }

    pub(super) fn class_is(&self, j: usize, class: u64) -> Bool {
        self.steps
            .get(j)
            .map_or_else(|| Bool::from_bool(false), |s| s.class.eq(class))
    }

    pub(super) fn runs(&self, j: usize) -> Bool {
        Bool::or(&[self.class_is(j, CALL), self.class_is(j, UNGUARDED)])
    }

    fn nodes_of_kind(&self, kind: NodeKind) -> Vec<usize> {
        (0..self.tables.nodes)
            .filter(|&v| self.sys.kinds.get(v) == Some(&kind))
            .collect()
    }

    /// Tool nodes whose tool has a property.
    pub(super) fn tool_nodes_where(&self, p: impl Fn(usize) -> bool) -> Vec<usize> {
        self.tables
            .tool_nodes
            .iter()
            .enumerate()
            .filter(|(t, _)| p(*t))
            .flat_map(|(_, n)| n.iter().copied())
            .collect()
    }

    /// Step `j` runs one of these tool nodes (through the guard or around it).
    pub(super) fn runs_one_of(&self, j: usize, nodes: Vec<usize>) -> Option<Bool> {
        let into = self.reaches_by(j, nodes, RUNS)?;
        Some(and(&[self.runs(j), into]))
    }

    /// Step `j` runs this tool.
    fn runs_tool(&self, j: usize, tool: usize) -> Bool {
        let nodes = self
            .tables
            .tool_nodes
            .get(tool)
            .cloned()
            .unwrap_or_default();
        self.runs_one_of(j, nodes)
            .unwrap_or_else(|| Bool::from_bool(false))
    }

    fn runs_tool_where(&self, j: usize, p: impl Fn(usize) -> bool) -> Bool {
        self.runs_one_of(j, self.tool_nodes_where(p))
            .unwrap_or_else(|| Bool::from_bool(false))
    }

    /// Adds transition `j` (from the last state) and returns its constraints.
    pub(crate) fn extend(&mut self) -> Transition {
        let j = self.steps.len();
        let t = &self.tables;
        let mut out = Transition::default();
        let Some(s) = self.states.last().cloned() else {
            out.taken.push(Bool::from_bool(false));
            return out;
        };
        let choice = BV::new_const(format!("choice_{j}"), t.choice_bits);
        let mut take = Vec::with_capacity(t.rows.len());
        for (v, &(lo, hi)) in t.ranges.iter().enumerate() {
            let here = s.node.eq(v as u64);
            for k in 0..hi - lo {
                take.push(and(&[here.clone(), choice.eq(k as u64)]));
            }
        }
        let step = Step {
            choice,
            take,
            class: BV::new_const(format!("class_{j}"), CLASS_BITS),
            edge_agent: BV::new_const(format!("edge_agent_{j}"), t.agent_bits),
            write: None,
            undoable: None,
        };
        let next = self.fresh_state(j + 1);
        self.steps.push(step.clone());
        self.states.push(next.clone());
        let write = self.runs_one_of(
            j,
            self.tool_nodes_where(|x| self.tool(x).is_some_and(|f| f.write)),
        );
        let undoable = self.runs_one_of(
            j,
            self.tool_nodes_where(|x| {
                self.tool(x)
                    .is_some_and(|f| f.write && f.undo_tool.is_some())
            }),
        );
        if let Some(st) = self.steps.get_mut(j) {
            st.write = write;
            st.undoable = undoable;
        }
        self.edge_choice(&s, &step, &next, &mut out);
        self.bounds(&s, &step, &next, &mut out);
        self.agent_and_session(j, &s, &step, &next, &mut out);
        self.run(j, &s, &next, &mut out);
        out
    }

    /// Being at a node bounds the edge to its rows; each row fixes the next node, the class and
    /// the agent of the route.
    fn edge_choice(&self, s: &State, step: &Step, next: &State, out: &mut Transition) {
        let t = &self.tables;
        let taken = &step.take;
        // Forward: being at a node, the choice names one of its rows.
        for (v, &(lo, hi)) in t.ranges.iter().enumerate() {
            let here = s.node.eq(v as u64);
            let bound = BV::from_u64((hi - lo) as u64, t.choice_bits);
            out.taken.push(here.implies(step.choice.bvult(&bound)));
        }
        // Each row fixes the next node, the class and the agent of the route.
        let none = t.agents as u64;
        let mut into: Vec<Vec<Bool>> = vec![Vec::new(); t.nodes];
        let mut by_class: Vec<Vec<Bool>> = vec![Vec::new(); 1 << CLASS_BITS];
        let mut by_agent: Vec<Vec<Bool>> = vec![Vec::new(); t.agents + 1];
        for (row, e) in t.rows.iter().zip(taken.iter()) {
            let agent = row.agent.map_or(none, |a| a as u64);
            out.defined.push(e.implies(and(&[
                next.node.eq(row.to as u64),
                step.class.eq(row.class),
                step.edge_agent.eq(agent),
            ])));
            for (list, at) in [
                (&mut into, row.to),
                (&mut by_class, row.class as usize),
                (&mut by_agent, row.agent.unwrap_or(t.agents)),
            ] {
                if let Some(list) = list.get_mut(at) {
                    list.push(e.clone());
                }
            }
        }
        // Backward: the next node, the class and the agent each name the rows they can come
        // from, so what an event needs of a step narrows the edge at once (for a step taken:
        // past the end of a path no row need be).
        for (w, rows) in into.into_iter().enumerate() {
            out.taken
                .push(next.node.eq(w as u64).implies(or_false(rows)));
        }
        for (c, rows) in by_class.into_iter().enumerate() {
            out.taken
                .push(step.class.eq(c as u64).implies(or_false(rows)));
        }
        for (a, rows) in by_agent.into_iter().enumerate() {
            out.taken
                .push(step.edge_agent.eq(a as u64).implies(or_false(rows)));
        }
    }

    /// The run's step limit and the conversation's turns, counted in unary.
    fn bounds(&self, s: &State, step: &Step, next: &State, out: &mut Transition) {
        let nt = step.class.eq(NEXT_TURN);
        let yes = || Bool::from_bool(true);
        let no = || Bool::from_bool(false);
        // A step needs room in the run, a next turn room in the conversation.
        out.taken
            .push(nt.not().implies(s.steps.last().map_or_else(no, Bool::not)));
        out.taken
            .push(nt.implies(s.turn.last().map_or_else(no, Bool::not)));
        for (k, n) in next.steps.iter().enumerate() {
            let below = k
                .checked_sub(1)
                .and_then(|b| s.steps.get(b))
                .cloned()
                .unwrap_or_else(yes);
            out.define(n, and(&[nt.not(), below]));
        }
        for (k, n) in next.turn.iter().enumerate() {
            let below = k
                .checked_sub(1)
                .and_then(|b| s.turn.get(b))
                .cloned()
                .unwrap_or_else(yes);
            let was = s.turn.get(k).cloned().unwrap_or_else(no);
            out.define(n, Bool::or(&[was, and(&[nt.clone(), below])]));
        }
    }

    /// Whether the route may run as its agent, and what a change of agent does to the sessions.
    fn agent_and_session(
        &self,
        j: usize,
        s: &State,
        step: &Step,
        next: &State,
        out: &mut Transition,
    ) {
        let t = &self.tables;
        let none = t.agents as u64;
        let nt = step.class.eq(NEXT_TURN);
        let has_agent = step.edge_agent.ne(none);
        let other = step.edge_agent.ne(&s.agent);
        let current = s.agent.ne(none);
        let hands = Bool::or(&[step.class.eq(HANDS_OFF), step.class.eq(CHANNEL)]);
        let to_step = self
            .reaches(j, self.nodes_of_kind(NodeKind::Step))
            .unwrap_or_else(|| Bool::from_bool(false));
        let blocked = and(&[
            has_agent.clone(),
            current.clone(),
            other.clone(),
            hands.not(),
            to_step.not(),
        ]);
        let switch = and(&[has_agent, other]);
        let leave = and(&[switch.clone(), current]);
        out.taken.push(blocked.not());
        out.defined
            .push(next.agent.eq(switch.ite(&step.edge_agent, &s.agent)));
        for (r, (ran, esc)) in s.session.iter().zip(s.escaped.iter()).enumerate() {
            let tool = t.slot_tool.get(r).copied().unwrap_or(0);
            let runs = self.runs_tool(j, tool);
            if let (Some(n_ran), Some(n_esc)) = (next.session.get(r), next.escaped.get(r)) {
                out.define(n_ran, Bool::or(&[and(&[switch.not(), ran.clone()]), runs]));
                out.define(
                    n_esc,
                    Bool::or(&[
                        and(&[nt.not(), esc.clone()]),
                        and(&[leave.clone(), ran.clone()]),
                    ]),
                );
            }
        }
        for (c, (count, n_count)) in s.counts.iter().zip(next.counts.iter()).enumerate() {
            let tool = t.count_tool.get(c).map_or(0, |x| x.0);
            let runs = self.runs_tool(j, tool);
            // What the session had counted before this step: nothing after a change of agent.
            let base: Vec<Bool> = count
                .iter()
                .map(|b| and(&[switch.not(), b.clone()]))
                .collect();
            for (k, n) in n_count.iter().enumerate() {
                let below = k
                    .checked_sub(1)
                    .and_then(|b| base.get(b))
                    .cloned()
                    .unwrap_or_else(|| Bool::from_bool(true));
                let had = base
                    .get(k)
                    .cloned()
                    .unwrap_or_else(|| Bool::from_bool(false));
                out.define(n, Bool::or(&[had, and(&[runs.clone(), below])]));
            }
        }
        let reads_outside =
            self.runs_tool_where(j, |x| self.tool(x).is_some_and(|f| f.reads_outside));
        out.define(
            &next.tainted,
            Bool::or(&[and(&[switch.not(), s.tainted.clone()]), reads_outside]),
        );
        out.define(
            &next.escaped_taint,
            Bool::or(&[
                and(&[nt.not(), s.escaped_taint.clone()]),
                and(&[leave, s.tainted.clone()]),
            ]),
        );
        let from_model = self
            .leaves(j, self.nodes_of_kind(NodeKind::Model))
            .unwrap_or_else(|| Bool::from_bool(false));
        let from_turn = self
            .leaves(j, self.nodes_of_kind(NodeKind::Turn))
            .unwrap_or_else(|| Bool::from_bool(false));
        out.define(
            &next.via_model,
            Bool::or(&[
                from_model,
                and(&[from_turn.not(), nt.not(), s.via_model.clone()]),
            ]),
        );
    }

    pub(super) fn tool(&self, t: usize) -> Option<&crate::catalogue::ToolFacts> {
        self.sys.catalogue.tools.get(t)
    }

    /// The relevant slot of a tool named in an order rule, when it has one.
    pub(super) fn slot_of(&self, name: &str) -> Option<usize> {
        self.sys
            .tool_index(name)
            .and_then(|i| self.sys.relevant.get(i).copied().flatten())
    }

    /// Whether the view keeps a relevant slot.
    fn keeps_slot(&self, r: usize) -> bool {
        self.tables.kept_slots.get(r).copied().unwrap_or(false)
    }

    /// The check's order rules and session limit for a tool, over state `s`. What the view
    /// forgets never stops a call (`explicit::check_allows`).
    fn allows(&self, s: &State, tool: usize) -> Bool {
        let Some(f) = self.tool(tool) else {
            return Bool::from_bool(false);
        };
        let mut all = Vec::new();
        for a in &f.after {
            match self.slot_of(a) {
                Some(r) if !self.keeps_slot(r) => {}
                Some(r) => match s.session.get(r) {
                    Some(ran) => all.push(ran.clone()),
                    None => return Bool::from_bool(false),
                },
                None => return Bool::from_bool(false),
            }
        }
        for a in &f.not_after {
            if let Some(r) = self.slot_of(a).filter(|&r| self.keeps_slot(r))
                && let Some(ran) = s.session.get(r)
            {
                all.push(ran.not());
            }
        }
        if f.not_after_untrusted {
            all.push(s.tainted.not());
        }
        if let (Some(limit), Some(Some(slot))) = (f.at_most_session, self.sys.counted.get(tool))
            && self.tables.kept_counts.get(*slot).copied().unwrap_or(false)
            && let Some(count) = s.counts.get(*slot)
        {
            // Refused once the count has reached the limit; a count saturates at its cap.
            match usize::try_from(limit).ok().and_then(|l| l.checked_sub(1)) {
                None => return Bool::from_bool(false),
                Some(at) => {
                    if let Some(reached) = count.get(at) {
                        all.push(reached.not());
                    }
                }
            }
        }
        and(&all)
    }

    /// A tool run: the guard's decision, and the run's marks.
    fn run(&self, j: usize, s: &State, next: &State, out: &mut Transition) {
        let t = &self.tables;
        let nt = self.class_is(j, NEXT_TURN);
        let guarded = self.class_is(j, CALL);
        for (tool, nodes) in t.tool_nodes.iter().enumerate() {
            let Some(f) = self.tool(tool) else { continue };
            if !f.has_order_rule() {
                continue;
            }
            if let Some(into) = self.reaches_by(j, nodes.iter().copied(), 1 << CALL) {
                out.taken
                    .push(and(&[guarded.clone(), into]).implies(self.allows(s, tool)));
            }
        }
        let is = |p: &dyn Fn(&crate::catalogue::ToolFacts) -> bool| {
            self.runs_tool_where(j, |x| self.tool(x).is_some_and(p))
        };
        let write = self
            .steps
            .get(j)
            .and_then(|st| st.write.clone())
            .unwrap_or_else(|| Bool::from_bool(false));
        let reads_outside = is(&|f| f.reads_outside);
        let confidential = is(&|f| f.confidential);
        let candidate =
            is(&|f| f.write && f.undo_tool.is_none() && !f.undo_none && !f.irreversible);
        let irreversible = is(&|f| f.write && f.irreversible);
        out.define(
            &next.run_wrote,
            Bool::or(&[and(&[nt.not(), s.run_wrote.clone()]), write]),
        );
        out.define(
            &next.run_untrusted,
            Bool::or(&[and(&[nt.not(), s.run_untrusted.clone()]), reads_outside]),
        );
        out.define(
            &next.run_confidential,
            Bool::or(&[and(&[nt.not(), s.run_confidential.clone()]), confidential]),
        );
        let none = BV::from_u64(t.nodes as u64, t.node_bits);
        out.define_bv(
            &next.pending,
            candidate.ite(&next.node, &nt.ite(&none, &s.pending)),
        );
        out.define_bv(
            &next.last_irreversible,
            irreversible.ite(&next.node, &nt.ite(&none, &s.last_irreversible)),
        );
    }
}
