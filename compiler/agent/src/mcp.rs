//! MCP `tools/list` answers mapped to tool declarations.
//!
//! Accepted shapes: the JSON-RPC response (`{"jsonrpc", "id", "result": {"tools": [...]}}`), its
//! `result` alone (`{"tools": [...]}`), or a bare list of tools. A file may hold several answers,
//! as a server sends them or a client saves them: a JSON-RPC batch (a list of responses), a
//! Server-Sent Events stream as the Streamable HTTP transport frames it (`event: message` /
//! `data: {...}` events, blank-line separated; events that are not a response, such as
//! notifications, are skipped), or JSON lines (one answer a line). The tools of every answer are
//! read in order, so the pages of a paginated `tools/list` (each with the `nextCursor` of the
//! next) are read together; only a last answer that still has a `nextCursor` is a warning (more
//! pages were not saved). Each MCP tool gives `name`,
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
    let mut diagnostics = Vec::new();
    let mut answers: Vec<Node> = Vec::new();
    for document in documents(text) {
        let parsed = yaml::to_node(file, &document);
        diagnostics.extend(parsed.diagnostics);
        let Some(root) = parsed.value else { continue };
        if is_batch(&root) {
            if let NodeKind::Seq(items) = root.kind {
                answers.extend(items);
            }
        } else {
            answers.push(root);
        }
    }
    if answers.is_empty() {
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
    }
    let several = answers.len() > 1;
    let mut tools = Vec::new();
    let mut last_cursor = None;
    let mut index = 0usize;
    for answer in &answers {
        // In a stream or a batch, a message that is not a response (a notification, a request)
        // is not an answer.
        if several && answer.get("method").is_some() && answer.get("result").is_none() {
            continue;
        }
        let Some((list, cursor)) = tool_list(answer, &mut diagnostics) else {
            last_cursor = None;
            continue;
        };
        last_cursor = cursor.map(|c| c.span);
        for item in list {
            tools.extend(read_tool(item, index, path, &mut diagnostics));
            index += 1;
        }
    }
    if let Some(at) = last_cursor {
        diagnostics.push(
            Diagnostic::warning(
                PAGINATED,
                at,
                "the MCP answer is one page of several: only the tools of the pages given are read",
            )
            .with_label("more tools follow on the next page")
            .with_help(
                "save every page's answer in the file, one after another, or merge their `tools`",
            ),
        );
    }
    Parse {
        value: tools,
        diagnostics,
    }
}

/// A JSON-RPC batch: a list whose first object is a response (`jsonrpc`, `result` or `error`)
/// rather than a tool (which has a `name`).
fn is_batch(root: &Node) -> bool {
    let Some(first) = root
        .items()
        .and_then(|items| items.iter().find(|i| i.entries().is_some()))
    else {
        return false;
    };
    first.get("name").is_none()
        && ["jsonrpc", "result", "error"]
            .iter()
            .any(|k| first.get(k).is_some())
}

/// The JSON documents of the file, each as a text of the file's length in which everything but
/// that document is blanked (so every span is a span of the file): the whole text, the `data:` of
/// each Server-Sent Event, or each line of JSON lines.
fn documents(text: &str) -> Vec<String> {
    if is_event_stream(text) {
        return events(text);
    }
    let lines: Vec<(usize, &str)> = line_ranges(text)
        .filter(|(_, line)| !line.trim().is_empty())
        .collect();
    let json_lines = lines.len() > 1
        && lines.iter().all(|(_, line)| {
            let line = line.trim();
            line.starts_with('{') && line.ends_with('}')
        });
    if !json_lines {
        return vec![text.to_string()];
    }
    lines
        .iter()
        .map(|(start, line)| keep(text, &[(*start, start + line.len())]))
        .collect()
}

/// Each line with the byte offset it starts at (without its line break).
fn line_ranges(text: &str) -> impl Iterator<Item = (usize, &str)> {
    let mut start = 0;
    text.split_inclusive('\n').map(move |raw| {
        let at = start;
        start += raw.len();
        (at, raw.trim_end_matches(['\n', '\r']))
    })
}

/// Whether the text is a Server-Sent Events stream: its first non-blank line is a field of one
/// (`event:`, `data:`, `id:`, `retry:`) or a comment (`:`).
fn is_event_stream(text: &str) -> bool {
    let first = text
        .trim_start_matches('\u{feff}')
        .lines()
        .find(|l| !l.trim().is_empty())
        .unwrap_or("");
    ["event:", "data:", "id:", "retry:", ":"]
        .iter()
        .any(|field| first.starts_with(field))
}

/// The `data:` of each event of a stream, one document each.
fn events(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut data: Vec<(usize, usize)> = Vec::new();
    for (start, line) in line_ranges(text) {
        if line.is_empty() {
            if !data.is_empty() {
                out.push(keep(text, &data));
                data.clear();
            }
            continue;
        }
        if let Some(value) = line.strip_prefix("data:") {
            let skip = 5 + usize::from(value.starts_with(' '));
            data.push((start + skip, start + line.len()));
        }
    }
    if !data.is_empty() {
        out.push(keep(text, &data));
    }
    out
}

/// The text with every byte outside `ranges` (byte ranges on character boundaries) blanked to a
/// space, line breaks kept.
fn keep(text: &str, ranges: &[(usize, usize)]) -> String {
    let mut bytes: Vec<u8> = text
        .bytes()
        .map(|b| if b == b'\n' || b == b'\r' { b } else { b' ' })
        .collect();
    for &(start, end) in ranges {
        if let (Some(from), Some(to)) = (text.as_bytes().get(start..end), bytes.get_mut(start..end))
        {
            to.copy_from_slice(from);
        }
    }
    String::from_utf8(bytes).unwrap_or_default()
}

/// The list of tools of one answer, whichever shape it has, and its `nextCursor` if it has one.
fn tool_list<'n>(
    root: &'n Node,
    diagnostics: &mut Vec<Diagnostic>,
) -> Option<(&'n [Node], Option<&'n Node>)> {
    if let Some(items) = root.items() {
        return Some((items, None));
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
    let cursor = holder
        .get("nextCursor")
        .filter(|c| !matches!(c.kind, NodeKind::Null));
    let Some(tools) = holder.get("tools") else {
        diagnostics.push(shape_error(
            holder,
            "the MCP answer has no `tools`".to_string(),
        ));
        return None;
    };
    match tools.items() {
        Some(items) => Some((items, cursor)),
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

pub(crate) fn apply_annotations(
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
