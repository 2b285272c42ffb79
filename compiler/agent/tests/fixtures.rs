//! Fixture-driven tests of agent.yaml: every `fixtures/bad/*.yaml` gives at least one error and
//! its rendered diagnostics are snapshotted; every `fixtures/warn/*.yaml` gives warnings and no
//! error, snapshotted too; every `fixtures/ok/*.yaml` (and the shop) gives none;
//! no prefix of any fixture makes the front end panic.

#![allow(
    clippy::unwrap_used,
    clippy::indexing_slicing,
    clippy::string_slice,
    clippy::panic,
    reason = "test code: a failure is a test failure"
)]

use std::fs;
use std::path::{Path, PathBuf};

use stalwart_agent::{ToolDecl, parse_agent, parse_catalogue, resolve_agent};
use stalwart_diagnostics::{Diagnostic, FileId, Files, render_text, sort};

fn fixtures(dir: &str) -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(dir);
    let mut paths: Vec<PathBuf> = fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    paths.sort();
    paths
}

fn shop_tools() -> Vec<ToolDecl> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/catalogue/shop.yaml");
    let parsed = parse_catalogue(FileId(1), &fs::read_to_string(path).unwrap(), "shop.yaml");
    assert_eq!(parsed.diagnostics, Vec::new());
    parsed.value
}

/// Parses and resolves agent.yaml text against `tools`.
fn check(text: &str, tools: &[ToolDecl]) -> Vec<Diagnostic> {
    let parsed = parse_agent(FileId(0), text);
    let mut diagnostics = parsed.diagnostics;
    diagnostics.extend(resolve_agent(&parsed.value, tools));
    sort(&mut diagnostics);
    diagnostics
}

fn render(text: &str, diagnostics: &[Diagnostic]) -> String {
    let mut files = Files::new();
    files.insert(FileId(0), "agent.yaml", text);
    render_text(&files, diagnostics)
}

/// Checks every fixture of `folder` with `expect`, and snapshots what it renders under
/// `snapshots/<folder>`.
fn snapshot_each(folder: &str, expect: impl Fn(&str, &[Diagnostic])) {
    let paths = fixtures(folder);
    assert!(!paths.is_empty(), "no fixture in {folder}");
    let mut settings = insta::Settings::clone_current();
    settings.set_snapshot_path(format!("snapshots/{folder}"));
    settings.set_prepend_module_to_snapshot(false);
    settings.bind(|| {
        for path in &paths {
            let name = path.file_stem().unwrap().to_str().unwrap();
            let text = fs::read_to_string(path).unwrap();
            let diagnostics = check(&text, &[]);
            expect(name, &diagnostics);
            insta::assert_snapshot!(name, render(&text, &diagnostics));
        }
    });
}

#[test]
fn bad_fixtures_give_errors() {
    let count = fixtures("bad").len();
    assert!(count >= 35, "only {count} bad fixtures");
    snapshot_each("bad", |name, diagnostics| {
        assert!(
            diagnostics.iter().any(Diagnostic::is_error),
            "{name} gives no error"
        );
    });
}

#[test]
fn warn_fixtures_give_warnings_and_no_error() {
    snapshot_each("warn", |name, diagnostics| {
        assert!(!diagnostics.is_empty(), "{name} gives no warning");
        assert!(
            !diagnostics.iter().any(Diagnostic::is_error),
            "{name} gives an error"
        );
    });
}

#[test]
fn ok_fixtures_give_no_diagnostics() {
    for path in fixtures("ok") {
        let text = fs::read_to_string(&path).unwrap();
        let diagnostics = check(&text, &[]);
        assert_eq!(render(&text, &diagnostics), "", "{}", path.display());
    }
}

#[test]
fn the_shop_gives_no_diagnostics() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/shop/agent.yaml");
    let text = fs::read_to_string(path).unwrap();
    let diagnostics = check(&text, &shop_tools());
    assert_eq!(render(&text, &diagnostics), "");
}

#[test]
fn the_shop_without_its_tools_names_each_missing_one() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/shop/agent.yaml");
    let text = fs::read_to_string(path).unwrap();
    let codes: Vec<&str> = check(&text, &[]).iter().map(|d| d.code.id).collect();
    assert_eq!(codes, ["E0150"; 5]);
}

#[test]
fn no_prefix_of_any_fixture_panics() {
    let mut paths = fixtures("bad");
    paths.extend(fixtures("warn"));
    paths.extend(fixtures("ok"));
    paths.extend(fixtures("catalogue"));
    paths.push(Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/shop/agent.yaml"));
    let tools = shop_tools();
    for path in paths {
        let text = fs::read_to_string(&path).unwrap();
        for end in (0..=text.len()).filter(|i| text.is_char_boundary(*i)) {
            let prefix = &text[..end];
            let diagnostics = check(prefix, &tools);
            let _ = parse_catalogue(FileId(0), prefix, "c.yaml");
            // Rendering is slow in debug builds: every eighth prefix is enough to cover it.
            if end % 8 == 0 {
                let _ = render(prefix, &diagnostics);
            }
        }
    }
}

#[test]
fn deeply_nested_input_is_reported_not_a_crash() {
    let text = format!(
        "agents:\n  desk:\n    tools: {}x{}\n",
        "[".repeat(5000),
        "]".repeat(5000)
    );
    let diagnostics = check(&text, &[]);
    assert!(diagnostics.iter().any(Diagnostic::is_error));
    let text = format!(
        "agents:\n  desk:\n    tools: {}\n",
        "{a: ".repeat(200) + &"}".repeat(200)
    );
    assert!(check(&text, &[]).iter().any(|d| d.code.id == "E0114"));
}
