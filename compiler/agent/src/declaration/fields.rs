//! The structured keys of a tool declaration: `arguments`, `after`, `not_after`, `at_most`,
//! `undo`, `idempotency`, `checks`, `spend`, `argument_kinds`, `source`.

use stalwart_diagnostics::Diagnostic;

use crate::codes;
use crate::node::read::{Reader, entry_span, one_of};
use crate::node::{Node, NodeKind};
use crate::{
    AfterDecl, ArgumentKind, AtMostDecl, CheckDecl, CheckOp, CheckOperand, IdempotencyDecl,
    NotAfterDecl, Period, SourceDecl, SourceKind, Spanned, SpendDecl, UndoDecl,
};

const PERIODS: &[(&str, Period)] = &[
    ("hour", Period::Hour),
    ("day", Period::Day),
    ("week", Period::Week),
    ("month", Period::Month),
];

type Bind = Vec<(Spanned<String>, Spanned<String>)>;

/// `arguments`: an object schema, kept as JSON.
pub(super) fn arguments(
    r: &mut Reader,
    ctx: &str,
    node: &Node,
) -> Option<Spanned<serde_json::Value>> {
    r.map(
        ctx,
        "arguments",
        node,
        "a JSON Schema of an object (a mapping)",
    )?;
    let bad = |r: &mut Reader, at: &Node, label: &str| {
        r.push(
            Diagnostic::error(
                codes::BAD_ARGUMENT_SCHEMA,
                at.span,
                format!("{ctx}`arguments` must be an object schema"),
            )
            .with_label(label.to_string())
            .with_help("write `{type: object, properties: {name: {type: string}}}`"),
        );
    };
    if let Some(ty) = node.get("type")
        && ty.as_str() != Some("object")
    {
        bad(r, ty, "the type of the arguments must be `object`");
        return None;
    }
    if let Some(props) = node.get("properties") {
        let Some(entries) = props.entries() else {
            bad(r, props, "`properties` must map argument names to schemas");
            return None;
        };
        for (_, schema) in entries {
            if !matches!(schema.kind, NodeKind::Map(_) | NodeKind::Bool(_)) {
                bad(r, schema, "an argument's schema must be a mapping");
                return None;
            }
        }
    }
    Some(Spanned::new(node.to_json(), node.span))
}

/// Where each part of a schema is written, by JSON pointer: the schema itself at `""`, every
/// member of a mapping from its key to the end of its value, every item of a list at itself.
pub(super) fn places(node: &Node) -> Vec<(String, stalwart_diagnostics::Span)> {
    fn walk(node: &Node, at: &str, out: &mut Vec<(String, stalwart_diagnostics::Span)>) {
        match &node.kind {
            NodeKind::Map(entries) => {
                for (key, value) in entries {
                    let ptr = format!("{at}/{}", key.name.replace('~', "~0").replace('/', "~1"));
                    out.push((ptr.clone(), crate::node::read::entry_span(key, value)));
                    walk(value, &ptr, out);
                }
            }
            NodeKind::Seq(items) => {
                for (i, item) in items.iter().enumerate() {
                    let ptr = format!("{at}/{i}");
                    out.push((ptr.clone(), item.span));
                    walk(item, &ptr, out);
                }
            }
            _ => {}
        }
    }
    let mut out = vec![(String::new(), node.span)];
    walk(node, "", &mut out);
    out
}

/// A `bind:` mapping from names to names.
fn bind(r: &mut Reader, ctx: &str, node: &Node) -> Bind {
    let Some(entries) = r.map(
        ctx,
        "bind",
        node,
        "a mapping from argument names to argument or field names",
    ) else {
        return Vec::new();
    };
    entries
        .iter()
        .filter_map(|(k, v)| {
            let theirs = r.string_as(ctx, "bind", v, "an argument or field name")?;
            Some((Spanned::new(k.name.clone(), k.span), theirs))
        })
        .collect()
}

/// `{tool: name, bind: {…}}`, for `after` entries and `undo`.
fn tool_and_bind(
    r: &mut Reader,
    ctx: &str,
    key: &str,
    node: &Node,
) -> Option<(Spanned<String>, Bind)> {
    let entries = r.map(ctx, key, node, "a mapping with `tool` (and `bind`)")?;
    r.check_keys(ctx, &format!("`{key}`"), entries, &["tool", "bind"]);
    let bind = node
        .get("bind")
        .map(|b| bind(r, ctx, b))
        .unwrap_or_default();
    let Some(tool) = node.get("tool") else {
        r.missing(ctx, "tool", node.span, "the tool's name");
        return None;
    };
    Some((r.string_as(ctx, "tool", tool, "a tool name")?, bind))
}

pub(super) fn after(r: &mut Reader, ctx: &str, node: &Node) -> Vec<AfterDecl> {
    let Some(items) = node.items() else {
        r.wrong_type(
            ctx,
            "after",
            node,
            "a list of tool names or `{tool, bind}` mappings",
        );
        return Vec::new();
    };
    items
        .iter()
        .filter_map(|item| match &item.kind {
            NodeKind::Map(_) => {
                let (tool, bind) = tool_and_bind(r, ctx, "after", item)?;
                Some(AfterDecl {
                    tool,
                    bind,
                    span: item.span,
                })
            }
            _ => {
                let tool = r.string_as(
                    ctx,
                    "after",
                    item,
                    "a tool name or a `{tool, bind}` mapping",
                )?;
                Some(AfterDecl {
                    tool,
                    bind: Vec::new(),
                    span: item.span,
                })
            }
        })
        .collect()
}

pub(super) fn not_after(r: &mut Reader, ctx: &str, node: &Node) -> Vec<Spanned<NotAfterDecl>> {
    r.string_list(ctx, "not_after", node, "tool name or `untrusted`")
        .into_iter()
        .map(|s| {
            let decl = if s.value == "untrusted" {
                NotAfterDecl::Untrusted
            } else {
                NotAfterDecl::Tool(s.value)
            };
            Spanned::new(decl, s.span)
        })
        .collect()
}

pub(super) fn at_most(r: &mut Reader, ctx: &str, node: &Node) -> Option<Spanned<AtMostDecl>> {
    match &node.kind {
        NodeKind::Int(_) => {
            let count = r.count(ctx, "at_most", node)?;
            Some(Spanned::new(
                AtMostDecl {
                    count: count.value,
                    per: None,
                },
                node.span,
            ))
        }
        NodeKind::Map(entries) => {
            r.check_keys(ctx, "`at_most`", entries, &["count", "per"]);
            let per = node
                .get("per")
                .and_then(|p| r.word(ctx, "per", p, PERIODS))
                .map(|p| p.value);
            let Some(count) = node.get("count") else {
                r.missing(ctx, "count", node.span, "how many calls are allowed");
                return None;
            };
            let count = r.count(ctx, "count", count)?;
            Some(Spanned::new(
                AtMostDecl {
                    count: count.value,
                    per,
                },
                node.span,
            ))
        }
        _ => {
            r.wrong_type(
                ctx,
                "at_most",
                node,
                "a whole number or a mapping `{count, per}`",
            );
            None
        }
    }
}

pub(super) fn undo(r: &mut Reader, ctx: &str, node: &Node) -> Option<Spanned<UndoDecl>> {
    match &node.kind {
        NodeKind::Str(s) if s == "none" => Some(Spanned::new(UndoDecl::None, node.span)),
        NodeKind::Str(s) => {
            r.push(
                Diagnostic::error(
                    codes::BAD_VALUE,
                    node.span,
                    format!("{ctx}`undo` must be `none` or a mapping `{{tool, bind}}`, not `{s}`"),
                )
                .with_label("not a value of `undo`")
                .with_help(format!(
                    "write `undo: {{tool: {s}}}` to name the tool that undoes this one"
                )),
            );
            None
        }
        NodeKind::Map(_) => {
            let (tool, bind) = tool_and_bind(r, ctx, "undo", node)?;
            Some(Spanned::new(UndoDecl::Tool { tool, bind }, node.span))
        }
        _ => {
            r.wrong_type(ctx, "undo", node, "`none` or a mapping `{tool, bind}`");
            None
        }
    }
}

pub(super) fn idempotency(
    r: &mut Reader,
    ctx: &str,
    node: &Node,
) -> Option<Spanned<IdempotencyDecl>> {
    let entries = r.map(
        ctx,
        "idempotency",
        node,
        "a mapping `{key: argument}` or `{retry_safe: true}`",
    )?;
    r.check_keys(ctx, "`idempotency`", entries, &["key", "retry_safe"]);
    match (node.get("key"), node.get("retry_safe")) {
        (Some(_), Some(safe)) => {
            r.push(
                Diagnostic::error(codes::CONFLICTING_KEYS, safe.span, format!("{ctx}`idempotency` has both `key` and `retry_safe`"))
                    .with_label("remove one of them")
                    .with_note("`key` names the argument that makes a call unique; `retry_safe: true` says any call may run twice"),
            );
            None
        }
        (Some(key), None) => {
            let key = r.string_as(ctx, "key", key, "an argument name")?;
            Some(Spanned::new(IdempotencyDecl::Key(key), node.span))
        }
        (None, Some(safe)) => {
            let safe = r.bool(ctx, "retry_safe", safe)?;
            safe.value
                .then(|| Spanned::new(IdempotencyDecl::RetrySafe, node.span))
        }
        (None, None) => {
            r.missing(
                ctx,
                "key",
                node.span,
                "the argument that makes a call unique (or `retry_safe: true`)",
            );
            None
        }
    }
}

pub(super) fn checks(r: &mut Reader, ctx: &str, node: &Node) -> Vec<CheckDecl> {
    let Some(entries) = r.map(
        ctx,
        "checks",
        node,
        "a mapping from argument names to checks",
    ) else {
        return Vec::new();
    };
    let ops = [
        ("at_most", CheckOp::AtMost),
        ("at_least", CheckOp::AtLeast),
        ("equals", CheckOp::Equals),
        ("one_of", CheckOp::OneOf),
    ];
    let names: Vec<&str> = ops.iter().map(|(n, _)| *n).collect();
    let mut out = Vec::new();
    for (arg, body) in entries {
        let Some(fields) = r.map(
            ctx,
            &format!("checks.{}", arg.name),
            body,
            &format!("a mapping of {}", one_of(&names)),
        ) else {
            continue;
        };
        r.check_keys(ctx, "a check", fields, &names);
        for (op_key, value) in fields {
            let Some((_, op)) = ops.iter().find(|(n, _)| *n == op_key.name) else {
                continue;
            };
            let path = format!("checks.{}.{}", arg.name, op_key.name);
            let Some(operand) = check_operand(r, ctx, &path, *op, value) else {
                continue;
            };
            out.push(CheckDecl {
                argument: Spanned::new(arg.name.clone(), arg.span),
                op: *op,
                operand: Spanned::new(operand, value.span),
                span: entry_span(op_key, value),
            });
        }
    }
    out
}

fn check_operand(
    r: &mut Reader,
    ctx: &str,
    key: &str,
    op: CheckOp,
    node: &Node,
) -> Option<CheckOperand> {
    if let NodeKind::Map(entries) = &node.kind {
        r.check_keys(ctx, &format!("`{key}`"), entries, &["from"]);
        let Some(from) = node.get("from") else {
            r.missing(
                ctx,
                "from",
                node.span,
                "`tool.field`, the result field compared with",
            );
            return None;
        };
        let text = r.string_as(ctx, "from", from, "`tool.field`")?;
        let Some((tool, field)) = text
            .value
            .split_once('.')
            .filter(|(t, f)| !t.is_empty() && !f.is_empty())
        else {
            r.push(
                Diagnostic::error(
                    codes::BAD_FIELD_REFERENCE,
                    from.span,
                    format!("{ctx}`from` must be `tool.field`, not `{}`", text.value),
                )
                .with_label("expected a tool's name, a dot and a field of its result"),
            );
            return None;
        };
        let tool_span = from.sub_span(0..tool.len());
        let field_span = from.sub_span(tool.len() + 1..text.value.len());
        return Some(CheckOperand::From {
            tool: Spanned::new(tool.to_string(), tool_span),
            field: Spanned::new(field.to_string(), field_span),
        });
    }
    let ok = match op {
        CheckOp::AtMost | CheckOp::AtLeast => {
            matches!(node.kind, NodeKind::Int(_) | NodeKind::Float(_))
        }
        CheckOp::OneOf => matches!(node.kind, NodeKind::Seq(_)),
        CheckOp::Equals => !matches!(node.kind, NodeKind::Seq(_)),
    };
    if !ok {
        let expected = match op {
            CheckOp::AtMost | CheckOp::AtLeast => "a number or `{from: tool.field}`",
            CheckOp::OneOf => "a list of values or `{from: tool.field}`",
            CheckOp::Equals => "a value or `{from: tool.field}`",
        };
        r.wrong_type(ctx, key, node, expected);
        return None;
    }
    Some(CheckOperand::Value(node.to_json()))
}

pub(super) fn spend(r: &mut Reader, ctx: &str, node: &Node) -> Option<Spanned<SpendDecl>> {
    let entries = r.map(ctx, "spend", node, "a mapping `{argument, at_most, per}`")?;
    r.check_keys(ctx, "`spend`", entries, &["argument", "at_most", "per"]);
    let argument = node
        .get("argument")
        .and_then(|v| r.string_as(ctx, "argument", v, "an argument name"));
    let at_most = node
        .get("at_most")
        .and_then(|v| r.amount(ctx, "at_most", v));
    let per = node.get("per").and_then(|v| r.word(ctx, "per", v, PERIODS));
    for (k, what) in [
        ("argument", "the argument holding the amount"),
        ("at_most", "the most that may be spent"),
        ("per", "`hour`, `day`, `week` or `month`"),
    ] {
        if node.get(k).is_none() {
            r.missing(ctx, k, node.span, what);
        }
    }
    Some(Spanned::new(
        SpendDecl {
            argument: argument?,
            at_most: at_most?,
            per: per?.value,
        },
        node.span,
    ))
}

pub(super) fn argument_kinds(
    r: &mut Reader,
    ctx: &str,
    node: &Node,
) -> Vec<(Spanned<String>, Spanned<ArgumentKind>)> {
    let Some(entries) = r.map(
        ctx,
        "argument_kinds",
        node,
        "a mapping from argument names to kinds",
    ) else {
        return Vec::new();
    };
    let kinds = [
        ("code", ArgumentKind::Code),
        ("shell", ArgumentKind::Shell),
        ("sql", ArgumentKind::Sql),
        ("query", ArgumentKind::Query),
        ("path", ArgumentKind::Path),
        ("url", ArgumentKind::Url),
        ("template", ArgumentKind::Template),
        ("destination", ArgumentKind::Destination),
    ];
    entries
        .iter()
        .filter_map(|(k, v)| {
            let kind = r.word(ctx, &format!("argument_kinds.{}", k.name), v, &kinds)?;
            Some((Spanned::new(k.name.clone(), k.span), kind))
        })
        .collect()
}

pub(super) fn source(r: &mut Reader, ctx: &str, node: &Node) -> Option<Spanned<SourceDecl>> {
    let entries = r.map(
        ctx,
        "source",
        node,
        "a mapping `{mcp: server, pin}` or `{package: name, pin}`",
    )?;
    r.check_keys(ctx, "`source`", entries, &["mcp", "package", "pin"]);
    let pin = node
        .get("pin")
        .and_then(|v| r.string_as(ctx, "pin", v, "a version or digest"))
        .map(|s| s.value);
    let (kind, name) = match (node.get("mcp"), node.get("package")) {
        (Some(_), Some(package)) => {
            r.push(
                Diagnostic::error(
                    codes::CONFLICTING_KEYS,
                    package.span,
                    format!("{ctx}`source` has both `mcp` and `package`"),
                )
                .with_label("a tool comes from one place"),
            );
            return None;
        }
        (Some(server), None) => (
            SourceKind::Mcp,
            r.string_as(ctx, "mcp", server, "an MCP server name")?,
        ),
        (None, Some(package)) => (
            SourceKind::Package,
            r.string_as(ctx, "package", package, "a package name")?,
        ),
        (None, None) => {
            r.missing(
                ctx,
                "mcp",
                node.span,
                "the MCP server (or `package:` the package) the tool comes from",
            );
            return None;
        }
    };
    Some(Spanned::new(
        SourceDecl {
            kind,
            name: name.value,
            pin,
        },
        node.span,
    ))
}
