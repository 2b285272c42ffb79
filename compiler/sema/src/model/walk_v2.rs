//! Colang 2.x flows walked into paths, with the same path semantics as 1.0 (see `paths`).
//!
//! A tool is named by its action (`await RefundCardAction(...)` or `start …` → `refund_card`);
//! `user <intent>` (awaited or matched) is the person's intent; `bot <message>` says a message;
//! a flow of any file of the rulebook that a flow awaits or starts is walked in place. `if`/`elif`
//! conditions are read with the shared condition language from their source text; one it
//! cannot read, on a path that matters, is `rulebook_unsupported`. `$x = await ToolAction(…)`
//! binds `$x` to what the tool returns; `$x = <literal>` to the literal.

use std::collections::BTreeSet;

use serde_json::Value;
use stalwart_diagnostics::Span;
use stalwart_syntax::v2::ast as v2;

use super::cond::{Binding, Scope, resolve};
use super::paths::{
    FlowTable, MAX_DEPTH, Path, dedup_stopped, fork_intents, live, loop_calls, mark_unsupported,
};

/// A flow and the text of the file it is written in (conditions are read from it).
#[derive(Clone, Copy)]
pub struct FlowIn<'a> {
    pub flow: &'a v2::Flow,
    pub text: &'a str,
}

/// What walking 2.x flows reads.
pub struct Walker<'a> {
    /// Every flow of the rulebook, by name.
    pub flows: &'a dyn FlowTable<FlowIn<'a>>,
    pub config: &'a Value,
    pub tools: Option<&'a BTreeSet<String>>,
    pub library_actions: &'a BTreeSet<String>,
}

/// `user …` and `bot …` flows define what the person or the bot says; they govern nothing.
pub fn is_message_flow(name: &str) -> bool {
    name.starts_with("user ") || name.starts_with("bot ")
}

impl Walker<'_> {
    /// The paths of a flow run from its start.
    pub fn flow_paths(&self, flow: FlowIn<'_>) -> Vec<Path> {
        let mut paths = vec![Path::default()];
        self.walk(&flow.flow.body, flow.text, &mut paths, 0);
        paths
    }

    fn walk(&self, stmts: &[v2::Stmt], text: &str, paths: &mut Vec<Path>, depth: usize) {
        for stmt in stmts {
            if paths.iter().all(|p| p.stopped) {
                return;
            }
            self.step(stmt, text, paths, depth);
        }
    }

    fn step(&self, stmt: &v2::Stmt, text: &str, paths: &mut Vec<Path>, depth: usize) {
        match &stmt.kind {
            v2::StmtKind::Spec {
                op: v2::SpecOp::Await | v2::SpecOp::Start | v2::SpecOp::Match,
                expr,
                capture,
                ..
            } => {
                self.spec_expr(expr, stmt.span, paths, depth);
                if let Some(var) = capture {
                    let binding = self.capture_binding(expr);
                    for p in live(paths) {
                        p.bindings.insert(var.name.to_string(), binding.clone());
                    }
                }
            }
            v2::StmtKind::Assign(a) => {
                let binding = assign_binding(a, text);
                for p in live(paths) {
                    p.bindings
                        .insert(a.target.name.to_string(), binding.clone());
                }
            }
            v2::StmtKind::If {
                branches,
                else_body,
            } => self.walk_if(branches, else_body.as_deref(), text, paths, depth),
            v2::StmtKind::When {
                branches,
                else_body,
            } => {
                let mut out = Vec::new();
                for branch in branches {
                    let mut forked = paths.clone();
                    self.spec_expr(&branch.cond, branch.span, &mut forked, depth);
                    self.walk(&branch.body, text, &mut forked, depth + 1);
                    out.extend(forked);
                }
                if let Some(body) = else_body {
                    let mut forked = paths.clone();
                    self.walk(body, text, &mut forked, depth + 1);
                    out.extend(forked);
                }
                *paths = out;
            }
            v2::StmtKind::While { body, .. } => {
                let mut inner = vec![Path::default()];
                self.walk(body, text, &mut inner, depth + 1);
                loop_calls(paths, &inner, stmt.span);
            }
            v2::StmtKind::Return(_) | v2::StmtKind::Abort => {
                for p in live(paths) {
                    p.stopped = true;
                }
            }
            _ => {}
        }
    }

    /// What a captured spec (`$x = await ToolAction(…)`) binds `$x` to.
    fn capture_binding(&self, expr: &v2::SpecExpr) -> Binding {
        let v2::SpecExpr::Spec(spec) = expr else {
            return Binding::Unknown("set from several specs".into());
        };
        let v2::SpecTarget::Name { name, .. } = &spec.target else {
            return Binding::Unknown("set from a reference".into());
        };
        if spec.kind() != v2::SpecKind::Action {
            return Binding::Unknown(format!("set from `{name}`, which the check never runs"));
        }
        let Some(tool) = stalwart_syntax::v2::action_tool_name(name) else {
            return Binding::Unknown(format!("set from `{name}`"));
        };
        let ours = match self.tools {
            Some(tools) => tools.contains(&tool),
            None => !self.library_actions.contains(&tool),
        };
        if ours {
            Binding::Result(tool)
        } else {
            Binding::Unknown(format!(
                "`{name}` is an action outside the catalogue: what it returns never reaches \
                 the check"
            ))
        }
    }

    /// A spec expression: `a and b` in sequence, `a or b` as alternatives.
    fn spec_expr(&self, expr: &v2::SpecExpr, span: Span, paths: &mut Vec<Path>, depth: usize) {
        match expr {
            v2::SpecExpr::Spec(spec) => self.spec(spec, span, paths, depth),
            v2::SpecExpr::And(items, _) => {
                for item in items {
                    self.spec_expr(item, span, paths, depth);
                }
            }
            v2::SpecExpr::Or(items, _) => {
                let mut out = Vec::new();
                for item in items {
                    let mut forked = paths.clone();
                    self.spec_expr(item, span, &mut forked, depth);
                    out.extend(forked);
                }
                *paths = out;
            }
        }
    }

    fn spec(&self, spec: &v2::Spec, span: Span, paths: &mut Vec<Path>, depth: usize) {
        let v2::SpecTarget::Name { name, .. } = &spec.target else {
            return;
        };
        match spec.kind() {
            v2::SpecKind::Action => {
                if let Some(tool) = stalwart_syntax::v2::action_tool_name(name) {
                    for p in live(paths) {
                        p.calls.push((tool.clone(), span));
                    }
                }
            }
            v2::SpecKind::Flow => {
                if let Some(intent) = name.strip_prefix("user ") {
                    fork_intents(paths, &[intent.to_string()], span);
                } else if let Some(message) = name.strip_prefix("bot ") {
                    if let Some(tool) = message.strip_prefix("execute_") {
                        for p in live(paths) {
                            p.calls.push((tool.to_string(), span));
                        }
                    } else {
                        for p in live(paths) {
                            p.says.push((message.to_string(), span));
                        }
                    }
                } else if let Some(flow) = self.flows.flow(name.as_str()) {
                    if depth < MAX_DEPTH {
                        self.walk(&flow.flow.body, flow.text, paths, depth + 1);
                    } else {
                        mark_unsupported(paths, span, "flows run each other too deeply");
                    }
                }
            }
            _ => {}
        }
    }

    fn walk_if(
        &self,
        branches: &[v2::Branch<v2::Expr>],
        else_body: Option<&[v2::Stmt]>,
        text: &str,
        paths: &mut Vec<Path>,
        depth: usize,
    ) {
        let mut out = Vec::new();
        let mut previous: Vec<&v2::Expr> = Vec::new();
        for branch in branches {
            let mut forked = paths.clone();
            for p in live(&mut forked) {
                for cond in &previous {
                    self.push_condition(p, cond, text, true);
                }
                self.push_condition(p, &branch.cond, text, false);
            }
            self.walk(&branch.body, text, &mut forked, depth + 1);
            out.extend(forked);
            previous.push(&branch.cond);
        }
        let mut rest = paths.clone();
        for p in live(&mut rest) {
            for cond in &previous {
                self.push_condition(p, cond, text, true);
            }
        }
        if let Some(body) = else_body {
            self.walk(body, text, &mut rest, depth + 1);
        }
        out.extend(rest);
        *paths = dedup_stopped(out);
    }

    fn push_condition(&self, p: &mut Path, cond: &v2::Expr, text: &str, negated: bool) {
        let source = text
            .get(cond.span.start as usize..cond.span.end as usize)
            .unwrap_or("");
        let parsed = stalwart_syntax::parse_condition(cond.span.file, source, cond.span.start);
        match parsed.value {
            Some(expr) if parsed.diagnostics.is_empty() => {
                let scope = Scope {
                    bindings: &p.bindings,
                    config: self.config,
                    tools: self.tools,
                };
                let resolved = resolve(&scope, &expr);
                p.conditions.push((resolved, negated));
            }
            _ => p.unsupported.push((
                cond.span,
                format!("the condition `{source}` is outside the condition language"),
            )),
        }
    }
}

/// What `$x = <expr>` binds: a literal, or a value the check never has.
fn assign_binding(a: &v2::Assignment, text: &str) -> Binding {
    let source = text
        .get(a.value.span.start as usize..a.value.span.end as usize)
        .unwrap_or("")
        .trim();
    if a.op != v2::AssignOp::Set {
        return Binding::Unknown(format!("`${}` is changed arithmetically", a.target.name));
    }
    match stalwart_syntax::expr::try_condition(a.value.span.file, source, a.value.span.start) {
        Some(stalwart_syntax::expr::Expr {
            kind: stalwart_syntax::expr::ExprKind::Lit(lit),
            ..
        }) => Binding::Value(super::cond::literal(&lit)),
        _ => Binding::Unknown(format!("`${}` is set from `{source}`", a.target.name)),
    }
}
