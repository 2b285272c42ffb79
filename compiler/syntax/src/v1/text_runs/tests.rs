//! The clean-file parser reads the merged stream exactly as it reads the whole one: it accepts
//! both or neither, with the same items. Checked on every corpus and fixture file cut at every
//! line and with every line left out, and on generated flows whose lines mix keywords, texts,
//! variables, calls and raw blocks.

use proptest::prelude::*;
use stalwart_diagnostics::FileId;

use crate::test_inputs::{cut_and_left_out, input_texts};

use super::TextRuns;
use crate::v1::ast::Item;
use crate::v1::{grammar_clean, layout, lines, nodes};

fn parse_clean(text: &str, tokens: impl Iterator<Item = super::Spanned>) -> Option<Vec<Item>> {
    let mut recovered = Vec::new();
    let mut pending = nodes::Pending::default();
    let ok = grammar_clean::ChunkParser::new()
        .parse(text, FileId(0), &mut recovered, &mut pending, tokens)
        .is_ok();
    (ok && recovered.is_empty()).then_some(pending.items)
}

/// Whether the clean parser accepted the text; panics if the two streams part.
fn same_items(text: &str) -> bool {
    let lines = lines::split_lines(FileId(0), text);
    let layout = layout::layout(FileId(0), text, &lines);
    let whole = parse_clean(text, layout.tokens.iter().copied());
    let merged = parse_clean(text, TextRuns::new(&layout.tokens));
    assert_eq!(whole, merged, "{text:?}");
    whole.is_some()
}

#[test]
fn merged_runs_parse_as_the_whole_stream_on_files_cut_and_with_lines_left_out() {
    let texts = input_texts("v1");
    assert!(!texts.is_empty(), "no input files");
    let mut accepted = 0;
    for text in &texts {
        for variant in cut_and_left_out(text) {
            accepted += usize::from(same_items(&variant));
        }
    }
    assert!(accepted > texts.len(), "only {accepted} inputs accepted");
}

const LINES: &[&str] = &[
    "user express greeting",
    "user said \"hi\" or user said hello there",
    "bot express greeting \"Hello!\"",
    "bot inform $name (wait)",
    "$answer = execute check_facts(text=$x, n=2)",
    "$x = $y + 1",
    "$x += 2",
    "execute do_it",
    "if $x == \"a\" and not $y",
    "else if $x > 1",
    "else",
    "when user ask about x",
    "else when user said \"a\"",
    "while $n < 3",
    "do other flow",
    "event UtteranceUserActionFinished(final_transcript=\"x\")",
    "create event X",
    "stop",
    "return $x",
    "priority 0.5",
    "meta",
    "label here",
    "goto here",
    "any",
    "log \"x\" = 1",
    "\"a message line\"",
    "hello there (x) = 1",
    "  raw: [1, {a: 2}]",
    "# a comment",
    "",
];

fn flow(body: &[(&str, usize)]) -> String {
    let mut text = String::from("define flow a flow\n");
    for (line, depth) in body {
        text.push_str(&"  ".repeat(depth + 1));
        text.push_str(line);
        text.push('\n');
    }
    text.push_str("define user express greeting\n  \"hi\"\n  hello $x\n");
    text.push_str("define bot say\n  \"a\" (b)\n  if $x\n    \"c\"\n");
    text
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(500))]
    #[test]
    fn merged_runs_parse_as_the_whole_stream_on_generated_flows(
        body in prop::collection::vec((prop::sample::select(LINES), 0..3usize), 0..12)
    ) {
        same_items(&flow(&body));
    }
}
