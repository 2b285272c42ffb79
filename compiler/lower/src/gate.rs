//! The rulebook's gate (DESIGN §5.7) attached to the record: the gate rules the rulebook model
//! gives (`stalwart_sema::model`) become each tool's paths, their resolved conditions nodes of
//! the record's expression arena.

use stalwart_diagnostics::{Diagnostic, Span};
use stalwart_record as rec;
use stalwart_sema::model::cond::{Cond, CondKind, Func, StrMethod};
use stalwart_sema::model::paths::{Action, Default, Gates};
use stalwart_syntax::expr::{CmpOp, LogicOp};

use crate::codes;
use crate::value::push_json;

/// Attaches the gates to the record's tools (by name), lowering conditions into the arena.
/// Returns an error diagnostic for each governed tool the catalogue lacks.
pub fn attach(
    body: &mut rec::RecordBody,
    gates: &Gates,
    span_of: &dyn Fn(Span) -> rec::SourceSpan,
) -> Vec<Diagnostic> {
    let mut diagnostics = Vec::new();
    let default = gates.default.map(|d| match d {
        Default::Allow => rec::GateDefault::Allow,
        Default::Refuse => rec::GateDefault::Refuse,
    });
    let names: std::collections::BTreeSet<String> =
        body.tools.iter().map(|t| t.name.clone()).collect();
    diagnostics.extend(unknown_governed(gates, &|t| names.contains(t)));
    for (tool, flows) in &gates.governing {
        let Some(t) = body.tools.iter_mut().find(|t| &t.name == tool) else {
            continue;
        };
        t.gate.governed = true;
        t.gate.flows = flows.clone();
        t.gate.default = default;
    }
    for rule in &gates.rules {
        let mut arenas = Arenas {
            exprs: &mut body.exprs,
            spans: &mut body.expr_spans,
            values: &mut body.values,
            span_of,
        };
        let condition = lower_conditions(&mut arenas, &rule.conditions);
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

/// An error for each tool the gates govern that `declared` does not hold, at its first rule.
fn unknown_governed(gates: &Gates, declared: &dyn Fn(&str) -> bool) -> Vec<Diagnostic> {
    let mut out = Vec::new();
    for tool in gates.governing.keys() {
        if declared(tool) {
            continue;
        }
        if let Some(rule) = gates.rules.iter().find(|r| &r.tool == tool) {
            out.push(
                Diagnostic::error(
                    codes::RULEBOOK_UNKNOWN_TOOL,
                    rule.span,
                    format!("the rulebook calls `{tool}`, which the catalogue does not declare"),
                )
                .with_label("no such tool"),
            );
        }
    }
    out
}

/// The arenas a condition is lowered into: the expressions, their places (same index), values.
struct Arenas<'a> {
    exprs: &'a mut Vec<rec::Expr>,
    spans: &'a mut Vec<rec::SourceSpan>,
    values: &'a mut Vec<rec::Value>,
    span_of: &'a dyn Fn(Span) -> rec::SourceSpan,
}

impl Arenas<'_> {
    /// Appends a node written at `span`; returns its index.
    fn push(&mut self, e: rec::Expr, span: rec::SourceSpan) -> u32 {
        self.exprs.push(e);
        self.spans.push(span);
        (self.exprs.len() - 1) as u32
    }
}

/// The conjunction of a path's conditions as one expression node. A negation (the `else` side) is
/// placed at its condition, a conjunction at its last condition (the one nearest the action).
fn lower_conditions(a: &mut Arenas<'_>, conds: &[(Cond, bool)]) -> Option<u32> {
    let mut acc: Option<u32> = None;
    for (c, negated) in conds {
        let span = (a.span_of)(c.span);
        let mut e = lower_cond(a, c);
        if *negated {
            e = a.push(rec::Expr::Not(e), span);
        }
        acc = Some(match acc {
            None => e,
            Some(prev) => a.push(rec::Expr::And(prev, e), span),
        });
    }
    acc
}

/// Lowers a resolved condition into the record's expression arena, each node placed where it is
/// written.
fn lower_cond(a: &mut Arenas<'_>, c: &Cond) -> u32 {
    let span = (a.span_of)(c.span);
    let all = |items: &[Cond], a: &mut Arenas<'_>| {
        items.iter().map(|i| lower_cond(a, i)).collect::<Vec<u32>>()
    };
    let node = match &c.kind {
        CondKind::Fact(name) => rec::Expr::Fact(name.clone()),
        CondKind::Arg(name) => rec::Expr::Arg(name.clone()),
        CondKind::Lit(json) => rec::Expr::Literal(push_json(a.values, json)),
        CondKind::Not(inner) => rec::Expr::Not(lower_cond(a, inner)),
        CondKind::Logic { op, lhs, rhs } => {
            let l = lower_cond(a, lhs);
            let r = lower_cond(a, rhs);
            match op {
                LogicOp::And => rec::Expr::And(l, r),
                LogicOp::Or => rec::Expr::Or(l, r),
            }
        }
        CondKind::Compare { op, lhs, rhs } => {
            let left = lower_cond(a, lhs);
            let right = lower_cond(a, rhs);
            rec::Expr::Compare {
                op: compare_op(*op),
                left,
                right,
            }
        }
        CondKind::Member { base, field } => rec::Expr::Member {
            base: lower_cond(a, base),
            field: field.clone(),
        },
        CondKind::List(items) => rec::Expr::List(all(items, a)),
        CondKind::In {
            item,
            collection,
            negated,
        } => {
            let item = lower_cond(a, item);
            let collection = lower_cond(a, collection);
            let node = rec::Expr::In { item, collection };
            if *negated {
                let inner = a.push(node, span);
                rec::Expr::Not(inner)
            } else {
                node
            }
        }
        CondKind::IsNone { expr, negated } => {
            let e = lower_cond(a, expr);
            if *negated {
                let inner = a.push(rec::Expr::IsNone(e), span);
                rec::Expr::Not(inner)
            } else {
                rec::Expr::IsNone(e)
            }
        }
        CondKind::Call { func, args } => rec::Expr::Call {
            func: match func {
                Func::Len => rec::Func::Len,
                Func::IsStr => rec::Func::IsStr,
                Func::IsInt => rec::Func::IsInt,
                Func::IsFloat => rec::Func::IsFloat,
                Func::IsBool => rec::Func::IsBool,
                Func::Str => rec::Func::Str,
                Func::Int => rec::Func::Int,
                Func::Float => rec::Func::Float,
            },
            args: all(args, a),
        },
        CondKind::Method {
            method,
            receiver,
            args,
        } => {
            let receiver = lower_cond(a, receiver);
            rec::Expr::Method {
                method: match method {
                    StrMethod::Lower => rec::StrMethod::Lower,
                    StrMethod::Upper => rec::StrMethod::Upper,
                    StrMethod::Strip => rec::StrMethod::Strip,
                    StrMethod::StartsWith => rec::StrMethod::StartsWith,
                    StrMethod::EndsWith => rec::StrMethod::EndsWith,
                },
                receiver,
                args: all(args, a),
            }
        }
        CondKind::Result(tool) => rec::Expr::Result(tool.clone()),
        CondKind::Unknown(_) => rec::Expr::Unknown,
    };
    a.push(node, span)
}

fn compare_op(op: CmpOp) -> rec::CompareOp {
    match op {
        CmpOp::Eq => rec::CompareOp::Eq,
        CmpOp::Ne => rec::CompareOp::Ne,
        CmpOp::Lt => rec::CompareOp::Lt,
        CmpOp::Le => rec::CompareOp::Le,
        CmpOp::Gt => rec::CompareOp::Gt,
        CmpOp::Ge => rec::CompareOp::Ge,
    }
}
