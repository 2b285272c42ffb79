//! Snapshot tests of the Colang 2.x front end: every `test_data/v2/err/NAME.co` must yield
//! diagnostics, rendered as the terminal shows them (snapshot `v2_err__NAME`); every
//! `test_data/v2/ok/NAME.co` must yield none, and its facts are snapshot as `v2_ok__NAME`.

#![cfg(test)]

use std::path::{Path, PathBuf};

use stalwart_diagnostics::{FileId, Files, render_text};
use stalwart_syntax::v2::{inspect_v2, parse_v2};

fn fixtures(kind: &str) -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("test_data/v2")
        .join(kind);
    let mut paths: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "co"))
        .collect();
    paths.sort();
    paths
}

fn stem(p: &Path) -> String {
    p.file_stem().unwrap().to_string_lossy().into_owned()
}

#[test]
fn malformed_inputs_are_reported() {
    let paths = fixtures("err");
    assert!(paths.len() >= 20, "only {} err fixtures", paths.len());
    for path in paths {
        let text = std::fs::read_to_string(&path).unwrap();
        let parse = parse_v2(FileId(0), &text);
        assert!(
            parse.diagnostics.iter().any(|d| d.is_error()),
            "{} gave no error",
            path.display()
        );
        let mut files = Files::new();
        files.insert(FileId(0), "rails.co", text.clone());
        let rendered = render_text(&files, &parse.diagnostics);
        insta::assert_snapshot!(format!("v2_err__{}", stem(&path)), rendered);
    }
}

#[test]
fn accepted_quirks_parse_cleanly() {
    let paths = fixtures("ok");
    assert!(!paths.is_empty());
    for path in paths {
        let text = std::fs::read_to_string(&path).unwrap();
        let parse = parse_v2(FileId(0), &text);
        let mut files = Files::new();
        files.insert(FileId(0), "rails.co", text.clone());
        assert!(
            parse.diagnostics.is_empty(),
            "{}:\n{}",
            path.display(),
            render_text(&files, &parse.diagnostics)
        );
        let facts = serde_json::to_string_pretty(&inspect_v2(&parse.value)).unwrap();
        insta::assert_snapshot!(format!("v2_ok__{}", stem(&path)), facts);
    }
}
