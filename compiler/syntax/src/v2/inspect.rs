//! The facts `stalwart rules inspect` prints for a Colang 2.x module, with the keys and shapes
//! of the reference parser's output: flows (name, parameters, return members, decorators,
//! line), imports, and the version.

use serde_json::{Map, Number, Value, json};

use super::actions::action_calls;
use super::ast::{Flow, Item, Literal, Module, Param};

/// The module's facts as JSON.
pub fn inspect(module: &Module) -> Value {
    let flows: Vec<Value> = module
        .items
        .iter()
        .filter_map(|i| match i {
            Item::Flow(f) => Some(flow(f)),
            _ => None,
        })
        .collect();
    let imports: Vec<Value> = module
        .items
        .iter()
        .filter_map(|i| match i {
            Item::Import(imp) => Some(Value::String(imp.path.clone())),
            _ => None,
        })
        .collect();
    let actions: Vec<Value> = action_calls(module)
        .iter()
        .map(|a| {
            json!({
                "op": a.op.as_str(),
                "action": a.name,
                "tool": a.tool,
                "arguments": a.args.list().iter().map(|x| x.name.as_deref().map_or(Value::Null, |n| Value::String(n.to_string()))).collect::<Vec<_>>(),
            })
        })
        .collect();
    json!({
        "version": "2.x",
        "flows": flows,
        "imports": imports,
        "exclude_from_llm": module.exclude_from_llm,
        "actions": actions,
    })
}

fn flow(f: &Flow) -> Value {
    let decorators: Vec<Value> = f
        .decorators
        .iter()
        .map(|d| {
            let params: Map<String, Value> = d
                .parameters
                .iter()
                .map(|(k, v)| (k.clone(), literal(v)))
                .collect();
            json!({ "name": d.name.as_str(), "parameters": params })
        })
        .collect();
    json!({
        "name": f.name.as_str(),
        "parameters": f.parameters.iter().map(param).collect::<Vec<_>>(),
        "return_members": f.return_members.iter().map(param).collect::<Vec<_>>(),
        "decorators": decorators,
        "line": f.line,
    })
}

fn param(p: &Param) -> Value {
    json!({ "name": p.name.as_str(), "default": p.default_text })
}

/// A literal as JSON (dict keys become their text; sets become lists).
pub(crate) fn literal(l: &Literal) -> Value {
    match l {
        Literal::None => Value::Null,
        Literal::Bool(b) => Value::Bool(*b),
        Literal::Int(i) => Value::Number((*i).into()),
        Literal::BigInt(s) => s
            .parse::<f64>()
            .ok()
            .and_then(Number::from_f64)
            .map_or(Value::String(s.clone()), Value::Number),
        Literal::Float(f) => Number::from_f64(*f).map_or(Value::Null, Value::Number),
        Literal::Str(s) => Value::String(s.clone()),
        Literal::List(v) | Literal::Set(v) => Value::Array(v.iter().map(literal).collect()),
        Literal::Dict(entries) => Value::Object(
            entries
                .iter()
                .map(|(k, v)| {
                    let key = match k {
                        Literal::Str(s) => s.clone(),
                        other => literal(other).to_string(),
                    };
                    (key, literal(v))
                })
                .collect(),
        ),
    }
}
