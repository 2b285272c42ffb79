//! The indentation of message bodies, as the reference reads it: a `define user|bot` body runs
//! until a line is indented less than its first line, and a line indented deeper than the one
//! before it is one more message, not a block of its own; the lines under an `if` / `else` of a
//! bot body are every line indented deeper than the keyword; the lines under a `bot` statement
//! are its parameter lines (any indentation deeper than the statement), then its examples,
//! indented at least like the first of them. Each expected value is what NeMo Guardrails
//! 0.24.1 reports for the same text.

#![allow(clippy::unwrap_used, clippy::panic, clippy::indexing_slicing)]

use serde_json::{Value, json};
use stalwart_diagnostics::FileId;
use stalwart_syntax::v1::ast::{Item, MessageLine};
use stalwart_syntax::{inspect_v1, parse_v1};

/// The facts of a text that must parse without diagnostics.
fn facts(text: &str) -> Value {
    let parsed = parse_v1(FileId(0), text);
    assert_eq!(parsed.diagnostics, vec![], "{text:?}");
    let mut facts = inspect_v1(&parsed.value);
    facts.as_object_mut().unwrap().remove("version");
    facts.as_object_mut().unwrap().remove("imports");
    facts
}

/// The first item's message lines, a branch written `if <condition> [<lines>]`.
fn body(text: &str) -> Vec<String> {
    let parsed = parse_v1(FileId(0), text);
    assert_eq!(parsed.diagnostics, vec![], "{text:?}");
    match parsed.value.items.first() {
        Some(Item::User(u)) => render(&u.lines),
        Some(Item::Bot(b)) => render(&b.lines),
        other => panic!("{other:?}"),
    }
}

fn render(lines: &[MessageLine]) -> Vec<String> {
    lines
        .iter()
        .map(|line| match line {
            MessageLine::Text(t) => t.text.to_string(),
            MessageLine::Branch(b) => {
                let keyword = format!("{:?}", b.keyword).to_lowercase();
                let condition = b.condition.as_ref().map_or("", |c| c.text.as_str());
                format!("{keyword} {condition} {:?}", render(&b.lines)).replace("  ", " ")
            }
        })
        .collect()
}

/// The codes of the errors of a text.
fn errors(text: &str) -> Vec<&'static str> {
    parse_v1(FileId(0), text)
        .diagnostics
        .iter()
        .filter(|d| d.is_error())
        .map(|d| d.code.id)
        .collect()
}

#[test]
fn a_first_line_indented_less_than_the_next_keeps_every_example() {
    assert_eq!(
        facts("define user greet\n \"a\"\n   \"b\"\n   \"c\"\n"),
        json!({"user_messages": {"greet": ["a", "b", "c"]}, "bot_messages": {}, "flows": []})
    );
    assert_eq!(
        facts("define bot greet\n \"a\"\n   \"b\"\n   \"c\"\n"),
        json!({"user_messages": {}, "bot_messages": {"greet": ["a", "b", "c"]}, "flows": []})
    );
}

#[test]
fn a_deeper_line_is_one_more_message() {
    assert_eq!(
        facts("define user greet\n  \"a\"\n    \"b\"\n  \"c\"\n"),
        json!({"user_messages": {"greet": ["a", "b", "c"]}, "bot_messages": {}, "flows": []})
    );
    assert_eq!(
        facts("define user ask\n  \"q1\"\n      \"q2\"\n  express greeting\n      \"q3\"\n"),
        json!({
            "user_messages": {"ask": ["q1", "q2", "{intent:express|greeting}", "q3"]},
            "bot_messages": {},
            "flows": []
        })
    );
    assert_eq!(
        facts("define bot b\n  \"a\"\n      \"b\"\n    \"c\"\n   \"d\"\n"),
        json!({"user_messages": {}, "bot_messages": {"b": ["a", "b", "c", "d"]}, "flows": []})
    );
    assert_eq!(
        body("define bot b\n  \"a\"\n      \"b\"\n    \"c\"\n   \"d\"\n"),
        ["\"a\"", "\"b\"", "\"c\"", "\"d\""]
    );
}

#[test]
fn a_branch_holds_every_line_deeper_than_its_keyword() {
    let text = "define bot b\n  if $x\n    \"a\"\n      \"b\"\n  else\n    \"c\"\n";
    assert_eq!(
        facts(text),
        json!({"user_messages": {}, "bot_messages": {"b": ["a", "b", "c"]}, "flows": []})
    );
    assert_eq!(
        body(text),
        [r#"if $x ["\"a\"", "\"b\""]"#, r#"else ["\"c\""]"#]
    );
    let text = "define bot b\n  if $x\n      \"a\"\n    \"b\"\n  \"c\"\n";
    assert_eq!(
        facts(text),
        json!({"user_messages": {}, "bot_messages": {"b": ["a", "b", "c"]}, "flows": []})
    );
    assert_eq!(body(text), [r#"if $x ["\"a\"", "\"b\""]"#, "\"c\""]);
    let text = "define bot b\n  \"a\"\n    if $x\n      \"b\"\n  \"c\"\n";
    assert_eq!(
        facts(text),
        json!({"user_messages": {}, "bot_messages": {"b": ["a", "b", "c"]}, "flows": []})
    );
    assert_eq!(body(text), ["\"a\"", r#"if $x ["\"b\""]"#, "\"c\""]);
}

#[test]
fn the_lines_under_a_bot_statement_are_parameters_then_examples() {
    let text = "define flow f\n  bot x\n    quick_replies:\n      - \"a\"\n      - \"b\"\n    \"text\"\n      \"t2\"\n    \"t3\"\n";
    assert_eq!(
        facts(text)["bot_messages"],
        json!({"x": ["text", "t2", "t3"]})
    );
    assert_eq!(
        facts("define flow f\n  bot x\n      p: 1\n    \"a\"\n")["bot_messages"],
        json!({"x": ["a"]})
    );
    assert_eq!(
        facts("define flow f\n  bot x \"hi\"\n    \"a\"\n      \"b\"\n  bot y\n")["bot_messages"],
        json!({"x": ["hi", "a", "b"]})
    );
}

#[test]
fn a_line_indented_less_than_the_first_example_ends_the_body() {
    // The reference fails on both: "Unknown main token '\"b\"'".
    assert_eq!(
        errors("define user greet\n    \"a\"\n  \"b\"\n"),
        ["E1004", "E1006"]
    );
    assert_eq!(
        errors("define flow f\n  bot x\n    \"a\"\n   \"b\"\n"),
        ["E1004", "E1006"]
    );
}
