//! Bad Python tool modules (`fixtures/python/bad/`): the rendered diagnostics of each, snapshotted,
//! and the tools each still yields.

#![allow(
    clippy::unwrap_used,
    clippy::indexing_slicing,
    clippy::string_slice,
    clippy::panic,
    reason = "test code: a failure is a test failure"
)]

use stalwart_agent::parse_python_module;
use stalwart_diagnostics::{FileId, Files, render_text, sort};

const DIR: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/python/bad");

/// The rendered diagnostics of a fixture, then the names of the tools it still yields.
fn check(name: &str) -> String {
    let path = format!("{DIR}/{name}.py");
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    let parse = parse_python_module(FileId(0), &text, name);
    let mut diagnostics = parse.diagnostics;
    assert!(!diagnostics.is_empty(), "{name} gives no diagnostics");
    sort(&mut diagnostics);
    let mut files = Files::new();
    files.insert(FileId(0), format!("{name}.py"), text);
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
                .map(|e| e.unwrap().file_name().to_string_lossy().trim_end_matches(".py").to_string())
                .collect();
            found.sort_unstable();
            assert_eq!(found, listed);
        }
    };
}

bad!(
    bad_name_and_repeated_decorator,
    bad_type_hints,
    duplicate_keyword,
    fstring_value,
    misplaced_decorators,
    missing_return_type,
    non_literal_call,
    non_literal_variable,
    non_string_keys,
    number_out_of_range,
    operators_and_unpacking,
    positional_argument,
    recursive_typed_dict,
    too_deep,
    unclosed_decorator,
    unknown_types,
    unsupported_literals,
    variadic_parameters,
);
