//! Checks the Colang 2.x front end against the reference parser's facts for every 2.x file of
//! the shared corpus: flows (name, parameters, return members, decorators, line), imports and
//! version must be equal; a file the reference rejects must get an error on the line it names.

#![cfg(test)]

use std::path::PathBuf;

use serde_json::Value;
use stalwart_diagnostics::{FileId, Files};
use stalwart_syntax::v2::{inspect_v2, parse_v2};

#[path = "../src/test_inputs/corpus.rs"]
mod corpus;

/// The line the reference names in an `"error"` entry, if it names one.
fn error_line(expected: &Value) -> Option<u64> {
    let e = expected.get("error")?;
    e.get("line")
        .and_then(Value::as_u64)
        .or_else(|| expected.get("error_line").and_then(Value::as_u64))
        .or_else(|| expected.get("line").and_then(Value::as_u64))
}

fn check_file(path: &PathBuf, expected: &Value) -> Vec<String> {
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let text = std::fs::read_to_string(path).unwrap();
    let parse = parse_v2(FileId(0), &text);
    let errors: Vec<_> = parse.diagnostics.iter().filter(|d| d.is_error()).collect();
    let mut files = Files::new();
    files.insert(FileId(0), name.clone(), text.clone());
    let mut problems = Vec::new();
    if expected.get("error").is_some() {
        if errors.is_empty() {
            problems.push(format!(
                "{name}: the reference rejects this file but we accept it"
            ));
        } else if let Some(line) = error_line(expected) {
            let lines: Vec<u64> = errors
                .iter()
                .map(|d| u64::from(files.line_col(FileId(0), d.primary.span.start).0))
                .collect();
            if !lines.contains(&line) {
                problems.push(format!(
                    "{name}: expected an error on line {line}, got errors on lines {lines:?}"
                ));
            }
        }
        return problems;
    }
    if !errors.is_empty() {
        let rendered = stalwart_diagnostics::render_text(&files, &parse.diagnostics);
        problems.push(format!("{name}: rejected:\n{rendered}"));
        return problems;
    }
    let got = inspect_v2(&parse.value);
    for key in ["version", "imports"] {
        if got.get(key) != expected.get(key) {
            problems.push(format!(
                "{name}: `{key}` differs: got {:?}, expected {:?}",
                got.get(key),
                expected.get(key)
            ));
        }
    }
    let got_flows = got
        .get("flows")
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default();
    let exp_flows = expected
        .get("flows")
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default();
    if got_flows.len() != exp_flows.len() {
        problems.push(format!(
            "{name}: {} flows, expected {}",
            got_flows.len(),
            exp_flows.len()
        ));
    }
    for (g, e) in got_flows.iter().zip(&exp_flows) {
        for key in ["name", "parameters", "return_members", "decorators", "line"] {
            if g.get(key) != e.get(key) {
                problems.push(format!(
                    "{name}: flow {}: `{key}` differs: got {}, expected {}",
                    e.get("name").unwrap_or(&Value::Null),
                    g.get(key).unwrap_or(&Value::Null),
                    e.get(key).unwrap_or(&Value::Null)
                ));
            }
        }
    }
    problems
}

#[test]
fn every_v2_corpus_file_matches_the_reference_facts() {
    let Some(dir) = corpus::corpus_dir("colang/v2") else {
        return;
    };
    let mut paths: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "co"))
        .collect();
    paths.sort();
    let mut problems = Vec::new();
    let mut compared = 0;
    for path in &paths {
        let mut expected_path = path.clone().into_os_string();
        expected_path.push(".expected.json");
        let expected: Value =
            serde_json::from_str(&std::fs::read_to_string(&expected_path).unwrap()).unwrap();
        problems.extend(check_file(path, &expected));
        compared += 1;
    }
    println!("compared {compared} Colang 2.x files with the reference facts");
    assert_eq!(compared, paths.len());
    assert!(compared > 0, "the corpus folder holds no .co files");
    assert!(
        problems.is_empty(),
        "{} mismatches:\n{}",
        problems.len(),
        problems.join("\n")
    );
}
