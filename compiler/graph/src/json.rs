//! The graph's JSON form: the model as serde writes it, pretty-printed with a final newline, and
//! read back. The JSON Schema of this form is `docs/schemas/qls-graph.schema.json`.

use crate::model::AgentGraph;

/// The graph as JSON text (deterministic: fields in declaration order, nodes and edges in graph
/// order).
pub fn to_json_string(graph: &AgentGraph) -> String {
    let mut text = serde_json::to_string_pretty(graph).unwrap_or_default();
    text.push('\n');
    text
}

/// The graph as a JSON value.
pub fn to_json_value(graph: &AgentGraph) -> serde_json::Value {
    serde_json::to_value(graph).unwrap_or(serde_json::Value::Null)
}

/// Reads a graph back from its JSON form.
pub fn from_json_str(text: &str) -> Result<AgentGraph, String> {
    serde_json::from_str(text).map_err(|e| format!("not a qls-graph/1 graph: {e}"))
}
