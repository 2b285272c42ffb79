//! The bounded-model-checking formula: the transition system of `system.rs` unrolled one step at
//! a time over z3 bit-vectors and booleans, with exactly the semantics of `explicit::take` (its
//! guard, its agent switching, its resets at the next turn) and, for each obligation, the
//! condition under which step `j` raises its event.
//!
//! Edge choice is compact: one bit-vector per step names the edge taken, and the edges are
//! grouped by the node they leave, so being at a node bounds the choice to one range. What an
//! edge does beyond moving is its class (a three-bit code) and the agent it runs as; what a tool
//! run does is read from the node it reaches (`pending` and `last_irreversible` hold tool nodes,
//! not tool indices). Every variable has a deterministic name (`node_3`, `ran_2_get_order`), so
//! the SMT-LIB text of an unrolling is stable.

use std::collections::BTreeMap;

use stalwart_graph::{EdgeKind, NodeKind};
use z3::ast::{BV, Bool};

use crate::system::{Obligation, System, is_code};

/// An edge that only moves.
const MOVE: u64 = 0;
/// `next_turn`: the run ends and the next turn starts.
const NEXT_TURN: u64 = 1;
const HANDS_OFF: u64 = 2;
const CHANNEL: u64 = 3;
/// A call through the guard into a tool: the check decides it.
const CALL: u64 = 4;
/// A custom step's own call into a tool, around the check.
const UNGUARDED: u64 = 5;
const CLASS_BITS: u32 = 3;
/// The classes that run a tool, a bit per class.
const RUNS: u8 = 1 << CALL | 1 << UNGUARDED;

/// Bits to write every value below `n` (at least one).
fn bits(n: u64) -> u32 {
    (64 - n.saturating_sub(1).leading_zeros()).max(1)
}

/// One edge the encoding can take.
#[derive(Debug, Clone)]
pub(crate) struct Row {
    /// Index into the graph's edges (what a witness names).
    pub graph_index: usize,
    pub to: usize,
    pub class: u64,
    pub agent: Option<usize>,
}

/// The system's facts, indexed for the formula.
#[derive(Debug, Clone)]
pub(crate) struct Tables {
    /// The takeable edges, grouped by the node they leave (in `System::out` order).
    pub rows: Vec<Row>,
    /// Per node, its rows: `start..end`.
    ranges: Vec<(usize, usize)>,
    nodes: usize,
    agents: usize,
    node_bits: u32,
    edge_bits: u32,
    agent_bits: u32,
    /// Turns as the search reads them (at least one).
    turns: u64,
    /// Per node, the classes of the rows into it, a bit per class.
    incoming: Vec<u8>,
    /// Per tool, the tool nodes that run it.
    tool_nodes: Vec<Vec<usize>>,
    /// Tools by name, and nodes by id.
    tools_by_name: BTreeMap<String, Vec<usize>>,
    nodes_by_id: BTreeMap<String, Vec<usize>>,
    /// Per relevant slot, its tool.
    slot_tool: Vec<usize>,
    /// Per counted slot, its tool and the count it saturates at.
    count_tool: Vec<(usize, u64)>,
    /// The most transitions any path within the bounds takes.
    pub transitions: usize,
    /// Which parts of the state some transition can set; the others stay as they start.
    settable: Settable,
}

/// Which parts of the state some transition can set: a part nothing sets is a constant, not a
/// variable, so the solver never has to find out that it cannot change.
#[derive(Debug, Clone, Default)]
struct Settable {
    /// Two agents route edges: a route can leave one agent's session for another's.
    escapes: bool,
    /// A tool that reads from outside can run.
    taints: bool,
    confidential: bool,
    wrote: bool,
    candidate: bool,
    irreversible: bool,
    /// A model node has a route out.
    via_model: bool,
    /// Per relevant slot, whether its tool can run.
    slots: Vec<bool>,
    /// Per counted slot, whether its tool can run.
    counts: Vec<bool>,
}

impl Tables {
    pub(crate) fn new(sys: &System<'_>) -> Self {
        let nodes = sys.kinds.len();
        let mut rows = Vec::new();
        let mut ranges = Vec::with_capacity(nodes);
        for v in 0..nodes {
            let start = rows.len();
            for e in sys.out.get(v).into_iter().flatten() {
                let to_kind = sys.kinds.get(e.to).copied();
                let runs = to_kind == Some(NodeKind::Tool)
                    && matches!(e.kind, EdgeKind::Call | EdgeKind::Unguarded);
                let has_tool = sys.node_tool.get(e.to).copied().flatten().is_some();
                // INVARIANT: `take` refuses a call into a tool node that names no tool.
                if runs && !has_tool {
                    continue;
                }
                let class = match e.kind {
                    EdgeKind::NextTurn => NEXT_TURN,
                    EdgeKind::HandsOff => HANDS_OFF,
                    EdgeKind::Channel => CHANNEL,
                    EdgeKind::Call if runs => CALL,
                    EdgeKind::Unguarded if runs => UNGUARDED,
                    _ => MOVE,
                };
                rows.push(Row {
                    graph_index: e.index,
                    to: e.to,
                    class,
                    agent: e.agent,
                });
            }
            ranges.push((start, rows.len()));
        }
        let mut incoming = vec![0u8; nodes];
        for row in &rows {
            if let Some(bits) = incoming.get_mut(row.to) {
                *bits |= 1 << row.class;
            }
        }
        let mut tool_nodes = vec![Vec::new(); sys.catalogue.tools.len()];
        for (v, tool) in sys.node_tool.iter().enumerate() {
            if let Some(t) = tool
                && sys.kinds.get(v) == Some(&NodeKind::Tool)
                && let Some(list) = tool_nodes.get_mut(*t)
            {
                list.push(v);
            }
        }
        let mut slot_tool = vec![0; sys.relevant_count];
        for (t, slot) in sys.relevant.iter().enumerate() {
            if let Some(slot) = slot
                && let Some(x) = slot_tool.get_mut(*slot)
            {
                *x = t;
            }
        }
        let mut count_tool = vec![(0, 0); sys.counted_count];
        for (t, slot) in sys.counted.iter().enumerate() {
            if let Some(slot) = slot
                && let Some(x) = count_tool.get_mut(*slot)
            {
                let limit = sys
                    .catalogue
                    .tools
                    .get(t)
                    .and_then(|f| f.at_most_session)
                    .unwrap_or(0);
                *x = (t, u64::from(limit.min(254)) + 1);
            }
        }
        let runnable: Vec<bool> = tool_nodes
            .iter()
            .map(|nodes| {
                nodes
                    .iter()
                    .any(|&v| incoming.get(v).is_some_and(|b| b & RUNS != 0))
            })
            .collect();
        let can = |p: &dyn Fn(&crate::catalogue::ToolFacts) -> bool| {
            sys.catalogue
                .tools
                .iter()
                .zip(runnable.iter())
                .any(|(f, &r)| r && p(f))
        };
        let agents_routed: std::collections::BTreeSet<usize> =
            rows.iter().filter_map(|r| r.agent).collect();
        let settable = Settable {
            escapes: agents_routed.len() > 1,
            taints: can(&|f| f.reads_outside),
            confidential: can(&|f| f.confidential),
            wrote: can(&|f| f.write),
            candidate: can(&|f| {
                f.write && f.undo_tool.is_none() && !f.undo_none && !f.irreversible
            }),
            irreversible: can(&|f| f.write && f.irreversible),
            via_model: (0..nodes).any(|v| {
                sys.kinds.get(v) == Some(&NodeKind::Model)
                    && ranges.get(v).is_some_and(|(lo, hi)| hi > lo)
            }),
            slots: slot_tool
                .iter()
                .map(|&t| runnable.get(t).copied().unwrap_or(false))
                .collect(),
            counts: count_tool
                .iter()
                .map(|&(t, _)| runnable.get(t).copied().unwrap_or(false))
                .collect(),
        };
        let mut tools_by_name: BTreeMap<String, Vec<usize>> = BTreeMap::new();
        for (i, f) in sys.catalogue.tools.iter().enumerate() {
            tools_by_name.entry(f.name.clone()).or_default().push(i);
        }
        let mut nodes_by_id: BTreeMap<String, Vec<usize>> = BTreeMap::new();
        for v in 0..nodes {
            nodes_by_id
                .entry(sys.node_id(v).to_string())
                .or_default()
                .push(v);
        }
        let turns = u64::from(sys.bounds.turns.max(1));
        let depth = u64::from(sys.bounds.depth);
        let agents = sys.graph.agents.len();
        Self {
            node_bits: bits(nodes as u64 + 1),
            edge_bits: bits(rows.len() as u64 + 1),
            agent_bits: bits(agents as u64 + 1),
            turns,
            rows,
            ranges,
            incoming,
            nodes,
            agents,
            tool_nodes,
            tools_by_name,
            nodes_by_id,
            slot_tool,
            count_tool,
            transitions: (turns * (depth + 1) - 1) as usize,
            settable,
        }
    }

    /// The count a counted slot saturates at.
    fn cap(&self, slot: usize) -> u64 {
        self.count_tool.get(slot).map_or(0, |c| c.1)
    }
}

/// The state after `j` steps.
#[derive(Debug, Clone)]
pub(crate) struct State {
    pub node: BV,
    agent: BV,
    session: Vec<Bool>,
    /// Per counted slot, unary: `counts[c][k - 1]` is "at least `k` calls".
    counts: Vec<Vec<Bool>>,
    tainted: Bool,
    escaped: Vec<Bool>,
    escaped_taint: Bool,
    run_wrote: Bool,
    run_untrusted: Bool,
    run_confidential: Bool,
    last_irreversible: BV,
    pending: BV,
    via_model: Bool,
    /// Unary: `steps[k - 1]` is "at least `k` steps this run".
    steps: Vec<Bool>,
    /// Unary: `turn[k - 1]` is "at least `k` turns past the first".
    turn: Vec<Bool>,
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
    pub edge: BV,
    class: BV,
    edge_agent: BV,
    /// The step runs a write; runs a write that has an undo (shared by many events).
    write: Option<Bool>,
    undoable: Option<Bool>,
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
    sys: &'s System<'a>,
    pub tables: Tables,
    pub states: Vec<State>,
    pub steps: Vec<Step>,
}

fn or(terms: Vec<Bool>) -> Option<Bool> {
    match terms.len() {
        0 => None,
        1 => terms.into_iter().next(),
        _ => Some(Bool::or(&terms)),
    }
}

fn or_false(terms: Vec<Bool>) -> Bool {
    or(terms).unwrap_or_else(|| Bool::from_bool(false))
}

fn and(terms: &[Bool]) -> Bool {
    Bool::and(terms)
}

/// A tool's name, safe inside a variable name.
fn tag(name: &str) -> String {
    name.chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
        .collect()
}

impl<'s, 'a> Unrolling<'s, 'a> {
    /// The initial states (any start node, nothing run) and their constraints.
    pub(crate) fn new(sys: &'s System<'a>) -> (Self, Vec<Bool>) {
        let tables = Tables::new(sys);
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
            run_untrusted: var(set.taints, format!("run_untrusted_{j}")),
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
    fn reaches(&self, j: usize, nodes: impl IntoIterator<Item = usize>) -> Option<Bool> {
        self.reaches_by(j, nodes, u8::MAX)
    }

    /// `node_{j+1}` is one of these nodes, leaving out nodes no row of the classes in `classes`
    /// (a bit per class) leads to: those cannot be reached that way.
    fn reaches_by(
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

    fn class_is(&self, j: usize, class: u64) -> Bool {
        self.steps
            .get(j)
            .map_or_else(|| Bool::from_bool(false), |s| s.class.eq(class))
    }

    fn runs(&self, j: usize) -> Bool {
        Bool::or(&[self.class_is(j, CALL), self.class_is(j, UNGUARDED)])
    }

    fn nodes_of_kind(&self, kind: NodeKind) -> Vec<usize> {
        (0..self.tables.nodes)
            .filter(|&v| self.sys.kinds.get(v) == Some(&kind))
            .collect()
    }

    /// Tool nodes whose tool has a property.
    fn tool_nodes_where(&self, p: impl Fn(usize) -> bool) -> Vec<usize> {
        self.tables
            .tool_nodes
            .iter()
            .enumerate()
            .filter(|(t, _)| p(*t))
            .flat_map(|(_, n)| n.iter().copied())
            .collect()
    }

    /// Step `j` runs one of these tool nodes (through the guard or around it).
    fn runs_one_of(&self, j: usize, nodes: Vec<usize>) -> Option<Bool> {
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
        let step = Step {
            edge: BV::new_const(format!("edge_{j}"), t.edge_bits),
            class: BV::new_const(format!("class_{j}"), CLASS_BITS),
            edge_agent: BV::new_const(format!("edge_agent_{j}"), t.agent_bits),
            write: None,
            undoable: None,
        };
        let next = self.fresh_state(j + 1);
        let mut out = Transition::default();
        let Some(s) = self.states.last().cloned() else {
            out.taken.push(Bool::from_bool(false));
            return out;
        };
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
        let taken: Vec<Bool> = (0..t.rows.len()).map(|i| step.edge.eq(i as u64)).collect();
        // Forward: being at a node, the edge is one of its rows.
        for (v, &(lo, hi)) in t.ranges.iter().enumerate() {
            let here = s.node.eq(v as u64);
            let choice = or_false(taken.get(lo..hi).unwrap_or_default().to_vec());
            out.taken.push(here.implies(&choice));
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
        // from, so what an event needs of a step narrows the edge at once.
        for (w, rows) in into.into_iter().enumerate() {
            out.defined
                .push(next.node.eq(w as u64).implies(or_false(rows)));
        }
        for (c, rows) in by_class.into_iter().enumerate() {
            out.defined
                .push(step.class.eq(c as u64).implies(or_false(rows)));
        }
        for (a, rows) in by_agent.into_iter().enumerate() {
            out.defined
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

    fn tool(&self, t: usize) -> Option<&crate::catalogue::ToolFacts> {
        self.sys.catalogue.tools.get(t)
    }

    /// The relevant slot of a tool named in an order rule, when it has one.
    fn slot_of(&self, name: &str) -> Option<usize> {
        self.sys
            .catalogue
            .index(name)
            .and_then(|i| self.sys.relevant.get(i).copied().flatten())
    }

    /// The check's order rules and session limit for a tool, over state `s`.
    fn allows(&self, s: &State, tool: usize) -> Bool {
        let Some(f) = self.tool(tool) else {
            return Bool::from_bool(false);
        };
        let mut all = Vec::new();
        for a in &f.after {
            match self.slot_of(a).and_then(|r| s.session.get(r)) {
                Some(ran) => all.push(ran.clone()),
                None => return Bool::from_bool(false),
            }
        }
        for a in &f.not_after {
            if let Some(ran) = self.slot_of(a).and_then(|r| s.session.get(r)) {
                all.push(ran.not());
            }
        }
        if f.not_after_untrusted {
            all.push(s.tainted.not());
        }
        if let (Some(limit), Some(Some(slot))) = (f.at_most_session, self.sys.counted.get(tool))
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

    /// The tools named `name` (the catalogue may in principle repeat a name).
    fn tools_named(&self, name: &str) -> Vec<usize> {
        self.tables
            .tools_by_name
            .get(name)
            .cloned()
            .unwrap_or_default()
    }

    /// Nodes of a kind whose id is `id` and that satisfy `p`.
    fn nodes_named(&self, kind: NodeKind, id: &str, p: impl Fn(usize) -> bool) -> Vec<usize> {
        self.tables
            .nodes_by_id
            .get(id)
            .into_iter()
            .flatten()
            .copied()
            .filter(|&v| self.sys.kinds.get(v) == Some(&kind) && p(v))
            .collect()
    }

    /// Whether transition `j` raises the obligation's event; `None` when it never can.
    pub(crate) fn event(&self, o: &Obligation, j: usize) -> Option<Bool> {
        let s = self.states.get(j)?;
        let subject = o.subject.as_str();
        let sys = self.sys;
        let tools = self.tools_named(subject);
        let run_of = |class: Option<u64>, p: &dyn Fn(&crate::catalogue::ToolFacts) -> bool| {
            let nodes: Vec<usize> = tools
                .iter()
                .filter(|&&t| self.tool(t).is_some_and(p))
                .flat_map(|&t| self.tables.tool_nodes.get(t).into_iter().flatten().copied())
                .collect();
            Some(match class {
                Some(c) => and(&[self.class_is(j, c), self.reaches_by(j, nodes, 1 << c)?]),
                None => and(&[self.runs(j), self.reaches_by(j, nodes, RUNS)?]),
            })
        };
        let untrusted = || Bool::or(&[s.tainted.clone(), s.run_untrusted.clone()]);
        match o.rule {
            "QG001" => run_of(Some(UNGUARDED), &|_| true),
            "QG014" => run_of(Some(UNGUARDED), &|f| f.has_order_rule()),
            "QG012" => Some(and(&[run_of(Some(UNGUARDED), &|f| f.write)?, untrusted()])),
            "QG003" => self.escaped_order(j, s, &tools),
            "QG105" => {
                let wrote = run_of(None, &|f| f.write).map(|r| and(&[r, s.run_wrote.clone()]));
                or([wrote, self.pending_other(j, s, &tools)]
                    .into_iter()
                    .flatten()
                    .collect())
            }
            "QG013" => {
                let undoable = self.steps.get(j)?.undoable.clone()?;
                let last = or(tools
                    .iter()
                    .filter(|&&t| self.tool(t).is_some_and(|f| f.write && f.irreversible))
                    .flat_map(|&t| self.tables.tool_nodes.get(t).into_iter().flatten())
                    .map(|&u| s.last_irreversible.eq(u as u64))
                    .collect())?;
                Some(and(&[undoable, last]))
            }
            "QG019" => Some(and(&[
                run_of(None, &|f| f.sends_out)?,
                s.run_confidential.clone(),
            ])),
            "QG021" => Some(and(&[
                run_of(None, &|f| {
                    f.writes_to
                        .as_ref()
                        .is_some_and(|st| sys.persistent.contains(st))
                })?,
                untrusted(),
            ])),
            "QG017" | "QG018" => {
                let code = o.rule == "QG017";
                Some(and(&[
                    run_of(None, &|f| {
                        f.argument_kinds.iter().any(|(_, k)| is_code(*k) == code)
                    })?,
                    s.via_model.clone(),
                ]))
            }
            "QG020" => run_of(None, &|f| {
                f.retrieves_from
                    .as_ref()
                    .is_some_and(|st| sys.unbound.contains(st))
            }),
            "QG002" => self.reaches(
                j,
                self.nodes_named(NodeKind::Step, subject, |v| {
                    sys.steps_after_guard.get(v).copied().unwrap_or(false)
                }),
            ),
            "QG016" => self.reaches(
                j,
                self.nodes_named(NodeKind::Step, subject, |v| {
                    sys.steps_route_tool.get(v).copied().unwrap_or(false)
                }),
            ),
            "QG011" => self.lower_privilege(j, s, subject),
            "reach_model" => self.reaches(
                j,
                (0..self.tables.nodes).filter(|&v| {
                    sys.kinds.get(v) == Some(&NodeKind::Model)
                        && sys
                            .node_agent
                            .get(v)
                            .copied()
                            .flatten()
                            .is_some_and(|a| sys.agent_name(a) == subject)
                }),
            ),
            _ => None,
        }
    }

    /// QG003: a guarded call of a tool whose `not_after` ran in another agent's session.
    fn escaped_order(&self, j: usize, s: &State, tools: &[usize]) -> Option<Bool> {
        let mut any = Vec::new();
        for &t in tools {
            let Some(f) = self.tool(t) else { continue };
            let mut escaped = Vec::new();
            for a in &f.not_after {
                if let Some(r) = self.slot_of(a)
                    && let (Some(esc), Some(ran)) = (s.escaped.get(r), s.session.get(r))
                    && esc.as_bool() != Some(false)
                {
                    escaped.push(and(&[esc.clone(), ran.not()]));
                }
            }
            if f.not_after_untrusted && s.escaped_taint.as_bool() != Some(false) {
                escaped.push(and(&[s.escaped_taint.clone(), s.tainted.not()]));
            }
            let (Some(escaped), Some(into)) = (
                or(escaped),
                self.reaches_by(
                    j,
                    self.tables.tool_nodes.get(t).into_iter().flatten().copied(),
                    1 << CALL,
                ),
            ) else {
                continue;
            };
            any.push(and(&[self.class_is(j, CALL), into, escaped]));
        }
        or(any)
    }

    /// QG105 for a pending write: another write runs while it is the run's last write without
    /// an undo.
    fn pending_other(&self, j: usize, s: &State, tools: &[usize]) -> Option<Bool> {
        let next = &self.states.get(j + 1)?.node;
        let pending = or(tools
            .iter()
            .filter(|&&t| {
                self.tool(t).is_some_and(|f| {
                    f.write && f.undo_tool.is_none() && !f.undo_none && !f.irreversible
                })
            })
            .flat_map(|&t| self.tables.tool_nodes.get(t).into_iter().flatten())
            .map(|&u| and(&[s.pending.eq(u as u64), next.ne(u as u64)]))
            .collect())?;
        let write = self.steps.get(j)?.write.clone()?;
        Some(and(&[write, pending]))
    }

    /// QG011: a step of a more privileged agent reached, not by a hand-off, from a less
    /// privileged agent's route.
    fn lower_privilege(&self, j: usize, s: &State, step: &str) -> Option<Bool> {
        let sys = self.sys;
        let mut any = Vec::new();
        for v in self.nodes_named(NodeKind::Step, step, |_| true) {
            let Some(owner) = sys.node_agent.get(v).copied().flatten() else {
                continue;
            };
            let lower = or((0..self.tables.agents)
                .filter(|&a| sys.privilege.get(a) < sys.privilege.get(owner))
                .map(|a| s.agent.eq(a as u64))
                .collect());
            let not_hand_off = !(1u8 << HANDS_OFF);
            let (Some(lower), Some(into)) = (lower, self.reaches_by(j, [v], not_hand_off)) else {
                continue;
            };
            any.push(and(&[into, self.class_is(j, HANDS_OFF).not(), lower]));
        }
        or(any)
    }
}
