//! `.rules.yaml` sheets: each `sheet_yaml/err/*.rules.yaml` reports diagnostics (rendered and
//! snapshotted), the DESIGN example reads into the same rows as its CSV form.

#![allow(
    clippy::unwrap_used,
    clippy::panic,
    clippy::indexing_slicing,
    clippy::string_slice
)]

use std::path::{Path, PathBuf};

use stalwart_diagnostics::{FileId, Files, render_text};
use stalwart_sema::sheet::{is_sheet_path, parse_sheet, parse_sheet_yaml};
use stalwart_syntax::sheet::ast::{SheetDefault, Then};

fn fixtures(kind: &str) -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/sheet_yaml")
        .join(kind);
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    files.sort();
    files
}

#[test]
fn err_fixtures_report_errors() {
    let files = fixtures("err");
    assert_eq!(files.len(), 6);
    for path in files {
        let name = path.file_name().unwrap().to_string_lossy().to_string();
        let text = std::fs::read_to_string(&path).unwrap();
        let parsed = parse_sheet_yaml(FileId(0), &text);
        assert!(
            parsed.diagnostics.iter().any(|d| d.is_error()),
            "{name}: no error reported"
        );
        let mut files = Files::new();
        files.insert(FileId(0), name.as_str(), text.as_str());
        let stem = name.trim_end_matches(".rules.yaml");
        insta::assert_snapshot!(
            format!("yaml_err_{stem}"),
            render_text(&files, &parsed.diagnostics)
        );
    }
}

#[test]
fn design_example_reads_like_its_csv_form() {
    let path =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/sheet_yaml/ok/design_example.rules.yaml");
    let text = std::fs::read_to_string(path).unwrap();
    let parsed = parse_sheet(FileId(0), "design_example.rules.yaml", &text);
    assert_eq!(parsed.diagnostics, vec![]);
    let sheet = parsed.value;
    let (default, span) = sheet.default.unwrap();
    assert_eq!(default, SheetDefault::Refuse);
    assert_eq!(&text[span.range()], "refuse");
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
    // Spans of a quoted scalar's condition point inside the quotes.
    let large = sheet.rows[2].when.as_ref().unwrap();
    assert_eq!(&text[large.span.range()], "$args.amount > 500");
    let plain = sheet.rows[1].when.as_ref().unwrap();
    assert_eq!(&text[plain.span.range()], "not $order_paid");
    // The CSV form reads into the same rows.
    let csv = "rule,tool,when,then,say\n\
               refunds,refund_card,$order_paid,allow,\n\
               refunds,refund_card,not $order_paid,refuse,refuse\n\
               large,refund_card,$args.amount > 500,ask,Is a refund over 500 meant?\n";
    let from_csv = parse_sheet(FileId(1), "rules.csv", csv).value;
    let csv_rows: Vec<String> = from_csv
        .rows
        .iter()
        .map(|r| r.when.as_ref().map(|e| e.to_sexp()).unwrap_or_default())
        .collect();
    let yaml_rows: Vec<String> = rows.iter().map(|r| r.2.clone()).collect();
    assert_eq!(csv_rows, yaml_rows);
}

#[test]
fn sheet_paths_are_told_by_their_names() {
    assert!(is_sheet_path("rules.csv"));
    assert!(is_sheet_path("shop.rules.yaml"));
    assert!(is_sheet_path("shop.rules.yml"));
    assert!(!is_sheet_path("agent.yaml"));
    assert!(!is_sheet_path("policy.co"));
}
