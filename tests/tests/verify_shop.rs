//! `stalwart verify` on the shop (spec ch45, DESIGN §10): the whole printed report, exit 0, and
//! the proof cache answering a repeat.

use stalwart_tests::{copy_tree, run, shop};

/// The report spec ch45 prints for `stalwart verify agent.yaml`, line for line.
const SPEC_REPORT: &str = r#"stalwart verify agent.yaml
Compiled the rulebook policy.co: the tool check enforces the rules verified here.
Lints from the runtime (none of these blocks the agent):
write_not_retry_safe (warning) on charge_card: a write with no idempotency, so an ambiguous failure goes to a person
write_without_result_schema (warning) on charge_card: a write with no result schema, so its outcome could not be reported
compensation_not_retry_safe (warning) on charge_card: 'refund_card' undoes it and is not retry-safe
write_not_retry_safe (warning) on refund_card: a write with no idempotency, so an ambiguous failure goes to a person
write_without_result_schema (warning) on refund_card: a write with no result schema, so its outcome could not be reported
write_without_result_schema (warning) on send_receipt: a write with no result schema, so its outcome could not be reported
compensation_out_of_reach (warning) on charge_card: agent 'desk' can call it but not 'refund_card', which undoes it, so a run of that agent cannot undo it
Code checks: no finding in 4 file(s) (rules d656f9ab32d3).
Warnings: 2 findings that do not block this agent. Look at each and weigh it; the agent can run as it is.
QG023 Medium on cycle:desk_model (agent.yaml:3)
the cycle through 'desk_model' calls the model or a tool, and nothing declares a budget: the framework's recursion limit of 60 is the run's only ceiling
OWASP LLM06:2026, ASI08:2026
Fix: Declare a budget for the agent or the run, or add an exit the model cannot avoid -- a counter in the state, declared on the edge as exit_after.
QG105 Review on refund_card (agent.yaml:10)
the write 'refund_card' has no compensation, is not irreversible, and runs on a path with another write
OWASP LLM03:2026, ASI08:2026
Fix: Give 'refund_card' an undo -- `undo:` in agent.yaml or `compensation` in the catalogue, which may be the tool itself with its arguments swapped -- or say a failed run may leave it done (`undo: none`), or mark it irreversible.
Rules with nothing to read, so nothing raised:
QG017: no argument is declared as code or a shell command
QG018: no argument is declared as SQL, a query, a path, a URL or a template
QG019: no tool is declared confidential
QG020: no retrieval from a store declared multi-tenant
QG021: no tool is declared to write a store declared persistent
QG106: no tool declares a source or a server, and the catalogue declares no modules
QG107: no agent in the catalogue declares a remote channel
Gate: passed. Nothing blocks this agent: the 2 warnings above are for you to look at and weigh.
"#;

/// The `Code checks:` line may differ in its file count and the rule set's digest only.
fn normalise(text: &str) -> String {
    let re = regex_lite::Regex::new(
        r"Code checks: no finding in \d+ file\(s\) \(rules [0-9a-f]{12}\)\.",
    )
    .unwrap();
    re.replace(text, "Code checks: no finding in N file(s) (rules DIGEST).")
        .into_owned()
}

#[test]
fn verify_prints_the_shops_report_of_spec_ch45_and_passes_the_gate() {
    let dir = tempfile::tempdir().unwrap();
    copy_tree(&shop(), dir.path());
    let out = run(dir.path(), &["verify", "agent.yaml"]);
    let stdout = String::from_utf8(out.stdout).unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "stderr: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(normalise(&stdout), normalise(SPEC_REPORT));
}

#[test]
fn a_repeat_is_answered_from_the_proof_cache_and_says_so() {
    let dir = tempfile::tempdir().unwrap();
    copy_tree(&shop(), dir.path());
    let first = run(dir.path(), &["verify", "agent.yaml"]);
    assert_eq!(first.status.code(), Some(0));
    let cached: Vec<_> = std::fs::read_dir(dir.path().join(".stalwart/cache"))
        .unwrap()
        .collect();
    assert_eq!(cached.len(), 1);
    let second = run(dir.path(), &["verify", "agent.yaml"]);
    assert_eq!(second.status.code(), Some(0));
    let text = String::from_utf8(second.stdout).unwrap();
    let mut lines = text.lines();
    assert_eq!(lines.next(), Some("stalwart verify agent.yaml"));
    assert_eq!(
        lines.next(),
        Some("Answered from the proof cache: nothing this proof read has changed.")
    );
    let without: String = text
        .lines()
        .filter(|l| !l.starts_with("Answered from"))
        .map(|l| format!("{l}\n"))
        .collect();
    assert_eq!(normalise(&without), normalise(SPEC_REPORT));
}

#[test]
fn the_argument_is_echoed_as_given() {
    let out = run(
        &stalwart_tests::workspace(),
        &["verify", "examples/shop/agent.yaml", "--no-cache"],
    );
    let text = String::from_utf8(out.stdout).unwrap();
    assert_eq!(
        text.lines().next(),
        Some("stalwart verify examples/shop/agent.yaml")
    );
    assert_eq!(out.status.code(), Some(0));
}
