//! agent.yaml's `overrides:`: fields set for tools other sources declare, applied over the
//! source's, listed on the tool; an override of a tool nobody declares, or one that renames, is
//! an error.

#![allow(
    clippy::unwrap_used,
    clippy::indexing_slicing,
    clippy::string_slice,
    clippy::panic,
    reason = "test code: a failure is a test failure"
)]

use stalwart_agent::{
    ArgumentKind, Effects, ToolDecl, apply_overrides, parse_agent, parse_mcp, resolve_agent,
};
use stalwart_diagnostics::FileId;

const ANSWER: &str = r#"{"tools": [
  {"name": "fetch", "inputSchema": {"type": "object", "properties": {"url": {"type": "string"}}},
   "annotations": {"readOnlyHint": true, "openWorldHint": true}},
  {"name": "get_file_contents", "inputSchema": {"type": "object", "properties": {"path": {"type": "string"}}}}
]}"#;

/// The tools of the answer with the overrides of `agent` applied, and every diagnostic.
fn read(agent: &str) -> (Vec<ToolDecl>, Vec<(String, String)>) {
    let parsed = parse_agent(FileId(0), agent);
    let mut tools = parse_mcp(FileId(1), ANSWER, "servers/answer.json").value;
    apply_overrides(&mut tools, &parsed.value.overrides);
    let mut diagnostics: Vec<(String, String)> = parsed
        .diagnostics
        .iter()
        .map(|d| (d.code.id.to_string(), d.message.clone()))
        .collect();
    diagnostics.extend(
        resolve_agent(&parsed.value, &tools)
            .into_iter()
            .map(|d| (d.code.id.to_string(), d.message)),
    );
    (tools, diagnostics)
}

const HEAD: &str =
    "agents:\n  desk: {tools: [fetch, get_file_contents]}\ntools:\n  - mcp: servers/answer.json\n";

#[test]
fn an_override_sets_what_the_source_cannot_say_and_wins() {
    let agent = format!(
        "{HEAD}overrides:\n  get_file_contents: {{effects: reads, reads_outside: true}}\n  fetch: {{argument_kinds: {{url: destination}}, reads_outside: false}}\n"
    );
    let (tools, diagnostics) = read(&agent);
    assert_eq!(diagnostics, vec![]);
    let fetch = &tools[0];
    assert_eq!(
        fetch.effects.as_ref().map(|e| e.value),
        Some(Effects::Reads)
    );
    assert_eq!(fetch.reads_outside.as_ref().map(|r| r.value), Some(false));
    assert_eq!(
        fetch
            .argument_kinds
            .iter()
            .map(|(a, k)| (a.value.as_str(), k.value))
            .collect::<Vec<_>>(),
        vec![("url", ArgumentKind::Destination)]
    );
    assert_eq!(fetch.overridden, vec!["argument_kinds", "reads_outside"]);
    let read_tool = &tools[1];
    assert_eq!(
        read_tool.effects.as_ref().map(|e| e.value),
        Some(Effects::Reads)
    );
    assert_eq!(read_tool.overridden, vec!["effects", "reads_outside"]);
    // The span of an overridden field is in agent.yaml, the tool's own in the answer.
    assert_eq!(read_tool.effects.as_ref().unwrap().span.file, FileId(0));
    assert_eq!(read_tool.name.span.file, FileId(1));
}

#[test]
fn an_override_of_a_tool_nobody_declares_suggests_the_nearest() {
    let agent = format!("{HEAD}overrides:\n  get_file_content: {{effects: reads}}\n");
    let (_, diagnostics) = read(&agent);
    assert_eq!(
        diagnostics,
        vec![(
            "E0162".to_string(),
            "`overrides:` names `get_file_content`, which no source declares".to_string()
        )]
    );
    let parsed = parse_agent(FileId(0), &agent);
    let tools = parse_mcp(FileId(1), ANSWER, "a.json").value;
    let d = resolve_agent(&parsed.value, &tools).pop().unwrap();
    assert_eq!(d.help.as_deref(), Some("did you mean `get_file_contents`?"));
    assert_eq!(&agent[d.primary.span.range()], "get_file_content");
}

#[test]
fn an_override_cannot_rename_and_reads_keys_as_a_declaration_does() {
    let agent = format!("{HEAD}overrides:\n  fetch: {{name: other, efects: reads}}\n");
    let (_, diagnostics) = read(&agent);
    assert_eq!(
        diagnostics,
        vec![
            (
                "E0101".to_string(),
                "override of `fetch`: an override cannot rename a tool".to_string()
            ),
            (
                "E0101".to_string(),
                "override of `fetch`: unknown key `efects`".to_string()
            ),
        ]
    );
}

#[test]
fn an_inline_tool_of_the_same_name_is_still_a_duplicate_and_points_to_overrides() {
    let agent = format!("{HEAD}  - name: fetch\n    effects: reads\n");
    let parsed = parse_agent(FileId(0), &agent);
    let mut tools = parse_mcp(FileId(1), ANSWER, "a.json").value;
    for entry in &parsed.value.tools {
        if let stalwart_agent::ToolEntry::Inline(t) = entry {
            tools.push((**t).clone());
        }
    }
    let d = resolve_agent(&parsed.value, &tools)
        .into_iter()
        .find(|d| d.code.id == "E0152")
        .unwrap();
    assert_eq!(
        d.help.as_deref(),
        Some(
            "to set fields of `fetch` that its source cannot say, write them under `overrides:` instead of declaring it again"
        )
    );
}
