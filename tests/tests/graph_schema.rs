//! The published JSON Schema of `qls-graph/1` (docs/schemas/qls-graph.schema.json) accepts the
//! graph of the shop and of every proof fixture, as `stalwart graph --format json` prints it, and
//! refuses a graph with a field it does not know.

use stalwart_tests::{run, shop, workspace};

fn schema() -> jsonschema::Validator {
    let text = std::fs::read_to_string(workspace().join("docs/schemas/qls-graph.schema.json"))
        .expect("the schema is in docs/schemas");
    let schema: serde_json::Value = serde_json::from_str(&text).expect("the schema is JSON");
    jsonschema::validator_for(&schema).expect("the schema is a JSON Schema")
}

fn graph_of(dir: &std::path::Path) -> serde_json::Value {
    let out = run(dir, &["graph", "agent.yaml", "--format", "json"]);
    serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!(
            "{}: {e}; stderr: {}",
            dir.display(),
            String::from_utf8_lossy(&out.stderr)
        )
    })
}

fn folders() -> Vec<std::path::PathBuf> {
    let mut dirs = vec![shop()];
    let proof = workspace().join("tests/fixtures/proof");
    let mut rules: Vec<_> = std::fs::read_dir(&proof)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    rules.sort();
    for rule in rules {
        for variant in ["raises", "clean"] {
            let dir = rule.join(variant);
            if dir.join("agent.yaml").exists() {
                dirs.push(dir);
            }
        }
    }
    dirs
}

#[test]
fn every_graph_the_compiler_prints_matches_the_published_schema() {
    let validator = schema();
    let dirs = folders();
    assert!(dirs.len() > 40, "the shop and the fixtures: {}", dirs.len());
    for dir in dirs {
        let graph = graph_of(&dir);
        let errors: Vec<String> = validator
            .iter_errors(&graph)
            .map(|e| format!("{} at {}", e, e.instance_path()))
            .collect();
        assert!(errors.is_empty(), "{}: {errors:?}", dir.display());
    }
}

#[test]
fn the_schema_refuses_a_field_it_does_not_know() {
    let validator = schema();
    let mut graph = graph_of(&shop());
    assert!(validator.is_valid(&graph));
    graph["nodes"][0]["colour"] = serde_json::json!("red");
    assert!(!validator.is_valid(&graph));
    let mut graph = graph_of(&shop());
    graph["format"] = serde_json::json!("qls-graph/2");
    assert!(!validator.is_valid(&graph));
}
