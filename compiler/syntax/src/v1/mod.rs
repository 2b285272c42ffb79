//! Colang 1.0: the line rules ([`lines`]), the lexer ([`lexer`]), the layout pass that adds
//! blocks and statement keywords ([`layout`]), a hand-written parser for clean files
//! (`descent`) and the parsers generated from `grammars/colang_v1.lalrpop` for the others, the
//! syntax tree ([`ast`]) with the message names of `user`/`bot` lines read as the reference reads
//! them (`names`), and the facts `inspect` prints ([`inspect`]). Parsing never fails: it
//! returns the tree of everything it could read and a diagnostic for everything it could not.

pub mod ast;
pub mod codes;
mod descent;
pub mod inspect;
pub mod layout;
pub mod lexer;
pub mod lines;
mod names;
mod nodes;
mod text_runs;
mod validate;

pub use inspect::{anonymous_flow_id, inspect_v1};

use stalwart_diagnostics::{Diagnostic, FileId};

use crate::Parse;
use ast::{Item, Module};
use lexer::Tok;

generated_parser!(grammar, "/colang_v1.rs");

// The same grammar with its renaming rules inlined (see build.rs): fewer reductions, other
// "expected …" lists, so it parses clean files only and its errors are never reported.
generated_parser!(grammar_clean, "/colang_v1_clean.rs");

thread_local! {
    /// The line and layout buffers of the last file parsed on this thread, reused by the next
    /// one: a file of a few kilobytes would otherwise allocate and free them for each parse.
    /// Taken out while in use, so a parse that finds none (the first, or one inside another)
    /// allocates its own.
    static SCRATCH: std::cell::Cell<Option<(lines::Lines, layout::Layout)>> =
        const { std::cell::Cell::new(None) };
}

/// The most layout tokens and logical lines whose buffers [`SCRATCH`] keeps: a large input's
/// buffers are freed, not held by the thread.
const SCRATCH_TOKENS: usize = 1 << 16;
const SCRATCH_LINES: usize = 1 << 14;

/// Parses a Colang 1.0 file. The module holds every definition that could be read; the
/// diagnostics (sorted by position) say what could not.
pub fn parse_v1(file: FileId, text: &str) -> Parse<Module> {
    let (lines_buf, layout_buf) = SCRATCH.take().unwrap_or_default();
    let mut lines = lines::split_lines_into(file, text, lines_buf);
    let mut diagnostics = std::mem::take(&mut lines.diagnostics);
    let (mut items, layout) = parse_items(file, text, &lines, layout_buf, &mut diagnostics);
    let mut from = 0;
    for item in &mut items {
        if let Item::Flow(flow) = item
            && flow.name.is_none()
        {
            flow.id = inspect::anonymous_id_at(text, &lines, flow.header.start, &mut from);
        }
    }
    let docstrings = lines
        .docstrings
        .iter()
        .map(|s| stalwart_diagnostics::Span::new(file, s.start, s.end))
        .collect();
    if layout.tokens.capacity() <= SCRATCH_TOKENS && lines.lines.capacity() <= SCRATCH_LINES {
        SCRATCH.set(Some((lines, layout)));
    }
    let module = Module { items, docstrings };
    validate::validate(&module, text, &mut diagnostics);
    stalwart_diagnostics::sort(&mut diagnostics);
    diagnostics.dedup();
    crate::cap_errors(&mut diagnostics, codes::TOO_MANY_ERRORS);
    Parse {
        value: module,
        diagnostics,
    }
}

/// Lays out the logical lines (into the buffers of `buffers`) and parses the token stream into
/// the top-level items; the layout's diagnostics, then the parser's, go to `diagnostics`.
/// Returns the items and the layout's buffers.
///
/// The chunks are parsed one by one so that a broken definition does not hide the diagnostics
/// of the next one. When the whole stream parses without any error, that parse is the same as
/// the chunk by chunk one (INVARIANT: no item spans two chunks, since a chunk starts at a
/// top-level line that cannot continue the item before it: see `layout`), so it is tried
/// first: one parser run instead of one per definition. That run is the hand-written parser
/// (`descent`), which reads the tokens as the layout pass gives them, a line at a time, and
/// builds the same tree without the generated parser's tables and stacks. When it gives up, the
/// layout pass runs again over the whole file and the generated clean-file parser (which builds
/// the same tree with fewer reductions than the first one) reads its tokens. Their errors are
/// never reported (the chunks are parsed again with the parser whose "expected …" lists the
/// messages are made of).
fn parse_items(
    file: FileId,
    text: &str,
    lines: &lines::Lines,
    mut buffers: layout::Layout,
    diagnostics: &mut Vec<Diagnostic>,
) -> (Vec<Item>, layout::Layout) {
    let mut pending = nodes::Pending::default();
    // At most about one item and one chunk per top-level line: no copying of either as they are
    // pushed.
    let top = lines.lines.iter().filter(|l| l.indent == 0).count();
    pending.items.reserve(top);
    buffers.chunks.clear();
    buffers.chunks.reserve(top + 1);
    let mut stream = layout::Stream::new(file, text, lines, buffers);
    if descent::parse(text, file, &mut stream, &mut pending) {
        let mut layout = stream.finish();
        diagnostics.append(&mut layout.diagnostics);
        return (pending.items, layout);
    }
    let mut layout = layout::layout_into(file, text, lines, stream.finish());
    diagnostics.append(&mut layout.diagnostics);
    pending.items.clear();
    pending.clear_blocks();
    let parser = grammar::ChunkParser::new();
    let mut recovered = Vec::new();
    let whole = grammar_clean::ChunkParser::new().parse(
        text,
        file,
        &mut recovered,
        &mut pending,
        text_runs::TextRuns::new(&layout.tokens),
    );
    if whole.is_ok() && recovered.is_empty() {
        return (pending.items, layout);
    }
    pending = nodes::Pending::default();
    recovered.clear();
    for &(from, to) in &layout.chunks {
        let tokens = layout.tokens.get(from..to).unwrap_or(&[]);
        let before = pending.items.len();
        pending.clear_blocks();
        if let Err(err) = parser.parse(
            text,
            file,
            &mut recovered,
            &mut pending,
            tokens.iter().copied(),
        ) {
            // A chunk that does not parse gives no items.
            pending.items.truncate(before);
            diagnostics.push(parse_error(file, text, err));
        }
        diagnostics.extend(
            recovered
                .drain(..)
                .map(|r| parse_error(file, text, r.error)),
        );
    }
    (pending.items, layout)
}

type ParseError = lalrpop_util::ParseError<usize, Tok, ()>;

#[cold]
fn parse_error(file: FileId, text: &str, err: ParseError) -> Diagnostic {
    use lalrpop_util::ParseError as E;
    let at = |l: usize, r: usize| nodes::span(file, (l, r));
    match err {
        E::UnrecognizedToken {
            token: (l, tok, r),
            expected,
        } => match tok {
            Tok::Newline | Tok::Dedent if expected.iter().any(|e| e == "\")\"") => {
                Diagnostic::error(
                    codes::UNCLOSED_BRACKET,
                    at(l, l),
                    "unclosed `(` at the end of the line",
                )
                .with_label("expected `)`")
            }
            Tok::Newline | Tok::Dedent => Diagnostic::error(
                codes::UNEXPECTED_END_OF_LINE,
                at(l, l),
                "unexpected end of line",
            )
            .with_label(format!("expected {}", describe(&expected))),
            Tok::Indent => {
                Diagnostic::error(codes::UNEXPECTED_INDENT, at(l, l), "unexpected indentation")
            }
            _ => {
                let word = text.get(l..r).unwrap_or("");
                Diagnostic::error(
                    codes::UNEXPECTED_TOKEN,
                    at(l, r),
                    format!("unexpected `{word}`"),
                )
                .with_label(format!("expected {}", describe(&expected)))
            }
        },
        E::UnrecognizedEof { location, expected } => Diagnostic::error(
            codes::UNEXPECTED_END_OF_LINE,
            at(location, location),
            "unexpected end of file",
        )
        .with_label(format!("expected {}", describe(&expected))),
        E::ExtraToken { token: (l, _, r) } => {
            let word = text.get(l..r).unwrap_or("");
            Diagnostic::error(
                codes::UNEXPECTED_TOKEN,
                at(l, r),
                format!("unexpected `{word}`"),
            )
        }
        E::InvalidToken { location } => Diagnostic::error(
            codes::UNEXPECTED_TOKEN,
            at(location, location),
            "unexpected character",
        ),
        E::User { .. } => Diagnostic::error(codes::UNEXPECTED_TOKEN, at(0, 0), "unreadable line"),
    }
}

/// What the parser expected, in words.
fn describe(expected: &[String]) -> String {
    let mut words: Vec<String> = Vec::new();
    for e in expected {
        let name = e.trim_matches('"');
        let word = match name {
            "end of line" => "the end of the line".to_string(),
            "word" => "a name".to_string(),
            "variable" => "a variable".to_string(),
            "string" => "a string".to_string(),
            "number" => "a number".to_string(),
            "indent"
            | "dedent"
            | "unclosed string"
            | "single-quoted string"
            | "character"
            | "bad"
            | "flow name" => continue,
            other => format!("`{other}`"),
        };
        if !words.contains(&word) {
            words.push(word);
        }
    }
    if words.len() > 5 {
        return "more on this line".to_string();
    }
    match words.as_slice() {
        [] => "something else".to_string(),
        [one] => one.clone(),
        [init @ .., last] => format!("{} or {last}", init.join(", ")),
    }
}
