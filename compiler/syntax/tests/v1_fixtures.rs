//! Colang 1.0 fixtures: each `test_data/v1/err/*.co` gives errors, rendered and snapshotted;
//! each `test_data/v1/ok/*.co` and the shop's `policy.co` give none.

#![allow(
    clippy::unwrap_used,
    clippy::panic,
    clippy::indexing_slicing,
    clippy::string_slice
)]

use std::path::{Path, PathBuf};

use stalwart_diagnostics::{FileId, Files, render_text};
use stalwart_syntax::parse_v1;

fn fixtures(kind: &str) -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("test_data/v1")
        .join(kind);
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "co"))
        .collect();
    files.sort();
    files
}

fn render(text: &str) -> String {
    let parsed = parse_v1(FileId(0), text);
    let mut files = Files::new();
    files.insert(FileId(0), "rails.co", text);
    render_text(&files, &parsed.diagnostics)
}

#[test]
fn err_fixtures_report_errors() {
    let files = fixtures("err");
    assert!(files.len() >= 20, "only {} error fixtures", files.len());
    for path in files {
        let name = path.file_stem().unwrap().to_string_lossy().to_string();
        let text = std::fs::read_to_string(&path).unwrap();
        let parsed = parse_v1(FileId(0), &text);
        assert!(
            parsed.diagnostics.iter().any(|d| d.is_error()),
            "{name}: no error reported"
        );
        insta::assert_snapshot!(format!("v1_err_{name}"), render(&text));
    }
}

#[test]
fn ok_fixtures_have_no_diagnostics() {
    let files = fixtures("ok");
    assert!(!files.is_empty());
    for path in files {
        let text = std::fs::read_to_string(&path).unwrap();
        let rendered = render(&text);
        assert_eq!(rendered, "", "{}", path.display());
    }
}

#[test]
fn every_statement_fixture_tree() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("test_data/v1/ok/every_statement.co");
    let text = std::fs::read_to_string(path).unwrap();
    let parsed = parse_v1(FileId(0), &text);
    insta::assert_debug_snapshot!("v1_ok_every_statement_tree", parsed.value);
}
