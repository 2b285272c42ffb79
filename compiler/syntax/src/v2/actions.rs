//! The actions a Colang 2.x module starts or awaits (`await RefundCardAction(amount=$a)`): in
//! 2.x a tool is named by its action, and the gate maps the action name to the tool's name
//! (`RefundCardAction` -> `refund_card`).

use stalwart_diagnostics::Span;

use super::ast::{Args, Item, Module, SpecExpr, SpecKind, SpecOp, SpecTarget, Stmt, StmtKind};

/// One `await`/`start` of an action, anywhere in the module.
#[derive(Debug, Clone, PartialEq)]
pub struct ActionCall<'a> {
    pub op: SpecOp,
    /// The action's name as written (`RefundCardAction`).
    pub name: &'a str,
    /// The tool it names (`refund_card`).
    pub tool: Option<String>,
    pub args: &'a Args,
    pub span: Span,
}

/// The tool an action names: `RefundCardAction` -> `refund_card`. `None` when the name is not
/// an action's (it must end in `Action`, have a stem, and not be a `Start…`/`Stop…`/`Change…`
/// event).
pub fn action_tool_name(action: &str) -> Option<String> {
    let stem = action.strip_suffix("Action")?;
    if stem.is_empty()
        || action.starts_with("Start")
        || action.starts_with("Stop")
        || action.starts_with("Change")
    {
        return None;
    }
    if !stem.chars().next().is_some_and(char::is_uppercase)
        || !stem.chars().all(|c| c.is_alphanumeric() || c == '_')
    {
        return None;
    }
    let chars: Vec<char> = stem.chars().collect();
    let mut out = String::with_capacity(stem.len() + 4);
    for (i, &c) in chars.iter().enumerate() {
        if c.is_uppercase() && i > 0 {
            let prev = chars.get(i - 1).copied().unwrap_or('_');
            let next_lower = chars.get(i + 1).is_some_and(|n| n.is_lowercase());
            if prev != '_'
                && (prev.is_lowercase()
                    || prev.is_ascii_digit()
                    || (prev.is_uppercase() && next_lower))
            {
                out.push('_');
            }
        }
        out.extend(c.to_lowercase());
    }
    Some(out)
}

/// Every `await`/`start` (including a bare spec, which awaits) of an action, in source order.
pub fn action_calls(module: &Module) -> Vec<ActionCall<'_>> {
    let mut out = Vec::new();
    let mut stack: Vec<&[Stmt]> = Vec::new();
    for item in module.items.iter().rev() {
        match item {
            Item::Flow(f) => stack.push(&f.body),
            Item::Stmt(s) => stack.push(std::slice::from_ref(s)),
            _ => {}
        }
    }
    while let Some(body) = stack.pop() {
        let mut nested: Vec<&[Stmt]> = Vec::new();
        for s in body {
            match &s.kind {
                StmtKind::Spec {
                    op: op @ (SpecOp::Await | SpecOp::Start),
                    expr,
                    ..
                } => specs(*op, expr, &mut out),
                StmtKind::If {
                    branches,
                    else_body,
                } => {
                    nested.extend(branches.iter().map(|b| b.body.as_slice()));
                    nested.extend(else_body.as_deref());
                }
                StmtKind::When {
                    branches,
                    else_body,
                } => {
                    nested.extend(branches.iter().map(|b| b.body.as_slice()));
                    nested.extend(else_body.as_deref());
                }
                StmtKind::While { body, .. } => nested.push(body),
                StmtKind::Flow(f) => nested.push(&f.body),
                _ => {}
            }
        }
        stack.extend(nested.into_iter().rev());
    }
    out.sort_by_key(|a| a.span.start);
    out
}

fn specs<'a>(op: SpecOp, e: &'a SpecExpr, out: &mut Vec<ActionCall<'a>>) {
    let mut stack = vec![e];
    while let Some(e) = stack.pop() {
        match e {
            SpecExpr::Spec(s) => {
                if let (SpecKind::Action, SpecTarget::Name { name, .. }) = (s.kind(), &s.target) {
                    out.push(ActionCall {
                        op,
                        name,
                        tool: action_tool_name(name),
                        args: &s.args,
                        span: s.span,
                    });
                }
            }
            SpecExpr::And(v, _) | SpecExpr::Or(v, _) => stack.extend(v.iter().rev()),
        }
    }
}
