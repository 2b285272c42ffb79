//! `stalwart verify` on rule sheets whose conditions only numbers, texts and absent arguments
//! decide (`tests/fixtures/conditions/`): `raises/` has four rows no call can reach and one the
//! rows before it always take first (QG010, each on its row); `clean/` changes each into a row
//! some call reaches; in `default_reached/`, `$args.amount > 100` and `$args.amount <= 100`
//! leave a call without an amount to the allowing default (QG004), where in the other two
//! `not ($args.amount > 100)` decides it.

use stalwart_tests::{run, workspace};

/// The findings of `stalwart verify` in a fixture folder, as `RULE at FILE:LINE (START..END):
/// message`, and its gate.
fn findings(folder: &str) -> (Vec<String>, String) {
    let dir = workspace().join("tests/fixtures/conditions").join(folder);
    let out = run(
        &dir,
        &["verify", "agent.yaml", "--no-cache", "--format", "json"],
    );
    assert_eq!(out.status.code(), Some(0), "{folder}");
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let found = report["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| {
            let p = &f["place"];
            format!(
                "{} at {}:{} ({}..{}): {}",
                f["rule"].as_str().unwrap(),
                p["file"].as_str().unwrap(),
                p["line"],
                p["start"],
                p["end"],
                f["message"].as_str().unwrap()
            )
        })
        .collect();
    (found, report["gate"].as_str().unwrap().to_string())
}

#[test]
fn rows_no_call_reaches_and_a_shadowed_row_are_dead_actions() {
    let (found, gate) = findings("raises");
    assert_eq!(
        found,
        [
            "QG010 at refunds.csv:3 (41..105): the path of flow 'odd' to 'refund_card' can never be taken: its condition never holds",
            "QG010 at refunds.csv:4 (106..169): the path of flow 'five' to 'refund_card' can never be taken: its condition never holds",
            "QG010 at refunds.csv:5 (170..240): the path of flow 'neg' to 'refund_card' can never be taken: its condition never holds",
            "QG010 at refunds.csv:6 (241..321): the path of flow 'cur' to 'refund_card' can never be taken: its condition never holds",
            "QG010 at refunds.csv:8 (373..422): the path of flow 'huge' to 'refund_card' can never be taken: the paths before it with the same intent take every call it would",
        ]
    );
    assert_eq!(gate, "passed");
}

#[test]
fn rows_some_call_reaches_raise_nothing() {
    assert_eq!(findings("clean"), (Vec::new(), "passed".to_string()));
}

#[test]
fn a_call_without_an_amount_reaches_the_allowing_default() {
    let (found, _) = findings("default_reached");
    assert_eq!(
        found,
        [
            "QG004 at agent.yaml:3 (31..42): the rule sheet allows the write 'refund_card' by default: a call no row decides passes the gate"
        ]
    );
}
