//! NeMo Guardrails config folders as users bring them (`tests/corpus/nemo/`, sources and licences
//! in its README): each is a rulebook `stalwart rules compile` takes as it is, `stalwart rules
//! inspect` reports what the reference's own loader reports for it (`<folder>.expected.json`,
//! written by `reference_facts.py` with nemoguardrails 0.24.1), and a table states what each
//! governs.

use std::collections::BTreeSet;
use std::path::PathBuf;

use serde_json::Value;
use stalwart_tests::{run, stderr, stdout, workspace};

fn corpus() -> PathBuf {
    workspace().join("tests/corpus/nemo")
}

fn folders() -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(corpus())
        .unwrap()
        .filter_map(|e| {
            let e = e.unwrap();
            e.file_type()
                .unwrap()
                .is_dir()
                .then(|| e.file_name().into_string().unwrap())
        })
        .collect();
    names.sort();
    names
}

/// The flow names of a facts object: 1.0 ids, 2.x names.
fn flow_names(facts: &Value) -> BTreeSet<String> {
    facts["flows"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|f| match f {
            Value::String(s) => Some(s.clone()),
            Value::Object(o) => o
                .get("id")
                .or_else(|| o.get("name"))
                .and_then(Value::as_str)
                .map(str::to_string),
            _ => None,
        })
        .collect()
}

#[test]
fn every_folder_reports_the_reference_loaders_facts() {
    let names = folders();
    assert!(names.len() >= 13, "{names:?}");
    let dir = tempfile::tempdir().unwrap();
    let mut differences = Vec::new();
    for name in &names {
        let folder = corpus().join(name);
        let out = run(
            dir.path(),
            &[
                "rules",
                "inspect",
                folder.to_str().unwrap(),
                "--format",
                "json",
            ],
        );
        assert_eq!(out.status.code(), Some(0), "{name}: {}", stderr(&out));
        let ours: Value = serde_json::from_str(&stdout(&out)).unwrap();
        let expected: Value = serde_json::from_str(
            &std::fs::read_to_string(corpus().join(format!("{name}.expected.json"))).unwrap(),
        )
        .unwrap();
        if ours["version"] != expected["version"] {
            differences.push(format!(
                "{name}: version {} ≠ {}",
                ours["version"], expected["version"]
            ));
        }
        for key in ["user_messages", "bot_messages"] {
            let mine = ours
                .get(key)
                .cloned()
                .unwrap_or(Value::Object(Default::default()));
            if mine != expected[key] {
                differences.push(format!(
                    "{name}: {key}\n  ours: {mine}\n  reference: {}",
                    expected[key]
                ));
            }
        }
        let (mine, theirs) = (flow_names(&ours), flow_names(&expected));
        if mine != theirs {
            differences.push(format!(
                "{name}: flows only ours {:?}, only the reference's {:?}",
                mine.difference(&theirs).collect::<Vec<_>>(),
                theirs.difference(&mine).collect::<Vec<_>>()
            ));
        }
    }
    assert!(differences.is_empty(), "{}", differences.join("\n"));
}

/// What each folder governs when compiled on its own (no catalogue: every action that is not
/// the standard library's is a tool it may govern), and the tools it names but cannot govern.
const GOVERNS: &[(&str, &[&str], &[&str])] = &[
    ("autoalign_factcheck", &[], &[]),
    ("custom_rag_output_rails", &["rag"], &[]),
    ("fact_checking", &[], &["check_facts"]),
    ("guardrails_only_input", &[], &[]),
    ("jailbreak_heuristics", &["check_blocked_terms"], &[]),
    ("rag", &["check_blocked_terms"], &[]),
    ("sample", &[], &[]),
    ("topical_rails", &["check_blocked_terms"], &[]),
    ("v2_call_a_flow", &[], &[]),
    ("v2_conditional_branching", &[], &[]),
    ("wheel_abc", &[], &[]),
    ("wheel_abc_v2", &[], &[]),
    ("wheel_hello_world", &[], &[]),
];

#[test]
fn every_folder_compiles_and_governs_what_the_table_says() {
    assert_eq!(
        GOVERNS
            .iter()
            .map(|(n, _, _)| n.to_string())
            .collect::<Vec<_>>(),
        folders()
    );
    let dir = tempfile::tempdir().unwrap();
    for (name, governs, not_governed) in GOVERNS {
        let folder = corpus().join(name);
        let out_dir = dir.path().join(name);
        let out = run(
            dir.path(),
            &[
                "rules",
                "compile",
                folder.to_str().unwrap(),
                "-o",
                out_dir.to_str().unwrap(),
                "--format",
                "json",
            ],
        );
        assert_eq!(out.status.code(), Some(0), "{name}: {}", stderr(&out));
        let manifest: Value =
            serde_json::from_str(&std::fs::read_to_string(out_dir.join("manifest.json")).unwrap())
                .unwrap();
        let tools: Vec<String> = manifest["tools"]
            .as_array()
            .unwrap()
            .iter()
            .map(|t| {
                t.as_str()
                    .map_or_else(|| t["name"].as_str().unwrap().to_string(), str::to_string)
            })
            .collect();
        assert_eq!(tools, *governs, "{name}");
        let warned: Vec<String> = stdout(&out)
            .lines()
            .filter_map(|l| serde_json::from_str::<Value>(l).ok())
            .filter(|d| d["code"] == "W1613")
            .map(|d| {
                d["message"]
                    .as_str()
                    .unwrap()
                    .split('`')
                    .nth(1)
                    .unwrap()
                    .to_string()
            })
            .collect();
        assert_eq!(warned, *not_governed, "{name}");
    }
}
