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
#[derive(Debug)]
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
    step_bits: u32,
    turn_bits: u32,
    /// Turns as the search reads them (at least one).
    turns: u64,
    /// Per node, the classes of the rows into it, a bit per class.
    incoming: Vec<u8>,
    /// Per tool, the tool nodes that run it.
    tool_nodes: Vec<Vec<usize>>,
    /// Per relevant slot, its tool.
    slot_tool: Vec<usize>,
    /// Per counted slot, its tool and the count it saturates at.
    count_tool: Vec<(usize, u64)>,
    /// The most transitions any path within the bounds takes.
    pub transitions: usize,
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
        let turns = u64::from(sys.bounds.turns.max(1));
        let depth = u64::from(sys.bounds.depth);
        let agents = sys.graph.agents.len();
        Self {
            node_bits: bits(nodes as u64 + 1),
            edge_bits: bits(rows.len() as u64 + 1),
            agent_bits: bits(agents as u64 + 1),
            step_bits: bits(depth + 1),
            turn_bits: bits(turns),
            turns,
            rows,
            ranges,
            incoming,
            nodes,
            agents,
            tool_nodes,
            slot_tool,
            count_tool,
            transitions: (turns * (depth + 1) - 1) as usize,
        }
    }

    fn count_bits(&self, slot: usize) -> u32 {
        bits(self.count_tool.get(slot).map_or(0, |c| c.1) + 1)
    }
}

/// The state after `j` steps.
#[derive(Debug, Clone)]
pub(crate) struct State {
    pub node: BV,
    agent: BV,
    session: Vec<Bool>,
    counts: Vec<BV>,
    tainted: Bool,
    escaped: Vec<Bool>,
    escaped_taint: Bool,
    run_wrote: Bool,
    run_untrusted: Bool,
    run_confidential: Bool,
    last_irreversible: BV,
    pending: BV,
    via_model: Bool,
    steps: BV,
    turn: BV,
}

/// Transition `j`: the edge taken and what it is.
#[derive(Debug, Clone)]
pub(crate) struct Step {
    pub edge: BV,
    class: BV,
    edge_agent: BV,
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
                .map(|c| BV::from_u64(0, tables.count_bits(c)))
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
            steps: BV::from_u64(0, tables.step_bits),
            turn: BV::from_u64(0, tables.turn_bits),
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

    fn fresh_state(&self, j: usize) -> State {
        let sys = self.sys;
        let t = &self.tables;
        let slot_name = |what: &str, slot: usize| {
            let tool = t.slot_tool.get(slot).copied().unwrap_or(0);
            format!("{what}_{j}_{}", tag(sys.tool_name(tool)))
        };
        State {
            node: BV::new_const(format!("node_{j}"), t.node_bits),
            agent: BV::new_const(format!("agent_{j}"), t.agent_bits),
            session: (0..sys.relevant_count)
                .map(|r| Bool::new_const(slot_name("ran", r)))
                .collect(),
            counts: (0..sys.counted_count)
                .map(|c| {
                    let tool = t.count_tool.get(c).map_or(0, |x| x.0);
                    BV::new_const(
                        format!("count_{j}_{}", tag(sys.tool_name(tool))),
                        t.count_bits(c),
                    )
                })
                .collect(),
            tainted: Bool::new_const(format!("tainted_{j}")),
            escaped: (0..sys.relevant_count)
                .map(|r| Bool::new_const(slot_name("escaped", r)))
                .collect(),
            escaped_taint: Bool::new_const(format!("escaped_taint_{j}")),
            run_wrote: Bool::new_const(format!("run_wrote_{j}")),
            run_untrusted: Bool::new_const(format!("run_untrusted_{j}")),
            run_confidential: Bool::new_const(format!("run_confidential_{j}")),
            last_irreversible: BV::new_const(format!("last_irreversible_{j}"), t.node_bits),
            pending: BV::new_const(format!("pending_{j}"), t.node_bits),
            via_model: Bool::new_const(format!("via_model_{j}")),
            steps: BV::new_const(format!("steps_{j}"), t.step_bits),
            turn: BV::new_const(format!("turn_{j}"), t.turn_bits),
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

    fn runs_tool_where(&self, j: usize, p: impl Fn(usize) -> bool) -> Bool {
        self.runs_one_of(j, self.tool_nodes_where(p))
            .unwrap_or_else(|| Bool::from_bool(false))
    }

    /// Adds transition `j` (from the last state) and returns its constraints.
    pub(crate) fn extend(&mut self) -> Vec<Bool> {
        let j = self.steps.len();
        let t = &self.tables;
        let step = Step {
            edge: BV::new_const(format!("edge_{j}"), t.edge_bits),
            class: BV::new_const(format!("class_{j}"), CLASS_BITS),
            edge_agent: BV::new_const(format!("edge_agent_{j}"), t.agent_bits),
        };
        let next = self.fresh_state(j + 1);
        let Some(s) = self.states.last().cloned() else {
            return vec![Bool::from_bool(false)];
        };
        self.steps.push(step.clone());
        self.states.push(next.clone());
        let mut out = self.edge_choice(j, &s, &step, &next);
        out.extend(self.bounds(&s, &step, &next));
        out.extend(self.agent_and_session(j, &s, &step, &next));
        out.extend(self.run(j, &s, &next));
        out
    }

    /// Being at a node bounds the edge to its rows; each row fixes the next node, the class and
    /// the agent of the route.
    fn edge_choice(&self, _j: usize, s: &State, step: &Step, next: &State) -> Vec<Bool> {
        let t = &self.tables;
        let mut out = Vec::new();
        for (v, &(lo, hi)) in t.ranges.iter().enumerate() {
            let here = s.node.eq(v as u64);
            let choice = match hi - lo {
                0 => Bool::from_bool(false),
                1 => step.edge.eq(lo as u64),
                _ => and(&[
                    step.edge.bvuge(BV::from_u64(lo as u64, t.edge_bits)),
                    step.edge.bvult(BV::from_u64(hi as u64, t.edge_bits)),
                ]),
            };
            out.push(here.implies(&choice));
        }
        let none = t.agents as u64;
        for (i, row) in t.rows.iter().enumerate() {
            let agent = row.agent.map_or(none, |a| a as u64);
            out.push(step.edge.eq(i as u64).implies(and(&[
                next.node.eq(row.to as u64),
                step.class.eq(row.class),
                step.edge_agent.eq(agent),
            ])));
        }
        out
    }

    /// The run's step limit and the conversation's turns.
    fn bounds(&self, s: &State, step: &Step, next: &State) -> Vec<Bool> {
        let t = &self.tables;
        let nt = step.class.eq(NEXT_TURN);
        let depth = u64::from(self.sys.bounds.depth);
        let may_turn = if t.turns > 1 {
            s.turn.bvult(BV::from_u64(t.turns - 1, t.turn_bits))
        } else {
            Bool::from_bool(false)
        };
        let may_step = if depth > 0 {
            s.steps.bvult(BV::from_u64(depth, t.step_bits))
        } else {
            Bool::from_bool(false)
        };
        let one_step = BV::from_u64(1, t.step_bits);
        let one_turn = BV::from_u64(1, t.turn_bits);
        vec![
            nt.implies(&may_turn),
            nt.not().implies(&may_step),
            next.steps
                .eq(nt.ite(&BV::from_u64(0, t.step_bits), &s.steps.bvadd(&one_step))),
            next.turn.eq(nt.ite(&s.turn.bvadd(&one_turn), &s.turn)),
        ]
    }

    /// Whether the route may run as its agent, and what a change of agent does to the sessions.
    fn agent_and_session(&self, j: usize, s: &State, step: &Step, next: &State) -> Vec<Bool> {
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
        let mut out = vec![
            blocked.not(),
            next.agent.eq(switch.ite(&step.edge_agent, &s.agent)),
        ];
        for (r, (ran, esc)) in s.session.iter().zip(s.escaped.iter()).enumerate() {
            let tool = t.slot_tool.get(r).copied().unwrap_or(0);
            let runs = self.runs_tool_where(j, |x| x == tool);
            if let (Some(n_ran), Some(n_esc)) = (next.session.get(r), next.escaped.get(r)) {
                out.push(n_ran.eq(Bool::or(&[and(&[switch.not(), ran.clone()]), runs])));
                out.push(n_esc.eq(Bool::or(&[
                    and(&[nt.not(), esc.clone()]),
                    and(&[leave.clone(), ran.clone()]),
                ])));
            }
        }
        for (c, (count, n_count)) in s.counts.iter().zip(next.counts.iter()).enumerate() {
            let (tool, cap) = t.count_tool.get(c).copied().unwrap_or((0, 0));
            let width = t.count_bits(c);
            let base = switch.ite(&BV::from_u64(0, width), count);
            let cap_bv = BV::from_u64(cap, width);
            let bumped = base
                .eq(&cap_bv)
                .ite(&cap_bv, &base.bvadd(BV::from_u64(1, width)));
            let runs = self.runs_tool_where(j, |x| x == tool);
            out.push(n_count.eq(runs.ite(&bumped, &base)));
        }
        let reads_outside =
            self.runs_tool_where(j, |x| self.tool(x).is_some_and(|f| f.reads_outside));
        out.push(next.tainted.eq(Bool::or(&[
            and(&[switch.not(), s.tainted.clone()]),
            reads_outside,
        ])));
        out.push(next.escaped_taint.eq(Bool::or(&[
            and(&[nt.not(), s.escaped_taint.clone()]),
            and(&[leave, s.tainted.clone()]),
        ])));
        let from_model = self
            .leaves(j, self.nodes_of_kind(NodeKind::Model))
            .unwrap_or_else(|| Bool::from_bool(false));
        let from_turn = self
            .leaves(j, self.nodes_of_kind(NodeKind::Turn))
            .unwrap_or_else(|| Bool::from_bool(false));
        out.push(next.via_model.eq(Bool::or(&[
            from_model,
            and(&[from_turn.not(), nt.not(), s.via_model.clone()]),
        ])));
        out
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
            let cap = self.tables.count_tool.get(*slot).map_or(0, |c| c.1);
            if u64::from(limit) <= cap {
                all.push(count.bvult(BV::from_u64(u64::from(limit), count.get_size())));
            }
        }
        and(&all)
    }

    /// A tool run: the guard's decision, and the run's marks.
    fn run(&self, j: usize, s: &State, next: &State) -> Vec<Bool> {
        let t = &self.tables;
        let nt = self.class_is(j, NEXT_TURN);
        let guarded = self.class_is(j, CALL);
        let mut out = Vec::new();
        for (tool, nodes) in t.tool_nodes.iter().enumerate() {
            let Some(f) = self.tool(tool) else { continue };
            if !f.has_order_rule() {
                continue;
            }
            if let Some(into) = self.reaches_by(j, nodes.iter().copied(), 1 << CALL) {
                out.push(and(&[guarded.clone(), into]).implies(self.allows(s, tool)));
            }
        }
        let is = |p: &dyn Fn(&crate::catalogue::ToolFacts) -> bool| {
            self.runs_tool_where(j, |x| self.tool(x).is_some_and(p))
        };
        let write = is(&|f| f.write);
        let reads_outside = is(&|f| f.reads_outside);
        let confidential = is(&|f| f.confidential);
        let candidate =
            is(&|f| f.write && f.undo_tool.is_none() && !f.undo_none && !f.irreversible);
        let irreversible = is(&|f| f.write && f.irreversible);
        out.push(
            next.run_wrote
                .eq(Bool::or(&[and(&[nt.not(), s.run_wrote.clone()]), write])),
        );
        out.push(next.run_untrusted.eq(Bool::or(&[
            and(&[nt.not(), s.run_untrusted.clone()]),
            reads_outside,
        ])));
        out.push(next.run_confidential.eq(Bool::or(&[
            and(&[nt.not(), s.run_confidential.clone()]),
            confidential,
        ])));
        let none = BV::from_u64(t.nodes as u64, t.node_bits);
        out.push(
            next.pending
                .eq(candidate.ite(&next.node, &nt.ite(&none, &s.pending))),
        );
        out.push(
            next.last_irreversible
                .eq(irreversible.ite(&next.node, &nt.ite(&none, &s.last_irreversible))),
        );
        out
    }

    /// The tools named `name` (the catalogue may in principle repeat a name).
    fn tools_named(&self, name: &str) -> Vec<usize> {
        self.sys
            .catalogue
            .tools
            .iter()
            .enumerate()
            .filter(|(_, f)| f.name == name)
            .map(|(i, _)| i)
            .collect()
    }

    /// Nodes of a kind whose id is `id` and that satisfy `p`.
    fn nodes_named(&self, kind: NodeKind, id: &str, p: impl Fn(usize) -> bool) -> Vec<usize> {
        (0..self.tables.nodes)
            .filter(|&v| self.sys.kinds.get(v) == Some(&kind) && self.sys.node_id(v) == id && p(v))
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
                let undoable = self.runs_one_of(
                    j,
                    self.tool_nodes_where(|x| {
                        self.tool(x)
                            .is_some_and(|f| f.write && f.undo_tool.is_some())
                    }),
                )?;
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
                {
                    escaped.push(and(&[esc.clone(), ran.not()]));
                }
            }
            if f.not_after_untrusted {
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
        let write = self.runs_tool_where(j, |x| self.tool(x).is_some_and(|f| f.write));
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
