//! The rulebook lowered to the per-tool gate (DESIGN §5.7).
//!
//! Every path through a flow is enumerated (each `if`/`else` branch, `when user …` branches,
//! subflows inlined) with the conjunction of the conditions that lead to it and the intent the
//! flow waits for. For each tool a flow governs (it calls it by `execute <tool>` or
//! `bot execute_<tool>`), a path that reaches the call passes the gate; a path of the same flow
//! that reaches `bot ask …` asks (`gate_clarify`); a path that reaches another `bot <message>`
//! refuses with that message as the reason. Paths keep file order: the first that holds decides.
//!
//! A construct the gate cannot lower on a path that matters (a condition outside the shared
//! condition language, a loop around a tool call, a `when` on something other than the person's
//! intent) is the error `rulebook_unsupported`, naming its line: an agent never runs under a
//! rulebook that was not compiled whole.

use std::collections::BTreeMap;

use stalwart_diagnostics::{Diagnostic, Span};
use stalwart_record as rec;
use stalwart_syntax::expr::{CmpOp, Expr, ExprKind, Literal, LogicOp};
use stalwart_syntax::v1::ast as v1;

use crate::codes;
use crate::value::push_json;

/// One lowered path, before it is attached to its tool.
#[derive(Debug, Clone, PartialEq)]
pub struct GateRule {
    pub tool: String,
    pub flow: String,
    pub intent: Option<String>,
    /// The conditions that must all hold.
    pub conditions: Vec<Cond>,
    pub action: Action,
    /// Where the deciding action is written.
    pub span: Span,
}

/// A condition on a path, possibly negated (the `else` side of an `if`).
#[derive(Debug, Clone, PartialEq)]
pub struct Cond {
    pub expr: Expr,
    pub negated: bool,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Action {
    Allow,
    Refuse(String),
    Ask(String),
}

/// The gate of a whole rulebook: rules in file order, the flows that govern each tool, and the
/// sheet's default.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Gates {
    pub rules: Vec<GateRule>,
    pub governing: BTreeMap<String, Vec<String>>,
    pub default: Option<rec::GateDefault>,
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
#[derive(Debug, Clone, Default)]
pub(crate) struct Path {
    pub(crate) intent: Option<String>,
    pub(crate) conditions: Vec<Cond>,
    /// Tools the path calls, with where.
    pub(crate) calls: Vec<(String, Span)>,
    /// `bot` messages the path says, with where.
    pub(crate) says: Vec<(String, Span)>,
    /// Constructs met on the path that the gate cannot read, with why.
    pub(crate) unsupported: Vec<(Span, String)>,
    pub(crate) stopped: bool,
}

/// Lowers a Colang 1.0 module.
pub fn lower_v1(module: &v1::Module) -> Gates {
    let subflows: BTreeMap<&str, &v1::FlowDef> = module
        .items
        .iter()
        .filter_map(|i| match i {
            v1::Item::Flow(f) => Some((f.id.as_str(), f)),
            _ => None,
        })
        .collect();
    let mut gates = Gates::default();
    for item in &module.items {
        let v1::Item::Flow(flow) = item else { continue };
        if flow.subflow {
            continue;
        }
        let mut paths = vec![Path::default()];
        walk(&flow.body, &mut paths, &subflows, 0);
        add_flow(&mut gates, &flow.id, paths);
    }
    gates
}

/// Turns a flow's paths into gate rules for every tool the flow calls.
pub(crate) fn add_flow(gates: &mut Gates, flow: &str, paths: Vec<Path>) {
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
                        codes::RULEBOOK_UNSUPPORTED,
                        *span,
                        format!("the gate cannot lower this: {why}"),
                    )
                    .with_label("on a path of a flow that governs a tool")
                    .with_note("an agent never runs under a rulebook that was not compiled whole"),
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
    rules.sort_by_key(|r| r.span.start);
    gates.rules.extend(rules);
}

pub(crate) const MAX_DEPTH: usize = 32;

/// Walks statements, forking paths at branches.
fn walk(
    stmts: &[v1::Stmt],
    paths: &mut Vec<Path>,
    subflows: &BTreeMap<&str, &v1::FlowDef>,
    depth: usize,
) {
    for stmt in stmts {
        if paths.iter().all(|p| p.stopped) {
            return;
        }
        step(stmt, paths, subflows, depth);
    }
}

pub(crate) fn live(paths: &mut [Path]) -> impl Iterator<Item = &mut Path> {
    paths.iter_mut().filter(|p| !p.stopped)
}

fn step(
    stmt: &v1::Stmt,
    paths: &mut Vec<Path>,
    subflows: &BTreeMap<&str, &v1::FlowDef>,
    depth: usize,
) {
    match &stmt.kind {
        v1::StmtKind::User(refs) => {
            let intents: Vec<String> = refs.iter().map(|r| r.intent.text.to_string()).collect();
            fork_intents(paths, &intents, stmt.span);
        }
        v1::StmtKind::Bot(bot) => {
            for p in live(paths) {
                match bot.tool() {
                    Some(tool) => p.calls.push((tool.to_string(), stmt.span)),
                    None => p.says.push((bot.message.text.to_string(), stmt.span)),
                }
            }
        }
        v1::StmtKind::Run(run) => {
            for p in live(paths) {
                p.calls.push((run.action.text.to_string(), stmt.span));
            }
        }
        v1::StmtKind::Stop | v1::StmtKind::Return(_) => {
            for p in live(paths) {
                p.stopped = true;
            }
        }
        v1::StmtKind::If(branch) => walk_if(branch, paths, subflows, depth),
        v1::StmtKind::When(when) => walk_when(when, stmt.span, paths, subflows, depth),
        v1::StmtKind::Do(name) => match subflows.get(name.text.as_str()) {
            Some(sub) if depth < MAX_DEPTH => walk(&sub.body, paths, subflows, depth + 1),
            Some(_) => mark_unsupported(paths, stmt.span, "subflows call each other too deeply"),
            None => {}
        },
        v1::StmtKind::While(w) => {
            let mut inner = vec![Path::default()];
            walk(&w.body, &mut inner, subflows, depth + 1);
            loop_calls(paths, &inner, stmt.span);
        }
        v1::StmtKind::Any(alternatives) => {
            let mut out = Vec::new();
            for alt in alternatives {
                let mut forked = paths.clone();
                step(alt, &mut forked, subflows, depth + 1);
                out.extend(forked);
            }
            *paths = out;
        }
        _ => {}
    }
}

pub(crate) fn fork_intents(paths: &mut Vec<Path>, intents: &[String], span: Span) {
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

fn walk_if(
    branch: &v1::If,
    paths: &mut Vec<Path>,
    subflows: &BTreeMap<&str, &v1::FlowDef>,
    depth: usize,
) {
    let mut out = Vec::new();
    let mut previous: Vec<(Option<&v1::Condition>, Span)> = Vec::new();
    for block in &branch.branches {
        let mut forked: Vec<Path> = paths.clone();
        for p in live(&mut forked) {
            for (cond, span) in &previous {
                push_condition(p, *cond, *span, true);
            }
            push_condition(p, block.condition.as_ref(), block.span, false);
        }
        walk(&block.body, &mut forked, subflows, depth + 1);
        out.extend(forked);
        previous.push((block.condition.as_ref(), block.span));
    }
    let mut rest: Vec<Path> = paths.clone();
    for p in live(&mut rest) {
        for (cond, span) in &previous {
            push_condition(p, *cond, *span, true);
        }
    }
    if let Some(body) = &branch.else_body {
        walk(body, &mut rest, subflows, depth + 1);
    }
    out.extend(rest);
    // Stopped paths that were stopped before the `if` appear once per branch: keep one.
    *paths = dedup_stopped(out);
}

pub(crate) fn dedup_stopped(paths: Vec<Path>) -> Vec<Path> {
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

fn push_condition(p: &mut Path, cond: Option<&v1::Condition>, span: Span, negated: bool) {
    match cond.map(|c| (&c.expr, c.span, &c.text)) {
        Some((v1::ConditionExpr::Parsed(expr), _, _)) => p.conditions.push(Cond {
            expr: expr.clone(),
            negated,
        }),
        Some((v1::ConditionExpr::Unparsed, span, text)) => {
            p.unsupported.push((
                span,
                format!("the condition `{text}` is outside the condition language"),
            ));
        }
        None => p
            .unsupported
            .push((span, "a branch without a condition".into())),
    }
}

fn walk_when(
    when: &v1::When,
    span: Span,
    paths: &mut Vec<Path>,
    subflows: &BTreeMap<&str, &v1::FlowDef>,
    depth: usize,
) {
    let mut out = Vec::new();
    for branch in &when.branches {
        let mut forked = paths.clone();
        match &branch.on {
            v1::WhenOn::User(refs) => {
                let intents: Vec<String> = refs.iter().map(|r| r.intent.text.to_string()).collect();
                fork_intents(&mut forked, &intents, branch.span);
            }
            v1::WhenOn::Other { keyword, .. } => {
                let mut probe = vec![Path::default()];
                walk(&branch.body, &mut probe, subflows, depth + 1);
                if probe.iter().any(|p| !p.calls.is_empty()) {
                    mark_unsupported(
                        &mut forked,
                        branch.span,
                        &format!("a tool is called after `when {keyword} …`"),
                    );
                }
            }
        }
        walk(&branch.body, &mut forked, subflows, depth + 1);
        out.extend(forked);
    }
    let _ = span;
    *paths = out;
}

/// A loop whose body (walked into `inner`) calls a tool: the gate cannot lower it. The paths
/// still call what the loop calls, so the flow governs those tools and the error is reported
/// rather than the calls dropped.
pub(crate) fn loop_calls(paths: &mut [Path], inner: &[Path], span: Span) {
    let calls: Vec<(String, Span)> = inner.iter().flat_map(|p| p.calls.clone()).collect();
    if calls.is_empty() {
        return;
    }
    mark_unsupported(paths, span, "a tool is called inside `while`");
    for p in live(paths) {
        p.calls.extend(calls.iter().cloned());
    }
}

pub(crate) fn mark_unsupported(paths: &mut [Path], span: Span, why: &str) {
    for p in live(paths) {
        p.unsupported.push((span, why.to_string()));
    }
}

/// Attaches the gates to the record's tools (by name), lowering conditions into the arena.
/// Returns an error diagnostic for each governed tool the catalogue lacks.
pub fn attach(
    body: &mut rec::RecordBody,
    gates: &Gates,
    span_of: &dyn Fn(Span) -> rec::SourceSpan,
) -> Vec<Diagnostic> {
    let mut diagnostics = Vec::new();
    for (tool, flows) in &gates.governing {
        let Some(t) = body.tools.iter_mut().find(|t| &t.name == tool) else {
            if let Some(rule) = gates.rules.iter().find(|r| &r.tool == tool) {
                diagnostics.push(
                    Diagnostic::error(
                        codes::RULEBOOK_UNKNOWN_TOOL,
                        rule.span,
                        format!(
                            "the rulebook calls `{tool}`, which the catalogue does not declare"
                        ),
                    )
                    .with_label("no such tool"),
                );
            }
            continue;
        };
        t.gate.governed = true;
        t.gate.flows = flows.clone();
        t.gate.default = gates.default;
    }
    for rule in &gates.rules {
        let condition = lower_conditions(&mut body.exprs, &mut body.values, &rule.conditions);
        let span = span_of(rule.span);
        let Some(t) = body.tools.iter_mut().find(|t| t.name == rule.tool) else {
            continue;
        };
        t.gate.paths.push(rec::GatePath {
            flow: rule.flow.clone(),
            intent: rule.intent.clone(),
            condition,
            action: match &rule.action {
                Action::Allow => rec::GateAction::Allow,
                Action::Refuse(m) => rec::GateAction::Refuse { message: m.clone() },
                Action::Ask(m) => rec::GateAction::Ask { message: m.clone() },
            },
            span,
        });
    }
    diagnostics
}

/// The conjunction of a path's conditions as one expression node.
fn lower_conditions(
    exprs: &mut Vec<rec::Expr>,
    values: &mut Vec<rec::Value>,
    conds: &[Cond],
) -> Option<u32> {
    let mut acc: Option<u32> = None;
    for c in conds {
        let mut e = lower_expr(exprs, values, &c.expr);
        if c.negated {
            e = push(exprs, rec::Expr::Not(e));
        }
        acc = Some(match acc {
            None => e,
            Some(a) => push(exprs, rec::Expr::And(a, e)),
        });
    }
    acc
}

fn push(exprs: &mut Vec<rec::Expr>, e: rec::Expr) -> u32 {
    exprs.push(e);
    (exprs.len() - 1) as u32
}

/// Lowers a condition expression into the record's expression arena.
pub fn lower_expr(exprs: &mut Vec<rec::Expr>, values: &mut Vec<rec::Value>, e: &Expr) -> u32 {
    let node = match &e.kind {
        ExprKind::Fact(name) => rec::Expr::Fact(name.clone()),
        ExprKind::Arg(name) => rec::Expr::Arg(name.clone()),
        ExprKind::Lit(lit) => {
            let json = match lit {
                Literal::Number(n) => serde_json::Number::from_f64(*n)
                    .map(serde_json::Value::Number)
                    .unwrap_or_default(),
                Literal::Str(s) => serde_json::Value::String(s.clone()),
                Literal::Bool(b) => serde_json::Value::Bool(*b),
                Literal::Null => serde_json::Value::Null,
            };
            rec::Expr::Literal(push_json(values, &json))
        }
        ExprKind::Not(inner) => rec::Expr::Not(lower_expr(exprs, values, inner)),
        ExprKind::Logic { op, lhs, rhs } => {
            let l = lower_expr(exprs, values, lhs);
            let r = lower_expr(exprs, values, rhs);
            match op {
                LogicOp::And => rec::Expr::And(l, r),
                LogicOp::Or => rec::Expr::Or(l, r),
            }
        }
        ExprKind::Compare { op, lhs, rhs } => {
            let left = lower_expr(exprs, values, lhs);
            let right = lower_expr(exprs, values, rhs);
            let op = match op {
                CmpOp::Eq => rec::CompareOp::Eq,
                CmpOp::Ne => rec::CompareOp::Ne,
                CmpOp::Lt => rec::CompareOp::Lt,
                CmpOp::Le => rec::CompareOp::Le,
                CmpOp::Gt => rec::CompareOp::Gt,
                CmpOp::Ge => rec::CompareOp::Ge,
            };
            rec::Expr::Compare { op, left, right }
        }
    };
    push(exprs, node)
}
