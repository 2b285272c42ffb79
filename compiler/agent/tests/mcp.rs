//! MCP `tools/list` answers: the three accepted shapes and the mapping of every annotation.

#![allow(
    clippy::unwrap_used,
    clippy::indexing_slicing,
    clippy::string_slice,
    clippy::panic,
    reason = "test code: a failure is a test failure"
)]

use serde_json::json;
use stalwart_agent::{Effects, IdempotencyDecl, ToolDecl, ToolOrigin, parse_mcp};
use stalwart_diagnostics::{Diagnostic, FileId};

fn fixture(name: &str) -> String {
    let path = format!(
        "{}/tests/fixtures/mcp/ok/{name}.json",
        env!("CARGO_MANIFEST_DIR")
    );
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

fn read(text: &str) -> (Vec<ToolDecl>, Vec<Diagnostic>) {
    let parse = parse_mcp(FileId(1), text, "servers/shop.json");
    (parse.value, parse.diagnostics)
}

/// The one tool of a bare list holding `tool`, which must read without diagnostics.
fn one(tool: serde_json::Value) -> ToolDecl {
    let (tools, diagnostics) = read(&json!([tool]).to_string());
    assert_eq!(diagnostics, vec![]);
    assert_eq!(tools.len(), 1);
    tools.into_iter().next().unwrap()
}

/// The declaration fields the annotations set: effects, idempotency, reads_outside, sends_out.
fn mapped(
    annotations: serde_json::Value,
) -> (
    Option<Effects>,
    Option<IdempotencyDecl>,
    Option<bool>,
    Option<bool>,
) {
    let t =
        one(json!({"name": "t", "inputSchema": {"type": "object"}, "annotations": annotations}));
    (
        t.effects.map(|e| e.value),
        t.idempotency.map(|i| i.value),
        t.reads_outside.map(|r| r.value),
        t.sends_out.map(|s| s.value),
    )
}

#[test]
fn json_rpc_response() {
    let text = fixture("response");
    let (tools, diagnostics) = read(&text);
    assert_eq!(diagnostics, vec![]);
    let names: Vec<&str> = tools.iter().map(|t| t.name.value.as_str()).collect();
    assert_eq!(
        names,
        [
            "get_order",
            "read_inbox",
            "charge_card",
            "send_receipt",
            "ping"
        ]
    );
    let get_order = &tools[0];
    assert_eq!(
        get_order.origin,
        ToolOrigin::Mcp("servers/shop.json".to_string())
    );
    assert_eq!(get_order.description.as_deref(), Some("Look up an order."));
    assert_eq!(
        get_order.arguments.as_ref().unwrap().value,
        json!({"type": "object", "properties": {"order_id": {"type": "string"}}, "required": ["order_id"]})
    );
    assert_eq!(
        get_order.result.as_ref().unwrap().value,
        json!({"type": "object", "properties": {"status": {"type": "string"}, "total": {"type": "number"}}})
    );
    assert_eq!(&text[get_order.name.span.range()], "\"get_order\"");
    assert_eq!(
        get_order
            .effects
            .as_ref()
            .map(|e| (e.value, &text[e.span.range()])),
        Some((Effects::Reads, "true"))
    );
    assert_eq!(
        (get_order.reads_outside.clone(), get_order.sends_out.clone()),
        (None, None)
    );
    assert_eq!(get_order.source, None);
    assert!(text[get_order.span.range()].starts_with("{\n        \"name\": \"get_order\""));
    assert!(text[get_order.span.range()].ends_with('}'));

    let read_inbox = &tools[1];
    assert_eq!(
        read_inbox.effects.as_ref().map(|e| e.value),
        Some(Effects::Reads)
    );
    assert_eq!(
        read_inbox.reads_outside.as_ref().map(|r| r.value),
        Some(true)
    );
    assert_eq!(read_inbox.result, None);

    let charge = &tools[2];
    assert_eq!(
        charge.effects.as_ref().map(|e| e.value),
        Some(Effects::Changes)
    );
    assert_eq!(charge.idempotency, None);

    let receipt = &tools[3];
    assert_eq!(
        receipt.effects.as_ref().map(|e| e.value),
        Some(Effects::Changes)
    );
    assert_eq!(
        receipt.idempotency.as_ref().map(|i| i.value.clone()),
        Some(IdempotencyDecl::RetrySafe)
    );
    assert_eq!(receipt.sends_out.as_ref().map(|s| s.value), Some(true));
    assert_eq!(receipt.description, None);

    let ping = &tools[4];
    assert_eq!(
        (
            ping.effects.clone(),
            ping.idempotency.clone(),
            ping.sends_out.clone()
        ),
        (None, None, None)
    );
}

#[test]
fn result_object_alone() {
    let (tools, diagnostics) = read(&fixture("result_only"));
    assert_eq!(diagnostics, vec![]);
    assert_eq!(tools.len(), 1);
    assert_eq!(tools[0].name.value, "lookup");
    assert_eq!(
        tools[0].effects.as_ref().map(|e| e.value),
        Some(Effects::Reads)
    );
    assert_eq!(
        tools[0].arguments.as_ref().map(|a| a.value.clone()),
        Some(json!({"type": "object"}))
    );
}

#[test]
fn bare_list() {
    let (tools, diagnostics) = read(&fixture("bare_list"));
    assert_eq!(diagnostics, vec![]);
    let effects: Vec<(&str, Option<Effects>)> = tools
        .iter()
        .map(|t| (t.name.value.as_str(), t.effects.as_ref().map(|e| e.value)))
        .collect();
    assert_eq!(
        effects,
        [("lookup", None), ("delete", Some(Effects::Changes))]
    );
}

#[test]
fn empty_tool_list() {
    assert_eq!(read("[]"), (vec![], vec![]));
    assert_eq!(read("{\"tools\": []}"), (vec![], vec![]));
    assert_eq!(
        read("{\"jsonrpc\": \"2.0\", \"id\": 1, \"result\": {\"tools\": []}}"),
        (vec![], vec![])
    );
}

#[test]
fn read_only_hint_true_is_reads() {
    assert_eq!(
        mapped(json!({"readOnlyHint": true})),
        (Some(Effects::Reads), None, None, None)
    );
}

#[test]
fn read_only_hint_false_is_changes() {
    assert_eq!(
        mapped(json!({"readOnlyHint": false})),
        (Some(Effects::Changes), None, None, None)
    );
}

#[test]
fn destructive_hint_is_changes_either_way() {
    assert_eq!(
        mapped(json!({"destructiveHint": true})),
        (Some(Effects::Changes), None, None, None)
    );
    assert_eq!(
        mapped(json!({"destructiveHint": false})),
        (Some(Effects::Changes), None, None, None)
    );
    assert_eq!(
        mapped(json!({"readOnlyHint": false, "destructiveHint": false})),
        (Some(Effects::Changes), None, None, None)
    );
}

#[test]
fn read_only_wins_over_a_false_destructive_hint() {
    assert_eq!(
        mapped(json!({"readOnlyHint": true, "destructiveHint": false})),
        (Some(Effects::Reads), None, None, None)
    );
}

#[test]
fn idempotent_hint_true_is_retry_safe() {
    assert_eq!(
        mapped(json!({"readOnlyHint": false, "idempotentHint": true})),
        (
            Some(Effects::Changes),
            Some(IdempotencyDecl::RetrySafe),
            None,
            None
        )
    );
    assert_eq!(
        mapped(json!({"idempotentHint": false})),
        (None, None, None, None)
    );
}

#[test]
fn open_world_hint_is_reads_outside_for_reads() {
    assert_eq!(
        mapped(json!({"readOnlyHint": true, "openWorldHint": true})),
        (Some(Effects::Reads), None, Some(true), None)
    );
}

#[test]
fn open_world_hint_is_sends_out_for_writes() {
    assert_eq!(
        mapped(json!({"readOnlyHint": false, "openWorldHint": true})),
        (Some(Effects::Changes), None, None, Some(true))
    );
    // Unknown effects count as a write.
    assert_eq!(
        mapped(json!({"openWorldHint": true})),
        (None, None, None, Some(true))
    );
}

#[test]
fn closed_world_and_absent_hints_set_nothing() {
    assert_eq!(
        mapped(json!({"openWorldHint": false})),
        (None, None, None, None)
    );
    assert_eq!(mapped(json!({})), (None, None, None, None));
    assert_eq!(mapped(json!(null)), (None, None, None, None));
    assert_eq!(
        mapped(json!({"readOnlyHint": null})),
        (None, None, None, None)
    );
}

#[test]
fn title_and_unknown_members_are_ignored() {
    let t = one(json!({
        "name": "t",
        "title": "A title",
        "inputSchema": {"type": "object"},
        "annotations": {"title": "Another", "futureHint": "x", "readOnlyHint": true},
        "icons": [],
        "_meta": {"a": 1},
        "somethingNew": 3
    }));
    assert_eq!(t.effects.map(|e| e.value), Some(Effects::Reads));
    assert_eq!(t.description, None);
}

#[test]
fn contradicting_hints_are_a_write_with_a_warning() {
    let text =
        json!([{"name": "t", "annotations": {"readOnlyHint": true, "destructiveHint": true}}])
            .to_string();
    let (tools, diagnostics) = read(&text);
    assert_eq!(
        tools[0].effects.as_ref().map(|e| e.value),
        Some(Effects::Changes)
    );
    let codes: Vec<(&str, bool)> = diagnostics
        .iter()
        .map(|d| (d.code.id, d.is_error()))
        .collect();
    assert_eq!(codes, [("E0257", false)]);
}

#[test]
fn missing_input_schema_leaves_arguments_unset() {
    let t = one(json!({"name": "t"}));
    assert_eq!(t.arguments, None);
    assert_eq!(t.result, None);
}

#[test]
fn yaml_text_is_read_too() {
    let (tools, diagnostics) =
        read("tools:\n  - name: lookup\n    annotations: {readOnlyHint: true}\n");
    assert_eq!(diagnostics, vec![]);
    assert_eq!(
        tools[0].effects.as_ref().map(|e| e.value),
        Some(Effects::Reads)
    );
}
