//! Inputs shared by the unit tests that compare the clean-file parsers' token streams: the
//! corpus and fixture files of a dialect, and each cut at every line and with each line left out.

#![allow(clippy::unwrap_used, clippy::indexing_slicing)]

pub(crate) mod corpus;

/// The corpus files (from `shared/corpus` beside the repository: a test fails without them
/// unless `STALWART_SKIP_CORPUS=1` is set, see [`corpus::corpus_dir`]) and the fixtures of
/// `dialect` (`v1` or `v2`), read as UTF-8 with replacement characters.
pub(crate) fn input_texts(dialect: &str) -> Vec<String> {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut texts = Vec::new();
    let corpus = corpus::corpus_dir(&format!("colang/{dialect}"));
    for dir in corpus.into_iter().chain([
        root.join("test_data").join(dialect).join("ok"),
        root.join("test_data").join(dialect).join("err"),
    ]) {
        let entries = std::fs::read_dir(&dir).unwrap();
        for entry in entries {
            let bytes = std::fs::read(entry.unwrap().path()).unwrap();
            texts.push(String::from_utf8_lossy(&bytes).into_owned());
        }
    }
    texts
}

/// The text cut after each of its lines (and before the first), then the text with each of its
/// lines left out.
pub(crate) fn cut_and_left_out(text: &str) -> Vec<String> {
    let lines: Vec<&str> = text.split_inclusive('\n').collect();
    let mut out: Vec<String> = (0..=lines.len()).map(|cut| lines[..cut].concat()).collect();
    for left_out in 0..lines.len() {
        let mut kept = lines.clone();
        kept.remove(left_out);
        out.push(kept.concat());
    }
    out
}
