//! Reading never panics: every Python fixture and the shop module, cut at every byte offset,
//! parses and renders its diagnostics, each at a span inside the text.

#![allow(
    clippy::unwrap_used,
    clippy::indexing_slicing,
    clippy::string_slice,
    clippy::panic,
    reason = "test code: a failure is a test failure"
)]

use stalwart_agent::parse_python_module;
use stalwart_diagnostics::{FileId, Files, render_text};

fn fixtures() -> Vec<(String, Vec<u8>)> {
    let root = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/python");
    let mut out = Vec::new();
    for dir in ["ok", "bad"] {
        for entry in std::fs::read_dir(format!("{root}/{dir}")).unwrap() {
            let path = entry.unwrap().path();
            out.push((path.display().to_string(), std::fs::read(&path).unwrap()));
        }
    }
    out.push((
        "shop".to_string(),
        include_bytes!("../../../examples/shop/shop/tools.py").to_vec(),
    ));
    out.sort();
    out
}

/// Reads every cut of one text; returns how many cuts were read.
fn read_every_cut(name: &str, bytes: &[u8]) -> usize {
    for end in 0..=bytes.len() {
        let cut = String::from_utf8_lossy(&bytes[..end]);
        let parse = parse_python_module(FileId(0), &cut, "m");
        for d in &parse.diagnostics {
            assert!(
                d.primary.span.end as usize <= cut.len(),
                "{name} cut at {end}: {d:?}"
            );
            for label in &d.secondary {
                assert!(
                    label.span.end as usize <= cut.len(),
                    "{name} cut at {end}: {d:?}"
                );
            }
        }
        if end % 16 == 0 || end == bytes.len() {
            let mut files = Files::new();
            files.insert(FileId(0), "m.py", cut.to_string());
            render_text(&files, &parse.diagnostics);
        }
    }
    bytes.len() + 1
}

#[test]
fn every_truncation_of_every_fixture_reads_without_panicking() {
    let fixtures = fixtures();
    let expected: usize = fixtures.iter().map(|(_, bytes)| bytes.len() + 1).sum();
    let threads = std::thread::available_parallelism()
        .map_or(1, usize::from)
        .clamp(1, 4);
    let cuts: usize = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..threads)
            .map(|i| {
                let mine: Vec<&(String, Vec<u8>)> =
                    fixtures.iter().skip(i).step_by(threads).collect();
                scope.spawn(move || {
                    mine.iter()
                        .map(|(name, bytes)| read_every_cut(name, bytes))
                        .sum::<usize>()
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).sum()
    });
    assert_eq!(cuts, expected);
}
