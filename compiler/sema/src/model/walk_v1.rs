//! Colang 1.0 flows walked into paths (see `paths` for what a path is).
//!
//! The flows of every file of the rulebook are one table: `do <flow>` runs a flow or subflow of
//! any file in place, with the caller's intent, conditions and variables. `$x = execute <tool>`
//! binds `$x` to what that tool returns (a tool of the catalogue; an action outside it is
//! something the check never has); `$x = <literal>` to the literal.

use std::collections::BTreeSet;

use serde_json::Value;
use stalwart_diagnostics::Span;
use stalwart_syntax::v1::ast as v1;

use super::cond::{Binding, Scope, resolve};
use super::paths::{
    FlowTable, MAX_DEPTH, Path, dedup_stopped, fork_intents, live, loop_calls, mark_unsupported,
};

/// What walking 1.0 flows reads.
pub struct Walker<'a> {
    /// Every flow and subflow of the rulebook, by id.
    pub flows: &'a dyn FlowTable<&'a v1::FlowDef>,
    pub config: &'a Value,
    /// The catalogue's tools, when compiled with one.
    pub tools: Option<&'a BTreeSet<String>>,
    /// Actions NeMo Guardrails runs itself (its library's): what they return is never the
    /// check's.
    pub library_actions: &'a BTreeSet<String>,
}

impl Walker<'_> {
    /// The paths of a flow run from its start.
    pub fn flow_paths(&self, flow: &v1::FlowDef) -> Vec<Path> {
        let mut paths = vec![Path::default()];
        self.walk(&flow.body, &mut paths, 0);
        paths
    }

    fn walk(&self, stmts: &[v1::Stmt], paths: &mut Vec<Path>, depth: usize) {
        for stmt in stmts {
            if paths.iter().all(|p| p.stopped) {
                return;
            }
            self.step(stmt, paths, depth);
        }
    }

    fn step(&self, stmt: &v1::Stmt, paths: &mut Vec<Path>, depth: usize) {
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
                let action = run.action.text.to_string();
                let binding = self.result_binding(&action);
                for p in live(paths) {
                    p.calls.push((action.clone(), stmt.span));
                    if let Some(var) = &run.result {
                        p.bindings.insert(var.text.to_string(), binding.clone());
                    }
                }
            }
            v1::StmtKind::Set(set) => {
                let binding = set_binding(set);
                let name = set.target.text.to_string();
                for p in live(paths) {
                    p.bindings.insert(name.clone(), binding.clone());
                }
            }
            v1::StmtKind::Stop | v1::StmtKind::Return(_) => {
                for p in live(paths) {
                    p.stopped = true;
                }
            }
            v1::StmtKind::If(branch) => self.walk_if(branch, paths, depth),
            v1::StmtKind::When(when) => self.walk_when(when, paths, depth),
            v1::StmtKind::Do(name) => match self.flows.flow(name.text.as_str()) {
                Some(sub) if depth < MAX_DEPTH => self.walk(&sub.body, paths, depth + 1),
                Some(_) => mark_unsupported(paths, stmt.span, "flows run each other too deeply"),
                None => {}
            },
            v1::StmtKind::While(w) => {
                let mut inner = vec![Path::default()];
                self.walk(&w.body, &mut inner, depth + 1);
                loop_calls(paths, &inner, stmt.span);
            }
            v1::StmtKind::Any(alternatives) => {
                let mut out = Vec::new();
                for alt in alternatives {
                    let mut forked = paths.clone();
                    self.step(alt, &mut forked, depth + 1);
                    out.extend(forked);
                }
                *paths = out;
            }
            _ => {}
        }
    }

    /// What `$x = execute <action>` binds `$x` to.
    fn result_binding(&self, action: &str) -> Binding {
        let ours = match self.tools {
            Some(tools) => tools.contains(action),
            None => !self.library_actions.contains(action),
        };
        if ours {
            Binding::Result(action.to_string())
        } else {
            Binding::Unknown(format!(
                "`{action}` is an action outside the catalogue: what it returns never reaches \
                 the check"
            ))
        }
    }

    fn walk_if(&self, branch: &v1::If, paths: &mut Vec<Path>, depth: usize) {
        let mut out = Vec::new();
        let mut previous: Vec<(Option<&v1::Condition>, Span)> = Vec::new();
        for block in &branch.branches {
            let mut forked: Vec<Path> = paths.clone();
            for p in live(&mut forked) {
                for (cond, span) in &previous {
                    self.push_condition(p, *cond, *span, true);
                }
                self.push_condition(p, block.condition.as_ref(), block.span, false);
            }
            self.walk(&block.body, &mut forked, depth + 1);
            out.extend(forked);
            previous.push((block.condition.as_ref(), block.span));
        }
        let mut rest: Vec<Path> = paths.clone();
        for p in live(&mut rest) {
            for (cond, span) in &previous {
                self.push_condition(p, *cond, *span, true);
            }
        }
        if let Some(body) = &branch.else_body {
            self.walk(body, &mut rest, depth + 1);
        }
        out.extend(rest);
        *paths = dedup_stopped(out);
    }

    fn push_condition(
        &self,
        p: &mut Path,
        cond: Option<&v1::Condition>,
        span: Span,
        negated: bool,
    ) {
        match cond.map(|c| (&c.expr, c.span, &c.text)) {
            Some((v1::ConditionExpr::Parsed(expr), _, _)) => {
                let scope = Scope {
                    bindings: &p.bindings,
                    config: self.config,
                    tools: self.tools,
                };
                let resolved = resolve(&scope, expr);
                p.conditions.push((resolved, negated));
            }
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

    fn walk_when(&self, when: &v1::When, paths: &mut Vec<Path>, depth: usize) {
        let mut out = Vec::new();
        for branch in &when.branches {
            let mut forked = paths.clone();
            match &branch.on {
                v1::WhenOn::User(refs) => {
                    let intents: Vec<String> =
                        refs.iter().map(|r| r.intent.text.to_string()).collect();
                    fork_intents(&mut forked, &intents, branch.span);
                }
                v1::WhenOn::Other { keyword, .. } => {
                    let mut probe = vec![Path::default()];
                    self.walk(&branch.body, &mut probe, depth + 1);
                    if probe.iter().any(|p| !p.calls.is_empty()) {
                        mark_unsupported(
                            &mut forked,
                            branch.span,
                            &format!("a tool is called after `when {keyword} …`"),
                        );
                    }
                }
            }
            self.walk(&branch.body, &mut forked, depth + 1);
            out.extend(forked);
        }
        *paths = out;
    }
}

/// What `$x = <value>` binds: a literal, or a value the check never has.
fn set_binding(set: &v1::Set) -> Binding {
    let text = set.value.as_ref().map(|v| v.text.trim()).unwrap_or("");
    if set.op != v1::SetOp::Assign {
        return Binding::Unknown(format!("`${}` is changed arithmetically", set.target.text));
    }
    match serde_json::from_str::<Value>(text) {
        Ok(v) if !v.is_object() && !v.is_array() => Binding::Value(v),
        _ => match text {
            "True" => Binding::Value(Value::Bool(true)),
            "False" => Binding::Value(Value::Bool(false)),
            "None" => Binding::Value(Value::Null),
            _ if (text.starts_with('\'') && text.ends_with('\'') && text.len() >= 2) => {
                Binding::Value(Value::String(
                    text.get(1..text.len() - 1).unwrap_or("").to_string(),
                ))
            }
            // Any other literal as the condition language reads it (`1_000`, `.5`).
            _ => {
                match stalwart_syntax::expr::try_condition(stalwart_diagnostics::FileId(0), text, 0)
                {
                    Some(stalwart_syntax::expr::Expr {
                        kind: stalwart_syntax::expr::ExprKind::Lit(lit),
                        ..
                    }) => Binding::Value(super::cond::literal(&lit)),
                    _ => Binding::Unknown(format!("`${}` is set from `{text}`", set.target.text)),
                }
            }
        },
    }
}
