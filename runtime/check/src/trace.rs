//! What one check exercised of the record, for coverage (`stalwart test --coverage`): each order
//! rule, argument check, limit, gate path and comparison the check evaluated, and how each came
//! out.
//!
//! The check itself tells it: steps 5, 7 and 8 take an [`Observer`] and note each rule as they
//! evaluate it, so what coverage counts is what decided, never a restatement of it.
//! [`crate::check_tool_call`] observes with `()`, which keeps nothing and compiles away;
//! [`crate::check_tool_call_traced`] keeps the events ([`Trace`]).

use stalwart_record::{ArchivedExpr, ArchivedRecordBody};

use crate::check::Check;
use crate::session::Decision;

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
    /// The events a check told its observer, and where its answer says it stopped.
    pub fn of(events: Vec<Event>, answer: &Check) -> Self {
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
        Self { events, stop }
    }
}

/// What the check tells as it evaluates steps 5, 7 and 8: each rule and comparison, and how it
/// came out. The check's own path observes with `()`, which notes nothing: `ACTIVE` is false,
/// so what only an observer needs is not even worked out.
pub trait Observer {
    /// Whether the observer keeps anything.
    const ACTIVE: bool;
    fn note(&mut self, item: Item, held: Option<bool>);
}

impl Observer for () {
    const ACTIVE: bool = false;
    #[inline(always)]
    fn note(&mut self, _: Item, _: Option<bool>) {}
}

impl Observer for Vec<Event> {
    const ACTIVE: bool = true;
    fn note(&mut self, item: Item, held: Option<bool>) {
        self.push(Event { item, held });
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
