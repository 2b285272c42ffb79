//! A neutral marked tree of data values, the common ground of every declaration source.
//!
//! agent.yaml and catalogue files (YAML or JSON, through saphyr), MCP answers (JSON) and the
//! keyword arguments of a Python `@tool(...)` decorator (Python literals, through tree-sitter)
//! are all turned into [`Node`]s, so one function (`declaration::tool_from_node`) reads a tool's
//! declaration whatever wrote it, with the same diagnostics at the same kind of span.

use stalwart_diagnostics::Span;

/// A data value with the span of the text that wrote it.
#[derive(Debug, Clone, PartialEq)]
pub struct Node {
    pub kind: NodeKind,
    pub span: Span,
}

#[derive(Debug, Clone, PartialEq)]
pub enum NodeKind {
    Null,
    Bool(bool),
    Int(i64),
    Float(f64),
    /// A string (quoted or plain scalar).
    Str(String),
    Seq(Vec<Node>),
    /// Entries in source order; each key with its own span.
    Map(Vec<(Key, Node)>),
}

/// A mapping key.
#[derive(Debug, Clone, PartialEq)]
pub struct Key {
    pub name: String,
    pub span: Span,
}

impl Node {
    /// The entry under `key`, if this is a mapping that has it.
    pub fn get(&self, key: &str) -> Option<&Node> {
        match &self.kind {
            NodeKind::Map(entries) => entries.iter().find(|(k, _)| k.name == key).map(|(_, v)| v),
            _ => None,
        }
    }

    pub fn as_str(&self) -> Option<&str> {
        match &self.kind {
            NodeKind::Str(s) => Some(s),
            _ => None,
        }
    }

    /// What kind of value this is, in the words a message uses (`a string`, `a list`).
    pub fn describe(&self) -> &'static str {
        match &self.kind {
            NodeKind::Null => "null",
            NodeKind::Bool(_) => "a boolean",
            NodeKind::Int(_) => "an integer",
            NodeKind::Float(_) => "a number",
            NodeKind::Str(_) => "a string",
            NodeKind::Seq(_) => "a list",
            NodeKind::Map(_) => "a mapping",
        }
    }

    /// The value as JSON (for schemas, check values and fact literals).
    pub fn to_json(&self) -> serde_json::Value {
        use serde_json::Value;
        match &self.kind {
            NodeKind::Null => Value::Null,
            NodeKind::Bool(b) => Value::Bool(*b),
            NodeKind::Int(i) => Value::from(*i),
            NodeKind::Float(f) => serde_json::Number::from_f64(*f)
                .map(Value::Number)
                .unwrap_or(Value::Null),
            NodeKind::Str(s) => Value::String(s.clone()),
            NodeKind::Seq(items) => Value::Array(items.iter().map(Node::to_json).collect()),
            NodeKind::Map(entries) => Value::Object(
                entries
                    .iter()
                    .map(|(k, v)| (k.name.clone(), v.to_json()))
                    .collect(),
            ),
        }
    }
}

impl Node {
    /// The entries of a mapping.
    pub fn entries(&self) -> Option<&[(Key, Node)]> {
        match &self.kind {
            NodeKind::Map(entries) => Some(entries),
            _ => None,
        }
    }

    /// The items of a list.
    pub fn items(&self) -> Option<&[Node]> {
        match &self.kind {
            NodeKind::Seq(items) => Some(items),
            _ => None,
        }
    }

    /// The span of the bytes `range` of a string's value, when the source wrote the value
    /// verbatim (a plain scalar, or a quoted one without escapes); otherwise the whole span.
    pub fn sub_span(&self, range: std::ops::Range<usize>) -> Span {
        let NodeKind::Str(value) = &self.kind else {
            return self.span;
        };
        let written = self.span.end.saturating_sub(self.span.start) as usize;
        let offset = if written == value.len() {
            0
        } else if written == value.len() + 2 {
            1
        } else {
            return self.span;
        };
        if range.start > range.end || range.end > value.len() {
            return self.span;
        }
        let to_u32 = |n: usize| u32::try_from(n).unwrap_or(u32::MAX);
        Span::new(
            self.span.file,
            self.span.start.saturating_add(to_u32(offset + range.start)),
            self.span.start.saturating_add(to_u32(offset + range.end)),
        )
    }
}

pub(crate) mod read;
