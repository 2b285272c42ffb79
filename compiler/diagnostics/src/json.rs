//! JSON rendering: one object per diagnostic, with file, 1-based line and column, and the code.

use serde_json::{Value, json};

use crate::{Diagnostic, Files, Span};

/// One JSON object for a diagnostic.
pub fn to_json(files: &Files, d: &Diagnostic) -> Value {
    json!({
        "code": d.code.id,
        "slug": d.code.slug,
        "severity": d.severity.as_str(),
        "message": d.message,
        "file": files.name(d.primary.span.file).unwrap_or("<unknown>"),
        "start": position(files, d.primary.span, false),
        "end": position(files, d.primary.span, true),
        "label": d.primary.message,
        "secondary": d.secondary.iter().map(|l| json!({
            "file": files.name(l.span.file).unwrap_or("<unknown>"),
            "start": position(files, l.span, false),
            "end": position(files, l.span, true),
            "message": l.message,
        })).collect::<Vec<_>>(),
        "notes": d.notes,
        "help": d.help,
        "fix": d.fix.as_ref().map(|f| json!({
            "message": f.message,
            "replacement": f.replacement,
            "start": position(files, f.span, false),
            "end": position(files, f.span, true),
        })),
    })
}

fn position(files: &Files, span: Span, end: bool) -> Value {
    let offset = if end { span.end } else { span.start };
    let (line, column) = files.line_col(span.file, offset);
    json!({"line": line, "column": column, "offset": offset})
}

/// Renders diagnostics as JSON lines (one object per line).
pub fn render_json(files: &Files, diagnostics: &[Diagnostic]) -> String {
    let mut out = String::new();
    for d in diagnostics {
        out.push_str(&to_json(files, d).to_string());
        out.push('\n');
    }
    out
}
