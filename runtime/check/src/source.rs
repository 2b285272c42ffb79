//! Where an answer was decided: the place in the sources of the declaration or the rule that
//! decided it, as `path:line:col` (the record's `Source.path`, 1-based line, 1-based column in
//! characters). The record keeps the places as spans; an answer formats one or a few, never
//! reading the sources.

use std::fmt::Write as _;

use stalwart_record::{
    ArchivedAgent, ArchivedRecordBody, ArchivedSchemaNode, ArchivedSourceSpan, ArchivedTool,
};

/// `path:line:col` of `span`; `None` when the record does not place it (line 0, as in a record
/// lowered without its files) or names no such source.
pub fn place(body: &ArchivedRecordBody, span: &ArchivedSourceSpan) -> Option<String> {
    let line = span.line.to_native();
    if line == 0 {
        return None;
    }
    let source = body.sources.get(span.source.to_native() as usize)?;
    let mut out = String::with_capacity(source.path.len() + 12);
    out.push_str(source.path.as_str());
    let _ = write!(out, ":{line}:{}", span.col.to_native());
    Some(out)
}

/// The place of a tool key, else of the tool's declaration.
pub fn key_or_tool(
    body: &ArchivedRecordBody,
    tool: &ArchivedTool,
    key: Option<&ArchivedSourceSpan>,
) -> Option<String> {
    place(body, key.unwrap_or(&tool.span))
}

/// The place of list entry `i` of a tool key (`after`, `not_after`, `checks`), else of the tool.
pub fn entry_or_tool(
    body: &ArchivedRecordBody,
    tool: &ArchivedTool,
    entries: &[ArchivedSourceSpan],
    i: usize,
) -> Option<String> {
    key_or_tool(body, tool, entries.get(i))
}

/// Where the tool's effects are written (`effects:`), else its declaration: the place of an
/// answer about a write (`write`, `argument_origin`, `schema_partial`).
pub fn effects(body: &ArchivedRecordBody, tool: &ArchivedTool) -> Option<String> {
    key_or_tool(body, tool, tool.spans.effects.as_ref())
}

/// Where the trust a write needs is set: the tool's `requires:`, else the agent's declaration
/// (its privilege), else the tool's declaration (`tainted_call`).
pub fn requires(
    body: &ArchivedRecordBody,
    tool: &ArchivedTool,
    agent: Option<&ArchivedAgent>,
) -> Option<String> {
    if let Some(span) = tool.spans.requires.as_ref() {
        return place(body, span);
    }
    match agent {
        Some(agent) => place(body, &agent.span),
        None => place(body, &tool.span),
    }
}

/// A gate path's statement and its condition's place.
pub fn gate_path(
    body: &ArchivedRecordBody,
    tool: &ArchivedTool,
    path: usize,
) -> (Option<String>, Option<String>) {
    let Some(path) = tool.gate.paths.get(path) else {
        return (None, None);
    };
    let condition = path
        .condition
        .as_ref()
        .and_then(|c| body.expr_spans.get(c.to_native() as usize))
        .and_then(|span| place(body, span));
    (place(body, &path.span), condition)
}

/// The place of an argument-schema fault: the keyword `rule` of the schema node that describes
/// the value at `pointer` (for `required` and `additionalProperties`, which name a member, the
/// node of the object that holds it), else that node, else the tool's `arguments:`, else the
/// tool's declaration. Runs only on a refusal.
pub fn schema_fault(
    body: &ArchivedRecordBody,
    tool: &ArchivedTool,
    pointer: &str,
    rule: &str,
) -> Option<String> {
    let whole = || key_or_tool(body, tool, tool.spans.arguments.as_ref());
    let Some(root) = tool.arguments.as_ref() else {
        return whole();
    };
    let mut segments: Vec<String> = pointer
        .split('/')
        .skip(1)
        .map(|s| s.replace("~1", "/").replace("~0", "~"))
        .collect();
    if matches!(rule, "required" | "additionalProperties") {
        segments.pop();
    }
    let mut node = schema_node(body, root.to_native());
    for segment in &segments {
        let Some(here) = node else { break };
        let next = here
            .properties
            .iter()
            .find(|p| p.0.as_str() == segment.as_str())
            .map(|p| p.1.to_native())
            .or_else(|| {
                segment
                    .parse::<usize>()
                    .ok()
                    .and(here.items.as_ref().map(|i| i.to_native()))
            });
        match next.and_then(|i| schema_node(body, i)) {
            Some(child) => node = Some(child),
            None => break,
        }
    }
    let Some(node) = node else {
        return whole();
    };
    if let Some(keyword) = node.keyword_spans.iter().find(|k| k.0.as_str() == rule) {
        return place(body, &keyword.1);
    }
    place(body, &node.span).or_else(whole)
}

/// A schema node, followed through its local `$ref` when it declares nothing itself.
fn schema_node(body: &ArchivedRecordBody, idx: u32) -> Option<&ArchivedSchemaNode> {
    let mut node = body.schema_nodes.get(idx as usize)?;
    for _ in 0..8 {
        match node.reference.as_ref() {
            Some(target) if node.properties.is_empty() && node.items.is_none() => {
                node = body.schema_nodes.get(target.to_native() as usize)?;
            }
            _ => break,
        }
    }
    Some(node)
}
