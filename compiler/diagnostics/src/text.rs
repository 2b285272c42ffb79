//! Terminal rendering through codespan-reporting, rustc-like, ASCII only so snapshots are stable.

use codespan_reporting::diagnostic::{
    Diagnostic as CsDiagnostic, Label as CsLabel, Severity as CsSeverity,
};
use codespan_reporting::files::SimpleFiles;
use codespan_reporting::term::{self, Chars, Config};

use crate::{Diagnostic, FileId, Files, Severity};

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
        let mut labels_of = |fid: FileId| -> usize {
            if let Some((_, i)) = ids.iter().find(|(f, _)| *f == fid) {
                return *i;
            }
            let name = files.name(fid).unwrap_or("<unknown>").to_string();
            let text = files.text(fid).unwrap_or("").to_string();
            let i = simple.add(name, text);
            ids.push((fid, i));
            i
        };
        let primary = labels_of(d.primary.span.file);
        let mut labels = vec![
            CsLabel::primary(primary, clamp(files, d.primary.span))
                .with_message(d.primary.message.clone()),
        ];
        for l in &d.secondary {
            let f = labels_of(l.span.file);
            labels
                .push(CsLabel::secondary(f, clamp(files, l.span)).with_message(l.message.clone()));
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
