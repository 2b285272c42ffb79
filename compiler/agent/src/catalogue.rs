//! Catalogue files: tool declarations in JSON or YAML (one parser reads both).
//!
//! A catalogue is a list of declarations, or a mapping with `tools:` (that list) and optionally
//! `$schema` (the address of `docs/schemas/catalogue.schema.json`, for editors). Each
//! declaration is read by [`crate::declaration::tool_from_node`], as inline tools are.

use stalwart_diagnostics::{Diagnostic, FileId, Span};

use crate::codes;
use crate::declaration::tool_from_node;
use crate::node::read::Reader;
use crate::node::{Node, NodeKind};
use crate::yaml::to_node;
use crate::{Parse, ToolDecl, ToolOrigin};

/// The keys of a catalogue written as a mapping.
pub(crate) const CATALOGUE_KEYS: &[&str] = &["$schema", "tools"];

pub(crate) fn parse_catalogue(file: FileId, text: &str, path: &str) -> Parse<Vec<ToolDecl>> {
    let parsed = to_node(file, text);
    let mut r = Reader {
        diagnostics: parsed.diagnostics,
    };
    let mut tools = Vec::new();
    match parsed.value {
        Some(node) => read_catalogue(&mut r, &node, path, &mut tools),
        None if !r.diagnostics.iter().any(Diagnostic::is_error) => r.push(
            Diagnostic::error(
                codes::BAD_CATALOGUE,
                Span::new(file, 0, 0),
                format!("catalogue `{path}` is empty"),
            )
            .with_label("no tools here")
            .with_help("write a list of tool declarations, or a mapping with `tools:`"),
        ),
        None => {}
    }
    Parse {
        value: tools,
        diagnostics: r.diagnostics,
    }
}

fn read_catalogue(r: &mut Reader, node: &Node, path: &str, tools: &mut Vec<ToolDecl>) {
    let list = match &node.kind {
        NodeKind::Seq(_) => node,
        NodeKind::Map(entries) => {
            r.check_keys("", "a catalogue", entries, CATALOGUE_KEYS);
            if let Some(schema) = node.get("$schema")
                && schema.as_str().is_none()
            {
                r.wrong_type("", "$schema", schema, "a string");
            }
            let Some(list) = node.get("tools") else {
                let at = entries.first().map(|(k, _)| k.span).unwrap_or(node.span);
                r.push(
                    Diagnostic::error(
                        codes::BAD_CATALOGUE,
                        at,
                        format!("catalogue `{path}` has no `tools:`"),
                    )
                    .with_label("expected `tools:` in this mapping"),
                );
                return;
            };
            list
        }
        _ => {
            r.push(
                Diagnostic::error(
                    codes::BAD_CATALOGUE,
                    node.span,
                    format!("catalogue `{path}` must be a list of tools or a mapping with `tools:`, found {}", node.describe()),
                )
                .with_label("expected a list or a mapping"),
            );
            return;
        }
    };
    let Some(items) = list.items() else {
        r.wrong_type("", "tools", list, "a list of tool declarations");
        return;
    };
    for item in items {
        if item.entries().is_none() {
            r.push(
                Diagnostic::error(
                    codes::BAD_CATALOGUE_ENTRY,
                    item.span,
                    format!(
                        "an entry of catalogue `{path}` must be a tool declaration, found {}",
                        item.describe()
                    ),
                )
                .with_label("expected a mapping with `name:`"),
            );
            continue;
        }
        let parsed = tool_from_node(item, ToolOrigin::Catalogue(path.to_string()), None);
        r.diagnostics.extend(parsed.diagnostics);
        tools.extend(parsed.value);
    }
}
