//! The paths through a rulebook's flows to each tool (DESIGN §5.7), shared by the dialects.
//!
//! Every path through a flow is enumerated (each `if`/`else` branch, `when user …` branch and
//! flow run in place), with the conjunction of the conditions that lead to it, the intent the
//! flow waits for and the variables it set. For each tool a flow reaches (`execute <tool>`,
//! `bot execute_<tool>`, an action), a path that reaches the call passes the gate; a path of the
//! same flow that reaches `bot ask …` asks (`gate_clarify`); a path that reaches another
//! `bot <message>` refuses with that message as the reason. Rules keep file order: the first
//! that holds decides.
//!
//! A construct the gate cannot lower on a path that matters (a loop around a tool call, a
//! `when` on something other than the person's intent, two intents on one path) is the error
//! `rulebook_unsupported`, naming its line: an agent never runs under a rulebook that was not
//! compiled whole.

use std::collections::BTreeMap;

use stalwart_diagnostics::{Code, Diagnostic, Span};

use super::cond::{Binding, Cond, SUPPORTED};

/// A construct on a path of a flow that governs a tool, which the gate cannot lower.
pub const RULEBOOK_UNSUPPORTED: Code = Code {
    id: "E0451",
    slug: "rulebook-unsupported",
};

/// A condition on a path of a flow that governs a tool reads something the check never has.
pub const POSSIBLY_TAKEN: Code = Code {
    id: "W1609",
    slug: "condition-possibly-taken",
};

/// One path to a decision about a tool.
#[derive(Debug, Clone, PartialEq)]
pub struct GateRule {
    pub tool: String,
    pub flow: String,
    pub intent: Option<String>,
    /// The conditions that must all hold, each possibly negated (the `else` side of an `if`).
    pub conditions: Vec<(Cond, bool)>,
    pub action: Action,
    /// Where the deciding action is written.
    pub span: Span,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Action {
    Allow,
    Refuse(String),
    Ask(String),
}

/// The sheet's default decision.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Default {
    Allow,
    Refuse,
}

/// The gate of a whole rulebook: rules in file order, the flows that govern each tool, and the
/// sheet's default.
#[derive(Debug, Clone, PartialEq, std::default::Default)]
pub struct Gates {
    pub rules: Vec<GateRule>,
    pub governing: BTreeMap<String, Vec<String>>,
    pub default: Option<Default>,
    pub diagnostics: Vec<Diagnostic>,
    /// Flows that call no tool, each path that waits for an intent and says a message: for the
    /// selector (a turn read as that intent is declined with the message, or asked it).
    pub said: Vec<Said>,
}

/// A path of a flow that calls no tool: the intent it waits for and the message it says.
#[derive(Debug, Clone, PartialEq)]
pub struct Said {
    pub flow: String,
    pub intent: String,
    pub message: String,
    /// The path holds only under conditions.
    pub conditional: bool,
}

/// The state of one path while a flow is walked.
#[derive(Debug, Clone, std::default::Default)]
pub struct Path {
    pub intent: Option<String>,
    pub conditions: Vec<(Cond, bool)>,
    /// Tools the path calls, with where.
    pub calls: Vec<(String, Span)>,
    /// `bot` messages the path says, with where.
    pub says: Vec<(String, Span)>,
    /// Constructs met on the path that the gate cannot read, with why.
    pub unsupported: Vec<(Span, String)>,
    /// The variables the path set, and from what.
    pub bindings: BTreeMap<String, Binding>,
    pub stopped: bool,
}

/// The flows a walk may run in place, by name: a table built once (the whole rulebook's
/// model), or one that reads each file only when a walk asks for one of its flows (a file's own
/// gate, so that it depends on no other file it does not run).
pub trait FlowTable<T> {
    fn flow(&self, name: &str) -> Option<T>;
}

impl<T: Copy> FlowTable<T> for BTreeMap<&str, T> {
    fn flow(&self, name: &str) -> Option<T> {
        self.get(name).copied()
    }
}

/// How deep flows may run each other in place.
pub const MAX_DEPTH: usize = 32;

/// The paths still running.
pub fn live(paths: &mut [Path]) -> impl Iterator<Item = &mut Path> {
    paths.iter_mut().filter(|p| !p.stopped)
}

/// Turns a flow's paths into gate rules for every tool the flow calls.
pub fn add_flow(gates: &mut Gates, flow: &str, paths: Vec<Path>) {
    let mut tools: Vec<String> = Vec::new();
    for p in &paths {
        for (t, _) in &p.calls {
            if !tools.contains(t) {
                tools.push(t.clone());
            }
        }
    }
    if tools.is_empty() {
        for p in &paths {
            if let (Some(intent), Some((message, _))) = (&p.intent, p.says.first()) {
                gates.said.push(Said {
                    flow: flow.to_string(),
                    intent: intent.clone(),
                    message: message.clone(),
                    conditional: !p.conditions.is_empty() || !p.unsupported.is_empty(),
                });
            }
        }
        return;
    }
    for tool in &tools {
        let flows = gates.governing.entry(tool.clone()).or_default();
        if !flows.iter().any(|f| f == flow) {
            flows.push(flow.to_string());
        }
    }
    let mut rules = Vec::new();
    let mut reported: Vec<Span> = Vec::new();
    for p in &paths {
        for (span, why) in &p.unsupported {
            if !reported.contains(span) {
                reported.push(*span);
                gates.diagnostics.push(
                    Diagnostic::error(
                        RULEBOOK_UNSUPPORTED,
                        *span,
                        format!("the gate cannot lower this: {why}"),
                    )
                    .with_label("on a path of a flow that governs a tool")
                    .with_note("an agent never runs under a rulebook that was not compiled whole"),
                );
            }
        }
        for (cond, _) in &p.conditions {
            if let Some((why, span)) = cond.unknown()
                && !reported.contains(&span)
            {
                reported.push(span);
                gates.diagnostics.push(
                    Diagnostic::warning(
                        POSSIBLY_TAKEN,
                        span,
                        format!("the check cannot evaluate this: {why}"),
                    )
                    .with_label("read as possibly true and possibly false")
                    .with_note(
                        "the path is treated as possibly taken, never as a proof of safety: a \
                         refusal or a question on it always applies, and a tool call on it never \
                         passes the gate",
                    )
                    .with_help(SUPPORTED),
                );
            }
        }
        for tool in &tools {
            let action = if let Some((_, span)) = p.calls.iter().find(|(t, _)| t == tool) {
                Some((Action::Allow, *span))
            } else {
                p.says.first().map(|(m, span)| {
                    if m.starts_with("ask ") || m == "ask" {
                        (Action::Ask(m.clone()), *span)
                    } else {
                        (Action::Refuse(m.clone()), *span)
                    }
                })
            };
            if let Some((action, span)) = action {
                rules.push(GateRule {
                    tool: tool.clone(),
                    flow: flow.to_string(),
                    intent: p.intent.clone(),
                    conditions: p.conditions.clone(),
                    action,
                    span,
                });
            }
        }
    }
    rules.sort_by_key(|r| (r.span.file.0, r.span.start));
    gates.rules.extend(rules);
}

/// Forks every live path once per intent (`user a or user b`).
pub fn fork_intents(paths: &mut Vec<Path>, intents: &[String], span: Span) {
    let mut out = Vec::new();
    for p in paths.drain(..) {
        if p.stopped || intents.is_empty() {
            out.push(p);
            continue;
        }
        for intent in intents {
            let mut q = p.clone();
            match &q.intent {
                None => q.intent = Some(intent.clone()),
                Some(existing) if existing == intent => {}
                Some(_) => q
                    .unsupported
                    .push((span, "a path that waits for two different intents".into())),
            }
            out.push(q);
        }
    }
    *paths = out;
}

/// Paths that stopped before a branch appear once per branch: keeps one of each.
pub fn dedup_stopped(paths: Vec<Path>) -> Vec<Path> {
    let mut out: Vec<Path> = Vec::with_capacity(paths.len());
    for p in paths {
        if p.stopped && out.iter().any(|q| q.stopped && same(q, &p)) {
            continue;
        }
        out.push(p);
    }
    out
}

fn same(a: &Path, b: &Path) -> bool {
    a.intent == b.intent && a.conditions == b.conditions && a.calls == b.calls && a.says == b.says
}

/// A loop whose body (walked into `inner`) calls a tool: the gate cannot lower it. The paths
/// still call what the loop calls, so the flow governs those tools and the error is reported
/// rather than the calls dropped.
pub fn loop_calls(paths: &mut [Path], inner: &[Path], span: Span) {
    let calls: Vec<(String, Span)> = inner.iter().flat_map(|p| p.calls.clone()).collect();
    if calls.is_empty() {
        return;
    }
    mark_unsupported(paths, span, "a tool is called inside `while`");
    for p in live(paths) {
        p.calls.extend(calls.iter().cloned());
    }
}

pub fn mark_unsupported(paths: &mut [Path], span: Span, why: &str) {
    for p in live(paths) {
        p.unsupported.push((span, why.to_string()));
    }
}
