//! Colang 2.x lowered to the gate, with the same path semantics as 1.0 (see `gate`).
//!
//! A tool is named by its action (`await RefundCardAction(...)` or `start …` → `refund_card`);
//! `user <intent>` (awaited or matched) is the person's intent; `bot <message>` says a message;
//! another flow of the module that a flow awaits is walked in place. `if`/`elif` conditions are
//! read with the shared condition language from their source text; one it cannot read, on a path
//! that matters, is `rulebook_unsupported`.

use std::collections::BTreeMap;

use stalwart_diagnostics::Span;
use stalwart_syntax::v2::ast as v2;

use crate::gate::{
    Cond, Gates, MAX_DEPTH, Path, add_flow, dedup_stopped, fork_intents, live, mark_unsupported,
};

/// Lowers a Colang 2.x module; `text` is the file's text (conditions are read from it).
pub fn lower_v2(module: &v2::Module, text: &str) -> Gates {
    let flows: BTreeMap<&str, &v2::Flow> = module
        .items
        .iter()
        .filter_map(|i| match i {
            v2::Item::Flow(f) => Some((f.name.as_str(), f)),
            _ => None,
        })
        .collect();
    let cx = Ctx {
        flows: &flows,
        text,
    };
    let mut gates = Gates::default();
    for item in &module.items {
        let v2::Item::Flow(flow) = item else { continue };
        if is_message_flow(&flow.name) {
            continue;
        }
        let mut paths = vec![Path::default()];
        cx.walk(&flow.body, &mut paths, 0);
        add_flow(&mut gates, &flow.name, paths);
    }
    gates
}

/// `user …` and `bot …` flows define what the person or the bot says; they govern nothing.
fn is_message_flow(name: &str) -> bool {
    name.starts_with("user ") || name.starts_with("bot ")
}

struct Ctx<'a> {
    flows: &'a BTreeMap<&'a str, &'a v2::Flow>,
    text: &'a str,
}

impl Ctx<'_> {
    fn walk(&self, stmts: &[v2::Stmt], paths: &mut Vec<Path>, depth: usize) {
        for stmt in stmts {
            if paths.iter().all(|p| p.stopped) {
                return;
            }
            self.step(stmt, paths, depth);
        }
    }

    fn step(&self, stmt: &v2::Stmt, paths: &mut Vec<Path>, depth: usize) {
        match &stmt.kind {
            v2::StmtKind::Spec {
                op: v2::SpecOp::Await | v2::SpecOp::Start | v2::SpecOp::Match,
                expr,
                ..
            } => self.spec_expr(expr, stmt.span, paths, depth),
            v2::StmtKind::If {
                branches,
                else_body,
            } => self.walk_if(branches, else_body.as_deref(), paths, depth),
            v2::StmtKind::When {
                branches,
                else_body,
            } => {
                let mut out = Vec::new();
                for branch in branches {
                    let mut forked = paths.clone();
                    self.spec_expr(&branch.cond, branch.span, &mut forked, depth);
                    self.walk(&branch.body, &mut forked, depth + 1);
                    out.extend(forked);
                }
                if let Some(body) = else_body {
                    let mut forked = paths.clone();
                    self.walk(body, &mut forked, depth + 1);
                    out.extend(forked);
                }
                *paths = out;
            }
            v2::StmtKind::While { body, .. } => {
                let mut inner = vec![Path::default()];
                self.walk(body, &mut inner, depth + 1);
                crate::gate::loop_calls(paths, &inner, stmt.span);
            }
            v2::StmtKind::Return(_) | v2::StmtKind::Abort => {
                for p in live(paths) {
                    p.stopped = true;
                }
            }
            _ => {}
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
                } else if let Some(flow) = self.flows.get(name.as_str()) {
                    if depth < MAX_DEPTH {
                        self.walk(&flow.body, paths, depth + 1);
                    } else {
                        mark_unsupported(paths, span, "flows call each other too deeply");
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
        paths: &mut Vec<Path>,
        depth: usize,
    ) {
        let mut out = Vec::new();
        let mut previous: Vec<&v2::Expr> = Vec::new();
        for branch in branches {
            let mut forked = paths.clone();
            for p in live(&mut forked) {
                for cond in &previous {
                    self.push_condition(p, cond, true);
                }
                self.push_condition(p, &branch.cond, false);
            }
            self.walk(&branch.body, &mut forked, depth + 1);
            out.extend(forked);
            previous.push(&branch.cond);
        }
        let mut rest = paths.clone();
        for p in live(&mut rest) {
            for cond in &previous {
                self.push_condition(p, cond, true);
            }
        }
        if let Some(body) = else_body {
            self.walk(body, &mut rest, depth + 1);
        }
        out.extend(rest);
        *paths = dedup_stopped(out);
    }

    fn push_condition(&self, p: &mut Path, cond: &v2::Expr, negated: bool) {
        let source = self
            .text
            .get(cond.span.start as usize..cond.span.end as usize)
            .unwrap_or("");
        let parsed = stalwart_syntax::parse_condition(cond.span.file, source, cond.span.start);
        match parsed.value {
            Some(expr) if parsed.diagnostics.is_empty() => {
                p.conditions.push(Cond { expr, negated })
            }
            _ => p.unsupported.push((
                cond.span,
                format!("the condition `{source}` is outside the condition language"),
            )),
        }
    }
}
