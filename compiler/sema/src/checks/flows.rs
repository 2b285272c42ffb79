//! The flows a rulebook uses, with where: those it defines (`define flow|subflow`, `flow`) and
//! those it runs (1.0 `do <subflow>`; 2.x a flow spec such as `await self check input` or
//! `activate …`). The proof matches them against published advisories (QG022).

use stalwart_diagnostics::Span;
use stalwart_syntax::{v1, v2};

/// The flows a Colang 1.0 module defines or runs, in source order.
pub fn used_flows_v1(module: &v1::ast::Module) -> Vec<(String, Span)> {
    let mut out = Vec::new();
    for item in &module.items {
        match item {
            v1::ast::Item::Flow(f) => {
                if let Some(name) = &f.name {
                    out.push((name.text.to_string(), name.span));
                }
                runs_v1(&f.body, &mut out);
            }
            v1::ast::Item::Stmt(s) => runs_v1(std::slice::from_ref(s), &mut out),
            _ => {}
        }
    }
    out.sort_by_key(|(_, span)| span.start);
    out
}

fn runs_v1(stmts: &[v1::ast::Stmt], out: &mut Vec<(String, Span)>) {
    use v1::ast::StmtKind;
    for stmt in stmts {
        match &stmt.kind {
            StmtKind::Do(name) => out.push((name.text.to_string(), name.span)),
            StmtKind::If(branch) => {
                for b in &branch.branches {
                    runs_v1(&b.body, out);
                }
                if let Some(body) = &branch.else_body {
                    runs_v1(body, out);
                }
            }
            StmtKind::When(when) => {
                for b in &when.branches {
                    runs_v1(&b.body, out);
                }
            }
            StmtKind::While(w) => runs_v1(&w.body, out),
            StmtKind::Any(alternatives) => runs_v1(alternatives, out),
            _ => {}
        }
    }
}

/// The flows a Colang 2.x module defines or runs, in source order. `bot …` and `user …` specs
/// are messages and intents, not flows a rail names, so they are left out.
pub fn used_flows_v2(module: &v2::ast::Module) -> Vec<(String, Span)> {
    let mut flows: Vec<&v2::ast::Flow> = Vec::new();
    for item in &module.items {
        if let v2::ast::Item::Flow(f) = item {
            super::v2::nested_flows(f, &mut flows);
        }
    }
    let mut out = Vec::new();
    for flow in flows {
        out.push((flow.name.to_string(), flow.name_span));
        runs_v2(&flow.body, &mut out);
    }
    for item in &module.items {
        if let v2::ast::Item::Stmt(s) = item {
            runs_v2(std::slice::from_ref(s), &mut out);
        }
    }
    out.sort_by_key(|(_, span)| span.start);
    out
}

fn runs_v2(stmts: &[v2::ast::Stmt], out: &mut Vec<(String, Span)>) {
    use v2::ast::StmtKind;
    for stmt in stmts {
        match &stmt.kind {
            StmtKind::Spec { expr, .. } => spec_flows(expr, out),
            StmtKind::When { branches, .. } => {
                for b in branches {
                    spec_flows(&b.cond, out);
                }
            }
            // A nested flow's body is walked as a flow of its own.
            StmtKind::Flow(_) => continue,
            _ => {}
        }
        for body in super::v2::bodies(&stmt.kind) {
            runs_v2(body, out);
        }
    }
}

fn spec_flows(e: &v2::ast::SpecExpr, out: &mut Vec<(String, Span)>) {
    use v2::ast::{SpecExpr, SpecKind, SpecTarget};
    match e {
        SpecExpr::Spec(s) => {
            if s.kind() == SpecKind::Flow
                && let SpecTarget::Name { name, span } = &s.target
                && !name.starts_with("bot ")
                && !name.starts_with("user ")
            {
                out.push((name.to_string(), *span));
            }
        }
        SpecExpr::And(v, _) | SpecExpr::Or(v, _) => {
            for e in v {
                spec_flows(e, out);
            }
        }
    }
}
