//! The rulebook's gate (DESIGN §5.7) and the facts it reads (§5.6).

use serde_json::{Map, Value};
use stalwart_record::{
    ArchivedCompareOp, ArchivedExpr, ArchivedGateAction, ArchivedGateDefault, ArchivedRecordBody,
    ArchivedTool,
};

use crate::compare::{json_eq, member, truthy};
use crate::origin::find_tool;
use crate::session::Session;
use crate::value::to_json;

/// What the gate says about a call.
#[derive(Debug, Clone, PartialEq)]
pub enum GateVerdict {
    /// No rulebook governs the tool, or a path to it holds.
    Pass,
    /// A path to `bot <message>` holds: refuse with the message as the reason.
    Refuse { reason: String, flow: String },
    /// A path to a question holds: confirm with `gate_clarify`.
    Ask { question: String, flow: String },
    /// No path holds: refuse with `no_flow`. `intents` are the person's intents a path needed
    /// and the call did not have (in file order, each once): giving one of them may open a path.
    NoFlow {
        flows: Vec<String>,
        intents: Vec<String>,
    },
}

/// What a gate condition can read.
pub struct Scope<'a> {
    pub body: &'a ArchivedRecordBody,
    pub session: &'a Session,
    pub arguments: &'a Map<String, Value>,
    pub context: &'a Map<String, Value>,
}

/// Decides the gate for a tool: the first path in file order that holds decides.
pub fn eval_gate(scope: &Scope<'_>, tool: &ArchivedTool, intent: Option<&str>) -> GateVerdict {
    let gate = &tool.gate;
    if !gate.governed {
        return GateVerdict::Pass;
    }
    let mut missing: Vec<String> = Vec::new();
    for path in gate.paths.iter() {
        if let Some(needed) = path.intent.as_ref()
            && intent != Some(needed.as_str())
        {
            if !missing.iter().any(|m| m == needed.as_str()) {
                missing.push(needed.to_string());
            }
            continue;
        }
        let holds = match path.condition.as_ref() {
            None => true,
            Some(idx) => truthy(&eval_expr(scope, idx.to_native(), 0)),
        };
        if !holds {
            continue;
        }
        return match &path.action {
            ArchivedGateAction::Allow => GateVerdict::Pass,
            ArchivedGateAction::Refuse { message } => GateVerdict::Refuse {
                reason: message.to_string(),
                flow: path.flow.to_string(),
            },
            ArchivedGateAction::Ask { message } => GateVerdict::Ask {
                question: message.to_string(),
                flow: path.flow.to_string(),
            },
        };
    }
    match gate.default.as_ref() {
        Some(ArchivedGateDefault::Allow) => GateVerdict::Pass,
        _ => GateVerdict::NoFlow {
            flows: gate.flows.iter().map(|f| f.to_string()).collect(),
            intents: missing,
        },
    }
}

const MAX_DEPTH: usize = 64;

/// Evaluates a condition node to a JSON value (a fact nothing gives is null).
pub fn eval_expr(scope: &Scope<'_>, idx: u32, depth: usize) -> Value {
    let Some(expr) = scope.body.exprs.get(idx as usize) else {
        return Value::Null;
    };
    if depth > MAX_DEPTH {
        return Value::Null;
    }
    match expr {
        ArchivedExpr::Fact(name) => fact(scope, name.as_str()),
        ArchivedExpr::Arg(name) => member(scope.arguments, name.as_str())
            .cloned()
            .unwrap_or(Value::Null),
        ArchivedExpr::Literal(v) => to_json(scope.body, v.to_native()).unwrap_or(Value::Null),
        ArchivedExpr::Not(e) => Value::Bool(!truthy(&eval_expr(scope, e.to_native(), depth + 1))),
        ArchivedExpr::And(a, b) => Value::Bool(
            truthy(&eval_expr(scope, a.to_native(), depth + 1))
                && truthy(&eval_expr(scope, b.to_native(), depth + 1)),
        ),
        ArchivedExpr::Or(a, b) => Value::Bool(
            truthy(&eval_expr(scope, a.to_native(), depth + 1))
                || truthy(&eval_expr(scope, b.to_native(), depth + 1)),
        ),
        ArchivedExpr::Compare { op, left, right } => {
            let l = eval_expr(scope, left.to_native(), depth + 1);
            let r = eval_expr(scope, right.to_native(), depth + 1);
            Value::Bool(compare(op, &l, &r))
        }
    }
}

fn compare(op: &ArchivedCompareOp, l: &Value, r: &Value) -> bool {
    let nums = || Some((l.as_f64()?, r.as_f64()?));
    match op {
        ArchivedCompareOp::Eq => json_eq(l, r),
        ArchivedCompareOp::Ne => !json_eq(l, r),
        ArchivedCompareOp::Lt => nums().is_some_and(|(a, b)| a < b),
        ArchivedCompareOp::Le => nums().is_some_and(|(a, b)| a <= b),
        ArchivedCompareOp::Gt => nums().is_some_and(|(a, b)| a > b),
        ArchivedCompareOp::Ge => nums().is_some_and(|(a, b)| a >= b),
    }
}

/// A fact's value: agent.yaml's `facts:` when a call of its tool that ran answered (for the same
/// `same:` argument), else the caller's context, else null.
pub fn fact(scope: &Scope<'_>, name: &str) -> Value {
    if let Some(v) = file_fact(scope, name) {
        return Value::Bool(v);
    }
    scope.context.get(name).cloned().unwrap_or(Value::Null)
}

fn file_fact(scope: &Scope<'_>, name: &str) -> Option<bool> {
    let facts = scope.body.facts.as_slice();
    let fact = facts
        .binary_search_by(|f| f.name.as_str().cmp(name))
        .ok()
        .and_then(|i| facts.get(i))?;
    let tool = scope.body.tools.get(fact.tool.to_native() as usize)?;
    if tool.reads_outside {
        return None;
    }
    let same = fact.same.as_ref().map(|s| s.as_str());
    let mine = same.map(|s| scope.arguments.get(s));
    // Only an allowed call has a result.
    let call = scope.session.allowed_calls().rev().find(|c| {
        if c.tool.as_str() != tool.name.as_str() || scope.session.result_of(c).is_none() {
            return false;
        }
        match (same, mine) {
            (Some(s), Some(Some(mine))) => crate::compare::argument_or_result(scope.session, c, s)
                .is_some_and(|theirs| json_eq(mine, theirs)),
            (Some(_), _) => false,
            (None, _) => true,
        }
    })?;
    let result = scope.session.result_of(call)?;
    let field = result.get(fact.field.as_str()).unwrap_or(&Value::Null);
    Some(match fact.equals.as_ref() {
        Some(v) => to_json(scope.body, v.to_native()).is_some_and(|want| json_eq(field, &want)),
        None => truthy(field),
    })
}

/// Whether a fact names a tool the record has (for callers that list facts).
pub fn fact_tool<'b>(body: &'b ArchivedRecordBody, name: &str) -> Option<&'b ArchivedTool> {
    let fact = body.facts.iter().find(|f| f.name.as_str() == name)?;
    let tool = body.tools.get(fact.tool.to_native() as usize)?;
    find_tool(body, tool.name.as_str())
}
