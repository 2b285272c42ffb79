//! `stalwart diff OLD NEW` end to end: each change of the acceptance list is found with a call
//! on which the two versions decide differently, and that call, replayed here through the tool
//! check on the two records `stalwart compile` writes, really is decided differently; a
//! rulebook reformatted, rewritten in Colang 2.x or as a rule sheet shows no difference; bad
//! input exits 2 with a diagnostic.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use serde_json::{Map, Value};
use stalwart_record::Record;
use stalwart_runtime::{Call, Check, Decision, Env, Key, Outcome, Session};
use stalwart_tests::{run, stderr, stdout, workspace};

/// The clock the diff runs its checks at (`stalwart_driver::diff::DIFF_NOW`).
const NOW: u64 = 1_800_000_000;

fn fixture(name: &str) -> PathBuf {
    workspace().join("tests/fixtures/diff").join(name)
}

/// `stalwart diff OLD/agent.yaml NEW/agent.yaml --format json`: its exit code and report.
fn diff(old: &str, new: &str) -> (i32, Value) {
    let tmp = tempfile::tempdir().unwrap();
    let out = run(
        tmp.path(),
        &[
            "diff",
            fixture(old).join("agent.yaml").to_str().unwrap(),
            fixture(new).join("agent.yaml").to_str().unwrap(),
            "--format",
            "json",
        ],
    );
    let report: Value = serde_json::from_str(&stdout(&out))
        .unwrap_or_else(|e| panic!("{e}: {}\n{}", stdout(&out), stderr(&out)));
    (out.status.code().unwrap_or(-1), report)
}

fn verdicts(report: &Value) -> Vec<(String, String)> {
    report["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| {
            (
                t["tool"].as_str().unwrap().to_string(),
                t["verdict"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

fn tool<'a>(report: &'a Value, name: &str) -> &'a Value {
    report["tools"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["tool"] == name)
        .unwrap_or_else(|| panic!("no {name} in {report:#}"))
}

/// The folder's agent compiled by `stalwart compile` into a record, loaded.
fn compiled(name: &str, dir: &Path) -> Record {
    let out = dir.join(name);
    let done = run(
        dir,
        &[
            "compile",
            fixture(name).join("agent.yaml").to_str().unwrap(),
            "-o",
            out.to_str().unwrap(),
        ],
    );
    assert_eq!(done.status.code(), Some(0), "{}", stderr(&done));
    Record::read(out.join("record.bin")).unwrap()
}

fn call_of(spec: &Value) -> Call {
    let map = |k: &str| spec[k].as_object().cloned().unwrap_or_default();
    Call {
        tool: spec["tool"].as_str().unwrap().to_string(),
        agent: spec["agent"].as_str().map(str::to_string),
        arguments: Arc::new(map("arguments")),
        origins: Arc::new(
            map("origins")
                .into_iter()
                .map(|(k, v)| (k, v.as_str().unwrap().to_string()))
                .collect(),
        ),
        labels: map("labels")
            .into_iter()
            .map(|(k, v)| {
                let list = v.as_array().unwrap().iter();
                (k, list.map(|l| l.as_str().unwrap().to_string()).collect())
            })
            .collect(),
        context: map("context"),
        intent: spec["intent"].as_str().map(str::to_string),
        ..Call::default()
    }
}

/// Replays an example on a record as the diff says it ran it: a new session for the call's
/// agent; each earlier call checked, a confirm confirmed with its token, an allowed call
/// reported ran with the result the example shows; then the call.
fn replay(record: &Record, example: &Value) -> Check {
    let key = Key::new("replay", [9; 32], NOW + 86_400).for_record(&record.header().digest);
    let env = Env {
        key: &key,
        now: NOW,
    };
    let agent = example["call"]["agent"].as_str().unwrap_or_default();
    let mut session = Session::new(agent, "replay");
    for prior in example["history"].as_array().unwrap() {
        let mut call = call_of(&prior["call"]);
        let mut check = stalwart_runtime::check_tool_call(record.body(), env, &mut session, &call);
        if check.decision == Decision::Confirm {
            call.confirmation = check.confirmation.clone();
            check = stalwart_runtime::check_tool_call(record.body(), env, &mut session, &call);
        }
        if check.decision == Decision::Allow {
            let step = session.calls().last().unwrap().step;
            stalwart_runtime::report(
                env,
                &mut session,
                step,
                Outcome::Ran,
                Some(prior["result"].clone()),
            )
            .unwrap();
        }
    }
    stalwart_runtime::check_tool_call(record.body(), env, &mut session, &call_of(&example["call"]))
}

/// The example the diff printed for `name`, replayed on both compiled records: the two checks
/// answer what the diff printed, and differently. The example.
fn replayed_difference(old: &str, new: &str, report: &Value, name: &str) -> Value {
    let t = tool(report, name);
    assert_eq!(t["verdict"], "differs", "{t:#}");
    let example = t["example"].clone();
    let dir = tempfile::tempdir().unwrap();
    let (a, b) = (compiled(old, dir.path()), compiled(new, dir.path()));
    let (ca, cb) = (replay(&a, &example), replay(&b, &example));
    assert_eq!(
        ca.decision.as_str(),
        example["old"]["decision"],
        "{example:#}"
    );
    assert_eq!(
        cb.decision.as_str(),
        example["new"]["decision"],
        "{example:#}"
    );
    let reasons = |c: &Check| -> Vec<String> { c.reasons.iter().map(|r| r.to_string()).collect() };
    assert_eq!(
        serde_json::json!(reasons(&ca)),
        example["old"]["reasons"],
        "{example:#}"
    );
    assert_eq!(
        serde_json::json!(reasons(&cb)),
        example["new"]["reasons"],
        "{example:#}"
    );
    assert!(
        ca.decision != cb.decision || ca.reasons != cb.reasons,
        "the example decides alike: {example:#}"
    );
    example
}

fn only_differs(report: &Value, name: &str) {
    for (t, v) in verdicts(report) {
        let want = if t == name { "differs" } else { "same" };
        assert_eq!(v, want, "{t}: {report:#}");
    }
}

#[test]
fn a_loosened_condition_is_found_with_an_amount_between_the_two_bounds() {
    let (code, report) = diff("base", "loosened");
    assert_eq!(code, 1, "{report:#}");
    only_differs(&report, "refund_card");
    let e = replayed_difference("base", "loosened", &report, "refund_card");
    let amount = e["call"]["arguments"]["amount"].as_f64().unwrap();
    assert!(amount > 50.0 && amount <= 500.0, "{e:#}");
    // The order rule holds in both: the history looked the order up.
    assert_eq!(e["history"][0]["call"]["tool"], "get_order", "{e:#}");
    assert_eq!(e["old"]["decision"], "confirm");
    assert_eq!(e["new"]["decision"], "refuse");
    assert_eq!(
        e["new"]["reasons"],
        serde_json::json!(["refuse large refund"])
    );
}

#[test]
fn a_removed_flow_is_found_with_the_fact_it_read() {
    let (code, report) = diff("base", "flow_removed");
    assert_eq!(code, 1, "{report:#}");
    only_differs(&report, "cancel_order");
    let e = replayed_difference("base", "flow_removed", &report, "cancel_order");
    assert_eq!(e["call"]["context"]["order_shipped"], true, "{e:#}");
    assert_eq!(
        e["old"]["reasons"],
        serde_json::json!(["refuse shipped order"])
    );
    assert_eq!(e["new"]["decision"], "confirm");
}

#[test]
fn a_removed_after_is_found_with_a_call_before_any_lookup() {
    let (code, report) = diff("base", "after_removed");
    assert_eq!(code, 1, "{report:#}");
    only_differs(&report, "refund_card");
    let e = replayed_difference("base", "after_removed", &report, "refund_card");
    assert_eq!(e["history"], serde_json::json!([]), "{e:#}");
    assert_eq!(e["old"]["reasons"], serde_json::json!(["order_rule"]));
    assert_eq!(e["new"]["decision"], "confirm");
}

#[test]
fn an_added_argument_is_found_with_a_call_that_gives_it() {
    let (code, report) = diff("base", "argument_added");
    assert_eq!(code, 1, "{report:#}");
    only_differs(&report, "refund_card");
    let e = replayed_difference("base", "argument_added", &report, "refund_card");
    assert!(e["call"]["arguments"].get("note").is_some(), "{e:#}");
    assert_eq!(e["old"]["reasons"], serde_json::json!(["argument_schema"]));
    assert_ne!(e["new"]["reasons"], serde_json::json!(["argument_schema"]));
}

#[test]
fn a_tool_declared_to_send_out_is_found_with_a_destination_in_its_arguments() {
    let (code, report) = diff("base", "sends_out");
    assert_eq!(code, 1, "{report:#}");
    only_differs(&report, "cancel_order");
    let e = replayed_difference("base", "sends_out", &report, "cancel_order");
    assert_eq!(
        e["old"]["reasons"],
        serde_json::json!(["undeclared_destination"]),
        "{e:#}"
    );
    assert_eq!(e["new"]["reasons"], serde_json::json!(["write"]), "{e:#}");
}

#[test]
fn a_raised_trust_requirement_is_found_with_a_call_that_comes_with_less() {
    let (code, report) = diff("base", "requires");
    assert_eq!(code, 1, "{report:#}");
    only_differs(&report, "charge_card");
    let e = replayed_difference("base", "requires", &report, "charge_card");
    assert_eq!(
        e["call"]["labels"],
        serde_json::json!({"call": ["low"]}),
        "{e:#}"
    );
    assert_eq!(e["old"]["reasons"], serde_json::json!(["write"]), "{e:#}");
    assert_eq!(
        e["new"]["reasons"],
        serde_json::json!(["tainted_call"]),
        "{e:#}"
    );
}

#[test]
fn an_idempotency_key_decides_nothing_so_adding_one_is_no_difference() {
    let (code, report) = diff("base", "idempotent");
    assert_eq!(code, 0, "{report:#}");
    assert_eq!(report["summary"]["same"], 4, "{report:#}");
}

#[test]
fn a_tool_moved_to_another_agent_is_found_for_the_agent_that_lost_it() {
    let (code, report) = diff("base", "moved");
    assert_eq!(code, 1, "{report:#}");
    only_differs(&report, "cancel_order");
    let e = replayed_difference("base", "moved", &report, "cancel_order");
    assert_eq!(e["call"]["agent"], "desk", "{e:#}");
    assert_eq!(e["new"]["reasons"], serde_json::json!(["unknown_tool"]));
    assert_ne!(e["old"]["reasons"], serde_json::json!(["unknown_tool"]));
}

#[test]
fn the_same_rulebook_reformatted_or_rewritten_shows_no_difference() {
    for new in ["reformatted", "colang2", "sheet"] {
        let (code, report) = diff("base", new);
        assert_eq!(code, 0, "{new}: {report:#}");
        for (t, v) in verdicts(&report) {
            assert_eq!(v, "same", "{new}: {t}: {report:#}");
        }
        assert_eq!(report["summary"]["same"], 4, "{new}: {report:#}");
    }
    // And the other way round.
    let (code, _) = diff("sheet", "colang2");
    assert_eq!(code, 0);
}

#[test]
fn the_text_report_says_each_tool_and_the_depth() {
    let tmp = tempfile::tempdir().unwrap();
    let args = |new: &str| {
        vec![
            "diff".to_string(),
            fixture("base").join("agent.yaml").display().to_string(),
            fixture(new).join("agent.yaml").display().to_string(),
            "--depth".to_string(),
            "2".to_string(),
        ]
    };
    let same = args("colang2");
    let out = run(
        tmp.path(),
        &same.iter().map(String::as_str).collect::<Vec<_>>(),
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(
        stdout(&out),
        "cancel_order: no difference up to depth 2\n\
         charge_card: no difference up to depth 2\n\
         get_order: no difference up to depth 2\n\
         refund_card: no difference up to depth 2\n\
         4 tools compared: 0 differ, 0 undecided, 4 with no difference up to depth 2\n"
    );
    let loosened = args("loosened");
    let out = run(
        tmp.path(),
        &loosened.iter().map(String::as_str).collect::<Vec<_>>(),
    );
    assert_eq!(out.status.code(), Some(1));
    let text = stdout(&out);
    assert!(
        text.contains("refund_card: decides differently\n"),
        "{text}"
    );
    assert!(text.contains("  OLD:       confirm (write)"), "{text}");
    assert!(
        text.contains("  NEW:       refuse (refuse large refund)"),
        "{text}"
    );
    assert!(
        text.ends_with(
            "4 tools compared: 1 differ, 0 undecided, 3 with no difference up to depth 2\n"
        ),
        "{text}"
    );
}

#[test]
fn a_widened_pattern_is_found_by_z3_and_what_no_call_shows_is_undecided() {
    // get_order's `order_id` pattern widened from `^A[0-9]+$` to `^[AB][0-9]+$`: z3 finds an order
    // id only the new pattern accepts, and that call decides differently. refund_card's order
    // rule names get_order, but no history tried calls get_order with such an id: refund_card is
    // undecided, never "no difference".
    let (code, report) = diff("pattern_old", "pattern_new");
    assert_eq!(code, 1, "{report:#}");
    assert_eq!(
        verdicts(&report),
        [
            ("cancel_order".to_string(), "same".to_string()),
            ("charge_card".to_string(), "same".to_string()),
            ("get_order".to_string(), "differs".to_string()),
            ("refund_card".to_string(), "undecided".to_string()),
        ]
    );
    let e = replayed_difference("pattern_old", "pattern_new", &report, "get_order");
    let id = e["call"]["arguments"]["order_id"].as_str().unwrap();
    let old = regex_lite::Regex::new("^A[0-9]+$").unwrap();
    let new = regex_lite::Regex::new("^[AB][0-9]+$").unwrap();
    assert!(new.is_match(id) && !old.is_match(id), "{id:?}");
    assert_eq!(
        e["old"]["reasons"],
        serde_json::json!(["argument_schema"]),
        "{e:#}"
    );
    assert_ne!(
        e["new"]["reasons"],
        serde_json::json!(["argument_schema"]),
        "{e:#}"
    );
    let why = tool(&report, "refund_card")["why"].as_str().unwrap();
    assert!(why.contains("up to depth 3"), "{why}");
    assert_eq!(report["summary"]["undecided"], 1);
    assert_eq!(report["summary"]["differ"], 1);
}

#[test]
fn record_folders_compare_as_their_agents_do() {
    let dir = tempfile::tempdir().unwrap();
    for name in ["base", "loosened"] {
        compiled(name, dir.path());
    }
    let out = run(
        dir.path(),
        &["diff", "base", "loosened", "--format", "json"],
    );
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let report: Value = serde_json::from_str(&stdout(&out)).unwrap();
    only_differs(&report, "refund_card");
}

#[test]
fn bad_input_exits_2_with_a_diagnostic() {
    let tmp = tempfile::tempdir().unwrap();
    let base = fixture("base").join("agent.yaml");
    let out = run(
        tmp.path(),
        &["diff", base.to_str().unwrap(), "missing/agent.yaml"],
    );
    assert_eq!(out.status.code(), Some(2));
    assert!(stdout(&out).is_empty());
    assert!(
        stderr(&out).contains("missing/agent.yaml"),
        "{}",
        stderr(&out)
    );
    let broken = tmp.path().join("agent.yaml");
    std::fs::write(
        &broken,
        "agents:\n  desk:\n    tools: [nowhere]\ntools: []\n",
    )
    .unwrap();
    let out = run(
        tmp.path(),
        &["diff", base.to_str().unwrap(), broken.to_str().unwrap()],
    );
    assert_eq!(out.status.code(), Some(2));
    let err = stderr(&out);
    assert!(err.contains("agent.yaml:3:"), "{err}");
    assert!(err.contains("error["), "{err}");
    let empty = tmp.path().join("empty");
    std::fs::create_dir(&empty).unwrap();
    let out = run(
        tmp.path(),
        &["diff", base.to_str().unwrap(), empty.to_str().unwrap()],
    );
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("neither a record folder"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn a_tool_only_in_one_version_differs_for_its_agents() {
    // The base against the base without cancel_order: the new one does not know it.
    let tmp = tempfile::tempdir().unwrap();
    let text = std::fs::read_to_string(fixture("base").join("agent.yaml")).unwrap();
    let dropped = text
        .replace("refund_card, cancel_order]", "refund_card]")
        .replace(
            "  - name: cancel_order\n    effects: changes\n    undo: none\n    arguments:\n      type: object\n      properties:\n        order_id: {type: string}\n      required: [order_id]\n",
            "",
        );
    assert_ne!(dropped, text);
    std::fs::write(tmp.path().join("agent.yaml"), dropped).unwrap();
    let policy = std::fs::read_to_string(fixture("flow_removed").join("policy.co")).unwrap();
    std::fs::write(tmp.path().join("policy.co"), policy).unwrap();
    let out = run(
        tmp.path(),
        &[
            "diff",
            fixture("base").join("agent.yaml").to_str().unwrap(),
            "agent.yaml",
            "--format",
            "json",
        ],
    );
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let report: Value = serde_json::from_str(&stdout(&out)).unwrap();
    let t = tool(&report, "cancel_order");
    assert_eq!(t["in"], "old");
    assert_eq!(
        t["example"]["new"]["reasons"],
        serde_json::json!(["unknown_tool"])
    );
    let _ = Map::<String, Value>::new();
}
