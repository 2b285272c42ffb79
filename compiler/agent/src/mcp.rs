//! MCP `tools/list` answers mapped to tool declarations.
//!
//! Accepted shapes: the JSON-RPC response (`{"jsonrpc", "id", "result": {"tools": [...]}}`), its
//! `result` alone (`{"tools": [...]}`), or a bare list of tools. Each MCP tool gives `name`,
//! `description`, `inputSchema` (→ `arguments`) and `outputSchema` (→ `result`); its
//! `annotations` map to the declaration:
//!
//! | annotation | declaration |
//! |---|---|
//! | `readOnlyHint: true` | `effects: reads` |
//! | `readOnlyHint: false`, or `destructiveHint` (either value) | `effects: changes` |
//! | `idempotentHint: true` | `idempotency: {retry_safe: true}` |
//! | `openWorldHint: true` | `reads_outside: true` for reads, `sends_out: true` otherwise |
//!
//! Only hints the answer states count: MCP's defaults (a tool is open-world and destructive
//! unless it says otherwise) are not assumed, and a tool without hints has unknown effects, which
//! the check treats as `changes`. `readOnlyHint: true` with `destructiveHint: true` contradict each
//! other: a warning, and the tool is taken as `changes`. `title` and every member MCP may add later
//! are ignored without a word; a member of the wrong type is an error at its value. `source` stays
//! unset: the agent.yaml entry that names the answer may give it.

use stalwart_diagnostics::{Code, Diagnostic, FileId, Span};

use crate::node::{Node, NodeKind};
use crate::{Effects, IdempotencyDecl, Parse, Spanned, ToolDecl, ToolOrigin, yaml};

/// The answer has no tool list: not a JSON-RPC response with `result.tools`, not an object with
/// `tools`, not a list (or the text is empty).
pub const BAD_ANSWER: Code = Code {
    id: "E0250",
    slug: "bad-mcp-answer",
};

/// The answer is a JSON-RPC error response: the server refused `tools/list`.
pub const ERROR_RESPONSE: Code = Code {
    id: "E0251",
    slug: "mcp-error-response",
};

/// Warning: the answer has a `nextCursor`: it is one page of several, and only its tools are read.
pub const PAGINATED: Code = Code {
    id: "E0252",
    slug: "paginated-answer",
};

/// An entry of the tool list that is not an object.
pub const BAD_TOOL: Code = Code {
    id: "E0253",
    slug: "bad-mcp-tool",
};

/// A required member is missing: a tool's `name`, a JSON-RPC response's `result`.
pub const MISSING_MEMBER: Code = Code {
    id: "E0254",
    slug: "missing-mcp-member",
};

/// A member of the wrong type: `tools` not a list, `name`/`description` not a string,
/// `inputSchema`/`outputSchema`/`annotations`/`result` not an object, a hint not a boolean.
pub const WRONG_TYPE: Code = Code {
    id: "E0255",
    slug: "mcp-wrong-type",
};

/// A tool whose `name` is the empty string.
pub const EMPTY_NAME: Code = Code {
    id: "E0256",
    slug: "mcp-empty-name",
};

/// Warning: `readOnlyHint: true` and `destructiveHint: true` on one tool; it is taken as a write.
pub const CONTRADICTING_HINTS: Code = Code {
    id: "E0257",
    slug: "contradicting-hints",
};

/// `inputSchema` whose `type` is not `"object"`: a tool's arguments are an object.
pub const BAD_INPUT_SCHEMA: Code = Code {
    id: "E0258",
    slug: "bad-input-schema",
};

pub(crate) fn parse_mcp(file: FileId, text: &str, path: &str) -> Parse<Vec<ToolDecl>> {
    let parsed = yaml::to_node(file, text);
    let mut diagnostics = parsed.diagnostics;
    let Some(root) = parsed.value else {
        if !diagnostics.iter().any(Diagnostic::is_error) {
            diagnostics.push(
                Diagnostic::error(BAD_ANSWER, Span::new(file, 0, 0), "the MCP answer is empty")
                    .with_label("expected the answer to `tools/list`"),
            );
        }
        return Parse {
            value: Vec::new(),
            diagnostics,
        };
    };
    let tools = match tool_list(&root, &mut diagnostics) {
        Some(list) => list
            .iter()
            .enumerate()
            .filter_map(|(index, item)| read_tool(item, index, path, &mut diagnostics))
            .collect(),
        None => Vec::new(),
    };
    Parse {
        value: tools,
        diagnostics,
    }
}

/// The list of tools, whichever shape the answer has.
fn tool_list<'n>(root: &'n Node, diagnostics: &mut Vec<Diagnostic>) -> Option<&'n [Node]> {
    if let Some(items) = root.items() {
        return Some(items);
    }
    if root.entries().is_none() {
        diagnostics.push(shape_error(
            root,
            format!("the MCP answer is {}, not a tool list", describe(root)),
        ));
        return None;
    }
    let is_response = ["jsonrpc", "result", "error"]
        .iter()
        .any(|k| root.get(k).is_some());
    let holder = if is_response && root.get("tools").is_none() {
        if let Some(error) = root.get("error") {
            let message = error
                .get("message")
                .and_then(Node::as_str)
                .unwrap_or("no message");
            diagnostics.push(
                Diagnostic::error(
                    ERROR_RESPONSE,
                    error.span,
                    format!("the MCP answer is an error: `{message}`"),
                )
                .with_label("the server refused `tools/list`"),
            );
            return None;
        }
        let Some(result) = root.get("result") else {
            diagnostics.push(
                Diagnostic::error(
                    MISSING_MEMBER,
                    root.span,
                    "the JSON-RPC response has no `result`",
                )
                .with_label("expected `result: {tools: [...]}`"),
            );
            return None;
        };
        if result.entries().is_none() {
            diagnostics.push(wrong_type("", "result", result, "an object"));
            return None;
        }
        result
    } else {
        root
    };
    if let Some(cursor) = holder
        .get("nextCursor")
        .filter(|c| !matches!(c.kind, NodeKind::Null))
    {
        diagnostics.push(
            Diagnostic::warning(
                PAGINATED,
                cursor.span,
                "the MCP answer is one page of several: only its tools are read",
            )
            .with_label("more tools follow on the next page")
            .with_help("merge the `tools` of every page into one answer"),
        );
    }
    let Some(tools) = holder.get("tools") else {
        diagnostics.push(shape_error(
            holder,
            "the MCP answer has no `tools`".to_string(),
        ));
        return None;
    };
    match tools.items() {
        Some(items) => Some(items),
        None => {
            diagnostics.push(wrong_type("", "tools", tools, "a list"));
            None
        }
    }
}

/// What kind of JSON value a node is, in JSON's words.
fn describe(node: &Node) -> &'static str {
    match node.kind {
        NodeKind::Map(_) => "an object",
        _ => node.describe(),
    }
}

fn shape_error(node: &Node, message: String) -> Diagnostic {
    Diagnostic::error(BAD_ANSWER, node.span, message)
        .with_label("expected a tool list")
        .with_help("give the JSON-RPC response to `tools/list`, its `result` (`{\"tools\": [...]}`) or a list of tools")
}

fn wrong_type(ctx: &str, member: &str, node: &Node, expected: &str) -> Diagnostic {
    Diagnostic::error(
        WRONG_TYPE,
        node.span,
        format!(
            "{ctx}`{member}` must be {expected}, found {}",
            describe(node)
        ),
    )
    .with_label(format!("expected {expected}"))
}

fn read_tool(
    item: &Node,
    index: usize,
    path: &str,
    diagnostics: &mut Vec<Diagnostic>,
) -> Option<ToolDecl> {
    if item.entries().is_none() {
        diagnostics.push(
            Diagnostic::error(
                BAD_TOOL,
                item.span,
                format!("an MCP tool must be an object, found {}", describe(item)),
            )
            .with_label("expected `{\"name\": ..., \"inputSchema\": ...}`"),
        );
        return None;
    }
    let unnamed = format!("tool #{}: ", index + 1);
    let name = match item.get("name") {
        None => {
            diagnostics.push(
                Diagnostic::error(
                    MISSING_MEMBER,
                    item.span,
                    format!("{unnamed}the MCP tool has no `name`"),
                )
                .with_label("needs `name`"),
            );
            return None;
        }
        Some(Node {
            kind: NodeKind::Str(s),
            span,
        }) if s.is_empty() => {
            diagnostics.push(
                Diagnostic::error(EMPTY_NAME, *span, format!("{unnamed}`name` is empty"))
                    .with_label("expected a tool name"),
            );
            return None;
        }
        Some(Node {
            kind: NodeKind::Str(s),
            span,
        }) => Spanned::new(s.clone(), *span),
        Some(other) => {
            diagnostics.push(wrong_type(&unnamed, "name", other, "a string"));
            return None;
        }
    };
    let ctx = format!("tool `{}`: ", name.value);
    let mut decl = ToolDecl::named(name, ToolOrigin::Mcp(path.to_string()), item.span);
    match item.get("description").map(|d| (&d.kind, d)) {
        None | Some((NodeKind::Null, _)) => {}
        Some((NodeKind::Str(s), _)) => decl.description = Some(s.clone()),
        Some((_, other)) => diagnostics.push(wrong_type(&ctx, "description", other, "a string")),
    }
    decl.arguments = schema(&ctx, item, "inputSchema", diagnostics);
    if let Some(arguments) = &decl.arguments
        && let Some(ty) = arguments.value.get("type")
        && ty != "object"
    {
        let at = item
            .get("inputSchema")
            .and_then(|s| s.get("type"))
            .map_or(arguments.span, |t| t.span);
        diagnostics.push(
            Diagnostic::error(
                BAD_INPUT_SCHEMA,
                at,
                format!(
                    "{ctx}`inputSchema` must describe an object, not `{}`",
                    ty.as_str().map_or_else(|| ty.to_string(), str::to_string)
                ),
            )
            .with_label("expected `\"type\": \"object\"`"),
        );
        decl.arguments = None;
    }
    decl.result = schema(&ctx, item, "outputSchema", diagnostics);
    if let Some(annotations) = item.get("annotations") {
        apply_annotations(&ctx, annotations, &mut decl, diagnostics);
    }
    Some(decl)
}

/// An object member kept as a JSON Schema.
fn schema(
    ctx: &str,
    item: &Node,
    member: &str,
    diagnostics: &mut Vec<Diagnostic>,
) -> Option<Spanned<serde_json::Value>> {
    let node = item.get(member)?;
    match node.kind {
        NodeKind::Map(_) => Some(Spanned::new(node.to_json(), node.span)),
        NodeKind::Null => None,
        _ => {
            diagnostics.push(wrong_type(ctx, member, node, "an object"));
            None
        }
    }
}

fn apply_annotations(
    ctx: &str,
    annotations: &Node,
    decl: &mut ToolDecl,
    diagnostics: &mut Vec<Diagnostic>,
) {
    match annotations.kind {
        NodeKind::Map(_) => {}
        NodeKind::Null => return,
        _ => {
            diagnostics.push(wrong_type(ctx, "annotations", annotations, "an object"));
            return;
        }
    }
    let mut hint = |key: &str| -> Option<Spanned<bool>> {
        let node = annotations.get(key)?;
        match node.kind {
            NodeKind::Bool(b) => Some(Spanned::new(b, node.span)),
            NodeKind::Null => None,
            _ => {
                diagnostics.push(wrong_type(ctx, key, node, "`true` or `false`"));
                None
            }
        }
    };
    let read_only = hint("readOnlyHint");
    let destructive = hint("destructiveHint");
    let idempotent = hint("idempotentHint");
    let open_world = hint("openWorldHint");
    decl.effects = match (&read_only, &destructive) {
        (Some(ro), Some(d)) if ro.value && d.value => {
            diagnostics.push(
                Diagnostic::warning(
                    CONTRADICTING_HINTS,
                    d.span,
                    format!("{ctx}`readOnlyHint` and `destructiveHint` are both true: the tool is taken as a write"),
                )
                .with_label("a destructive tool is not read-only")
                .with_secondary(ro.span, "said read-only here"),
            );
            Some(Spanned::new(Effects::Changes, d.span))
        }
        (Some(ro), _) => Some(Spanned::new(
            if ro.value {
                Effects::Reads
            } else {
                Effects::Changes
            },
            ro.span,
        )),
        (None, Some(d)) => Some(Spanned::new(Effects::Changes, d.span)),
        (None, None) => None,
    };
    if let Some(idempotent) = idempotent.filter(|h| h.value) {
        decl.idempotency = Some(Spanned::new(IdempotencyDecl::RetrySafe, idempotent.span));
    }
    if let Some(open) = open_world.filter(|h| h.value) {
        let reads = decl
            .effects
            .as_ref()
            .is_some_and(|e| e.value == Effects::Reads);
        if reads {
            decl.reads_outside = Some(open);
        } else {
            decl.sends_out = Some(open);
        }
    }
}
