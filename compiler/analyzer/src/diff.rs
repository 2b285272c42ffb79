//! Two records compared tool by tool (`stalwart diff`): what this crate can say from the records
//! alone. Whether two gates decide some call differently (the enumeration of `theory`, exact in
//! its fragment; z3 beyond it, with the `z3` feature), the calls to try on both records (valid
//! arguments, values at each schema's and each check's edges, host counts at each limit), and
//! canonical texts of everything else that decides a call, so that two tools whose texts agree
//! and whose gates are proved alike decide every call alike.
//!
//! The driver runs every candidate through the tool check on both records: a difference is
//! reported only once the check has decided the call differently on the two.

use std::collections::BTreeSet;

use serde_json::{Map, Number, Value as JsonValue};
use stalwart_record::{
    Additional, After, CheckOperand, Gate, GateAction, GateDefault, NotAfter, RecordBody,
    SchemaIdx, SchemaNode, StringFormat, Tool, TypeSet, Undo, Value,
};

use crate::theory::{Cond, Fragment, Json, literal, next_combination, term_key};

/// What a gate answers a call, as the check reads it: the flow's name is not part of it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Outcome {
    Pass,
    Refuse(String),
    Ask(String),
    NoFlow,
}

/// Values of the terms of two gates' conditions, with the person's intent, on which the two
/// gates answer differently.
#[derive(Debug, Clone, PartialEq)]
pub struct Assignment {
    pub intent: Option<String>,
    /// Each term by its key (`arg amount`, `fact order_paid`, …) with its value.
    pub terms: Vec<(String, Json)>,
}

/// Whether two gates decide alike.
#[derive(Debug, Clone, PartialEq)]
pub enum GateDiff {
    /// No values of facts, arguments and intent make them answer differently.
    Same,
    /// Values on which they do (the first few found).
    Differ(Vec<Assignment>),
    /// Neither engine decides; why.
    Undecided(String),
}

/// The most assignments kept for one pair of gates.
const MAX_ASSIGNMENTS: usize = 48;

/// Whether `old` (a gate of `old_body`) and `new` (of `new_body`) answer every call alike.
pub fn gate_diff(old_body: &RecordBody, old: &Gate, new_body: &RecordBody, new: &Gate) -> GateDiff {
    if gate_canon(old_body, old) == gate_canon(new_body, new) {
        return GateDiff::Same;
    }
    if reads_unknown(old_body, old) || reads_unknown(new_body, new) {
        return GateDiff::Undecided(
            "a condition reads something the check never has (a message, a model's answer)".into(),
        );
    }
    match enumerate(old_body, old, new_body, new) {
        Some(diff) => diff,
        None => beyond_fragment(old_body, old, new_body, new),
    }
}

#[cfg(feature = "z3")]
fn beyond_fragment(
    old_body: &RecordBody,
    old: &Gate,
    new_body: &RecordBody,
    new: &Gate,
) -> GateDiff {
    crate::smt::gate_diff(old_body, old, new_body, new)
}

#[cfg(not(feature = "z3"))]
fn beyond_fragment(_: &RecordBody, _: &Gate, _: &RecordBody, _: &Gate) -> GateDiff {
    GateDiff::Undecided("the conditions are beyond the enumeration and z3 is not built in".into())
}

/// The intents a call may carry that two gates tell apart: none, and each a path names.
pub fn intents(gates: &[&Gate]) -> Vec<Option<String>> {
    let mut named = BTreeSet::new();
    for g in gates {
        for p in &g.paths {
            if let Some(i) = &p.intent {
                named.insert(i.clone());
            }
        }
    }
    std::iter::once(None)
        .chain(named.into_iter().map(Some))
        .collect()
}

/// The enumeration: `None` when the conditions are beyond its fragment.
fn enumerate(
    old_body: &RecordBody,
    old: &Gate,
    new_body: &RecordBody,
    new: &Gate,
) -> Option<GateDiff> {
    let mut fragment = Fragment::default();
    let mut read = |body: &RecordBody, gate: &Gate| -> Option<Vec<Option<Cond>>> {
        gate.paths
            .iter()
            .map(|p| p.condition.map(|c| fragment.add(body, c, 0)).transpose())
            .collect::<Result<_, _>>()
            .ok()
    };
    let old_conds = read(old_body, old)?;
    let new_conds = read(new_body, new)?;
    let keys = fragment.keys().to_vec();
    let standing = fragment.standing().ok()?;
    let intents = intents(&[old, new]);
    let mut found = Vec::new();
    let mut at = vec![0; standing.len()];
    loop {
        let terms: Vec<Json> = at
            .iter()
            .zip(&standing)
            .filter_map(|(&d, values)| values.get(d).cloned())
            .collect();
        for intent in &intents {
            let a = outcome(old, &old_conds, intent.as_deref(), &terms);
            let b = outcome(new, &new_conds, intent.as_deref(), &terms);
            if a != b && found.len() < MAX_ASSIGNMENTS {
                found.push(Assignment {
                    intent: intent.clone(),
                    terms: keys.iter().cloned().zip(terms.iter().cloned()).collect(),
                });
            }
        }
        if found.len() >= MAX_ASSIGNMENTS || !next_combination(&mut at, &standing) {
            break;
        }
    }
    Some(if found.is_empty() {
        GateDiff::Same
    } else {
        // Simple calls first: those with the fewest terms that are not null.
        found.sort_by_key(|a| a.terms.iter().filter(|(_, v)| *v != Json::Null).count());
        GateDiff::Differ(found)
    })
}

/// The gate's answer, as the check's `eval_gate` gives it, with term `i` at `terms[i]`.
pub fn outcome(
    gate: &Gate,
    conds: &[Option<Cond>],
    intent: Option<&str>,
    terms: &[Json],
) -> Outcome {
    if !gate.governed {
        return Outcome::Pass;
    }
    for (path, cond) in gate.paths.iter().zip(conds) {
        if path.intent.as_deref().is_some_and(|i| Some(i) != intent) {
            continue;
        }
        if cond.as_ref().is_some_and(|c| !c.eval(terms).truthy()) {
            continue;
        }
        return action_outcome(&path.action);
    }
    match gate.default {
        Some(GateDefault::Allow) => Outcome::Pass,
        _ => Outcome::NoFlow,
    }
}

pub(crate) fn action_outcome(action: &GateAction) -> Outcome {
    match action {
        GateAction::Allow => Outcome::Pass,
        GateAction::Refuse { message } => Outcome::Refuse(message.clone()),
        GateAction::Ask { message } => Outcome::Ask(message.clone()),
    }
}

fn reads_unknown(body: &RecordBody, gate: &Gate) -> bool {
    gate.paths.iter().any(|p| {
        p.condition
            .and_then(|c| term_key(body, c, 0))
            .is_some_and(|k| k.contains("unknown #"))
    })
}

/// What decides with a gate, without its flows' names and places: governed, each path's intent,
/// condition and action, the default.
pub fn gate_canon(body: &RecordBody, gate: &Gate) -> String {
    let paths: Vec<String> = gate
        .paths
        .iter()
        .map(|p| {
            let cond = p
                .condition
                .map(|c| term_key(body, c, 0).unwrap_or_else(|| "?".into()));
            format!("{:?} {:?} {:?}", p.intent, cond, p.action)
        })
        .collect();
    format!("{} {:?} {:?}", gate.governed, gate.default, paths)
}

/// A term's value as the call gives it.
pub fn json_value(j: &Json) -> JsonValue {
    match j {
        Json::Null => JsonValue::Null,
        Json::Bool(b) => JsonValue::Bool(*b),
        Json::Num(n) => number(*n),
        Json::Str(s) => JsonValue::String(s.clone()),
        Json::Other(text) => serde_json::from_str(text).unwrap_or_else(|_| {
            JsonValue::Array(vec![JsonValue::String(text.trim_start_matches('#').into())])
        }),
    }
}

/// A number, written as an integer when it is one.
pub fn number(n: f64) -> JsonValue {
    if n.fract() == 0.0 && n.abs() < 1e15 {
        JsonValue::Number(Number::from(n as i64))
    } else {
        Number::from_f64(n).map_or(JsonValue::Null, JsonValue::Number)
    }
}

/// A value of the record's arena as JSON.
pub fn record_value(body: &RecordBody, v: u32, depth: usize) -> JsonValue {
    if depth > 32 {
        return JsonValue::Null;
    }
    match body.values.get(v as usize) {
        None | Some(Value::Null) => JsonValue::Null,
        Some(Value::Bool(b)) => JsonValue::Bool(*b),
        Some(Value::Number(n)) => number(*n),
        Some(Value::String(s)) => JsonValue::String(s.clone()),
        Some(Value::Array(items)) => JsonValue::Array(
            items
                .iter()
                .map(|i| record_value(body, *i, depth + 1))
                .collect(),
        ),
        Some(Value::Object(members)) => JsonValue::Object(
            members
                .iter()
                .map(|(k, i)| (k.clone(), record_value(body, *i, depth + 1)))
                .collect(),
        ),
    }
}

fn tool_name(body: &RecordBody, idx: u32) -> &str {
    body.tools
        .get(idx as usize)
        .map_or("?", |t| t.name.as_str())
}

/// Everything of a tool, besides its gate, that the check reads, with tools named by name and
/// schemas written out: two tools whose texts agree decide every call alike (with the same
/// gate and the same world).
pub fn tool_canon(body: &RecordBody, tool: &Tool) -> String {
    let after: Vec<(String, &Vec<(String, String)>)> = tool
        .after
        .iter()
        .map(|After { tool: t, bind }| (tool_name(body, *t).to_string(), bind))
        .collect();
    let not_after: Vec<String> = tool
        .not_after
        .iter()
        .map(|n| match n {
            NotAfter::Tool(t) => tool_name(body, *t).to_string(),
            NotAfter::Untrusted => "untrusted".to_string(),
        })
        .collect();
    let undo = match &tool.undo {
        Undo::Unset => "unset".to_string(),
        Undo::None => "none".to_string(),
        Undo::Tool { tool: t, bind } => format!("{} {bind:?}", tool_name(body, *t)),
    };
    let checks: Vec<String> = tool
        .checks
        .iter()
        .map(|c| {
            let operand = match &c.operand {
                CheckOperand::Value(v) => record_value(body, *v, 0).to_string(),
                CheckOperand::From { tool: t, field } => {
                    format!("from {}.{field}", tool_name(body, *t))
                }
            };
            format!("{} {:?} {operand}", c.argument, c.op)
        })
        .collect();
    // `idempotency` is left out: it gives an allowed or confirmed call its key and decides
    // nothing.
    format!(
        "effects {:?}; arguments {}; sends_out {}; reads_outside {}; requires {:?}; after {after:?}; \
         not_after {not_after:?}; at_most {:?}; undo {undo}; irreversible {}; \
         checks {checks:?}; spend {:?}; kinds {:?}; partial {}; result_fields {:?}",
        tool.effects,
        tool.arguments
            .map_or("none".to_string(), |s| schema_canon(body, s, 0)),
        tool.sends_out,
        tool.reads_outside,
        tool.requires,
        tool.at_most,
        tool.irreversible,
        tool.spend,
        tool.argument_kinds,
        tool.schema_partial,
        tool.result_fields,
    )
}

/// A schema node written out (a `$ref` followed a few levels deep).
pub fn schema_canon(body: &RecordBody, idx: SchemaIdx, depth: usize) -> String {
    let Some(n) = body.schema_nodes.get(idx as usize) else {
        return "missing".into();
    };
    if depth > 8 {
        return "deep".into();
    }
    let at = |i: &SchemaIdx| schema_canon(body, *i, depth + 1);
    let all = |xs: &[SchemaIdx]| xs.iter().map(at).collect::<Vec<_>>();
    let mut required = n.required.clone();
    required.sort();
    let mut props: Vec<(String, String)> = n
        .properties
        .iter()
        .map(|(k, i)| (k.clone(), at(i)))
        .collect();
    props.sort();
    let additional = match n.additional {
        Additional::Allow => "allow".to_string(),
        Additional::Deny => "deny".to_string(),
        Additional::Schema(s) => at(&s),
    };
    let enums: Vec<String> = n
        .enum_values
        .iter()
        .map(|v| record_value(body, *v, 0).to_string())
        .collect();
    format!(
        "{{types {} props {props:?} required {required:?} additional {additional} enum {} {enums:?} \
         const {:?} min {:?} max {:?} xmin {:?} xmax {:?} len {:?}..{:?} pattern {:?} items {:?} \
         count {:?}..{:?} any {:?} all {:?} one {:?} ref {:?} names {:?} patterns {:?} format {:?}}}",
        n.types,
        n.has_enum,
        n.constant.map(|v| record_value(body, v, 0).to_string()),
        n.minimum,
        n.maximum,
        n.exclusive_minimum,
        n.exclusive_maximum,
        n.min_length,
        n.max_length,
        n.pattern,
        n.items.as_ref().map(at),
        n.min_items,
        n.max_items,
        all(&n.any_of),
        all(&n.all_of),
        all(&n.one_of),
        n.reference.as_ref().map(at),
        n.property_names.as_ref().map(at),
        n.pattern_properties
            .iter()
            .map(|(p, s)| (p.clone(), at(s)))
            .collect::<Vec<_>>(),
        n.format,
    )
}

/// What else a tool's decisions read beyond the tool: the settings, the facts its gate reads, the
/// privilege of the agent calling, and everything of the tools its rules name (and, when it is
/// irreversible, of every undoable tool; when it must not follow an untrusted read, of every tool
/// that reads outside) that decides whether an earlier call of theirs runs: their rules, their
/// gates, whether the agent may call them.
pub fn world_canon(
    body: &RecordBody,
    tool: &Tool,
    agent: Option<&str>,
    named: &BTreeSet<String>,
) -> String {
    let read = facts_read(body, &tool.gate);
    let facts: Vec<String> = body
        .facts
        .iter()
        .filter(|f| read.contains(&f.name))
        .map(|f| {
            format!(
                "{} {}.{} {:?} {:?}",
                f.name,
                tool_name(body, f.tool),
                f.field,
                f.equals.map(|v| record_value(body, v, 0)),
                f.same
            )
        })
        .collect();
    // An irreversible write reads whether any undoable write ran before it; `not_after:
    // untrusted`, whether any tool that reads outside did.
    let pivot = tool.irreversible;
    let untrusted = tool.not_after.contains(&NotAfter::Untrusted);
    let read = |t: &Tool| {
        named.contains(&t.name)
            || pivot && matches!(t.undo, Undo::Tool { .. })
            || untrusted && t.reads_outside
    };
    let me = agent.and_then(|a| body.agents.iter().find(|x| x.name == a));
    // Whether an earlier call of another tool is allowed to run decides what the history holds:
    // every rule of each such tool, its gate and whether the agent may call it.
    let flags: Vec<String> = body
        .tools
        .iter()
        .enumerate()
        .filter(|(_, t)| t.name != tool.name && read(t))
        .map(|(i, t)| {
            let reaches = me.is_none_or(|a| a.tools.contains(&(i as u32)));
            format!(
                "{} {reaches} {} {}",
                t.name,
                tool_canon(body, t),
                gate_canon(body, &t.gate)
            )
        })
        .collect();
    let me = me.map(|a| format!("{:?} {:?}", a.privilege, a.on_unread));
    format!("{:?} {facts:?} {flags:?} {me:?}", body.settings)
}

/// The facts a gate's conditions read, by name.
pub fn facts_read(body: &RecordBody, gate: &Gate) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    for p in &gate.paths {
        let Some(key) = p.condition.and_then(|c| term_key(body, c, 0)) else {
            continue;
        };
        for (at, _) in key.match_indices("fact ") {
            let name: String = key[at + 5..]
                .chars()
                .take_while(|c| c.is_alphanumeric() || *c == '_')
                .collect();
            out.insert(name);
        }
    }
    out
}

/// The tools a tool's rules name: `after`, `not_after`, checks `from`, and the tools the facts
/// read. (Its `undo` tool is named in its own text; that tool's rules decide calls of it.)
pub fn named_tools(body: &RecordBody, tool: &Tool) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    for a in &tool.after {
        out.insert(tool_name(body, a.tool).to_string());
    }
    for n in &tool.not_after {
        if let NotAfter::Tool(t) = n {
            out.insert(tool_name(body, *t).to_string());
        }
    }
    for c in &tool.checks {
        if let CheckOperand::From { tool: t, .. } = &c.operand {
            out.insert(tool_name(body, *t).to_string());
        }
    }
    for f in &body.facts {
        out.insert(tool_name(body, f.tool).to_string());
    }
    out
}

/// A value the schema node accepts (a good guess: the check confirms it): its constant, its
/// first enum member, else a value of its first type inside its bounds.
pub fn valid_value(body: &RecordBody, idx: SchemaIdx, depth: usize) -> JsonValue {
    let Some(n) = body.schema_nodes.get(idx as usize) else {
        return JsonValue::String("A1".into());
    };
    if depth > 6 {
        return JsonValue::Null;
    }
    if let Some(c) = n.constant {
        return record_value(body, c, 0);
    }
    if let Some(v) = n.enum_values.first() {
        return record_value(body, *v, 0);
    }
    if let Some(r) = n.reference {
        return valid_value(body, r, depth + 1);
    }
    if let Some(first) = n.any_of.first().or(n.one_of.first()) {
        return valid_value(body, *first, depth + 1);
    }
    if let Some(first) = n.all_of.first()
        && n.types == 0
        && n.properties.is_empty()
    {
        return valid_value(body, *first, depth + 1);
    }
    let has = |bit: u8| n.types == 0 || n.types & bit != 0;
    if n.types == 0 && !n.properties.is_empty() || n.types & TypeSet::OBJECT != 0 {
        return JsonValue::Object(object_of(body, n, depth));
    }
    if has(TypeSet::STRING) {
        return JsonValue::String(text_of(n));
    }
    if has(TypeSet::INTEGER) || has(TypeSet::NUMBER) {
        return number(number_in(n));
    }
    if has(TypeSet::BOOLEAN) {
        return JsonValue::Bool(true);
    }
    if has(TypeSet::ARRAY) {
        let item = n.items.map_or(JsonValue::String("A1".into()), |i| {
            valid_value(body, i, depth + 1)
        });
        return JsonValue::Array(vec![item; n.min_items.unwrap_or(0) as usize]);
    }
    JsonValue::Null
}

fn object_of(body: &RecordBody, n: &SchemaNode, depth: usize) -> Map<String, JsonValue> {
    n.properties
        .iter()
        .map(|(k, i)| (k.clone(), valid_value(body, *i, depth + 1)))
        .collect()
}

fn text_of(n: &SchemaNode) -> String {
    let mut s = match n.format {
        Some(StringFormat::DateTime) => "2026-01-01T00:00:00Z".to_string(),
        Some(StringFormat::Date) => "2026-01-01".to_string(),
        Some(StringFormat::Email) => "someone@example.com".to_string(),
        Some(StringFormat::Uri) => "urn:a1".to_string(),
        Some(StringFormat::Uuid) => "00000000-0000-4000-8000-000000000001".to_string(),
        None => "A1".to_string(),
    };
    let min = n.min_length.unwrap_or(0) as usize;
    while s.chars().count() < min {
        s.push('1');
    }
    if let Some(max) = n.max_length {
        s = s.chars().take(max as usize).collect();
    }
    s
}

fn number_in(n: &SchemaNode) -> f64 {
    let mut x: f64 = 1.0;
    if let Some(m) = n.minimum {
        x = x.max(m.ceil());
    }
    if let Some(m) = n.exclusive_minimum {
        x = x.max(m.floor() + 1.0);
    }
    if let Some(m) = n.maximum {
        x = x.min(m.floor());
    }
    if let Some(m) = n.exclusive_maximum {
        x = x.min(m.ceil() - 1.0);
    }
    x
}

/// Valid arguments for a tool: a valid value of every declared argument.
pub fn base_arguments(body: &RecordBody, tool: &Tool) -> Map<String, JsonValue> {
    match tool
        .arguments
        .and_then(|s| body.schema_nodes.get(s as usize))
    {
        Some(n) => object_of(body, n, 0),
        None => Map::new(),
    }
}

/// Values to try for each argument a tool's schema or checks name: one of every kind (and an
/// address and a URL), the edges
/// of its bounds, its enum members and constant, the constants the checks and the spend compare
/// it with, and each side of them. `None` in the list means the argument left out.
pub fn argument_values(body: &RecordBody, tool: &Tool) -> Vec<(String, Vec<Option<JsonValue>>)> {
    let mut out: Vec<(String, Vec<Option<JsonValue>>)> = Vec::new();
    let mut push = |name: &str, v: Option<JsonValue>| {
        let at = match out.iter().position(|(k, _)| k == name) {
            Some(i) => i,
            None => {
                out.push((name.to_string(), Vec::new()));
                out.len() - 1
            }
        };
        if let Some((_, list)) = out.get_mut(at)
            && !list.contains(&v)
        {
            list.push(v);
        }
    };
    let kinds = [
        JsonValue::Null,
        JsonValue::Bool(true),
        number(0.0),
        number(1.0),
        number(-1.0),
        number(1.5),
        JsonValue::String("A1".into()),
        JsonValue::String(String::new()),
        // Destinations: a tool that sends nothing out refuses them (`sends_out`,
        // `argument_kinds`).
        JsonValue::String("someone@example.com".into()),
        JsonValue::String("https://example.com/a".into()),
        JsonValue::Array(Vec::new()),
        JsonValue::Object(Map::new()),
    ];
    if let Some(n) = tool
        .arguments
        .and_then(|s| body.schema_nodes.get(s as usize))
    {
        for (name, idx) in &n.properties {
            push(name, None);
            for k in &kinds {
                push(name, Some(k.clone()));
            }
            if let Some(p) = body.schema_nodes.get(*idx as usize) {
                for v in edge_values(body, p) {
                    push(name, Some(v));
                }
            }
        }
        for name in &n.required {
            push(name, None);
        }
        // An argument no schema declares.
        push("undeclared", Some(JsonValue::String("A1".into())));
    } else {
        push("undeclared", Some(JsonValue::String("A1".into())));
    }
    for c in &tool.checks {
        push(&c.argument, None);
        if let CheckOperand::Value(v) = &c.operand {
            let value = record_value(body, *v, 0);
            for around in around(&value) {
                push(&c.argument, Some(around));
            }
            if let JsonValue::Array(items) = &value {
                for i in items {
                    push(&c.argument, Some(i.clone()));
                }
            }
        } else {
            for k in [number(0.0), number(100.0), number(101.0)] {
                push(&c.argument, Some(k));
            }
        }
    }
    if let Some(s) = &tool.spend {
        for v in [s.at_most, s.at_most + 1.0, s.at_most - 1.0, 0.0] {
            push(&s.argument, Some(number(v)));
        }
    }
    out
}

/// Strings on which the `pattern`s of an argument's two schemas disagree, found by z3 within
/// both schemas' lengths (see `smt::pattern_witnesses`): for each top-level argument whose
/// pattern differs between `old` (a tool of `old_body`) and `new`.
#[cfg(feature = "z3")]
pub fn pattern_values(
    old_body: &RecordBody,
    old: &Tool,
    new_body: &RecordBody,
    new: &Tool,
) -> Vec<(String, JsonValue)> {
    let props = |body: &'_ RecordBody, tool: &Tool| -> Vec<(String, SchemaNode)> {
        tool.arguments
            .and_then(|s| body.schema_nodes.get(s as usize))
            .map(|n| {
                n.properties
                    .iter()
                    .filter_map(|(k, i)| {
                        Some((k.clone(), body.schema_nodes.get(*i as usize)?.clone()))
                    })
                    .collect()
            })
            .unwrap_or_default()
    };
    let (a, b) = (props(old_body, old), props(new_body, new));
    let mut out = Vec::new();
    for (name, x) in &a {
        let Some((_, y)) = b.iter().find(|(n, _)| n == name) else {
            continue;
        };
        if x.pattern == y.pattern {
            continue;
        }
        let lengths = crate::smt::Lengths {
            min: x.min_length.unwrap_or(0).max(y.min_length.unwrap_or(0)),
            max: match (x.max_length, y.max_length) {
                (Some(p), Some(q)) => Some(p.min(q)),
                (p, q) => p.or(q),
            },
        };
        let mut found =
            crate::smt::pattern_witnesses(x.pattern.as_deref(), y.pattern.as_deref(), lengths);
        if found.is_empty() {
            // Outside the lengths both allow: a string one schema's length refuses anyway.
            found = crate::smt::pattern_witnesses(
                x.pattern.as_deref(),
                y.pattern.as_deref(),
                crate::smt::Lengths::default(),
            );
        }
        out.extend(
            found
                .into_iter()
                .map(|s| (name.clone(), JsonValue::String(s))),
        );
    }
    out
}

/// Without z3, no string is offered.
#[cfg(not(feature = "z3"))]
pub fn pattern_values(
    _: &RecordBody,
    _: &Tool,
    _: &RecordBody,
    _: &Tool,
) -> Vec<(String, JsonValue)> {
    Vec::new()
}

/// A value and its neighbours (a number one either side, and halfway).
fn around(v: &JsonValue) -> Vec<JsonValue> {
    match v.as_f64() {
        Some(n) => vec![
            number(n),
            number(n + 1.0),
            number(n - 1.0),
            number(n + 0.5),
            number(n - 0.5),
        ],
        None => vec![v.clone()],
    }
}

/// Values at the edges of a schema node: its bounds and either side of them, strings one
/// shorter and one longer than its lengths, its enum members and constant.
fn edge_values(body: &RecordBody, n: &SchemaNode) -> Vec<JsonValue> {
    let mut out = Vec::new();
    for b in [
        n.minimum,
        n.maximum,
        n.exclusive_minimum,
        n.exclusive_maximum,
    ]
    .into_iter()
    .flatten()
    {
        out.extend(around(&number(b)));
    }
    for l in [n.min_length, n.max_length].into_iter().flatten() {
        for len in [l.saturating_sub(1), l, l + 1] {
            out.push(JsonValue::String("a".repeat(len as usize)));
        }
    }
    for v in n.enum_values.iter().chain(n.constant.iter()) {
        out.push(record_value(body, *v, 0));
    }
    out.push(JsonValue::String(text_of(n)));
    out.push(number(number_in(n)));
    out
}

/// A term's key read as the place a call gives it: an argument (`arg amount`), a member of an
/// argument (`(arg order).id`), or a fact of the context (`fact order_paid`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Place {
    Argument(String),
    Member(String, String),
    Fact(String),
}

/// Where a term's value goes in a call; `None` for terms a call does not give directly (a
/// tool's result, a function of a value).
pub fn place(key: &str) -> Option<Place> {
    if let Some(name) = key.strip_prefix("arg ") {
        return Some(Place::Argument(name.to_string()));
    }
    if let Some(name) = key.strip_prefix("fact ") {
        return Some(Place::Fact(name.to_string()));
    }
    let rest = key.strip_prefix("(arg ")?;
    let (name, field) = rest.split_once(").")?;
    (!field.contains(['(', ')', ' '])).then(|| Place::Member(name.to_string(), field.to_string()))
}

/// A literal of the record as [`Json`] (for callers outside the crate).
pub fn literal_json(body: &RecordBody, v: u32) -> Option<Json> {
    literal(body, v)
}

#[cfg(test)]
mod tests {
    use super::*;
    use stalwart_record::{CompareOp, Expr, GatePath, SourceSpan};

    fn gate_over(body: &mut RecordBody, bound: f64) -> Gate {
        let arg = body.exprs.len() as u32;
        body.exprs.push(Expr::Arg("amount".into()));
        let lit = body.exprs.len() as u32;
        body.values.push(Value::Number(bound));
        body.exprs.push(Expr::Literal(body.values.len() as u32 - 1));
        let cmp = body.exprs.len() as u32;
        body.exprs.push(Expr::Compare {
            op: CompareOp::Gt,
            left: arg,
            right: lit,
        });
        Gate {
            governed: true,
            paths: vec![
                GatePath {
                    flow: "large".into(),
                    intent: None,
                    condition: Some(cmp),
                    action: GateAction::Refuse {
                        message: "too much".into(),
                    },
                    span: SourceSpan::default(),
                },
                GatePath {
                    flow: "rest".into(),
                    intent: None,
                    condition: None,
                    action: GateAction::Allow,
                    span: SourceSpan::default(),
                },
            ],
            flows: vec!["large".into(), "rest".into()],
            default: None,
        }
    }

    #[test]
    fn a_loosened_bound_has_a_value_between_the_two_on_which_the_gates_differ() {
        let mut old = RecordBody::default();
        let old_gate = gate_over(&mut old, 500.0);
        let mut new = RecordBody::default();
        let new_gate = gate_over(&mut new, 50.0);
        let GateDiff::Differ(found) = gate_diff(&old, &old_gate, &new, &new_gate) else {
            panic!("no difference found");
        };
        let first = &found[0];
        assert_eq!(first.terms.len(), 1);
        let (key, Json::Num(n)) = &first.terms[0] else {
            panic!("{first:?}");
        };
        assert_eq!(key, "arg amount");
        assert!(*n > 50.0 && *n <= 500.0, "{n}");
    }

    #[test]
    fn gates_that_differ_only_in_flow_names_are_the_same() {
        let mut old = RecordBody::default();
        let old_gate = gate_over(&mut old, 500.0);
        let mut new = RecordBody::default();
        let mut new_gate = gate_over(&mut new, 500.0);
        new_gate.paths[0].flow = "renamed".into();
        // The same condition written as `not (amount <= 500)` decides alike: proved, not
        // compared as text.
        let le = new.exprs.len() as u32;
        new.exprs.push(Expr::Compare {
            op: CompareOp::Le,
            left: 0,
            right: 1,
        });
        let not = new.exprs.len() as u32;
        new.exprs.push(Expr::Not(le));
        assert_eq!(gate_diff(&old, &old_gate, &new, &new_gate), GateDiff::Same);
        new_gate.paths[0].condition = Some(not);
        // `not (amount <= 500)` also holds for a value that is not a number: a difference.
        assert!(matches!(
            gate_diff(&old, &old_gate, &new, &new_gate),
            GateDiff::Differ(_)
        ));
    }

    /// `amount OP limit`, refused when it holds, allowed otherwise.
    #[cfg(feature = "z3")]
    fn two_terms(body: &mut RecordBody, op: CompareOp) -> Gate {
        body.exprs.push(Expr::Arg("amount".into()));
        body.exprs.push(Expr::Arg("limit".into()));
        body.exprs.push(Expr::Compare {
            op,
            left: 0,
            right: 1,
        });
        let mut gate = gate_over(&mut RecordBody::default(), 0.0);
        gate.paths[0].condition = Some(2);
        gate
    }

    #[cfg(feature = "z3")]
    #[test]
    fn two_arguments_compared_are_beyond_the_enumeration_and_z3_finds_where_they_differ() {
        let mut old = RecordBody::default();
        let old_gate = two_terms(&mut old, CompareOp::Gt);
        let mut new = RecordBody::default();
        let new_gate = two_terms(&mut new, CompareOp::Ge);
        let GateDiff::Differ(found) = gate_diff(&old, &old_gate, &new, &new_gate) else {
            panic!("no difference found");
        };
        let value = |k: &str| {
            found[0]
                .terms
                .iter()
                .find(|(key, _)| key == k)
                .map(|(_, v)| v.clone())
        };
        // Only where the amount is the limit does `>=` hold and `>` not.
        let (Some(Json::Num(a)), Some(Json::Num(l))) = (value("arg amount"), value("arg limit"))
        else {
            panic!("{found:?}");
        };
        assert_eq!(a, l);
        // And the same comparison written the other way round decides alike.
        let mut flipped = RecordBody::default();
        flipped.exprs.push(Expr::Arg("limit".into()));
        flipped.exprs.push(Expr::Arg("amount".into()));
        flipped.exprs.push(Expr::Compare {
            op: CompareOp::Lt,
            left: 0,
            right: 1,
        });
        let mut flipped_gate = old_gate.clone();
        flipped_gate.paths[0].condition = Some(2);
        assert_eq!(
            gate_diff(&old, &old_gate, &flipped, &flipped_gate),
            GateDiff::Same
        );
    }

    #[test]
    fn places_of_terms() {
        assert_eq!(place("arg amount"), Some(Place::Argument("amount".into())));
        assert_eq!(place("fact paid"), Some(Place::Fact("paid".into())));
        assert_eq!(
            place("(arg order).id"),
            Some(Place::Member("order".into(), "id".into()))
        );
        assert_eq!(place("result get_order"), None);
    }
}
