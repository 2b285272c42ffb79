//! The hand-written parser accepts exactly the files the generated clean-file parser accepts
//! without an error, with the same items. Checked on every corpus and fixture file cut at every
//! line and with every line left out, and on generated flows and message bodies whose lines mix
//! keywords, texts, variables, calls, branches and raw blocks. The layout pass read a line at a
//! time, as the hand-written parser reads it, gives the diagnostics and chunks of the whole one.

use proptest::prelude::*;
use stalwart_diagnostics::FileId;

use crate::test_inputs::{cut_and_left_out, input_texts};
use crate::v1::ast::Item;
use crate::v1::{grammar_clean, layout, lines, nodes};

/// The items of each parser, when it accepts the text; panics if they part.
fn same_items(text: &str) -> bool {
    let lines = lines::split_lines(FileId(0), text);
    let layout = layout::layout(FileId(0), text, &lines);
    let mut recovered = Vec::new();
    let mut pending = nodes::Pending::default();
    let ok = grammar_clean::ChunkParser::new()
        .parse(
            text,
            FileId(0),
            &mut recovered,
            &mut pending,
            layout.tokens.iter().copied(),
        )
        .is_ok();
    let generated: Option<Vec<Item>> = (ok && recovered.is_empty()).then_some(pending.items);
    let mut pending = nodes::Pending::default();
    let mut stream = layout::Stream::new(FileId(0), text, &lines, layout::Layout::default());
    let ok = super::parse(text, FileId(0), &mut stream, &mut pending);
    let by_hand = ok.then_some(pending.items);
    assert_eq!(generated, by_hand, "{text:?}");
    if ok {
        // The layout read a line at a time reports what the whole one does.
        let streamed = stream.finish();
        assert_eq!(streamed.diagnostics, layout.diagnostics, "{text:?}");
        assert_eq!(streamed.chunks, layout.chunks, "{text:?}");
    }
    generated.is_some()
}

#[test]
fn hand_written_parser_matches_the_generated_one_on_files_cut_and_with_lines_left_out() {
    let texts = input_texts("v1");
    assert!(!texts.is_empty(), "no input files");
    let (mut accepted, mut all) = (0, 0);
    for text in &texts {
        for variant in cut_and_left_out(text) {
            accepted += usize::from(same_items(&variant));
            all += 1;
        }
    }
    assert!(accepted > texts.len(), "only {accepted} inputs accepted");
    assert!(accepted < all, "every input accepted");
}

const LINES: &[&str] = &[
    "user express greeting",
    "user said \"hi\" or user said hello there",
    "user",
    "bot express greeting \"Hello!\"",
    "bot inform $name (wait)",
    "bot",
    "$answer = execute check_facts(text=$x, n=2)",
    "$r = execute a.b 2(x=[1, (2)], {y: \"z\"},)",
    "$r = execute f(=1)",
    "$r = execute f(a b = 1)",
    "$r = execute f((]",
    "$r = execute",
    "$x = $y + 1",
    "$x =",
    "$x += 2",
    "$x -= 2",
    "$x",
    "execute do_it",
    "execute do_it()",
    "execute do_it(a) b",
    "run do_it with $a, k=\"v\"",
    "run $x = do_it(a=1)",
    "exec do_it for n = 2",
    "$r = run f with $y",
    "$r = run",
    "run do_it with",
    "user ask for help or user says something",
    "when anything",
    "expect $x",
    "if $x == \"a\" and not $y",
    "if",
    "else if $x > 1",
    "else",
    "when user ask about x",
    "when user a or user b",
    "when",
    "else when user said \"a\"",
    "else when bot x or user y",
    "while $n < 3",
    "do other flow",
    "do",
    "event UtteranceUserActionFinished(final_transcript=\"x\")",
    "create event X",
    "stop",
    "break",
    "continue",
    "return $x",
    "priority 0.5",
    "meta",
    "meta x",
    "label here",
    "goto here",
    "go to here",
    "set $x = 1",
    "any",
    "log \"x\" = 1",
    "\"a message line\"",
    "hello there (x) = 1",
    "  raw: [1, {a: 2}]",
    "define flow x",
    "flow x",
    "something odd",
    "# a comment",
    "",
];

const MESSAGE_LINES: &[&str] = &[
    "\"hi\"",
    "hello $x",
    "if $x",
    "else if $y",
    "else",
    "else x",
    "if",
    "bot say",
    "  param $x as str",
    "else foo",
    "   \"odd indentation\"",
    "set $x = 1",
    "",
];

fn text(header: &str, body: &[(usize, usize)], lines: &[&str]) -> String {
    let mut text = String::from(header);
    for (line, depth) in body {
        text.push_str(&"  ".repeat(depth + 1));
        text.push_str(lines.get(*line % lines.len()).unwrap_or(&""));
        text.push('\n');
    }
    text.push_str("define user express greeting\n  \"hi\"\n  hello $x\n");
    text.push_str("define bot say\n  \"a\" (b)\n  if $x\n    \"c\"\n");
    text.push_str("define subflow s\n  bot say\n    \"x\"\n");
    text.push_str("import a\ninclude \"b\"\ndefine action x\n  y\n");
    text.push_str("define test repair flow\n  stop\nuser hi\n");
    text
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(1000))]
    #[test]
    fn hand_written_parser_matches_the_generated_one_on_generated_flows(
        body in prop::collection::vec((0..LINES.len(), 0..3usize), 0..12)
    ) {
        same_items(&text("define flow a flow\n", &body, LINES));
    }

    #[test]
    fn hand_written_parser_matches_the_generated_one_on_generated_messages(
        body in prop::collection::vec((0..MESSAGE_LINES.len(), 0..3usize), 0..10),
        bot in any::<bool>(),
    ) {
        let header = if bot { "define bot x\n" } else { "flow main\n  bot y\n" };
        same_items(&text("define user u\n", &body, MESSAGE_LINES));
        same_items(&text(header, &body, MESSAGE_LINES));
    }
}
