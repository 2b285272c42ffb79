//! Runs every scenario under `tests/conformance/` (the spec's examples and DESIGN §5's rules).

use stalwart_tests::scenario::run_scenario;
use stalwart_tests::workspace;

#[test]
fn every_conformance_scenario_answers_as_expected() {
    let dir = workspace().join("tests").join("conformance");
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "yaml"))
        .collect();
    files.sort();
    assert!(
        files.len() >= 3,
        "the scenarios are missing from {}",
        dir.display()
    );
    let mut failures = Vec::new();
    let mut steps = 0;
    for f in &files {
        match run_scenario(f) {
            Ok(n) => steps += n,
            Err(e) => failures.push(e),
        }
    }
    println!("{} scenarios, {steps} steps", files.len());
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
