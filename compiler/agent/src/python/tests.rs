//! Unit tests of the Python module reader: what each function yields before it becomes a
//! declaration (the decorator's mapping, the schemas, the docstring), with exact spans.

#![allow(
    clippy::unwrap_used,
    clippy::indexing_slicing,
    clippy::string_slice,
    clippy::panic,
    reason = "test code: a failure is a test failure"
)]

use serde_json::{Value, json};
use stalwart_diagnostics::{Diagnostic, FileId, Span};

use super::{FoundTool, module_candidates, module_path, read_module};
use crate::node::{Key, Node, NodeKind};

const SHOP: &str = include_str!("../../../../examples/shop/shop/tools.py");

fn read(text: &str) -> (Vec<FoundTool>, Vec<Diagnostic>) {
    let parse = read_module(FileId(0), text);
    (parse.value, parse.diagnostics)
}

fn tool<'a>(tools: &'a [FoundTool], name: &str) -> &'a FoundTool {
    tools
        .iter()
        .find(|t| t.name.value == name)
        .unwrap_or_else(|| panic!("no tool `{name}`"))
}

/// The single tool of `text`, which must read without diagnostics.
fn single(text: &str) -> FoundTool {
    let (tools, diagnostics) = read(text);
    assert_eq!(diagnostics, vec![], "{text}");
    assert_eq!(tools.len(), 1, "{text}");
    tools.into_iter().next().unwrap()
}

/// The schema of one argument `x` annotated `hint`.
fn argument_schema(hint: &str) -> Value {
    let text = format!("from typing import *\n@tool\ndef f(x: {hint}):\n    pass\n");
    let tool = single(&text);
    tool.arguments.value["properties"]["x"].clone()
}

fn result_schema(text: &str) -> Option<Value> {
    single(text).result.map(|r| r.value)
}

fn span_text(text: &str, span: Span) -> &str {
    &text[span.range()]
}

#[test]
fn shop_module_yields_the_five_tools_in_order() {
    let (tools, diagnostics) = read(SHOP);
    assert_eq!(diagnostics, vec![]);
    let names: Vec<&str> = tools.iter().map(|t| t.name.value.as_str()).collect();
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
fn shop_get_order_schemas() {
    let (tools, _) = read(SHOP);
    let t = tool(&tools, "get_order");
    assert_eq!(
        t.arguments.value,
        json!({"type": "object", "properties": {"order_id": {"type": "string"}}, "required": ["order_id"], "additionalProperties": false})
    );
    assert_eq!(span_text(SHOP, t.arguments.span), "(order_id: str)");
    let result = t.result.as_ref().unwrap();
    assert_eq!(
        result.value,
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
    assert_eq!(span_text(SHOP, result.span), "Order");
    assert_eq!(
        t.description.as_deref(),
        Some("Look up an order: its status, the card on file and its total.")
    );
    assert_eq!(t.node.to_json(), json!({"effects": "reads"}));
    assert_eq!(span_text(SHOP, t.name.span), "get_order");
    assert_eq!(
        span_text(SHOP, t.span),
        "@tool(effects=\"reads\")\ndef get_order(order_id: str) -> Order"
    );
}

#[test]
fn shop_read_inbox_schemas() {
    let (tools, _) = read(SHOP);
    let t = tool(&tools, "read_inbox");
    assert_eq!(
        t.arguments.value,
        json!({"type": "object", "properties": {}, "additionalProperties": false})
    );
    assert_eq!(
        t.result.as_ref().unwrap().value,
        json!({"type": "object", "properties": {"messages": {"type": "array"}}, "required": ["messages"]})
    );
    assert_eq!(
        t.node.to_json(),
        json!({"effects": "reads", "reads_outside": true})
    );
}

#[test]
fn shop_writes_have_arguments_and_no_result() {
    let (tools, _) = read(SHOP);
    let order_and_amount = json!({
        "type": "object",
        "properties": {"order_id": {"type": "string"}, "amount": {"type": "number"}},
        "required": ["order_id", "amount"],
        "additionalProperties": false
    });
    let charge = tool(&tools, "charge_card");
    assert_eq!(charge.arguments.value, order_and_amount);
    assert_eq!(charge.result, None);
    assert_eq!(
        charge.node.to_json(),
        json!({
            "effects": "changes",
            "after": [{"tool": "get_order", "bind": {"order_id": "order_id"}}],
            "at_most": 1,
            "undo": {"tool": "refund_card", "bind": {"order_id": "order_id", "amount": "amount"}}
        })
    );
    let receipt = tool(&tools, "send_receipt");
    assert_eq!(
        receipt.arguments.value,
        json!({
            "type": "object",
            "properties": {"order_id": {"type": "string"}, "to": {"type": "string"}},
            "required": ["order_id", "to"],
            "additionalProperties": false
        })
    );
    assert_eq!(receipt.result, None);
    assert_eq!(
        receipt.node.to_json(),
        json!({
            "effects": "changes",
            "sends_out": true,
            "irreversible": true,
            "idempotency": {"key": "order_id"},
            "after": [{"tool": "charge_card", "bind": {"order_id": "order_id"}}]
        })
    );
    let refund = tool(&tools, "refund_card");
    assert_eq!(refund.arguments.value, order_and_amount);
    assert_eq!(refund.result, None);
    assert_eq!(refund.node.to_json(), json!({"effects": "changes"}));
}

#[test]
fn decorator_values_keep_the_span_of_every_literal() {
    let text = "@tool(effects='reads', after=[{'tool': 'a'}])\ndef f(): pass\n";
    let t = single(text);
    let NodeKind::Map(entries) = &t.node.kind else {
        panic!("not a mapping")
    };
    let spans: Vec<(&str, &str)> = entries
        .iter()
        .map(|(k, v)| (span_text(text, k.span), span_text(text, v.span)))
        .collect();
    assert_eq!(
        spans,
        [("effects", "'reads'"), ("after", "[{'tool': 'a'}]")]
    );
    assert_eq!(
        span_text(text, t.node.span),
        "(effects='reads', after=[{'tool': 'a'}])"
    );
    let after = t.node.get("after").unwrap();
    let NodeKind::Seq(items) = &after.kind else {
        panic!("not a list")
    };
    let first = &items[0];
    assert_eq!(span_text(text, first.span), "{'tool': 'a'}");
    let NodeKind::Map(inner) = &first.kind else {
        panic!("not a mapping")
    };
    let (key, value) = &inner[0];
    assert_eq!(
        (span_text(text, key.span), span_text(text, value.span)),
        ("'tool'", "'a'")
    );
}

#[test]
fn python_literals_become_node_values() {
    let text = "@tool(a=None, b=True, c=False, d=-3, e=+2.5, f=0x1F, g=1_000, h=(1, 'x'), i=[], j={}, k=\"a\" 'b', l=1e3, m=0o17, n=0b101, o=-0.5)\ndef f(): pass\n";
    let t = single(text);
    assert_eq!(
        t.node.to_json(),
        json!({"a": null, "b": true, "c": false, "d": -3, "e": 2.5, "f": 31, "g": 1000, "h": [1, "x"], "i": [], "j": {}, "k": "ab", "l": 1000.0, "m": 15, "n": 5, "o": -0.5})
    );
    assert_eq!(t.node.get("d").map(|d| span_text(text, d.span)), Some("-3"));
    assert_eq!(
        t.node.get("k").map(|d| span_text(text, d.span)),
        Some("\"a\" 'b'")
    );
}

#[test]
fn string_prefixes_and_escapes_decode_as_python_does() {
    let text = r#"@tool(a="x\ny\t\"q\"", b=r"x\n", c='\x41\u00e9\101', d=f"no {{braces}}", e="""multi
line""", f=u"u", g="\q", h=R'\d')
def f(): pass
"#;
    let t = single(text);
    assert_eq!(
        t.node.to_json(),
        json!({"a": "x\ny\t\"q\"", "b": "x\\n", "c": "AéA", "d": "no {braces}", "e": "multi\nline", "f": "u", "g": "\\q", "h": "\\d"})
    );
}

#[test]
fn bare_and_dotted_decorators_count() {
    let text = "import stalwart_agents\nfrom stalwart_agents import tool as declare\n\
        @tool\ndef a(): pass\n\
        @stalwart_agents.tool(effects='reads')\ndef b(): pass\n\
        @mcp.tool()\nasync def c(): pass\n\
        @declare(effects='changes')\ndef d(): pass\n\
        @other\ndef e(): pass\n\
        @tools(effects='reads')\ndef f(): pass\n";
    let (tools, diagnostics) = read(text);
    assert_eq!(diagnostics, vec![]);
    let names: Vec<(&str, Value)> = tools
        .iter()
        .map(|t| (t.name.value.as_str(), t.node.to_json()))
        .collect();
    assert_eq!(
        names,
        [
            ("a", json!({})),
            ("b", json!({"effects": "reads"})),
            ("c", json!({})),
            ("d", json!({"effects": "changes"})),
        ]
    );
    assert_eq!(span_text(text, tools[0].node.span), "tool");
}

#[test]
fn decorator_name_renames_the_tool() {
    let text = "@tool(name='lookup', effects='reads')\ndef f(): pass\n";
    let t = single(text);
    assert_eq!(t.name.value, "lookup");
    assert_eq!(span_text(text, t.name.span), "'lookup'");
    assert_eq!(t.node.to_json(), json!({"effects": "reads"}));
}

#[test]
fn other_decorators_around_the_tool_decorator_are_ignored() {
    let t = single("@log\n@tool(effects='reads')\n@cache\ndef f(): pass\n");
    assert_eq!(t.name.value, "f");
    assert_eq!(t.node.to_json(), json!({"effects": "reads"}));
}

#[test]
fn undecorated_functions_and_classes_are_not_tools() {
    let (tools, diagnostics) =
        read("def f(x: str): pass\nclass A: pass\n@dataclass\nclass B: pass\n");
    assert_eq!(tools, vec![]);
    assert_eq!(diagnostics, vec![]);
}

#[test]
fn builtin_type_hints() {
    assert_eq!(argument_schema("str"), json!({"type": "string"}));
    assert_eq!(argument_schema("int"), json!({"type": "integer"}));
    assert_eq!(argument_schema("float"), json!({"type": "number"}));
    assert_eq!(argument_schema("bool"), json!({"type": "boolean"}));
    assert_eq!(argument_schema("None"), json!({"type": "null"}));
    assert_eq!(argument_schema("Any"), json!({}));
    assert_eq!(argument_schema("object"), json!({}));
    assert_eq!(argument_schema("typing.Any"), json!({}));
}

#[test]
fn list_type_hints() {
    assert_eq!(argument_schema("list"), json!({"type": "array"}));
    assert_eq!(argument_schema("List"), json!({"type": "array"}));
    assert_eq!(
        argument_schema("list[str]"),
        json!({"type": "array", "items": {"type": "string"}})
    );
    assert_eq!(
        argument_schema("List[int]"),
        json!({"type": "array", "items": {"type": "integer"}})
    );
    assert_eq!(
        argument_schema("typing.List[int]"),
        json!({"type": "array", "items": {"type": "integer"}})
    );
    assert_eq!(
        argument_schema("Sequence[bool]"),
        json!({"type": "array", "items": {"type": "boolean"}})
    );
    assert_eq!(
        argument_schema("tuple[str, ...]"),
        json!({"type": "array", "items": {"type": "string"}})
    );
    assert_eq!(
        argument_schema("tuple[int, int]"),
        json!({"type": "array", "items": {"type": "integer"}})
    );
    assert_eq!(argument_schema("tuple[int, str]"), json!({"type": "array"}));
    assert_eq!(
        argument_schema("set[str]"),
        json!({"type": "array", "items": {"type": "string"}})
    );
    assert_eq!(argument_schema("list[Any]"), json!({"type": "array"}));
    assert_eq!(
        argument_schema("list[list[float]]"),
        json!({"type": "array", "items": {"type": "array", "items": {"type": "number"}}})
    );
}

#[test]
fn dict_type_hints() {
    // A dictionary's members are free: said with an `additionalProperties` schema, since the
    // check refuses members nothing declares.
    let free = json!({"type": "object", "additionalProperties": {}});
    assert_eq!(argument_schema("dict"), free);
    assert_eq!(argument_schema("Dict"), free);
    assert_eq!(argument_schema("dict[str, Any]"), free);
    assert_eq!(
        argument_schema("Dict[str, int]"),
        json!({"type": "object", "additionalProperties": {"type": "integer"}})
    );
    assert_eq!(
        argument_schema("Mapping[str, list[str]]"),
        json!({"type": "object", "additionalProperties": {"type": "array", "items": {"type": "string"}}})
    );
}

#[test]
fn optional_and_union_type_hints() {
    let string_or_null = json!({"anyOf": [{"type": "string"}, {"type": "null"}]});
    assert_eq!(argument_schema("Optional[str]"), string_or_null);
    assert_eq!(argument_schema("typing.Optional[str]"), string_or_null);
    assert_eq!(argument_schema("str | None"), string_or_null);
    assert_eq!(argument_schema("Union[str, None]"), string_or_null);
    assert_eq!(
        argument_schema("Union[None, str]"),
        json!({"anyOf": [{"type": "null"}, {"type": "string"}]})
    );
    assert_eq!(
        argument_schema("Union[int, str]"),
        json!({"anyOf": [{"type": "integer"}, {"type": "string"}]})
    );
    assert_eq!(
        argument_schema("int | str | None"),
        json!({"anyOf": [{"type": "integer"}, {"type": "string"}, {"type": "null"}]})
    );
    assert_eq!(
        argument_schema("Optional[Union[int, str]]"),
        json!({"anyOf": [{"type": "integer"}, {"type": "string"}, {"type": "null"}]})
    );
    assert_eq!(argument_schema("Optional[Optional[str]]"), string_or_null);
    assert_eq!(argument_schema("Union[str]"), json!({"type": "string"}));
    assert_eq!(argument_schema("Optional[Any]"), json!({}));
}

#[test]
fn literal_and_annotated_type_hints() {
    assert_eq!(
        argument_schema("Literal['a', 'b']"),
        json!({"enum": ["a", "b"]})
    );
    assert_eq!(
        argument_schema("Literal[1, True, None, \"x\"]"),
        json!({"enum": [1, true, null, "x"]})
    );
    assert_eq!(argument_schema("Literal[-1]"), json!({"enum": [-1]}));
    assert_eq!(
        argument_schema("Optional[Literal['a']]"),
        json!({"anyOf": [{"enum": ["a"]}, {"type": "null"}]})
    );
    assert_eq!(
        argument_schema("Annotated[int, 'the count']"),
        json!({"type": "integer"})
    );
}

#[test]
fn typed_dicts_in_arguments_are_closed_and_in_results_open() {
    let text = "from typing import TypedDict, NotRequired\n\
        class Item(TypedDict):\n    sku: str\n    qty: int\n    note: NotRequired[str]\n\
        @tool\ndef f(item: Item, items: list[Item]) -> Item:\n    pass\n";
    let t = single(text);
    let closed = json!({
        "type": "object",
        "properties": {"sku": {"type": "string"}, "qty": {"type": "integer"}, "note": {"type": "string"}},
        "required": ["sku", "qty"],
        "additionalProperties": false
    });
    assert_eq!(t.arguments.value["properties"]["item"], closed);
    assert_eq!(
        t.arguments.value["properties"]["items"],
        json!({"type": "array", "items": closed})
    );
    assert_eq!(
        t.result.unwrap().value,
        json!({
            "type": "object",
            "properties": {"sku": {"type": "string"}, "qty": {"type": "integer"}, "note": {"type": "string"}},
            "required": ["sku", "qty"]
        })
    );
}

#[test]
fn typed_dict_totality_bases_and_required() {
    let text = "import typing\n\
        class Base(typing.TypedDict, total=False):\n    a: str\n    b: typing.Required[int]\n\
        class Child(Base):\n    \"\"\"A child.\"\"\"\n    c: bool\n    d: Optional['Child']\n\
        @tool\ndef f() -> Child:\n    pass\n";
    let (tools, diagnostics) = read(text);
    assert_eq!(
        diagnostics
            .iter()
            .map(|d| (d.code.id, d.message.as_str()))
            .collect::<Vec<_>>(),
        [(
            "E0311",
            "tool `f`: `Child` contains itself: the inner `Child` is not checked"
        )]
    );
    assert_eq!(
        tools[0].result.as_ref().unwrap().value,
        json!({
            "type": "object",
            "properties": {"a": {"type": "string"}, "b": {"type": "integer"}, "c": {"type": "boolean"}, "d": {}},
            "required": ["b", "c", "d"]
        })
    );
}

#[test]
fn string_annotations_naming_a_type_are_read() {
    let text =
        "class Order(TypedDict):\n    id: str\n@tool\ndef f(x: 'int') -> \"Order\":\n    pass\n";
    let t = single(text);
    assert_eq!(
        t.arguments.value["properties"]["x"],
        json!({"type": "integer"})
    );
    assert_eq!(
        t.result.unwrap().value,
        json!({"type": "object", "properties": {"id": {"type": "string"}}, "required": ["id"]})
    );
}

#[test]
fn result_schemas_from_return_annotations() {
    assert_eq!(result_schema("@tool\ndef f() -> None: pass\n"), None);
    assert_eq!(result_schema("@tool\ndef f(): pass\n"), None);
    assert_eq!(result_schema("@tool\ndef f() -> Any: pass\n"), None);
    assert_eq!(
        result_schema("@tool\ndef f() -> str: pass\n"),
        Some(json!({"type": "string"}))
    );
    assert_eq!(
        result_schema("@tool\ndef f() -> list[str]: pass\n"),
        Some(json!({"type": "array", "items": {"type": "string"}}))
    );
    assert_eq!(
        result_schema("@tool\ndef f() -> Optional[float]: pass\n"),
        Some(json!({"anyOf": [{"type": "number"}, {"type": "null"}]}))
    );
}

#[test]
fn defaults_make_arguments_optional_and_are_recorded() {
    let text = "@tool\ndef f(a: str, b: int = 3, c='x', d: Optional[str] = None, e: list = [1, 2], g: int = LIMIT, *, h: bool = False, i):\n    pass\n";
    let t = single(text);
    assert_eq!(
        t.arguments.value,
        json!({
            "type": "object",
            "properties": {
                "a": {"type": "string"},
                "b": {"type": "integer", "default": 3},
                "c": {"default": "x"},
                "d": {"anyOf": [{"type": "string"}, {"type": "null"}], "default": null},
                "e": {"type": "array", "default": [1, 2]},
                "g": {"type": "integer"},
                "h": {"type": "boolean", "default": false},
                "i": {}
            },
            "required": ["a", "i"],
            "additionalProperties": false
        })
    );
}

#[test]
fn positional_only_marker_and_unannotated_parameters() {
    // `self` is the object, not an argument the model gives.
    let t = single("@tool\ndef f(self, a, /, b): pass\n");
    assert_eq!(
        t.arguments.value,
        json!({
            "type": "object",
            "properties": {"a": {}, "b": {}},
            "required": ["a", "b"],
            "additionalProperties": false
        })
    );
}

#[test]
fn docstrings_are_dedented_and_trimmed() {
    let doc = |body: &str| single(&format!("@tool\ndef f():\n{body}\n")).description;
    assert_eq!(
        doc("    \"\"\"One line.\"\"\""),
        Some("One line.".to_string())
    );
    assert_eq!(
        doc("    \"\"\"\n    Summary.\n\n        Indented more.\n    Back.\n    \"\"\""),
        Some("Summary.\n\n    Indented more.\nBack.".to_string())
    );
    assert_eq!(
        doc("    '''First line\n       second line'''"),
        Some("First line\nsecond line".to_string())
    );
    assert_eq!(
        doc("    r'''raw \\n kept'''"),
        Some("raw \\n kept".to_string())
    );
    assert_eq!(doc("    \"\"\"   \"\"\""), None);
    assert_eq!(doc("    x = 1\n    \"\"\"not first\"\"\""), None);
    assert_eq!(doc("    pass"), None);
    assert_eq!(
        doc("    # a comment first\n    \"\"\"Doc.\"\"\""),
        Some("Doc.".to_string())
    );
    assert_eq!(
        doc("    \"\"\"Tab\tinside.\"\"\""),
        Some("Tab     inside.".to_string())
    );
}

#[test]
fn one_line_function_docstring() {
    let t = single("@tool\ndef f(): \"Short.\"\n");
    assert_eq!(t.description.as_deref(), Some("Short."));
}

#[test]
fn tools_after_a_syntax_error_are_still_read() {
    let text =
        "@tool\ndef a(x: str): pass\n\nx = 1 +\n\n@tool(effects='reads')\ndef b(y: int): pass\n";
    let (tools, diagnostics) = read(text);
    let found: Vec<(&str, &str, &str)> = diagnostics
        .iter()
        .map(|d| {
            (
                d.code.id,
                d.message.as_str(),
                span_text(text, d.primary.span),
            )
        })
        .collect();
    assert_eq!(found, [("E0300", "invalid syntax: unexpected `+`", "+")]);
    let names: Vec<&str> = tools.iter().map(|t| t.name.value.as_str()).collect();
    assert_eq!(names, ["a", "b"]);
}

#[test]
fn module_paths() {
    assert_eq!(module_path("shop.tools"), "shop/tools.py");
    assert_eq!(
        module_candidates("shop.tools"),
        ["shop/tools.py", "shop/tools/__init__.py"]
    );
    assert_eq!(module_candidates("shop"), ["shop.py", "shop/__init__.py"]);
}

#[test]
fn node_describe_of_a_python_key() {
    // The mapping of a bare decorator is empty and spans the decorator's expression.
    let text = "@stalwart_agents.tool\ndef f(): pass\n";
    let t = single(text);
    assert_eq!(
        t.node,
        Node {
            kind: NodeKind::Map(Vec::<(Key, Node)>::new()),
            span: Span::new(FileId(0), 1, 21)
        }
    );
}
