//! The line rules of Colang 1.0, as a pre-pass over the text: blank lines and `#` comment lines
//! are dropped, a trailing `#` comment (outside double-quoted strings) is cut, `"""` docstrings
//! are set aside, lines ending in `\` or ` or` absorb the next line, a line opening a
//! double-quoted string that it does not close runs on to the line that does, and indentation is
//! the count of leading spaces.
//!
//! A logical line is a list of segments: byte ranges of the file, each lexed on its own.

use stalwart_diagnostics::{Diagnostic, FileId, Span};

use super::codes;

/// A byte range of the file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Segment {
    pub start: u32,
    pub end: u32,
}

/// One logical line (16 bytes: a large file has one per 30 to 40 bytes of text).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Line {
    /// Leading spaces of its first physical line (a tab, reported, counts up to the next multiple
    /// of 8 so that the rest of the file still parses sensibly).
    pub indent: u32,
    /// Its first segment in [`Lines::segments`]; its segments run up to the next line's first
    /// (see [`Lines::segments_of`]).
    pub first: u32,
    /// From the first segment's start to the last one's end.
    pub start: u32,
    pub end: u32,
}

/// The logical lines of a file, its docstrings and the problems found.
#[derive(Debug, Default)]
pub struct Lines {
    pub lines: Vec<Line>,
    pub segments: Vec<Segment>,
    pub docstrings: Vec<Segment>,
    pub diagnostics: Vec<Diagnostic>,
}

impl Lines {
    /// The segments of the line `lines[i]`.
    pub fn segments_of(&self, i: usize) -> &[Segment] {
        let Some(line) = self.lines.get(i) else {
            return &[];
        };
        let end = self
            .lines
            .get(i + 1)
            .map_or(self.segments.len(), |next| next.first as usize);
        self.segments.get(line.first as usize..end).unwrap_or(&[])
    }
}

/// A physical line: the trimmed content range and the leading whitespace.
#[derive(Clone, Copy)]
struct Physical {
    /// Start of the raw line.
    raw: usize,
    /// Trimmed content.
    start: usize,
    end: usize,
    /// Start of the next physical line.
    next: usize,
    /// Whether the line holds a `#` (so perhaps a comment to cut).
    hash: bool,
}

fn physical(text: &str, at: usize) -> Physical {
    let rest = text.get(at..).unwrap_or("");
    let bytes = rest.as_bytes();
    // One search finds the line's end on most lines: those without a `#`.
    let (len, hash) = match memchr::memchr2(b'\n', b'#', bytes) {
        Some(i) if bytes.get(i) == Some(&b'#') => {
            let after = bytes.get(i + 1..).unwrap_or(&[]);
            (
                memchr::memchr(b'\n', after).map_or(bytes.len(), |j| i + 1 + j),
                true,
            )
        }
        Some(i) => (i, false),
        None => (bytes.len(), false),
    };
    let raw = rest.get(..len).unwrap_or("");
    let (start, end) = trim(raw);
    let (start, end) = (at + start, at + end);
    Physical {
        raw: at,
        start,
        end,
        next: at + len + 1,
        hash,
    }
}

/// The range of `text` once trimmed as `str::trim` trims it: byte by byte while the bytes at
/// either end are ASCII, by `str::trim` when a non-ASCII character (perhaps a Unicode space) is
/// met there.
pub(crate) fn trim(text: &str) -> (usize, usize) {
    let bytes = text.as_bytes();
    let start = bytes
        .iter()
        .position(|b| !b.is_ascii_whitespace() && *b != 0x0b)
        .unwrap_or(bytes.len());
    let end = bytes
        .iter()
        .rposition(|b| !b.is_ascii_whitespace() && *b != 0x0b)
        .map_or(start, |i| i + 1);
    let ascii_ends = |i: usize| bytes.get(i).is_none_or(u8::is_ascii);
    if ascii_ends(start) && (end == start || ascii_ends(end - 1)) {
        return (start, end);
    }
    let trimmed_start = text.trim_start();
    let start = text.len() - trimmed_start.len();
    (start, start + trimmed_start.trim_end().len())
}

/// `text.trim()`, faster where `text` starts and ends in ASCII.
pub(crate) fn trim_str(text: &str) -> &str {
    let (start, end) = trim(text);
    text.get(start..end).unwrap_or("")
}

/// The end of `p`'s content once a `#` comment outside double quotes is cut, trimmed.
fn cut_comment(text: &str, p: &Physical) -> usize {
    let (start, end) = (p.start, p.end);
    let bytes = text.as_bytes().get(start..end).unwrap_or(&[]);
    if !p.hash {
        // Most lines: nothing to cut, and `text[start..end]` is already trimmed.
        return end;
    }
    let mut in_string = false;
    let mut cut = end;
    for (i, &b) in bytes.iter().enumerate() {
        match b {
            b'"' => in_string = !in_string,
            b'#' if !in_string => {
                cut = start + i;
                break;
            }
            _ => {}
        }
    }
    let content = text.get(start..cut).unwrap_or("");
    start + content.trim_end().len()
}

fn slice(text: &str, start: usize, end: usize) -> &str {
    text.get(start..end).unwrap_or("")
}

/// The bytes of `text[start..end]`: what the checks for ASCII marks read, without the char
/// boundary checks of a `str` slice (every range here starts and ends at one).
fn bytes(text: &str, start: usize, end: usize) -> &[u8] {
    text.as_bytes().get(start..end).unwrap_or(&[])
}

fn to_u32(n: usize) -> u32 {
    u32::try_from(n).unwrap_or(u32::MAX)
}

/// Splits `text` into logical lines.
pub fn split_lines(file: FileId, text: &str) -> Lines {
    split_lines_into(file, text, Lines::default())
}

/// [`split_lines`] into the buffers of `out`, whose contents are dropped (a parse reuses the
/// buffers of the file before).
pub(crate) fn split_lines_into(file: FileId, text: &str, mut out: Lines) -> Lines {
    // About one logical line per 24 bytes of text.
    let estimate = text.len() / 24 + 8;
    out.lines.clear();
    out.segments.clear();
    out.docstrings.clear();
    out.diagnostics.clear();
    out.lines.reserve(estimate);
    out.segments.reserve(estimate);
    let mut at = 0;
    let mut docstring: Option<usize> = None;
    let span = |s: usize, e: usize| Span::new(file, to_u32(s), to_u32(e));
    while at < text.len() {
        let p = physical(text, at);
        at = p.next;
        if p.start == p.end || bytes(text, p.start, p.end).starts_with(b"#") {
            continue;
        }
        let end = cut_comment(text, &p);
        let content = bytes(text, p.start, end);
        if let Some(open) = docstring {
            if content.ends_with(b"\"\"\"") {
                docstring = None;
                out.docstrings.push(Segment {
                    start: to_u32(open),
                    end: to_u32(end),
                });
            }
            continue;
        }
        if content.starts_with(b"\"\"\"") {
            if content == b"\"\"\"" || !content.ends_with(b"\"\"\"") {
                docstring = Some(p.start);
            } else {
                out.docstrings.push(Segment {
                    start: to_u32(p.start),
                    end: to_u32(end),
                });
            }
            continue;
        }
        let indent = indentation(text, &p, &mut out.diagnostics, &span);
        let first = to_u32(out.segments.len());
        // Whether a string is left open is decided on the line before its comment is cut: the
        // reference takes `"a" # note` for a string that runs on.
        let raw = bytes(text, p.start, p.end);
        let open_string = raw.starts_with(b"\"") && (raw.len() == 1 || !raw.ends_with(b"\""));
        let end = if open_string { p.end } else { end };
        at = logical_line(text, p.start, end, open_string, at, &mut out, &span);
        let start = out
            .segments
            .get(first as usize)
            .map_or(to_u32(p.start), |s| s.start);
        let end = out.segments.last().map_or(to_u32(end), |s| s.end);
        out.lines.push(Line {
            indent,
            first,
            start,
            end,
        });
    }
    if let Some(open) = docstring {
        let close = open + 3;
        out.diagnostics.push(
            Diagnostic::error(
                codes::UNTERMINATED_DOCSTRING,
                span(open, close),
                "unterminated docstring",
            )
            .with_label("this `\"\"\"` is never closed")
            .with_note("everything after it up to the end of the file is part of the docstring"),
        );
    }
    out
}

/// The indentation of a physical line: its leading spaces, up to its first other character, as
/// the reference counts it. A tab after them does not count (a warning says so); a line whose
/// indentation starts with a tab is reported, and read as if the tab reached the next multiple
/// of 8 so that the rest of the file still parses sensibly.
fn indentation(
    text: &str,
    p: &Physical,
    diagnostics: &mut Vec<Diagnostic>,
    span: &impl Fn(usize, usize) -> Span,
) -> u32 {
    let lead = bytes(text, p.raw, p.start);
    let spaces = lead.iter().take_while(|&&b| b == b' ').count();
    let Some(tab) = lead.iter().position(|&b| b == b'\t') else {
        // Most lines: spaces only.
        return to_u32(spaces);
    };
    let at = p.raw + tab;
    if spaces > 0 {
        diagnostics.push(
            Diagnostic::warning(
                codes::TAB_AFTER_SPACES,
                span(at, at + 1),
                format!("tab after {spaces} spaces of indentation"),
            )
            .with_label("Colang 1.0 counts only the spaces before it")
            .with_note(format!("the line is read as indented by {spaces} spaces"))
            .with_help("indent with spaces"),
        );
        return to_u32(spaces);
    }
    let mut column = 0u32;
    for c in slice(text, p.raw, p.start).chars() {
        match c {
            ' ' => column = column.saturating_add(1),
            '\t' => column = (column / 8 + 1).saturating_mul(8),
            _ => {}
        }
    }
    diagnostics.push(
        Diagnostic::error(
            codes::TAB_INDENT,
            span(at, at + 1),
            "tab used for indentation",
        )
        .with_label("Colang 1.0 counts only spaces")
        .with_help("indent with spaces"),
    );
    column
}

/// Adds the segments of the logical line starting with `text[start..end]` and returns where the
/// next physical line starts.
fn logical_line(
    text: &str,
    start: usize,
    end: usize,
    open_string: bool,
    mut at: usize,
    out: &mut Lines,
    span: &impl Fn(usize, usize) -> Span,
) -> usize {
    // A double-quoted string left open runs on to the line that ends with `"`.
    if open_string {
        let mut close = None;
        while at < text.len() {
            let p = physical(text, at);
            at = p.next;
            if slice(text, p.start, p.end).ends_with('"') {
                close = Some(p.end);
                break;
            }
        }
        let Some(close) = close else {
            let mut d = Diagnostic::error(
                codes::UNTERMINATED_STRING,
                span(start, start + 1),
                "unterminated string",
            )
            .with_label("this `\"` is never closed");
            if slice(text, start, end).contains('#') {
                d = d.with_help(
                    "a line that starts with `\"` runs on until a line that ends with `\"`, \
                     even after a comment: move the comment onto a line of its own",
                );
            }
            out.diagnostics.push(d);
            out.segments.push(Segment {
                start: to_u32(start),
                end: to_u32(end),
            });
            return at;
        };
        let first = slice(text, start, end);
        let closed_before = |i: &usize| first.get(..*i).is_some_and(|f| f.ends_with('"'));
        if let Some(hash) = first.find(" #").filter(closed_before) {
            let before = text.as_bytes().get(..close).unwrap_or(&[]);
            let line = memchr::memchr_iter(b'\n', before).count() + 1;
            out.diagnostics.push(
                Diagnostic::warning(
                    codes::COMMENT_OPENS_STRING,
                    span(start + hash + 1, end),
                    format!("this comment makes the string run on to line {line}"),
                )
                .with_label("the line does not end with `\"`, so its string goes on")
                .with_note("the lines up to the next line that ends with `\"` are part of it")
                .with_help("move the comment onto a line of its own"),
            );
        }
        out.segments.push(Segment {
            start: to_u32(start),
            end: to_u32(close),
        });
        return at;
    }
    let (mut seg_start, mut seg_end) = (start, end);
    loop {
        let piece = bytes(text, seg_start, seg_end);
        let backslash = piece.ends_with(b"\\");
        let or = piece.ends_with(b" or") || piece == b"or" && seg_start != start;
        if !(backslash || or) {
            out.segments.push(Segment {
                start: to_u32(seg_start),
                end: to_u32(seg_end),
            });
            return at;
        }
        if at >= text.len() {
            if or {
                out.diagnostics.push(
                    Diagnostic::error(
                        codes::DANGLING_CONTINUATION,
                        span(seg_end - 2, seg_end),
                        "line ends with `or` but nothing follows",
                    )
                    .with_label("a line ending in `or` continues on the next line"),
                );
            }
            let kept = if backslash { seg_end - 1 } else { seg_end };
            out.segments.push(Segment {
                start: to_u32(seg_start),
                end: to_u32(kept),
            });
            return at;
        }
        let kept = if backslash { seg_end - 1 } else { seg_end };
        let kept = seg_start + slice(text, seg_start, kept).trim_end().len();
        if kept > seg_start {
            out.segments.push(Segment {
                start: to_u32(seg_start),
                end: to_u32(kept),
            });
        }
        let p = physical(text, at);
        at = p.next;
        if p.start == p.end {
            return at;
        }
        seg_start = p.start;
        seg_end = cut_comment(text, &p);
        if seg_end == seg_start {
            return at;
        }
    }
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    /// `trim` gives the range `str::trim` gives.
    fn same_as_str_trim(text: &str) {
        let (start, end) = super::trim(text);
        let start_of = text.len() - text.trim_start().len();
        assert_eq!(
            (start, end),
            (start_of, start_of + text.trim().len()),
            "{text:?}"
        );
    }

    #[test]
    fn trim_matches_str_trim_on_ascii_and_unicode_spaces() {
        for text in [
            "",
            " ",
            "a",
            " a ",
            "\t a b\r",
            "\x0b a \x0b",
            "\u{a0}a",
            "a\u{a0}",
            "\u{2003} a \u{3000}",
            "é ",
            " é",
            "\u{85}",
            "\x1c a \x1f",
            "\x0c\r\n",
        ] {
            same_as_str_trim(text);
        }
    }

    proptest! {
        #[test]
        fn trim_matches_str_trim(text in "[ \t\r\x0b\x0c\u{a0}\u{2003}\u{85}a-cé\x1c]{0,12}") {
            same_as_str_trim(&text);
        }
    }
}
