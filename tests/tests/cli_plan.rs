//! `stalwart plan` end to end (DESIGN §4, §6): the plan printed as JSON; the turn recorded in the
//! history as a new turn or as the answer to the last plan's question; a chain planned again
//! with the results its run reported; `stalwart check --plan`; the language chosen by flag or
//! setting; `pt-PT` refused at compile time; bad input exits 2.

use stalwart_tests::{run, shop, stderr, stdout, workspace};

fn compiled(agent: &std::path::Path) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let out = run(
        dir.path(),
        &["compile", agent.to_str().unwrap(), "-o", "rec"],
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    std::fs::write(
        dir.path().join("rec").join("licence.json"),
        r#"{"id":"test","key":"KioqKioqKioqKioqKioqKioqKioqKioqKioqKioqKio","expires":"2099-01-01"}"#,
    )
    .unwrap();
    dir
}

fn json(out: &std::process::Output) -> serde_json::Value {
    assert_eq!(out.status.code(), Some(0), "stderr: {}", stderr(out));
    serde_json::from_str(stdout(out).trim()).expect("one JSON object")
}

#[test]
fn a_plan_is_printed_whole() {
    let dir = compiled(&shop().join("agent.yaml"));
    let out = run(
        dir.path(),
        &[
            "plan",
            "rec",
            "--agent",
            "billing",
            "--turn",
            "refund order 4411 40.00",
        ],
    );
    assert_eq!(
        json(&out),
        serde_json::json!({
            "kind": "confirm", "language": "en", "intent": "ask refund", "flow": "refunds",
            "call": {"tool": "refund_card", "arguments": {"order_id": "4411", "amount": 40.0},
                     "origins": {"order_id": "typed", "amount": "typed"}},
            "reads": [],
            "slots": [
                {"argument": "order_id", "value": "4411", "turn": 0, "start": 13, "end": 17},
                {"argument": "amount", "value": 40.0, "turn": 0, "start": 18, "end": 23},
            ],
            "missing": [], "choices": [], "question": null, "reason": null, "rule": null,
            "agents": [], "on_unread": null, "for_model": null, "record_as": "read",
            "score": {"read_as": "ask refund", "score": 7.1,
                      "runner_up": {"read_as": "get_order", "score": -1.5}},
        })
    );
}

#[test]
fn the_history_records_the_turns_and_the_answer_to_a_question() {
    let dir = compiled(&shop().join("agent.yaml"));
    let plan = |turn: &str| {
        json(&run(
            dir.path(),
            &[
                "plan",
                "rec",
                "--agent",
                "billing",
                "--turn",
                turn,
                "--history",
                "h.json",
            ],
        ))
    };
    let first = plan("refund order 4411");
    assert_eq!(first["kind"], "ask");
    assert_eq!(first["missing"], serde_json::json!(["amount"]));
    let second = plan("40.00");
    assert_eq!(second["kind"], "confirm");
    assert_eq!(second["record_as"], "reply");
    assert_eq!(
        second["call"]["arguments"],
        serde_json::json!({"order_id": "4411", "amount": 40.0})
    );
    let history: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.path().join("h.json")).unwrap()).unwrap();
    let kinds: Vec<&str> = history["entries"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["kind"].as_str().unwrap())
        .collect();
    assert_eq!(kinds, ["read", "reply"]);
    // The plan's call goes to the check with its origins and intent: both values were typed.
    std::fs::write(dir.path().join("plan.json"), second.to_string()).unwrap();
    let check = json(&run(
        dir.path(),
        &[
            "check",
            "rec",
            "--agent",
            "billing",
            "--plan",
            "@plan.json",
            "--context",
            r#"{"order_paid": true}"#,
            "--history",
            "h.json",
        ],
    ));
    assert_eq!(check["decision"], "confirm");
    assert_eq!(check["reasons"], serde_json::json!(["write"]));
}

#[test]
fn a_chain_is_planned_again_with_its_results() {
    let agent = workspace().join("tests/conformance/agents/shop-router/agent.yaml");
    let dir = compiled(&agent);
    let first = json(&run(
        dir.path(),
        &[
            "plan",
            "rec",
            "--agent",
            "desk",
            "--turn",
            "refund my last order 40.00",
            "--history",
            "h.json",
        ],
    ));
    assert_eq!(first["kind"], "chain");
    assert_eq!(first["reads"][0]["tool"], "last_order");
    let read = json(&run(
        dir.path(),
        &[
            "check",
            "rec",
            "--agent",
            "desk",
            "--tool",
            "last_order",
            "--args",
            "{}",
            "--history",
            "h.json",
        ],
    ));
    assert_eq!(read["decision"], "allow");
    let out = run(
        dir.path(),
        &[
            "report",
            "rec",
            "--history",
            "h.json",
            "--step",
            "1",
            "--outcome",
            "ran",
            "--result",
            r#"{"order_id": "4411"}"#,
        ],
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let again = json(&run(
        dir.path(),
        &["plan", "rec", "--agent", "desk", "--history", "h.json"],
    ));
    assert_eq!(again["kind"], "confirm");
    assert_eq!(
        again["call"],
        serde_json::json!({"tool": "refund_card", "arguments": {"order_id": "4411", "amount": 40.0},
                           "origins": {"order_id": "result:1.order_id", "amount": "typed"}})
    );
}

#[test]
fn the_language_is_a_setting_or_a_flag_never_guessed() {
    let dir = compiled(&workspace().join("examples/shop-ptbr/agent.yaml"));
    let pt = json(&run(
        dir.path(),
        &[
            "plan",
            "rec",
            "--agent",
            "billing",
            "--turn",
            "reembolsar o pedido 4411 40,00",
        ],
    ));
    assert_eq!(
        (pt["kind"].as_str(), pt["language"].as_str()),
        (Some("confirm"), Some("pt-BR"))
    );
    let en_turn = json(&run(
        dir.path(),
        &[
            "plan",
            "rec",
            "--agent",
            "billing",
            "--turn",
            "refund order 4411 40.00",
        ],
    ));
    assert_eq!(en_turn["kind"], "unread");
    assert_eq!(en_turn["reason"], "other_language");
    let flagged = json(&run(
        dir.path(),
        &[
            "plan",
            "rec",
            "--agent",
            "billing",
            "--language",
            "en",
            "--turn",
            "refund order 4411 40.00",
        ],
    ));
    assert_eq!(flagged["kind"], "confirm");
}

#[test]
fn european_portuguese_is_refused_at_compile_time() {
    let dir = tempfile::tempdir().unwrap();
    stalwart_tests::copy_tree(&shop(), dir.path());
    let yaml = std::fs::read_to_string(dir.path().join("agent.yaml")).unwrap();
    std::fs::write(
        dir.path().join("agent.yaml"),
        format!("{yaml}settings:\n  language: pt-PT\n"),
    )
    .unwrap();
    let out = run(
        dir.path(),
        &["compile", "agent.yaml", "-o", "rec", "--format", "json"],
    );
    assert_eq!(out.status.code(), Some(2));
    let first: serde_json::Value =
        serde_json::from_str(stdout(&out).lines().next().unwrap()).unwrap();
    assert_eq!(first["code"], "E0120");
    assert_eq!(
        first["message"],
        "settings: the selector does not read `pt-PT`: European Portuguese is not a grammar it has"
    );
}

#[test]
fn bad_input_exits_2() {
    let dir = compiled(&shop().join("agent.yaml"));
    let out = run(
        dir.path(),
        &["plan", "rec", "--agent", "nobody", "--turn", "hi"],
    );
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("unknown agent `nobody`"),
        "{}",
        stderr(&out)
    );
    let out = run(dir.path(), &["plan", "rec", "--agent", "desk"]);
    assert_eq!(out.status.code(), Some(2));
    let out = run(
        dir.path(),
        &[
            "check",
            "rec",
            "--agent",
            "desk",
            "--plan",
            r#"{"kind": "unread", "call": null}"#,
        ],
    );
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("writes no call"), "{}", stderr(&out));
}
