//! A message line that starts with `"` and does not end with `"` opens a string that runs on to
//! the next line ending with `"`, as the reference parser reads it, even when the line only ends
//! in a comment after its closing quote. The facts are the reference's (NeMo Guardrails 0.24.1)
//! for the same texts; the warning and the error say what happened.

#![allow(clippy::unwrap_used, clippy::indexing_slicing)]

use serde_json::json;
use stalwart_diagnostics::{FileId, Severity};
use stalwart_syntax::{inspect_v1, parse_v1};

#[test]
fn a_comment_after_the_closing_quote_runs_the_string_on() {
    let text = "define bot x\n  \"a\" # c\n  \"b\"\n";
    let parsed = parse_v1(FileId(0), text);
    assert_eq!(
        inspect_v1(&parsed.value)["bot_messages"],
        json!({"x": ["a\" # c"]})
    );
    let [d] = parsed.diagnostics.as_slice() else {
        panic!("{:?}", parsed.diagnostics)
    };
    assert_eq!(d.code.id, "E1025");
    assert_eq!(d.severity, Severity::Warning);
    assert_eq!(d.message, "this comment makes the string run on to line 3");
    assert_eq!((d.primary.span.start, d.primary.span.end), (19, 22));
}

#[test]
fn a_run_on_string_that_never_ends_is_an_error_with_a_hint() {
    let parsed = parse_v1(FileId(0), "define bot x\n  \"a\" # c\n");
    let [d] = parsed.diagnostics.as_slice() else {
        panic!("{:?}", parsed.diagnostics)
    };
    assert_eq!(d.code.id, "E1002");
    assert!(
        d.help
            .as_deref()
            .is_some_and(|h| h.ends_with("move the comment onto a line of its own")),
        "{d:?}"
    );
}

#[test]
fn a_comment_on_a_line_that_ends_with_a_quote_is_cut() {
    let text = "define bot x\n  \"a\" # c \"d\"\n  \"b\"\n";
    let parsed = parse_v1(FileId(0), text);
    assert_eq!(parsed.diagnostics, vec![]);
    assert_eq!(
        inspect_v1(&parsed.value)["bot_messages"],
        json!({"x": ["a", "b"]})
    );
}
