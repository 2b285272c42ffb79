//! Exact behaviour of the Colang 2.x front end's public API: tool names of actions, the actions
//! a module calls, spec and expression structure, spans, line numbers after `...` lines, and
//! recovery across blocks.

#![cfg(test)]

use stalwart_diagnostics::FileId;
use stalwart_syntax::v2::ast::{AssignOp, Item, SpecExpr, SpecOp, SpecTarget, StmtKind};
use stalwart_syntax::v2::{action_calls, action_tool_name, inspect_v2, parse_v2};

fn parse_ok(text: &str) -> stalwart_syntax::v2::ast::Module {
    let p = parse_v2(FileId(0), text);
    assert!(p.diagnostics.is_empty(), "{:?}", p.diagnostics);
    p.value
}

fn body(text: &str) -> Vec<StmtKind> {
    let m = parse_ok(text);
    // An empty body fails the callers' assertions.
    match m.items.into_iter().next() {
        Some(Item::Flow(f)) => f.body.into_iter().map(|s| s.kind).collect(),
        _ => Vec::new(),
    }
}

fn codes(text: &str) -> Vec<&'static str> {
    parse_v2(FileId(0), text)
        .diagnostics
        .iter()
        .map(|d| d.code.id)
        .collect()
}

#[test]
fn action_names_map_to_tool_names() {
    assert_eq!(
        action_tool_name("RefundCardAction").as_deref(),
        Some("refund_card")
    );
    assert_eq!(
        action_tool_name("UtteranceBotAction").as_deref(),
        Some("utterance_bot")
    );
    assert_eq!(
        action_tool_name("GetHTTPStatusAction").as_deref(),
        Some("get_http_status")
    );
    assert_eq!(
        action_tool_name("Send2FACodeAction").as_deref(),
        Some("send2_fa_code")
    );
    assert_eq!(action_tool_name("StartUtteranceBotAction"), None);
    assert_eq!(action_tool_name("StopRefundAction"), None);
    assert_eq!(action_tool_name("Action"), None);
    assert_eq!(action_tool_name("RefundCard"), None);
    assert_eq!(action_tool_name("refundAction"), None);
}

#[test]
fn action_calls_list_awaits_and_starts_in_order() {
    let m = parse_ok(
        "flow main\n  await RefundCardAction(amount=$a, order_id=\"o1\") as $ref\n  if $x\n    $r = start SendEmailAction(\"hi\", to=$u)\n  match RefundCardAction.Finished()\n  GetOrderAction(id=1)\n",
    );
    let calls = action_calls(&m);
    type Call<'a> = (SpecOp, &'a str, Option<&'a str>, Vec<Option<&'a str>>);
    let got: Vec<Call<'_>> = calls
        .iter()
        .map(|c| {
            (
                c.op,
                c.name,
                c.tool.as_deref(),
                c.args.list().iter().map(|a| a.name.as_deref()).collect(),
            )
        })
        .collect();
    assert_eq!(
        got,
        vec![
            (
                SpecOp::Await,
                "RefundCardAction",
                Some("refund_card"),
                vec![Some("amount"), Some("order_id")]
            ),
            (
                SpecOp::Start,
                "SendEmailAction",
                Some("send_email"),
                vec![None, Some("to")]
            ),
            (
                SpecOp::Await,
                "GetOrderAction",
                Some("get_order"),
                vec![Some("id")]
            ),
        ]
    );
}

#[test]
fn and_binds_tighter_than_or_in_specs() {
    let stmts = body("flow main\n  match A() and B() or C()\n");
    let Some(StmtKind::Spec {
        op: SpecOp::Match,
        expr: SpecExpr::Or(parts, _),
        ..
    }) = stmts.first()
    else {
        panic!("{stmts:?}")
    };
    assert!(matches!(&parts[..], [SpecExpr::And(v, _), SpecExpr::Spec(_)] if v.len() == 2));
}

#[test]
fn bare_spec_is_an_implicit_await_and_capture_is_kept() {
    let stmts = body("flow main\n  $x = bot say \"hi\"\n  $y += 1\n");
    match stmts.as_slice() {
        [
            StmtKind::Spec {
                op: SpecOp::Await,
                implicit: true,
                capture: Some(v),
                expr: SpecExpr::Spec(s),
            },
            StmtKind::Assign(a),
        ] => {
            assert_eq!(v.name, "x");
            assert_eq!(a.op, AssignOp::Add);
            assert_eq!(a.target.name, "y");
            assert!(matches!(&s.target, SpecTarget::Name { name, .. } if name == "bot say"));
            assert_eq!(s.args.list().len(), 1);
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn expressions_keep_their_exact_source_text() {
    let text = "flow f $items=[1,\n    2] $n = 3 -> $out = {\"a\": 1}\n  pass\n";
    let v = inspect_v2(&parse_ok(text));
    assert_eq!(v["flows"][0]["parameters"][0]["default"], "[1,\n    2]");
    assert_eq!(v["flows"][0]["parameters"][1]["default"], "3");
    assert_eq!(v["flows"][0]["return_members"][0]["default"], "{\"a\": 1}");
}

// The line numbers below are the reference parser's (NeMo Guardrails 0.24.1) for the same texts.
#[test]
fn generation_lines_count_as_eight_lines() {
    let v = inspect_v2(&parse_ok("flow a\n  ...\n\nflow b\n  pass\n"));
    assert_eq!(v["flows"][0]["line"], 1);
    assert_eq!(v["flows"][1]["line"], 11);
    let v = inspect_v2(&parse_ok(
        "flow a\n  if $x\n    ...\n  ...\nflow b\n  pass\n",
    ));
    assert_eq!(v["flows"][1]["line"], 19);
}

#[test]
fn an_ellipsis_line_inside_a_string_opened_mid_line_still_counts() {
    let v = inspect_v2(&parse_ok(
        "flow a\n  $x = \"\"\"\n  ...\n  \"\"\"\nflow b\n  c\n",
    ));
    assert_eq!(v["flows"][1]["line"], 12);
}

#[test]
fn an_ellipsis_after_a_closing_triple_quote_line_is_not_expanded() {
    // The `  """` line that closes the string opens a docstring for the line-by-line expansion.
    let text = "flow a\n  $x = \"\"\"\n  y\n  \"\"\"\n  ...\nflow b\n  c\n";
    assert_eq!(codes(text), vec!["E1306"]);
}

#[test]
fn a_parenthesized_spec_with_arguments_takes_members_and_a_capture() {
    let text = "flow a\n  match (b \"x\").Finished() or c\n  start (b $x=1) as $r\n  match (UtteranceBotAction(script=\"x\")).Finished()\n  when (bot ask q \"Pay?\").Finished(\"confirmed\")\n    c\n";
    let kinds = body(text);
    assert_eq!(kinds.len(), 4);
    assert_eq!(codes("flow a\n  match ($r).Finished()\n"), vec!["E1402"]);
    assert_eq!(
        codes("flow a\n  match (a and b).Finished()\n"),
        vec!["E1402"]
    );
}

#[test]
fn statements_outside_flows_are_ignored_unless_alone_in_the_file() {
    assert_eq!(
        codes("flow a\n  c\nbot say \"x\"\nflow b\n  c\n"),
        vec!["E1420"]
    );
    let p = parse_v2(FileId(0), "flow a\n  c\n$x = 1\n");
    assert!(
        p.diagnostics.iter().all(|d| !d.is_error()),
        "{:?}",
        p.diagnostics
    );
    // Alone, a statement or an import is an error; a comment line or a leading blank line is
    // another element and makes it fine.
    assert_eq!(codes("import core\n"), vec!["E1421"]);
    assert_eq!(codes("bot say \"x\"\n"), vec!["E1421"]);
    assert_eq!(codes("x # c\n\n"), vec!["E1421"]);
    assert_eq!(codes("x\n# c\n"), vec!["E1420"]);
    assert_eq!(codes("\nimport core\n"), Vec::<&str>::new());
    assert_eq!(codes("import core\nimport llm\n"), Vec::<&str>::new());
}

#[test]
fn imports_are_recorded_as_the_reference_records_them() {
    let v = inspect_v2(&parse_ok("import core\nimport a.b.c\nimport \"x/y\"\n"));
    assert_eq!(
        v["imports"],
        serde_json::json!(["core", "a/b/c", "\"x/y\""])
    );
    assert_eq!(v["version"], "2.x");
}

#[test]
fn keywords_are_contextual() {
    let m = parse_ok("flow starting printer match\n  inform order\n  await match\n");
    let Some(Item::Flow(f)) = m.items.first() else {
        panic!()
    };
    assert_eq!(f.name, "starting printer match");
    assert_eq!(codes("flow a\n  iffy x\n"), vec!["E1340"]);
}

#[test]
fn a_broken_flow_does_not_hide_the_next_ones() {
    let p = parse_v2(
        FileId(0),
        "flow a\n  $x = (1)\n\nflow good\n  pass\n\nflow c\n  $y = 1 if $z else 2\n",
    );
    let names: Vec<&str> = p
        .value
        .items
        .iter()
        .filter_map(|i| {
            if let Item::Flow(f) = i {
                Some(f.name.as_str())
            } else {
                None
            }
        })
        .collect();
    assert_eq!(names, vec!["good"]);
    let codes: Vec<&str> = p.diagnostics.iter().map(|d| d.code.id).collect();
    assert_eq!(codes, vec!["E1344", "E1345"]);
}

#[test]
fn crlf_and_missing_final_newline_are_fine() {
    let m = parse_ok("flow a\r\n  pass\r\n\r\nflow b\r\n  bot say \"x\"");
    assert_eq!(m.items.len(), 2);
}

#[test]
fn comments_inside_bodies_are_empty_statements() {
    let stmts = body("flow a\n  # one\n  pass\n\n  # two\n");
    assert_eq!(
        stmts,
        vec![StmtKind::Empty, StmtKind::Pass, StmtKind::Empty]
    );
}
