//! Strings, message bodies and event arguments as the reference parser reads them. A message
//! line that starts with `"` and does not end with `"` opens a string that runs on to the next
//! line ending with `"`, even when the line only ends in a comment after its closing quote; a
//! `bot` line in a message body starts a flow; event arguments are a call that must close. The
//! facts are the reference's (NeMo Guardrails 0.24.1) for the same texts; the warnings and
//! errors say what happened.

#![allow(clippy::unwrap_used, clippy::indexing_slicing)]

use serde_json::json;
use stalwart_diagnostics::{FileId, Severity};
use stalwart_syntax::{inspect_v1, parse_v1};

#[test]
fn a_comment_after_the_closing_quote_runs_the_string_on() {
    let text = "define bot x\n  \"a\" # c\n  \"b\"\n";
    let parsed = parse_v1(FileId(0), text);
    assert_eq!(
        inspect_v1(&parsed.value)["bot_messages"],
        json!({"x": ["a\" # c"]})
    );
    let [d] = parsed.diagnostics.as_slice() else {
        panic!("{:?}", parsed.diagnostics)
    };
    assert_eq!(d.code.id, "E1025");
    assert_eq!(d.severity, Severity::Warning);
    assert_eq!(d.message, "this comment makes the string run on to line 3");
    assert_eq!((d.primary.span.start, d.primary.span.end), (19, 22));
}

#[test]
fn a_run_on_string_that_never_ends_is_an_error_with_a_hint() {
    let parsed = parse_v1(FileId(0), "define bot x\n  \"a\" # c\n");
    let [d] = parsed.diagnostics.as_slice() else {
        panic!("{:?}", parsed.diagnostics)
    };
    assert_eq!(d.code.id, "E1002");
    assert!(
        d.help
            .as_deref()
            .is_some_and(|h| h.ends_with("move the comment onto a line of its own")),
        "{d:?}"
    );
}

#[test]
fn a_comment_on_a_line_that_ends_with_a_quote_is_cut() {
    let text = "define bot x\n  \"a\" # c \"d\"\n  \"b\"\n";
    let parsed = parse_v1(FileId(0), text);
    assert_eq!(parsed.diagnostics, vec![]);
    assert_eq!(
        inspect_v1(&parsed.value)["bot_messages"],
        json!({"x": ["a", "b"]})
    );
}

#[test]
fn a_message_that_runs_on_keeps_what_its_first_line_gives() {
    let text = "define user greet\n  \"hi\n  \"hello\"\n  \"hey\"\n";
    let parsed = parse_v1(FileId(0), text);
    assert_eq!(parsed.diagnostics, vec![]);
    assert_eq!(
        inspect_v1(&parsed.value)["user_messages"],
        json!({"greet": ["hi", "hey"]})
    );
    let text = "define user greet\n  \"hi\" # note\n  \"hello\"\n  \"hey\"\n";
    let parsed = parse_v1(FileId(0), text);
    assert_eq!(
        inspect_v1(&parsed.value)["user_messages"],
        json!({"greet": ["hi\" # note", "hey"]})
    );
}

#[test]
fn a_bot_line_in_a_message_body_starts_the_direct_flow() {
    let facts = |text: &str| {
        let parsed = parse_v1(FileId(0), text);
        assert_eq!(parsed.diagnostics, vec![]);
        inspect_v1(&parsed.value)
    };
    let v = facts("define bot deny\n  \"DENY\"\n  bot deny\n  stop\n");
    assert_eq!(v["bot_messages"], json!({"deny": ["DENY"]}));
    assert_eq!(v["flows"], json!([{"id": "deny_direct", "subflow": false}]));
    let v = facts(
        "define bot deny\n  \"DENY\"\n  if \"dummy\" in $user_message\n    bot deny\n    stop\n",
    );
    assert_eq!(v["bot_messages"], json!({"deny": ["DENY"]}));
    assert_eq!(v["flows"], json!([{"id": "deny_direct", "subflow": false}]));
    let v = facts("define user ask capabilities\n  \"x\"\n  bot y\n\ndefine flow f\n  user x\n");
    assert_eq!(v["user_messages"], json!({"ask capabilities": ["x"]}));
    assert_eq!(
        v["flows"],
        json!([
            {"id": "ask|capabilities_direct", "subflow": false},
            {"id": "f", "subflow": false}
        ])
    );
}

#[test]
fn event_arguments_must_close_and_end_the_line() {
    let codes = |text: &str| -> Vec<(&'static str, String)> {
        parse_v1(FileId(0), text)
            .diagnostics
            .iter()
            .map(|d| (d.code.id, d.message.clone()))
            .collect()
    };
    assert_eq!(
        codes("define flow a\n  create event X(message=\"hi\"\n"),
        vec![("E1026", "unclosed `(` in the event's arguments".to_string())]
    );
    assert_eq!(
        codes("define flow a\n  event e(content=\"...)\n"),
        vec![(
            "E1026",
            "unterminated string in the event's arguments".to_string()
        )]
    );
    assert_eq!(
        codes("define flow a\n  event e(a=\"x\") foo\n"),
        vec![(
            "E1026",
            "unexpected text after the event's arguments".to_string()
        )]
    );
    assert_eq!(
        codes(
            "define flow a\n  create event E(message=\"the user's input\")\n  event F($id, \"p\")\n  event G\n"
        ),
        vec![]
    );
}
