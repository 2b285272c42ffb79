//! The rulebook's gate (DESIGN §5.7) and the facts it reads (§5.6).

use serde_json::{Map, Value};
use stalwart_record::{
    ArchivedCompareOp, ArchivedExpr, ArchivedFunc, ArchivedGateAction, ArchivedGateDefault,
    ArchivedRecordBody, ArchivedStrMethod, ArchivedTool,
};

use crate::compare::{json_eq, member, truthy};
use crate::origin::find_tool;
use crate::session::Session;
use crate::trace::{Item, Observer, is_comparison};
use crate::value::to_json;

/// What the gate says about a call.
#[derive(Debug, Clone, PartialEq)]
pub enum GateVerdict {
    /// No rulebook governs the tool, or a path to it holds (`path`: its index in the gate's
    /// paths; `None` when no rulebook governs the tool or the sheet's default allows).
    Pass { path: Option<usize> },
    /// A path to `bot <message>` holds: refuse with the message as the reason.
    Refuse {
        reason: String,
        flow: String,
        path: usize,
    },
    /// A path to a question holds: confirm with `gate_clarify`.
    Ask {
        question: String,
        flow: String,
        path: usize,
    },
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
    eval_gate_observed(scope, (0, tool), intent, &mut ())
}

/// The same for tool `t` of the record, telling `obs` each path it reads (held or not) and each
/// comparison it evaluates, with a condition that is not a comparison (`$paid`, `a and b`) told
/// after its comparisons.
pub(crate) fn eval_gate_observed<O: Observer>(
    scope: &Scope<'_>,
    (t, tool): (u32, &ArchivedTool),
    intent: Option<&str>,
    obs: &mut O,
) -> GateVerdict {
    let gate = &tool.gate;
    if !gate.governed {
        return GateVerdict::Pass { path: None };
    }
    let mut missing: Vec<String> = Vec::new();
    for (at, path) in gate.paths.iter().enumerate() {
        if let Some(needed) = path.intent.as_ref()
            && intent != Some(needed.as_str())
        {
            if !missing.iter().any(|m| m == needed.as_str()) {
                missing.push(needed.to_string());
            }
            continue;
        }
        let allows = matches!(path.action, ArchivedGateAction::Allow);
        let holds = match path.condition.as_ref() {
            None => true,
            // A condition on something the check never has: the path is possibly taken. A
            // refusal or a question on it applies; a call on it never passes (the safe side).
            Some(idx) => {
                let root = idx.to_native();
                let value = eval_expr_observed(scope, root, 0, obs).truth();
                if O::ACTIVE
                    && scope
                        .body
                        .exprs
                        .get(root as usize)
                        .is_some_and(|e| !is_comparison(e))
                {
                    obs.note(Item::Condition { expr: root }, value);
                }
                value.unwrap_or(!allows)
            }
        };
        obs.note(
            Item::GatePath {
                tool: t,
                path: at as u32,
            },
            Some(holds),
        );
        if !holds {
            continue;
        }
        return match &path.action {
            ArchivedGateAction::Allow => GateVerdict::Pass { path: Some(at) },
            ArchivedGateAction::Refuse { message } => GateVerdict::Refuse {
                reason: message.to_string(),
                flow: path.flow.to_string(),
                path: at,
            },
            ArchivedGateAction::Ask { message } => GateVerdict::Ask {
                question: message.to_string(),
                flow: path.flow.to_string(),
                path: at,
            },
        };
    }
    match gate.default.as_ref() {
        Some(ArchivedGateDefault::Allow) => GateVerdict::Pass { path: None },
        _ => GateVerdict::NoFlow {
            flows: gate.flows.iter().map(|f| f.to_string()).collect(),
            intents: missing,
        },
    }
}

const MAX_DEPTH: usize = 64;

/// A condition's value: a JSON value, or unknown (something the check never has).
#[derive(Debug, Clone, PartialEq)]
pub enum Val {
    Known(Value),
    Unknown,
}

impl Val {
    /// Its truth as the reference reads a condition (Python's), or `None` when unknown.
    pub fn truth(&self) -> Option<bool> {
        match self {
            Val::Known(v) => Some(truthy(v)),
            Val::Unknown => None,
        }
    }

    fn known(self) -> Option<Value> {
        match self {
            Val::Known(v) => Some(v),
            Val::Unknown => None,
        }
    }
}

/// Evaluates a condition node (a fact nothing gives is null). `and`, `or` and `not` follow
/// three-valued logic: `false and unknown` is false, `true or unknown` is true.
pub fn eval_expr(scope: &Scope<'_>, idx: u32, depth: usize) -> Val {
    eval_expr_observed(scope, idx, depth, &mut ())
}

/// The same, telling `obs` the value of each comparison node it evaluates (children first).
fn eval_expr_observed<O: Observer>(scope: &Scope<'_>, idx: u32, depth: usize, obs: &mut O) -> Val {
    let Some(expr) = scope.body.exprs.get(idx as usize) else {
        return Val::Known(Value::Null);
    };
    if depth > MAX_DEPTH {
        return Val::Known(Value::Null);
    }
    let value = eval_node(scope, expr, depth, obs);
    if O::ACTIVE && is_comparison(expr) {
        obs.note(Item::Condition { expr: idx }, value.truth());
    }
    value
}

fn eval_node<O: Observer>(
    scope: &Scope<'_>,
    expr: &ArchivedExpr,
    depth: usize,
    obs: &mut O,
) -> Val {
    let mut at =
        |i: &stalwart_record::ArchivedIdx| eval_expr_observed(scope, i.to_native(), depth + 1, obs);
    let known = |v: Value| Val::Known(v);
    match expr {
        ArchivedExpr::Fact(name) => known(fact(scope, name.as_str())),
        ArchivedExpr::Arg(name) => known(
            member(scope.arguments, name.as_str())
                .cloned()
                .unwrap_or(Value::Null),
        ),
        ArchivedExpr::Literal(v) => {
            known(to_json(scope.body, v.to_native()).unwrap_or(Value::Null))
        }
        ArchivedExpr::Not(e) => match at(e).truth() {
            Some(t) => known(Value::Bool(!t)),
            None => Val::Unknown,
        },
        ArchivedExpr::And(a, b) => match (at(a).truth(), at(b).truth()) {
            (Some(false), _) | (_, Some(false)) => known(Value::Bool(false)),
            (Some(true), Some(true)) => known(Value::Bool(true)),
            _ => Val::Unknown,
        },
        ArchivedExpr::Or(a, b) => match (at(a).truth(), at(b).truth()) {
            (Some(true), _) | (_, Some(true)) => known(Value::Bool(true)),
            (Some(false), Some(false)) => known(Value::Bool(false)),
            _ => Val::Unknown,
        },
        ArchivedExpr::Compare { op, left, right } => match (at(left), at(right)) {
            (Val::Known(l), Val::Known(r)) => known(Value::Bool(compare(op, &l, &r))),
            _ => Val::Unknown,
        },
        ArchivedExpr::Member { base, field } => match at(base) {
            Val::Known(v) => known(v.get(field.as_str()).cloned().unwrap_or(Value::Null)),
            Val::Unknown => Val::Unknown,
        },
        ArchivedExpr::List(items) => {
            let mut out = Vec::with_capacity(items.len());
            for i in items.iter() {
                match at(i) {
                    Val::Known(v) => out.push(v),
                    Val::Unknown => return Val::Unknown,
                }
            }
            known(Value::Array(out))
        }
        ArchivedExpr::In { item, collection } => match (at(item), at(collection)) {
            (Val::Known(i), Val::Known(c)) => known(Value::Bool(contains(&c, &i))),
            _ => Val::Unknown,
        },
        ArchivedExpr::IsNone(e) => match at(e) {
            Val::Known(v) => known(Value::Bool(v.is_null())),
            Val::Unknown => Val::Unknown,
        },
        ArchivedExpr::Call { func, args } => {
            let Some(arg) = args.first().map(at) else {
                return known(Value::Null);
            };
            match arg.known() {
                Some(v) => known(call(func, &v)),
                None => Val::Unknown,
            }
        }
        ArchivedExpr::Method {
            method,
            receiver,
            args,
        } => {
            let Some(recv) = at(receiver).known() else {
                return Val::Unknown;
            };
            let arg = match args.first().map(at) {
                Some(Val::Unknown) => return Val::Unknown,
                Some(Val::Known(v)) => Some(v),
                None => None,
            };
            known(string_method(method, &recv, arg.as_ref()))
        }
        ArchivedExpr::Result(tool) => known(latest_result(scope, tool.as_str())),
        ArchivedExpr::Unknown => Val::Unknown,
    }
}

/// `item in collection`, as Python reads it: an item of a list, a key of an object, a substring
/// of a string; anything else is false (where Python would fail, the condition does not hold).
fn contains(collection: &Value, item: &Value) -> bool {
    match (collection, item) {
        (Value::Array(items), _) => items.iter().any(|i| json_eq(i, item)),
        (Value::Object(members), Value::String(key)) => members.contains_key(key),
        (Value::String(text), Value::String(part)) => text.contains(part.as_str()),
        _ => false,
    }
}

/// A function of the condition language; null where Python would fail.
fn call(func: &ArchivedFunc, v: &Value) -> Value {
    match func {
        ArchivedFunc::Len => match v {
            Value::String(s) => Value::from(s.chars().count()),
            Value::Array(a) => Value::from(a.len()),
            Value::Object(o) => Value::from(o.len()),
            _ => Value::Null,
        },
        ArchivedFunc::IsStr => Value::Bool(v.is_string()),
        ArchivedFunc::IsInt => {
            Value::Bool(v.as_f64().is_some_and(|n| n.fract() == 0.0) && v.is_number())
        }
        ArchivedFunc::IsFloat => Value::Bool(v.is_f64()),
        ArchivedFunc::IsBool => Value::Bool(v.is_boolean()),
        ArchivedFunc::Str => match v {
            Value::String(s) => Value::String(s.clone()),
            other => Value::String(other.to_string()),
        },
        ArchivedFunc::Int => match v {
            Value::Number(n) => n
                .as_f64()
                .map(|f| Value::from(f.trunc() as i64))
                .unwrap_or(Value::Null),
            Value::String(s) => s
                .trim()
                .parse::<i64>()
                .map(Value::from)
                .unwrap_or(Value::Null),
            Value::Bool(b) => Value::from(i64::from(*b)),
            _ => Value::Null,
        },
        ArchivedFunc::Float => match v {
            Value::Number(n) => n.as_f64().map(Value::from).unwrap_or(Value::Null),
            Value::String(s) => s
                .trim()
                .parse::<f64>()
                .ok()
                .map(Value::from)
                .unwrap_or(Value::Null),
            _ => Value::Null,
        },
    }
}

/// A string method; null on anything but a string (and a string argument where one is needed).
fn string_method(method: &ArchivedStrMethod, recv: &Value, arg: Option<&Value>) -> Value {
    let Value::String(s) = recv else {
        return Value::Null;
    };
    let text = || match arg {
        Some(Value::String(a)) => Some(a.as_str()),
        _ => None,
    };
    match method {
        ArchivedStrMethod::Lower => Value::String(s.to_lowercase()),
        ArchivedStrMethod::Upper => Value::String(s.to_uppercase()),
        ArchivedStrMethod::Strip => Value::String(s.trim().to_string()),
        ArchivedStrMethod::StartsWith => {
            text().map_or(Value::Null, |a| Value::Bool(s.starts_with(a)))
        }
        ArchivedStrMethod::EndsWith => text().map_or(Value::Null, |a| Value::Bool(s.ends_with(a))),
    }
}

/// The result the latest call of `tool` that ran in the session reported (null before one did).
/// Never one of a `reads_outside` tool: anyone could write what it returns.
fn latest_result(scope: &Scope<'_>, tool: &str) -> Value {
    if find_tool(scope.body, tool).is_some_and(|t| t.reads_outside) {
        return Value::Null;
    }
    scope
        .session
        .allowed_calls()
        .rev()
        .filter(|c| c.tool.as_str() == tool)
        .find_map(|c| scope.session.result_of(c))
        .cloned()
        .unwrap_or(Value::Null)
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
