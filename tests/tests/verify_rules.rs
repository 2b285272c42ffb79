//! Each rule's fixtures: `tests/fixtures/proof/<rule>/raises/` raises the rule on the subject,
//! at the place and with the witness lines given here, and exits with its gate's code;
//! `clean/`, a close variant, raises nothing and passes the gate. Every rule a declaration can
//! raise has its fixtures; QG312 has none, since only two engines disagreeing raises it.

use std::path::Path;

use stalwart_analyzer::{RULES, rule_by_id};
use stalwart_tests::{run, workspace};

/// One rule's fixture pair and what its `raises/` must report.
struct Case {
    rule: &'static str,
    subject: &'static str,
    /// The file of the finding, relative to agent.yaml's folder, and its line.
    file: &'static str,
    line: u64,
    /// The line of each step of the witness path, in agent.yaml.
    witness: &'static [u64],
    /// Rules the same fixture raises with it by necessity, each once: a call around the check
    /// is QG001 as well as the rule about what that call escapes.
    also: &'static [&'static str],
    /// Arguments given to `stalwart verify` beside `agent.yaml` (for both variants).
    args: &'static [&'static str],
}

const fn case(
    rule: &'static str,
    subject: &'static str,
    file: &'static str,
    line: u64,
    witness: &'static [u64],
) -> Case {
    Case {
        rule,
        subject,
        file,
        line,
        witness,
        also: &[],
        args: &[],
    }
}

const YAML: &str = "agent.yaml";
const POLICY: &str = "policy.co";

const CASES: &[Case] = &[
    case("QG001", "get_order", YAML, 4, &[2, 3, 10, 13]),
    case("QG002", "rewrite_call", YAML, 8, &[2, 3, 10]),
    case("QG003", "refund_card", YAML, 8, &[2, 4, 4, 3, 5, 8, 8, 8]),
    case("QG004", "refund_card", YAML, 3, &[]),
    case("QG005", "rulebook", POLICY, 6, &[]),
    case("QG006", "summarize", YAML, 8, &[]),
    case("QG007", "$approved", POLICY, 6, &[]),
    case("QG008", "refund_card", POLICY, 7, &[]),
    case("QG009", "explain refund policy", POLICY, 9, &[]),
    case("QG010", "refund_card", POLICY, 7, &[]),
    case("QG011", "issue_refund", YAML, 17, &[2, 3, 19]),
    Case {
        also: &["QG001"],
        ..case("QG012", "refund_card", YAML, 4, &[2, 4, 4, 3, 15, 18])
    },
    case("QG013", "send_receipt", YAML, 4, &[2, 4, 4, 4, 3, 4, 4, 4]),
    Case {
        also: &["QG001"],
        ..case("QG014", "refund_card", YAML, 3, &[2, 12, 15])
    },
    case("QG015", "summarize", YAML, 10, &[]),
    Case {
        also: &["QG001"],
        ..case("QG016", "lookup", YAML, 8, &[2, 8])
    },
    case("QG017", "run_python", YAML, 4, &[2, 3, 4, 4]),
    case("QG018", "fetch_page", YAML, 4, &[2, 3, 4, 4]),
    case("QG019", "send_email", YAML, 4, &[2, 4, 4, 3, 4, 4, 4]),
    case("QG020", "search_notes", YAML, 3, &[2, 3, 3]),
    case("QG021", "save_note", YAML, 4, &[2, 4, 4, 3, 4, 4, 4]),
    Case {
        args: &["--advisories", "advisories.json"],
        ..case("QG022", "check refund amount", POLICY, 4, &[])
    },
    case("QG023", "cycle:desk_model", YAML, 2, &[2, 3, 4, 4, 3]),
    case("QG101", "refund_card", YAML, 3, &[]),
    case("QG104", "charge_card", YAML, 3, &[]),
    case("QG105", "refund_card", YAML, 4, &[2, 4, 4, 4, 3, 4, 4, 4]),
    case("QG106", "lookup_weather", YAML, 3, &[]),
    case("QG107", "partner", YAML, 8, &[]),
];

fn verify(dir: &Path, args: &[&str]) -> (serde_json::Value, Option<i32>) {
    let mut all = vec!["verify", "agent.yaml", "--no-cache", "--format", "json"];
    all.extend_from_slice(args);
    let out = run(dir, &all);
    let report = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!(
            "{}: {e}; stderr: {}",
            dir.display(),
            String::from_utf8_lossy(&out.stderr)
        )
    });
    (report, out.status.code())
}

fn check_raises(c: &Case, dir: &Path) {
    let rule = c.rule;
    let (report, code) = verify(dir, c.args);
    let findings = report["findings"].as_array().unwrap();
    let mut rules: Vec<&str> = findings
        .iter()
        .map(|f| f["rule"].as_str().unwrap())
        .collect();
    let mut expected: Vec<&str> = c.also.iter().copied().chain([rule]).collect();
    rules.sort_unstable();
    expected.sort_unstable();
    assert_eq!(rules, expected, "{rule}: {findings:?}");
    let f = findings.iter().find(|f| f["rule"] == rule).unwrap();
    assert_eq!(f["subject"], c.subject, "{rule}");
    assert_eq!(f["place"]["file"], c.file, "{rule}");
    assert_eq!(f["place"]["line"], c.line, "{rule}");
    let lines: Vec<u64> = f["witness"]
        .as_array()
        .unwrap()
        .iter()
        .map(|w| w["place"]["line"].as_u64().unwrap())
        .collect();
    assert_eq!(lines, c.witness, "{rule}");
    assert!(
        f["witness"]
            .as_array()
            .unwrap()
            .iter()
            .all(|w| w["place"]["file"] == YAML),
        "{rule}: a witness steps through agent.yaml"
    );
    let fails = rule_by_id(rule).unwrap().fails_gate;
    assert_eq!(code, Some(if fails { 1 } else { 0 }), "{rule}");
    assert_eq!(
        report["gate"],
        if fails { "failed" } else { "passed" },
        "{rule}"
    );
}

#[test]
fn every_rule_fixture_raises_its_rule_and_its_clean_variant_does_not() {
    for c in CASES {
        let base = workspace().join("tests/fixtures/proof").join(c.rule);
        check_raises(c, &base.join("raises"));
        let (clean, code) = verify(&base.join("clean"), c.args);
        assert_eq!(clean["findings"], serde_json::json!([]), "{} clean", c.rule);
        assert_eq!(clean["gate"], "passed", "{} clean", c.rule);
        assert_eq!(code, Some(0), "{} clean", c.rule);
    }
}

#[test]
fn every_rule_but_the_engines_disagreement_has_its_fixtures() {
    let with_cases: Vec<&str> = CASES.iter().map(|c| c.rule).collect();
    let expected: Vec<&str> = RULES
        .iter()
        .map(|r| r.id)
        .filter(|id| *id != "QG312")
        .collect();
    assert_eq!(with_cases, expected);
    let mut folders: Vec<String> = std::fs::read_dir(workspace().join("tests/fixtures/proof"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    folders.sort();
    assert_eq!(folders, expected);
}

#[test]
fn an_advisory_file_that_cannot_be_read_stops_verify_with_exit_2() {
    let dir = workspace().join("tests/fixtures/proof/QG022/raises");
    let verify_with = |advisories: &str| {
        run(
            &dir,
            &[
                "verify",
                "agent.yaml",
                "--no-cache",
                "--advisories",
                advisories,
            ],
        )
    };
    let out = verify_with("none.json");
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(
        String::from_utf8_lossy(&out.stderr).trim(),
        "error: cannot read the advisory file `none.json`"
    );
    let out = verify_with("policy.co");
    assert_eq!(out.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&out.stderr)
            .starts_with("error: the advisory file `policy.co` is not valid: "),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn an_argument_limited_by_its_schemas_enum_is_not_written_by_the_model() {
    let dir = tempfile::tempdir().unwrap();
    let clean = workspace().join("tests/fixtures/proof/QG018/clean/agent.yaml");
    let text = std::fs::read_to_string(clean).unwrap().replace(
        "        url: {type: string}\n",
        "        url: {type: string, enum: [\"https://shop.example/returns\"]}\n",
    );
    let text = text.split("    checks:").next().unwrap().to_string();
    assert!(text.contains("enum"), "{text}");
    std::fs::write(dir.path().join("agent.yaml"), text).unwrap();
    let (report, code) = verify(dir.path(), &[]);
    assert_eq!(report["findings"], serde_json::json!([]));
    assert_eq!(code, Some(0));
}

/// A destination declared by argument kind (here under `overrides:`, on the fetch server's
/// captured answer) is what QG018 reads: the model writes where the tool goes.
#[test]
fn a_destination_declared_under_overrides_raises_qg018() {
    let dir = tempfile::tempdir().unwrap();
    let corpus = workspace().join("tests/corpus/catalogues");
    std::fs::create_dir_all(dir.path().join("mcp")).unwrap();
    std::fs::copy(
        corpus.join("mcp/fetch.json"),
        dir.path().join("mcp/fetch.json"),
    )
    .unwrap();
    std::fs::write(
        dir.path().join("agent.yaml"),
        "agents:\n  desk:\n    model: \"anthropic:claude-sonnet-5-5\"\n    tools: [fetch]\n    budget: {steps: 10}\ntools:\n  - mcp: mcp/fetch.json\noverrides:\n  fetch: {argument_kinds: {url: destination}}\n",
    )
    .unwrap();
    let out = run(dir.path(), &["verify", "agent.yaml", "--no-cache"]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains(
            "QG018 High on fetch (agent.yaml:4)\nthe model writes the argument 'url' of 'fetch', declared as a destination\n"
        ),
        "{text}"
    );
}
