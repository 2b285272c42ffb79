//! The CSV reader of rule sheets, by hand after RFC 4180: cells separated by `,`, records by
//! `\n` or `\r\n`; a quoted cell may hold commas, newlines and doubled quotes (`""`). Every
//! cell keeps the span of its content. Lines starting with `#` are comments; blank lines are
//! skipped. Unquoted cells are trimmed of spaces and tabs, and a `"` inside one (not at its
//! start) is read as itself, as most CSV readers do, so `$status == "paid"` needs no quoting.
//! A record whose quoted cell is never closed is reported and dropped.

use stalwart_diagnostics::{Diagnostic, FileId, Span};

use super::ast::{Cell, CellMap};
use super::codes;

/// One line of the sheet: a comment, or a record of cells.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Line {
    /// A `#` comment: the text after `#` and its span.
    Comment(String, Span),
    Record(Record),
}

#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Record {
    pub cells: Vec<Cell>,
    /// From the record's first byte to its last (the line break excluded).
    pub span: Span,
}

/// Splits the text into comments and records; reports quoting faults.
pub(crate) fn read_lines(file: FileId, text: &str, diagnostics: &mut Vec<Diagnostic>) -> Vec<Line> {
    let mut reader = Reader {
        file,
        text,
        bytes: text.as_bytes(),
        diagnostics,
    };
    let mut out = Vec::new();
    let mut i = 0;
    while i < reader.bytes.len() {
        let eol = reader.line_end(i);
        let line = text.get(i..eol).unwrap_or("");
        if line.trim().is_empty() {
            i = eol.saturating_add(1);
            continue;
        }
        if line.starts_with('#') {
            let comment = line.get(1..).unwrap_or("").trim_end_matches('\r');
            out.push(Line::Comment(
                comment.to_string(),
                reader.span(i.saturating_add(1), i.saturating_add(1) + comment.len()),
            ));
            i = eol.saturating_add(1);
            continue;
        }
        let before = reader.diagnostics.len();
        let (record, next) = reader.record(i);
        let unclosed = reader
            .diagnostics
            .get(before..)
            .unwrap_or(&[])
            .iter()
            .any(|d| d.code == codes::UNCLOSED_QUOTE);
        if !unclosed {
            out.push(Line::Record(record));
        }
        i = next;
    }
    out
}

struct Reader<'a, 'd> {
    file: FileId,
    text: &'a str,
    bytes: &'a [u8],
    diagnostics: &'d mut Vec<Diagnostic>,
}

enum End {
    Comma,
    Line,
}

impl Reader<'_, '_> {
    fn span(&self, l: usize, r: usize) -> Span {
        let to = |n: usize| u32::try_from(n).unwrap_or(u32::MAX);
        Span::new(self.file, to(l), to(r))
    }

    fn byte(&self, i: usize) -> Option<u8> {
        self.bytes.get(i).copied()
    }

    fn line_end(&self, from: usize) -> usize {
        let mut i = from;
        while let Some(b) = self.byte(i) {
            if b == b'\n' {
                break;
            }
            i += 1;
        }
        i
    }

    /// Reads the record starting at `start`; returns it and where the next line starts.
    fn record(&mut self, start: usize) -> (Record, usize) {
        let mut cells = Vec::new();
        let mut i = start;
        let mut last_end;
        loop {
            let (cell, end, next, how) = self.cell(i);
            cells.push(cell);
            last_end = end;
            i = next;
            if matches!(how, End::Line) {
                break;
            }
        }
        let mut end = last_end;
        while end > start && matches!(self.byte(end.saturating_sub(1)), Some(b'\r')) {
            end -= 1;
        }
        (
            Record {
                cells,
                span: self.span(start, end),
            },
            i,
        )
    }

    /// Reads one cell from `at`: the cell, the end of its written text, where reading goes on,
    /// and what ended it.
    fn cell(&mut self, at: usize) -> (Cell, usize, usize, End) {
        let mut i = at;
        while matches!(self.byte(i), Some(b' ' | b'\t')) {
            i += 1;
        }
        if self.byte(i) == Some(b'"') {
            self.quoted(i)
        } else {
            self.unquoted(i)
        }
    }

    fn unquoted(&mut self, start: usize) -> (Cell, usize, usize, End) {
        let mut i = start;
        while let Some(b) = self.byte(i) {
            if b == b',' || b == b'\n' {
                break;
            }
            i += 1;
        }
        let mut end = i;
        while end > start && matches!(self.byte(end - 1), Some(b' ' | b'\t' | b'\r')) {
            end -= 1;
        }
        let text = self.text.get(start..end).unwrap_or("").to_string();
        let (next, how) = self.after(i);
        (Cell::new(text, self.span(start, end)), end, next, how)
    }

    fn quoted(&mut self, open: usize) -> (Cell, usize, usize, End) {
        let mut text = String::new();
        let mut collapsed = Vec::new();
        let mut i = open + 1;
        let mut piece = i;
        let close = loop {
            match self.byte(i) {
                None => {
                    self.diagnostics.push(
                        Diagnostic::error(
                            codes::UNCLOSED_QUOTE,
                            self.span(open, open + 1),
                            "quoted cell is never closed",
                        )
                        .with_label("this quote opens a cell that runs to the end of the file"),
                    );
                    text.push_str(self.text.get(piece..i).unwrap_or(""));
                    let cell = Cell {
                        text,
                        span: self.span(open + 1, i),
                        map: map_of(collapsed),
                    };
                    return (cell, i, i, End::Line);
                }
                Some(b'"') if self.byte(i + 1) == Some(b'"') => {
                    text.push_str(self.text.get(piece..=i).unwrap_or(""));
                    collapsed.push(u32::try_from(text.len() - 1).unwrap_or(u32::MAX));
                    i += 2;
                    piece = i;
                }
                Some(b'"') => {
                    text.push_str(self.text.get(piece..i).unwrap_or(""));
                    break i;
                }
                Some(_) => i += 1,
            }
        };
        let cell = Cell {
            text,
            span: self.span(open + 1, close),
            map: map_of(collapsed),
        };
        let mut j = close + 1;
        while matches!(self.byte(j), Some(b' ' | b'\t' | b'\r')) {
            j += 1;
        }
        if let Some(b) = self.byte(j)
            && b != b','
            && b != b'\n'
        {
            let mut k = j;
            while !matches!(self.byte(k), None | Some(b',' | b'\n')) {
                k += 1;
            }
            self.diagnostics.push(
                Diagnostic::error(
                    codes::STRAY_QUOTE,
                    self.span(j, k),
                    "text after a quoted cell",
                )
                .with_label("a quoted cell ends at its closing quote")
                .with_secondary(self.span(close, close + 1), "the cell closes here"),
            );
            j = k;
        }
        let (next, how) = self.after(j);
        (cell, close + 1, next, how)
    }

    /// Past the separator at `i` (`,`, `\n` or the end).
    fn after(&self, i: usize) -> (usize, End) {
        match self.byte(i) {
            Some(b',') => (i + 1, End::Comma),
            Some(_) => (i + 1, End::Line),
            None => (i, End::Line),
        }
    }
}

fn map_of(collapsed: Vec<u32>) -> CellMap {
    if collapsed.is_empty() {
        CellMap::Verbatim
    } else {
        CellMap::Collapsed(collapsed)
    }
}
