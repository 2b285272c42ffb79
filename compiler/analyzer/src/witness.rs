//! Witness sessions: each reachable finding's witness path written as a scenario of the
//! conformance format (`tests/conformance/README.md`), so that the runtime's tool check can be
//! asked, call by call, whether it decides what the proof's model of it claims.
//!
//! The path is walked from its first edge. A turn is a `read`; a hand-off (or a route that runs
//! as another agent) starts that agent's session; a call through the guard is a check the model
//! claims the check lets through: a read is allowed, a write is confirmed and then allowed with
//! the person's token, and each allowed call is reported `ran`. Every other edge (a route, a
//! custom step's call around the check) is a `route` step the runtime does not take part in.
//! What the model leaves free -- arguments, the person's intent, the facts -- is chosen here:
//! each required argument a value of its declared type (the schema's first `enum` member or
//! its `const` when it names one), typed by the person where it can be (a string or a number,
//! written into the turn) and the host's (`computed`) otherwise, the intent and the facts of
//! the tool's first rulebook path that lets it through, and host counts of zero.

use std::collections::BTreeMap;

use serde_json::{Map, Value, json};
use stalwart_graph::{AgentGraph, EdgeKind, NodeKind};
use stalwart_record as rec;

use crate::findings::Finding;

/// One witness session: the file name it is written under and its scenario.
#[derive(Debug, Clone, PartialEq)]
pub struct WitnessSession {
    /// `<rule>-<subject>.yaml`, the subject with every character but letters, digits, `_` and
    /// `-` written as `_`; a second finding with the same name gets `-2`, and so on.
    pub file: String,
    pub scenario: Value,
}

/// The witness session of every finding with a witness path, in the findings' order. `agent` is
/// the path the scenario names agent.yaml by (relative to the folder it is written to).
pub fn witness_sessions(
    graph: &AgentGraph,
    body: &rec::RecordBody,
    findings: &[Finding],
    agent: &str,
) -> Vec<WitnessSession> {
    let mut taken: BTreeMap<String, usize> = BTreeMap::new();
    findings
        .iter()
        .filter(|f| !f.witness.is_empty())
        .map(|f| {
            let stem = format!("{}-{}", f.rule, file_safe(&f.subject));
            let n = taken.entry(stem.clone()).or_insert(0);
            *n += 1;
            let file = match *n {
                1 => format!("{stem}.yaml"),
                n => format!("{stem}-{n}.yaml"),
            };
            WitnessSession {
                file,
                scenario: scenario(graph, body, f, agent),
            }
        })
        .collect()
}

fn file_safe(s: &str) -> String {
    s.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '_' || c == '-' {
                c
            } else {
                '_'
            }
        })
        .collect()
}

/// The scenario of one finding's witness.
pub fn scenario(graph: &AgentGraph, body: &rec::RecordBody, f: &Finding, agent: &str) -> Value {
    let mut walk = Walk {
        graph,
        body,
        steps: Vec::new(),
        agent: None,
        first_agent: None,
        sessions: 0,
        calls: 0,
        turns: 0,
        turn_step: None,
    };
    // QG023's witness is a route to the model and then a cycle of the graph through it: the
    // cycle is a shape of the graph, not a route the proof claims the check lets through, so
    // its edges are routes only.
    let model = f.subject.strip_prefix("cycle:");
    let mut in_cycle = false;
    for step in &f.witness {
        let edge = graph
            .edges
            .iter()
            .find(|e| e.from == step.from && e.to == step.to && e.place == step.place);
        let place = format!("{}:{}", step.place.file, step.place.line);
        match edge {
            Some(e) if !in_cycle => walk.edge(e, &place),
            Some(e) => walk.route(&e.from, &e.to, kind_name(e.kind), &place),
            None => walk.route(&step.from, &step.to, "route", &place),
        }
        in_cycle |= f.rule == "QG023" && model == Some(step.to.as_str());
    }
    let first = walk.first_agent.clone().unwrap_or_default();
    json!({
        "witness": {
            "rule": f.rule,
            "subject": f.subject,
            "place": format!("{}:{}", f.place.file, f.place.line),
            "message": f.message,
        },
        "agent": agent,
        "session": {"agent": first, "id": "witness-1"},
        "steps": walk.steps,
    })
}

struct Walk<'a> {
    graph: &'a AgentGraph,
    body: &'a rec::RecordBody,
    steps: Vec<Value>,
    /// The agent whose session the calls are checked in.
    agent: Option<String>,
    first_agent: Option<String>,
    /// Sessions started after the first.
    sessions: usize,
    /// Call entries in the current session's history (checks append one each).
    calls: u32,
    turns: usize,
    /// The step of the current session's latest turn, which the calls' values are typed into.
    turn_step: Option<usize>,
}

impl Walk<'_> {
    fn edge(&mut self, e: &stalwart_graph::Edge, place: &str) {
        let to_kind = self.graph.node(&e.to).map(|n| n.kind);
        let from_kind = self.graph.node(&e.from).map(|n| n.kind);
        if from_kind == Some(NodeKind::Turn) || e.kind == EdgeKind::NextTurn {
            self.turns += 1;
            self.turn_step = Some(self.steps.len());
            self.steps.push(json!({
                "name": format!("{} → {} ({place})", e.from, e.to),
                "read": format!("turn {}", self.turns),
            }));
            if e.kind == EdgeKind::NextTurn {
                return;
            }
        }
        // The runtime keeps one session per agent: a route that runs as another agent (a
        // hand-off, a channel, a step acting as it) starts that agent's session.
        let to_step = to_kind == Some(NodeKind::Step);
        let starts = e.agent.as_ref().filter(|agent| {
            self.agent.as_ref() != Some(*agent)
                && (self.agent.is_none()
                    || matches!(e.kind, EdgeKind::HandsOff | EdgeKind::Channel)
                    || to_step)
        });
        let tool = e.to.strip_prefix("tool:");
        match (e.kind, to_kind, tool) {
            (EdgeKind::Call, Some(NodeKind::Tool), Some(tool)) => {
                if let Some(agent) = starts {
                    self.start_session(agent);
                }
                self.call(&e.from, tool, place);
            }
            (kind, ..) => {
                if from_kind != Some(NodeKind::Turn) {
                    self.route(&e.from, &e.to, kind_name(kind), place);
                }
                if let Some(agent) = starts {
                    self.start_session(agent);
                }
            }
        }
    }

    fn start_session(&mut self, agent: &str) {
        if self.first_agent.is_none() {
            self.first_agent = Some(agent.to_string());
        } else {
            self.sessions += 1;
            self.steps.push(json!({
                "session": {"agent": agent, "id": format!("witness-{}", self.sessions + 1)},
            }));
            self.calls = 0;
            self.turn_step = None;
        }
        self.agent = Some(agent.to_string());
    }

    /// Each argument's origin: `typed` for a string or a number, which is then written into the
    /// session's latest turn, as the person typed it; `computed` (the host's value) for the
    /// rest, or when the session read no turn (one a hand-off started).
    fn origins(&mut self, args: &Map<String, Value>) -> Map<String, Value> {
        let mut origins = Map::new();
        for (name, value) in args {
            let typed = match value {
                Value::String(s) => Some(s.clone()),
                Value::Number(n) => Some(n.to_string()),
                _ => None,
            };
            let turn = self
                .turn_step
                .and_then(|i| self.steps.get_mut(i))
                .and_then(|step| step.get_mut("read"));
            let origin = match (typed, turn) {
                (Some(text), Some(Value::String(read))) => {
                    read.push(' ');
                    read.push_str(&text);
                    "typed"
                }
                _ => "computed",
            };
            origins.insert(name.clone(), json!(origin));
        }
        origins
    }

    fn route(&mut self, from: &str, to: &str, kind: &str, place: &str) {
        self.steps.push(json!({
            "route": {"from": from, "to": to, "kind": kind, "place": place},
        }));
    }

    /// A call through the guard: the model claims the check lets it through.
    fn call(&mut self, from: &str, tool: &str, place: &str) {
        let Some(t) = self.body.tools.iter().find(|t| t.name == tool) else {
            self.route(from, &format!("tool:{tool}"), "call", place);
            return;
        };
        let mut check = Map::new();
        check.insert("tool".into(), json!(tool));
        if let Some(agent) = &self.agent {
            check.insert("agent".into(), json!(agent));
        }
        let args = arguments(self.body, t);
        let origins = self.origins(&args);
        check.insert("args".into(), Value::Object(args));
        if !origins.is_empty() {
            check.insert("origins".into(), Value::Object(origins));
        }
        let context = context(self.body, t);
        if !context.is_empty() {
            check.insert("context".into(), Value::Object(context));
        }
        if let Some(intent) = allowing_path(t).and_then(|p| p.intent.clone()) {
            check.insert("intent".into(), json!(intent));
        }
        let name = format!("{from} → tool:{tool} ({place})");
        let write = t.effects != rec::Effects::Reads;
        if write {
            self.calls += 1;
            let token = format!("confirm{}", self.calls);
            self.steps.push(json!({
                "name": format!("{name}: a person is asked"),
                "check": Value::Object(check.clone()),
                "save": token,
                "expect": {"decision": "confirm"},
            }));
            check.insert("confirmation".into(), json!(format!("${token}")));
            self.calls += 1;
            self.steps.push(json!({
                "name": format!("{name}: the person confirms"),
                "check": Value::Object(check),
                "expect": {"decision": "allow", "reasons": ["confirmed"]},
            }));
        } else {
            self.calls += 1;
            self.steps.push(json!({
                "name": name,
                "check": Value::Object(check),
                "expect": {"decision": "allow"},
            }));
        }
        self.steps.push(json!({
            "report": {"step": self.calls, "outcome": "ran"},
        }));
    }
}

fn kind_name(kind: EdgeKind) -> &'static str {
    match kind {
        EdgeKind::Route => "route",
        EdgeKind::HandsOff => "hands_off",
        EdgeKind::OnUnread => "on_unread",
        EdgeKind::Call => "call",
        EdgeKind::Confirm => "confirm",
        EdgeKind::Unguarded => "unguarded",
        EdgeKind::Undo => "undo",
        EdgeKind::Channel => "channel",
        EdgeKind::Retrieves => "retrieves",
        EdgeKind::Writes => "writes",
        EdgeKind::NextTurn => "next_turn",
    }
}

/// The tool's first rulebook path that lets a call through, when a rulebook governs it.
fn allowing_path(t: &rec::Tool) -> Option<&rec::GatePath> {
    if !t.gate.governed {
        return None;
    }
    t.gate
        .paths
        .iter()
        .find(|p| matches!(p.action, rec::GateAction::Allow))
}

/// A value for each argument the schema requires.
fn arguments(body: &rec::RecordBody, t: &rec::Tool) -> Map<String, Value> {
    let Some(node) = t.arguments.and_then(|i| body.schema_nodes.get(i as usize)) else {
        return Map::new();
    };
    node.required
        .iter()
        .map(|name| {
            let schema = node
                .properties
                .iter()
                .find(|(p, _)| p == name)
                .and_then(|(_, i)| body.schema_nodes.get(*i as usize));
            (name.clone(), schema.map_or(json!("w"), |s| sample(body, s)))
        })
        .collect()
}

fn sample(body: &rec::RecordBody, s: &rec::SchemaNode) -> Value {
    if let Some(v) = s.constant.or_else(|| s.enum_values.first().copied()) {
        return to_json(body, v, 0);
    }
    use rec::TypeSet as T;
    let types = if s.types == 0 { T::STRING } else { s.types };
    if types & T::STRING != 0 {
        json!("w")
    } else if types & (T::INTEGER | T::NUMBER) != 0 {
        json!(s.minimum.map_or(1.0, |m| m.max(1.0)))
    } else if types & T::BOOLEAN != 0 {
        json!(true)
    } else if types & T::ARRAY != 0 {
        json!([])
    } else if types & T::OBJECT != 0 {
        json!({})
    } else {
        Value::Null
    }
}

fn to_json(body: &rec::RecordBody, v: rec::ValueIdx, depth: u32) -> Value {
    let Some(value) = body.values.get(v as usize).filter(|_| depth < 32) else {
        return Value::Null;
    };
    match value {
        rec::Value::Null => Value::Null,
        rec::Value::Bool(b) => json!(b),
        rec::Value::Number(n) => json!(n),
        rec::Value::String(s) => json!(s),
        rec::Value::Array(items) => items.iter().map(|i| to_json(body, *i, depth + 1)).collect(),
        rec::Value::Object(members) => Value::Object(
            members
                .iter()
                .map(|(k, i)| (k.clone(), to_json(body, *i, depth + 1)))
                .collect(),
        ),
    }
}

/// The context a call gives: host counts of zero for its limits and spend, and every fact the
/// condition of its first allowing rulebook path reads, as true.
fn context(body: &rec::RecordBody, t: &rec::Tool) -> Map<String, Value> {
    let mut context = Map::new();
    let period = |p: rec::Period| match p {
        rec::Period::Hour => "hour",
        rec::Period::Day => "day",
        rec::Period::Week => "week",
        rec::Period::Month => "month",
    };
    if let Some(rec::AtMost { per: Some(p), .. }) = &t.at_most {
        context.insert("usage".into(), json!({ t.name.clone(): { period(*p): 0 } }));
    }
    if let Some(spend) = &t.spend {
        context.insert(
            "spent".into(),
            json!({ t.name.clone(): { period(spend.per): 0 } }),
        );
    }
    if let Some(condition) = allowing_path(t).and_then(|p| p.condition) {
        let mut facts = Vec::new();
        facts_of(body, condition, &mut facts, 0);
        for fact in facts {
            context.insert(fact, json!(true));
        }
    }
    context
}

/// The facts an expression reads outside a negation.
fn facts_of(body: &rec::RecordBody, e: rec::ExprIdx, out: &mut Vec<String>, depth: u32) {
    let Some(expr) = body.exprs.get(e as usize).filter(|_| depth < 64) else {
        return;
    };
    match expr {
        rec::Expr::Fact(name) if !out.contains(name) => out.push(name.clone()),
        rec::Expr::And(a, b) | rec::Expr::Or(a, b) => {
            facts_of(body, *a, out, depth + 1);
            facts_of(body, *b, out, depth + 1);
        }
        _ => {}
    }
}

/// The scenario as YAML: the top-level keys and each step's keys in block form, every value in
/// flow form (JSON, which YAML reads as it is).
pub fn to_yaml(scenario: &Value) -> String {
    let mut out = String::new();
    if let Some(w) = scenario.get("witness") {
        let rule = w.get("rule").and_then(Value::as_str).unwrap_or_default();
        let subject = w.get("subject").and_then(Value::as_str).unwrap_or_default();
        out.push_str(&format!(
            "# The witness of {rule} on {subject}, replayed through the tool check.\n"
        ));
    }
    let Some(top) = scenario.as_object() else {
        return out;
    };
    for (key, value) in top {
        if key == "steps" {
            out.push_str("steps:\n");
            for step in value.as_array().into_iter().flatten() {
                let mut first = true;
                for (k, v) in step.as_object().into_iter().flatten() {
                    out.push_str(if first { "  - " } else { "    " });
                    out.push_str(&format!("{k}: {}\n", flow(v)));
                    first = false;
                }
            }
        } else {
            out.push_str(&format!("{key}: {}\n", flow(value)));
        }
    }
    out
}

/// A value in YAML's flow form: JSON with a space after each `:` and `,`.
fn flow(v: &Value) -> String {
    match v {
        Value::Array(items) => {
            let items: Vec<String> = items.iter().map(flow).collect();
            format!("[{}]", items.join(", "))
        }
        Value::Object(members) => {
            let members: Vec<String> = members
                .iter()
                .map(|(k, v)| format!("{}: {}", flow_key(k), flow(v)))
                .collect();
            format!("{{{}}}", members.join(", "))
        }
        other => other.to_string(),
    }
}

/// A key written plain when YAML reads it back as the same string, quoted otherwise.
fn flow_key(k: &str) -> String {
    let plain = k
        .chars()
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && k.chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-');
    if plain {
        k.to_string()
    } else {
        Value::String(k.to_string()).to_string()
    }
}
