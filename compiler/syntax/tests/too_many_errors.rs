//! A file with more errors than a file reports (`MAX_ERRORS`) gives that many, then one
//! diagnostic that says how many more there were: a file of garbage does not bury the output.
#![allow(clippy::unwrap_used, clippy::indexing_slicing)]

use stalwart_diagnostics::{Diagnostic, FileId, Files, render_text};
use stalwart_syntax::MAX_ERRORS;

/// The diagnostics of a parse, checked for the cap, and the last two rendered.
fn check(text: &str, diagnostics: &[Diagnostic]) -> String {
    assert_eq!(diagnostics.len(), MAX_ERRORS + 1);
    assert!(diagnostics.iter().all(Diagnostic::is_error));
    let mut files = Files::new();
    files.insert(FileId(0), "rails.co", text);
    render_text(&files, &diagnostics[MAX_ERRORS - 1..])
}

#[test]
fn v1_file_with_150_errors_reports_100_and_the_rest_as_one() {
    let text = "flow main\n".repeat(150);
    let parse = stalwart_syntax::parse_v1(FileId(0), &text);
    insta::assert_snapshot!(check(&text, &parse.diagnostics));
}

#[test]
fn v2_file_with_150_errors_reports_100_and_the_rest_as_one() {
    let text = format!("flow main\n{}", "  $x = 01\n".repeat(150));
    let parse = stalwart_syntax::v2::parse_v2(FileId(0), &text);
    insta::assert_snapshot!(check(&text, &parse.diagnostics));
}

#[test]
fn exactly_100_errors_are_all_reported() {
    let text = "flow main\n".repeat(MAX_ERRORS);
    let parse = stalwart_syntax::parse_v1(FileId(0), &text);
    assert_eq!(parse.diagnostics.len(), MAX_ERRORS);
    assert!(
        parse
            .diagnostics
            .iter()
            .all(|d| d.code.slug != "too-many-errors")
    );
}
