//! The shop's tool module (examples/shop/shop/tools.py) yields exactly the five tools of DESIGN
//! §10: names, descriptions, argument and result schemas, and each decorator's declaration.

#![allow(
    clippy::unwrap_used,
    clippy::indexing_slicing,
    clippy::string_slice,
    clippy::panic,
    reason = "test code: a failure is a test failure"
)]

use serde_json::{Value, json};
use stalwart_agent::{
    Effects, IdempotencyDecl, ToolDecl, ToolOrigin, UndoDecl, parse_python_module,
};
use stalwart_diagnostics::FileId;

const SHOP: &str = include_str!("../../../examples/shop/shop/tools.py");

fn shop() -> Vec<ToolDecl> {
    let parse = parse_python_module(FileId(3), SHOP, "shop.tools");
    assert_eq!(parse.diagnostics, vec![]);
    parse.value
}

fn tool(name: &str) -> ToolDecl {
    shop()
        .into_iter()
        .find(|t| t.name.value == name)
        .unwrap_or_else(|| panic!("no tool `{name}`"))
}

fn arguments(t: &ToolDecl) -> Value {
    t.arguments
        .as_ref()
        .map(|a| a.value.clone())
        .unwrap_or(Value::Null)
}

fn result(t: &ToolDecl) -> Value {
    t.result
        .as_ref()
        .map(|a| a.value.clone())
        .unwrap_or(Value::Null)
}

fn text(span: stalwart_diagnostics::Span) -> &'static str {
    &SHOP[span.range()]
}

fn pairs(
    bind: &[(
        stalwart_agent::Spanned<String>,
        stalwart_agent::Spanned<String>,
    )],
) -> Vec<(&str, &str)> {
    bind.iter()
        .map(|(a, b)| (a.value.as_str(), b.value.as_str()))
        .collect()
}

fn order_and(other: &str, ty: &str) -> Value {
    json!({
        "type": "object",
        "properties": {"order_id": {"type": "string"}, other: {"type": ty}},
        "required": ["order_id", other],
        "additionalProperties": false
    })
}

#[test]
fn the_five_tools_in_source_order() {
    let names: Vec<String> = shop().into_iter().map(|t| t.name.value).collect();
    assert_eq!(
        names,
        [
            "get_order",
            "read_inbox",
            "charge_card",
            "send_receipt",
            "refund_card"
        ]
    );
}

#[test]
fn every_tool_is_from_the_module_and_names_its_function() {
    for t in shop() {
        assert_eq!(t.origin, ToolOrigin::Python("shop.tools".to_string()));
        assert_eq!(text(t.name.span), t.name.value);
        assert_eq!(t.name.span.file, FileId(3));
    }
}

#[test]
fn get_order() {
    let t = tool("get_order");
    assert_eq!(
        arguments(&t),
        json!({"type": "object", "properties": {"order_id": {"type": "string"}}, "required": ["order_id"], "additionalProperties": false})
    );
    assert_eq!(
        result(&t),
        json!({
            "type": "object",
            "properties": {
                "order_id": {"type": "string"},
                "status": {"type": "string"},
                "card": {"anyOf": [{"type": "string"}, {"type": "null"}]},
                "total": {"type": "number"}
            },
            "required": ["order_id", "status", "card", "total"]
        })
    );
    assert_eq!(
        t.effects.as_ref().map(|e| (e.value, text(e.span))),
        Some((Effects::Reads, "\"reads\""))
    );
    assert_eq!(
        t.description.as_deref(),
        Some("Look up an order: its status, the card on file and its total.")
    );
    assert_eq!(
        text(t.span),
        "@tool(effects=\"reads\")\ndef get_order(order_id: str) -> Order"
    );
    assert_eq!(t.reads_outside, None);
    assert!(
        t.after.is_empty() && t.undo.is_none() && t.idempotency.is_none() && t.at_most.is_none()
    );
}

#[test]
fn read_inbox() {
    let t = tool("read_inbox");
    assert_eq!(
        arguments(&t),
        json!({"type": "object", "properties": {}, "additionalProperties": false})
    );
    assert_eq!(
        result(&t),
        json!({"type": "object", "properties": {"messages": {"type": "array"}}, "required": ["messages"]})
    );
    assert_eq!(t.effects.map(|e| e.value), Some(Effects::Reads));
    assert_eq!(t.reads_outside.map(|r| r.value), Some(true));
    assert_eq!(
        t.description.as_deref(),
        Some("Read the shop's inbox; what it returns was written by anyone.")
    );
}

#[test]
fn charge_card() {
    let t = tool("charge_card");
    assert_eq!(arguments(&t), order_and("amount", "number"));
    assert_eq!(t.result, None);
    assert_eq!(t.effects.as_ref().map(|e| e.value), Some(Effects::Changes));
    let after: Vec<(&str, Vec<(&str, &str)>)> = t
        .after
        .iter()
        .map(|a| (a.tool.value.as_str(), pairs(&a.bind)))
        .collect();
    assert_eq!(after, [("get_order", vec![("order_id", "order_id")])]);
    assert_eq!(
        t.at_most.as_ref().map(|a| (a.value.count, a.value.per)),
        Some((1, None))
    );
    let Some(UndoDecl::Tool { tool, bind }) = t.undo.as_ref().map(|u| &u.value) else {
        panic!("no undo: {:?}", t.undo)
    };
    assert_eq!(tool.value, "refund_card");
    assert_eq!(
        pairs(bind),
        [("order_id", "order_id"), ("amount", "amount")]
    );
    assert_eq!(t.idempotency, None);
    assert_eq!(t.irreversible, None);
    assert_eq!(
        t.description.as_deref(),
        Some("Charge the card on file for an order.")
    );
}

#[test]
fn send_receipt() {
    let t = tool("send_receipt");
    assert_eq!(arguments(&t), order_and("to", "string"));
    assert_eq!(t.result, None);
    assert_eq!(t.effects.as_ref().map(|e| e.value), Some(Effects::Changes));
    assert_eq!(t.sends_out.as_ref().map(|s| s.value), Some(true));
    assert_eq!(t.irreversible.as_ref().map(|s| s.value), Some(true));
    let key = match t.idempotency.as_ref().map(|i| &i.value) {
        Some(IdempotencyDecl::Key(key)) => key.value.as_str(),
        other => panic!("idempotency {other:?}"),
    };
    assert_eq!(key, "order_id");
    let after: Vec<(&str, Vec<(&str, &str)>)> = t
        .after
        .iter()
        .map(|a| (a.tool.value.as_str(), pairs(&a.bind)))
        .collect();
    assert_eq!(after, [("charge_card", vec![("order_id", "order_id")])]);
    assert_eq!(
        t.description.as_deref(),
        Some("Send the receipt for a charged order to an address.")
    );
}

#[test]
fn refund_card() {
    let t = tool("refund_card");
    assert_eq!(arguments(&t), order_and("amount", "number"));
    assert_eq!(t.result, None);
    assert_eq!(t.effects.as_ref().map(|e| e.value), Some(Effects::Changes));
    assert_eq!(
        (
            t.undo.is_none(),
            t.irreversible.is_none(),
            t.idempotency.is_none()
        ),
        (true, true, true)
    );
    assert!(t.after.is_empty());
    assert_eq!(
        t.description.as_deref(),
        Some("Refund an amount of an order to the card it was paid with.")
    );
}

#[test]
fn argument_and_result_spans_point_at_the_signature() {
    let t = tool("get_order");
    assert_eq!(
        t.arguments.as_ref().map(|a| text(a.span)),
        Some("(order_id: str)")
    );
    assert_eq!(t.result.as_ref().map(|r| text(r.span)), Some("Order"));
}
