//! Python literals (strings, numbers, `True`/`False`/`None`, lists, tuples, dictionaries) read
//! from tree-sitter nodes into [`Node`]s with the span of every literal, and docstrings.
//!
//! Anything that is not a literal (a variable, a call, an f-string with `{…}`, an operator) has no
//! value without running the module, so it is reported where it is written and left out.

use stalwart_diagnostics::{Diagnostic, FileId, Span};
use tree_sitter::Node as TsNode;

use super::codes;
use crate::node::{Key, Node, NodeKind};

/// How deep decorator values and type hints are read.
pub(super) const MAX_DEPTH: u32 = 64;

/// The module's text and file, for spans and the text of nodes.
#[derive(Clone, Copy)]
pub(super) struct Source<'a> {
    pub text: &'a str,
    pub file: FileId,
}

impl<'a> Source<'a> {
    pub fn span(&self, node: TsNode) -> Span {
        let to_u32 = |n: usize| u32::try_from(n).unwrap_or(u32::MAX);
        Span::new(
            self.file,
            to_u32(node.start_byte()),
            to_u32(node.end_byte()),
        )
    }

    /// The text a node covers (empty if the range is not on character boundaries).
    pub fn text_of(&self, node: TsNode) -> &'a str {
        self.text.get(node.byte_range()).unwrap_or("")
    }
}

/// The named children of a node, comments left out.
pub(super) fn children(node: TsNode<'_>) -> Vec<TsNode<'_>> {
    let mut cursor = node.walk();
    node.named_children(&mut cursor)
        .filter(|c| c.kind() != "comment")
        .collect()
}

/// Where a literal is read, for messages: the tool (`tool `x`: `) and the keyword.
pub(super) struct Place<'p> {
    pub ctx: &'p str,
    pub key: &'p str,
}

/// Reads a literal; reports what is not one (with `diagnostics`) and returns `None` for it.
/// Inside lists and dictionaries, a bad element is left out and the rest is kept.
pub(super) fn literal(
    src: Source<'_>,
    node: TsNode<'_>,
    place: &Place<'_>,
    diagnostics: &mut Vec<Diagnostic>,
) -> Option<Node> {
    read(src, node, place, 0, diagnostics)
}

/// Reads a literal quietly: `None` if any part of it is not a literal.
pub(super) fn literal_value(src: Source<'_>, node: TsNode<'_>) -> Option<Node> {
    let mut scratch = Vec::new();
    let value = literal(src, node, &Place { ctx: "", key: "" }, &mut scratch);
    if scratch.is_empty() { value } else { None }
}

fn read(
    src: Source<'_>,
    node: TsNode<'_>,
    place: &Place<'_>,
    depth: u32,
    out: &mut Vec<Diagnostic>,
) -> Option<Node> {
    let span = src.span(node);
    if depth > MAX_DEPTH {
        out.push(
            Diagnostic::error(
                codes::TOO_DEEP,
                span,
                format!(
                    "{}the value of `{}` is nested deeper than {MAX_DEPTH} levels",
                    place.ctx, place.key
                ),
            )
            .with_label("nested too deep"),
        );
        return None;
    }
    let kind = match node.kind() {
        "true" => NodeKind::Bool(true),
        "false" => NodeKind::Bool(false),
        "none" => NodeKind::Null,
        "string" | "concatenated_string" => return string_literal(src, node, place, out),
        "integer" | "float" => return number(src, node, false, place, out),
        "unary_operator" => return signed(src, node, place, out),
        "parenthesized_expression" => {
            let inner = children(node);
            return match inner.as_slice() {
                [one] => read(src, *one, place, depth, out),
                _ => not_literal(src, node, place, out),
            };
        }
        "list" | "tuple" => NodeKind::Seq(sequence(src, node, place, depth, out)),
        "dictionary" => NodeKind::Map(dictionary(src, node, place, depth, out)),
        "set" => return unsupported(src, node, place, "a set", "use a list", out),
        "ellipsis" => return unsupported(src, node, place, "`...`", "write the value itself", out),
        // A syntax error, reported once for the whole module.
        "ERROR" => return None,
        _ => return not_literal(src, node, place, out),
    };
    Some(Node { kind, span })
}

fn sequence(
    src: Source<'_>,
    node: TsNode<'_>,
    place: &Place<'_>,
    depth: u32,
    out: &mut Vec<Diagnostic>,
) -> Vec<Node> {
    children(node)
        .into_iter()
        .filter_map(|item| read(src, item, place, depth + 1, out))
        .collect()
}

fn dictionary(
    src: Source<'_>,
    node: TsNode<'_>,
    place: &Place<'_>,
    depth: u32,
    out: &mut Vec<Diagnostic>,
) -> Vec<(Key, Node)> {
    let mut entries = Vec::new();
    for entry in children(node) {
        if entry.kind() != "pair" {
            if entry.kind() != "ERROR" {
                not_literal(src, entry, place, out);
            }
            continue;
        }
        let (Some(key_node), Some(value_node)) = (
            entry.child_by_field_name("key"),
            entry.child_by_field_name("value"),
        ) else {
            continue;
        };
        let key = match read(src, key_node, place, depth + 1, out) {
            Some(Node {
                kind: NodeKind::Str(name),
                span,
            }) => Some(Key { name, span }),
            Some(other) => {
                out.push(
                    Diagnostic::error(
                        codes::NON_STRING_KEY,
                        other.span,
                        format!(
                            "{}a key in `{}` must be a string, found {}",
                            place.ctx,
                            place.key,
                            other.describe()
                        ),
                    )
                    .with_label("expected a string"),
                );
                None
            }
            None => None,
        };
        let value = read(src, value_node, place, depth + 1, out);
        if let (Some(key), Some(value)) = (key, value) {
            entries.push((key, value));
        }
    }
    entries
}

/// `-1`, `+2.5`: a sign on a number literal.
fn signed(
    src: Source<'_>,
    node: TsNode<'_>,
    place: &Place<'_>,
    out: &mut Vec<Diagnostic>,
) -> Option<Node> {
    let operator = node.child_by_field_name("operator").map(|o| src.text_of(o));
    let argument = node.child_by_field_name("argument");
    match (operator, argument) {
        (Some(op @ ("-" | "+")), Some(arg)) if matches!(arg.kind(), "integer" | "float") => {
            let mut value = number(src, arg, op == "-", place, out)?;
            value.span = src.span(node);
            Some(value)
        }
        _ => not_literal(src, node, place, out),
    }
}

fn number(
    src: Source<'_>,
    node: TsNode<'_>,
    negative: bool,
    place: &Place<'_>,
    out: &mut Vec<Diagnostic>,
) -> Option<Node> {
    let span = src.span(node);
    let text: String = src.text_of(node).chars().filter(|c| *c != '_').collect();
    let lower = text.to_ascii_lowercase();
    if lower.ends_with('j') {
        return unsupported(
            src,
            node,
            place,
            "a complex number",
            "write a whole or decimal number",
            out,
        );
    }
    let out_of_range = |out: &mut Vec<Diagnostic>| {
        out.push(
            Diagnostic::error(
                codes::NUMBER_OUT_OF_RANGE,
                span,
                format!(
                    "{}the number `{}` in `{}` is out of range",
                    place.ctx,
                    src.text_of(node),
                    place.key
                ),
            )
            .with_label("expected a whole number that fits 64 bits, or a finite decimal number"),
        );
        None
    };
    if node.kind() == "float" {
        return match lower.parse::<f64>() {
            Ok(f) if f.is_finite() => Some(Node {
                kind: NodeKind::Float(if negative { -f } else { f }),
                span,
            }),
            _ => out_of_range(out),
        };
    }
    let (digits, radix) = if let Some(rest) = lower.strip_prefix("0x") {
        (rest, 16)
    } else if let Some(rest) = lower.strip_prefix("0o") {
        (rest, 8)
    } else if let Some(rest) = lower.strip_prefix("0b") {
        (rest, 2)
    } else {
        (lower.as_str(), 10)
    };
    let parsed = i128::from_str_radix(digits, radix)
        .ok()
        .map(|v| if negative { -v } else { v });
    match parsed.and_then(|v| i64::try_from(v).ok()) {
        Some(v) => Some(Node {
            kind: NodeKind::Int(v),
            span,
        }),
        None => out_of_range(out),
    }
}

fn string_literal(
    src: Source<'_>,
    node: TsNode<'_>,
    place: &Place<'_>,
    out: &mut Vec<Diagnostic>,
) -> Option<Node> {
    match decode(src, node) {
        Ok(value) => Some(Node {
            kind: NodeKind::Str(value),
            span: src.span(node),
        }),
        Err(StringProblem::Interpolation(at)) => {
            let d = Diagnostic::error(
                codes::NOT_A_LITERAL,
                src.span(at),
                format!(
                    "{}the value of `{}` must be a literal: the module is read, never run",
                    place.ctx, place.key
                ),
            )
            .with_label("an f-string with `{…}` has no value until the module runs")
            .with_help("write the text itself");
            out.push(d);
            None
        }
        Err(StringProblem::Bytes) => unsupported(src, node, place, "bytes", "use a string", out),
    }
}

fn not_literal(
    src: Source<'_>,
    node: TsNode<'_>,
    place: &Place<'_>,
    out: &mut Vec<Diagnostic>,
) -> Option<Node> {
    let what = match node.kind() {
        "identifier" | "attribute" => "a name has no value until the module runs",
        "call" => "a call has no value until the module runs",
        "list_splat" | "dictionary_splat" => "unpacking has no value until the module runs",
        "list_comprehension"
        | "dictionary_comprehension"
        | "set_comprehension"
        | "generator_expression" => "a comprehension has no value until the module runs",
        _ => "an expression has no value until the module runs",
    };
    out.push(
        Diagnostic::error(
            codes::NOT_A_LITERAL,
            src.span(node),
            format!("{}the value of `{}` must be a literal: the module is read, never run", place.ctx, place.key),
        )
        .with_label(what)
        .with_help("write the value itself: a string, a number, `True`, `False`, `None`, a list, a tuple or a dictionary"),
    );
    None
}

fn unsupported(
    src: Source<'_>,
    node: TsNode<'_>,
    place: &Place<'_>,
    what: &str,
    help: &str,
    out: &mut Vec<Diagnostic>,
) -> Option<Node> {
    out.push(
        Diagnostic::error(
            codes::UNSUPPORTED_LITERAL,
            src.span(node),
            format!("{}`{}` cannot hold {what}", place.ctx, place.key),
        )
        .with_label("not a value a declaration can hold")
        .with_help(help.to_string()),
    );
    None
}

pub(super) enum StringProblem<'t> {
    /// An f-string's `{…}`.
    Interpolation(TsNode<'t>),
    Bytes,
}

/// The value of a string literal (or of adjacent literals, joined): prefixes, quotes and escapes
/// handled as Python does.
pub(super) fn decode<'t>(src: Source<'_>, node: TsNode<'t>) -> Result<String, StringProblem<'t>> {
    if node.kind() == "concatenated_string" {
        let mut value = String::new();
        for part in children(node) {
            value.push_str(&decode(src, part)?);
        }
        return Ok(value);
    }
    let mut prefix = String::new();
    let mut body_start = node.start_byte();
    let mut body_end = node.end_byte();
    for child in children(node) {
        match child.kind() {
            "string_start" => {
                let start = src.text_of(child);
                prefix = start
                    .chars()
                    .take_while(|c| c.is_ascii_alphabetic())
                    .collect::<String>()
                    .to_ascii_lowercase();
                body_start = child.end_byte();
            }
            "string_end" => body_end = child.start_byte(),
            "interpolation" => return Err(StringProblem::Interpolation(child)),
            _ => {}
        }
    }
    if prefix.contains('b') {
        return Err(StringProblem::Bytes);
    }
    let body = src
        .text
        .get(body_start..body_end.max(body_start))
        .unwrap_or("");
    let mut value = if prefix.contains('r') {
        body.to_string()
    } else {
        unescape(body)
    };
    if prefix.contains('f') {
        value = value.replace("{{", "{").replace("}}", "}");
    }
    Ok(value)
}

/// Python's string escapes (`\n`, `\x41`, `\u00e9`, `\N{…}` kept as written, unknown escapes kept).
fn unescape(body: &str) -> String {
    let mut out = String::with_capacity(body.len());
    let mut chars = body.chars().peekable();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        let Some(e) = chars.next() else {
            out.push('\\');
            break;
        };
        let simple = match e {
            '\n' => Some(None),
            '\\' => Some(Some('\\')),
            '\'' => Some(Some('\'')),
            '"' => Some(Some('"')),
            'a' => Some(Some('\u{7}')),
            'b' => Some(Some('\u{8}')),
            'f' => Some(Some('\u{c}')),
            'n' => Some(Some('\n')),
            'r' => Some(Some('\r')),
            't' => Some(Some('\t')),
            'v' => Some(Some('\u{b}')),
            _ => None,
        };
        if let Some(pushed) = simple {
            out.extend(pushed);
            continue;
        }
        let hex_len = match e {
            'x' => 2,
            'u' => 4,
            'U' => 8,
            _ => 0,
        };
        if hex_len > 0 {
            let digits: String = chars
                .clone()
                .take(hex_len)
                .take_while(char::is_ascii_hexdigit)
                .collect();
            match u32::from_str_radix(&digits, 16)
                .ok()
                .and_then(char::from_u32)
            {
                Some(ch) if digits.len() == hex_len => {
                    out.push(ch);
                    for _ in 0..hex_len {
                        chars.next();
                    }
                }
                _ => {
                    out.push('\\');
                    out.push(e);
                }
            }
            continue;
        }
        if e.is_digit(8) {
            let mut code = e.to_digit(8).unwrap_or(0);
            for _ in 0..2 {
                match chars.peek().and_then(|c| c.to_digit(8)) {
                    Some(d) => {
                        code = code * 8 + d;
                        chars.next();
                    }
                    None => break,
                }
            }
            out.extend(char::from_u32(code));
            continue;
        }
        out.push('\\');
        out.push(e);
    }
    out
}

/// A function's docstring: its body's first statement, when that is a string literal, cleaned
/// as `inspect.cleandoc` does (tabs expanded, the common indentation of the lines after the first
/// removed, blank lines at either end dropped) and trimmed. `None` if empty or not a literal.
pub(super) fn docstring(src: Source<'_>, body: TsNode<'_>) -> Option<String> {
    let first = children(body).into_iter().next()?;
    if first.kind() != "expression_statement" {
        return None;
    }
    let expr = children(first).into_iter().next()?;
    if !matches!(expr.kind(), "string" | "concatenated_string") {
        return None;
    }
    let text = decode(src, expr).ok()?;
    let cleaned = cleandoc(&text);
    if cleaned.is_empty() {
        None
    } else {
        Some(cleaned)
    }
}

fn cleandoc(text: &str) -> String {
    let expanded = expand_tabs(text);
    let lines: Vec<&str> = expanded.split('\n').collect();
    let margin = lines
        .iter()
        .skip(1)
        .filter(|l| !l.trim().is_empty())
        .map(|l| l.chars().take_while(|c| c.is_whitespace()).count())
        .min()
        .unwrap_or(0);
    let mut cleaned: Vec<String> = Vec::with_capacity(lines.len());
    for (i, line) in lines.iter().enumerate() {
        if i == 0 {
            cleaned.push(line.trim_start().to_string());
        } else {
            cleaned.push(line.chars().skip(margin).collect());
        }
    }
    let joined = cleaned.join("\n");
    joined.trim().to_string()
}

fn expand_tabs(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut column = 0usize;
    for c in text.chars() {
        match c {
            '\t' => {
                let spaces = 8 - column % 8;
                out.extend(std::iter::repeat_n(' ', spaces));
                column += spaces;
            }
            '\n' => {
                out.push(c);
                column = 0;
            }
            _ => {
                out.push(c);
                column += 1;
            }
        }
    }
    out
}
