//! Each rule's fixtures: `tests/fixtures/proof/<rule>/raises/agent.yaml` raises the rule with the
//! witness lines given here and the exit code of its gate; `clean/agent.yaml`, a close variant,
//! raises nothing.

use stalwart_tests::{run, workspace};

/// `(rule, subject, line of the finding, witness lines, exit code of raises)`.
const CASES: &[(&str, &str, u64, &[u64], i32)] = &[
    ("QG001", "get_order", 4, &[2, 3, 10, 13], 1),
    ("QG107", "partner", 8, &[], 0),
];

fn verify(dir: &std::path::Path) -> (serde_json::Value, Option<i32>) {
    let out = run(
        dir,
        &["verify", "agent.yaml", "--no-cache", "--format", "json"],
    );
    let report = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!(
            "{}: {e}; stderr: {}",
            dir.display(),
            String::from_utf8_lossy(&out.stderr)
        )
    });
    (report, out.status.code())
}

#[test]
fn every_rule_fixture_raises_its_rule_and_its_clean_variant_does_not() {
    for &(rule, subject, line, witness, exit) in CASES {
        let base = workspace().join("tests/fixtures/proof").join(rule);
        let (report, code) = verify(&base.join("raises"));
        let findings = report["findings"].as_array().unwrap();
        assert_eq!(findings.len(), 1, "{rule}: {findings:?}");
        let f = &findings[0];
        assert_eq!(f["rule"], rule);
        assert_eq!(f["subject"], subject, "{rule}");
        assert_eq!(f["place"]["line"], line, "{rule}");
        let lines: Vec<u64> = f["witness"]
            .as_array()
            .unwrap()
            .iter()
            .map(|w| w["place"]["line"].as_u64().unwrap())
            .collect();
        assert_eq!(lines, witness, "{rule}");
        assert_eq!(code, Some(exit), "{rule}");
        let (clean, code) = verify(&base.join("clean"));
        assert_eq!(clean["findings"], serde_json::json!([]), "{rule} clean");
        assert_eq!(clean["gate"], "passed", "{rule} clean");
        assert_eq!(code, Some(0), "{rule} clean");
    }
}
