//! Rulebooks as teams bring them: several files, NeMo config folders, subflows and flows in other
//! files, conditions as NeMo writes them. Each case compiles an agent and asks the check, as a
//! user would, through `stalwart compile` and `stalwart check`.

use serde_json::{Value, json};
use stalwart_tests::{run, stderr, stdout};

const LICENCE: &str =
    r#"{"id":"test","key":"KioqKioqKioqKioqKioqKioqKioqKioqKioqKioqKio","expires":"2099-01-01"}"#;

/// Tools: a read that says whether an order may be refunded, the refund, a mail read from outside.
const TOOLS: &str = r#"
tools:
  - name: check_order
    effects: reads
    arguments: {type: object, properties: {order_id: {type: string}}}
    result: {type: object, properties: {blocked: {type: boolean}, reason: {type: string}}}
  - name: refund_card
    effects: changes
    arguments:
      type: object
      properties: {order_id: {type: string}, amount: {type: number}, currency: {type: string}, note: {type: string}}
  - name: read_inbox
    effects: reads
    reads_outside: true
    result: {type: object, properties: {blocked: {type: boolean}}}
"#;

struct Case {
    dir: tempfile::TempDir,
}

impl Case {
    /// An agent `desk` with the tools above and `rulebook: rules` (a folder of `files`).
    fn new(files: &[(&str, &str)]) -> Self {
        let dir = tempfile::tempdir().unwrap();
        let agent = format!(
            "agents:\n  desk:\n    tools: [check_order, refund_card, read_inbox]\n{TOOLS}rulebook: ./rules\n"
        );
        std::fs::write(dir.path().join("agent.yaml"), agent).unwrap();
        for (name, text) in files {
            let path = dir.path().join("rules").join(name);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, text).unwrap();
        }
        Self { dir }
    }

    fn compile(&self) -> std::process::Output {
        run(
            self.dir.path(),
            &["compile", "agent.yaml", "-o", "rec", "--format", "json"],
        )
    }

    /// Compiles (which must succeed) and answers the codes of its warnings, in order.
    fn warnings(&self) -> Vec<String> {
        let out = self.compile();
        assert_eq!(
            out.status.code(),
            Some(0),
            "{}{}",
            stdout(&out),
            stderr(&out)
        );
        std::fs::write(self.dir.path().join("rec/licence.json"), LICENCE).unwrap();
        stdout(&out)
            .lines()
            .filter_map(|l| serde_json::from_str::<Value>(l).ok())
            .filter(|d| d.get("code").is_some())
            .map(|d| {
                format!(
                    "{} {}",
                    d["code"].as_str().unwrap(),
                    d["message"].as_str().unwrap()
                )
            })
            .collect()
    }

    fn check(&self, tool: &str, args: Value, more: &[&str]) -> Value {
        let args = args.to_string();
        let mut all = vec![
            "check",
            "rec",
            "--agent",
            "desk",
            "--tool",
            tool,
            "--args",
            &args,
            "--history",
            "h.json",
        ];
        all.extend_from_slice(more);
        let out = run(self.dir.path(), &all);
        assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
        serde_json::from_str(stdout(&out).trim()).unwrap()
    }

    fn report(&self, step: u32, result: &str) {
        let step = step.to_string();
        let out = run(
            self.dir.path(),
            &[
                "report",
                "rec",
                "--history",
                "h.json",
                "--step",
                &step,
                "--outcome",
                "ran",
                "--result",
                result,
            ],
        );
        assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    }
}

fn verdict(a: &Value) -> String {
    format!(
        "{} {}",
        a["decision"].as_str().unwrap(),
        a["reasons"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| r.as_str().unwrap())
            .collect::<Vec<_>>()
            .join(",")
    )
}

const REFUND: &[&str] = &["--origins", r#"{"order_id": "typed", "amount": "typed"}"#];

#[test]
fn a_subflow_in_another_file_is_governed_with_its_callers_intent() {
    let case = Case::new(&[
        ("config.yml", "colang_version: \"1.0\"\n"),
        (
            "main.co",
            "define user ask refund\n  \"refund order 4411\"\n\ndefine flow refunds\n  user ask refund\n  do pay back\n",
        ),
        (
            "rails/money.co",
            "define subflow pay back\n  if $order_paid\n    execute refund_card\n  else\n    bot refuse to respond\n",
        ),
    ]);
    // `bot refuse to respond` is the standard library's: no undefined message.
    assert_eq!(case.warnings(), Vec::<String>::new());
    let args = json!({"order_id": "4411", "amount": 40});
    let paid = case.check(
        "refund_card",
        args.clone(),
        &[
            REFUND,
            &[
                "--turn",
                "refund order 4411 40",
                "--intent",
                "ask refund",
                "--context",
                r#"{"order_paid": true}"#,
            ],
        ]
        .concat(),
    );
    assert_eq!(verdict(&paid), "confirm write");
    let unpaid = case.check(
        "refund_card",
        args.clone(),
        &[REFUND, &["--intent", "ask refund"]].concat(),
    );
    assert_eq!(verdict(&unpaid), "refuse refuse to respond");
    assert_eq!(unpaid["detail"]["flow"], "refunds");
    let no_intent = case.check("refund_card", args, REFUND);
    assert_eq!(verdict(&no_intent), "refuse no_flow");
}

#[test]
fn a_tool_only_a_flow_that_never_acts_calls_is_named_and_not_governed() {
    let case = Case::new(&[(
        "main.co",
        "define flow refunds\n  user ask refund\n  execute check_order\n\ndefine subflow forgotten\n  execute refund_card\n",
    )]);
    let warnings = case.warnings();
    assert_eq!(
        warnings,
        ["W1613 the rulebook names `refund_card` but does not govern it"]
    );
    // Not governed: the gate lets it through, and the rest of the check decides.
    let a = case.check("refund_card", json!({"order_id": "1", "amount": 5}), REFUND);
    assert_eq!(verdict(&a), "confirm argument_origin");
}

#[test]
fn in_2x_main_decides_which_flows_act_across_files() {
    let case = Case::new(&[
        ("config.yml", "colang_version: \"2.x\"\n"),
        ("main.co", "import core\n\nflow main\n  activate refunds\n"),
        (
            "refunds.co",
            "flow refunds\n  user said \"refund my order\"\n  await RefundCardAction(order_id=\"1\")\n\nflow never run\n  await CheckOrderAction()\n",
        ),
    ]);
    let warnings = case.warnings();
    assert_eq!(
        warnings,
        ["W1613 the rulebook names `check_order` but does not govern it"]
    );
    // `refunds` acts (main activates it): the refund is governed by it, behind its intent.
    let a = case.check("refund_card", json!({"order_id": "1", "amount": 5}), REFUND);
    assert_eq!(verdict(&a), "refuse no_flow");
    assert_eq!(a["detail"]["flows"], json!(["refunds"]));
}

#[test]
fn a_tools_result_decides_the_path_as_nemo_writes_it() {
    let case = Case::new(&[(
        "main.co",
        "define flow refunds\n  $response = execute check_order\n  if $response.blocked\n    bot refuse to respond\n    stop\n  execute refund_card\n",
    )]);
    assert_eq!(case.warnings(), Vec::<String>::new());
    let args = json!({"order_id": "7", "amount": 5});
    // Before check_order answered, `$response.blocked` is null: false.
    assert_eq!(
        verdict(&case.check("refund_card", args.clone(), REFUND)),
        "confirm argument_origin"
    );
    let c = case.check("check_order", json!({"order_id": "7"}), &[]);
    assert_eq!(verdict(&c), "allow allow");
    let step = c["idempotency_key"].is_string();
    assert!(step);
    case.report(2, r#"{"blocked": true, "reason": "chargeback"}"#);
    assert_eq!(
        verdict(&case.check("refund_card", args.clone(), REFUND)),
        "refuse refuse to respond"
    );
    case.check("check_order", json!({"order_id": "7"}), &[]);
    case.report(4, r#"{"blocked": false}"#);
    assert_eq!(
        verdict(&case.check("refund_card", args, REFUND)),
        "confirm argument_origin"
    );
}

#[test]
fn what_the_check_never_has_makes_a_path_possibly_taken() {
    let case = Case::new(&[(
        "main.co",
        "define flow refunds\n  user ask refund\n  if \"urgent\" in $user_message\n    execute refund_card\n  else\n    bot refuse to respond\n\ndefine flow inbox\n  user ask mail\n  $mail = execute read_inbox\n  if $mail.blocked\n    bot refuse to respond\n  else\n    execute refund_card\n",
    )]);
    let warnings = case.warnings();
    assert_eq!(
        warnings,
        [
            "W1609 the check cannot evaluate this: `$user_message` is kept by NeMo Guardrails' runtime, and the check never has it",
        ]
    );
    let args = json!({"order_id": "1", "amount": 5});
    // The call on the possibly-taken path never passes; the refusal on the other side applies.
    let a = case.check(
        "refund_card",
        args.clone(),
        &[REFUND, &["--intent", "ask refund"]].concat(),
    );
    assert_eq!(verdict(&a), "refuse refuse to respond");
    // A reads_outside tool's result is never read: `$mail.blocked` is null, so false.
    let b = case.check(
        "refund_card",
        args,
        &[REFUND, &["--intent", "ask mail"]].concat(),
    );
    assert_eq!(verdict(&b), "confirm argument_origin");
}

#[test]
fn conditions_read_the_config_lists_in_is_none_and_len() {
    let case = Case::new(&[
        (
            "config.yml",
            "colang_version: \"1.0\"\nenable_rails_exceptions: true\ncustom_data:\n  currencies: [EUR, USD]\n",
        ),
        (
            "main.co",
            "define flow refunds\n  user ask refund\n  if $config.enable_rails_exceptions and $args.currency not in $config.custom_data.currencies\n    bot refuse unknown currency\n  else if $args.note is not None and len($args.note) > 10\n    bot refuse long note\n  else if $args.currency.lower() == \"usd\"\n    bot ask confirm dollars\n  else\n    execute refund_card\n\ndefine bot refuse unknown currency\n  \"We refund in euros or dollars.\"\n\ndefine bot refuse long note\n  \"Keep the note short.\"\n\ndefine bot ask confirm dollars\n  \"Refund in dollars?\"\n",
        ),
    ]);
    assert_eq!(case.warnings(), Vec::<String>::new());
    let go = |args: Value| {
        verdict(&case.check(
            "refund_card",
            args,
            &[
                "--intent",
                "ask refund",
                "--origins",
                r#"{"order_id": "typed", "amount": "typed", "currency": "typed", "note": "typed"}"#,
            ],
        ))
    };
    assert_eq!(
        go(json!({"order_id": "1", "amount": 5, "currency": "GBP"})),
        "refuse refuse unknown currency"
    );
    assert_eq!(
        go(json!({"order_id": "1", "amount": 5, "currency": "EUR", "note": "a very long note"})),
        "refuse refuse long note"
    );
    assert_eq!(
        go(json!({"order_id": "1", "amount": 5, "currency": "USD"})),
        "confirm gate_clarify,argument_origin"
    );
    assert_eq!(
        go(json!({"order_id": "1", "amount": 5, "currency": "EUR", "note": "ok"})),
        "confirm argument_origin"
    );
}
