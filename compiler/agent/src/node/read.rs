//! Reading typed values out of [`Node`]s, with one diagnostic per bad key or value.
//!
//! Every message starts with the reader's context (`agent `desk`: `, `tool `x`: `, or nothing at
//! agent.yaml's top level) and names keys and values in the user's words, never YAML's or
//! Python's, so the same message fits agent.yaml, a catalogue file and a decorator.

use stalwart_diagnostics::{Diagnostic, Span, did_you_mean};

use super::{Key, Node, NodeKind};
use crate::Spanned;
use crate::codes;

/// Collects diagnostics while values are read.
#[derive(Debug, Default)]
pub(crate) struct Reader {
    pub diagnostics: Vec<Diagnostic>,
}

/// Backticked list: `` `a`, `b` or `c` ``.
pub(crate) fn one_of(words: &[&str]) -> String {
    let quoted: Vec<String> = words.iter().map(|w| format!("`{w}`")).collect();
    match quoted.split_last() {
        Some((last, rest)) if !rest.is_empty() => format!("{} or {last}", rest.join(", ")),
        Some((last, _)) => last.clone(),
        None => String::new(),
    }
}

/// Backticked list joined by commas: `` `a`, `b`, `c` ``.
pub(crate) fn listed(words: &[&str]) -> String {
    words
        .iter()
        .map(|w| format!("`{w}`"))
        .collect::<Vec<_>>()
        .join(", ")
}

/// The span from a key's start to its value's end.
pub(crate) fn entry_span(key: &Key, value: &Node) -> Span {
    Span::new(
        key.span.file,
        key.span.start,
        value.span.end.max(key.span.end),
    )
}

impl Reader {
    pub fn push(&mut self, diagnostic: Diagnostic) {
        self.diagnostics.push(diagnostic);
    }

    /// A wrong-type error at `node`.
    pub fn wrong_type(&mut self, ctx: &str, key: &str, node: &Node, expected: &str) {
        let mut d = Diagnostic::error(
            codes::WRONG_TYPE,
            node.span,
            format!("{ctx}`{key}` expects {expected}, found {}", node.describe()),
        )
        .with_label(format!("expected {expected}"));
        if expected == "a string"
            && matches!(
                node.kind,
                NodeKind::Int(_) | NodeKind::Float(_) | NodeKind::Bool(_)
            )
        {
            d = d.with_help("write it in quotes to make it a string");
        }
        self.push(d);
    }

    /// The entries of a mapping, or a wrong-type error.
    pub fn map<'n>(
        &mut self,
        ctx: &str,
        key: &str,
        node: &'n Node,
        expected: &str,
    ) -> Option<&'n [(Key, Node)]> {
        match &node.kind {
            NodeKind::Map(entries) => Some(entries),
            _ => {
                self.wrong_type(ctx, key, node, expected);
                None
            }
        }
    }

    /// Reports every key not in `allowed`, with the nearest allowed key as a suggestion.
    pub fn check_keys(
        &mut self,
        ctx: &str,
        place: &str,
        entries: &[(Key, Node)],
        allowed: &[&str],
    ) {
        for (key, _) in entries {
            if allowed.contains(&key.name.as_str()) {
                continue;
            }
            let mut d = Diagnostic::error(
                codes::UNKNOWN_KEY,
                key.span,
                format!("{ctx}unknown key `{}`", key.name),
            )
            .with_label(format!("not a key of {place}"))
            .with_note(format!("known keys: {}", listed(allowed)));
            if let Some(near) = did_you_mean(&key.name, allowed.iter().copied()) {
                d = d.with_help(format!("did you mean `{near}`?")).with_fix(
                    key.span,
                    near,
                    "rename the key",
                );
            }
            self.push(d);
        }
    }

    /// Reports a missing required key at `at` (the mapping or its name).
    pub fn missing(&mut self, ctx: &str, key: &str, at: Span, what: &str) {
        self.push(
            Diagnostic::error(codes::MISSING_KEY, at, format!("{ctx}missing `{key}`"))
                .with_label(format!("needs `{key}`: {what}")),
        );
    }

    /// A non-empty string, with `expected` naming what it is (`a tool name`).
    pub fn string_as(
        &mut self,
        ctx: &str,
        key: &str,
        node: &Node,
        expected: &str,
    ) -> Option<Spanned<String>> {
        match &node.kind {
            NodeKind::Str(s) if s.is_empty() => {
                self.push(
                    Diagnostic::error(
                        codes::EMPTY_NAME,
                        node.span,
                        format!("{ctx}`{key}` has an empty value"),
                    )
                    .with_label(format!("expected {expected}")),
                );
                None
            }
            NodeKind::Str(s) => Some(Spanned::new(s.clone(), node.span)),
            NodeKind::Int(_) | NodeKind::Float(_) | NodeKind::Bool(_) => {
                self.wrong_type(ctx, key, node, expected);
                if let Some(d) = self.diagnostics.last_mut() {
                    d.help = Some("write it in quotes to make it a string".to_string());
                }
                None
            }
            _ => {
                self.wrong_type(ctx, key, node, expected);
                None
            }
        }
    }

    /// A list of non-empty strings (each `expected_item`).
    pub fn string_list(
        &mut self,
        ctx: &str,
        key: &str,
        node: &Node,
        expected_item: &str,
    ) -> Vec<Spanned<String>> {
        let Some(items) = node.items() else {
            self.wrong_type(ctx, key, node, &format!("a list of {expected_item}s"));
            return Vec::new();
        };
        items
            .iter()
            .filter_map(|item| self.string_as(ctx, key, item, &format!("a {expected_item}")))
            .collect()
    }

    pub fn bool(&mut self, ctx: &str, key: &str, node: &Node) -> Option<Spanned<bool>> {
        match node.kind {
            NodeKind::Bool(b) => Some(Spanned::new(b, node.span)),
            _ => {
                self.wrong_type(ctx, key, node, "`true` or `false`");
                None
            }
        }
    }

    /// A whole number from 1 to 2^32-1.
    pub fn count(&mut self, ctx: &str, key: &str, node: &Node) -> Option<Spanned<u32>> {
        let NodeKind::Int(n) = node.kind else {
            self.wrong_type(ctx, key, node, "a whole number");
            return None;
        };
        match u32::try_from(n) {
            Ok(v) if v >= 1 => Some(Spanned::new(v, node.span)),
            _ => {
                self.push(
                    Diagnostic::error(
                        codes::OUT_OF_RANGE,
                        node.span,
                        format!("{ctx}`{key}` is out of range"),
                    )
                    .with_label(format!(
                        "expected a whole number from 1 to {}, found {n}",
                        u32::MAX
                    )),
                );
                None
            }
        }
    }

    /// A number (whole or not) that is zero or more.
    pub fn amount(&mut self, ctx: &str, key: &str, node: &Node) -> Option<f64> {
        let value = match node.kind {
            NodeKind::Int(n) => n as f64,
            NodeKind::Float(f) => f,
            _ => {
                self.wrong_type(ctx, key, node, "a number");
                return None;
            }
        };
        if value.is_finite() && value >= 0.0 {
            Some(value)
        } else {
            self.push(
                Diagnostic::error(
                    codes::OUT_OF_RANGE,
                    node.span,
                    format!("{ctx}`{key}` is out of range"),
                )
                .with_label("expected a finite number, zero or more"),
            );
            None
        }
    }

    /// One of a fixed set of words.
    pub fn word<T: Copy>(
        &mut self,
        ctx: &str,
        key: &str,
        node: &Node,
        words: &[(&str, T)],
    ) -> Option<Spanned<T>> {
        let names: Vec<&str> = words.iter().map(|(w, _)| *w).collect();
        let Some(text) = node.as_str() else {
            self.wrong_type(ctx, key, node, &one_of(&names));
            return None;
        };
        if let Some((_, v)) = words.iter().find(|(w, _)| *w == text) {
            return Some(Spanned::new(*v, node.span));
        }
        let mut d = Diagnostic::error(
            codes::BAD_VALUE,
            node.span,
            format!("{ctx}`{key}` must be {}, not `{text}`", one_of(&names)),
        )
        .with_label(format!("not a value of `{key}`"));
        if let Some(near) = did_you_mean(text, names.iter().copied()) {
            d = d.with_help(format!("did you mean `{near}`?")).with_fix(
                node.span,
                near,
                "replace the value",
            );
        }
        self.push(d);
        None
    }
}
