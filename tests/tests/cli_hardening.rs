//! The check's promises under attack, driven as a user drives them: `stalwart check` and
//! `stalwart report` on history files (DESIGN §5.3, §5.5, §5.9; spec ch45 "What is guaranteed").
//! Each test is an attack that once got an allow, or lost a session, and must not any more.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Output, Stdio};

use serde_json::{Value, json};
use stalwart_tests::{command, run, stderr, stdout};

/// A desk with a read that may run once, a read with no limit, a write and its undo.
const LEDGER: &str = r#"
agents:
  clerk:
    tools: [look, peek, pay, refund]
tools:
  - name: look
    effects: reads
    arguments: {type: object, properties: {id: {type: string}}}
    at_most: 1
  - name: peek
    effects: reads
    arguments: {type: object, properties: {id: {type: string}, note: {}}}
    result: {type: object, properties: {id: {type: string}}}
  - name: pay
    effects: changes
    arguments: {type: object, properties: {id: {type: string}, amount: {type: number}}}
    undo: {tool: refund, bind: {id: id, amount: amount}}
  - name: refund
    effects: changes
    arguments: {type: object, properties: {id: {type: string}, amount: {type: number}}}
    undo: none
"#;

const LICENCE: &str =
    r#"{"id":"test","key":"KioqKioqKioqKioqKioqKioqKioqKioqKioqKioqKio","expires":"2099-01-01"}"#;

struct Desk {
    dir: tempfile::TempDir,
}

impl Desk {
    /// The ledger compiled into `rec/`, signed with the test licence.
    fn new() -> Self {
        let desk = Self {
            dir: tempfile::tempdir().unwrap(),
        };
        desk.compile("rec", LEDGER);
        desk
    }

    fn path(&self, name: &str) -> PathBuf {
        self.dir.path().join(name)
    }

    /// Compiles `yaml` as an agent into the record folder `out`, with the test licence beside it.
    fn compile(&self, out: &str, yaml: &str) {
        let src = self.path(&format!("{out}-src"));
        std::fs::create_dir_all(&src).unwrap();
        std::fs::write(src.join("agent.yaml"), yaml).unwrap();
        let agent = src.join("agent.yaml");
        let compiled = self.stalwart(&["compile", agent.to_str().unwrap(), "-o", out]);
        assert_eq!(compiled.status.code(), Some(0), "{}", stderr(&compiled));
        std::fs::write(self.path(out).join("licence.json"), LICENCE).unwrap();
    }

    fn stalwart(&self, args: &[&str]) -> Output {
        run(self.dir.path(), args)
    }

    /// `stalwart check rec --agent clerk --tool TOOL --args ARGS --history h.json` and more.
    fn check(&self, tool: &str, args: Value, more: &[&str]) -> Value {
        answer(&self.check_raw("rec", tool, &args.to_string(), more))
    }

    fn check_raw(&self, rec: &str, tool: &str, args: &str, more: &[&str]) -> Output {
        let mut all = vec![
            "check",
            rec,
            "--agent",
            "clerk",
            "--tool",
            tool,
            "--args",
            args,
            "--history",
            "h.json",
        ];
        all.extend_from_slice(more);
        self.stalwart(&all)
    }

    fn report(&self, step: u32, outcome: &str, result: Option<&str>) -> Output {
        let step = step.to_string();
        let mut all = vec![
            "report",
            "rec",
            "--history",
            "h.json",
            "--step",
            &step,
            "--outcome",
            outcome,
        ];
        if let Some(r) = result {
            all.extend(["--result", r]);
        }
        self.stalwart(&all)
    }

    fn history(&self) -> Value {
        serde_json::from_str(&std::fs::read_to_string(self.path("h.json")).unwrap()).unwrap()
    }

    fn history_bytes(&self) -> Vec<u8> {
        std::fs::read(self.path("h.json")).unwrap()
    }

    fn set_history(&self, value: &Value) {
        std::fs::write(self.path("h.json"), value.to_string()).unwrap();
    }

    /// A paid `pay` confirmed and allowed with its token: the history then holds the confirm at
    /// step 1 and the allow at step 2; returns the token and the history as it stood at the
    /// confirm.
    fn confirmed_payment(&self) -> (String, Value) {
        let asked = self.check(
            "pay",
            json!({"id": "A1", "amount": 40}),
            &["--turn", "pay A1 40", "--origins", TYPED],
        );
        assert_eq!(asked["decision"], "confirm", "{asked}");
        let token = asked["confirmation"].as_str().unwrap().to_string();
        let at_confirm = self.history();
        let allowed = self.check(
            "pay",
            json!({"id": "A1", "amount": 40}),
            &["--origins", TYPED, "--confirmation", &token],
        );
        assert_eq!(allowed["reasons"], json!(["confirmed"]), "{allowed}");
        (token, at_confirm)
    }
}

const TYPED: &str = r#"{"id": "typed", "amount": "typed"}"#;

fn answer(out: &Output) -> Value {
    assert_eq!(out.status.code(), Some(0), "stderr: {}", stderr(out));
    serde_json::from_str(stdout(out).trim()).expect("the answer is one JSON object")
}

/// Bad input: exit 2, the code on stderr, nothing on stdout.
fn refused_as(out: &Output, code: &str) -> String {
    let err = stderr(out);
    assert_eq!(
        out.status.code(),
        Some(2),
        "stdout: {} stderr: {err}",
        stdout(out)
    );
    assert!(err.starts_with(&format!("error[{code}]: ")), "{err}");
    assert_eq!(stdout(out), "");
    err
}

fn reasons(a: &Value) -> Vec<String> {
    a["reasons"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r.as_str().unwrap().to_string())
        .collect()
}

// 1. Histories and tokens are bound to the record and the agent.

#[test]
fn a_history_from_another_record_under_the_same_key_is_history_invalid() {
    let desk = Desk::new();
    // The same agent and key, a record whose catalogue differs by one limit.
    desk.compile("other", &LEDGER.replace("at_most: 1", "at_most: 2"));
    desk.confirmed_payment();
    assert_eq!(desk.report(2, "ran", None).status.code(), Some(0));
    let moved = answer(&desk.check_raw(
        "other",
        "refund",
        &json!({"id": "A1", "amount": 40}).to_string(),
        &["--undoes", "2", "--origins", TYPED],
    ));
    assert_eq!(moved["decision"], "refuse");
    assert_eq!(reasons(&moved), ["history_invalid"]);
    // Under its own record the same history would have allowed the undo without a person.
    let desk = Desk::new();
    desk.confirmed_payment();
    desk.report(2, "ran", None);
    let own = desk.check(
        "refund",
        json!({"id": "A1", "amount": 40}),
        &["--undoes", "2", "--origins", TYPED],
    );
    assert_eq!(reasons(&own), ["compensation"]);
}

#[test]
fn the_user_key_made_on_first_use_serves_every_record_without_mixing_them() {
    let desk = Desk::new();
    desk.compile("other", &LEDGER.replace("at_most: 1", "at_most: 2"));
    for rec in ["rec", "other"] {
        std::fs::remove_file(desk.path(rec).join("licence.json")).unwrap();
    }
    let config = desk.path("config");
    let check = |rec: &str| {
        let mut cmd = command(
            desk.dir.path(),
            &[
                "check",
                rec,
                "--agent",
                "clerk",
                "--tool",
                "look",
                "--args",
                "{}",
                "--history",
                "h.json",
            ],
        );
        answer(&cmd.env("XDG_CONFIG_HOME", &config).output().unwrap())
    };
    assert_eq!(reasons(&check("rec")), ["allow"]);
    assert_eq!(reasons(&check("other")), ["history_invalid"]);
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = |p: &Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode(&config.join("stalwart")), 0o700);
        assert_eq!(mode(&config.join("stalwart").join("licence.json")), 0o600);
        assert_eq!(mode(&desk.path(".state")), 0o700);
        assert_eq!(mode(&desk.path("h.json")), 0o600);
    }
}

// 2. A history cut back is behind its anchor.

#[test]
fn a_history_cut_back_to_a_confirm_is_refused_and_its_token_covers_nothing() {
    let desk = Desk::new();
    let (token, at_confirm) = desk.confirmed_payment();
    assert_eq!(desk.report(2, "ran", None).status.code(), Some(0));
    let old_id = desk.history()["id"].clone();
    // The attacker puts back the history as it stood when the person was asked.
    desk.set_history(&at_confirm);
    let replay = desk.check(
        "pay",
        json!({"id": "A1", "amount": 40}),
        &["--origins", TYPED, "--confirmation", &token],
    );
    assert_eq!(replay["decision"], "refuse");
    assert_eq!(reasons(&replay), ["history_invalid"]);
    let fresh = desk.history();
    assert_eq!(fresh["entries"], json!([]));
    assert_ne!(
        fresh["id"], old_id,
        "the session starts again under a new id"
    );
    assert_ne!(fresh["id"], json!(""));
}

#[test]
fn at_most_is_not_reset_by_cutting_the_history() {
    let desk = Desk::new();
    desk.check("peek", json!({}), &[]);
    let before = desk.history_bytes();
    assert_eq!(reasons(&desk.check("look", json!({}), &[])), ["allow"]);
    assert_eq!(reasons(&desk.check("look", json!({}), &[])), ["order_rule"]);
    std::fs::write(desk.path("h.json"), &before).unwrap();
    assert_eq!(
        reasons(&desk.check("look", json!({}), &[])),
        ["history_invalid"]
    );
}

#[test]
fn a_copy_that_grew_apart_from_its_session_is_refused() {
    let desk = Desk::new();
    desk.check("peek", json!({}), &[]);
    std::fs::copy(desk.path("h.json"), desk.path("copy.json")).unwrap();
    desk.check("peek", json!({}), &[]);
    // Both files hold the session; the copy is one entry behind, then grows its own branch.
    let branch = desk.stalwart(&[
        "check",
        "rec",
        "--agent",
        "clerk",
        "--tool",
        "look",
        "--args",
        "{}",
        "--history",
        "copy.json",
        "--turn",
        "hello",
    ]);
    assert_eq!(reasons(&answer(&branch)), ["history_invalid"]);
    assert_eq!(reasons(&desk.check("look", json!({}), &[])), ["allow"]);
}

// 3. Concurrent checks of one session run one after another.

#[test]
fn concurrent_checks_of_one_session_pass_at_most_once() {
    for round in 0..3 {
        let desk = Desk::new();
        let procs = if round == 0 { 2 } else { 8 };
        let children: Vec<_> = (0..procs)
            .map(|_| {
                command(
                    desk.dir.path(),
                    &[
                        "check",
                        "rec",
                        "--agent",
                        "clerk",
                        "--tool",
                        "look",
                        "--args",
                        "{}",
                        "--history",
                        "h.json",
                    ],
                )
                .stdout(Stdio::piped())
                .stderr(Stdio::piped())
                .spawn()
                .unwrap()
            })
            .collect();
        let answers: Vec<Value> = children
            .into_iter()
            .map(|c| answer(&c.wait_with_output().unwrap()))
            .collect();
        let allowed = answers.iter().filter(|a| a["decision"] == "allow").count();
        assert_eq!(allowed, 1, "round {round}: {answers:?}");
        let refused = answers
            .iter()
            .filter(|a| a["detail"]["rule"] == "at_most 1")
            .count();
        assert_eq!(refused, procs - 1, "{answers:?}");
        let entries = desk.history()["entries"].as_array().unwrap().len();
        assert_eq!(entries, procs, "every check's entry is kept");
        assert_eq!(reasons(&desk.check("peek", json!({}), &[])), ["allow"]);
    }
}

#[test]
fn concurrent_reports_lose_no_entry() {
    let desk = Desk::new();
    for _ in 0..6 {
        assert_eq!(reasons(&desk.check("peek", json!({}), &[])), ["allow"]);
    }
    let children: Vec<_> = (1..=6)
        .map(|step| {
            command(
                desk.dir.path(),
                &[
                    "report",
                    "rec",
                    "--history",
                    "h.json",
                    "--step",
                    &step.to_string(),
                    "--outcome",
                    "ran",
                ],
            )
            .stderr(Stdio::piped())
            .spawn()
            .unwrap()
        })
        .collect();
    for c in children {
        let out = c.wait_with_output().unwrap();
        assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    }
    let mut steps: Vec<u64> = desk.history()["entries"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e["kind"] == "outcome")
        .map(|e| e["step"].as_u64().unwrap())
        .collect();
    steps.sort_unstable();
    assert_eq!(steps, [1, 2, 3, 4, 5, 6]);
    assert_eq!(reasons(&desk.check("peek", json!({}), &[])), ["allow"]);
}

// 5. A token covers its call only while the confirm is the newest entry.

#[test]
fn a_turn_after_the_confirm_ends_its_token() {
    let desk = Desk::new();
    let asked = desk.check(
        "pay",
        json!({"id": "A1", "amount": 40}),
        &["--turn", "pay A1 40", "--origins", TYPED],
    );
    let token = asked["confirmation"].as_str().unwrap();
    let after_no = desk.check(
        "pay",
        json!({"id": "A1", "amount": 40}),
        &[
            "--turn",
            "no, cancel",
            "--origins",
            TYPED,
            "--confirmation",
            token,
        ],
    );
    assert_eq!(after_no["decision"], "confirm", "{after_no}");
    // A report after the confirm ends it too.
    let asked = desk.check(
        "pay",
        json!({"id": "A1", "amount": 40}),
        &["--origins", TYPED],
    );
    let token = asked["confirmation"].as_str().unwrap().to_string();
    desk.check("peek", json!({}), &[]);
    let after_call = desk.check(
        "pay",
        json!({"id": "A1", "amount": 40}),
        &["--origins", TYPED, "--confirmation", &token],
    );
    assert_eq!(after_call["decision"], "confirm");
}

// 6. A reported null reads back as null.

#[test]
fn a_null_result_is_kept_and_the_session_goes_on() {
    let desk = Desk::new();
    desk.check("peek", json!({}), &[]);
    let out = desk.report(1, "ran", Some("null"));
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let outcome = desk.history()["entries"][1].clone();
    assert_eq!(outcome["result"], Value::Null);
    assert!(outcome.as_object().unwrap().contains_key("result"));
    assert_eq!(reasons(&desk.check("peek", json!({}), &[])), ["allow"]);
    assert_eq!(desk.history()["entries"].as_array().unwrap().len(), 3);
}

// 7. Nesting is limited at intake, so what is written is always read back.

/// `levels` arrays, one inside the other, around `1`.
fn nested(levels: usize) -> String {
    format!("{}1{}", "[".repeat(levels), "]".repeat(levels))
}

#[test]
fn values_nested_past_the_limit_are_refused_and_the_history_stays_readable() {
    let desk = Desk::new();
    desk.check("peek", json!({}), &[]);
    let before = desk.history_bytes();
    // The arguments object is level 1: 64 levels in all are read, 65 are not.
    let at_limit = format!(r#"{{"note": {}}}"#, nested(63));
    let accepted = answer(&desk.check_raw("rec", "peek", &at_limit, &[]));
    assert_eq!(accepted["decision"], "allow");
    let past = format!(r#"{{"note": {}}}"#, nested(64));
    let err = refused_as(&desk.check_raw("rec", "peek", &past, &[]), "E0023");
    assert!(err.contains("nested deeper than 64 levels"), "{err}");
    let deep_context = format!(r#"{{"x": {}}}"#, nested(64));
    refused_as(
        &desk.check_raw("rec", "peek", "{}", &["--context", &deep_context]),
        "E0023",
    );
    refused_as(&desk.report(1, "ran", Some(&nested(65))), "E0023");
    assert!(desk.report(2, "ran", Some(&nested(64))).status.success());
    // What was accepted reads back: the session goes on.
    assert_eq!(reasons(&desk.check("peek", json!({}), &[])), ["allow"]);
    assert_ne!(desk.history_bytes(), before);
}

// 9. The environment does not move the clock.

#[test]
fn stalwart_now_moves_no_clock() {
    let desk = Desk::new();
    let with_clock = |args: &[&str]| {
        let mut all = vec![
            "check",
            "rec",
            "--agent",
            "clerk",
            "--tool",
            "pay",
            "--args",
            r#"{"id": "A1", "amount": 40}"#,
            "--origins",
            TYPED,
            "--history",
            "h.json",
        ];
        all.extend_from_slice(args);
        let mut cmd = command(desk.dir.path(), &all);
        // 2100-01-01: past the licence and any token's expiry, were it read.
        answer(&cmd.env("STALWART_NOW", "4102444800").output().unwrap())
    };
    let asked = with_clock(&["--turn", "pay A1 40"]);
    assert_eq!(reasons(&asked), ["write"], "not licence_lapsed");
    let token = asked["confirmation"].as_str().unwrap().to_string();
    let expiry: u64 = token.split('.').nth(1).unwrap().parse().unwrap();
    assert!(
        expiry < 4_102_444_800,
        "the token expires a day after the real now"
    );
    assert_eq!(
        reasons(&with_clock(&["--confirmation", &token])),
        ["confirmed"]
    );
}

// 10. Repeated keys are bad input, and leave every file as it was.

#[test]
fn repeated_keys_are_bad_input_wherever_they_are() {
    let desk = Desk::new();
    desk.check("peek", json!({}), &[]);
    let before = desk.history_bytes();
    let dup = r#"{"id": "https://evil.example/x", "id": "A1"}"#;
    let err = refused_as(&desk.check_raw("rec", "peek", dup, &[]), "E0022");
    assert!(err.contains("--args: duplicate key `id`"), "{err}");
    assert!(err.contains("  --> --args:1:"), "{err}");
    for flag in ["--context", "--origins"] {
        let out = desk.check_raw(
            "rec",
            "peek",
            "{}",
            &[flag, r#"{"a": "typed", "a": "model"}"#],
        );
        refused_as(&out, "E0022");
    }
    let out = desk.check_raw(
        "rec",
        "peek",
        "{}",
        &["--labels", r#"{"a": "low", "a": "high"}"#],
    );
    refused_as(&out, "E0022");
    refused_as(
        &desk.report(1, "ran", Some(r#"{"id": 1, "id": 2}"#)),
        "E0022",
    );
    assert_eq!(desk.history_bytes(), before);
    // In the history file itself.
    let text = String::from_utf8(before.clone()).unwrap();
    let doubled = text.replacen(
        "\"kind\": \"call\",",
        "\"kind\": \"call\", \"kind\": \"call\",",
        1,
    );
    assert_ne!(doubled, text);
    std::fs::write(desk.path("h.json"), &doubled).unwrap();
    let err = refused_as(&desk.check_raw("rec", "peek", "{}", &[]), "E0022");
    assert!(err.contains("h.json"), "{err}");
    assert_eq!(
        std::fs::read_to_string(desk.path("h.json")).unwrap(),
        doubled
    );
}

// 11. Unknown labels are bad input naming the label.

#[test]
fn unknown_labels_are_bad_input_naming_them() {
    let desk = Desk::new();
    for (labels, named) in [
        (r#"{"call": ["Untrusted:x"]}"#, "`Untrusted:x`"),
        (r#"{"amount": "agent:Clerk"}"#, "`agent:Clerk`"),
        (r#"{"id": ["low", "trusted"]}"#, "`trusted`"),
    ] {
        let out = desk.check_raw("rec", "peek", "{}", &["--labels", labels]);
        let err = refused_as(&out, "E0025");
        assert!(err.contains(named), "{err}");
        assert!(err.contains("(clerk)"), "names the record's agents: {err}");
    }
    let known = desk.check_raw(
        "rec",
        "peek",
        "{}",
        &[
            "--labels",
            r#"{"call": ["untrusted:mail", "agent:clerk", "high"]}"#,
        ],
    );
    assert_eq!(reasons(&answer(&known)), ["allow"]);
}

// 12. Typed numbers are whole written values at word boundaries.

#[test]
fn numbers_inside_words_dates_and_groups_are_not_typed() {
    for (turn, amount, expected) in [
        ("card visa40", json!(40), "argument_origin"),
        ("on 2026-12-01", json!(-12), "argument_origin"),
        ("on 2026-12-01", json!(12), "argument_origin"),
        ("refund 4,411", json!(411), "argument_origin"),
        ("refund 4,411", json!(4411), "write"),
        ("pay 40.00 for A1", json!(40), "write"),
        ("pay 1,234.50", json!(1234.5), "write"),
        ("pay 40kg", json!(40), "argument_origin"),
    ] {
        let desk = Desk::new();
        let a = desk.check(
            "pay",
            json!({"id": "A1", "amount": amount}),
            &[
                "--turn",
                turn,
                "--origins",
                r#"{"amount": "typed", "id": "context"}"#,
            ],
        );
        assert_eq!(reasons(&a), [expected], "{turn} / {amount}: {a}");
    }
}

// 13. An edited agent or a missing id is history_invalid, and a fresh id is random.

#[test]
fn an_edited_agent_is_history_invalid_and_not_echoed() {
    let desk = Desk::new();
    desk.check("peek", json!({}), &[]);
    let mut h = desk.history();
    h["agent"] = json!("<b>mallory</b>");
    desk.set_history(&h);
    let out = desk.check_raw("rec", "peek", "{}", &[]);
    assert_eq!(reasons(&answer(&out)), ["history_invalid"]);
    assert!(!stderr(&out).contains("mallory"), "{}", stderr(&out));
    assert!(!stdout(&out).contains("mallory"));
    let fresh = desk.history();
    assert_eq!(fresh["agent"], "clerk");
    assert_ne!(fresh["id"], h["id"]);

    let mut h = desk.history();
    h.as_object_mut().unwrap().remove("id");
    desk.set_history(&h);
    assert_eq!(
        reasons(&answer(&desk.check_raw("rec", "peek", "{}", &[]))),
        ["history_invalid"]
    );
    let id = desk.history()["id"].as_str().unwrap().to_string();
    assert_eq!(id.len(), 22, "16 random bytes, base64url: {id}");
}

// 14. A failed undo may be sent again, until one ran.

#[test]
fn a_failed_undo_is_retried_until_one_runs() {
    let desk = Desk::new();
    desk.confirmed_payment();
    assert!(desk.report(2, "ran", None).status.success());
    let undo = |d: &Desk| {
        d.check(
            "refund",
            json!({"id": "A1", "amount": 40}),
            &["--undoes", "2", "--origins", TYPED],
        )
    };
    assert_eq!(reasons(&undo(&desk)), ["compensation"]);
    assert!(desk.report(3, "failed", None).status.success());
    assert_eq!(
        reasons(&undo(&desk)),
        ["compensation"],
        "the failed undo may be retried"
    );
    // Not reported yet: it may be running, so a third is refused.
    assert_eq!(reasons(&undo(&desk)), ["compensation_spent"]);
    assert!(desk.report(4, "ran", None).status.success());
    assert_eq!(reasons(&undo(&desk)), ["compensation_spent"]);
}

// 15. Large calls come from files or standard input; every error carries a code.

#[test]
fn arguments_come_from_a_file_or_standard_input() {
    let desk = Desk::new();
    let big = json!({"id": "A1", "note": "x".repeat(300_000)});
    std::fs::write(desk.path("args.json"), big.to_string()).unwrap();
    let from_file = answer(&desk.check_raw("rec", "peek", "@args.json", &[]));
    assert_eq!(reasons(&from_file), ["allow"]);
    let mut child = command(
        desk.dir.path(),
        &[
            "check",
            "rec",
            "--agent",
            "clerk",
            "--tool",
            "peek",
            "--args",
            "-",
            "--context",
            r#"{"a": 1}"#,
            "--history",
            "h.json",
        ],
    )
    .stdin(Stdio::piped())
    .stdout(Stdio::piped())
    .stderr(Stdio::piped())
    .spawn()
    .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(big.to_string().as_bytes())
        .unwrap();
    assert_eq!(
        reasons(&answer(&child.wait_with_output().unwrap())),
        ["allow"]
    );
    let twice = desk.check_raw("rec", "peek", "-", &["--context", "-"]);
    refused_as(&twice, "E0033");
    let missing = desk.check_raw("rec", "peek", "@nowhere.json", &[]);
    let err = refused_as(&missing, "E0020");
    assert!(err.contains("nowhere.json"), "{err}");
    let not_object = desk.check_raw("rec", "peek", "[1]", &[]);
    refused_as(&not_object, "E0024");
    let not_json = desk.check_raw("rec", "peek", "{", &[]);
    let err = refused_as(&not_json, "E0021");
    assert!(err.contains("  --> --args:1:"), "{err}");
    let outcome = desk.report(1, "exploded", None);
    refused_as(&outcome, "E0032");
}

#[test]
fn a_damaged_record_is_reported_in_words() {
    let desk = Desk::new();
    let bin = desk.path("rec").join("record.bin");
    let mut bytes = std::fs::read(&bin).unwrap();
    let last = bytes.len() - 1;
    bytes[last] ^= 0xFF;
    std::fs::write(&bin, &bytes).unwrap();
    let err = refused_as(&desk.check_raw("rec", "peek", "{}", &[]), "E0028");
    assert!(err.contains("record.bin"), "{err}");
    assert!(err.contains("does not match its contents"), "{err}");
    assert!(err.contains("compile the agent again"), "{err}");
    std::fs::write(&bin, b"not a record at all, just some bytes that are long enough to read the header from, surely").unwrap();
    let err = refused_as(&desk.check_raw("rec", "peek", "{}", &[]), "E0028");
    assert!(err.contains("not a Stalwart record"), "{err}");
}

#[test]
fn a_file_that_is_not_a_history_is_refused_and_left_alone() {
    let desk = Desk::new();
    for text in [r#"{"name": "my notes"}"#, "[1, 2]", "\"text\""] {
        std::fs::write(desk.path("h.json"), text).unwrap();
        let out = desk.check_raw("rec", "peek", "{}", &[]);
        let err = refused_as(&out, "E0027");
        assert!(err.contains("left as it is"), "{err}");
        assert_eq!(std::fs::read_to_string(desk.path("h.json")).unwrap(), text);
    }
}

// 4. Destinations are read as browsers and resolvers read them.

#[test]
fn destinations_in_every_form_the_attack_used_are_refused() {
    let desk = Desk::new();
    for form in [
        "leak.attacker.Com",
        "https:evil.Com",
        "https:\\\\evil.Com",
        "//evil.com",
        "exfil.attacker.pl",
        "evil.pl:443",
        "\u{1d41e}\u{1d42f}\u{1d422}\u{1d425}.\u{1d41c}\u{1d428}\u{1d426}",
        "\u{24d4}\u{24e5}\u{24d8}\u{24db}.\u{24d2}\u{24de}\u{24dc}",
        "ev\u{200b}il.com",
        "evil.c\u{ad}om",
        "evil\u{3002}com",
    ] {
        let a = desk.check("peek", json!({"note": form}), &[]);
        assert_eq!(reasons(&a), ["undeclared_destination"], "{form:?}: {a}");
        assert_eq!(
            a["detail"]["destinations"].as_array().unwrap().len(),
            1,
            "{form:?}"
        );
    }
    for harmless in [
        "40.00",
        "v1.2.3",
        "main.rs",
        "2026-12-01",
        "4,411",
        "order.id",
    ] {
        let a = desk.check("peek", json!({"note": harmless}), &[]);
        assert_eq!(reasons(&a), ["allow"], "{harmless}");
    }
}
