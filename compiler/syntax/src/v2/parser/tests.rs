//! The clean-file parser reads the stream with `Names` and `SimpleStr` tokens exactly as it
//! reads the whole one, or rejects it: never accepting what the whole stream does not give.
//! Checked on every corpus and fixture file cut at every line and with every line left out, and
//! on generated flows whose statements mix specs, arguments, strings, attributes and operators.

use proptest::prelude::*;
use stalwart_diagnostics::FileId;

use crate::test_inputs::{cut_and_left_out, input_texts};

use super::LineIndex;
use super::{NameRuns, Pending, colang_v2_clean, descent};
use crate::v2::ast::{Stmt, StmtKind};
use crate::v2::layout::{Stream, expanded_ellipses, layout, line_starts};

fn parse_clean(text: &str, tokens: impl Iterator<Item = super::Token>) -> Option<Vec<Stmt>> {
    let mut pending = Pending::default();
    let ok = colang_v2_clean::BlockParser::new()
        .parse(text, FileId(0), &mut pending, tokens)
        .is_ok();
    ok.then_some(pending.stmts)
}

/// Whether the merged stream was accepted; panics if it was accepted with other statements
/// than the whole stream gives, or where the whole stream is rejected.
fn merged_agrees(text: &str) -> bool {
    let layout = layout(FileId(0), text);
    let whole = parse_clean(text, layout.toks.iter().copied());
    let merged = parse_clean(text, NameRuns::new(text, &layout.toks));
    if merged.is_some() {
        assert_eq!(whole, merged, "{text:?}");
    }
    merged.is_some()
}

/// The top-level statements the descent parser reads, as the clean-file parser gives them (with
/// the flows' lines numbered).
fn descent_parse(text: &str) -> Option<Vec<Stmt>> {
    let starts = line_starts(text);
    let generated = expanded_ellipses(text, &starts);
    let lines = LineIndex {
        starts,
        generated: &generated,
    };
    let mut pending = Pending::default();
    let mut stream = Stream::new(FileId(0), text, &generated);
    let mut stmts = Vec::new();
    let ok =
        descent::parse_block(
            text,
            FileId(0),
            &lines,
            &mut pending,
            &mut stream,
            |top| match top {
                descent::Top::Flow(f) => stmts.push(Stmt {
                    span: f.span,
                    kind: StmtKind::Flow(Box::new(f)),
                }),
                descent::Top::Stmts(s) => stmts.append(s),
            },
        )
        .is_ok();
    ok.then_some(stmts)
}

/// Numbers the lines of the flows among `stmts` as the parse driver does.
fn number_lines(text: &str, stmts: &mut [Stmt]) {
    let starts = line_starts(text);
    let generated = expanded_ellipses(text, &starts);
    let lines = LineIndex {
        starts,
        generated: &generated,
    };
    for s in stmts {
        if let StmtKind::Flow(f) = &mut s.kind {
            super::set_lines(f, &lines);
        }
    }
}

/// Whether the descent parser accepted the file; panics unless it accepts exactly where the
/// clean-file parser does on the whole stream, with the same statements.
fn descent_agrees(text: &str) -> bool {
    let layout = layout(FileId(0), text);
    if layout
        .toks
        .iter()
        .any(|t| t.1 == crate::v2::token::Tok::Error)
    {
        return false;
    }
    let mut table = parse_clean(text, layout.toks.iter().copied());
    if let Some(stmts) = &mut table {
        number_lines(text, stmts);
    }
    let descent = descent_parse(text);
    assert_eq!(table, descent, "{text:?}");
    descent.is_some()
}

/// Runs `agrees` (which asserts that two parses agree, and answers whether the input was
/// accepted) on every corpus and fixture file, cut at every line and with each line left out;
/// more inputs than files must be accepted.
fn agrees_on_files_cut_and_with_lines_left_out(agrees: fn(&str) -> bool) {
    let texts = input_texts("v2");
    assert!(!texts.is_empty(), "no input files");
    let mut accepted = 0;
    for text in &texts {
        for variant in cut_and_left_out(text) {
            accepted += usize::from(agrees(&variant));
        }
    }
    assert!(accepted > texts.len(), "only {accepted} inputs accepted");
}

#[test]
fn descent_parser_agrees_with_the_clean_file_parser_on_files_cut_and_with_lines_left_out() {
    agrees_on_files_cut_and_with_lines_left_out(descent_agrees);
}

#[test]
fn descent_parser_stops_where_nesting_is_deep_and_the_clean_file_parser_goes_on() {
    let deep = format!("flow a\n  $x = {}1\n", "-".repeat(300));
    let layout = layout(FileId(0), &deep);
    assert!(descent_parse(&deep).is_none());
    assert!(parse_clean(&deep, layout.toks.iter().copied()).is_some());
    let shallow = format!("flow a\n  $x = {}1\n", "-".repeat(100));
    assert!(descent_agrees(&shallow));
}

#[test]
fn merged_stream_parses_as_the_whole_one_on_files_cut_and_with_lines_left_out() {
    agrees_on_files_cut_and_with_lines_left_out(merged_agrees);
}

#[test]
fn every_clean_corpus_file_is_accepted_with_the_merged_stream() {
    for text in input_texts("v2") {
        let layout = layout(FileId(0), &text);
        if parse_clean(&text, layout.toks.iter().copied()).is_some() {
            assert!(merged_agrees(&text), "{text}");
        }
    }
}

const STATEMENTS: &[&str] = &[
    "bot say \"hi\"",
    "await bot say \"hi\" \"there\"",
    "bot  say \"two spaces\"",
    "match user said \"a\" + \"b\"",
    "match user said \"a\".upper()",
    "send bot say \"x\"[0]",
    "user said \"x\" as $ref",
    "bot say $x.y \"z\"",
    "bot say(text=\"a\")",
    "bot say(text=\"a\", n=\"b\" + \"c\")",
    "bot say(text = \"a\"[1:])",
    "$x = f(a=\"b\", c=\"d\".upper())",
    "send Event(name=\"x\").Started() as $e",
    "$y = {\"k\": g(v=\"w\")}",
    "start flow a b $x \"c\"",
    "await a b c",
    "$ref = await bot say \"q\"",
    "$x = \"a\" * 2",
    "$x = \"a\"",
    "if $x == \"a\"",
    "  bot say \"in\"",
    "when user said \"a\" or bot say \"b\"",
    "log \"x\"",
    "return \"y\"",
    "bot say \"a\" -1",
    "bot say \"a\" ** 2",
    "bot say \"a\" | \"b\"",
    "abort",
    "pass",
];

fn flow(body: &[&str]) -> String {
    let mut text = String::from("flow main\n");
    for line in body {
        text.push_str("  ");
        text.push_str(line);
        text.push('\n');
    }
    text.push_str("  pass\n\n@meta(name=\"m\")\nflow a b $x $y=\"d\"\n  bot say \"x\"\n");
    text
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(500))]
    #[test]
    fn merged_stream_parses_as_the_whole_one_on_generated_flows(
        body in prop::collection::vec(prop::sample::select(STATEMENTS), 0..12)
    ) {
        merged_agrees(&flow(&body));
    }

    #[test]
    fn descent_parser_agrees_with_the_clean_file_parser_on_generated_flows(
        body in prop::collection::vec(prop::sample::select(STATEMENTS), 0..12)
    ) {
        descent_agrees(&flow(&body));
    }
}

/// The stream lays out the tokens and reports what the whole layout does, when each token is
/// dropped as soon as the next one is read.
#[test]
fn streamed_layout_gives_the_tokens_of_the_whole_layout() {
    let texts = input_texts("v2");
    assert!(!texts.is_empty(), "no input files");
    for text in &texts {
        for variant in cut_and_left_out(text) {
            let whole = layout(FileId(0), &variant);
            let generated = expanded_ellipses(&variant, &line_starts(&variant));
            let mut stream = Stream::new(FileId(0), &variant, &generated);
            let mut streamed = Vec::new();
            let (mut buf, mut base) = (Vec::new(), 0);
            loop {
                let i = streamed.len();
                if let Some(&t) = buf.get(i - base) {
                    streamed.push(t);
                    continue;
                }
                base = stream.fill(&mut buf, i, i);
                if buf.get(i - base).is_none() {
                    break;
                }
            }
            assert_eq!(whole.toks, streamed, "{variant:?}");
            assert_eq!(
                whole.diagnostics.is_empty(),
                stream.is_clean(),
                "{variant:?}"
            );
        }
    }
}

/// A `{…}` whose first entry is a dict key longer than the stream's window is read again from
/// its start.
#[test]
fn descent_parser_reads_a_long_dict_key_again() {
    let key = (0..1000)
        .map(|i| i.to_string())
        .collect::<Vec<_>>()
        .join(", ");
    let dict = format!("flow a\n  $x = {{$k[{key}]: 1}}\n  $y = 2\n");
    assert!(descent_agrees(&dict));
    let set = format!("flow a\n  $x = {{$k[{key}], 1}}\n  $y = 2\n");
    assert!(descent_agrees(&set));
}
