//! Terminal rendering through codespan-reporting, rustc-like, ASCII only so snapshots are stable.
//!
//! A source line longer than [`LONG_LINE`] bytes (minified JSON, a one-line catalogue) is not
//! printed whole: the snippet shows the part around the labels on it, [`CONTEXT`] bytes either
//! side, with `...` where it was cut. The `-->` line still gives the real line and column.

use codespan_reporting::diagnostic::{
    Diagnostic as CsDiagnostic, Label as CsLabel, Severity as CsSeverity,
};
use codespan_reporting::files::SimpleFiles;
use codespan_reporting::term::{self, Chars, Config};

use crate::{Diagnostic, FileId, Files, Severity, Span};

/// Lines longer than this (in bytes) are cut around their labels.
pub const LONG_LINE: usize = 200;
/// Bytes kept on either side of the labels of a cut line.
pub const CONTEXT: usize = 60;

/// Renders diagnostics as a terminal would show them (no colour), one after another.
pub fn render_text(files: &Files, diagnostics: &[Diagnostic]) -> String {
    let mut simple = SimpleFiles::new();
    let mut ids: Vec<(FileId, usize)> = Vec::new();
    let mut out = String::new();
    let config = Config {
        chars: Chars::ascii(),
        ..Config::default()
    };
    for d in diagnostics {
        let spans: Vec<Span> = std::iter::once(d.primary.span)
            .chain(d.secondary.iter().map(|l| l.span))
            .collect();
        let cuts: Vec<(FileId, Cut)> = spans
            .iter()
            .map(|s| s.file)
            .fold(Vec::new(), |mut fs: Vec<FileId>, f| {
                if !fs.contains(&f) {
                    fs.push(f);
                }
                fs
            })
            .into_iter()
            .filter_map(|f| Some((f, cut(files.text(f)?, &spans, f)?)))
            .collect();
        let mut labels_of = |fid: FileId| -> usize {
            if let Some((_, cut)) = cuts.iter().find(|(f, _)| *f == fid) {
                let name = files.name(fid).unwrap_or("<unknown>").to_string();
                return simple.add(name, cut.text.clone());
            }
            if let Some((_, i)) = ids.iter().find(|(f, _)| *f == fid) {
                return *i;
            }
            let name = files.name(fid).unwrap_or("<unknown>").to_string();
            let text = files.text(fid).unwrap_or("").to_string();
            let i = simple.add(name, text);
            ids.push((fid, i));
            i
        };
        let range = |span: Span| match cuts.iter().find(|(f, _)| *f == span.file) {
            Some((_, cut)) => cut.map(clamp(files, span)),
            None => clamp(files, span),
        };
        let primary = labels_of(d.primary.span.file);
        let mut labels = vec![
            CsLabel::primary(primary, range(d.primary.span))
                .with_message(d.primary.message.clone()),
        ];
        for l in &d.secondary {
            let f = labels_of(l.span.file);
            labels.push(CsLabel::secondary(f, range(l.span)).with_message(l.message.clone()));
        }
        let mut notes = d.notes.clone();
        if let Some(help) = &d.help {
            notes.push(format!("help: {help}"));
        }
        if let Some(fix) = &d.fix {
            notes.push(format!("fix: {}: `{}`", fix.message, fix.replacement));
        }
        let cs = CsDiagnostic::new(severity(d.severity))
            .with_code(format!("{}[{}]", d.code.id, d.code.slug))
            .with_message(d.message.clone())
            .with_labels(labels)
            .with_notes(notes);
        let mut buf = String::new();
        if term::emit_to_string(&mut buf, &config, &simple, &cs).is_ok() {
            if cuts.iter().any(|(f, _)| *f == d.primary.span.file) {
                buf = real_location(&buf, files, d.primary.span);
            }
            out.push_str(&buf);
        } else {
            let (line, col) = files.line_col(d.primary.span.file, d.primary.span.start);
            let name = files.name(d.primary.span.file).unwrap_or("<unknown>");
            out.push_str(&format!(
                "{}[{}]: {}\n  --> {name}:{line}:{col}\n\n",
                d.severity.as_str(),
                d.code.id,
                d.message
            ));
        }
    }
    out
}

/// A file's text with its long labelled lines cut, and how offsets move.
struct Cut {
    text: String,
    /// `(start, end, new_start)`: bytes `start..end` of the original text (a kept window) begin at
    /// `new_start` in `text`; offsets after `end` on other lines move by the windows' change.
    windows: Vec<(usize, usize, usize)>,
}

impl Cut {
    fn map(&self, range: std::ops::Range<usize>) -> std::ops::Range<usize> {
        let one = |offset: usize| -> usize {
            let mut shift: isize = 0;
            for &(start, end, new_start) in &self.windows {
                if offset < start {
                    break;
                }
                if offset <= end {
                    return new_start + (offset - start);
                }
                shift = (new_start + (end - start)) as isize - end as isize;
            }
            (offset as isize + shift).max(0) as usize
        };
        let start = one(range.start);
        start..one(range.end).max(start)
    }
}

/// Cuts the long lines of `text` that labels of file `file` stand on; `None` when none is long.
fn cut(text: &str, spans: &[Span], file: FileId) -> Option<Cut> {
    let mut lines: Vec<(usize, usize, usize, usize)> = Vec::new(); // line start, end, lo, hi
    for span in spans.iter().filter(|s| s.file == file) {
        let start = (span.start as usize).min(text.len());
        let end = (span.end as usize).clamp(start, text.len());
        let line_start = text.get(..start)?.rfind('\n').map_or(0, |i| i + 1);
        let line_end = text
            .get(start..)?
            .find('\n')
            .map_or(text.len(), |i| start + i);
        if line_end - line_start <= LONG_LINE || end > line_end {
            continue;
        }
        match lines.iter_mut().find(|l| l.0 == line_start) {
            Some(l) => {
                l.2 = l.2.min(start);
                l.3 = l.3.max(end);
            }
            None => lines.push((line_start, line_end, start, end)),
        }
    }
    if lines.is_empty() {
        return None;
    }
    lines.sort_unstable();
    let mut out = String::with_capacity(text.len());
    let mut windows = Vec::new();
    let mut at = 0;
    for (line_start, line_end, lo, hi) in lines {
        let mut from = lo.saturating_sub(CONTEXT).max(line_start);
        let mut to = (hi + CONTEXT).min(line_end);
        while !text.is_char_boundary(from) {
            from -= 1;
        }
        while !text.is_char_boundary(to) {
            to += 1;
        }
        out.push_str(text.get(at..line_start)?);
        if from > line_start {
            out.push_str("...");
        }
        windows.push((from, to, out.len()));
        out.push_str(text.get(from..to)?);
        if to < line_end {
            out.push_str("...");
        }
        at = line_end;
    }
    out.push_str(text.get(at..)?);
    Some(Cut { text: out, windows })
}

/// Puts the real line and column of `span` on the `-->` line codespan printed for the cut text.
fn real_location(rendered: &str, files: &Files, span: Span) -> String {
    let (line, column) = files.line_col(span.file, span.start);
    let name = files.name(span.file).unwrap_or("<unknown>");
    let mut done = false;
    rendered
        .split_inclusive('\n')
        .map(|l| {
            if !done && l.trim_start().starts_with("--> ") {
                done = true;
                let indent = l.get(..l.len() - l.trim_start().len()).unwrap_or("");
                format!("{indent}--> {name}:{line}:{column}\n")
            } else {
                l.to_string()
            }
        })
        .collect()
}

fn clamp(files: &Files, span: crate::Span) -> std::ops::Range<usize> {
    let len = files.text(span.file).map(str::len).unwrap_or(0);
    let start = (span.start as usize).min(len);
    let end = (span.end as usize).clamp(start, len);
    start..end
}

fn severity(s: Severity) -> CsSeverity {
    match s {
        Severity::Error => CsSeverity::Error,
        Severity::Warning => CsSeverity::Warning,
        Severity::Note => CsSeverity::Note,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Code;

    const CODE: Code = Code {
        id: "E0000",
        slug: "test",
    };

    #[test]
    fn a_long_line_is_cut_around_its_label_and_keeps_its_real_column() {
        let mut text = String::from("{\"a\": [");
        text.push_str(&"1, ".repeat(150));
        let at = text.len();
        text.push_str("\"bad\"");
        text.push_str(&", 2".repeat(100));
        text.push_str("]}\n");
        let mut files = Files::new();
        files.insert(FileId(0), "min.json", text.clone());
        let span = Span::new(FileId(0), at as u32, at as u32 + 5);
        let d = Diagnostic::error(CODE, span, "a bad value").with_label("here");
        let out = render_text(&files, &[d]);
        let expected_column = at + 1;
        assert!(
            out.contains(&format!("--> min.json:1:{expected_column}")),
            "{out}"
        );
        let snippet = out.lines().find(|l| l.contains("\"bad\"")).unwrap_or("");
        assert!(snippet.contains("...1, 1, "), "{out}");
        assert!(snippet.ends_with(", 2..."), "{out}");
        assert!(snippet.len() < 2 * CONTEXT + 40, "{out}");
        let marks = out.lines().find(|l| l.contains("^^^^^")).unwrap_or("");
        let column = |l: &str, pat: &str| l.find(pat).unwrap_or(0);
        assert_eq!(column(marks, "^"), column(snippet, "\"bad\""), "{out}");
    }

    #[test]
    fn short_lines_are_printed_whole() {
        let mut files = Files::new();
        files.insert(FileId(0), "a.yaml", "key: value\n");
        let d = Diagnostic::error(CODE, Span::new(FileId(0), 5, 10), "bad").with_label("here");
        let out = render_text(&files, &[d]);
        assert!(out.contains("1 | key: value"), "{out}");
        assert!(!out.contains("..."), "{out}");
    }
}
