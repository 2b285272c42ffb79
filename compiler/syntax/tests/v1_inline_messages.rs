//! `bot <message> "…"` inside a flow also defines the message, as the reference parser takes it:
//! the inline utterance first, then the example lines under the statement (parameter lines
//! before them skipped), appended to what `define bot` and earlier statements gave. Each
//! expected value below is what NeMo Guardrails 0.24.1's parser reports for the same text.

#![allow(clippy::unwrap_used, clippy::indexing_slicing)]

use serde_json::{Value, json};
use stalwart_diagnostics::FileId;
use stalwart_syntax::{inspect_v1, parse_v1};

fn bot_messages(text: &str) -> Value {
    let parsed = parse_v1(FileId(0), text);
    assert_eq!(parsed.diagnostics, vec![], "the input must parse");
    inspect_v1(&parsed.value)["bot_messages"].clone()
}

#[test]
fn an_inline_utterance_defines_the_message() {
    let text = "define flow a\n  bot say \"Hello there.\"\n";
    assert_eq!(bot_messages(text), json!({"say": ["Hello there."]}));
}

#[test]
fn nested_statements_define_too() {
    let text = "define flow a\n  if $x\n    if $y\n      stop\n    else if $z == \"r\"\n      bot say \"I {{ a | join(b) }}.\"\n      stop\n";
    assert_eq!(bot_messages(text), json!({"say": ["I {{ a | join(b) }}."]}));
}

#[test]
fn example_lines_follow_the_inline_utterance() {
    let text = "define flow a\n  bot say \"hi\"\n    \"hello\"\n  stop\n";
    assert_eq!(bot_messages(text), json!({"say": ["hi", "hello"]}));
}

#[test]
fn example_lines_alone_define_the_message() {
    let text = "define flow a\n  bot greet\n    \"hello\"\n    \"hey $name\"\n";
    assert_eq!(bot_messages(text), json!({"greet": ["hello", "hey $name"]}));
}

#[test]
fn parameters_after_the_utterance_are_not_part_of_it() {
    let text = "define flow a\n  bot say \"hi $name\" with name=$n\n";
    assert_eq!(bot_messages(text), json!({"say": ["hi $name"]}));
}

#[test]
fn parameter_lines_before_the_examples_are_skipped() {
    let text = "define flow a\n  bot say\n    $p = 1\n    \"with param\"\n";
    assert_eq!(bot_messages(text), json!({"say": ["with param"]}));
}

#[test]
fn conditional_example_groups_are_read() {
    let text = "define flow a\n  bot say \"hi\"\n    if $x\n      \"a\"\n    else\n      \"b\"\n";
    assert_eq!(bot_messages(text), json!({"say": ["hi", "a", "b"]}));
}

#[test]
fn utterances_append_in_file_order() {
    let text = "define bot say\n  \"x\"\n\ndefine flow a\n  bot say \"hi\"\n  bot say \"ho\"\n";
    assert_eq!(bot_messages(text), json!({"say": ["x", "hi", "ho"]}));
}

#[test]
fn a_bare_name_or_bare_text_defines_nothing() {
    let text = "define flow a\n  bot \"just text\"\n  bot refuse\n";
    assert_eq!(bot_messages(text), json!({}));
}
