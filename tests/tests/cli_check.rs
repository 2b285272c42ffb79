//! `stalwart check` and `stalwart report` end to end (DESIGN §4, §5.9): a history file that does
//! not exist starts a new session and is written; every later check reads and extends it; a
//! report is signed into it; an unknown agent is bad input.

use stalwart_tests::{run, shop, stderr, stdout};

struct Fixture {
    dir: tempfile::TempDir,
}

impl Fixture {
    fn new() -> Self {
        let dir = tempfile::tempdir().unwrap();
        let agent = shop().join("agent.yaml");
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
        Self { dir }
    }

    fn stalwart(&self, args: &[&str]) -> std::process::Output {
        run(self.dir.path(), args)
    }

    fn history(&self) -> serde_json::Value {
        serde_json::from_str(&std::fs::read_to_string(self.dir.path().join("h.json")).unwrap())
            .unwrap()
    }
}

fn answer(out: &std::process::Output) -> serde_json::Value {
    assert_eq!(out.status.code(), Some(0), "stderr: {}", stderr(out));
    serde_json::from_str(stdout(out).trim()).expect("the answer is one JSON object")
}

const REFUND: &[&str] = &[
    "check",
    "rec",
    "--agent",
    "billing",
    "--tool",
    "refund_card",
    "--args",
    r#"{"order_id": "4411", "amount": 40.00}"#,
    "--origins",
    r#"{"order_id": "typed", "amount": "typed"}"#,
    "--intent",
    "ask refund",
    "--history",
    "h.json",
];

#[test]
fn a_missing_history_starts_a_session_and_every_check_extends_it() {
    let f = Fixture::new();
    let mut first: Vec<&str> = REFUND.to_vec();
    first.extend([
        "--turn",
        "refund order 4411 40.00",
        "--context",
        r#"{"order_paid": true}"#,
    ]);
    let a = answer(&f.stalwart(&first));
    assert_eq!(a["decision"], "confirm");
    assert_eq!(a["reasons"], serde_json::json!(["write"]));
    let token = a["confirmation"].as_str().unwrap().to_string();
    let h = f.history();
    assert_eq!(h["agent"], "billing");
    assert_eq!(
        h["entries"].as_array().unwrap().len(),
        2,
        "the turn and the call"
    );

    let mut second: Vec<&str> = REFUND.to_vec();
    second.extend([
        "--context",
        r#"{"order_paid": true}"#,
        "--confirmation",
        &token,
    ]);
    let b = answer(&f.stalwart(&second));
    assert_eq!(b["decision"], "allow");
    assert_eq!(b["reasons"], serde_json::json!(["confirmed"]));
    assert!(b["idempotency_key"].is_string());

    let r = f.stalwart(&[
        "report",
        "rec",
        "--history",
        "h.json",
        "--step",
        "2",
        "--outcome",
        "ran",
    ]);
    assert_eq!(r.status.code(), Some(0), "{}", stderr(&r));
    let entries = f.history()["entries"].as_array().unwrap().clone();
    assert_eq!(entries.len(), 4);
    assert_eq!(entries[3]["kind"], "outcome");
    assert_eq!(entries[3]["step"], 2);
}

#[test]
fn without_the_fact_the_rulebook_refuses_and_fail_on_refuse_exits_1() {
    let f = Fixture::new();
    let mut args: Vec<&str> = REFUND.to_vec();
    args.extend(["--turn", "refund order 4411 40.00", "--fail-on", "refuse"]);
    let out = f.stalwart(&args);
    assert_eq!(out.status.code(), Some(1));
    let a: serde_json::Value = serde_json::from_str(stdout(&out).trim()).unwrap();
    assert_eq!(a["decision"], "refuse");
    assert_eq!(a["reasons"], serde_json::json!(["refuse"]));
    assert_eq!(a["detail"]["flow"], "refunds");
}

#[test]
fn a_history_edited_by_hand_is_refused_and_restarted() {
    let f = Fixture::new();
    let mut first: Vec<&str> = REFUND.to_vec();
    first.extend(["--turn", "refund order 4411 40.00"]);
    answer(&f.stalwart(&first));
    let mut h = f.history();
    h["entries"][1]["tool"] = serde_json::json!("get_order");
    std::fs::write(f.dir.path().join("h.json"), h.to_string()).unwrap();
    let a = answer(&f.stalwart(REFUND));
    assert_eq!(a["decision"], "refuse");
    assert_eq!(a["reasons"], serde_json::json!(["history_invalid"]));
    assert_eq!(
        f.history()["entries"],
        serde_json::json!([]),
        "a fresh history at step 0"
    );
}

#[test]
fn bad_input_exits_2() {
    let f = Fixture::new();
    let unknown_agent = f.stalwart(&[
        "check",
        "rec",
        "--agent",
        "nobody",
        "--tool",
        "get_order",
        "--args",
        "{}",
    ]);
    assert_eq!(unknown_agent.status.code(), Some(2));
    assert!(
        stderr(&unknown_agent).contains("unknown agent `nobody`"),
        "{}",
        stderr(&unknown_agent)
    );
    let bad_json = f.stalwart(&[
        "check",
        "rec",
        "--agent",
        "desk",
        "--tool",
        "get_order",
        "--args",
        "{nope",
    ]);
    assert_eq!(bad_json.status.code(), Some(2));
    assert!(
        stderr(&bad_json).contains("--args is not JSON"),
        "{}",
        stderr(&bad_json)
    );
    let no_record = f.stalwart(&[
        "check",
        "missing",
        "--agent",
        "desk",
        "--tool",
        "get_order",
        "--args",
        "{}",
    ]);
    assert_eq!(no_record.status.code(), Some(2));
    let no_step = f.stalwart(&[
        "report",
        "rec",
        "--history",
        "h.json",
        "--step",
        "9",
        "--outcome",
        "ran",
    ]);
    assert_eq!(no_step.status.code(), Some(2));
}
