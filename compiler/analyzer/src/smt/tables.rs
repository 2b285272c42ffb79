//! The system's facts as the formula indexes them: the takeable edges grouped by the node they
//! leave, each with its class (what taking it does beyond moving) and agent; the tool nodes of
//! each tool; the bit widths; and which parts of the state some transition can set.

use std::collections::{BTreeMap, BTreeSet};

use stalwart_graph::{EdgeKind, NodeKind};

use crate::explicit::View;
use crate::system::System;

/// An edge that only moves.
pub(super) const MOVE: u64 = 0;
/// `next_turn`: the run ends and the next turn starts.
pub(super) const NEXT_TURN: u64 = 1;
pub(super) const HANDS_OFF: u64 = 2;
pub(super) const CHANNEL: u64 = 3;
/// A call through the guard into a tool: the check decides it.
pub(super) const CALL: u64 = 4;
/// A custom step's own call into a tool, around the check.
pub(super) const UNGUARDED: u64 = 5;
pub(super) const CLASS_BITS: u32 = 3;
/// The classes that run a tool, a bit per class.
pub(super) const RUNS: u8 = 1 << CALL | 1 << UNGUARDED;

/// Bits to write every value below `n` (at least one).
fn bits(n: u64) -> u32 {
    (64 - n.saturating_sub(1).leading_zeros()).max(1)
}

/// The parts of the run's state that only obligations' events read (never the check): a search
/// encodes those its obligations' events read, and the others stay constants. The check's own
/// state (the tool bits and counters of the view, the session's mark from outside reads) is
/// always encoded, so leaving these out changes no path, only what is asked of it.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) struct Cone {
    /// What ran in another agent's session (QG003).
    pub escapes: bool,
    /// The run read from outside (QG012, QG021).
    pub untrusted: bool,
    /// The run read a confidential tool (QG019).
    pub confidential: bool,
    /// The run wrote, and its pending write without an undo (QG105).
    pub writes: bool,
    /// The run's last irreversible write (QG013).
    pub irreversible: bool,
    /// A model was left in this run (QG017, QG018).
    pub via_model: bool,
}

impl Cone {
    /// Every part: the whole state.
    pub(crate) fn all() -> Self {
        Self {
            escapes: true,
            untrusted: true,
            confidential: true,
            writes: true,
            irreversible: true,
            via_model: true,
        }
    }

    /// What the event of `rule` reads (`smt::event`).
    pub(crate) fn of(rule: &str) -> Self {
        let mut c = Self::default();
        match rule {
            "QG003" => c.escapes = true,
            "QG012" | "QG021" => c.untrusted = true,
            "QG019" => c.confidential = true,
            "QG105" => c.writes = true,
            "QG013" => c.irreversible = true,
            "QG017" | "QG018" => c.via_model = true,
            _ => {}
        }
        c
    }
}

/// What one search encodes: the view of the explicit search (the tool bits and counters the
/// check keeps; a forgotten one never stops a call) and the cone of its obligations' events.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) struct Slice {
    pub view: View,
    pub cone: Cone,
}

impl Slice {
    /// The real system, every part of its state encoded.
    pub(crate) fn all(sys: &System<'_>) -> Self {
        Self {
            view: View::all(sys),
            cone: Cone::all(),
        }
    }
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
    pub(super) ranges: Vec<(usize, usize)>,
    pub(super) nodes: usize,
    pub(super) agents: usize,
    pub(super) node_bits: u32,
    pub(super) agent_bits: u32,
    /// Bits to name a row among those leaving one node.
    pub(super) choice_bits: u32,
    /// Turns as the search reads them (at least one).
    pub(super) turns: u64,
    /// Per node, the classes of the rows into it, a bit per class.
    pub(super) incoming: Vec<u8>,
    /// Per tool, the tool nodes that run it.
    pub(super) tool_nodes: Vec<Vec<usize>>,
    /// Tools by name, and nodes by id.
    pub(super) tools_by_name: BTreeMap<String, Vec<usize>>,
    pub(super) nodes_by_id: BTreeMap<String, Vec<usize>>,
    /// Per relevant slot, its tool.
    pub(super) slot_tool: Vec<usize>,
    /// Per counted slot, its tool and the count it saturates at.
    pub(super) count_tool: Vec<(usize, u64)>,
    /// The most transitions any path within the bounds takes.
    pub transitions: usize,
    /// Which parts of the state some transition can set; the others stay as they start.
    pub(super) settable: Settable,
    /// Per relevant slot and per counted slot: the view keeps it (the check reads it). A
    /// forgotten one never stops a call.
    pub(super) kept_slots: Vec<bool>,
    pub(super) kept_counts: Vec<bool>,
}

/// Which parts of the state some transition can set: a part nothing sets is a constant, not a
/// variable, so the solver never has to find out that it cannot change.
#[derive(Debug, Clone, Default)]
pub(super) struct Settable {
    /// Two agents route edges: a route can leave one agent's session for another's.
    pub(super) escapes: bool,
    /// A tool that reads from outside can run.
    pub(super) taints: bool,
    /// ... and the run's mark of it is in the cone.
    pub(super) run_untrusted: bool,
    pub(super) confidential: bool,
    pub(super) wrote: bool,
    pub(super) candidate: bool,
    pub(super) irreversible: bool,
    /// A model node has a route out.
    pub(super) via_model: bool,
    /// Per relevant slot, whether its tool can run.
    pub(super) slots: Vec<bool>,
    /// Per counted slot, whether its tool can run.
    pub(super) counts: Vec<bool>,
}

impl Tables {
    /// The tables of a slice of the system. With `keep` (the tools the obligations name), tool
    /// nodes the slice cannot tell apart are one node ([`interchangeable`]).
    pub(crate) fn new(sys: &System<'_>, slice: &Slice, keep: Option<&BTreeSet<usize>>) -> Self {
        let nodes = sys.kinds.len();
        let mut rows: Vec<Row> = Vec::new();
        let mut ranges = Vec::with_capacity(nodes);
        for v in 0..nodes {
            let start = rows.len();
            let mut seen = std::collections::BTreeSet::new();
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
                // Two edges with the same ends, class and agent are one transition (the graph
                // has an edge guard → confirm per write); the first one names it.
                if !seen.insert((e.to, class, e.agent)) {
                    continue;
                }
                rows.push(Row {
                    graph_index: e.index,
                    to: e.to,
                    class,
                    agent: e.agent,
                });
            }
            ranges.push((start, rows.len()));
        }
        if let Some(keep) = keep {
            let dropped = interchangeable(sys, slice, &rows, &ranges, keep);
            if dropped.iter().any(|&d| d) {
                let gone = |v: usize| dropped.get(v).copied().unwrap_or(false);
                let mut kept_rows = Vec::with_capacity(rows.len());
                let mut kept_ranges = Vec::with_capacity(nodes);
                for (v, &(lo, hi)) in ranges.iter().enumerate() {
                    let start = kept_rows.len();
                    if !gone(v) {
                        kept_rows.extend(
                            rows.get(lo..hi)
                                .into_iter()
                                .flatten()
                                .filter(|r| !gone(r.to))
                                .cloned(),
                        );
                    }
                    kept_ranges.push((start, kept_rows.len()));
                }
                rows = kept_rows;
                ranges = kept_ranges;
            }
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
        let cone = slice.cone;
        let kept_slots: Vec<bool> = (0..sys.relevant_count)
            .map(|r| slice.view.keeps_slot(r))
            .collect();
        let kept_counts: Vec<bool> = (0..sys.counted_count)
            .map(|c| slice.view.keeps_count(c))
            .collect();
        let taints = can(&|f| f.reads_outside);
        let settable = Settable {
            escapes: cone.escapes && agents_routed.len() > 1,
            taints,
            run_untrusted: cone.untrusted && taints,
            confidential: cone.confidential && can(&|f| f.confidential),
            wrote: cone.writes && can(&|f| f.write),
            candidate: cone.writes
                && can(&|f| f.write && f.undo_tool.is_none() && !f.undo_none && !f.irreversible),
            irreversible: cone.irreversible && can(&|f| f.write && f.irreversible),
            via_model: cone.via_model
                && (0..nodes).any(|v| {
                    sys.kinds.get(v) == Some(&NodeKind::Model)
                        && ranges.get(v).is_some_and(|(lo, hi)| hi > lo)
                }),
            slots: slot_tool
                .iter()
                .zip(kept_slots.iter())
                .map(|(&t, &kept)| kept && runnable.get(t).copied().unwrap_or(false))
                .collect(),
            counts: count_tool
                .iter()
                .zip(kept_counts.iter())
                .map(|(&(t, _), &kept)| kept && runnable.get(t).copied().unwrap_or(false))
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
            agent_bits: bits(agents as u64 + 1),
            choice_bits: bits(
                ranges
                    .iter()
                    .map(|(lo, hi)| (hi - lo) as u64 + 1)
                    .max()
                    .unwrap_or(1),
            ),
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
            kept_slots,
            kept_counts,
        }
    }

    /// The count a counted slot saturates at.
    pub(super) fn cap(&self, slot: usize) -> u64 {
        self.count_tool.get(slot).map_or(0, |c| c.1)
    }
}

/// Per node, whether it is a tool node the slice cannot tell from another one that stays: the
/// same rows in and out (ends, class, agent), and a tool whose run changes the encoded state the
/// same way and whose check reads the same kept bits and counters, neither named by an
/// obligation (`keep`), neither with a bit or counter of its own kept. A path through one runs
/// through the other with the same encoded states and events, so every answer is the same with
/// only the first of each such class (by node index) left in the tables.
fn interchangeable(
    sys: &System<'_>,
    slice: &Slice,
    rows: &[Row],
    ranges: &[(usize, usize)],
    keep: &BTreeSet<usize>,
) -> Vec<bool> {
    let nodes = sys.kinds.len();
    let mut into: Vec<Vec<(usize, u64, Option<usize>)>> = vec![Vec::new(); nodes];
    for (v, &(lo, hi)) in ranges.iter().enumerate() {
        for r in rows.get(lo..hi).into_iter().flatten() {
            if let Some(list) = into.get_mut(r.to) {
                list.push((v, r.class, r.agent));
            }
        }
    }
    let cone = slice.cone;
    let view = &slice.view;
    let slot_of = |name: &str| {
        sys.tool_index(name)
            .map(|i| sys.relevant.get(i).copied().flatten())
    };
    let mut dropped = vec![false; nodes];
    let mut classes: BTreeSet<String> = BTreeSet::new();
    for v in 0..nodes {
        if sys.kinds.get(v) != Some(&NodeKind::Tool) {
            continue;
        }
        let Some(t) = sys.node_tool.get(v).copied().flatten() else {
            continue;
        };
        let Some(f) = sys.catalogue.tools.get(t) else {
            continue;
        };
        let own_slot = sys.relevant.get(t).copied().flatten();
        let own_count = sys.counted.get(t).copied().flatten();
        if keep.contains(&t)
            || own_slot.is_some_and(|r| view.keeps_slot(r))
            || own_count.is_some_and(|c| view.keeps_count(c))
        {
            continue;
        }
        // What the check reads: a kept bit, a tool outside the catalogue (never ran), or
        // nothing (a forgotten bit).
        let reads = |names: &[String]| {
            let mut out: Vec<String> = names
                .iter()
                .filter_map(|a| match slot_of(a) {
                    None => Some("missing".to_string()),
                    Some(Some(r)) if view.keeps_slot(r) => Some(r.to_string()),
                    Some(_) => None,
                })
                .collect();
            out.sort();
            out.dedup();
            out
        };
        let mut ins = into.get(v).cloned().unwrap_or_default();
        ins.sort();
        let mut outs: Vec<(usize, u64, Option<usize>)> = ranges
            .get(v)
            .and_then(|&(lo, hi)| rows.get(lo..hi))
            .into_iter()
            .flatten()
            .map(|r| (r.to, r.class, r.agent))
            .collect();
        outs.sort();
        let candidate = f.write && f.undo_tool.is_none() && !f.undo_none && !f.irreversible;
        let key = format!(
            "{ins:?}|{outs:?}|{}{}{}{}{}{}{}|{:?}|{:?}",
            u8::from(f.write),
            u8::from(f.write && f.undo_tool.is_some()),
            u8::from(f.reads_outside),
            u8::from(cone.confidential && f.confidential),
            u8::from(cone.writes && candidate),
            u8::from(cone.irreversible && f.write && f.irreversible),
            u8::from(f.not_after_untrusted),
            reads(&f.after),
            reads(&f.not_after),
        );
        if !classes.insert(key)
            && let Some(d) = dropped.get_mut(v)
        {
            *d = true;
        }
    }
    dropped
}
