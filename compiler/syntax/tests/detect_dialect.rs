//! Dialect detection: the reference package's content heuristic over the whole corpus, and the
//! `colang_version` key of `config.yml`.

#![allow(
    clippy::unwrap_used,
    clippy::panic,
    clippy::indexing_slicing,
    clippy::string_slice
)]

use stalwart_syntax::{Dialect, detect_dialect, dialect_from_config};

#[path = "../src/test_inputs/corpus.rs"]
mod corpus;

#[test]
fn heuristic_cases() {
    assert_eq!(detect_dialect("define flow x\n  bot hi\n"), Dialect::V1);
    assert_eq!(detect_dialect("  \tdefine user x\n"), Dialect::V1);
    assert_eq!(detect_dialect("definetely\n"), Dialect::V1);
    assert_eq!(detect_dialect("flow main\n  bot say hi\n"), Dialect::V2);
    assert_eq!(detect_dialect(""), Dialect::V2);
    assert_eq!(detect_dialect("# define flow x\n"), Dialect::V2);
    assert_eq!(detect_dialect("flow a # define\n"), Dialect::V2);
    assert_eq!(
        detect_dialect("\"\"\"\ndefine flow x\n\"\"\"\nflow main\n"),
        Dialect::V2
    );
    assert_eq!(
        detect_dialect("\"\"\"doc\"\"\"define flow x\n"),
        Dialect::V1
    );
    assert_eq!(
        detect_dialect("\"\"\"\nunclosed\ndefine flow x\n"),
        Dialect::V1
    );
    assert_eq!(detect_dialect("x = 1 define\n"), Dialect::V2);
}

#[test]
fn config_cases() {
    assert_eq!(
        dialect_from_config("models: []\ncolang_version: \"2.x\"\n"),
        Some(Dialect::V2)
    );
    assert_eq!(
        dialect_from_config("colang_version: '1.0'\n"),
        Some(Dialect::V1)
    );
    assert_eq!(
        dialect_from_config("colang_version: 2.x # new\n"),
        Some(Dialect::V2)
    );
    assert_eq!(
        dialect_from_config("colang_version : 1.0\n"),
        Some(Dialect::V1)
    );
    assert_eq!(dialect_from_config("models: []\n"), None);
    assert_eq!(dialect_from_config("rails:\n  colang_version: 2.x\n"), None);
    assert_eq!(dialect_from_config("colang_version: 3\n"), None);
}

#[test]
fn corpus_files_are_classified_like_the_reference() {
    let Some(root) = corpus::corpus_dir("colang") else {
        return;
    };
    let mut compared = 0;
    let mut mismatches = Vec::new();
    for (dir, want) in [("v1", Dialect::V1), ("v2", Dialect::V2)] {
        for entry in std::fs::read_dir(root.join(dir)).unwrap() {
            let path = entry.unwrap().path();
            if path.extension().is_none_or(|e| e != "co") {
                continue;
            }
            let text = std::fs::read_to_string(&path).unwrap();
            let expected: serde_json::Value = serde_json::from_str(
                &std::fs::read_to_string(format!("{}.expected.json", path.display())).unwrap(),
            )
            .unwrap();
            let got = detect_dialect(&text);
            let heuristic = expected.get("is_v2_heuristic").and_then(|v| v.as_bool());
            if got != want || heuristic.is_some_and(|h| h != (got == Dialect::V2)) {
                mismatches.push(format!(
                    "{}: got {got:?}, folder {want:?}, heuristic {heuristic:?}",
                    path.display()
                ));
            }
            compared += 1;
        }
    }
    println!("classified {compared} corpus files");
    assert!(compared >= 68, "only {compared} files");
    assert!(mismatches.is_empty(), "{}", mismatches.join("\n"));
}
