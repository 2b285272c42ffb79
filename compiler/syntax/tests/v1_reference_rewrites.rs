//! The rewrites and keyword rules of the reference's Colang 1.0 reader, read the same way: how
//! a `user` or `bot` line's name ends (` with `, ` for ` and ` as ` end it only before
//! parameters), the words `says` and `something`, `when` without a known keyword, the lines of
//! message bodies that give no message, a body-less `define user`, a tab after spaces, and
//! the words the reference reserves without reading a statement for them. Each expected value
//! is what NeMo Guardrails 0.24.1 reports for the same text (the intent names and messages of
//! its flow elements, or its `user_messages` and `bot_messages`); where it fails on a text,
//! the error is ours.

#![allow(clippy::unwrap_used, clippy::panic, clippy::indexing_slicing)]

use serde_json::{Value, json};
use stalwart_diagnostics::FileId;
use stalwart_syntax::v1::ast::{Item, Stmt, StmtKind, WhenOn};
use stalwart_syntax::{inspect_v1, parse_v1};

/// What each statement of `define flow f` (body `body`, indented by the caller) waits for or
/// says: `user <intent>[ | <intent>…]`, `bot <message>`, `when <…>` per branch.
fn names(body: &str) -> Vec<String> {
    let text = format!("define flow f\n{body}");
    let parsed = parse_v1(FileId(0), &text);
    assert_eq!(parsed.diagnostics, vec![], "{body:?}");
    let Some(Item::Flow(flow)) = parsed.value.items.first() else {
        panic!("{body:?}")
    };
    let mut out = Vec::new();
    for stmt in flow.body.iter() {
        stmt.walk(&mut |s: &Stmt| match &s.kind {
            StmtKind::User(refs) => out.push(format!(
                "user {}",
                refs.iter()
                    .map(|r| r.intent.text.as_str())
                    .collect::<Vec<_>>()
                    .join(" | ")
            )),
            StmtKind::Bot(bot) => out.push(format!("bot {}", bot.message.text)),
            StmtKind::When(w) => {
                for b in &w.branches {
                    out.push(match &b.on {
                        WhenOn::User(refs) => format!(
                            "when user {}",
                            refs.iter()
                                .map(|r| r.intent.text.as_str())
                                .collect::<Vec<_>>()
                                .join(" | ")
                        ),
                        WhenOn::Other { keyword, rest } => format!(
                            "when {keyword} {}",
                            rest.as_ref().map_or("", |r| r.text.as_str())
                        ),
                    });
                }
            }
            _ => {}
        });
    }
    out
}

/// The `user_messages` and `bot_messages` of a text that parses without errors.
fn messages(text: &str) -> Value {
    let parsed = parse_v1(FileId(0), text);
    assert!(
        !parsed.diagnostics.iter().any(|d| d.is_error()),
        "{text:?}: {:?}",
        parsed.diagnostics
    );
    let facts = inspect_v1(&parsed.value);
    json!({"user": facts["user_messages"], "bot": facts["bot_messages"]})
}

/// The codes and messages of the diagnostics of a text.
fn diagnostics(text: &str) -> Vec<(&'static str, String)> {
    parse_v1(FileId(0), text)
        .diagnostics
        .iter()
        .map(|d| (d.code.id, d.message.clone()))
        .collect()
}

#[test]
fn with_for_and_as_end_a_name_only_before_parameters() {
    assert_eq!(
        names(concat!(
            "  user ask for help\n",
            "  user treat me as friend\n",
            "  user ask for $x\n",
            "  user x with $a\n",
            "  user inform $x\n",
            "  bot offer help with booking\n",
            "  bot say with $a\n",
            "  bot say $x\n",
        )),
        [
            "user ask for help",
            "user treat me as friend",
            "user ask",
            "user x",
            "user inform $x",
            "bot offer help with booking",
            "bot say",
            "bot say $x",
        ]
    );
    assert_eq!(
        messages("define flow f\n  bot ask for details \"please give details\" with $a\n"),
        json!({"user": {}, "bot": {"ask for details": ["please give details"]}})
    );
}

#[test]
fn says_after_user_and_bot_is_dropped_in_when_and_or_too() {
    assert_eq!(
        names(concat!(
            "  when user says hi\n",
            "    bot ok\n",
            "  else when user says bye\n",
            "    bot ok\n",
            "  user x or user says y\n",
            "  when bot says z\n",
            "    bot ok\n",
        )),
        [
            "when user hi",
            "when user bye",
            "bot ok",
            "bot ok",
            "user x | y",
            "when bot z",
            "bot ok",
        ]
    );
}

#[test]
fn something_reads_as_a_wildcard_first_and_as_an_ellipsis_after() {
    assert_eq!(
        names(concat!(
            "  user something else foo\n",
            "  user ask something\n",
            "  user ask something about something\n",
            "  user x or user something\n",
            "  user something or user something\n",
            "  bot something\n",
        )),
        [
            "user * foo",
            "user ask ...",
            "user ask something about ...",
            "user x | ...",
            "user * | ...",
            "bot *",
        ]
    );
    assert_eq!(
        messages("define flow f\n  bot say something \"t\"\n"),
        json!({"user": {}, "bot": {"say ...": ["t"]}})
    );
}

#[test]
fn when_with_a_keyword_alone_waits_for_an_event_of_that_name() {
    assert_eq!(
        names("  when user\n    bot x\n  else when flow\n    bot y\n"),
        ["when event user", "when event flow", "bot x", "bot y"]
    );
}

#[test]
fn if_and_else_are_words_of_an_intent_in_a_user_body() {
    assert_eq!(
        messages("define user x\n  if $a\n    \"hi\"\n  else\n    \"ho\"\n"),
        json!({"user": {"x": ["{intent:if|$a}", "hi", "{intent:else}", "ho"]}, "bot": {}})
    );
}

#[test]
fn a_bot_body_reads_else_with_text_as_else_and_elif_as_words() {
    assert_eq!(
        messages("define bot b\n  if $x\n    \"a\"\n  else foo\n    \"c\"\n"),
        json!({"user": {}, "bot": {"b": ["a", "c"]}})
    );
    assert_eq!(
        messages("define bot b\n  \"a\"\n  elif $x\n    \"c\"\n"),
        json!({"user": {}, "bot": {"b": ["a", "{intent:elif|$x}", "c"]}})
    );
}

#[test]
fn parameter_set_and_context_lines_give_no_message() {
    assert_eq!(
        messages("define bot b\n  set $x = 1\n  context $x\n  \"a\"\n  param $p as str\n"),
        json!({"user": {}, "bot": {"b": ["a"]}})
    );
    assert_eq!(
        messages("define flow f\n  bot x\n    \"a\"\n    set $y = 2\n    \"b\"\n"),
        json!({"user": {}, "bot": {"x": ["a", "b"]}})
    );
    assert_eq!(
        messages(concat!(
            "define user greet\n",
            "  \"hi\"\n",
            "  in the context of foo\n",
            "  the context is bar\n",
            "  in context\n",
            "  context offers x\n",
        )),
        json!({"user": {"greet": ["hi", "{intent:contextfers|x}"]}, "bot": {}})
    );
    assert_eq!(
        messages(
            "define user u\n  my context user x\n  in the contextual\n  ask expecting user y\n"
        ),
        json!({
            "user": {"u": [
                "{intent:my|context|expecting(\"x\")}",
                "{intent:contextual}",
                "{intent:ask|expecting(\"y\")}"
            ]},
            "bot": {}
        })
    );
}

#[test]
fn a_body_less_define_user_is_its_own_example() {
    assert_eq!(
        messages("define user a and b\ndefine user express greeting\n"),
        json!({
            "user": {
                "a and b": ["{intent:a} {intent:and} {intent:b}"],
                "express greeting": ["{intent:express|greeting}"]
            },
            "bot": {}
        })
    );
}

#[test]
fn a_tab_after_spaces_does_not_count() {
    let text = "define user x\n  \t\"a\"\n  \"b\"\n";
    assert_eq!(
        messages(text),
        json!({"user": {"x": ["a", "b"]}, "bot": {}})
    );
    assert_eq!(
        diagnostics(text),
        [("E1028", "tab after 2 spaces of indentation".to_string())]
    );
    // A tab first reads as no indentation at all: an error, as before.
    assert_eq!(
        diagnostics("define user x\n\t\"a\"\n"),
        [("E1000", "tab used for indentation".to_string())]
    );
}

#[test]
fn reserved_words_are_no_statements() {
    // The reference: "Unknown main token '<word>'".
    for word in [
        "log", "allow", "accept", "disallow", "deny", "reject", "context", "for", "foreach", "use",
        "expect", "global", "var", "local", "param",
    ] {
        assert_eq!(
            diagnostics(&format!("define flow f\n  {word} $x\n")),
            [("E1006", format!("unknown statement `{word}`"))],
            "{word}"
        );
    }
    assert_eq!(
        diagnostics("define flow f\n  when anything\n    bot x\n"),
        [("E1006", "unknown statement `anything`".to_string())]
    );
    // `check` is a statement.
    assert_eq!(diagnostics("define flow f\n  check $x > 1\n"), []);
}

#[test]
fn a_reserved_word_not_taken_for_a_keyword_names_a_flow_at_the_top_level() {
    let parsed = parse_v1(FileId(0), "global x\n  user y\n");
    assert_eq!(parsed.diagnostics, vec![]);
    assert_eq!(
        inspect_v1(&parsed.value)["flows"],
        json!([{"id": "global x", "subflow": false}])
    );
}

#[test]
fn the_reference_forms_fixture_gives_the_reference_facts() {
    let text = include_str!("../test_data/v1/ok/reference_forms.co");
    assert_eq!(
        messages(text),
        json!({
            "user": {"ask for help": [
                "help me",
                "I need help",
                "can you help",
                "{intent:express|greeting}",
                "hello there"
            ]},
            "bot": {
                "offer help with booking": [
                    "Let me book it for you.",
                    "I can book it.",
                    "Shall I book it?"
                ],
                "say ...": ["Noted."],
                "inform booking": ["Booked.", "All set.", "Done."]
            }
        })
    );
    let body: String = text
        .lines()
        .skip_while(|l| !l.starts_with("define flow"))
        .skip(1)
        .map(|l| format!("{l}\n"))
        .collect();
    assert_eq!(
        names(&body),
        [
            "user ask for help | ...",
            "when user greeting",
            "when user *",
            "bot offer help with booking",
            "bot say ...",
            "bot inform booking",
        ]
    );
}
