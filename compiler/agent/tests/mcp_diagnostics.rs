//! Bad MCP answers (`fixtures/mcp/bad/`): the rendered diagnostics of each, snapshotted, and
//! the tools each still yields.

#![allow(
    clippy::unwrap_used,
    clippy::indexing_slicing,
    clippy::string_slice,
    clippy::panic,
    reason = "test code: a failure is a test failure"
)]

use stalwart_agent::parse_mcp;
use stalwart_diagnostics::{FileId, Files, render_text, sort};

const DIR: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/mcp/bad");

fn check(name: &str) -> String {
    let path = format!("{DIR}/{name}.json");
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    let parse = parse_mcp(FileId(0), &text, &format!("{name}.json"));
    let mut diagnostics = parse.diagnostics;
    assert!(!diagnostics.is_empty(), "{name} gives no diagnostics");
    sort(&mut diagnostics);
    let mut files = Files::new();
    files.insert(FileId(0), format!("{name}.json"), text);
    let names: Vec<&str> = parse.value.iter().map(|t| t.name.value.as_str()).collect();
    format!("{}tools: {names:?}\n", render_text(&files, &diagnostics))
}

macro_rules! bad {
    ($($name:ident),* $(,)?) => {
        $(
            #[test]
            fn $name() {
                insta::assert_snapshot!(check(stringify!($name)));
            }
        )*

        #[test]
        fn every_bad_fixture_has_a_test() {
            let mut listed = vec![$(stringify!($name)),*];
            listed.sort_unstable();
            let mut found: Vec<String> = std::fs::read_dir(DIR)
                .unwrap()
                .map(|e| e.unwrap().file_name().to_string_lossy().trim_end_matches(".json").to_string())
                .collect();
            found.sort_unstable();
            assert_eq!(found, listed);
        }
    };
}

bad!(
    contradicting_hints,
    empty,
    entries_not_objects,
    error_response,
    no_result,
    no_tools,
    not_json,
    paginated,
    scalar_answer,
    tools_not_a_list,
    wrong_member_types,
);
