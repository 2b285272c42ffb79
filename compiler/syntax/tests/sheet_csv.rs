//! CSV rule sheets: each `test_data/sheet/err/*.csv` reports diagnostics (rendered and snapshotted),
//! each `test_data/sheet/ok/*.csv` reports none; cells keep exact spans through quotes, doubled
//! quotes, CRLF and embedded newlines; `$args` names are checked against a catalogue.

#![allow(
    clippy::unwrap_used,
    clippy::panic,
    clippy::indexing_slicing,
    clippy::string_slice
)]

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use stalwart_diagnostics::{FileId, Files, render_text};
use stalwart_syntax::sheet::ast::{Sheet, SheetDefault, Then};
use stalwart_syntax::sheet::{check_sheet_arguments, parse_sheet_csv};

fn fixtures(kind: &str) -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("test_data/sheet")
        .join(kind);
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "csv"))
        .collect();
    files.sort();
    files
}

fn render(name: &str, text: &str, diagnostics: &[stalwart_diagnostics::Diagnostic]) -> String {
    let mut files = Files::new();
    files.insert(FileId(0), name, text);
    render_text(&files, diagnostics)
}

fn parse(text: &str) -> Sheet {
    let parsed = parse_sheet_csv(FileId(0), text);
    assert_eq!(parsed.diagnostics, vec![], "unexpected diagnostics");
    parsed.value
}

/// The source text under a span.
fn at(text: &str, span: stalwart_diagnostics::Span) -> &str {
    &text[span.range()]
}

#[test]
fn err_fixtures_report_diagnostics() {
    let files = fixtures("err");
    assert_eq!(files.len(), 13);
    for path in files {
        let name = path.file_name().unwrap().to_string_lossy().to_string();
        let text = std::fs::read_to_string(&path).unwrap();
        let parsed = parse_sheet_csv(FileId(0), &text);
        assert!(!parsed.diagnostics.is_empty(), "{name}: nothing reported");
        let stem = path.file_stem().unwrap().to_string_lossy().to_string();
        insta::assert_snapshot!(
            format!("sheet_err_{stem}"),
            render(&name, &text, &parsed.diagnostics)
        );
    }
}

#[test]
fn ok_fixtures_report_nothing() {
    let files = fixtures("ok");
    assert_eq!(files.len(), 3);
    for path in files {
        let text = std::fs::read_to_string(&path).unwrap();
        let parsed = parse_sheet_csv(FileId(0), &text);
        assert_eq!(
            render("ok.csv", &text, &parsed.diagnostics),
            "",
            "{}",
            path.display()
        );
    }
}

#[test]
fn design_example_reads_three_rows() {
    let text = "rule,tool,when,then,say\n\
                refunds,refund_card,$order_paid,allow,\n\
                refunds,refund_card,not $order_paid,refuse,refuse\n\
                large,refund_card,$args.amount > 500,ask,Is a refund over 500 meant?\n";
    let sheet = parse(text);
    assert_eq!(sheet.default, None);
    assert_eq!(sheet.default_decision(), SheetDefault::Refuse);
    let rows: Vec<(&str, &str, String, Option<Then>, &str)> = sheet
        .rows
        .iter()
        .map(|r| {
            (
                r.rule.text.as_str(),
                r.tool.text.as_str(),
                r.when.as_ref().map(|e| e.to_sexp()).unwrap_or_default(),
                r.then,
                r.say.text.as_str(),
            )
        })
        .collect();
    assert_eq!(
        rows,
        vec![
            (
                "refunds",
                "refund_card",
                "$order_paid".into(),
                Some(Then::Allow),
                ""
            ),
            (
                "refunds",
                "refund_card",
                "(not $order_paid)".into(),
                Some(Then::Refuse),
                "refuse"
            ),
            (
                "large",
                "refund_card",
                "($args.amount > 500)".into(),
                Some(Then::Ask),
                "Is a refund over 500 meant?"
            ),
        ]
    );
    let large = &sheet.rows[2];
    assert_eq!(
        at(text, large.span),
        "large,refund_card,$args.amount > 500,ask,Is a refund over 500 meant?"
    );
    assert_eq!(
        at(text, large.when.as_ref().unwrap().span),
        "$args.amount > 500"
    );
    assert_eq!(at(text, large.say.span), "Is a refund over 500 meant?");
    // The empty `say` of the first row sits between its comma and the line break.
    let first = &sheet.rows[0];
    assert_eq!(first.say.span.start, first.say.span.end);
    assert_eq!(
        first.say.span.start as usize,
        text.find(",allow,\n").unwrap() + 7
    );
}

#[test]
fn quoted_cells_keep_commas_newlines_doubled_quotes_and_spans() {
    let text = "# default: allow\r\n\
                rule,tool,when,then,say\r\n\
                \"status, paid\",get_order,\"$status == \"\"paid\"\"\",allow,\"fine, \"\"really\"\"\"\r\n\
                notes,send_receipt,,ask,\"Send it?\r\nTo whom?\"\r\n";
    let sheet = parse(text);
    let (default, span) = sheet.default.unwrap();
    assert_eq!(default, SheetDefault::Allow);
    assert_eq!(at(text, span), "allow");
    let row = &sheet.rows[0];
    assert_eq!(row.rule.text, "status, paid");
    assert_eq!(at(text, row.rule.span), "status, paid");
    assert_eq!(row.when_cell.text, "$status == \"paid\"");
    let when = row.when.as_ref().unwrap();
    assert_eq!(when.to_sexp(), "($status == \"paid\")");
    // Spans inside the condition map through the doubled quotes.
    assert_eq!(at(text, when.span), "$status == \"\"paid\"\"");
    let stalwart_syntax::expr::ExprKind::Compare { rhs, .. } = &when.kind else {
        panic!("not a comparison: {when:?}")
    };
    assert_eq!(at(text, rhs.span), "\"\"paid\"\"");
    assert_eq!(row.say.text, "fine, \"really\"");
    assert!(!at(text, row.span).ends_with('\r'));
    let notes = &sheet.rows[1];
    assert!(notes.is_unconditional());
    assert_eq!(notes.when, None);
    assert_eq!(notes.say.text, "Send it?\r\nTo whom?");
    assert_eq!(sheet.rows.len(), 2);
}

#[test]
fn a_default_row_sets_the_default_and_columns_may_come_in_any_order() {
    let text = "then,tool,rule\nallow,get_order,reads\n\nallow,,default\n";
    let sheet = parse(text);
    assert_eq!(sheet.rows.len(), 1);
    assert_eq!(sheet.rows[0].rule.text, "reads");
    assert_eq!(sheet.rows[0].then, Some(Then::Allow));
    let (default, span) = sheet.default.unwrap();
    assert_eq!(default, SheetDefault::Allow);
    assert_eq!(at(text, span), "allow");
    assert_eq!(span.start as usize, text.find("allow,,").unwrap());
}

#[test]
fn arguments_are_checked_against_the_catalogue() {
    let text = "rule,tool,when,then,say\n\
                large,refund_card,$args.amout > 500 or $args.order_id == 1,ask,Sure?\n\
                reads,get_order,$args.anything,allow,\n\
                none,send_receipt,\"$args.to == \"\"x\"\"\",allow,\n";
    let sheet = parse(text);
    let tools: BTreeMap<String, BTreeSet<String>> = [
        ("refund_card", vec!["amount", "order_id"]),
        ("send_receipt", vec![]),
    ]
    .into_iter()
    .map(|(t, a)| (t.to_string(), a.into_iter().map(String::from).collect()))
    .collect();
    let diagnostics = check_sheet_arguments(&sheet, &tools);
    insta::assert_snapshot!("sheet_arguments", render("rules.csv", text, &diagnostics));
}
