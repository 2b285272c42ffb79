//! The transition system both engines search: the graph's routes plus the tool check's state (the
//! tools that ran in the session, counts against `at_most`, marks from reading outside, what ran
//! in the run), and the path obligations asked of it.
//!
//! A state moves along one edge at a time. A call through the guard happens only when the check
//! would let it through (its `after`, `not_after` and session `at_most` rules hold); a custom
//! step's unguarded call runs whatever the state. A hand-off, or the router choosing another
//! agent, starts that agent's session (the runtime keeps one session per agent), so the calls of
//! the run so far are no longer in its history. Sessions are not resumed: handing back starts
//! afresh, an over-approximation that can only add behaviours.

use std::collections::{BTreeMap, HashMap, HashSet};

use stalwart_graph::{AgentGraph, EdgeKind, NodeKind};

use crate::catalogue::Catalogue;

/// One question asked of the system: can a state be reached where `rule`'s event happens for
/// `subject`?
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Obligation {
    pub rule: &'static str,
    pub subject: String,
}

/// An engine's answer to one obligation.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Answer {
    /// Reachable, with the witness: the edges taken, by index into the graph's edges.
    Reachable(Vec<usize>),
    /// Unreachable within `depth` steps a run and `turns` turns.
    Unreachable,
    /// The search ran out of its budget before deciding.
    Undecided,
}

impl Answer {
    pub fn verdict(&self) -> &'static str {
        match self {
            Answer::Reachable(_) => "reachable",
            Answer::Unreachable => "unreachable",
            Answer::Undecided => "undecided",
        }
    }
}

/// The bounds of a search.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Bounds {
    /// Steps of one run (edges taken between two turns).
    pub depth: u32,
    /// Turns of the conversation.
    pub turns: u32,
    /// The most states a search may visit before it answers undecided.
    pub max_states: usize,
    /// The most milliseconds the SMT engine may spend on one system; what it has not decided by
    /// then is undecided by it. The engines run side by side, so this is also the longest a
    /// proof waits for z3 once the explicit search is done.
    pub solver_ms: u32,
}

impl Default for Bounds {
    fn default() -> Self {
        Self {
            depth: 12,
            turns: 2,
            max_states: 2_000_000,
            solver_ms: 30_000,
        }
    }
}

/// An edge with its ends and names resolved to indices.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SysEdge {
    pub index: usize,
    pub from: usize,
    pub to: usize,
    pub kind: EdgeKind,
    pub agent: Option<usize>,
    pub tool: Option<usize>,
}

/// The transition system: the graph indexed for search, the catalogue, and the obligations.
#[derive(Debug, Clone)]
pub struct System<'a> {
    pub graph: &'a AgentGraph,
    pub catalogue: &'a Catalogue,
    pub kinds: Vec<NodeKind>,
    /// For each node, the agent it belongs to (models and steps).
    pub node_agent: Vec<Option<usize>>,
    /// For each node, the tool it runs (tool nodes).
    pub node_tool: Vec<Option<usize>>,
    pub out: Vec<Vec<SysEdge>>,
    /// Trust of each agent's privilege (0 low … 2 high).
    pub privilege: Vec<u8>,
    /// Tools each agent lists.
    pub agent_tools: Vec<Vec<usize>>,
    /// Tools whose having run the check reads (`after`/`not_after` targets), bit per tool.
    pub relevant: Vec<Option<usize>>,
    pub relevant_count: usize,
    /// Tools with a session `at_most`: slot per tool.
    pub counted: Vec<Option<usize>>,
    pub counted_count: usize,
    /// Slots some tool's `not_after` names, bit per slot: the only tools that having run in an
    /// earlier session of the run is read for (QG003).
    pub carried: Vec<u64>,
    /// Steps routed from the guard.
    pub steps_after_guard: Vec<bool>,
    /// Steps whose routes name a tool directly.
    pub steps_route_tool: Vec<bool>,
    /// Persistent stores by name.
    pub persistent: Vec<String>,
    /// Multi-tenant stores without a binding.
    pub unbound: Vec<String>,
    pub start_nodes: Vec<usize>,
    pub obligations: Vec<Obligation>,
    pub bounds: Bounds,
    /// Tools by name: the first of each name, as `Catalogue::index` finds it.
    tool_by_name: HashMap<&'a str, usize>,
}

impl<'a> System<'a> {
    pub fn new(graph: &'a AgentGraph, catalogue: &'a Catalogue, bounds: Bounds) -> Self {
        let mut tool_by_name: HashMap<&'a str, usize> = HashMap::new();
        for (i, t) in catalogue.tools.iter().enumerate() {
            tool_by_name.entry(t.name.as_str()).or_insert(i);
        }
        let node_index: BTreeMap<&str, usize> = graph
            .nodes
            .iter()
            .enumerate()
            .map(|(i, n)| (n.id.as_str(), i))
            .collect();
        let agent_index: BTreeMap<&str, usize> = graph
            .agents
            .iter()
            .enumerate()
            .map(|(i, a)| (a.name.as_str(), i))
            .collect();
        let kinds = graph.nodes.iter().map(|n| n.kind).collect();
        let node_agent = graph
            .nodes
            .iter()
            .map(|n| n.agent.as_deref().and_then(|a| agent_index.get(a).copied()))
            .collect();
        let node_tool = graph
            .nodes
            .iter()
            .map(|n| {
                n.id.strip_prefix("tool:")
                    .and_then(|t| tool_by_name.get(t).copied())
            })
            .collect();
        let mut out: Vec<Vec<SysEdge>> = vec![Vec::new(); graph.nodes.len()];
        for (index, e) in graph.edges.iter().enumerate() {
            let (Some(&from), Some(&to)) = (
                node_index.get(e.from.as_str()),
                node_index.get(e.to.as_str()),
            ) else {
                continue;
            };
            if matches!(
                e.kind,
                EdgeKind::Undo | EdgeKind::Retrieves | EdgeKind::Writes
            ) {
                continue;
            }
            let agent = e.agent.as_deref().and_then(|a| agent_index.get(a).copied());
            let tool = e.tool.as_deref().and_then(|t| tool_by_name.get(t).copied());
            if let Some(list) = out.get_mut(from) {
                list.push(SysEdge {
                    index,
                    from,
                    to,
                    kind: e.kind,
                    agent,
                    tool,
                });
            }
        }
        let privilege = graph
            .agents
            .iter()
            .map(|a| match a.privilege.as_str() {
                "high" => 2,
                "medium" => 1,
                _ => 0,
            })
            .collect();
        let agent_tools = graph
            .agents
            .iter()
            .map(|a| {
                a.tools
                    .iter()
                    .filter_map(|t| tool_by_name.get(t.as_str()).copied())
                    .collect()
            })
            .collect();
        let mut relevant = vec![None; catalogue.tools.len()];
        let mut relevant_count: usize = 0;
        let mut counted = vec![None; catalogue.tools.len()];
        let mut counted_count = 0;
        for t in &catalogue.tools {
            for name in t.after.iter().chain(t.not_after.iter()) {
                if let Some(&i) = tool_by_name.get(name.as_str())
                    && let Some(slot) = relevant.get_mut(i)
                    && slot.is_none()
                {
                    *slot = Some(relevant_count);
                    relevant_count += 1;
                }
            }
        }
        let mut carried = vec![0u64; relevant_count.div_ceil(64)];
        for t in &catalogue.tools {
            for name in &t.not_after {
                if let Some(slot) = tool_by_name
                    .get(name.as_str())
                    .and_then(|&i| relevant.get(i).copied().flatten())
                    && let Some(w) = carried.get_mut(slot / 64)
                {
                    *w |= 1u64 << (slot % 64);
                }
            }
        }
        for (i, t) in catalogue.tools.iter().enumerate() {
            if t.at_most_session.is_some()
                && let Some(slot) = counted.get_mut(i)
            {
                *slot = Some(counted_count);
                counted_count += 1;
            }
        }
        let steps_after_guard = graph
            .nodes
            .iter()
            .map(|n| {
                n.kind == NodeKind::Step
                    && graph
                        .steps
                        .iter()
                        .any(|s| s.name == n.id && s.from.iter().any(|f| f == "guard"))
            })
            .collect();
        let steps_route_tool = graph
            .nodes
            .iter()
            .map(|n| {
                n.kind == NodeKind::Step
                    && graph
                        .steps
                        .iter()
                        .any(|s| s.name == n.id && s.routes.iter().any(|r| r.starts_with("tool:")))
            })
            .collect();
        let persistent = graph
            .stores
            .iter()
            .filter(|s| s.persistent)
            .map(|s| s.name.clone())
            .collect();
        let unbound = graph
            .stores
            .iter()
            .filter(|s| s.multi_tenant && s.bind.is_none())
            .map(|s| s.name.clone())
            .collect();
        let start_nodes = graph
            .nodes
            .iter()
            .enumerate()
            .filter(|(_, n)| matches!(n.kind, NodeKind::Turn | NodeKind::Channel))
            .map(|(i, _)| i)
            .collect();
        let mut sys = Self {
            graph,
            catalogue,
            kinds,
            node_agent,
            node_tool,
            out,
            privilege,
            agent_tools,
            relevant,
            relevant_count,
            counted,
            counted_count,
            carried,
            steps_after_guard,
            steps_route_tool,
            persistent,
            unbound,
            start_nodes,
            obligations: Vec::new(),
            bounds,
            tool_by_name,
        };
        sys.obligations = sys.enumerate_obligations();
        sys
    }

    /// The index of the tool named `name` (`Catalogue::index`, without walking the catalogue).
    pub fn tool_index(&self, name: &str) -> Option<usize> {
        self.tool_by_name.get(name).copied()
    }

    /// Every obligation whose subject the catalogue and graph have, in a stable order.
    fn enumerate_obligations(&self) -> Vec<Obligation> {
        let mut out = Vec::new();
        let mut push = |rule: &'static str, subject: &str| {
            out.push(Obligation {
                rule,
                subject: subject.to_string(),
            })
        };
        let on_edges: HashSet<&str> = self
            .graph
            .edges
            .iter()
            .filter_map(|e| e.tool.as_deref())
            .collect();
        let reached = |tool: &str| on_edges.contains(tool);
        for t in &self.catalogue.tools {
            if !reached(&t.name) {
                continue;
            }
            push("QG001", &t.name);
            if t.has_order_rule() {
                push("QG014", &t.name);
            }
            if t.write {
                push("QG012", &t.name);
            }
            if !t.not_after.is_empty() || t.not_after_untrusted {
                push("QG003", &t.name);
            }
            if t.write && t.undo_tool.is_none() && !t.undo_none && !t.irreversible {
                push("QG105", &t.name);
            }
            if t.irreversible && t.write {
                push("QG013", &t.name);
            }
            if t.sends_out {
                push("QG019", &t.name);
            }
            if t.writes_to
                .as_ref()
                .is_some_and(|s| self.persistent.contains(s))
            {
                push("QG021", &t.name);
            }
            if t.argument_kinds.iter().any(|(_, k)| is_code(*k)) {
                push("QG017", &t.name);
            }
            if t.argument_kinds.iter().any(|(_, k)| !is_code(*k)) {
                push("QG018", &t.name);
            }
            if t.retrieves_from
                .as_ref()
                .is_some_and(|s| self.unbound.contains(s))
            {
                push("QG020", &t.name);
            }
        }
        for s in &self.graph.steps {
            if s.from.iter().any(|f| f == "guard") {
                push("QG002", &s.name);
            }
            push("QG011", &s.name);
            if s.routes.iter().any(|r| r.starts_with("tool:")) {
                push("QG016", &s.name);
            }
        }
        for a in &self.graph.agents {
            if a.model.is_some() {
                push("reach_model", &a.name);
            }
        }
        out.sort();
        out.dedup();
        out
    }

    pub fn tool_name(&self, tool: usize) -> &'a str {
        self.catalogue
            .tools
            .get(tool)
            .map(|t| t.name.as_str())
            .unwrap_or("")
    }

    pub fn agent_name(&self, agent: usize) -> &'a str {
        self.graph
            .agents
            .get(agent)
            .map(|a| a.name.as_str())
            .unwrap_or("")
    }

    pub fn node_id(&self, node: usize) -> &'a str {
        self.graph
            .nodes
            .get(node)
            .map(|n| n.id.as_str())
            .unwrap_or("")
    }
}

/// Whether an argument kind is code that runs (QG017) rather than a query or destination (QG018).
pub fn is_code(kind: stalwart_record::ArgumentKind) -> bool {
    matches!(
        kind,
        stalwart_record::ArgumentKind::Code | stalwart_record::ArgumentKind::Shell
    )
}
