//! Parsing never panics: every corpus file (both dialects) cut at every line and at many byte
//! offsets, with byte edits, and random Colang-like text.

#![allow(
    clippy::unwrap_used,
    clippy::panic,
    clippy::indexing_slicing,
    clippy::string_slice
)]

use std::path::PathBuf;

use proptest::prelude::*;
use stalwart_diagnostics::FileId;
use stalwart_syntax::{inspect_v1, parse_condition, parse_v1};

#[path = "../src/test_inputs/corpus.rs"]
mod corpus;

/// The corpus's files of both dialects; `None` when it is skipped (see `corpus::corpus_dir`).
fn corpus_texts() -> Option<Vec<String>> {
    let root: PathBuf = corpus::corpus_dir("colang")?;
    let mut out = Vec::new();
    for dir in ["v1", "v2"] {
        let entries = std::fs::read_dir(root.join(dir)).unwrap();
        for entry in entries {
            let path = entry.unwrap().path();
            if path.extension().is_some_and(|e| e == "co") {
                out.push(String::from_utf8_lossy(&std::fs::read(&path).unwrap()).into_owned());
            }
        }
    }
    Some(out)
}

fn check(text: &str) {
    let parsed = parse_v1(FileId(0), text);
    let _ = inspect_v1(&parsed.value);
    for d in &parsed.diagnostics {
        assert!(d.primary.span.start <= d.primary.span.end);
        assert!(
            d.primary.span.end as usize <= text.len(),
            "span past the end: {d:?}"
        );
    }
}

#[test]
fn truncated_and_edited_corpus_files_never_panic() {
    let Some(texts) = corpus_texts() else {
        return;
    };
    assert!(!texts.is_empty(), "the corpus holds no .co files");
    let mut runs = 0;
    for text in &texts {
        for (i, _) in text.match_indices('\n') {
            check(&text[..i]);
            runs += 1;
        }
        let mut seed = text.len() as u64 | 1;
        for _ in 0..20 {
            seed = seed
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            let at = (seed >> 33) as usize % (text.len() + 1);
            let at = (0..=at)
                .rev()
                .find(|i| text.is_char_boundary(*i))
                .unwrap_or(0);
            check(&text[..at]);
            let mut bytes = text.as_bytes().to_vec();
            if !bytes.is_empty() {
                let pos = at.min(bytes.len() - 1);
                bytes[pos] = b"\t \n\"#:(\\$"[(seed as usize >> 7) % 9];
            }
            check(&String::from_utf8_lossy(&bytes));
            runs += 2;
        }
    }
    println!("parsed {runs} variants of {} corpus files", texts.len());
}

#[test]
fn a_keyword_shorter_than_the_one_named_keeps_its_span_inside_the_text() {
    // `elif` (an error in 1.0) is read as an `else if`; without a condition, that error's label
    // must not run past the four bytes written.
    for text in [
        "define flow a\n  if $a\n    bot x\n  elif",
        "define flow a\n  if $a\n    bot x\n  elif\n    bot y\n",
    ] {
        check(text);
        let parsed = parse_v1(FileId(0), text);
        let e1018 = parsed
            .diagnostics
            .iter()
            .find(|d| d.code.id == "E1018")
            .unwrap();
        let at = text.find("elif").unwrap() as u32;
        assert_eq!(
            (e1018.primary.span.start, e1018.primary.span.end),
            (at, at + 4)
        );
    }
}

#[test]
fn deep_nesting_is_reported_not_crashed() {
    let mut text = String::from("define flow deep\n");
    for depth in 1..400 {
        text.push_str(&" ".repeat(depth * 2));
        text.push_str("if $x\n");
    }
    let parsed = parse_v1(FileId(0), &text);
    assert!(parsed.diagnostics.iter().any(|d| d.code.id == "E1017"));
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 512, ..ProptestConfig::default() })]

    #[test]
    fn random_colang_like_text_never_panics(
        parts in proptest::collection::vec(
            prop_oneof![
                Just("define ".to_string()), Just("flow ".to_string()), Just("user ".to_string()), Just("bot ".to_string()), Just("if ".to_string()), Just("else".to_string()),
                Just("when ".to_string()), Just("else when ".to_string()), Just("execute ".to_string()), Just("$x = ".to_string()), Just("\n".to_string()), Just("\n  ".to_string()),
                Just("\n    ".to_string()), Just("\t".to_string()), Just("\"".to_string()), Just("\"\"\"".to_string()), Just("#".to_string()), Just("(".to_string()), Just(")".to_string()),
                Just(" or".to_string()), Just("\\".to_string()), Just(":".to_string()), Just("$a".to_string()), Just("==".to_string()), Just("not ".to_string()), Just("and ".to_string()),
                "[a-z]{1,6}", "\\PC{0,3}",
            ],
            0..40,
        )
    ) {
        let text: String = parts.concat();
        check(&text);
        let _ = parse_condition(FileId(0), &text, 0);
    }
}
