//! Agent graphs and catalogues made in memory for the analyzer's tests: a small description of
//! agents, tools, steps, stores and channels, turned into the graph the way `stalwart-graph`'s
//! builder makes it from agent.yaml (same nodes, same routes, same kinds), and into the
//! catalogue the proof reads.

#![allow(dead_code)]

use stalwart_analyzer::catalogue::{Catalogue, ToolFacts};
use stalwart_graph::{
    AgentGraph, AgentInfo, ChannelInfo, Edge, EdgeKind, FORMAT, Node, NodeKind, Place, StepInfo,
    StoreInfo,
};
use stalwart_record as rec;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Undo {
    Missing,
    Tool(usize),
    None,
}

#[derive(Debug, Clone)]
pub struct ToolSpec {
    pub write: bool,
    pub reads_outside: bool,
    pub sends_out: bool,
    pub irreversible: bool,
    pub confidential: bool,
    pub undo: Undo,
    pub after: Vec<usize>,
    pub not_after: Vec<usize>,
    pub not_after_untrusted: bool,
    pub at_most: Option<u32>,
    pub argument: Option<rec::ArgumentKind>,
    pub retrieves_from: Option<usize>,
    pub writes_to: Option<usize>,
}

impl ToolSpec {
    pub fn read() -> Self {
        Self {
            write: false,
            reads_outside: false,
            sends_out: false,
            irreversible: false,
            confidential: false,
            undo: Undo::Missing,
            after: Vec::new(),
            not_after: Vec::new(),
            not_after_untrusted: false,
            at_most: None,
            argument: None,
            retrieves_from: None,
            writes_to: None,
        }
    }

    pub fn write() -> Self {
        Self {
            write: true,
            ..Self::read()
        }
    }
}

#[derive(Debug, Clone)]
pub struct AgentSpec {
    pub model: bool,
    pub tools: Vec<usize>,
    pub hands_off_to: Vec<usize>,
    /// 0 low, 1 medium, 2 high.
    pub privilege: u8,
    /// `refuse`, `model` or `ask`.
    pub on_unread: &'static str,
}

/// Where a step is routed from, or where it routes to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum At {
    Router,
    Guard,
    Model(usize),
    Tool(usize),
    End,
}

#[derive(Debug, Clone)]
pub struct StepSpec {
    pub agent: usize,
    pub from: Vec<At>,
    pub routes: Vec<At>,
    pub calls: Vec<usize>,
    pub guarded: bool,
}

#[derive(Debug, Clone, Copy)]
pub struct StoreSpec {
    pub multi_tenant: bool,
    pub bound: bool,
    pub persistent: bool,
}

#[derive(Debug, Clone, Default)]
pub struct Spec {
    pub tools: Vec<ToolSpec>,
    pub agents: Vec<AgentSpec>,
    pub steps: Vec<StepSpec>,
    pub stores: Vec<StoreSpec>,
    /// Channels, each handing to an agent.
    pub channels: Vec<usize>,
}

pub fn tool_name(i: usize) -> String {
    format!("t{i}")
}

pub fn agent_name(i: usize) -> String {
    format!("a{i}")
}

fn store_name(i: usize) -> String {
    format!("s{i}")
}

fn step_name(i: usize) -> String {
    format!("step{i}")
}

fn model_id(agent: usize) -> String {
    format!("{}_model", agent_name(agent))
}

fn place(line: u32) -> Place {
    Place {
        file: "agent.yaml".to_string(),
        line,
        start: 0,
        end: 0,
    }
}

struct Builder {
    nodes: Vec<Node>,
    edges: Vec<Edge>,
}

impl Builder {
    fn node(&mut self, id: &str, kind: NodeKind, agent: Option<String>) {
        if self.nodes.iter().any(|n| n.id == id) {
            return;
        }
        let line = self.nodes.len() as u32 + 1;
        self.nodes.push(Node {
            id: id.to_string(),
            kind,
            agent,
            place: Some(place(line)),
        });
    }

    fn edge(
        &mut self,
        from: &str,
        to: &str,
        kind: EdgeKind,
        agent: Option<String>,
        tool: Option<String>,
    ) {
        let line = self.edges.len() as u32 + 1;
        self.edges.push(Edge {
            from: from.to_string(),
            to: to.to_string(),
            kind,
            agent,
            tool,
            exit_after: None,
            place: place(line),
        });
    }

    fn has(&self, id: &str) -> bool {
        self.nodes.iter().any(|n| n.id == id)
    }
}

impl Spec {
    fn node_of(&self, p: At) -> String {
        match p {
            At::Router => "router".to_string(),
            At::Guard => "guard".to_string(),
            At::Model(a) => model_id(a),
            At::Tool(t) => format!("tool:{}", tool_name(t)),
            At::End => "end".to_string(),
        }
    }

    fn entry(&self, agent: usize) -> String {
        match self.agents.get(agent) {
            Some(a) if a.model => model_id(agent),
            _ => "router".to_string(),
        }
    }

    /// The graph, as `stalwart_graph::build_graph` makes it.
    pub fn graph(&self) -> AgentGraph {
        let mut b = Builder {
            nodes: Vec::new(),
            edges: Vec::new(),
        };
        b.node("turn", NodeKind::Turn, None);
        b.node("router", NodeKind::Router, None);
        for (i, a) in self.agents.iter().enumerate() {
            if a.model {
                b.node(&model_id(i), NodeKind::Model, Some(agent_name(i)));
            }
        }
        b.node("guard", NodeKind::Guard, None);
        b.node("confirm", NodeKind::Confirm, None);
        for i in 0..self.tools.len() {
            b.node(&format!("tool:{}", tool_name(i)), NodeKind::Tool, None);
        }
        for (i, s) in self.steps.iter().enumerate() {
            b.node(&step_name(i), NodeKind::Step, Some(agent_name(s.agent)));
        }
        for i in 0..self.channels.len() {
            b.node(&format!("channel:c{i}"), NodeKind::Channel, None);
        }
        for i in 0..self.stores.len() {
            b.node(&format!("store:{}", store_name(i)), NodeKind::Store, None);
        }
        b.node("end", NodeKind::End, None);
        b.edge("turn", "router", EdgeKind::Route, None, None);
        for (i, a) in self.agents.iter().enumerate() {
            self.agent_edges(&mut b, i, a);
        }
        for (i, s) in self.steps.iter().enumerate() {
            self.step_edges(&mut b, i, s);
        }
        self.tool_edges(&mut b);
        for (i, &to) in self.channels.iter().enumerate() {
            b.edge(
                &format!("channel:c{i}"),
                &self.entry(to),
                EdgeKind::Channel,
                Some(agent_name(to)),
                None,
            );
        }
        b.edge("end", "turn", EdgeKind::NextTurn, None, None);
        AgentGraph {
            format: FORMAT.to_string(),
            file: "agent.yaml".to_string(),
            nodes: b.nodes,
            edges: b.edges,
            agents: self.agent_infos(),
            steps: self.step_infos(),
            channels: self
                .channels
                .iter()
                .enumerate()
                .map(|(i, &to)| ChannelInfo {
                    name: format!("c{i}"),
                    remote: "https://remote.invalid".to_string(),
                    hands_to: agent_name(to),
                    auth: "token".to_string(),
                    place: place(1),
                })
                .collect(),
            stores: self
                .stores
                .iter()
                .enumerate()
                .map(|(i, s)| StoreInfo {
                    name: store_name(i),
                    multi_tenant: s.multi_tenant,
                    bind: s.bound.then(|| "user".to_string()),
                    persistent: s.persistent,
                    place: place(1),
                })
                .collect(),
            budget: None,
        }
    }

    fn agent_infos(&self) -> Vec<AgentInfo> {
        self.agents
            .iter()
            .enumerate()
            .map(|(i, a)| AgentInfo {
                name: agent_name(i),
                model: a.model.then(|| "test:model".to_string()),
                tools: a.tools.iter().map(|&t| tool_name(t)).collect(),
                hands_off_to: a.hands_off_to.iter().map(|&t| agent_name(t)).collect(),
                privilege: ["low", "medium", "high"]
                    .get(usize::from(a.privilege))
                    .copied()
                    .unwrap_or("low")
                    .to_string(),
                on_unread: a.on_unread.to_string(),
                budget: None,
                exit_after: None,
                place: place(i as u32 + 1),
            })
            .collect()
    }

    fn step_infos(&self) -> Vec<StepInfo> {
        self.steps
            .iter()
            .enumerate()
            .map(|(i, s)| StepInfo {
                name: step_name(i),
                agent: agent_name(s.agent),
                from: s.from.iter().map(|&p| self.node_of(p)).collect(),
                routes: s.routes.iter().map(|&p| self.node_of(p)).collect(),
                calls: s.calls.iter().map(|&t| tool_name(t)).collect(),
                guarded: s.guarded,
                unknown: Vec::new(),
                place: place(100 + i as u32),
            })
            .collect()
    }

    fn agent_edges(&self, b: &mut Builder, i: usize, a: &AgentSpec) {
        let name = Some(agent_name(i));
        if !a.tools.is_empty() {
            b.edge("router", "guard", EdgeKind::Route, name.clone(), None);
        }
        b.edge("router", "end", EdgeKind::OnUnread, name.clone(), None);
        if !a.model {
            return;
        }
        let model = model_id(i);
        b.edge("router", &model, EdgeKind::Route, name.clone(), None);
        if matches!(a.on_unread, "model" | "ask") {
            b.edge("router", &model, EdgeKind::OnUnread, name.clone(), None);
        }
        if !a.tools.is_empty() {
            b.edge(&model, "guard", EdgeKind::Route, name.clone(), None);
        }
        for &target in &a.hands_off_to {
            b.edge(
                &model,
                &self.entry(target),
                EdgeKind::HandsOff,
                Some(agent_name(target)),
                None,
            );
        }
        b.edge(&model, "end", EdgeKind::Route, name.clone(), None);
        for &t in &a.tools {
            let tool = tool_name(t);
            b.edge(
                &format!("tool:{tool}"),
                &model,
                EdgeKind::Route,
                name.clone(),
                Some(tool),
            );
        }
    }

    fn step_edges(&self, b: &mut Builder, i: usize, s: &StepSpec) {
        let name = step_name(i);
        let agent = Some(agent_name(s.agent));
        if s.from.is_empty() {
            b.edge(
                &self.entry(s.agent),
                &name,
                EdgeKind::Route,
                agent.clone(),
                None,
            );
        }
        for &f in &s.from {
            let from = self.node_of(f);
            if b.has(&from) {
                b.edge(&from, &name, EdgeKind::Route, agent.clone(), None);
            }
        }
        for &r in &s.routes {
            let to = self.node_of(r);
            if b.has(&to) {
                let tool = to.strip_prefix("tool:").map(str::to_string);
                let kind = if tool.is_some() {
                    EdgeKind::Unguarded
                } else {
                    EdgeKind::Route
                };
                b.edge(&name, &to, kind, agent.clone(), tool);
            }
        }
        for &c in &s.calls {
            let tool = tool_name(c);
            if s.guarded {
                b.edge(&name, "guard", EdgeKind::Route, agent.clone(), Some(tool));
            } else {
                b.edge(
                    &name,
                    &format!("tool:{tool}"),
                    EdgeKind::Unguarded,
                    agent.clone(),
                    Some(tool),
                );
            }
        }
    }

    fn tool_edges(&self, b: &mut Builder) {
        for (t, spec) in self.tools.iter().enumerate() {
            let tool = tool_name(t);
            let id = format!("tool:{tool}");
            for (a, agent) in self.agents.iter().enumerate() {
                if !agent.tools.contains(&t) {
                    continue;
                }
                let name = Some(agent_name(a));
                if spec.write {
                    b.edge(
                        "guard",
                        "confirm",
                        EdgeKind::Confirm,
                        name.clone(),
                        Some(tool.clone()),
                    );
                    b.edge(
                        "confirm",
                        &id,
                        EdgeKind::Call,
                        name.clone(),
                        Some(tool.clone()),
                    );
                } else {
                    b.edge(
                        "guard",
                        &id,
                        EdgeKind::Call,
                        name.clone(),
                        Some(tool.clone()),
                    );
                }
                let back = b
                    .edges
                    .iter()
                    .any(|e| e.from == id && e.agent == name && e.kind == EdgeKind::Route);
                if !back {
                    b.edge(
                        &id,
                        "end",
                        EdgeKind::Route,
                        name.clone(),
                        Some(tool.clone()),
                    );
                }
            }
            if let Undo::Tool(u) = spec.undo {
                b.edge(
                    &id,
                    &format!("tool:{}", tool_name(u)),
                    EdgeKind::Undo,
                    None,
                    Some(tool_name(u)),
                );
            }
            if let Some(s) = spec.retrieves_from {
                b.edge(
                    &format!("store:{}", store_name(s)),
                    &id,
                    EdgeKind::Retrieves,
                    None,
                    Some(tool.clone()),
                );
            }
            if let Some(s) = spec.writes_to {
                b.edge(
                    &id,
                    &format!("store:{}", store_name(s)),
                    EdgeKind::Writes,
                    None,
                    Some(tool.clone()),
                );
            }
        }
        b.edge("guard", "end", EdgeKind::Route, None, None);
    }

    /// The catalogue the proof reads.
    pub fn catalogue(&self) -> Catalogue {
        Catalogue {
            tools: self
                .tools
                .iter()
                .enumerate()
                .map(|(i, t)| ToolFacts {
                    name: tool_name(i),
                    write: t.write,
                    reads_outside: t.reads_outside,
                    sends_out: t.sends_out,
                    irreversible: t.irreversible,
                    confidential: t.confidential,
                    undo_tool: match t.undo {
                        Undo::Tool(u) => Some(tool_name(u)),
                        _ => None,
                    },
                    undo_none: t.undo == Undo::None,
                    retry_safe: false,
                    has_result_schema: false,
                    after: t.after.iter().map(|&a| tool_name(a)).collect(),
                    not_after: t.not_after.iter().map(|&a| tool_name(a)).collect(),
                    not_after_untrusted: t.not_after_untrusted,
                    at_most_session: t.at_most,
                    has_limits: false,
                    checked_arguments: Vec::new(),
                    argument_names: t.argument.iter().map(|_| "arg".to_string()).collect(),
                    argument_kinds: t.argument.iter().map(|&k| ("arg".to_string(), k)).collect(),
                    retrieves_from: t.retrieves_from.map(store_name),
                    writes_to: t.writes_to.map(store_name),
                    source: None,
                    gate: rec::Gate::default(),
                })
                .collect(),
        }
    }
}
