//! `run` is the reference's own keyword for an action call (it rewrites `execute` and `exec` to
//! it), so every form of it reads as the same `execute` statement: a call the gate governs.
//! Each expected value is the `run_action` element NeMo Guardrails 0.24.1 gives for the same
//! line: the result key, the action name and the parameters (written `name=value`, or the value
//! alone for a positional one, in the order written; the reference lists its positional ones,
//! `$1`, `$2`, …, after the others).

#![allow(clippy::unwrap_used, clippy::panic, clippy::indexing_slicing)]

use stalwart_diagnostics::FileId;
use stalwart_syntax::v1::ast::{Item, Stmt, StmtKind};
use stalwart_syntax::{inspect_v1, parse_v1};

/// The statements of `define flow f` whose body is `line`, each as `[result =] action(args)`
/// for a call; the line must parse without diagnostics.
fn calls(line: &str) -> Vec<String> {
    let text = format!("define flow f\n  {line}\n");
    let parsed = parse_v1(FileId(0), &text);
    assert_eq!(parsed.diagnostics, vec![], "{line:?}");
    let Some(Item::Flow(flow)) = parsed.value.items.first() else {
        panic!("{line:?}: {:?}", parsed.value.items)
    };
    flow.body.iter().map(call).collect()
}

fn call(stmt: &Stmt) -> String {
    let StmtKind::Run(run) = &stmt.kind else {
        return format!("{:?}", stmt.kind).chars().take(3).collect();
    };
    let args: Vec<String> = run
        .args
        .iter()
        .map(|a| match &a.name {
            Some(name) => format!("{}={}", name.text, a.value.text),
            None => a.value.text.to_string(),
        })
        .collect();
    let result = run
        .result
        .as_ref()
        .map_or(String::new(), |r| format!("{} = ", r.text));
    format!("{result}{}({})", run.action.text, args.join(", "))
}

/// `line` with its keyword `run` written `keyword`.
fn with_keyword(line: &str, keyword: &str) -> String {
    line.replacen("run", keyword, 1)
}

const FORMS: &[(&str, &str)] = &[
    ("run tool(a=1)", "tool(a=1)"),
    ("run bar", "bar()"),
    ("$x = run foo", "x = foo()"),
    ("run $x = foo", "x = foo()"),
    ("run bar with $y", "bar($y)"),
    ("run call api with $a, k=\"v\"", "call api($a, k=\"v\")"),
    ("$r = run t with n=1", "r = t(n=1)"),
    ("run baz for b=2", "baz(b=2)"),
    ("run ask for help", "ask for help()"),
    ("run $x.y = foo(a=1)", "x.y = foo(a=1)"),
];

#[test]
fn run_reads_as_the_reference_reads_it() {
    for (line, expected) in FORMS {
        assert_eq!(calls(line), [*expected], "{line:?}");
    }
}

#[test]
fn execute_and_exec_read_as_run() {
    for (line, expected) in FORMS {
        for keyword in ["execute", "exec"] {
            let line = with_keyword(line, keyword);
            assert_eq!(calls(&line), [*expected], "{line:?}");
        }
    }
}

#[test]
fn a_keyword_alone_after_equals_is_assigned_as_a_word() {
    // The reference: `{"_type": "set", "key": "x", "expression": "run"}`.
    for keyword in ["run", "execute", "exec"] {
        assert_eq!(calls(&format!("$x = {keyword}")), ["Set"]);
    }
}

#[test]
fn run_is_a_call_at_the_top_level_too() {
    let parsed = parse_v1(FileId(0), "user ask refund\nrun refund_card with $order\n");
    assert_eq!(parsed.diagnostics, vec![]);
    let Some(Item::Stmt(stmt)) = parsed.value.items.get(1) else {
        panic!("{:?}", parsed.value.items)
    };
    assert_eq!(call(stmt), "refund_card($order)");
    assert_eq!(
        inspect_v1(&parsed.value)["flows"],
        serde_json::json!([{"id": "", "subflow": false}])
    );
}

#[test]
fn a_call_spans_its_whole_line() {
    for line in [
        "run $x = foo",
        "execute $x = foo(a=1)",
        "$x = run foo",
        "run bar with $y, k=1",
    ] {
        let text = format!("define flow f\n  {line}\n");
        let parsed = parse_v1(FileId(0), &text);
        let Some(Item::Flow(flow)) = parsed.value.items.first() else {
            panic!("{line:?}")
        };
        let span = flow.body[0].span;
        assert_eq!(
            text.get(span.start as usize..span.end as usize),
            Some(line),
            "{line:?}"
        );
    }
}
