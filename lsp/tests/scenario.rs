//! Scenario files in the editor: a hover on a step shows what the check answers there, run
//! against the agent's open buffers, and where it was decided; go to definition goes there.

mod support;

use support::{Client, range_of};

/// The test workspace with its rulebook fixed and a scenario beside it (`scenario`), written
/// before the server starts and scans it.
fn start(scenario: &str) -> Client {
    let (dir, root) = support::workspace();
    let policy = std::fs::read_to_string(root.join("policy.co")).unwrap();
    std::fs::write(
        root.join("policy.co"),
        policy.replace("refund_crd", "refund_card"),
    )
    .unwrap();
    std::fs::create_dir_all(root.join("scenarios")).unwrap();
    std::fs::write(root.join("scenarios/refunds.yaml"), scenario).unwrap();
    Client::start_in(root, Some(dir), false)
}

const SCENARIO: &str = r#"agent: ../agent.yaml
session: {agent: desk, id: s1}
steps:
  - read: "refund order 4411 40"
  - name: refund before the order is read
    check:
      tool: refund_card
      args: {order_id: "4411", amount: 40}
      context: {order_paid: true}
      intent: ask refund
    expect:
      decision: refuse
  - check: {tool: get_order, args: {order_id: "4411"}, intent: ask refund}
    expect: {decision: allow}
  - report: {step: 2, outcome: ran, result: {status: paid}}
  - name: refund after it
    check:
      tool: refund_card
      args: {order_id: "4411", amount: 40}
      origins: {order_id: typed, amount: typed}
      context: {order_paid: true}
      intent: ask refund
    expect:
      decision: confirm
"#;

/// A location: its URI and its range.
type Place<'a> = (&'a str, (u64, u64, u64, u64));

fn hover_text(c: &mut Client, line: u32, character: u32) -> (String, (u64, u64, u64, u64)) {
    let hover = c.request(
        "textDocument/hover",
        c.at("scenarios/refunds.yaml", line, character),
    );
    (
        hover["contents"]["value"]
            .as_str()
            .unwrap_or("")
            .to_string(),
        range_of(&hover["range"]),
    )
}

#[test]
fn a_hover_on_a_decision_shows_the_answer_and_its_source() {
    let mut c = start(SCENARIO);
    c.open("scenarios/refunds.yaml");
    // `decision: refuse` of the first check: the `after:` entry in the catalogue refused it.
    let (text, range) = hover_text(&mut c, 11, 8);
    assert_eq!(
        text,
        "**refund before the order is read** (line 5): **refuse**\n\nreasons: `order_rule`\n\n\
         source: `tools.yaml:13:13` — `after: [get_order]`\n\nas the scenario expects"
    );
    assert_eq!(range, (11, 6, 11, 22));
    // Go to definition on it: the entry itself.
    let def = c.request(
        "textDocument/definition",
        c.at("scenarios/refunds.yaml", 11, 8),
    );
    assert_eq!(def.as_array().unwrap().len(), 1, "{def}");
    assert_eq!(def[0]["uri"], c.uri("tools.yaml"));
    assert_eq!(range_of(&def[0]["range"]), (12, 12, 12, 22));
    // The last check (hovered on its `check:` key): a write, confirmed by default; the range is
    // the whole step.
    let (text, range) = hover_text(&mut c, 16, 5);
    assert_eq!(
        text,
        "**refund after it** (line 16): **confirm**\n\nreasons: `write`\n\nsource: \
         `tools.yaml:12:5` — `effects: changes`\n\nquestion: Run `refund_card` with order_id = \
         \"4411\" (typed by the person), amount = 40 (typed by the person)?\n\nas the scenario \
         expects"
    );
    assert_eq!(range, (15, 4, 23, 23));
    // A step that is not a check.
    let (text, _) = hover_text(&mut c, 3, 5);
    assert_eq!(
        text,
        "**step 1** (line 4): a `read` step\n\nas the scenario expects"
    );
    assert!(c.stop());
}

#[test]
fn the_answer_follows_the_rulebooks_unsaved_buffer() {
    let mut c = start(SCENARIO);
    c.open("scenarios/refunds.yaml");
    c.open("policy.co");
    let policy = std::fs::read_to_string(c.path("policy.co")).unwrap();
    // Not saved: the gate now asks for a fact the check is not given, so the flow's `else`
    // refuses.
    c.change(
        "policy.co",
        2,
        &policy.replace("$order_paid", "$order_refundable"),
    );
    let (text, _) = hover_text(&mut c, 23, 8);
    assert_eq!(
        text,
        "**refund after it** (line 16): **refuse**\n\nreasons: `refuse`\n\nsource: \
         `policy.co:10:5` — `bot refuse`\n\ncondition: `policy.co:7:6` — `if \
         $order_refundable`\n\n**not as the scenario expects:**\n- decision: expected \
         \"confirm\", got \"refuse\""
    );
    let def = c.request(
        "textDocument/definition",
        c.at("scenarios/refunds.yaml", 23, 8),
    );
    let places: Vec<Place<'_>> = def
        .as_array()
        .unwrap()
        .iter()
        .map(|l| (l["uri"].as_str().unwrap(), range_of(&l["range"])))
        .collect();
    let policy_uri = c.uri("policy.co");
    assert_eq!(
        places,
        [
            (policy_uri.as_str(), (9, 4, 9, 14)),
            (policy_uri.as_str(), (6, 5, 6, 22)),
        ]
    );
    // A rulebook that does not compile: the hover says so rather than answering.
    c.change("policy.co", 3, &policy.replace("refund_card", "refund_crd"));
    let (text, _) = hover_text(&mut c, 23, 8);
    assert!(
        text.starts_with("the agent `../agent.yaml` does not compile: E"),
        "{text}"
    );
    assert!(c.stop());
}

#[test]
fn a_scenario_that_does_not_run_says_why() {
    let mut c = start(&SCENARIO.replace("  - report: {step: 2", "  - frobnicate: {step: 2"));
    c.open("scenarios/refunds.yaml");
    let (text, _) = hover_text(&mut c, 11, 8);
    assert!(text.starts_with("the scenario does not run: "), "{text}");
    assert!(text.contains("scenarios/refunds.yaml:15:"), "{text}");
    assert!(c.stop());
}

#[test]
fn a_step_that_answers_otherwise_is_flagged_on_its_expect_and_cleared_when_fixed() {
    let wrong = SCENARIO.replace("      decision: refuse", "      decision: allow");
    let mut c = start(&wrong);
    c.open("scenarios/refunds.yaml");
    let diags = c.diagnostics_with_codes("scenarios/refunds.yaml", &["E0606"]);
    assert_eq!(
        diags[0]["message"],
        "`refund before the order is read` answered otherwise: decision: expected \"allow\", \
         got \"refuse\"\nnote: the answer was decided at tools.yaml:13:13"
    );
    assert_eq!(range_of(&diags[0]["range"]), (10, 4, 10, 10));
    assert_eq!(diags[0]["severity"], 1);
    // Fixed in the buffer: cleared.
    c.change("scenarios/refunds.yaml", 2, SCENARIO);
    c.diagnostics_with_codes("scenarios/refunds.yaml", &[]);
    // A step of no kind the runner knows: the scenario does not run.
    c.change(
        "scenarios/refunds.yaml",
        3,
        &SCENARIO.replace("  - report: {step: 2", "  - frobnicate: {step: 2"),
    );
    let diags = c.diagnostics_with_codes("scenarios/refunds.yaml", &["E0604"]);
    assert_eq!(range_of(&diags[0]["range"]).0, 14, "{diags:?}");
    assert!(c.stop());
}

#[test]
fn a_scenario_whose_agent_does_not_compile_is_flagged_on_agent() {
    let mut c = start(SCENARIO);
    c.open("scenarios/refunds.yaml");
    c.open("policy.co");
    let policy = std::fs::read_to_string(c.path("policy.co")).unwrap();
    c.change("policy.co", 2, &policy.replace("refund_card", "refund_crd"));
    // The rulebook itself is flagged (published first: by path), and the scenario on `agent:`.
    c.diagnostics_with_codes("policy.co", &["E1605"]);
    let diags = c.diagnostics_with_codes("scenarios/refunds.yaml", &["E0603"]);
    assert_eq!(range_of(&diags[0]["range"]), (0, 7, 0, 20));
    assert!(
        diags[0]["message"]
            .as_str()
            .unwrap()
            .starts_with("the agent `../agent.yaml` does not compile: E1605"),
        "{diags:?}"
    );
    assert!(c.stop());
}
