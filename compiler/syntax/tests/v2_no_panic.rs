//! Parsing Colang 2.x never panics: every corpus file cut at every line and at pseudo-random
//! byte offsets, with pseudo-random byte edits, deeply nested input, and arbitrary strings.

#![cfg(test)]

use std::path::PathBuf;

use proptest::prelude::*;
use stalwart_diagnostics::FileId;
use stalwart_syntax::v2::{inspect_v2, parse_v2};

#[path = "../src/test_inputs/corpus.rs"]
mod corpus;

/// The corpus's Colang 2.x files (none when it is skipped, see `corpus::corpus_dir`) and the
/// fixtures.
fn corpus_texts() -> Vec<String> {
    let fixtures = PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/test_data/v2"));
    let mut texts = Vec::new();
    let corpus = corpus::corpus_dir("colang/v2");
    for d in corpus
        .into_iter()
        .chain([fixtures.join("ok"), fixtures.join("err")])
    {
        for e in std::fs::read_dir(&d).unwrap() {
            let p = e.unwrap().path();
            if p.extension().is_some_and(|x| x == "co") {
                texts.push(String::from_utf8_lossy(&std::fs::read(&p).unwrap()).into_owned());
            }
        }
    }
    texts
}

fn parse_all(text: &str) {
    let p = parse_v2(FileId(0), text);
    let _ = inspect_v2(&p.value);
}

/// A small deterministic generator (xorshift), so runs are reproducible.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
}

#[test]
fn truncated_and_edited_corpus_files_never_panic() {
    let texts = corpus_texts();
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    let mut parsed = 0usize;
    for text in &texts {
        let bytes = text.as_bytes();
        for (i, _) in text.match_indices('\n') {
            parse_all(&String::from_utf8_lossy(&bytes[..i]));
            parsed += 1;
        }
        for _ in 0..20 {
            let cut = rng.below(bytes.len() + 1);
            parse_all(&String::from_utf8_lossy(&bytes[..cut]));
            let mut edited = bytes.to_vec();
            for _ in 0..1 + rng.below(4) {
                if edited.is_empty() {
                    break;
                }
                let at = rng.below(edited.len());
                let pick = b"\t\n ()[]{}:=\"'#.$@-+andorifelse\\\x00\xff";
                edited[at] = pick[rng.below(pick.len())];
            }
            parse_all(&String::from_utf8_lossy(&edited));
            parsed += 2;
        }
    }
    println!("parsed {parsed} variants of {} files", texts.len());
    assert!(parsed > 0);
}

#[test]
fn deep_nesting_is_reported_not_overflowed() {
    let deep_brackets = format!(
        "flow a\n  $x = {}1{}\n",
        "[".repeat(50_000),
        "]".repeat(50_000)
    );
    let p = parse_v2(FileId(0), &deep_brackets);
    assert!(p.diagnostics.iter().any(|d| d.code.id == "E1321"));
    let unary = format!("flow a\n  $x = {}1\n", "-".repeat(50_000));
    assert!(
        parse_v2(FileId(0), &unary)
            .diagnostics
            .iter()
            .any(|d| d.code.id == "E1321")
    );
    let long = format!("flow a\n  $x = 1{}\n", " + 1".repeat(50_000));
    assert!(
        parse_v2(FileId(0), &long)
            .diagnostics
            .iter()
            .any(|d| d.code.id == "E1321")
    );
    let mut indented = String::from("flow a\n");
    for depth in 1..300 {
        indented.push_str(&" ".repeat(depth));
        indented.push_str("if $x\n");
    }
    assert!(
        parse_v2(FileId(0), &indented)
            .diagnostics
            .iter()
            .any(|d| d.code.id == "E1321")
    );
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]
    #[test]
    fn arbitrary_text_never_panics(s in "(flow |if |when |or |and |  |\t|\n|\\$x|=|\\(|\\)|\\[|\\]|\"|'|#|@|\\.\\.\\.|[a-z]{1,4}|[0-9]{1,3})*") {
        parse_all(&s);
    }

    #[test]
    fn arbitrary_unicode_never_panics(s in any::<String>()) {
        parse_all(&s);
    }
}
