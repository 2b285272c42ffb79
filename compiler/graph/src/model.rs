//! The agent graph's data model (qls-graph/1): nodes, routes, and the place in a source file that
//! makes each of them. Plain serializable data: the JSON form is this model as serde writes it.

use serde::{Deserialize, Serialize};

/// The format name written into every graph.
pub const FORMAT: &str = "qls-graph/1";

/// A place in a source file: the file's path relative to agent.yaml's folder, the 1-based line and
/// the byte range.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct Place {
    pub file: String,
    pub line: u32,
    pub start: u32,
    pub end: u32,
}

impl Place {
    /// `agent.yaml:3`.
    pub fn short(&self) -> String {
        format!("{}:{}", self.file, self.line)
    }
}

/// What a node stands for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum NodeKind {
    /// A person's turn arrives.
    Turn,
    /// The router reads the turn into a plan.
    Router,
    /// An agent's model (`<agent>_model`).
    Model,
    /// The guarded tool step: the tool check decides every call here.
    Guard,
    /// A tool runs (`tool:<name>`).
    Tool,
    /// A person confirms a call.
    Confirm,
    /// A custom step of `steps:` (opaque: it may do what its routes allow).
    Step,
    /// The run ends.
    End,
    /// A remote agent channel (`channel:<name>`).
    Channel,
    /// A store (`store:<name>`).
    Store,
}

/// One node.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Node {
    pub id: String,
    pub kind: NodeKind,
    /// The agent a model or custom step belongs to.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub agent: Option<String>,
    /// Where the node is declared, when a declaration makes it.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub place: Option<Place>,
}

/// What makes an edge.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum EdgeKind {
    /// A route the runtime takes (turn → router, model → guard, tool → model, …).
    Route,
    /// The model hands the conversation to another agent (`hands_off_to`).
    HandsOff,
    /// A turn nothing reads goes where `on_unread` says.
    OnUnread,
    /// The guard lets a call through to its tool (reads; writes go through `confirm`).
    Call,
    /// The guard asks a person first.
    Confirm,
    /// A custom step calls a tool itself, without the tool check.
    Unguarded,
    /// A failed run's undo: the tool that undoes this one.
    Undo,
    /// A remote channel hands a conversation to an agent.
    Channel,
    /// A tool reads from a store (`retrieves_from`).
    Retrieves,
    /// A tool writes to a store (`writes_to`).
    Writes,
    /// The run ends and the next turn arrives.
    NextTurn,
}

/// `exit_after: {counter, at_most}`, declared on a model's exit edge.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ExitAfter {
    pub counter: String,
    pub at_most: u32,
}

/// One edge: a route, with the place that makes it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Edge {
    pub from: String,
    pub to: String,
    pub kind: EdgeKind,
    /// The agent the route runs as.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub agent: Option<String>,
    /// The tool a `call`, `confirm`, `unguarded` or `undo` edge is about.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub tool: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub exit_after: Option<ExitAfter>,
    pub place: Place,
}

/// What the graph records of an agent beyond its nodes.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct AgentInfo {
    pub name: String,
    pub model: Option<String>,
    pub tools: Vec<String>,
    pub hands_off_to: Vec<String>,
    /// `low` (default), `medium`, `high`.
    pub privilege: String,
    /// `refuse` (default), `model`, `ask`, `answer`.
    pub on_unread: String,
    pub budget: Option<u32>,
    pub exit_after: Option<ExitAfter>,
    pub place: Place,
}

/// A remote channel (`channels:`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ChannelInfo {
    pub name: String,
    pub remote: String,
    pub hands_to: String,
    /// `none`, `token` or `mtls`.
    pub auth: String,
    pub place: Place,
}

/// A store (`stores:`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct StoreInfo {
    pub name: String,
    pub multi_tenant: bool,
    pub bind: Option<String>,
    pub persistent: bool,
    pub place: Place,
}

/// A custom step (`steps:`), as declared.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct StepInfo {
    pub name: String,
    pub agent: String,
    pub from: Vec<String>,
    /// Empty when the step declares no `routes:`.
    pub routes: Vec<String>,
    pub calls: Vec<String>,
    pub guarded: bool,
    /// Names in `from:`/`routes:` that are no node of the graph.
    pub unknown: Vec<(String, Place)>,
    pub place: Place,
}

/// The agent graph.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct AgentGraph {
    /// Always [`FORMAT`].
    pub format: String,
    /// agent.yaml's path relative to its folder (`agent.yaml`).
    pub file: String,
    pub nodes: Vec<Node>,
    pub edges: Vec<Edge>,
    pub agents: Vec<AgentInfo>,
    pub steps: Vec<StepInfo>,
    pub channels: Vec<ChannelInfo>,
    pub stores: Vec<StoreInfo>,
    /// The run's `budget: {steps}`.
    pub budget: Option<u32>,
}

impl AgentGraph {
    pub fn node(&self, id: &str) -> Option<&Node> {
        self.nodes.iter().find(|n| n.id == id)
    }

    pub fn agent(&self, name: &str) -> Option<&AgentInfo> {
        self.agents.iter().find(|a| a.name == name)
    }

    /// The edges leaving a node, in graph order.
    pub fn edges_from<'a>(&'a self, id: &'a str) -> impl Iterator<Item = &'a Edge> + 'a {
        self.edges.iter().filter(move |e| e.from == id)
    }

    /// BLAKE3 of the canonical JSON form, hex.
    pub fn digest(&self) -> String {
        blake3::hash(crate::json::to_json_string(self).as_bytes())
            .to_hex()
            .to_string()
    }
}

/// `<agent>_model`.
pub fn model_id(agent: &str) -> String {
    format!("{agent}_model")
}

/// `tool:<name>`.
pub fn tool_id(tool: &str) -> String {
    format!("tool:{tool}")
}
