//! The explicit-state engine: a breadth-first search over the transition system's states, so the
//! first witness found for an obligation is a shortest one. Every obligation not reached when the
//! search has seen every state within the bounds is unreachable; when the state budget runs out
//! first, every obligation not reached is undecided.
//!
//! Two things keep the searches small on large catalogues:
//!
//! - **Views.** A search keeps the bits and counters of only the tools its obligations need
//!   ([`View`]); a check that would read a forgotten one lets the call through. The search is
//!   then of a system that can do everything the real one can and more, so what it cannot reach
//!   is unreachable, and a witness it finds is one when it replays through the real check
//!   ([`replay`]). A witness that does not replay names the tool whose check stopped it; the
//!   obligation is searched again with that tool's `after`/`not_after` tools and its counter kept
//!   as well. Each round keeps strictly more, so it ends, at worst with everything kept.
//! - **Views searched together.** Views that keep what different agents' sessions hold are one
//!   search in the view that keeps all of it ([`Owners::bins`]): sessions are emptied when the
//!   agent changes, so its states are about the sum of theirs.
//! - **Dominance on the budget.** Two states that differ only in their turn and step counters
//!   are one state: the one with no more turns and no more steps used can take every route the
//!   other can. The search keeps, per state, the counters that no other reached state beats.

use std::collections::{BTreeMap, HashMap, VecDeque};

use rustc_hash::FxHashMap;
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
    /// Calls counted against a session `at_most`: (counted slot, count) for each slot counted
    /// above zero, in slot order. Only these are copied with the state, however many tools the
    /// catalogue counts.
    counts: Vec<(u32, u8)>,
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

/// An event a transition raises: its rule and subject.
pub type Event<'a> = (&'static str, &'a str);

/// The count of a counted slot in a state's sparse counts.
fn count_of(counts: &[(u32, u8)], slot: usize) -> u8 {
    let slot = slot as u32;
    counts
        .binary_search_by_key(&slot, |&(k, _)| k)
        .ok()
        .and_then(|at| counts.get(at))
        .map_or(0, |&(_, c)| c)
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

/// What a search keeps of the state: the slots of the relevant tools (`after`/`not_after`
/// targets) and the session counters it tracks. Everything else is forgotten.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct View {
    slots: Vec<u64>,
    counted: Vec<bool>,
}

impl View {
    /// Keeps nothing.
    pub(crate) fn none(sys: &System<'_>) -> Self {
        Self {
            slots: vec![0; sys.relevant_count.div_ceil(64)],
            counted: vec![false; sys.counted_count],
        }
    }

    /// Keeps everything: the real system.
    pub(crate) fn all(sys: &System<'_>) -> Self {
        let mut v = Self::none(sys);
        (0..sys.relevant_count).for_each(|i| set_bit(&mut v.slots, i));
        v.counted.iter_mut().for_each(|c| *c = true);
        v
    }

    /// Keeps also what `other` keeps.
    pub(crate) fn join(&mut self, other: &View) {
        for (a, b) in self.slots.iter_mut().zip(other.slots.iter()) {
            *a |= b;
        }
        for (a, b) in self.counted.iter_mut().zip(other.counted.iter()) {
            *a |= b;
        }
    }

    pub(crate) fn keeps_slot(&self, slot: usize) -> bool {
        bit(&self.slots, slot)
    }

    pub(crate) fn keeps_count(&self, slot: usize) -> bool {
        self.counted.get(slot).copied().unwrap_or(false)
    }

    /// Keeps the slot of tool `name`, when it has one; whether that added anything.
    fn keep_tool(&mut self, sys: &System<'_>, name: &str) -> bool {
        match slot_of(sys, name) {
            Some(slot) if !self.keeps_slot(slot) => {
                set_bit(&mut self.slots, slot);
                true
            }
            _ => false,
        }
    }

    /// Keeps what the check of `tool` reads: its `after`/`not_after` tools and its counter.
    /// Whether that added anything.
    fn keep_check_of(&mut self, sys: &System<'_>, tool: usize) -> bool {
        let Some(t) = sys.catalogue.tools.get(tool) else {
            return false;
        };
        let mut added = false;
        for name in t.after.iter().chain(t.not_after.iter()) {
            added |= self.keep_tool(sys, name);
        }
        if let Some(Some(slot)) = sys.counted.get(tool)
            && let Some(c) = self.counted.get_mut(*slot)
            && !*c
        {
            *c = true;
            added = true;
        }
        added
    }

    /// What the event of `o` reads: for QG003, the slots of the tool's `not_after` tools.
    pub(crate) fn for_obligation(sys: &System<'_>, o: &Obligation) -> Self {
        let mut v = Self::none(sys);
        if o.rule == "QG003"
            && let Some(t) = sys
                .tool_index(&o.subject)
                .and_then(|i| sys.catalogue.tools.get(i))
        {
            for name in &t.not_after {
                v.keep_tool(sys, name);
            }
        }
        v
    }
}

impl View {
    /// What the event of `o` reads, and, when its event runs its tool (`o.subject`) through the
    /// check, what that check reads: a witness then passes its own tool's check from the start
    /// rather than only once a replay is refused by it. The events of QG001, QG012 and QG014 run
    /// their tool around the check, which then reads nothing.
    pub(crate) fn for_obligation_with_check(sys: &System<'_>, o: &Obligation) -> Self {
        let mut v = Self::for_obligation(sys, o);
        let runs_checked = matches!(
            o.rule,
            "QG003" | "QG013" | "QG019" | "QG105" | "QG017" | "QG018" | "QG020" | "QG021"
        );
        if runs_checked && let Some(t) = sys.tool_index(&o.subject) {
            v.keep_check_of(sys, t);
        }
        v
    }
}

fn slot_of(sys: &System<'_>, name: &str) -> Option<usize> {
    sys.tool_index(name)
        .and_then(|i| sys.relevant.get(i).copied().flatten())
}

/// Runs the searches and answers every obligation of the system: one search per view, starting
/// from what each obligation's event reads, and again with more kept for every witness that
/// does not replay (module docs).
pub fn solve(sys: &System<'_>) -> BTreeMap<Obligation, Answer> {
    let mut answers: BTreeMap<Obligation, Answer> = BTreeMap::new();
    let mut round: BTreeMap<View, Vec<&Obligation>> = BTreeMap::new();
    for o in &sys.obligations {
        round
            .entry(View::for_obligation(sys, o))
            .or_default()
            .push(o);
    }
    let owners = Owners::of(sys);
    let fanout = Fanout::of(sys);
    while !round.is_empty() {
        let mut next: BTreeMap<View, Vec<&Obligation>> = BTreeMap::new();
        for (view, members) in owners.bins(sys, round) {
            // A witness that does not replay widens its obligation's own view, not the joined
            // one: each round then keeps strictly more for it, and its next view can again be
            // searched beside others.
            let own: BTreeMap<&Obligation, &View> = members
                .iter()
                .flat_map(|(v, wanted)| wanted.iter().map(move |o| (*o, v)))
                .collect();
            let wanted: Vec<&Obligation> = own.keys().copied().collect();
            for (o, answer) in search(sys, &fanout, &view, &wanted) {
                let Answer::Reachable(path) = &answer else {
                    answers.insert(o.clone(), answer);
                    continue;
                };
                let from = own.get(o).copied().unwrap_or(&view);
                match check_witness(sys, from, path, o) {
                    Witness::Replays => {
                        answers.insert(o.clone(), answer);
                    }
                    Witness::Retry(more) => next.entry(more).or_default().push(o),
                    Witness::Undecided => {
                        answers.insert(o.clone(), Answer::Undecided);
                    }
                }
            }
        }
        round = next;
    }
    sys.obligations
        .iter()
        .map(|o| {
            let answer = answers.get(o).cloned().unwrap_or(Answer::Undecided);
            (o.clone(), answer)
        })
        .collect()
}

/// Who can set what a view keeps: for each tool slot and counter, the agents whose sessions
/// hold it. A session is reset when the agent changes, so what one agent's tools set is never
/// beside what another's set in the same state, except through `escaped` (the slots a
/// `not_after` names, which a run carries from one agent's session to the next).
struct Owners {
    slot_agents: Vec<Vec<usize>>,
    count_agents: Vec<Vec<usize>>,
    /// Slots some tool's `not_after` names: the only ones `escaped` keeps.
    carried: Vec<u64>,
}

/// The views one search answers, each with its obligations.
type Members<'o> = Vec<(View, Vec<&'o Obligation>)>;

/// The most carried slots one search keeps for views merged into it: each may double the states
/// of every agent a run reaches after the agent that set it.
const MAX_CARRIED: usize = 2;

impl Owners {
    fn of(sys: &System<'_>) -> Self {
        let mut slot_agents = vec![Vec::new(); sys.relevant_count];
        let mut count_agents = vec![Vec::new(); sys.counted_count];
        for (agent, tools) in sys.agent_tools.iter().enumerate() {
            for &tool in tools {
                if let Some(Some(slot)) = sys.relevant.get(tool)
                    && let Some(owners) = slot_agents.get_mut(*slot)
                {
                    owners.push(agent);
                }
                if let Some(Some(slot)) = sys.counted.get(tool)
                    && let Some(owners) = count_agents.get_mut(*slot)
                {
                    owners.push(agent);
                }
            }
        }
        Self {
            slot_agents,
            count_agents,
            carried: sys.carried.clone(),
        }
    }

    /// The agents whose sessions hold what `view` keeps, and how many carried slots it keeps;
    /// `None` when a kept slot or counter belongs to no agent (it is then searched alone).
    fn of_view(&self, view: &View) -> Option<(Vec<usize>, usize)> {
        let mut agents = Vec::new();
        let mut carried = 0;
        for (slot, owners) in self.slot_agents.iter().enumerate() {
            if view.keeps_slot(slot) {
                if owners.is_empty() {
                    return None;
                }
                agents.extend_from_slice(owners);
                carried += usize::from(bit(&self.carried, slot));
            }
        }
        for (slot, owners) in self.count_agents.iter().enumerate() {
            if view.keeps_count(slot) {
                if owners.is_empty() {
                    return None;
                }
                agents.extend_from_slice(owners);
            }
        }
        agents.sort_unstable();
        agents.dedup();
        Some((agents, carried))
    }

    /// The searches of a round: views whose kept slots and counters belong to different agents
    /// are searched together, in the view that keeps what each keeps. That view is the more
    /// exact one for each obligation, and its states are about the sum of theirs rather than
    /// the product (sessions reset between agents), so a large catalogue's round is a few
    /// searches rather than one per tool's check.
    /// Each search is its joined view with the views it answers and their obligations.
    fn bins<'o>(
        &self,
        sys: &System<'_>,
        round: BTreeMap<View, Vec<&'o Obligation>>,
    ) -> Vec<(View, Members<'o>)> {
        // (joined view, agents of the bin, carried slots kept, views and obligations)
        let mut bins: Vec<(View, Vec<bool>, usize, Members<'o>)> = Vec::new();
        let mut alone = Vec::new();
        for (view, wanted) in round {
            let Some((agents, carried)) = self.of_view(&view) else {
                alone.push((view.clone(), vec![(view, wanted)]));
                continue;
            };
            let fits = bins.iter().position(|(_, taken, kept, _)| {
                kept + carried <= MAX_CARRIED
                    && agents
                        .iter()
                        .all(|&a| !taken.get(a).copied().unwrap_or(false))
            });
            let at = match fits {
                Some(at) => at,
                None => {
                    bins.push((
                        View::none(sys),
                        vec![false; sys.agent_tools.len()],
                        0,
                        Vec::new(),
                    ));
                    bins.len() - 1
                }
            };
            if let Some((joined, taken, kept, all)) = bins.get_mut(at) {
                joined.join(&view);
                for a in agents {
                    if let Some(t) = taken.get_mut(a) {
                        *t = true;
                    }
                }
                *kept += carried;
                all.push((view, wanted));
            }
        }
        bins.into_iter()
            .map(|(view, _, _, wanted)| (view, wanted))
            .chain(alone)
            .collect()
    }
}

/// What a witness found in a view comes to in the real system.
pub(crate) enum Witness {
    /// It replays through the real check and raises the obligation's event.
    Replays,
    /// It does not replay: search again in this view, which keeps more.
    Retry(View),
    /// It does not replay and the real system was searched: the obligation is undecided.
    Undecided,
}

/// Replays a witness found in `view` through the real check; when the check of a tool stopped
/// it, the view that also keeps what that check reads (module docs).
pub(crate) fn check_witness(
    sys: &System<'_>,
    view: &View,
    path: &[usize],
    o: &Obligation,
) -> Witness {
    let all = View::all(sys);
    let refined = match replay_in(sys, &all, path, o) {
        Replay::Raised => return Witness::Replays,
        Replay::Refused(tool) => {
            let mut more = view.clone();
            more.keep_check_of(sys, tool).then_some(more)
        }
        Replay::Other => None,
    };
    // A witness that does not replay and names nothing more to keep: the real system decides,
    // and a witness of the real system that does not replay through it (which its own search
    // cannot give) is undecided, never a loop.
    match refined {
        Some(more) => Witness::Retry(more),
        None if *view != all => Witness::Retry(all),
        None => Witness::Undecided,
    }
}

/// One breadth-first search in a view, answering `wanted`.
fn search<'o>(
    sys: &System<'_>,
    fanout: &Fanout,
    view: &View,
    wanted: &[&'o Obligation],
) -> Vec<(&'o Obligation, Answer)> {
    // Per state without its counters: the (turn, steps) pairs reached that no other beats.
    let mut seen: FxHashMap<State, Vec<(u16, u16)>> = FxHashMap::default();
    // Per state reached: (parent index, edge taken). The states themselves are in the queue
    // until taken from it; a witness needs only the edges.
    let mut arena: Vec<(usize, usize)> = Vec::new();
    let mut queue: VecDeque<(State, usize)> = VecDeque::new();
    let index: HashMap<(&str, &str), usize> = wanted
        .iter()
        .enumerate()
        .map(|(i, o)| ((o.rule, o.subject.as_str()), i))
        .collect();
    let mut found: Vec<Option<Vec<usize>>> = vec![None; wanted.len()];
    let mut left = wanted.len();
    for &start in &sys.start_nodes {
        let s = initial(sys, start);
        if admit(&mut seen, &s) {
            arena.push((usize::MAX, usize::MAX));
            queue.push_back((s, arena.len() - 1));
        }
    }
    let mut exhausted = false;
    while let Some((state, at)) = queue.pop_front() {
        if left == 0 {
            break;
        }
        let Some(edges) = sys.out.get(state.node as usize) else {
            continue;
        };
        let chosen = fanout.takeable(state.node as usize, state.agent);
        let count = chosen.as_ref().map_or(edges.len(), Vec::len);
        for k in 0..count {
            let at_edge = chosen
                .as_ref()
                .map_or(Some(k), |c| c.get(k).map(|&p| p as usize));
            let Some(edge) = at_edge.and_then(|p| edges.get(p)) else {
                continue;
            };
            let Some((next, events)) = take_in(sys, view, &state, edge) else {
                continue;
            };
            for (rule, subject) in events {
                if let Some(&i) = index.get(&(rule, subject))
                    && let Some(slot) = found.get_mut(i)
                    && slot.is_none()
                {
                    let mut path = witness(&arena, at);
                    path.push(edge.index);
                    *slot = Some(path);
                    left -= 1;
                }
            }
            if admit(&mut seen, &next) {
                if arena.len() >= sys.bounds.max_states {
                    exhausted = true;
                    break;
                }
                arena.push((at, edge.index));
                queue.push_back((next, arena.len() - 1));
            }
        }
        if exhausted {
            break;
        }
    }
    wanted
        .iter()
        .zip(found)
        .map(|(o, path)| {
            let answer = match path {
                Some(path) => Answer::Reachable(path),
                None if exhausted => Answer::Undecided,
                None => Answer::Unreachable,
            };
            (*o, answer)
        })
        .collect()
}

/// The edges out of a node with many, by the agent they run as: a catalogue's every tool is
/// called from one node (`confirm`, `guard`), and a state there can take only the edges of its
/// own agent and those any agent takes (`take_in`), so a search tries those only.
struct Fanout {
    /// Per node with more than [`FANOUT`] edges out: the positions in `sys.out` of the edges any
    /// agent can take, and per agent those only it can.
    nodes: Vec<Option<Takeable>>,
}

/// Positions of the edges any agent takes, and per agent of those only it takes.
type Takeable = (Vec<u32>, HashMap<u32, Vec<u32>>);

/// Below this many edges out, a search tries each.
const FANOUT: usize = 32;

impl Fanout {
    fn of(sys: &System<'_>) -> Self {
        let nodes = sys
            .out
            .iter()
            .map(|edges| {
                if edges.len() <= FANOUT {
                    return None;
                }
                let mut open = Vec::new();
                let mut own: HashMap<u32, Vec<u32>> = HashMap::new();
                for (at, e) in edges.iter().enumerate() {
                    let at = u32::try_from(at).ok()?;
                    let to_step = sys.kinds.get(e.to).copied() == Some(NodeKind::Step);
                    match e.agent {
                        Some(agent)
                            if !to_step
                                && !matches!(e.kind, EdgeKind::HandsOff | EdgeKind::Channel) =>
                        {
                            own.entry(u32::try_from(agent).ok()?).or_default().push(at);
                        }
                        _ => open.push(at),
                    }
                }
                Some((open, own))
            })
            .collect();
        Self { nodes }
    }

    /// The positions of the edges out of `node` a state of `agent` may take, in order; `None`
    /// for every edge.
    fn takeable(&self, node: usize, agent: u32) -> Option<Vec<u32>> {
        if agent == NONE {
            return None;
        }
        let (open, own) = self.nodes.get(node)?.as_ref()?;
        let mine = own.get(&agent).map_or(&[][..], Vec::as_slice);
        let mut out = Vec::with_capacity(open.len() + mine.len());
        let (mut i, mut j) = (0, 0);
        while let (Some(&a), Some(&b)) = (open.get(i), mine.get(j)) {
            if a < b {
                out.push(a);
                i += 1;
            } else {
                out.push(b);
                j += 1;
            }
        }
        out.extend(open.get(i..).unwrap_or_default());
        out.extend(mine.get(j..).unwrap_or_default());
        Some(out)
    }
}

/// Records a reached state unless one with no more turns and no more steps used, and otherwise
/// equal, was reached already; whether it is new.
fn admit(seen: &mut FxHashMap<State, Vec<(u16, u16)>>, s: &State) -> bool {
    let budget = (s.turn, s.steps);
    let key = State {
        turn: 0,
        steps: 0,
        ..s.clone()
    };
    // Most states taken are reached already: look before copying the key again.
    if let Some(front) = seen.get_mut(&key) {
        if front.iter().any(|&(t, k)| t <= budget.0 && k <= budget.1) {
            return false;
        }
        front.retain(|&(t, k)| !(budget.0 <= t && budget.1 <= k));
        front.push(budget);
        return true;
    }
    seen.insert(key, vec![budget]);
    true
}

/// The state a conversation starts in at a start node: no agent yet, nothing run.
fn initial(sys: &System<'_>, start: usize) -> State {
    let words = sys.relevant_count.div_ceil(64);
    State {
        node: start as u32,
        agent: NONE,
        session: vec![0; words],
        counts: Vec::new(),
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
    replay_in(sys, &View::all(sys), edges, o) == Replay::Raised
}

/// How a replay ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Replay {
    /// Every edge was taken and the last raised the obligation's event.
    Raised,
    /// The check of this tool stopped a call on the way.
    Refused(usize),
    /// Anything else: an edge that is not there, the bounds, no event at the end.
    Other,
}

fn replay_in(sys: &System<'_>, view: &View, edges: &[usize], o: &Obligation) -> Replay {
    let Some(&first) = edges.first() else {
        return Replay::Other;
    };
    let Some(start) = sys.start_nodes.iter().copied().find(|&v| {
        sys.out
            .get(v)
            .is_some_and(|out| out.iter().any(|e| e.index == first))
    }) else {
        return Replay::Other;
    };
    let mut state = initial(sys, start);
    for (k, &index) in edges.iter().enumerate() {
        let Some(edge) = sys
            .out
            .get(state.node as usize)
            .and_then(|out| out.iter().find(|e| e.index == index))
        else {
            return Replay::Other;
        };
        let Some((next, events)) = take_in(sys, view, &state, edge) else {
            return match refused_by(sys, view, &state, edge) {
                Some(tool) => Replay::Refused(tool),
                None => Replay::Other,
            };
        };
        if k + 1 == edges.len() {
            let raised = events
                .iter()
                .any(|(rule, subject)| *rule == o.rule && *subject == o.subject);
            return if raised {
                Replay::Raised
            } else {
                Replay::Other
            };
        }
        state = next;
    }
    Replay::Other
}

/// The tool whose check stops taking `e` from `s`, when that is why it cannot be taken.
fn refused_by(sys: &System<'_>, view: &View, s: &State, e: &SysEdge) -> Option<usize> {
    if sys.kinds.get(e.to).copied() != Some(NodeKind::Tool) || e.kind != EdgeKind::Call {
        return None;
    }
    let tool = sys.node_tool.get(e.to).copied().flatten()?;
    (!check_allows(sys, view, s, tool)).then_some(tool)
}

fn witness(arena: &[(usize, usize)], mut at: usize) -> Vec<usize> {
    let mut edges = Vec::new();
    while let Some((parent, edge)) = arena.get(at) {
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
pub fn take<'a>(sys: &System<'a>, s: &State, e: &SysEdge) -> Option<(State, Vec<Event<'a>>)> {
    take_in(sys, &View::all(sys), s, e)
}

/// Takes one edge from a state in a view: the next state and the events that happen, or `None`
/// when the edge cannot be taken (the check refuses, the bounds are reached).
fn take_in<'a>(
    sys: &System<'a>,
    view: &View,
    s: &State,
    e: &SysEdge,
) -> Option<(State, Vec<Event<'a>>)> {
    // The conversation's agent changes only by a hand-off, a channel, or a custom step that acts
    // as another agent; every other route runs as the agent the state already has. (Asked
    // first: a node a catalogue's every tool is routed from has an edge per tool, and most are
    // another agent's.)
    let to_step = sys.kinds.get(e.to).copied() == Some(NodeKind::Step);
    if let Some(agent) = e.agent
        && s.agent != NONE
        && agent as u32 != s.agent
        && !matches!(e.kind, EdgeKind::HandsOff | EdgeKind::Channel)
        && !to_step
    {
        return None;
    }
    let next_turn = e.kind == EdgeKind::NextTurn;
    if next_turn && u32::from(s.turn) + 1 >= sys.bounds.turns
        || !next_turn && u32::from(s.steps) >= sys.bounds.depth
    {
        return None;
    }
    let mut n = s.clone();
    let mut events: Vec<Event<'a>> = Vec::new();
    if next_turn {
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
        n.steps += 1;
    }
    n.node = e.to as u32;
    // The agent the route runs as: a hand-off or another agent's route starts its session.
    if let Some(agent) = e.agent
        && agent as u32 != s.agent
    {
        if s.agent != NONE {
            // Only what a `not_after` names is read of them (QG003).
            for ((w, x), c) in n
                .escaped
                .iter_mut()
                .zip(s.session.iter())
                .zip(sys.carried.iter())
            {
                *w |= x & c;
            }
            n.escaped_taint |= s.tainted;
        }
        n.agent = agent as u32;
        n.session.iter_mut().for_each(|w| *w = 0);
        n.counts.clear();
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
        events.push(("reach_model", sys.agent_name(agent)));
    }
    if to_kind == Some(NodeKind::Step) {
        let name = sys.node_id(e.to);
        if sys.steps_after_guard.get(e.to).copied().unwrap_or(false) {
            events.push(("QG002", name));
        }
        if sys.steps_route_tool.get(e.to).copied().unwrap_or(false) {
            events.push(("QG016", name));
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
        if guarded && !check_allows(sys, view, s, tool) {
            return None;
        }
        run_tool(sys, view, s, &mut n, tool, guarded, &mut events);
    }
    Some((n, events))
}

/// Whether the tool check lets a call of `tool` through in state `s` (order rules and session
/// limits; everything else the check decides holds a call for a person, never stops it for good).
/// What the view forgets does not stop a call.
fn check_allows(sys: &System<'_>, view: &View, s: &State, tool: usize) -> bool {
    let Some(t) = sys.catalogue.tools.get(tool) else {
        return false;
    };
    // Whether `name` ran in the session: `None` when the view forgets it. A tool with no slot
    // is not in the catalogue and never ran.
    let ran = |name: &str| match slot_of(sys, name) {
        None => Some(false),
        Some(slot) if view.keeps_slot(slot) => Some(bit(&s.session, slot)),
        Some(_) => None,
    };
    if !t.after.iter().all(|a| ran(a).unwrap_or(true)) {
        return false;
    }
    if t.not_after.iter().any(|a| ran(a).unwrap_or(false)) || (t.not_after_untrusted && s.tainted) {
        return false;
    }
    if let (Some(limit), Some(Some(slot))) = (t.at_most_session, sys.counted.get(tool))
        && view.keeps_count(*slot)
        && u32::from(count_of(&s.counts, *slot)) >= limit
    {
        return false;
    }
    true
}

fn run_tool<'a>(
    sys: &System<'a>,
    view: &View,
    s: &State,
    n: &mut State,
    tool: usize,
    guarded: bool,
    events: &mut Vec<Event<'a>>,
) {
    let Some(t) = sys.catalogue.tools.get(tool) else {
        return;
    };
    let name = sys.tool_name(tool);
    let untrusted = s.tainted || s.run_untrusted;
    if !guarded {
        events.push(("QG001", name));
        if t.has_order_rule() {
            events.push(("QG014", name));
        }
        if t.write && untrusted {
            events.push(("QG012", name));
        }
    } else {
        let escaped = |other: &str| {
            sys.tool_index(other)
                .and_then(|i| sys.relevant.get(i).copied().flatten())
                .is_some_and(|slot| bit(&s.escaped, slot) && !bit(&s.session, slot))
        };
        if t.not_after.iter().any(|a| escaped(a))
            || (t.not_after_untrusted && s.escaped_taint && !s.tainted)
        {
            events.push(("QG003", name));
        }
    }
    if t.write {
        if s.run_wrote {
            events.push(("QG105", name));
        }
        if s.pending_candidate != NONE && s.pending_candidate as usize != tool {
            events.push(("QG105", sys.tool_name(s.pending_candidate as usize)));
        }
        if t.undo_tool.is_some() && s.last_irreversible != NONE {
            events.push(("QG013", sys.tool_name(s.last_irreversible as usize)));
        }
    }
    if t.sends_out && s.run_confidential {
        events.push(("QG019", name));
    }
    if t.writes_to
        .as_ref()
        .is_some_and(|st| sys.persistent.contains(st))
        && untrusted
    {
        events.push(("QG021", name));
    }
    if s.via_model {
        if t.argument_kinds.iter().any(|(_, k)| is_code(*k)) {
            events.push(("QG017", name));
        }
        if t.argument_kinds.iter().any(|(_, k)| !is_code(*k)) {
            events.push(("QG018", name));
        }
    }
    if t.retrieves_from
        .as_ref()
        .is_some_and(|st| sys.unbound.contains(st))
    {
        events.push(("QG020", name));
    }
    if let Some(Some(slot)) = sys.relevant.get(tool)
        && view.keeps_slot(*slot)
    {
        set_bit(&mut n.session, *slot);
    }
    if let Some(Some(slot)) = sys.counted.get(tool)
        && view.keeps_count(*slot)
    {
        let cap = t.at_most_session.unwrap_or(0).min(254) as u8 + 1;
        let slot = *slot as u32;
        match n.counts.binary_search_by_key(&slot, |&(k, _)| k) {
            Ok(at) => {
                if let Some((_, c)) = n.counts.get_mut(at) {
                    *c = (*c + 1).min(cap);
                }
            }
            Err(at) => n.counts.insert(at, (slot, 1.min(cap))),
        }
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
