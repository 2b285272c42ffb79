//! Where the tests find the shared corpus of Colang files (`shared/corpus` beside the
//! repository), and what they do when it is missing: fail, naming the path, unless the variable
//! `STALWART_SKIP_CORPUS=1` is set, in which case they say so and skip what needs the corpus.
//!
//! Plain `std` code in a file of its own, so that the tests of other crates include the same
//! file (`#[path = "…/compiler/syntax/src/test_inputs/corpus.rs"] mod corpus;`) rather than a
//! copy of it.

use std::path::PathBuf;

/// The variable that lets the tests pass without the corpus.
const SKIP: &str = "STALWART_SKIP_CORPUS";

/// The folder `sub` of the corpus (`colang`, `colang/v1`, …). When it is missing: `None` if
/// `STALWART_SKIP_CORPUS=1` is set (after printing that the corpus is skipped because of it),
/// else a panic naming the path.
pub fn corpus_dir(sub: &str) -> Option<PathBuf> {
    // Every crate of the workspace sits two folders below its root, and `shared` beside it.
    let beside = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../..");
    let dir = beside
        .canonicalize()
        .unwrap_or(beside)
        .join("shared/corpus")
        .join(sub);
    if dir.is_dir() {
        return Some(dir);
    }
    if std::env::var(SKIP).is_ok_and(|v| v == "1") {
        println!(
            "skipping the corpus: {} is missing and {SKIP}=1 is set",
            dir.display()
        );
        return None;
    }
    // `allow`, not `expect`: the lint fires or not depending on the crate including this file.
    #[allow(
        clippy::panic,
        reason = "a missing corpus fails the test that needs it"
    )]
    {
        panic!(
            "the corpus is missing: {} does not exist (put the shared corpus there, or set \
             {SKIP}=1 to skip the tests that read it)",
            dir.display()
        )
    }
}
