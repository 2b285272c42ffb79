//! Reading never panics: every MCP fixture, cut at every byte offset, parses and renders its
//! diagnostics, each at a span inside the text.

#![allow(
    clippy::unwrap_used,
    clippy::indexing_slicing,
    clippy::string_slice,
    clippy::panic,
    reason = "test code: a failure is a test failure"
)]

use stalwart_agent::parse_mcp;
use stalwart_diagnostics::{FileId, Files, render_text};

#[test]
fn every_truncation_of_every_fixture_reads_without_panicking() {
    let root = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/mcp");
    let mut cuts = 0usize;
    for dir in ["ok", "bad"] {
        for entry in std::fs::read_dir(format!("{root}/{dir}")).unwrap() {
            let path = entry.unwrap().path();
            let bytes = std::fs::read(&path).unwrap();
            for end in 0..=bytes.len() {
                let cut = String::from_utf8_lossy(&bytes[..end]);
                let parse = parse_mcp(FileId(0), &cut, "answer.json");
                for d in &parse.diagnostics {
                    assert!(
                        d.primary.span.end as usize <= cut.len(),
                        "{} cut at {end}: {d:?}",
                        path.display()
                    );
                }
                let mut files = Files::new();
                files.insert(FileId(0), "answer.json", cut.to_string());
                render_text(&files, &parse.diagnostics);
                cuts += 1;
            }
        }
    }
    assert!(cuts > 2_000, "only {cuts} cuts");
}
