//! Python fixtures that read cleanly (`fixtures/python/ok/`): every type-hint form, every
//! decorator spelling, docstrings. Each module's tools are snapshotted as name, description and
//! the argument and result schemas.

#![allow(
    clippy::unwrap_used,
    clippy::indexing_slicing,
    clippy::string_slice,
    clippy::panic,
    reason = "test code: a failure is a test failure"
)]

use std::fmt::Write as _;

use stalwart_agent::{Effects, ToolDecl, parse_python_module};
use stalwart_diagnostics::{FileId, Files, render_text};

fn fixture(name: &str) -> String {
    let path = format!(
        "{}/tests/fixtures/python/ok/{name}.py",
        env!("CARGO_MANIFEST_DIR")
    );
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

/// The module's tools, which must read without diagnostics.
fn tools(name: &str) -> Vec<ToolDecl> {
    let text = fixture(name);
    let parse = parse_python_module(FileId(0), &text, &format!("fixtures.{name}"));
    let mut files = Files::new();
    files.insert(FileId(0), format!("{name}.py"), text.clone());
    assert_eq!(render_text(&files, &parse.diagnostics), "");
    parse.value
}

fn pretty(value: Option<&serde_json::Value>) -> String {
    value.map_or_else(|| "none".to_string(), |v| serde_json::to_string(v).unwrap())
}

fn summary(tools: &[ToolDecl]) -> String {
    let mut out = String::new();
    for t in tools {
        writeln!(
            out,
            "{}: {}",
            t.name.value,
            t.description.as_deref().unwrap_or("(no description)")
        )
        .unwrap();
        writeln!(
            out,
            "  arguments: {}",
            pretty(t.arguments.as_ref().map(|a| &a.value))
        )
        .unwrap();
        writeln!(
            out,
            "  result: {}",
            pretty(t.result.as_ref().map(|a| &a.value))
        )
        .unwrap();
    }
    out
}

#[test]
fn type_hints() {
    insta::assert_snapshot!(summary(&tools("type_hints")));
}

#[test]
fn docstrings() {
    insta::assert_snapshot!(summary(&tools("docstrings")));
}

#[test]
fn decorator_forms() {
    let tools = tools("decorator_forms");
    insta::assert_snapshot!(summary(&tools));
    let effects: Vec<(&str, Option<Effects>)> = tools
        .iter()
        .map(|t| (t.name.value.as_str(), t.effects.as_ref().map(|e| e.value)))
        .collect();
    assert_eq!(
        effects,
        [
            ("bare", None),
            ("empty_call", None),
            ("dotted", Some(Effects::Reads)),
            ("aliased", Some(Effects::Changes)),
            ("renamed_tool", Some(Effects::Reads)),
            ("stacked", Some(Effects::Changes)),
        ]
    );
    let aliased = &tools[3];
    assert_eq!(aliased.sends_out.as_ref().map(|s| s.value), Some(true));
}

#[test]
fn decorator_fields_win_over_the_signature() {
    let text = "from stalwart_agents import tool\n\n\
        @tool(\n    description=\"From the decorator.\",\n    arguments={\"type\": \"object\", \"properties\": {\"q\": {\"type\": \"string\"}}},\n    result={\"type\": \"string\"},\n)\n\
        def search(query: str, limit: int = 10) -> list[str]:\n    \"\"\"From the docstring.\"\"\"\n";
    let parse = parse_python_module(FileId(0), text, "m");
    assert_eq!(parse.diagnostics, vec![]);
    let t = &parse.value[0];
    assert_eq!(t.description.as_deref(), Some("From the decorator."));
    assert_eq!(
        t.arguments
            .as_ref()
            .map(|a| (&a.value, &text[a.span.range()])),
        Some((
            &serde_json::json!({"type": "object", "properties": {"q": {"type": "string"}}}),
            "{\"type\": \"object\", \"properties\": {\"q\": {\"type\": \"string\"}}}"
        ))
    );
    assert_eq!(
        t.result.as_ref().map(|r| r.value.clone()),
        Some(serde_json::json!({"type": "string"}))
    );
}
