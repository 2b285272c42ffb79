//! `stalwart verify` on rule sheets whose conditions only numbers, texts and absent arguments
//! decide (`tests/fixtures/conditions/`): `raises/` has four rows no call can reach and one the
//! rows before it always take first (QG010, each on its row); `clean/` changes each into a row
//! some call reaches; in `default_reached/`, `$args.amount > 100` and `$args.amount <= 100`
//! leave a call without an amount to the allowing default (QG004), where in the other two
//! `not ($args.amount > 100)` decides it.
//!
//! `colang1/` and `colang2/` are the same rules written as Colang 1.0 and 2.x flows (`if
//! $args.amount > 500 and $args.amount < 100` around `execute refund_card` or `await
//! RefundCardAction(…)`; 2.x writes `not $args.amount > 500`, which Python reads as `not
//! ($args.amount > 500)`), and `colang2/facts/` the dead forms on facts (`$amount`, given with
//! each check); `numbers/` writes the numbers as Python does (`1_000`, `1e3`, `.5`, and `$limit =
//! 1_000`). A Colang rulebook has no allowing default: a call no path decides is refused
//! (`no_flow`), so `default_reached/` raises nothing there.

use stalwart_tests::{run, workspace};

/// The findings of `stalwart verify` in a fixture folder, as `RULE at FILE:LINE:COLUMN
/// (START..END): message`, and its gate.
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
            let file = p["file"].as_str().unwrap();
            format!(
                "{} at {file}:{}:{} ({}..{}): {}",
                f["rule"].as_str().unwrap(),
                p["line"],
                column(&dir.join(file), p["start"].as_u64().unwrap()),
                p["start"],
                p["end"],
                f["message"].as_str().unwrap()
            )
        })
        .collect();
    (found, report["gate"].as_str().unwrap().to_string())
}

/// The 1-based column, in characters, of a byte offset of a file.
fn column(file: &std::path::Path, offset: u64) -> usize {
    let text = std::fs::read_to_string(file).unwrap();
    let before = &text[..offset as usize];
    let line_start = before.rfind('\n').map_or(0, |i| i + 1);
    before[line_start..].chars().count() + 1
}

#[test]
fn rows_no_call_reaches_and_a_shadowed_row_are_dead_actions() {
    let (found, gate) = findings("raises");
    assert_eq!(
        found,
        [
            "QG010 at refunds.csv:3:1 (41..105): the path of flow 'odd' to 'refund_card' can never be taken: its condition never holds",
            "QG010 at refunds.csv:4:1 (106..169): the path of flow 'five' to 'refund_card' can never be taken: its condition never holds",
            "QG010 at refunds.csv:5:1 (170..240): the path of flow 'neg' to 'refund_card' can never be taken: its condition never holds",
            "QG010 at refunds.csv:6:1 (241..321): the path of flow 'cur' to 'refund_card' can never be taken: its condition never holds",
            "QG010 at refunds.csv:8:1 (373..422): the path of flow 'huge' to 'refund_card' can never be taken: the paths before it with the same intent take every call it would",
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
            "QG004 at agent.yaml:3:13 (31..42): the rule sheet allows the write 'refund_card' by default: a call no row decides passes the gate"
        ]
    );
}

#[test]
fn colang_1_flows_no_call_reaches_and_a_shadowed_flow_are_dead_actions() {
    let (found, gate) = findings("colang1/raises");
    assert_eq!(
        found,
        [
            "QG010 at policy.co:7:5 (131..150): the path of flow 'odd' to 'refund_card' can never be taken: its condition never holds",
            "QG010 at policy.co:12:5 (236..255): the path of flow 'five' to 'refund_card' can never be taken: its condition never holds",
            "QG010 at policy.co:17:5 (348..367): the path of flow 'neg' to 'refund_card' can never be taken: its condition never holds",
            "QG010 at policy.co:22:5 (464..483): the path of flow 'cur' to 'refund_card' can never be taken: its condition never holds",
            "QG010 at policy.co:34:5 (655..674): the path of flow 'huge' to 'refund_card' can never be taken: the paths before it with the same intent take every call it would",
        ]
    );
    assert_eq!(gate, "passed");
}

#[test]
fn colang_2_flows_no_call_reaches_and_a_shadowed_flow_are_dead_actions() {
    let (found, gate) = findings("colang2/raises");
    assert_eq!(
        found,
        [
            "QG010 at policy.co:9:5 (145..213): the path of flow 'odd' to 'refund_card' can never be taken: its condition never holds",
            "QG010 at policy.co:14:5 (292..360): the path of flow 'five' to 'refund_card' can never be taken: its condition never holds",
            "QG010 at policy.co:19:5 (444..512): the path of flow 'neg' to 'refund_card' can never be taken: its condition never holds",
            "QG010 at policy.co:24:5 (602..670): the path of flow 'cur' to 'refund_card' can never be taken: its condition never holds",
            "QG010 at policy.co:36:5 (877..945): the path of flow 'huge' to 'refund_card' can never be taken: the paths before it with the same intent take every call it would",
        ]
    );
    assert_eq!(gate, "passed");
}

#[test]
fn colang_2_conditions_on_facts_are_read_in_the_same_theories() {
    let (found, gate) = findings("colang2/facts");
    assert_eq!(
        found,
        [
            "QG010 at policy.co:9:5 (135..173): the path of flow 'odd' to 'refund_card' can never be taken: its condition never holds",
            "QG010 at policy.co:14:5 (242..280): the path of flow 'five' to 'refund_card' can never be taken: its condition never holds",
            "QG010 at policy.co:19:5 (354..392): the path of flow 'neg' to 'refund_card' can never be taken: its condition never holds",
            "QG010 at policy.co:24:5 (472..530): the path of flow 'cur' to 'refund_card' can never be taken: its condition never holds",
            "QG010 at policy.co:36:5 (697..735): the path of flow 'huge' to 'refund_card' can never be taken: the paths before it with the same intent take every call it would",
        ]
    );
    assert_eq!(gate, "passed");
}

#[test]
fn colang_flows_some_call_reaches_raise_nothing() {
    for folder in ["colang1/clean", "colang2/clean"] {
        assert_eq!(
            findings(folder),
            (Vec::new(), "passed".to_string()),
            "{folder}"
        );
    }
}

#[test]
fn a_colang_rulebook_refuses_what_no_path_decides() {
    for folder in ["colang1/default_reached", "colang2/default_reached"] {
        assert_eq!(
            findings(folder),
            (Vec::new(), "passed".to_string()),
            "{folder}"
        );
    }
}

#[test]
fn colang_numbers_written_as_python_writes_them_are_read_as_numbers() {
    let (found, gate) = findings("colang1/numbers");
    assert_eq!(
        found,
        [
            "QG010 at policy.co:7:5 (137..156): the path of flow 'grouped' to 'refund_card' can never be taken: its condition never holds",
            "QG010 at policy.co:12:5 (248..267): the path of flow 'exponent' to 'refund_card' can never be taken: its condition never holds",
            "QG010 at policy.co:17:5 (359..378): the path of flow 'fraction' to 'refund_card' can never be taken: its condition never holds",
            "QG010 at policy.co:23:5 (487..506): the path of flow 'limit' to 'refund_card' can never be taken: its condition never holds",
        ]
    );
    assert_eq!(gate, "passed");
    let (found, gate) = findings("colang2/numbers");
    assert_eq!(
        found,
        [
            "QG010 at policy.co:9:5 (151..194): the path of flow 'grouped' to 'refund_card' can never be taken: its condition never holds",
            "QG010 at policy.co:14:5 (279..322): the path of flow 'exponent' to 'refund_card' can never be taken: its condition never holds",
            "QG010 at policy.co:19:5 (407..450): the path of flow 'fraction' to 'refund_card' can never be taken: its condition never holds",
            "QG010 at policy.co:25:5 (552..595): the path of flow 'limit' to 'refund_card' can never be taken: its condition never holds",
        ]
    );
    assert_eq!(gate, "passed");
}
