//! What one check exercised of the record, for coverage (`stalwart test --coverage`): each order
//! rule, argument check, limit, gate path and comparison the check evaluated, and how each came
//! out.
//!
//! A separate evaluation beside the check, not a hook inside it: [`trace`] walks the same steps
//! in the same order (5: order rules, 7: checks, limits, spend, 8: the gate) over the session as it
//! was before the check, and stops where the first that answers stops the check. The check's own
//! answer says whether it got as far as step 5 at all (steps 1–4 answer before any rule is read)
//! and whether an undo stopped at step 6. So the hot path is unchanged: a check that nobody traces
//! pays nothing. The walk is cross-checked against the answer by [`Trace::agrees_with`].

use serde_json::Value;
use stalwart_record::{
    ArchivedCheckOp, ArchivedCheckOperand, ArchivedExpr, ArchivedGateAction, ArchivedNotAfter,
    ArchivedPeriod, ArchivedRecordBody, ArchivedTool,
};

use crate::check::{Call, Check};
use crate::compare::{argument_or_result, json_eq, member};
use crate::gate::{Scope, Val, eval_expr};
use crate::origin::{find_tool, is_write, tool_index};
use crate::session::{CallEntry, Decision, Outcome, Session};
use crate::value::to_json;

/// A rule of the record a check can exercise. Tools, paths, entries and expression nodes are
/// named by their index in the record.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Item {
    /// Entry `index` of the tool's `after:`.
    After { tool: u32, index: u32 },
    /// Entry `index` of the tool's `not_after:`.
    NotAfter { tool: u32, index: u32 },
    /// The tool's `at_most: N` within the session (an order rule), or `at_most: {count, per}`
    /// against the host's counts (a limit).
    AtMost { tool: u32 },
    /// Entry `index` of the tool's `checks:`.
    Check { tool: u32, index: u32 },
    /// The tool's `spend:`.
    Spend { tool: u32 },
    /// Path `path` of the tool's gate (a flow's way to an action).
    GatePath { tool: u32, path: u32 },
    /// A comparison node of a gate condition (`==`, `<`, `in`, `is None`, …).
    Condition { expr: u32 },
}

/// How an item came out: `Some(true)` it held (a gate path: it decided), `Some(false)` it did
/// not, `None` it could not be known (a condition on something the check never has).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Event {
    pub item: Item,
    pub held: Option<bool>,
}

/// Where the traced walk stopped.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stop {
    /// Steps 1–4 answered (the rules were never read).
    BeforeRules,
    /// An order rule was broken.
    OrderRule,
    /// An undo was refused at step 6.
    Undo,
    /// A check, limit or spend refused.
    Condition,
    /// A gate path decided to refuse, or no path held.
    GateRefused,
    /// The gate let the call on (or asked).
    Passed,
}

/// The events of one check, in the order the check meets them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Trace {
    pub events: Vec<Event>,
    pub stop: Stop,
}

impl Trace {
    /// Whether the walk stopped where the check's answer says the check stopped.
    pub fn agrees_with(&self, answer: &Check) -> bool {
        let reason = answer.reasons.first().map(|r| r.as_str()).unwrap_or("");
        let gate_refused = answer.decision == Decision::Refuse
            && (answer.detail.get("flow").is_some() || answer.detail.get("flows").is_some());
        let stop = if answered_before_rules(answer) {
            Stop::BeforeRules
        } else if reason == "order_rule" {
            Stop::OrderRule
        } else if reason.starts_with("compensation_") {
            Stop::Undo
        } else if CONDITION_REASONS.contains(&reason) {
            Stop::Condition
        } else if gate_refused {
            Stop::GateRefused
        } else {
            Stop::Passed
        };
        stop == self.stop
    }
}

/// The reasons of steps 1 to 4, which answer before any rule of the record is read.
const BEFORE_RULES: &[&str] = &[
    "history_invalid",
    "unknown_tool",
    "agent_required",
    "licence_lapsed",
    "argument_schema",
    "undeclared_destination",
];

/// The reasons of step 7.
const CONDITION_REASONS: &[&str] = &[
    "condition_unknown",
    "condition_failed",
    "usage_unknown",
    "limit_reached",
    "spend_unknown",
    "spend_exceeded",
];

fn answered_before_rules(answer: &Check) -> bool {
    answer.decision == Decision::Refuse
        && answer
            .reasons
            .first()
            .is_some_and(|r| BEFORE_RULES.contains(&r.as_str()))
}

/// Traces the check that answered `answer` to `call`; `before` is the session as it was before
/// that check appended the call's entry.
pub fn trace(body: &ArchivedRecordBody, before: &Session, call: &Call, answer: &Check) -> Trace {
    let mut events = Vec::new();
    let found = tool_index(body, &call.tool)
        .and_then(|i| Some((u32::try_from(i).ok()?, body.tools.get(i)?)));
    let Some((t, tool)) = found.filter(|_| !answered_before_rules(answer)) else {
        return Trace {
            events,
            stop: Stop::BeforeRules,
        };
    };
    let stop = walk(body, before, call, answer, t, tool, &mut events);
    Trace { events, stop }
}

fn walk(
    body: &ArchivedRecordBody,
    session: &Session,
    call: &Call,
    answer: &Check,
    t: u32,
    tool: &ArchivedTool,
    events: &mut Vec<Event>,
) -> Stop {
    let mut note = |item: Item, held: Option<bool>| {
        events.push(Event { item, held });
        held == Some(true)
    };
    // 5. Order rules, in the order the check reads them.
    for (i, after) in tool.after.iter().enumerate() {
        let Some(other) = body.tools.get(after.tool.to_native() as usize) else {
            return Stop::OrderRule;
        };
        let bound = session.allowed_calls().any(|c| {
            c.tool.as_str() == other.name.as_str()
                && session.ran(c)
                && after.bind.iter().all(|pair| {
                    match (
                        member(&call.arguments, pair.0.as_str()),
                        argument_or_result(session, c, pair.1.as_str()),
                    ) {
                        (Some(a), Some(b)) => json_eq(a, b),
                        (None, _) => true,
                        _ => false,
                    }
                })
        });
        if !note(
            Item::After {
                tool: t,
                index: i as u32,
            },
            Some(bound),
        ) {
            return Stop::OrderRule;
        }
    }
    for (i, rule) in tool.not_after.iter().enumerate() {
        let hit = match rule {
            ArchivedNotAfter::Untrusted => session.allowed_calls().any(|c| {
                counts(body, session, c)
                    && find_tool(body, &c.tool).is_some_and(|x| x.reads_outside)
            }),
            ArchivedNotAfter::Tool(o) => {
                let Some(other) = body.tools.get(o.to_native() as usize) else {
                    return Stop::OrderRule;
                };
                session
                    .allowed_calls()
                    .any(|c| c.tool.as_str() == other.name.as_str() && counts(body, session, c))
            }
        };
        if !note(
            Item::NotAfter {
                tool: t,
                index: i as u32,
            },
            Some(!hit),
        ) {
            return Stop::OrderRule;
        }
    }
    if let Some(limit) = tool.at_most.as_ref()
        && limit.per.is_none()
    {
        let used = session
            .allowed_calls()
            .filter(|c| c.tool == call.tool && counts(body, session, c))
            .count();
        if !note(
            Item::AtMost { tool: t },
            Some(used < limit.count.to_native() as usize),
        ) {
            return Stop::OrderRule;
        }
    }
    // 6. An undo is bound to what it undoes; its answer says whether it was.
    if call.undoes.is_some() {
        let reason = answer.reasons.first().map(|r| r.as_str()).unwrap_or("");
        if reason.starts_with("compensation_") {
            return Stop::Undo;
        }
    } else if !conditions(body, session, call, t, tool, &mut note) {
        // 7. Checks, limits and spend.
        return Stop::Condition;
    }
    // 8. The gate.
    gate(body, session, call, t, tool, events)
}

/// Step 7's items; false when one refused.
fn conditions(
    body: &ArchivedRecordBody,
    session: &Session,
    call: &Call,
    t: u32,
    tool: &ArchivedTool,
    note: &mut impl FnMut(Item, Option<bool>) -> bool,
) -> bool {
    for (i, check) in tool.checks.iter().enumerate() {
        let Some(value) = member(&call.arguments, check.argument.as_str()) else {
            continue;
        };
        let operand = match &check.operand {
            ArchivedCheckOperand::Value(v) => {
                Some(to_json(body, v.to_native()).unwrap_or(Value::Null))
            }
            ArchivedCheckOperand::From { tool: from, field } => {
                let Some(other) = body.tools.get(from.to_native() as usize) else {
                    return false;
                };
                session
                    .allowed_calls()
                    .rev()
                    .filter(|c| c.tool.as_str() == other.name.as_str())
                    .find_map(|c| session.result_of(c))
                    .and_then(|r| r.get(field.as_str()))
                    .cloned()
            }
        };
        let item = Item::Check {
            tool: t,
            index: i as u32,
        };
        let Some(operand) = operand else {
            note(item, None);
            return false;
        };
        let holds = match check.op {
            ArchivedCheckOp::AtMost => {
                matches!((value.as_f64(), operand.as_f64()), (Some(a), Some(b)) if a <= b)
            }
            ArchivedCheckOp::AtLeast => {
                matches!((value.as_f64(), operand.as_f64()), (Some(a), Some(b)) if a >= b)
            }
            ArchivedCheckOp::Equals => json_eq(value, &operand),
            ArchivedCheckOp::OneOf => operand
                .as_array()
                .is_some_and(|items| items.iter().any(|x| json_eq(x, value))),
        };
        if !note(item, Some(holds)) {
            return false;
        }
    }
    let host = |key: &str, per: &ArchivedPeriod| -> Option<f64> {
        call.context
            .get(key)?
            .get(call.tool.as_str())?
            .get(period_word(per))?
            .as_f64()
    };
    if let Some(limit) = tool.at_most.as_ref()
        && let Some(per) = limit.per.as_ref()
    {
        let held = host("usage", per).map(|used| used < f64::from(limit.count.to_native()));
        if !note(Item::AtMost { tool: t }, held) {
            return false;
        }
    }
    if let Some(spend) = tool.spend.as_ref() {
        let amount = member(&call.arguments, spend.argument.as_str())
            .and_then(Value::as_f64)
            .unwrap_or(0.0);
        let held =
            host("spent", &spend.per).map(|spent| spent + amount <= spend.at_most.to_native());
        if !note(Item::Spend { tool: t }, held) {
            return false;
        }
    }
    true
}

/// Step 8: each path the gate reads, in file order, until one decides; and each comparison of
/// each condition it evaluates.
fn gate(
    body: &ArchivedRecordBody,
    session: &Session,
    call: &Call,
    t: u32,
    tool: &ArchivedTool,
    events: &mut Vec<Event>,
) -> Stop {
    let gate = &tool.gate;
    if !gate.governed {
        return Stop::Passed;
    }
    let scope = Scope {
        body,
        session,
        arguments: &call.arguments,
        context: &call.context,
    };
    for (p, path) in gate.paths.iter().enumerate() {
        if let Some(needed) = path.intent.as_ref()
            && call.intent.as_deref() != Some(needed.as_str())
        {
            continue;
        }
        let allows = matches!(path.action, ArchivedGateAction::Allow);
        let holds = match path.condition.as_ref() {
            None => true,
            Some(idx) => {
                let root = idx.to_native();
                comparisons(&scope, root, 0, events);
                let value = eval_expr(&scope, root, 0).truth();
                if scope
                    .body
                    .exprs
                    .get(root as usize)
                    .is_some_and(|e| !is_comparison(e))
                {
                    events.push(Event {
                        item: Item::Condition { expr: root },
                        held: value,
                    });
                }
                value.unwrap_or(!allows)
            }
        };
        events.push(Event {
            item: Item::GatePath {
                tool: t,
                path: p as u32,
            },
            held: Some(holds),
        });
        if holds {
            return if allows || matches!(path.action, ArchivedGateAction::Ask { .. }) {
                Stop::Passed
            } else {
                Stop::GateRefused
            };
        }
    }
    match gate.default.as_ref() {
        Some(stalwart_record::ArchivedGateDefault::Allow) => Stop::Passed,
        _ => Stop::GateRefused,
    }
}

/// Records the value of every comparison under expression `idx` (the gate evaluates every node
/// of a condition: `and` and `or` read both sides).
fn comparisons(scope: &Scope<'_>, idx: u32, depth: usize, events: &mut Vec<Event>) {
    const MAX_DEPTH: usize = 64;
    let Some(expr) = scope.body.exprs.get(idx as usize) else {
        return;
    };
    if depth > MAX_DEPTH {
        return;
    }
    let mut down =
        |i: &stalwart_record::ArchivedIdx| comparisons(scope, i.to_native(), depth + 1, events);
    match expr {
        ArchivedExpr::Not(e) | ArchivedExpr::IsNone(e) | ArchivedExpr::Member { base: e, .. } => {
            down(e)
        }
        ArchivedExpr::And(a, b) | ArchivedExpr::Or(a, b) => {
            down(a);
            down(b);
        }
        ArchivedExpr::Compare { left, right, .. } => {
            down(left);
            down(right);
        }
        ArchivedExpr::In { item, collection } => {
            down(item);
            down(collection);
        }
        ArchivedExpr::List(items) | ArchivedExpr::Call { args: items, .. } => {
            items.iter().for_each(&mut down)
        }
        ArchivedExpr::Method { receiver, args, .. } => {
            down(receiver);
            args.iter().for_each(&mut down);
        }
        _ => {}
    }
    if is_comparison(expr) {
        let held = match eval_expr(scope, idx, depth) {
            Val::Known(v) => Some(crate::compare::truthy(&v)),
            Val::Unknown => None,
        };
        events.push(Event {
            item: Item::Condition { expr: idx },
            held,
        });
    }
}

/// The nodes coverage counts each side of: comparisons, `in` and `is None`.
pub fn is_comparison(expr: &ArchivedExpr) -> bool {
    matches!(
        expr,
        ArchivedExpr::Compare { .. } | ArchivedExpr::In { .. } | ArchivedExpr::IsNone(_)
    )
}

/// The conditions coverage counts under a path's condition `idx`: every comparison node, in
/// evaluation order (children first), then the condition itself when it is not one (`$paid`,
/// `not $paid`, `a and b`).
pub fn conditions_under(body: &ArchivedRecordBody, idx: u32) -> Vec<u32> {
    fn go(body: &ArchivedRecordBody, idx: u32, depth: usize, out: &mut Vec<u32>) {
        let Some(expr) = body.exprs.get(idx as usize) else {
            return;
        };
        if depth > 64 {
            return;
        }
        let mut down = |i: &stalwart_record::ArchivedIdx| go(body, i.to_native(), depth + 1, out);
        match expr {
            ArchivedExpr::Not(e)
            | ArchivedExpr::IsNone(e)
            | ArchivedExpr::Member { base: e, .. } => down(e),
            ArchivedExpr::And(a, b) | ArchivedExpr::Or(a, b) => {
                down(a);
                down(b);
            }
            ArchivedExpr::Compare { left, right, .. } => {
                down(left);
                down(right);
            }
            ArchivedExpr::In { item, collection } => {
                down(item);
                down(collection);
            }
            ArchivedExpr::List(items) | ArchivedExpr::Call { args: items, .. } => {
                items.iter().for_each(&mut down)
            }
            ArchivedExpr::Method { receiver, args, .. } => {
                down(receiver);
                args.iter().for_each(&mut down);
            }
            _ => {}
        }
        if is_comparison(expr) {
            out.push(idx);
        }
    }
    let mut out = Vec::new();
    go(body, idx, 0, &mut out);
    if body
        .exprs
        .get(idx as usize)
        .is_some_and(|e| !is_comparison(e))
    {
        out.push(idx);
    }
    out
}

/// Whether an earlier call counts for `not_after` and `at_most` (as the check counts it).
fn counts(body: &ArchivedRecordBody, session: &Session, c: &CallEntry) -> bool {
    if c.decision != Decision::Allow {
        return false;
    }
    let read = find_tool(body, &c.tool).is_some_and(|t| !is_write(t));
    read || !matches!(session.outcome(c.step), Some((Outcome::Failed, _)))
}

fn period_word(p: &ArchivedPeriod) -> &'static str {
    match p {
        ArchivedPeriod::Hour => "hour",
        ArchivedPeriod::Day => "day",
        ArchivedPeriod::Week => "week",
        ArchivedPeriod::Month => "month",
    }
}
