//! `stalwart test` end to end: scenario files run against the agent each names, failures printed
//! with what was expected and answered, coverage per file and line as text and lcov, JUnit XML
//! that the Ant/Jenkins schema accepts, bad scenario files as diagnostics.

use std::path::Path;
use std::process::Command;

use stalwart_tests::{run, stderr, stdout, workspace};

/// The conformance scenarios that run against examples/shop.
const SHOP_SCENARIOS: &[&str] = &[
    "tests/conformance/ch32-one-call-every-check-order-paid.yaml",
    "tests/conformance/ch32-one-call-every-check-rulebook-blocks.yaml",
    "tests/conformance/ch45-router-shop.yaml",
    "tests/conformance/ch45-rulebook-facts.yaml",
];

fn lcov_records(text: &str) -> Vec<(String, Vec<String>)> {
    let mut out = Vec::new();
    let mut current: Option<(String, Vec<String>)> = None;
    for line in text.lines() {
        if let Some(file) = line.strip_prefix("SF:") {
            current = Some((file.to_string(), Vec::new()));
        } else if line == "end_of_record" {
            out.push(current.take().expect("end_of_record after SF:"));
        } else if line != "TN:" {
            current
                .as_mut()
                .expect("a record line after SF:")
                .1
                .push(line.to_string());
        }
    }
    assert!(current.is_none(), "a record without end_of_record");
    out
}

#[test]
fn the_shop_passes_its_conformance_scenarios_and_reports_coverage_per_line() {
    let out_dir = tempfile::tempdir().unwrap();
    let lcov = out_dir.path().join("shop.lcov");
    let mut args = vec!["test", "--coverage-out", lcov.to_str().unwrap()];
    args.extend(SHOP_SCENARIOS);
    let out = run(&workspace(), &args);
    let text = stdout(&out);
    assert_eq!(out.status.code(), Some(0), "{text}{}", stderr(&out));
    for file in SHOP_SCENARIOS {
        assert!(text.contains(&format!("ok      {file} (")), "{text}");
    }
    assert!(
        text.contains("4 scenarios: 4 passed, 0 failed; 34 steps, 0 failed"),
        "{text}"
    );
    // The flow's two paths: `execute refund_card` (line 8) under `if $order_paid` (line 7), `bot
    // refuse` (line 10) under its `else`.
    for line in [
        "Coverage of examples/shop/agent.yaml:",
        "  examples/shop/policy.co:7  condition $order_paid  hits 16 (true 8, false 8)",
        "  examples/shop/policy.co:8  flow refunds  hits 16",
        "  examples/shop/policy.co:8  gate path refunds → execute refund_card  hits 8 (taken 8, passed over 8)",
        "  examples/shop/policy.co:10  gate path refunds → bot refuse (refund_card)  hits 8 (taken 8, passed over 0)  PARTLY",
        // No shop scenario charges a card: charge_card's and send_receipt's order rules never
        // ran. Each is at its key in the `@tool(...)` decorator.
        "  examples/shop/shop/tools.py:43  after charge_card: after get_order (order_id)  hits 0 (held 0, broken 0)  NOT EXERCISED",
        "  examples/shop/shop/tools.py:44  at_most charge_card: at_most 1  hits 0 (held 0, broken 0)  NOT EXERCISED",
        "  examples/shop/shop/tools.py:57  after send_receipt: after charge_card (order_id)  hits 0 (held 0, broken 0)  NOT EXERCISED",
        "  5 of 8 items exercised, 6 of 14 branches taken",
    ] {
        assert!(
            text.lines().any(|l| l == line),
            "no line `{line}` in:\n{text}"
        );
    }
    let records = lcov_records(&std::fs::read_to_string(&lcov).unwrap());
    let files: Vec<&str> = records.iter().map(|r| r.0.as_str()).collect();
    assert_eq!(
        files,
        ["examples/shop/policy.co", "examples/shop/shop/tools.py"]
    );
    let policy = &records[0].1;
    for expected in [
        "DA:7,8",
        "DA:8,8",
        "DA:10,8",
        "BRDA:7,0,0,8",
        "BRDA:7,0,1,8",
        "BRDA:10,0,1,0",
        "LF:3",
        "LH:3",
        "BRF:8",
        "BRH:6",
    ] {
        assert!(
            policy.iter().any(|l| l == expected),
            "{expected}: {policy:?}"
        );
    }
    let tools = &records[1].1;
    for expected in [
        "DA:43,0",
        "DA:44,0",
        "DA:57,0",
        "BRDA:43,0,0,-",
        "LF:3",
        "LH:0",
    ] {
        assert!(tools.iter().any(|l| l == expected), "{expected}: {tools:?}");
    }
}

#[test]
fn a_dead_gate_path_shows_as_not_exercised() {
    let fixture = workspace().join("tests/fixtures/test/dead-path");
    let out_dir = tempfile::tempdir().unwrap();
    let lcov = out_dir.path().join("c.lcov");
    let out = run(
        &fixture,
        &["test", "--coverage-out", lcov.to_str().unwrap()],
    );
    let text = stdout(&out);
    assert_eq!(out.status.code(), Some(0), "{text}{}", stderr(&out));
    assert!(
        text.contains("ok      scenarios/refunds.yaml (3 steps)"),
        "{text}"
    );
    for line in [
        "  policy.co:6  condition $total > 100  hits 4 (true 1, false 3)",
        "  policy.co:7  gate path refunds → bot refuse (refund_card)  hits 1 (taken 1, passed over 1)",
        "  policy.co:8  condition $total > 500  hits 2 (true 0, false 2)  PARTLY",
        // `else if $total > 500` after `if $total > 100`: reached, never taken.
        "  policy.co:9  gate path refunds → execute refund_card  hits 0 (taken 0, passed over 1)  NOT EXERCISED",
        "  policy.co:11  gate path refunds → execute refund_card  hits 1 (taken 1, passed over 0)  PARTLY",
    ] {
        assert!(
            text.lines().any(|l| l == line),
            "no line `{line}` in:\n{text}"
        );
    }
    let records = lcov_records(&std::fs::read_to_string(&lcov).unwrap());
    assert_eq!(records.len(), 1);
    assert_eq!(records[0].0, "policy.co");
    let lines = &records[0].1;
    for expected in [
        "DA:6,4",
        "DA:7,1",
        "DA:8,1",
        "DA:9,0",
        "DA:11,1",
        "LF:5",
        "LH:4",
        "BRDA:9,0,0,0",
    ] {
        assert!(lines.iter().any(|l| l == expected), "{expected}: {lines:?}");
    }
}

/// ch45's scenario with the second check's expectation turned into a wrong one.
fn failing_scenario(dir: &Path) -> std::path::PathBuf {
    let text = std::fs::read_to_string(
        workspace().join("tests/conformance/ch45-rulebook-facts.yaml"),
    )
    .unwrap()
    .replace(
        "../../examples/shop/agent.yaml",
        workspace()
            .join("examples/shop/agent.yaml")
            .to_str()
            .unwrap(),
    )
    .replace(
        "expect: {decision: confirm, reasons: [write], detail: {source: \"shop/tools.py:64:7\"}}",
        "expect: {decision: allow, reasons: [write], detail: {source: \"policy.co:8\"}}",
    );
    let path = dir.join("wrong.yaml");
    std::fs::write(&path, text).unwrap();
    path
}

#[test]
fn a_failing_step_prints_expected_and_actual_and_exits_1() {
    let dir = tempfile::tempdir().unwrap();
    failing_scenario(dir.path());
    let out = run(dir.path(), &["test", "wrong.yaml"]);
    let text = stdout(&out);
    assert_eq!(out.status.code(), Some(1), "{text}{}", stderr(&out));
    assert!(
        text.starts_with("FAILED  wrong.yaml (1 of 3 steps failed)\n"),
        "{text}"
    );
    assert!(
        text.contains("  wrong.yaml:18: order_paid True (check)\n"),
        "{text}"
    );
    assert!(
        text.contains("    decision: expected \"allow\", got \"confirm\"\n"),
        "{text}"
    );
    assert!(
        text.contains("    detail.source: expected \"policy.co:8\", got \"shop/tools.py:64:7\"\n"),
        "{text}"
    );
    // The answer's own `detail.source` (as the JSON output gives it) is printed beside the
    // expected one.
    let json = run(dir.path(), &["test", "wrong.yaml", "--format", "json"]);
    let doc: serde_json::Value = serde_json::from_str(&stdout(&json)).unwrap();
    let step = &doc["scenarios"][0]["steps"][2];
    assert_eq!(step["actual_source"], step["answer"]["detail"]["source"]);
    assert_eq!(step["actual_source"], "shop/tools.py:64:7");
    let actual = match &step["actual_source"] {
        serde_json::Value::Null => "none".to_string(),
        serde_json::Value::String(s) => s.clone(),
        other => other.to_string(),
    };
    assert!(
        text.contains(&format!(
            "    source: expected policy.co:8, actual {actual}\n"
        )),
        "{text}"
    );
    assert!(
        text.contains("1 scenario: 0 passed, 1 failed; 3 steps, 1 failed"),
        "{text}"
    );
    // JSON: the same, structured.
    let out = run(dir.path(), &["test", "wrong.yaml", "--format", "json"]);
    assert_eq!(out.status.code(), Some(1));
    let doc: serde_json::Value = serde_json::from_str(&stdout(&out)).unwrap();
    assert_eq!(doc["format"], "stalwart-test/1");
    assert_eq!(
        doc["summary"],
        serde_json::json!({"scenarios": 1, "failed_scenarios": 1, "steps": 3, "failed_steps": 1})
    );
    let step = &doc["scenarios"][0]["steps"][2];
    assert_eq!(step["line"], 18);
    assert_eq!(step["ok"], false);
    assert_eq!(step["failures"][0]["what"], "decision");
    assert_eq!(step["failures"][0]["expected"], "allow");
    assert_eq!(step["failures"][0]["actual"], "confirm");
    assert_eq!(step["expected_source"], "policy.co:8");
    assert_eq!(step["answer"]["decision"], "confirm");
}

#[test]
fn junit_output_validates_against_the_ant_junit_schema() {
    let dir = tempfile::tempdir().unwrap();
    failing_scenario(dir.path());
    let passing = workspace().join("tests/conformance/ch32-one-call-every-check-order-paid.yaml");
    let out = run(
        dir.path(),
        &[
            "test",
            "wrong.yaml",
            passing.to_str().unwrap(),
            "--format",
            "junit",
        ],
    );
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let xml = stdout(&out);
    assert_eq!(xml.matches("<testsuite ").count(), 2, "{xml}");
    assert_eq!(xml.matches("<testcase ").count(), 3 + 12, "{xml}");
    assert_eq!(xml.matches("<failure ").count(), 1, "{xml}");
    assert!(
        xml.contains("<testcase name=\"3. order_paid True (line 18)\" classname=\"wrong.yaml\""),
        "{xml}"
    );
    assert!(
        xml.contains("message=\"decision: expected &quot;allow&quot;, got &quot;confirm&quot;;"),
        "{xml}"
    );
    let file = dir.path().join("results.xml");
    std::fs::write(&file, &xml).unwrap();
    let schema = workspace().join("tests/fixtures/junit/JUnit.xsd");
    let check = Command::new("xmllint")
        .args(["--noout", "--schema"])
        .arg(&schema)
        .arg(&file)
        .output()
        .expect("xmllint runs (libxml2-utils, installed by .ci/setup)");
    assert!(
        check.status.success(),
        "{}\n{xml}",
        String::from_utf8_lossy(&check.stderr)
    );
}

#[test]
fn bad_scenario_files_are_diagnostics_with_file_line_and_column() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("broken.yaml"),
        "agent: agent.yaml\nsteps:\n  - check: {tool: x\n",
    )
    .unwrap();
    let out = run(dir.path(), &["test", "broken.yaml"]);
    assert_eq!(out.status.code(), Some(2), "{}", stdout(&out));
    let err = stderr(&out);
    assert!(
        err.contains("error[E0601[scenario-not-yaml]]: not a YAML scenario"),
        "{err}"
    );
    assert!(err.contains("--> broken.yaml:"), "{err}");

    let agent = workspace().join("examples/shop/agent.yaml");
    std::fs::write(
        dir.path().join("odd.yaml"),
        format!(
            "agent: {}\nsteps:\n  - read: hello\n  - wait: 3\n",
            agent.display()
        ),
    )
    .unwrap();
    let out = run(dir.path(), &["test", "odd.yaml"]);
    assert_eq!(out.status.code(), Some(2), "{}", stdout(&out));
    let err = stderr(&out);
    assert!(
        err.contains("error[E0604[scenario-unknown-step]]: a step of no known kind (`wait`)"),
        "{err}"
    );
    assert!(err.contains("--> odd.yaml:4:5"), "{err}");

    std::fs::write(dir.path().join("none.yaml"), "steps: []\n").unwrap();
    let out = run(dir.path(), &["test", "none.yaml"]);
    assert_eq!(out.status.code(), Some(2));
    let err = stderr(&out);
    assert!(
        err.contains("error[E0602[scenario-no-agent]]: the scenario names no agent"),
        "{err}"
    );
    assert!(err.contains("--> none.yaml:1:1"), "{err}");
}

#[test]
fn with_no_path_the_scenarios_folder_is_run_and_its_absence_is_bad_input() {
    let dir = tempfile::tempdir().unwrap();
    let out = run(dir.path(), &["test"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out)
            .contains("with no PATH, `stalwart test` runs the scenario files under `scenarios/`"),
        "{}",
        stderr(&out)
    );
    let scenarios = dir.path().join("scenarios").join("nested");
    std::fs::create_dir_all(&scenarios).unwrap();
    let text =
        std::fs::read_to_string(workspace().join("tests/conformance/ch45-rulebook-facts.yaml"))
            .unwrap()
            .replace(
                "../../examples/shop/agent.yaml",
                workspace()
                    .join("examples/shop/agent.yaml")
                    .to_str()
                    .unwrap(),
            );
    std::fs::write(scenarios.join("b.yaml"), &text).unwrap();
    std::fs::write(dir.path().join("scenarios").join("a.yaml"), &text).unwrap();
    let out = run(dir.path(), &["test"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(
        stdout(&out),
        "ok      scenarios/a.yaml (3 steps)\nok      scenarios/nested/b.yaml (3 steps)\n\
         2 scenarios: 2 passed, 0 failed; 6 steps, 0 failed\n"
    );
}

#[test]
fn the_witnesses_verify_writes_run_as_scenarios() {
    let fixture = workspace().join("tests/fixtures/proof/QG003/raises");
    let dir = tempfile::tempdir().unwrap();
    let witnesses = dir.path().join("witnesses");
    let out = run(
        &fixture,
        &[
            "verify",
            "agent.yaml",
            "--no-cache",
            "--witnesses",
            witnesses.to_str().unwrap(),
        ],
    );
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let out = run(dir.path(), &["test", "witnesses", "--coverage"]);
    let text = stdout(&out);
    assert_eq!(out.status.code(), Some(0), "{text}{}", stderr(&out));
    assert!(
        text.starts_with("ok      witnesses/QG003-refund_card.yaml (12 steps)\n"),
        "{text}"
    );
    // The witness escapes refund_card's order rule through a hand-off: the rule held each time
    // it was read, and was never broken.
    assert!(
        text.lines()
            .any(|l| l.ends_with(
                "/tests/fixtures/proof/QG003/raises/agent.yaml:15  not_after refund_card: not_after read_inbox  hits 2 (held 2, broken 0)  PARTLY"
            )),
        "{text}"
    );
}

#[test]
fn a_folder_runs_its_scenarios_and_not_the_agents_kept_beside_them() {
    let out = run(&workspace(), &["test", "tests/conformance"]);
    let text = stdout(&out);
    assert_eq!(out.status.code(), Some(0), "{text}{}", stderr(&out));
    let files: Vec<&str> = text
        .lines()
        .filter_map(|l| l.strip_prefix("ok      "))
        .collect();
    let expected = std::fs::read_dir(workspace().join("tests/conformance"))
        .unwrap()
        .filter(|e| {
            e.as_ref()
                .unwrap()
                .path()
                .extension()
                .is_some_and(|x| x == "yaml")
        })
        .count();
    assert_eq!(files.len(), expected, "{text}");
    assert!(files.iter().all(|f| !f.contains("/agents/")), "{text}");
}
