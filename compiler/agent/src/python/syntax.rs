//! Syntax errors of a tool module, and recovery past them.
//!
//! tree-sitter keeps going after an error, but an unclosed bracket can swallow the rest of the
//! module into one error node. So the reader parses again with each top-level error blanked out
//! (its bytes replaced by spaces up to the next line that starts at column 0, newlines kept, so
//! every byte offset stays the same), until no top-level error is left. Syntax errors are reported
//! from every pass, except where an earlier pass already reported one.

use stalwart_diagnostics::{Diagnostic, Span};
use tree_sitter::Node as TsNode;

use super::codes;
use super::literal::{Source, children};

/// How many times a module is parsed at most.
pub(super) const MAX_PASSES: usize = 16;

/// Adds one diagnostic per outermost syntax error and per missing token, unless its span
/// overlaps one already in `diagnostics` (from an earlier pass).
pub(super) fn syntax_errors(src: Source<'_>, root: TsNode<'_>, diagnostics: &mut Vec<Diagnostic>) {
    if !root.has_error() {
        return;
    }
    let mut cursor = root.walk();
    loop {
        let node = cursor.node();
        let found = if node.is_missing() {
            let missing = if node.is_named() {
                node.kind().replace('_', " ")
            } else {
                format!("`{}`", node.kind())
            };
            Some(
                Diagnostic::error(
                    codes::SYNTAX,
                    src.span(node),
                    format!("invalid syntax: missing {missing}"),
                )
                .with_label("expected here"),
            )
        } else if node.is_error() {
            Some(unexpected(src, node))
        } else {
            None
        };
        let reported = found.is_some();
        if let Some(d) = found {
            let overlaps = diagnostics.iter().any(|old| {
                old.code == codes::SYNTAX
                    && old.primary.span.start <= d.primary.span.end
                    && d.primary.span.start <= old.primary.span.end
            });
            if !overlaps {
                diagnostics.push(d);
            }
        }
        if !reported && node.has_error() && cursor.goto_first_child() {
            continue;
        }
        loop {
            if cursor.goto_next_sibling() {
                break;
            }
            if !cursor.goto_parent() {
                return;
            }
        }
    }
}

/// An error node, reported on its first line.
fn unexpected(src: Source<'_>, node: TsNode<'_>) -> Diagnostic {
    let mut first = node;
    while let Some(child) = first.child(0) {
        first = child;
    }
    let token = src.text_of(first);
    let message = if !token.is_empty()
        && token.len() <= 30
        && !token.contains('\n')
        && !token.contains('`')
    {
        format!("invalid syntax: unexpected `{token}`")
    } else {
        "invalid syntax".to_string()
    };
    let span = src.span(node);
    let text = src.text_of(node);
    let first_line = text.find('\n').map_or(text.len(), |n| n);
    let end = span
        .start
        .saturating_add(u32::try_from(first_line).unwrap_or(u32::MAX))
        .min(span.end);
    let at = Span::new(
        span.file,
        span.start,
        end.max(span.start.saturating_add(1))
            .min(span.end.max(span.start)),
    );
    Diagnostic::error(codes::SYNTAX, at, message).with_label("not valid Python")
}

/// The byte ranges of the module's top-level error nodes.
pub(super) fn top_level_errors(root: TsNode<'_>) -> Vec<(usize, usize)> {
    if root.is_error() {
        return vec![(root.start_byte(), root.end_byte())];
    }
    children(root)
        .into_iter()
        .filter(|c| c.is_error())
        .map(|c| (c.start_byte(), c.end_byte()))
        .collect()
}

/// `text` with each error blanked from its start to the next line that starts at column 0 with
/// code (or to the error's end if none does), newlines kept.
pub(super) fn blank_errors(text: &str, errors: &[(usize, usize)]) -> String {
    let mut bytes = text.as_bytes().to_vec();
    for &(start, end) in errors {
        let stop = next_statement(text, start).unwrap_or(end).max(start);
        for byte in bytes.iter_mut().take(stop).skip(start) {
            if *byte != b'\n' {
                *byte = b' ';
            }
        }
    }
    // Every byte of a multi-byte character is replaced or none is: a character either lies
    // inside a blanked range or not, and ranges start and stop at character boundaries.
    String::from_utf8(bytes).unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned())
}

/// The start of the first line after the one holding `from` that begins with code at column 0.
fn next_statement(text: &str, from: usize) -> Option<usize> {
    let rest = text.get(from..)?;
    let mut offset = from;
    let mut lines = rest.split_inclusive('\n');
    offset += lines.next()?.len();
    for line in lines {
        if line.starts_with(|c: char| !c.is_whitespace() && c != '#') {
            return Some(offset);
        }
        offset += line.len();
    }
    None
}
