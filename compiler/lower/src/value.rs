//! JSON values into the record's value arena.

use stalwart_record::{Value, ValueIdx};

/// Appends a JSON value (members first, then the value itself) and returns its index.
pub fn push_json(values: &mut Vec<Value>, json: &serde_json::Value) -> ValueIdx {
    let value = match json {
        serde_json::Value::Null => Value::Null,
        serde_json::Value::Bool(b) => Value::Bool(*b),
        serde_json::Value::Number(n) => Value::Number(n.as_f64().unwrap_or(0.0)),
        serde_json::Value::String(s) => Value::String(s.clone()),
        serde_json::Value::Array(items) => {
            Value::Array(items.iter().map(|i| push_json(values, i)).collect())
        }
        serde_json::Value::Object(members) => Value::Object(
            members
                .iter()
                .map(|(k, v)| (k.clone(), push_json(values, v)))
                .collect(),
        ),
    };
    values.push(value);
    (values.len() - 1) as ValueIdx
}
