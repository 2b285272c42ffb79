//! The explicit-state engine: a breadth-first search over the transition system's states, so the
//! first witness found for an obligation is a shortest one. Every obligation not reached when the
//! search has seen every state within the bounds is unreachable; when the state budget runs out
//! first, every obligation not reached is undecided.

use std::collections::{BTreeMap, HashMap, VecDeque};

use stalwart_graph::{EdgeKind, NodeKind};

use crate::system::{Answer, Obligation, SysEdge, System, is_code};

const NONE: u32 = u32::MAX;

/// One state of the system.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct State {
    node: u32,
    agent: u32,
    /// Tools (relevant slots) that ran in the current agent's session.
    session: Vec<u64>,
    /// Calls counted against a session `at_most`, per counted slot.
    counts: Vec<u8>,
    /// A `reads_outside` call ran in the session (every model value is marked untrusted).
    tainted: bool,
    /// Relevant tools that ran earlier in the run, in another agent's session.
    escaped: Vec<u64>,
    escaped_taint: bool,
    run_wrote: bool,
    run_untrusted: bool,
    run_confidential: bool,
    last_irreversible: u32,
    /// The last write without an undo that ran in the run (for QG105).
    pending_candidate: u32,
    via_model: bool,
    steps: u16,
    turn: u16,
}

fn bit(bits: &[u64], i: usize) -> bool {
    bits.get(i / 64)
        .is_some_and(|w| w & (1u64 << (i % 64)) != 0)
}

fn set_bit(bits: &mut [u64], i: usize) {
    if let Some(w) = bits.get_mut(i / 64) {
        *w |= 1u64 << (i % 64);
    }
}

/// Runs the search and answers every obligation of the system.
pub fn solve(sys: &System<'_>) -> BTreeMap<Obligation, Answer> {
    let mut seen: HashMap<State, ()> = HashMap::new();
    // (state, parent index, edge taken)
    let mut arena: Vec<(State, usize, usize)> = Vec::new();
    let mut queue = VecDeque::new();
    let wanted: BTreeMap<(&str, &str), &Obligation> = sys
        .obligations
        .iter()
        .map(|o| ((o.rule, o.subject.as_str()), o))
        .collect();
    let mut found: BTreeMap<Obligation, Vec<usize>> = BTreeMap::new();
    for &start in &sys.start_nodes {
        let s = initial(sys, start);
        if seen.insert(s.clone(), ()).is_none() {
            arena.push((s, usize::MAX, usize::MAX));
            queue.push_back(arena.len() - 1);
        }
    }
    let mut exhausted = false;
    while let Some(at) = queue.pop_front() {
        if found.len() == wanted.len() {
            break;
        }
        let Some((state, ..)) = arena.get(at).cloned() else {
            continue;
        };
        let Some(edges) = sys.out.get(state.node as usize) else {
            continue;
        };
        for edge in edges {
            let Some((next, events)) = take(sys, &state, edge) else {
                continue;
            };
            let mut fresh = Vec::new();
            for (rule, subject) in events {
                if let Some(o) = wanted.get(&(rule, subject.as_str()))
                    && !found.contains_key(*o)
                {
                    fresh.push((*o).clone());
                }
            }
            let known = seen.contains_key(&next);
            if !fresh.is_empty() {
                let mut path = witness(&arena, at);
                path.push(edge.index);
                for o in fresh {
                    found.insert(o, path.clone());
                }
            }
            if known {
                continue;
            }
            if seen.len() >= sys.bounds.max_states {
                exhausted = true;
                break;
            }
            seen.insert(next.clone(), ());
            arena.push((next, at, edge.index));
            queue.push_back(arena.len() - 1);
        }
        if exhausted {
            break;
        }
    }
    sys.obligations
        .iter()
        .map(|o| {
            let answer = match found.get(o) {
                Some(path) => Answer::Reachable(path.clone()),
                None if exhausted => Answer::Undecided,
                None => Answer::Unreachable,
            };
            (o.clone(), answer)
        })
        .collect()
}

/// The state a conversation starts in at a start node: no agent yet, nothing run.
fn initial(sys: &System<'_>, start: usize) -> State {
    let words = sys.relevant_count.div_ceil(64);
    State {
        node: start as u32,
        agent: NONE,
        session: vec![0; words],
        counts: vec![0; sys.counted_count],
        tainted: false,
        escaped: vec![0; words],
        escaped_taint: false,
        run_wrote: false,
        run_untrusted: false,
        run_confidential: false,
        last_irreversible: NONE,
        pending_candidate: NONE,
        via_model: false,
        steps: 0,
        turn: 0,
    }
}

/// Replays a witness (graph edge indices) from the initial state at its first edge's start
/// node: whether every edge can be taken in turn and the last one raises the obligation's event.
pub fn replay(sys: &System<'_>, edges: &[usize], o: &Obligation) -> bool {
    let Some(&first) = edges.first() else {
        return false;
    };
    let Some(start) = sys.start_nodes.iter().copied().find(|&v| {
        sys.out
            .get(v)
            .is_some_and(|out| out.iter().any(|e| e.index == first))
    }) else {
        return false;
    };
    let mut state = initial(sys, start);
    for (k, &index) in edges.iter().enumerate() {
        let Some(edge) = sys
            .out
            .get(state.node as usize)
            .and_then(|out| out.iter().find(|e| e.index == index))
        else {
            return false;
        };
        let Some((next, events)) = take(sys, &state, edge) else {
            return false;
        };
        if k + 1 == edges.len() {
            return events
                .iter()
                .any(|(rule, subject)| *rule == o.rule && *subject == o.subject);
        }
        state = next;
    }
    false
}

fn witness(arena: &[(State, usize, usize)], mut at: usize) -> Vec<usize> {
    let mut edges = Vec::new();
    while let Some((_, parent, edge)) = arena.get(at) {
        if *parent == usize::MAX {
            break;
        }
        edges.push(*edge);
        at = *parent;
    }
    edges.reverse();
    edges
}

/// Takes one edge from a state: the next state and the events that happen, or `None` when the
/// edge cannot be taken (the check refuses, the bounds are reached).
pub fn take(
    sys: &System<'_>,
    s: &State,
    e: &SysEdge,
) -> Option<(State, Vec<(&'static str, String)>)> {
    let mut n = s.clone();
    let mut events: Vec<(&'static str, String)> = Vec::new();
    if e.kind == EdgeKind::NextTurn {
        if u32::from(s.turn) + 1 >= sys.bounds.turns {
            return None;
        }
        n.turn += 1;
        n.steps = 0;
        n.escaped.iter_mut().for_each(|w| *w = 0);
        n.escaped_taint = false;
        n.run_wrote = false;
        n.run_untrusted = false;
        n.run_confidential = false;
        n.last_irreversible = NONE;
        n.pending_candidate = NONE;
        n.via_model = false;
    } else {
        if u32::from(s.steps) >= sys.bounds.depth {
            return None;
        }
        n.steps += 1;
    }
    n.node = e.to as u32;
    // The conversation's agent changes only by a hand-off, a channel, or a custom step that acts
    // as another agent; every other route runs as the agent the state already has.
    let to_step = sys.kinds.get(e.to).copied() == Some(NodeKind::Step);
    if let Some(agent) = e.agent
        && s.agent != NONE
        && agent as u32 != s.agent
        && !matches!(e.kind, EdgeKind::HandsOff | EdgeKind::Channel)
        && !to_step
    {
        return None;
    }
    // The agent the route runs as: a hand-off or another agent's route starts its session.
    if let Some(agent) = e.agent
        && agent as u32 != s.agent
    {
        if s.agent != NONE {
            for (w, x) in n.escaped.iter_mut().zip(s.session.iter()) {
                *w |= x;
            }
            n.escaped_taint |= s.tainted;
        }
        n.agent = agent as u32;
        n.session.iter_mut().for_each(|w| *w = 0);
        n.counts.iter_mut().for_each(|c| *c = 0);
        n.tainted = false;
    }
    let from_kind = sys.kinds.get(e.from).copied();
    let to_kind = sys.kinds.get(e.to).copied();
    if from_kind == Some(NodeKind::Model) {
        n.via_model = true;
    }
    if from_kind == Some(NodeKind::Turn) {
        n.via_model = false;
    }
    if to_kind == Some(NodeKind::Model)
        && let Some(agent) = sys.node_agent.get(e.to).copied().flatten()
    {
        events.push(("reach_model", sys.agent_name(agent).to_string()));
    }
    if to_kind == Some(NodeKind::Step) {
        let name = sys.node_id(e.to).to_string();
        if sys.steps_after_guard.get(e.to).copied().unwrap_or(false) {
            events.push(("QG002", name.clone()));
        }
        if sys.steps_route_tool.get(e.to).copied().unwrap_or(false) {
            events.push(("QG016", name.clone()));
        }
        let step_agent = sys.node_agent.get(e.to).copied().flatten();
        if let Some(step_agent) = step_agent
            && s.agent != NONE
            && s.agent as usize != step_agent
            && sys.privilege.get(s.agent as usize) < sys.privilege.get(step_agent)
            && e.kind != EdgeKind::HandsOff
        {
            events.push(("QG011", name));
        }
    }
    // Into a tool: through the guard's decision, or around it.
    if to_kind == Some(NodeKind::Tool) && matches!(e.kind, EdgeKind::Call | EdgeKind::Unguarded) {
        let tool = sys.node_tool.get(e.to).copied().flatten()?;
        let guarded = e.kind == EdgeKind::Call;
        if guarded && !check_allows(sys, s, tool) {
            return None;
        }
        run_tool(sys, s, &mut n, tool, guarded, &mut events);
    }
    Some((n, events))
}

/// Whether the tool check lets a call of `tool` through in state `s` (order rules and session
/// limits; everything else the check decides holds a call for a person, never stops it for good).
fn check_allows(sys: &System<'_>, s: &State, tool: usize) -> bool {
    let Some(t) = sys.catalogue.tools.get(tool) else {
        return false;
    };
    let ran = |name: &str| {
        sys.catalogue
            .index(name)
            .and_then(|i| sys.relevant.get(i).copied().flatten())
            .is_some_and(|slot| bit(&s.session, slot))
    };
    if !t.after.iter().all(|a| ran(a)) {
        return false;
    }
    if t.not_after.iter().any(|a| ran(a)) || (t.not_after_untrusted && s.tainted) {
        return false;
    }
    if let (Some(limit), Some(Some(slot))) = (t.at_most_session, sys.counted.get(tool))
        && u32::from(s.counts.get(*slot).copied().unwrap_or(0)) >= limit
    {
        return false;
    }
    true
}

fn run_tool(
    sys: &System<'_>,
    s: &State,
    n: &mut State,
    tool: usize,
    guarded: bool,
    events: &mut Vec<(&'static str, String)>,
) {
    let Some(t) = sys.catalogue.tools.get(tool) else {
        return;
    };
    let name = t.name.clone();
    let untrusted = s.tainted || s.run_untrusted;
    if !guarded {
        events.push(("QG001", name.clone()));
        if t.has_order_rule() {
            events.push(("QG014", name.clone()));
        }
        if t.write && untrusted {
            events.push(("QG012", name.clone()));
        }
    } else {
        let escaped = |other: &str| {
            sys.catalogue
                .index(other)
                .and_then(|i| sys.relevant.get(i).copied().flatten())
                .is_some_and(|slot| bit(&s.escaped, slot) && !bit(&s.session, slot))
        };
        if t.not_after.iter().any(|a| escaped(a))
            || (t.not_after_untrusted && s.escaped_taint && !s.tainted)
        {
            events.push(("QG003", name.clone()));
        }
    }
    if t.write {
        if s.run_wrote {
            events.push(("QG105", name.clone()));
        }
        if s.pending_candidate != NONE && s.pending_candidate as usize != tool {
            events.push((
                "QG105",
                sys.tool_name(s.pending_candidate as usize).to_string(),
            ));
        }
        if t.undo_tool.is_some() && s.last_irreversible != NONE {
            events.push((
                "QG013",
                sys.tool_name(s.last_irreversible as usize).to_string(),
            ));
        }
    }
    if t.sends_out && s.run_confidential {
        events.push(("QG019", name.clone()));
    }
    if t.writes_to
        .as_ref()
        .is_some_and(|st| sys.persistent.contains(st))
        && untrusted
    {
        events.push(("QG021", name.clone()));
    }
    if s.via_model {
        if t.argument_kinds.iter().any(|(_, k)| is_code(*k)) {
            events.push(("QG017", name.clone()));
        }
        if t.argument_kinds.iter().any(|(_, k)| !is_code(*k)) {
            events.push(("QG018", name.clone()));
        }
    }
    if t.retrieves_from
        .as_ref()
        .is_some_and(|st| sys.unbound.contains(st))
    {
        events.push(("QG020", name.clone()));
    }
    if let Some(Some(slot)) = sys.relevant.get(tool) {
        set_bit(&mut n.session, *slot);
    }
    if let Some(Some(slot)) = sys.counted.get(tool)
        && let Some(c) = n.counts.get_mut(*slot)
    {
        let cap = t.at_most_session.unwrap_or(0).min(254) as u8 + 1;
        *c = (*c + 1).min(cap);
    }
    if t.reads_outside {
        n.tainted = true;
        n.run_untrusted = true;
    }
    if t.confidential {
        n.run_confidential = true;
    }
    if t.write {
        n.run_wrote = true;
        if t.undo_tool.is_none() && !t.undo_none && !t.irreversible {
            n.pending_candidate = tool as u32;
        }
        if t.irreversible {
            n.last_irreversible = tool as u32;
        }
    }
}
