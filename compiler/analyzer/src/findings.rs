//! Findings: what each rule raises, from the engines' answers to the path obligations and from
//! the structure of the graph, the catalogue and the rulebook's gates. Also the list of rules
//! that had nothing to read.

use std::collections::{BTreeMap, HashMap, HashSet};

use serde::Serialize;
use stalwart_graph::{AgentGraph, Place};
use stalwart_record as rec;

use crate::catalogue::{Catalogue, ToolFacts};
use crate::rules::rule_by_id;
use crate::system::{Answer, Obligation};

/// One step of a witness path: the node reached and the place of the edge that reaches it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, serde::Deserialize)]
pub struct WitnessStep {
    pub from: String,
    pub to: String,
    pub place: Place,
}

/// One finding.
#[derive(Debug, Clone, PartialEq, Serialize, serde::Deserialize)]
pub struct Finding {
    pub rule: String,
    /// What the finding is on: a tool, a step, `cycle:<node>`, a channel.
    pub subject: String,
    pub place: Place,
    pub message: String,
    /// Empty for findings of structure alone.
    pub witness: Vec<WitnessStep>,
}

/// What the findings are made from.
#[derive(Debug, Clone, Copy)]
pub struct Inputs<'a> {
    pub graph: &'a AgentGraph,
    pub catalogue: &'a Catalogue,
    pub body: &'a rec::RecordBody,
    /// Errors lowering the rulebook raised (QG005), with the place of each.
    pub rulebook_errors: &'a [(String, Place)],
    pub has_rulebook: bool,
    /// The rulebook's checks and flows, and the advisories given (QG007–QG009, QG022).
    pub rulebook: &'a crate::rulebook::RulebookInput,
}

/// Maps a witness (edge indices) to its steps.
pub fn witness_steps(graph: &AgentGraph, edges: &[usize]) -> Vec<WitnessStep> {
    edges
        .iter()
        .filter_map(|&i| graph.edges.get(i))
        .map(|e| WitnessStep {
            from: e.from.clone(),
            to: e.to.clone(),
            place: e.place.clone(),
        })
        .collect()
}

fn tool_place(graph: &AgentGraph, tool: &str) -> Place {
    graph
        .node(&format!("tool:{tool}"))
        .and_then(|n| n.place.clone())
        .unwrap_or_else(|| Place {
            file: graph.file.clone(),
            line: 1,
            start: 0,
            end: 0,
        })
}

fn step_place(graph: &AgentGraph, step: &str) -> Place {
    graph
        .steps
        .iter()
        .find(|s| s.name == step)
        .map(|s| s.place.clone())
        .unwrap_or_else(|| tool_place(graph, step))
}

/// Findings from the answers to the path obligations.
pub fn from_answers(inputs: &Inputs<'_>, answers: &BTreeMap<Obligation, Answer>) -> Vec<Finding> {
    let g = inputs.graph;
    let mut out = Vec::new();
    for (o, answer) in answers {
        let Answer::Reachable(edges) = answer else {
            continue;
        };
        let witness = witness_steps(g, edges);
        let s = o.subject.as_str();
        let (place, message) = match o.rule {
            "QG001" => (
                tool_place(g, s),
                format!(
                    "a route reaches '{s}' without the tool check: a custom step calls it itself"
                ),
            ),
            "QG002" => (
                step_place(g, s),
                format!(
                    "the step '{s}' stands between the guard and the tools: it can change a call after the check decided it"
                ),
            ),
            "QG003" => (
                tool_place(g, s),
                format!(
                    "the order rule of '{s}' is escaped by a hand-off: the calls it must not follow ran in another agent's session, which its check does not read"
                ),
            ),
            "QG011" => {
                let agent = g
                    .steps
                    .iter()
                    .find(|st| st.name == s)
                    .map(|st| st.agent.clone())
                    .unwrap_or_default();
                (
                    step_place(g, s),
                    format!(
                        "the step '{s}' acts as '{agent}' on a route from an agent of lower privilege, without a hand-off's mark"
                    ),
                )
            }
            "QG012" => (
                tool_place(g, s),
                format!(
                    "the write '{s}' can run without the tool check after a tool read from outside, so what was read can choose it"
                ),
            ),
            "QG013" => (
                tool_place(g, s),
                format!(
                    "the irreversible write '{s}' can run before a write that has an undo: a failure after it leaves a run that cannot be undone"
                ),
            ),
            "QG014" => (
                tool_place(g, s),
                format!(
                    "the order rule of '{s}' is escapable: a route calls it without the tool check that enforces the rule"
                ),
            ),
            "QG016" => {
                let tool = g
                    .steps
                    .iter()
                    .find(|st| st.name == s)
                    .and_then(|st| st.routes.iter().find(|r| r.starts_with("tool:")).cloned())
                    .unwrap_or_default();
                (
                    step_place(g, s),
                    format!(
                        "the step '{s}' routes straight to '{tool}': a path the tool check does not model"
                    ),
                )
            }
            "QG017" | "QG018" => {
                let code = o.rule == "QG017";
                let t = inputs.catalogue.tool(s);
                let (arg, kind) = t
                    .and_then(|t| {
                        t.argument_kinds
                            .iter()
                            .find(|(_, k)| crate::system::is_code(*k) == code)
                    })
                    .map(|(a, k)| (a.clone(), kind_name(*k)))
                    .unwrap_or_default();
                let tail = if code { ", and it runs" } else { "" };
                (
                    tool_place(g, s),
                    format!(
                        "the model writes the argument '{arg}' of '{s}', declared as {kind}{tail}"
                    ),
                )
            }
            "QG019" => (
                tool_place(g, s),
                format!("'{s}' sends out on a path after a confidential tool's result was read"),
            ),
            "QG020" => {
                let store = inputs
                    .catalogue
                    .tool(s)
                    .and_then(|t| t.retrieves_from.clone())
                    .unwrap_or_default();
                (
                    tool_place(g, s),
                    format!(
                        "'{s}' retrieves from the store '{store}', which is multi-tenant and bound to no user"
                    ),
                )
            }
            "QG021" => {
                let store = inputs
                    .catalogue
                    .tool(s)
                    .and_then(|t| t.writes_to.clone())
                    .unwrap_or_default();
                (
                    tool_place(g, s),
                    format!(
                        "'{s}' writes the persistent store '{store}' on a path after a tool read from outside"
                    ),
                )
            }
            "QG105" => (
                tool_place(g, s),
                format!(
                    "the write '{s}' has no compensation, is not irreversible, and runs on a path with another write"
                ),
            ),
            "reach_model" => {
                let Some(finding) = unbounded_loop(g, s, witness) else {
                    continue;
                };
                out.push(finding);
                continue;
            }
            _ => continue,
        };
        out.push(Finding {
            rule: o.rule.to_string(),
            subject: o.subject.clone(),
            place,
            message,
            witness,
        });
    }
    out
}

fn kind_name(k: rec::ArgumentKind) -> &'static str {
    match k {
        rec::ArgumentKind::Code => "code",
        rec::ArgumentKind::Shell => "a shell command",
        rec::ArgumentKind::Sql => "SQL",
        rec::ArgumentKind::Query => "a query",
        rec::ArgumentKind::Path => "a path",
        rec::ArgumentKind::Url => "a URL",
        rec::ArgumentKind::Template => "a template",
        rec::ArgumentKind::Destination => "a destination",
    }
}

/// QG023: the model of a reached agent sits on a cycle and nothing declares a budget.
fn unbounded_loop(g: &AgentGraph, agent: &str, mut witness: Vec<WitnessStep>) -> Option<Finding> {
    let info = g.agent(agent)?;
    if g.budget.is_some() || info.budget.is_some() || info.exit_after.is_some() {
        return None;
    }
    let model = format!("{agent}_model");
    let cycle = cycle_through(g, &model)?;
    witness.extend(cycle);
    Some(Finding {
        rule: "QG023".to_string(),
        subject: format!("cycle:{model}"),
        place: info.place.clone(),
        message: format!(
            "the cycle through '{model}' calls the model or a tool, and nothing declares a budget: the framework's recursion limit of 60 is the run's only ceiling"
        ),
        witness,
    })
}

/// A shortest cycle from a node back to itself, as steps (breadth-first over the routes).
fn cycle_through(g: &AgentGraph, node: &str) -> Option<Vec<WitnessStep>> {
    use std::collections::VecDeque;
    let mut prev: BTreeMap<&str, usize> = BTreeMap::new();
    let mut queue = VecDeque::new();
    queue.push_back(node);
    while let Some(at) = queue.pop_front() {
        for (i, e) in g.edges.iter().enumerate().filter(|(_, e)| e.from == at) {
            if matches!(
                e.kind,
                stalwart_graph::EdgeKind::NextTurn | stalwart_graph::EdgeKind::Undo
            ) {
                continue;
            }
            if e.to == node {
                let mut path = vec![i];
                let mut cur = at;
                while cur != node {
                    let Some(&pi) = prev.get(cur) else { break };
                    path.push(pi);
                    cur = g.edges.get(pi).map(|p| p.from.as_str()).unwrap_or(node);
                }
                path.reverse();
                return Some(witness_steps(g, &path));
            }
            if e.to != node && !prev.contains_key(e.to.as_str()) {
                prev.insert(e.to.as_str(), i);
                queue.push_back(e.to.as_str());
            }
        }
    }
    None
}

/// QG312: the engines disagree on an obligation, on the obligation's subject.
pub fn disagreement(inputs: &Inputs<'_>, o: &Obligation, message: String) -> Finding {
    let g = inputs.graph;
    let place = match g.agent(&o.subject) {
        Some(a) if o.rule == "reach_model" => a.place.clone(),
        _ => step_place(g, &o.subject),
    };
    Finding {
        rule: "QG312".to_string(),
        subject: o.subject.clone(),
        place,
        message,
        witness: Vec::new(),
    }
}

/// Findings of structure: rules that read declarations, not routes.
pub fn from_structure(inputs: &Inputs<'_>) -> Vec<Finding> {
    let g = inputs.graph;
    let cat = inputs.catalogue;
    let mut out = Vec::new();
    let mut push = |rule: &'static str, subject: &str, place: Place, message: String| {
        out.push(Finding {
            rule: rule.to_string(),
            subject: subject.to_string(),
            place,
            message,
            witness: Vec::new(),
        });
    };
    for t in &cat.tools {
        if t.gate.default != Some(rec::GateDefault::Allow) || !t.write {
            continue;
        }
        // The default lets a call through only when some call is decided by no row; an engine
        // that cannot tell leaves the finding standing.
        let verdicts = crate::gate::default_verdicts(inputs.body, &t.gate);
        let mut decided = verdicts.iter().filter_map(|(_, v)| *v);
        let first = decided.next();
        if decided.any(|v| Some(v) != first) {
            let said: Vec<String> = verdicts
                .iter()
                .map(|(e, v)| {
                    let v = match v {
                        Some(true) => "a call reaches it",
                        Some(false) => "the rows decide every call",
                        None => "undecided",
                    };
                    format!("{e} says {v}")
                })
                .collect();
            push(
                "QG312",
                &t.name,
                tool_place(g, &t.name),
                format!(
                    "the engines disagree on the default of the rule sheet for '{}': {}",
                    t.name,
                    said.join(", ")
                ),
            );
        }
        if first == Some(false) {
            continue;
        }
        push(
            "QG004",
            &t.name,
            tool_place(g, &t.name),
            format!(
                "the rule sheet allows the write '{}' by default: a call no row decides passes the gate",
                t.name
            ),
        );
    }
    for (message, place) in inputs.rulebook_errors {
        push("QG005", "rulebook", place.clone(), message.clone());
    }
    for s in &g.steps {
        if s.routes.is_empty() {
            push(
                "QG006",
                &s.name,
                s.place.clone(),
                format!(
                    "the step '{}' declares no routes: the proof cannot follow what it does",
                    s.name
                ),
            );
        }
        for (name, place) in &s.unknown {
            push(
                "QG015",
                &s.name,
                place.clone(),
                format!(
                    "the step '{}' names '{name}', which is no node of the graph",
                    s.name
                ),
            );
        }
    }
    for t in cat.tools.iter() {
        let verdicts = crate::gate::path_verdicts(inputs.body, &t.gate);
        for (i, path) in t.gate.paths.iter().enumerate() {
            let of_path: Vec<(&str, Option<crate::gate::PathVerdict>)> = verdicts
                .iter()
                .map(|(engine, v)| (*engine, v.get(i).copied().flatten()))
                .collect();
            let file = inputs
                .body
                .sources
                .get(path.span.source as usize)
                .map(|s| s.path.clone())
                .unwrap_or_default();
            let place = Place {
                file,
                line: path.span.line,
                start: path.span.start,
                end: path.span.end,
            };
            let mut decided = of_path.iter().filter_map(|(_, v)| *v);
            let first = decided.next();
            if decided.any(|v| Some(v) != first) {
                let said: Vec<String> = of_path
                    .iter()
                    .map(|(e, v)| format!("{e} says {}", v.map_or("undecided", |v| v.describe())))
                    .collect();
                push(
                    "QG312",
                    &t.name,
                    place.clone(),
                    format!(
                        "the engines disagree on the path of flow '{}' to '{}': {}",
                        path.flow,
                        t.name,
                        said.join(", ")
                    ),
                );
            }
            let why = match first {
                Some(crate::gate::PathVerdict::Never) => "its condition never holds",
                Some(crate::gate::PathVerdict::Shadowed) => {
                    "the paths before it with the same intent take every call it would"
                }
                _ => continue,
            };
            push(
                "QG010",
                &t.name,
                place,
                format!(
                    "the path of flow '{}' to '{}' can never be taken: {why}",
                    path.flow, t.name
                ),
            );
        }
    }
    let listed_tools: HashSet<&str> = g
        .agents
        .iter()
        .flat_map(|a| a.tools.iter().map(String::as_str))
        .collect();
    let listed = |tool: &str| listed_tools.contains(tool);
    // Per argument name, the writes that check it, in catalogue order (QG104's peers).
    let mut checkers: HashMap<&str, Vec<&ToolFacts>> = HashMap::new();
    for p in cat.tools.iter().filter(|p| p.write) {
        for arg in &p.checked_arguments {
            checkers.entry(arg.as_str()).or_default().push(p);
        }
    }
    for t in cat.tools.iter().filter(|t| t.write && listed(&t.name)) {
        if !t.gate.governed && !t.has_order_rule() && !t.has_limits {
            push(
                "QG101",
                &t.name,
                tool_place(g, &t.name),
                format!(
                    "the write '{}' has no rule of its own: no rulebook flow, order rule, limit or check decides it, only a person's confirmation",
                    t.name
                ),
            );
        }
        for arg in &t.argument_names {
            if t.checked_arguments.contains(arg) {
                continue;
            }
            if let Some(peer) = checkers
                .get(arg.as_str())
                .and_then(|peers| peers.iter().find(|p| p.name != t.name))
            {
                push(
                    "QG104",
                    &t.name,
                    tool_place(g, &t.name),
                    format!(
                        "the write '{}' takes '{arg}' with no check, where its peer '{}' checks the same argument",
                        t.name, peer.name
                    ),
                );
            }
        }
    }
    for t in cat.tools.iter().filter(|t| listed(&t.name)) {
        if let Some(source) = &t.source
            && source.pin.is_none()
        {
            let kind = match source.kind {
                rec::ToolSourceKind::Mcp => "the MCP server",
                rec::ToolSourceKind::Package => "the package",
            };
            push(
                "QG106",
                &t.name,
                tool_place(g, &t.name),
                format!(
                    "'{}' comes from {kind} '{}' with no pin: what runs can change under the same name",
                    t.name, source.name
                ),
            );
        }
    }
    for c in &g.channels {
        if c.auth == "none" {
            push(
                "QG107",
                &c.name,
                c.place.clone(),
                format!(
                    "the channel '{}' hands conversations to '{}' from {} with no authentication",
                    c.name, c.hands_to, c.remote
                ),
            );
        }
    }
    out.extend(crate::rulebook::findings(inputs));
    out
}

/// The rules with nothing to read, with why: `(rule, explanation)` in rule order.
pub fn nothing_to_read(inputs: &Inputs<'_>) -> Vec<(&'static str, &'static str)> {
    let cat = inputs.catalogue;
    let g = inputs.graph;
    let mut out = Vec::new();
    if !inputs.has_rulebook {
        for id in [
            "QG004", "QG005", "QG007", "QG008", "QG009", "QG010", "QG022",
        ] {
            out.push((id, "agent.yaml names no rulebook"));
        }
    } else if inputs.rulebook.sheet {
        out.extend(crate::rulebook::nothing_to_read_in_a_sheet());
    }
    if !cat.tools.iter().any(|t| t.has_order_rule()) {
        out.push(("QG003", "no tool declares an order rule"));
        out.push(("QG014", "no tool declares an order rule"));
    }
    if !cat.tools.iter().any(|t| t.reads_outside) {
        out.push(("QG012", "no tool is declared to read from outside"));
    }
    if !cat.tools.iter().any(|t| t.irreversible) {
        out.push(("QG013", "no write is declared irreversible"));
    }
    if !cat.tools.iter().any(|t| {
        t.argument_kinds
            .iter()
            .any(|(_, k)| crate::system::is_code(*k))
    }) {
        out.push((
            "QG017",
            "no argument is declared as code or a shell command",
        ));
    }
    if !cat.tools.iter().any(|t| {
        t.argument_kinds
            .iter()
            .any(|(_, k)| !crate::system::is_code(*k))
    }) {
        // The catalogue leaves out an argument that takes only declared values.
        let declared = inputs.body.tools.iter().any(|t| {
            t.argument_kinds
                .iter()
                .any(|(_, k)| !crate::system::is_code(*k))
        });
        out.push((
            "QG018",
            if declared {
                "every argument declared as SQL, a query, a path, a URL or a template takes only declared values (`one_of`, `equals`, `enum`)"
            } else {
                "no argument is declared as SQL, a query, a path, a URL or a template"
            },
        ));
    }
    if !cat.tools.iter().any(|t| t.confidential) {
        out.push(("QG019", "no tool is declared confidential"));
    }
    if !cat.tools.iter().any(|t| {
        t.retrieves_from
            .as_ref()
            .is_some_and(|s| g.stores.iter().any(|st| &st.name == s && st.multi_tenant))
    }) {
        out.push(("QG020", "no retrieval from a store declared multi-tenant"));
    }
    if !cat.tools.iter().any(|t| {
        t.writes_to
            .as_ref()
            .is_some_and(|s| g.stores.iter().any(|st| &st.name == s && st.persistent))
    }) {
        out.push((
            "QG021",
            "no tool is declared to write a store declared persistent",
        ));
    }
    if !g.agents.iter().any(|a| a.model.is_some()) {
        out.push(("QG023", "no agent names a model"));
    }
    if !cat.tools.iter().any(|t| t.write) {
        for id in ["QG101", "QG104", "QG105"] {
            out.push((id, "no tool writes"));
        }
    }
    if !cat.tools.iter().any(|t| t.source.is_some()) {
        out.push((
            "QG106",
            "no tool declares a source or a server, and the catalogue declares no modules",
        ));
    }
    if g.channels.is_empty() {
        out.push((
            "QG107",
            "no agent in the catalogue declares a remote channel",
        ));
    }
    out.sort_by_key(|(id, _)| *id);
    out
}

/// Sorts findings by rule, then place, then subject.
pub fn sort(findings: &mut [Finding]) {
    findings.sort_by(|a, b| (&a.rule, &a.place, &a.subject).cmp(&(&b.rule, &b.place, &b.subject)));
}

/// Whether a finding's rule fails the gate.
pub fn fails_gate(f: &Finding) -> bool {
    rule_by_id(&f.rule).is_some_and(|r| r.fails_gate)
}
