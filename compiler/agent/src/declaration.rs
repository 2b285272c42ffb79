//! One tool declaration (a [`Node`] mapping from any source) to [`crate::ToolDecl`].
//!
//! The same reader serves inline tools in agent.yaml, catalogue files, MCP answers and the
//! keyword arguments of a Python `@tool(...)` decorator, so its messages speak of tools and keys
//! (`tool `x`: unknown key `efects``), never of YAML or Python.

mod fields;

use stalwart_diagnostics::{Diagnostic, Span};

use crate::codes;
use crate::node::read::Reader;
use crate::node::{Node, NodeKind};
use crate::{Effects, Parse, Spanned, ToolDecl, ToolOrigin, Trust};

/// Every key a tool declaration may have (DESIGN §2.2 and the graph keys). The published
/// catalogue schema (`docs/schemas/catalogue.schema.json`) allows exactly these.
pub const TOOL_KEYS: &[&str] = &[
    "name",
    "description",
    "effects",
    "arguments",
    "result",
    "sends_out",
    "reads_outside",
    "requires",
    "after",
    "not_after",
    "at_most",
    "undo",
    "irreversible",
    "idempotency",
    "checks",
    "spend",
    "confidential",
    "argument_kinds",
    "source",
    "retrieves_from",
    "writes_to",
];

/// The keys an entry of agent.yaml's `overrides:` may set: every key of a declaration but
/// `name` (an override names the tool it is for).
pub const OVERRIDE_KEYS: &[&str] = &[
    "description",
    "effects",
    "arguments",
    "result",
    "sends_out",
    "reads_outside",
    "requires",
    "after",
    "not_after",
    "at_most",
    "undo",
    "irreversible",
    "idempotency",
    "checks",
    "spend",
    "confidential",
    "argument_kinds",
    "source",
    "retrieves_from",
    "writes_to",
];

/// Reads a tool declaration from a mapping node. `name` is given when the source names the tool
/// itself (a Python function's name); otherwise the mapping's `name:` is required. When both
/// are there, the mapping's `name:` wins (a decorator may rename its function's tool).
pub fn tool_from_node(
    node: &Node,
    origin: ToolOrigin,
    name: Option<Spanned<String>>,
) -> Parse<Option<ToolDecl>> {
    let mut r = Reader::default();
    let value = read_tool(&mut r, node, origin, name);
    Parse {
        value,
        diagnostics: r.diagnostics,
    }
}

fn read_tool(
    r: &mut Reader,
    node: &Node,
    origin: ToolOrigin,
    given: Option<Spanned<String>>,
) -> Option<ToolDecl> {
    let Some(entries) = node.entries() else {
        r.push(
            Diagnostic::error(
                codes::WRONG_TYPE,
                node.span,
                format!(
                    "a tool declaration must be a mapping of its keys, found {}",
                    node.describe()
                ),
            )
            .with_label("expected a mapping with `name:`"),
        );
        return None;
    };
    let name = match node.get("name") {
        Some(v) => r.string_as("a tool declaration: ", "name", v, "a tool name")?,
        None => match given {
            Some(name) => name,
            None => {
                let at = entries.first().map(|(k, _)| k.span).unwrap_or(Span::new(
                    node.span.file,
                    node.span.start,
                    node.span.start,
                ));
                r.push(
                    Diagnostic::error(
                        codes::MISSING_KEY,
                        at,
                        "a tool declaration is missing `name`",
                    )
                    .with_label("this declaration has no `name`"),
                );
                return None;
            }
        },
    };
    let ctx = format!("tool `{}`: ", name.value);
    r.check_keys(&ctx, "a tool declaration", entries, TOOL_KEYS);
    let mut t = ToolDecl::named(name, origin, node.span);
    for (k, v) in entries {
        let key = k.name.as_str();
        t.key_spans
            .push((key.to_string(), crate::node::read::entry_span(k, v)));
        match key {
            "description" => match &v.kind {
                NodeKind::Str(s) => t.description = Some(s.clone()),
                _ => r.wrong_type(&ctx, key, v, "a string"),
            },
            "effects" => {
                t.effects = r.word(
                    &ctx,
                    key,
                    v,
                    &[("reads", Effects::Reads), ("changes", Effects::Changes)],
                )
            }
            "arguments" => {
                t.arguments = fields::arguments(r, &ctx, v);
                if t.arguments.is_some() {
                    t.argument_places = fields::places(v);
                }
            }
            "result" => {
                t.result = r
                    .map(&ctx, key, v, "a JSON Schema (a mapping)")
                    .map(|_| Spanned::new(v.to_json(), v.span));
            }
            "sends_out" => t.sends_out = r.bool(&ctx, key, v),
            "reads_outside" => t.reads_outside = r.bool(&ctx, key, v),
            "irreversible" => t.irreversible = r.bool(&ctx, key, v),
            "confidential" => t.confidential = r.bool(&ctx, key, v),
            "requires" => {
                t.requires = r.word(
                    &ctx,
                    key,
                    v,
                    &[
                        ("low", Trust::Low),
                        ("medium", Trust::Medium),
                        ("high", Trust::High),
                    ],
                );
            }
            "after" => t.after = fields::after(r, &ctx, v),
            "not_after" => t.not_after = fields::not_after(r, &ctx, v),
            "at_most" => t.at_most = fields::at_most(r, &ctx, v),
            "undo" => t.undo = fields::undo(r, &ctx, v),
            "idempotency" => t.idempotency = fields::idempotency(r, &ctx, v),
            "checks" => t.checks = fields::checks(r, &ctx, v),
            "spend" => t.spend = fields::spend(r, &ctx, v),
            "argument_kinds" => t.argument_kinds = fields::argument_kinds(r, &ctx, v),
            "source" => t.source = fields::source(r, &ctx, v),
            "retrieves_from" => t.retrieves_from = r.string_as(&ctx, key, v, "a store name"),
            "writes_to" => t.writes_to = r.string_as(&ctx, key, v, "a store name"),
            _ => {}
        }
    }
    Some(t)
}
