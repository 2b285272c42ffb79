//! YAML (and JSON, which is YAML) text to a marked [`Node`] tree, and agent.yaml on top of it.
//!
//! The tree is built from saphyr-parser's event stream, so that every node, keys included, has
//! a byte span from its first to its last character (saphyr counts characters; spans here are
//! bytes, right for any UTF-8 text). Building from events rather than saphyr's loaded `MarkedYaml`
//! lets the front end report every duplicate key (with the first one as a secondary label)
//! instead of stopping at the first, and refuse aliases before anything is copied.
//!
//! Decisions: scalars resolve by the YAML 1.2 core schema (`yes` is a string, `~` is null);
//! quoted scalars are strings; aliases (`*name`, merge keys) are errors (`E0106`): every value
//! is written where it is used; only the first document of a stream is read (`E0113`); values
//! nested deeper than 64 levels are dropped (`E0114`).

mod agent;
mod graph;

use saphyr::Scalar;
use saphyr_parser::{Event, Marker, Parser};
use stalwart_diagnostics::{Diagnostic, FileId, Span};

use crate::codes;
use crate::node::{Key, Node, NodeKind};
use crate::{AgentFile, Parse};

/// How deep values may nest.
const MAX_DEPTH: usize = 64;

pub(crate) fn parse_agent(file: FileId, text: &str) -> Parse<AgentFile> {
    let parsed = to_node(file, text);
    let mut diagnostics = parsed.diagnostics;
    let value = match parsed.value {
        Some(node) => {
            let read = agent::read_agent_file(&node, file);
            diagnostics.extend(read.diagnostics);
            read.value
        }
        None => {
            if !diagnostics.iter().any(Diagnostic::is_error) {
                diagnostics.push(
                    Diagnostic::error(
                        codes::NO_AGENTS,
                        Span::new(file, 0, 0),
                        "agent.yaml declares no agents",
                    )
                    .with_label("the file is empty")
                    .with_help("add `agents:` with at least one agent"),
                );
            }
            AgentFile::default()
        }
    };
    Parse { value, diagnostics }
}

/// Parses YAML or JSON text into a [`Node`]. `None` when the text is empty (only comments) or
/// is not valid YAML (a syntax diagnostic says where).
///
/// JSON writes a character outside the Basic Multilingual Plane as a surrogate pair of escapes
/// (`"\ud83c\udf1f"`, as Python's `json.dumps` does), which YAML does not read; such pairs are
/// rewritten to YAML's `\U0001F31F` first, and every span still points into the original text.
pub(crate) fn to_node(file: FileId, text: &str) -> Parse<Option<Node>> {
    match surrogate_pairs(text) {
        Some((rewritten, table)) => {
            let len = u32::try_from(text.len()).unwrap_or(u32::MAX);
            to_node_with(file, &rewritten, Offsets { table, len })
        }
        None => to_node_with(file, text, Offsets::new(text)),
    }
}

/// The text with every escaped surrogate pair (`\uD83C\uDF1F`, outside a single-quoted
/// string, not itself escaped) written as one `\UXXXXXXXX` escape, and the byte offset in `text`
/// of every character of the rewritten text (and the text's length last); `None` when there is
/// no such pair.
fn surrogate_pairs(text: &str) -> Option<(String, Vec<u32>)> {
    let lower = text.to_ascii_lowercase();
    if !(lower.contains("\\ud8")
        || lower.contains("\\ud9")
        || lower.contains("\\uda")
        || lower.contains("\\udb"))
    {
        return None;
    }
    let bytes = text.as_bytes();
    let hex = |at: usize| -> Option<u32> {
        let digits = text.get(at..at + 4)?;
        u32::from_str_radix(digits, 16).ok()
    };
    let mut out = String::with_capacity(text.len());
    let mut table = Vec::with_capacity(text.len() + 1);
    let mut changed = false;
    let mut backslashes = 0usize;
    let mut i = 0usize;
    let to_u32 = |n: usize| u32::try_from(n).unwrap_or(u32::MAX);
    while i < text.len() {
        let pair = if bytes.get(i) == Some(&b'\\') && backslashes.is_multiple_of(2) {
            match (
                bytes.get(i + 1),
                hex(i + 2),
                bytes.get(i + 6),
                bytes.get(i + 7),
                hex(i + 8),
            ) {
                (Some(b'u'), Some(high), Some(b'\\'), Some(b'u'), Some(low))
                    if (0xD800..0xDC00).contains(&high) && (0xDC00..0xE000).contains(&low) =>
                {
                    Some(0x10000 + ((high - 0xD800) << 10) + (low - 0xDC00))
                }
                _ => None,
            }
        } else {
            None
        };
        if let Some(code) = pair {
            let escape = format!("\\U{code:08X}");
            for k in 0..escape.len() {
                table.push(to_u32(i + k.min(11)));
            }
            out.push_str(&escape);
            i += 12;
            backslashes = 0;
            changed = true;
            continue;
        }
        let Some(c) = text.get(i..).and_then(|rest| rest.chars().next()) else {
            break;
        };
        backslashes = if c == '\\' { backslashes + 1 } else { 0 };
        table.push(to_u32(i));
        out.push(c);
        i += c.len_utf8();
    }
    table.push(to_u32(text.len()));
    changed.then_some((out, table))
}

fn to_node_with(file: FileId, text: &str, offsets: Offsets) -> Parse<Option<Node>> {
    let mut builder = Builder {
        file,
        offsets,
        stack: Vec::new(),
        root: None,
        skip: 0,
        diagnostics: Vec::new(),
    };
    let mut parser = Parser::new_from_str(text);
    let mut documents = 0usize;
    while let Some(next) = parser.next_event() {
        let (event, span) = match next {
            Ok(pair) => pair,
            Err(e) => {
                let at = builder.offsets.byte(e.marker());
                let info = e.info().trim_end_matches('.');
                builder.diagnostics.push(
                    Diagnostic::error(
                        codes::SYNTAX,
                        Span::new(file, at, at),
                        format!("syntax error: {info}"),
                    )
                    .with_label("the text stops making sense here"),
                );
                return Parse {
                    value: None,
                    diagnostics: builder.diagnostics,
                };
            }
        };
        let span = Span::new(
            file,
            builder.offsets.byte(&span.start),
            builder.offsets.byte(&span.end),
        );
        match event {
            Event::DocumentStart(_) => {
                documents += 1;
                if documents == 2 {
                    builder.diagnostics.push(
                        Diagnostic::error(
                            codes::SEVERAL_DOCUMENTS,
                            span,
                            "the file holds more than one document",
                        )
                        .with_label("a second document starts here")
                        .with_note("only the first document is read"),
                    );
                }
            }
            _ if documents > 1 => {}
            Event::Nothing | Event::StreamStart | Event::StreamEnd | Event::DocumentEnd => {}
            Event::Alias(_) => {
                builder.diagnostics.push(
                    Diagnostic::error(codes::ALIAS, span, "aliases are not supported")
                        .with_label("an alias")
                        .with_help("write the value out here instead of referring to an anchor"),
                );
                builder.value(
                    Node {
                        kind: NodeKind::Null,
                        span,
                    },
                    None,
                );
            }
            Event::Scalar(value, style, _, tag) => {
                let kind =
                    match Scalar::parse_from_cow_and_metadata(value.clone(), style, tag.as_ref()) {
                        Some(scalar) => scalar_kind(scalar),
                        None => {
                            builder.diagnostics.push(
                                Diagnostic::error(
                                    codes::BAD_TAGGED_VALUE,
                                    span,
                                    format!("`{value}` does not have the type its tag says"),
                                )
                                .with_label("the value does not match its tag"),
                            );
                            NodeKind::Str(value.to_string())
                        }
                    };
                builder.value(Node { kind, span }, Some(value.into_owned()));
            }
            Event::SequenceStart(..) => builder.open(span, false),
            Event::MappingStart(..) => builder.open(span, true),
            Event::SequenceEnd | Event::MappingEnd => builder.close(span),
        }
    }
    Parse {
        value: builder.root,
        diagnostics: builder.diagnostics,
    }
}

fn scalar_kind(scalar: Scalar<'_>) -> NodeKind {
    match scalar {
        Scalar::Null => NodeKind::Null,
        Scalar::Boolean(b) => NodeKind::Bool(b),
        Scalar::Integer(i) => NodeKind::Int(i),
        Scalar::FloatingPoint(f) => NodeKind::Float(f.into_inner()),
        Scalar::String(s) => NodeKind::Str(s.into_owned()),
    }
}

/// Character index → byte offset.
struct Offsets {
    /// Byte offset of every character, and the text's length last; empty for ASCII text.
    table: Vec<u32>,
    len: u32,
}

impl Offsets {
    fn new(text: &str) -> Self {
        let len = u32::try_from(text.len()).unwrap_or(u32::MAX);
        if text.is_ascii() {
            return Self {
                table: Vec::new(),
                len,
            };
        }
        let table = text
            .char_indices()
            .map(|(i, _)| u32::try_from(i).unwrap_or(u32::MAX))
            .chain(std::iter::once(len))
            .collect();
        Self { table, len }
    }

    fn byte(&self, marker: &Marker) -> u32 {
        let index = marker.index();
        // INVARIANT: a table built by `surrogate_pairs` has an entry per character of the text
        // the parser reads; `new` builds one only for text that is not ASCII.
        if self.table.is_empty() {
            return u32::try_from(index).unwrap_or(u32::MAX).min(self.len);
        }
        self.table.get(index).copied().unwrap_or(self.len)
    }
}

enum Frame {
    Seq {
        span: Span,
        flow: bool,
        items: Vec<Node>,
    },
    Map {
        span: Span,
        flow: bool,
        entries: Vec<(Key, Node)>,
        key: Option<Option<Key>>,
    },
}

struct Builder {
    file: FileId,
    offsets: Offsets,
    stack: Vec<Frame>,
    root: Option<Node>,
    /// Open collections being dropped because they nest too deep.
    skip: usize,
    diagnostics: Vec<Diagnostic>,
}

impl Builder {
    fn open(&mut self, span: Span, map: bool) {
        if self.skip > 0 || self.stack.len() >= MAX_DEPTH {
            if self.skip == 0 {
                self.diagnostics.push(
                    Diagnostic::error(
                        codes::TOO_DEEP,
                        span,
                        format!("values nest deeper than {MAX_DEPTH} levels"),
                    )
                    .with_label("this value is not read"),
                );
            }
            self.skip += 1;
            return;
        }
        let flow = span.end > span.start;
        self.stack.push(if map {
            Frame::Map {
                span,
                flow,
                entries: Vec::new(),
                key: None,
            }
        } else {
            Frame::Seq {
                span,
                flow,
                items: Vec::new(),
            }
        });
    }

    fn close(&mut self, end: Span) {
        if self.skip > 0 {
            self.skip -= 1;
            if self.skip == 0 {
                let at = Span::new(self.file, end.end, end.end);
                self.value(
                    Node {
                        kind: NodeKind::Null,
                        span: at,
                    },
                    None,
                );
            }
            return;
        }
        let Some(frame) = self.stack.pop() else {
            return;
        };
        let (start, flow, last_end, kind) = match frame {
            Frame::Seq { span, flow, items } => {
                let last = items.last().map(|n| n.span.end);
                (span, flow, last, NodeKind::Seq(items))
            }
            Frame::Map {
                span,
                flow,
                entries,
                ..
            } => {
                let last = entries.last().map(|(k, v)| v.span.end.max(k.span.end));
                (span, flow, last, NodeKind::Map(entries))
            }
        };
        let stop = if flow {
            end.end
        } else {
            last_end.unwrap_or(start.start)
        };
        let span = Span::new(self.file, start.start, stop.max(start.start));
        self.value(Node { kind, span }, None);
    }

    /// Places a finished value in its parent. `raw` is a scalar's text, used when it is a key.
    fn value(&mut self, node: Node, raw: Option<String>) {
        if self.skip > 0 {
            return;
        }
        match self.stack.last_mut() {
            None => {
                if self.root.is_none() {
                    self.root = Some(node);
                }
            }
            Some(Frame::Seq { items, .. }) => items.push(node),
            Some(Frame::Map { entries, key, .. }) => match key.take() {
                None => {
                    let name = match (&node.kind, raw) {
                        (NodeKind::Seq(_) | NodeKind::Map(_), _) => None,
                        (_, Some(raw)) => Some(raw),
                        (_, None) => None,
                    };
                    match name {
                        Some(name) => {
                            *key = Some(Some(Key {
                                name,
                                span: node.span,
                            }))
                        }
                        None => {
                            self.diagnostics.push(
                                Diagnostic::error(
                                    codes::COMPLEX_KEY,
                                    node.span,
                                    "a key must be a name, not a list or a mapping",
                                )
                                .with_label("this key and its value are not read"),
                            );
                            *key = Some(None);
                        }
                    }
                }
                Some(None) => {}
                Some(Some(k)) => {
                    if let Some((first, _)) = entries.iter().find(|(e, _)| e.name == k.name) {
                        self.diagnostics.push(
                            Diagnostic::error(
                                codes::DUPLICATE_KEY,
                                k.span,
                                format!("`{}` is given twice", k.name),
                            )
                            .with_label("given again here")
                            .with_secondary(first.span, "first given here")
                            .with_note("the first is kept; remove one of them"),
                        );
                    } else {
                        entries.push((k, node));
                    }
                }
            },
        }
    }
}
