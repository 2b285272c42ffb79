//! Runs every scenario under `tests/conformance/` (the spec's examples and DESIGN §5's rules),
//! once as the tests always have and once with coverage on: the coverage walk restates the
//! check's steps, and a step whose walk stops elsewhere than the check did fails.

use stalwart_scenario::Runner;
use stalwart_tests::scenario::run_scenario;
use stalwart_tests::workspace;

fn scenarios() -> Vec<std::path::PathBuf> {
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
    files
}

#[test]
fn every_conformance_scenario_answers_as_expected() {
    let files = scenarios();
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

#[test]
fn with_coverage_on_every_conformance_check_answers_alike_and_each_rule_is_exercised() {
    let mut runner = Runner::new(true);
    let mut checks = 0;
    for f in scenarios() {
        let result = runner.run(&f).unwrap_or_else(|e| panic!("{}", e.render()));
        for step in &result.steps {
            checks += usize::from(step.kind == "check");
            assert!(
                step.passed(),
                "{}:{}: {:?}",
                f.display(),
                step.line,
                step.failures
            );
        }
    }
    assert!(checks >= 90, "only {checks} checks");
    let report = stalwart_scenario::coverage::report(&runner);
    let store = report
        .iter()
        .find(|a| a.agent.ends_with("agents/store/agent.yaml"))
        .expect("the store agent's coverage");
    // DESIGN §5's scenarios break and keep each of create_order's order rules, checks and limits.
    for kind in ["after", "check", "limit", "spend"] {
        let line = store
            .lines
            .iter()
            .find(|l| l.kind == kind && l.label.starts_with("create_order:"))
            .unwrap_or_else(|| panic!("no {kind} of create_order: {:#?}", store.lines));
        assert!(
            line.branches.iter().all(|b| b.1 > 0),
            "{kind} not exercised both ways: {line:?}"
        );
    }
    let not_after = store
        .lines
        .iter()
        .find(|l| l.kind == "not_after")
        .expect("mail_receipt's not_after");
    assert_eq!(not_after.label, "mail_receipt: not_after untrusted");
    assert!(not_after.branches.iter().all(|b| b.1 > 0), "{not_after:?}");
}
