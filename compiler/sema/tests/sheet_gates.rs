//! Rule sheets lowered to the gate: every row one `GateRule` in file order, the rule names
//! governing each tool, and the sheet's default.

#![allow(
    clippy::unwrap_used,
    clippy::panic,
    clippy::indexing_slicing,
    clippy::string_slice
)]

use std::collections::BTreeMap;

use stalwart_diagnostics::{FileId, Span};
use stalwart_sema::model::paths::{Action, Default as GateDefault, GateRule};
use stalwart_sema::model::sheet_gates;
use stalwart_sema::sheet::parse_sheet;

/// A rule as plain strings: tool, flow, intent, conditions, action, the row's text.
fn show(
    text: &str,
    rule: &GateRule,
) -> (String, String, Option<String>, Vec<String>, Action, String) {
    (
        rule.tool.clone(),
        rule.flow.clone(),
        rule.intent.clone(),
        rule.conditions
            .iter()
            .map(|(c, negated)| format!("{}{}", if *negated { "!" } else { "" }, c.to_sexp()))
            .collect(),
        rule.action.clone(),
        text[rule.span.range()].to_string(),
    )
}

const DESIGN: &str = "rule,tool,when,then,say\n\
    refunds,refund_card,$order_paid,allow,\n\
    refunds,refund_card,not $order_paid,refuse,refuse\n\
    large,refund_card,$args.amount > 500,ask,Is a refund over 500 meant?\n";

#[test]
fn design_example_lowers_to_one_rule_a_row() {
    let sheet = parse_sheet(FileId(0), "rules.csv", DESIGN);
    assert_eq!(sheet.diagnostics, vec![]);
    let gates = sheet_gates_of(&sheet.value);
    let rules: Vec<_> = gates.rules.iter().map(|r| show(DESIGN, r)).collect();
    assert_eq!(
        rules,
        vec![
            (
                "refund_card".into(),
                "refunds".into(),
                None,
                vec!["$order_paid".into()],
                Action::Allow,
                "refunds,refund_card,$order_paid,allow,".into()
            ),
            (
                "refund_card".into(),
                "refunds".into(),
                None,
                vec!["(not $order_paid)".into()],
                Action::Refuse("refuse".into()),
                "refunds,refund_card,not $order_paid,refuse,refuse".into()
            ),
            (
                "refund_card".into(),
                "large".into(),
                None,
                vec!["($args.amount > 500)".into()],
                Action::Ask("Is a refund over 500 meant?".into()),
                "large,refund_card,$args.amount > 500,ask,Is a refund over 500 meant?".into()
            ),
        ]
    );
    let governing: BTreeMap<String, Vec<String>> = [(
        "refund_card".to_string(),
        vec!["refunds".to_string(), "large".to_string()],
    )]
    .into_iter()
    .collect();
    assert_eq!(gates.governing, governing);
    assert_eq!(gates.default, Some(GateDefault::Refuse));
    assert_eq!(gates.diagnostics, vec![]);
    // The condition keeps its span in the file.
    let cond = &gates.rules[2].conditions[0].0;
    assert_eq!(cond.span, Span::new(FileId(0), 131, 149));
    assert_eq!(&DESIGN[cond.span.range()], "$args.amount > 500");
}

#[test]
fn yaml_sheet_with_default_allow_and_empty_say() {
    let text = "default: allow\n\
                rules:\n\
                \x20 - {rule: no_refunds, tool: refund_card, then: refuse}\n\
                \x20 - {rule: confirm, tool: send_receipt, when: $args.to != null, then: ask}\n\
                \x20 - {rule: reads, tool: get_order, then: allow}\n";
    let sheet = parse_sheet(FileId(0), "shop.rules.yaml", text);
    let codes: Vec<&str> = sheet.diagnostics.iter().map(|d| d.code.id).collect();
    assert_eq!(codes, vec!["W1514"]);
    let gates = sheet_gates_of(&sheet.value);
    let rules: Vec<_> = gates
        .rules
        .iter()
        .map(|r| {
            let (tool, flow, _, conds, action, _) = show(text, r);
            (tool, flow, conds, action)
        })
        .collect();
    assert_eq!(
        rules,
        vec![
            (
                "refund_card".into(),
                "no_refunds".into(),
                vec![],
                Action::Refuse("no_refunds".into())
            ),
            (
                "send_receipt".into(),
                "confirm".into(),
                vec!["($args.to != null)".into()],
                Action::Ask("confirm".into())
            ),
            ("get_order".into(), "reads".into(), vec![], Action::Allow),
        ]
    );
    assert_eq!(gates.default, Some(GateDefault::Allow));
    assert_eq!(gates.governing.len(), 3);
}

#[test]
fn rows_with_errors_are_left_out() {
    let text = "rule,tool,when,then,say\n\
                bad_then,refund_card,,deny,\n\
                no_tool,,,allow,\n\
                bad_when,refund_card,$a = 1,allow,\n\
                good,refund_card,$a == 1,allow,\n";
    let sheet = parse_sheet(FileId(0), "rules.csv", text);
    let codes: Vec<&str> = sheet.diagnostics.iter().map(|d| d.code.id).collect();
    assert_eq!(codes, vec!["E1509", "E1507", "E1209"]);
    let gates = sheet_gates_of(&sheet.value);
    let flows: Vec<&str> = gates.rules.iter().map(|r| r.flow.as_str()).collect();
    assert_eq!(flows, vec!["good"]);
    assert_eq!(gates.governing["refund_card"], vec!["good".to_string()]);
}

fn sheet_gates_of(
    sheet: &stalwart_syntax::sheet::ast::Sheet,
) -> stalwart_sema::model::paths::Gates {
    sheet_gates(sheet, &serde_json::json!({}))
}
