//! Builds the agent graph from agent.yaml's typed tree and the catalogue: every node, and every
//! route with the place in agent.yaml (or the tool's declaration) that makes it.

use std::collections::{BTreeMap, BTreeSet, HashSet};

use stalwart_agent as ast;
use stalwart_diagnostics::Span;

use crate::model::{
    AgentGraph, AgentInfo, ChannelInfo, Edge, EdgeKind, ExitAfter, FORMAT, Node, NodeKind, Place,
    StepInfo, StoreInfo, model_id, tool_id,
};

/// Builds the graph. `place` maps a span of any source file to its place (file relative to
/// agent.yaml's folder, line); `file` is agent.yaml's own relative path.
pub fn build_graph(
    agent: &ast::AgentFile,
    tools: &[ast::ToolDecl],
    file: &str,
    place: &dyn Fn(Span) -> Place,
) -> AgentGraph {
    let mut listed: BTreeMap<String, Vec<(String, Place)>> = BTreeMap::new();
    for a in &agent.agents {
        for t in &a.tools {
            listed
                .entry(t.value.clone())
                .or_default()
                .push((a.name.value.clone(), place(t.span)));
        }
    }
    let mut cx = Ctx {
        place,
        nodes: Vec::new(),
        edges: Vec::new(),
        listed,
        ids: HashSet::new(),
        routes_from: HashSet::new(),
        declared: tools.iter().map(|d| d.name.value.clone()).collect(),
    };
    let first = agent
        .agents
        .first()
        .map(|a| place(a.span))
        .unwrap_or_else(|| Place {
            file: file.to_string(),
            line: 1,
            start: 0,
            end: 0,
        });
    cx.node("turn", NodeKind::Turn, None, None);
    cx.node("router", NodeKind::Router, None, None);
    for a in &agent.agents {
        if let Some(model) = &a.model {
            cx.node(
                &model_id(&a.name.value),
                NodeKind::Model,
                Some(&a.name.value),
                Some(place(model.span)),
            );
        }
    }
    cx.node("guard", NodeKind::Guard, None, None);
    cx.node("confirm", NodeKind::Confirm, None, None);
    let tool_names = catalogue_names(tools);
    let mut declared: BTreeMap<&str, Span> = BTreeMap::new();
    for t in tools {
        declared.entry(t.name.value.as_str()).or_insert(t.name.span);
    }
    for name in &tool_names {
        // The first place agent.yaml names the tool in an agent's `tools:`, else its declaration.
        let mention = cx
            .listed
            .get(name)
            .and_then(|l| l.first())
            .map(|l| l.1.clone());
        let decl = declared.get(name.as_str()).map(|s| place(*s));
        cx.node(&tool_id(name), NodeKind::Tool, None, mention.or(decl));
    }
    for s in &agent.steps {
        cx.node(
            &s.name.value,
            NodeKind::Step,
            Some(&s.agent.value),
            Some(place(s.name.span)),
        );
    }
    for c in &agent.channels {
        cx.node(
            &format!("channel:{}", c.name.value),
            NodeKind::Channel,
            None,
            Some(place(c.name.span)),
        );
    }
    for s in &agent.stores {
        cx.node(
            &format!("store:{}", s.name.value),
            NodeKind::Store,
            None,
            Some(place(s.name.span)),
        );
    }
    cx.node("end", NodeKind::End, None, None);

    cx.edge("turn", "router", EdgeKind::Route, None, None, first.clone());
    for a in &agent.agents {
        cx.agent_edges(a, agent);
    }
    for s in &agent.steps {
        cx.step_edges(s, agent);
    }
    cx.tool_edges(tools, &tool_names, &first);
    for c in &agent.channels {
        let target = agent
            .agents
            .iter()
            .find(|a| a.name.value == c.hands_to.value);
        let to = entry_of(target);
        cx.edge(
            &format!("channel:{}", c.name.value),
            &to,
            EdgeKind::Channel,
            Some(&c.hands_to.value),
            None,
            place(c.hands_to.span),
        );
    }
    cx.edge("end", "turn", EdgeKind::NextTurn, None, None, first);

    let steps = agent
        .steps
        .iter()
        .map(|s| step_info(s, &cx.ids, place))
        .collect();
    AgentGraph {
        format: FORMAT.to_string(),
        file: file.to_string(),
        nodes: cx.nodes,
        edges: cx.edges,
        agents: agent.agents.iter().map(|a| agent_info(a, place)).collect(),
        steps,
        channels: agent
            .channels
            .iter()
            .map(|c| ChannelInfo {
                name: c.name.value.clone(),
                remote: c.remote.value.clone(),
                hands_to: c.hands_to.value.clone(),
                auth: match c.auth.value {
                    ast::Auth::None => "none",
                    ast::Auth::Token => "token",
                    ast::Auth::Mtls => "mtls",
                }
                .to_string(),
                place: place(c.name.span),
            })
            .collect(),
        stores: agent
            .stores
            .iter()
            .map(|s| StoreInfo {
                name: s.name.value.clone(),
                multi_tenant: s.multi_tenant,
                bind: s.bind.as_ref().map(|b| b.value.clone()),
                persistent: s.persistent,
                place: place(s.name.span),
            })
            .collect(),
        budget: agent.budget.as_ref().map(|b| b.value),
    }
}

/// The catalogue's tool names, sorted, each once.
fn catalogue_names(tools: &[ast::ToolDecl]) -> Vec<String> {
    let set: BTreeSet<&str> = tools.iter().map(|t| t.name.value.as_str()).collect();
    set.into_iter().map(str::to_string).collect()
}

/// Where a conversation handed to an agent goes: its model, or the router when it has none.
fn entry_of(agent: Option<&ast::AgentDecl>) -> String {
    match agent {
        Some(a) if a.model.is_some() => model_id(&a.name.value),
        _ => "router".to_string(),
    }
}

fn trust_name(t: ast::Trust) -> &'static str {
    match t {
        ast::Trust::Untrusted => "untrusted",
        ast::Trust::Low => "low",
        ast::Trust::Medium => "medium",
        ast::Trust::High => "high",
    }
}

fn on_unread_name(o: ast::OnUnread) -> &'static str {
    match o {
        ast::OnUnread::Refuse => "refuse",
        ast::OnUnread::Model => "model",
        ast::OnUnread::Ask => "ask",
        ast::OnUnread::Answer => "answer",
    }
}

fn agent_info(a: &ast::AgentDecl, place: &dyn Fn(Span) -> Place) -> AgentInfo {
    AgentInfo {
        name: a.name.value.clone(),
        model: a.model.as_ref().map(|m| m.value.clone()),
        tools: a.tools.iter().map(|t| t.value.clone()).collect(),
        hands_off_to: a.hands_off_to.iter().map(|t| t.value.clone()).collect(),
        privilege: trust_name(
            a.privilege
                .as_ref()
                .map(|p| p.value)
                .unwrap_or(ast::Trust::Low),
        )
        .to_string(),
        on_unread: on_unread_name(
            a.on_unread
                .as_ref()
                .map(|o| o.value)
                .unwrap_or(ast::OnUnread::Refuse),
        )
        .to_string(),
        budget: a.budget.as_ref().map(|b| b.value),
        exit_after: a.exit_after.as_ref().map(|e| ExitAfter {
            counter: e.value.counter.value.clone(),
            at_most: e.value.at_most.value,
        }),
        place: place(a.name.span),
    }
}

fn step_info(s: &ast::StepDecl, ids: &HashSet<String>, place: &dyn Fn(Span) -> Place) -> StepInfo {
    let known = |name: &str| ids.contains(name);
    let unknown = s
        .from
        .iter()
        .chain(s.routes.iter())
        .filter(|n| !known(&n.value))
        .map(|n| (n.value.clone(), place(n.span)))
        .collect();
    StepInfo {
        name: s.name.value.clone(),
        agent: s.agent.value.clone(),
        from: s.from.iter().map(|f| f.value.clone()).collect(),
        routes: s.routes.iter().map(|r| r.value.clone()).collect(),
        calls: s.calls.iter().map(|c| c.value.clone()).collect(),
        guarded: s.guarded,
        unknown,
        place: place(s.name.span),
    }
}

struct Ctx<'a> {
    place: &'a dyn Fn(Span) -> Place,
    nodes: Vec<Node>,
    edges: Vec<Edge>,
    /// For each tool, `(agent, place)` of every entry of an agent's `tools:` that names it, in
    /// the order of agent.yaml.
    listed: BTreeMap<String, Vec<(String, Place)>>,
    /// The ids of `nodes`.
    ids: HashSet<String>,
    /// `(from, agent)` of every route edge so far.
    routes_from: HashSet<(String, Option<String>)>,
    /// The names of the tools declared.
    declared: HashSet<String>,
}

impl Ctx<'_> {
    fn node(&mut self, id: &str, kind: NodeKind, agent: Option<&str>, place: Option<Place>) {
        if !self.ids.insert(id.to_string()) {
            return;
        }
        self.nodes.push(Node {
            id: id.to_string(),
            kind,
            agent: agent.map(str::to_string),
            place,
        });
    }

    fn edge(
        &mut self,
        from: &str,
        to: &str,
        kind: EdgeKind,
        agent: Option<&str>,
        tool: Option<&str>,
        place: Place,
    ) {
        if kind == EdgeKind::Route {
            self.routes_from
                .insert((from.to_string(), agent.map(str::to_string)));
        }
        self.edges.push(Edge {
            from: from.to_string(),
            to: to.to_string(),
            kind,
            agent: agent.map(str::to_string),
            tool: tool.map(str::to_string),
            exit_after: None,
            place,
        });
    }

    fn has_node(&self, id: &str) -> bool {
        self.ids.contains(id)
    }

    fn agent_edges(&mut self, a: &ast::AgentDecl, file: &ast::AgentFile) {
        let name = a.name.value.as_str();
        let at = (self.place)(a.name.span);
        let tools_at = a
            .tools
            .first()
            .map(|t| (self.place)(t.span))
            .unwrap_or_else(|| at.clone());
        let model = a.model.as_ref().map(|_| model_id(name));
        if !a.tools.is_empty() {
            self.edge(
                "router",
                "guard",
                EdgeKind::Route,
                Some(name),
                None,
                tools_at.clone(),
            );
        }
        let unread = a
            .on_unread
            .as_ref()
            .map(|o| (o.value, (self.place)(o.span)));
        let unread_at = unread
            .as_ref()
            .map(|u| u.1.clone())
            .unwrap_or_else(|| at.clone());
        self.edge(
            "router",
            "end",
            EdgeKind::OnUnread,
            Some(name),
            None,
            unread_at.clone(),
        );
        let Some(model) = model else { return };
        let model_at = a
            .model
            .as_ref()
            .map(|m| (self.place)(m.span))
            .unwrap_or_else(|| at.clone());
        self.edge(
            "router",
            &model,
            EdgeKind::Route,
            Some(name),
            None,
            model_at.clone(),
        );
        if let Some((ast::OnUnread::Model | ast::OnUnread::Ask, p)) = &unread {
            self.edge(
                "router",
                &model,
                EdgeKind::OnUnread,
                Some(name),
                None,
                p.clone(),
            );
        }
        if !a.tools.is_empty() {
            self.edge(&model, "guard", EdgeKind::Route, Some(name), None, tools_at);
        }
        for target in &a.hands_off_to {
            let to = entry_of(file.agents.iter().find(|b| b.name.value == target.value));
            let p = (self.place)(target.span);
            self.edges.push(Edge {
                from: model.clone(),
                to,
                kind: EdgeKind::HandsOff,
                agent: Some(target.value.clone()),
                tool: None,
                exit_after: None,
                place: p,
            });
        }
        let exit = a.exit_after.as_ref();
        self.routes_from
            .insert((model.clone(), Some(name.to_string())));
        self.edges.push(Edge {
            from: model.clone(),
            to: "end".to_string(),
            kind: EdgeKind::Route,
            agent: Some(name.to_string()),
            tool: None,
            exit_after: exit.map(|e| ExitAfter {
                counter: e.value.counter.value.clone(),
                at_most: e.value.at_most.value,
            }),
            place: exit
                .map(|e| (self.place)(e.span))
                .unwrap_or(model_at.clone()),
        });
        for t in &a.tools {
            if !self.declared.contains(&t.value) {
                continue;
            }
            self.edge(
                &tool_id(&t.value),
                &model,
                EdgeKind::Route,
                Some(name),
                Some(&t.value),
                model_at.clone(),
            );
        }
    }

    fn step_edges(&mut self, s: &ast::StepDecl, file: &ast::AgentFile) {
        let name = s.name.value.as_str();
        let agent = s.agent.value.as_str();
        if s.from.is_empty() {
            let owner = file.agents.iter().find(|a| a.name.value == agent);
            let from = entry_of(owner);
            let p = (self.place)(s.name.span);
            self.edge(&from, name, EdgeKind::Route, Some(agent), None, p);
        }
        for f in &s.from {
            if self.has_node(&f.value) {
                let p = (self.place)(f.span);
                self.edge(&f.value, name, EdgeKind::Route, Some(agent), None, p);
            }
        }
        for r in &s.routes {
            if self.has_node(&r.value) {
                let p = (self.place)(r.span);
                let tool = r.value.strip_prefix("tool:");
                let kind = if tool.is_some() {
                    EdgeKind::Unguarded
                } else {
                    EdgeKind::Route
                };
                self.edge(name, &r.value, kind, Some(agent), tool, p);
            }
        }
        for c in &s.calls {
            let p = (self.place)(c.span);
            if s.guarded {
                self.edge(
                    name,
                    "guard",
                    EdgeKind::Route,
                    Some(agent),
                    Some(&c.value),
                    p,
                );
            } else if self.has_node(&tool_id(&c.value)) {
                self.edge(
                    name,
                    &tool_id(&c.value),
                    EdgeKind::Unguarded,
                    Some(agent),
                    Some(&c.value),
                    p,
                );
            }
        }
    }

    fn tool_edges(&mut self, tools: &[ast::ToolDecl], names: &[String], first: &Place) {
        // The first declaration of each name, as a search in order would find it.
        let mut by_name: BTreeMap<&str, &ast::ToolDecl> = BTreeMap::new();
        for t in tools {
            by_name.entry(t.name.value.as_str()).or_insert(t);
        }
        for name in names {
            let Some(decl) = by_name.get(name.as_str()).copied() else {
                continue;
            };
            let write = !matches!(
                decl.effects.as_ref().map(|e| e.value),
                Some(ast::Effects::Reads)
            );
            let id = tool_id(name);
            for (agent, p) in self.listings(name) {
                if write {
                    self.edge(
                        "guard",
                        "confirm",
                        EdgeKind::Confirm,
                        Some(&agent),
                        Some(name),
                        p.clone(),
                    );
                    self.edge(
                        "confirm",
                        &id,
                        EdgeKind::Call,
                        Some(&agent),
                        Some(name),
                        p.clone(),
                    );
                } else {
                    self.edge(
                        "guard",
                        &id,
                        EdgeKind::Call,
                        Some(&agent),
                        Some(name),
                        p.clone(),
                    );
                }
                let back = self
                    .routes_from
                    .contains(&(id.clone(), Some(agent.clone())));
                if !back {
                    self.edge(&id, "end", EdgeKind::Route, Some(&agent), Some(name), p);
                }
            }
            if let Some(undo) = &decl.undo
                && let ast::UndoDecl::Tool { tool, .. } = &undo.value
                && self.has_node(&tool_id(&tool.value))
            {
                let p = (self.place)(tool.span);
                self.edge(
                    &id,
                    &tool_id(&tool.value),
                    EdgeKind::Undo,
                    None,
                    Some(&tool.value),
                    p,
                );
            }
            if let Some(store) = &decl.retrieves_from {
                let p = (self.place)(store.span);
                self.edge(
                    &format!("store:{}", store.value),
                    &id,
                    EdgeKind::Retrieves,
                    None,
                    Some(name),
                    p,
                );
            }
            if let Some(store) = &decl.writes_to {
                let p = (self.place)(store.span);
                self.edge(
                    &id,
                    &format!("store:{}", store.value),
                    EdgeKind::Writes,
                    None,
                    Some(name),
                    p,
                );
            }
        }
        self.edge("guard", "end", EdgeKind::Route, None, None, first.clone());
    }

    /// The agents whose `tools:` list a tool, with the place of each listing.
    fn listings(&self, tool: &str) -> Vec<(String, Place)> {
        self.listed.get(tool).cloned().unwrap_or_default()
    }
}
