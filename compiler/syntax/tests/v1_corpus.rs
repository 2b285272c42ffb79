//! Every Colang 1.0 file of the corpus parses without diagnostics and gives the facts the
//! reference parser recorded in its `*.co.expected.json`.

#![allow(
    clippy::unwrap_used,
    clippy::panic,
    clippy::indexing_slicing,
    clippy::string_slice
)]

use std::path::PathBuf;

use serde_json::Value;
use stalwart_diagnostics::FileId;
use stalwart_syntax::{inspect_v1, parse_v1};

#[path = "../src/test_inputs/corpus.rs"]
mod corpus;

/// The corpus's Colang 1.0 files; `None` when it is skipped (see `corpus::corpus_dir`).
fn v1_files() -> Option<Vec<PathBuf>> {
    let dir = corpus::corpus_dir("colang/v1")?;
    let entries = std::fs::read_dir(&dir).unwrap();
    let mut files: Vec<PathBuf> = entries
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|e| e == "co"))
        .collect();
    files.sort();
    Some(files)
}

#[test]
fn corpus_v1_facts_match_the_reference() {
    let Some(files) = v1_files() else {
        return;
    };
    assert_eq!(files.len(), 68, "the corpus holds 68 Colang 1.0 files");
    let mut mismatches = Vec::new();
    for path in &files {
        let name = path.file_name().unwrap().to_string_lossy().to_string();
        let text = std::fs::read_to_string(path).unwrap();
        let expected_path = PathBuf::from(format!("{}.expected.json", path.display()));
        let expected: Value =
            serde_json::from_str(&std::fs::read_to_string(&expected_path).unwrap()).unwrap();
        let parsed = parse_v1(FileId(0), &text);
        if let Some(error) = expected.get("error") {
            if !parsed.diagnostics.iter().any(|d| d.is_error()) {
                mismatches.push(format!(
                    "{name}: the reference rejects it ({error}) but we accept it"
                ));
            }
            continue;
        }
        if !parsed.diagnostics.is_empty() {
            let messages: Vec<String> = parsed
                .diagnostics
                .iter()
                .map(|d| format!("{}@{}: {}", d.code.id, d.primary.span.start, d.message))
                .collect();
            mismatches.push(format!("{name}: diagnostics {messages:?}"));
        }
        let got = inspect_v1(&parsed.value);
        for key in ["version", "user_messages", "bot_messages"] {
            if got.get(key) != expected.get(key) {
                mismatches.push(format!(
                    "{name}: `{key}` differs:\n  got      {:?}\n  expected {:?}",
                    got.get(key),
                    expected.get(key)
                ));
            }
        }
        let flows = |v: &Value| -> Vec<(String, bool)> {
            v.get("flows")
                .and_then(Value::as_array)
                .map(|fs| {
                    fs.iter()
                        .map(|f| {
                            (
                                f.get("id")
                                    .and_then(Value::as_str)
                                    .unwrap_or("?")
                                    .to_string(),
                                f.get("subflow").and_then(Value::as_bool).unwrap_or(false),
                            )
                        })
                        .collect()
                })
                .unwrap_or_default()
        };
        if flows(&got) != flows(&expected) {
            mismatches.push(format!(
                "{name}: flows differ:\n  got      {:?}\n  expected {:?}",
                flows(&got),
                flows(&expected)
            ));
        }
    }
    println!("compared {} Colang 1.0 corpus files", files.len());
    assert!(
        mismatches.is_empty(),
        "{} mismatches:\n{}",
        mismatches.len(),
        mismatches.join("\n")
    );
}
