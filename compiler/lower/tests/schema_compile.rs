//! The schema compiler: JSON Schemas in, the record's schema and value arenas out (snapshot of a
//! table of schemas), with the keywords left out (`partial_keywords`), the malformed ones
//! (`errors`) and deterministic layout.

use std::fmt::Write;

use serde_json::{Value as Json, json};
use stalwart_lower::schema::{CompiledSchema, SchemaErrorKind, compile_schema};
use stalwart_record::{Additional, RecordBody, SchemaNode, TypeSet, Value};

fn compile(schema: &Json) -> (RecordBody, CompiledSchema) {
    let mut body = RecordBody::default();
    let compiled = compile_schema(&mut body.values, &mut body.schema_nodes, schema);
    (body, compiled)
}

fn types(bits: u8) -> String {
    let names = [
        (TypeSet::NULL, "null"),
        (TypeSet::BOOLEAN, "boolean"),
        (TypeSet::INTEGER, "integer"),
        (TypeSet::NUMBER, "number"),
        (TypeSet::STRING, "string"),
        (TypeSet::ARRAY, "array"),
        (TypeSet::OBJECT, "object"),
    ];
    let set: Vec<_> = names
        .iter()
        .filter(|(bit, _)| bits & bit != 0)
        .map(|(_, n)| *n)
        .collect();
    set.join("|")
}

fn node_line(node: &SchemaNode) -> String {
    let mut parts = Vec::new();
    if node.types != 0 {
        parts.push(format!("type={}", types(node.types)));
    }
    if !node.properties.is_empty() {
        let props: Vec<_> = node
            .properties
            .iter()
            .map(|(n, i)| format!("{n}:#{i}"))
            .collect();
        parts.push(format!("properties={{{}}}", props.join(", ")));
    }
    if !node.required.is_empty() {
        parts.push(format!("required=[{}]", node.required.join(", ")));
    }
    match node.additional {
        Additional::Allow => {}
        Additional::Deny => parts.push("additional=deny".to_owned()),
        Additional::Schema(i) => parts.push(format!("additional=#{i}")),
    }
    if node.has_enum {
        let members: Vec<_> = node.enum_values.iter().map(|v| format!("v{v}")).collect();
        parts.push(format!("enum=[{}]", members.join(", ")));
    }
    let mut opt = |name: &str, value: Option<String>| {
        if let Some(value) = value {
            parts.push(format!("{name}={value}"));
        }
    };
    opt("const", node.constant.map(|v| format!("v{v}")));
    opt("minimum", node.minimum.map(|n| n.to_string()));
    opt("maximum", node.maximum.map(|n| n.to_string()));
    opt(
        "exclusiveMinimum",
        node.exclusive_minimum.map(|n| n.to_string()),
    );
    opt(
        "exclusiveMaximum",
        node.exclusive_maximum.map(|n| n.to_string()),
    );
    opt("minLength", node.min_length.map(|n| n.to_string()));
    opt("maxLength", node.max_length.map(|n| n.to_string()));
    opt("pattern", node.pattern.as_ref().map(|p| format!("{p:?}")));
    opt("items", node.items.map(|i| format!("#{i}")));
    opt("minItems", node.min_items.map(|n| n.to_string()));
    opt("maxItems", node.max_items.map(|n| n.to_string()));
    for (name, list) in [
        ("anyOf", &node.any_of),
        ("allOf", &node.all_of),
        ("oneOf", &node.one_of),
    ] {
        if !list.is_empty() {
            let alts: Vec<_> = list.iter().map(|i| format!("#{i}")).collect();
            parts.push(format!("{name}=[{}]", alts.join(", ")));
        }
    }
    if !node.pattern_properties.is_empty() {
        let props: Vec<_> = node
            .pattern_properties
            .iter()
            .map(|(p, i)| format!("{p:?}:#{i}"))
            .collect();
        parts.push(format!("patternProperties={{{}}}", props.join(", ")));
    }
    if let Some(i) = node.property_names {
        parts.push(format!("propertyNames=#{i}"));
    }
    if let Some(f) = node.format {
        parts.push(format!("format={f:?}"));
    }
    if let Some(i) = node.reference {
        parts.push(format!("$ref=#{i}"));
    }
    if parts.is_empty() {
        "any".to_owned()
    } else {
        parts.join(" ")
    }
}

fn value_line(value: &Value) -> String {
    match value {
        Value::Null => "null".to_owned(),
        Value::Bool(b) => b.to_string(),
        Value::Number(n) => n.to_string(),
        Value::String(s) => format!("{s:?}"),
        Value::Array(items) => {
            let items: Vec<_> = items.iter().map(|i| format!("v{i}")).collect();
            format!("[{}]", items.join(", "))
        }
        Value::Object(members) => {
            let members: Vec<_> = members
                .iter()
                .map(|(k, i)| format!("{k:?}: v{i}"))
                .collect();
            format!("{{{}}}", members.join(", "))
        }
    }
}

fn render(name: &str, schema: &Json) -> String {
    let (body, compiled) = compile(schema);
    let mut out = format!("== {name}\n{schema}\nroot #{}\n", compiled.root);
    for (i, node) in body.schema_nodes.iter().enumerate() {
        writeln!(out, "  #{i} {}", node_line(node)).unwrap();
    }
    for (i, value) in body.values.iter().enumerate() {
        writeln!(out, "  v{i} = {}", value_line(value)).unwrap();
    }
    if !compiled.property_names.is_empty() {
        writeln!(out, "  properties: {}", compiled.property_names.join(", ")).unwrap();
    }
    for pointer in &compiled.partial_keywords {
        writeln!(out, "  partial {pointer}").unwrap();
    }
    for pointer in &compiled.closed_objects {
        writeln!(out, "  closed object {pointer}").unwrap();
    }
    for error in &compiled.errors {
        let slug = error.kind.slug();
        writeln!(out, "  error {} [{slug}] {}", error.pointer, error.message).unwrap();
    }
    out
}

#[test]
fn compile_table() {
    let cases = [
        ("true", json!(true)),
        ("false", json!(false)),
        ("empty", json!({})),
        (
            "refund arguments",
            json!({
                "type": "object",
                "properties": {
                    "order_id": {"type": "string", "minLength": 1, "maxLength": 12, "pattern": "^[0-9]+$"},
                    "amount": {"type": "number", "exclusiveMinimum": 0, "maximum": 500},
                    "reason": {"enum": ["damaged", "late", null, 3]}
                },
                "required": ["order_id", "amount"],
                "additionalProperties": false
            }),
        ),
        (
            "type list",
            json!({"type": ["integer", "null"], "minimum": -1, "exclusiveMaximum": 2.5}),
        ),
        ("const value", json!({"const": {"a": [1, true], "b": null}})),
        (
            "nested items and additional schema",
            json!({
                "type": "array",
                "minItems": 1,
                "maxItems": 3,
                "items": {
                    "type": "object",
                    "properties": {"sku": {"type": "string"}, "qty": {"type": "integer", "minimum": 1}},
                    "additionalProperties": {"type": "string"}
                }
            }),
        ),
        (
            "optional",
            json!({"anyOf": [{"type": "string"}, {"type": "null"}], "default": null}),
        ),
        (
            "boolean subschemas",
            json!({"properties": {"yes": true, "no": false}, "items": false, "additionalProperties": true}),
        ),
        (
            "annotations only",
            json!({
                "$schema": "https://json-schema.org/draft/2020-12/schema", "$id": "x", "$comment": "c",
                "title": "t", "description": "d", "default": 1, "examples": [1], "format": "hostname",
                "readOnly": true, "deprecated": false, "$defs": {"unused": {"oneOf": []}},
                "x-vendor": {"any": "thing"}
            }),
        ),
        (
            "partial keywords",
            json!({
                "type": "object",
                "oneOf": [{}],
                "properties": {
                    "x": {"type": "integer", "multipleOf": 5, "allOf": [{}]},
                    "a/b": {"$ref": "#/$defs/a", "not": {}},
                    "list": {"type": "array", "items": [{"type": "string"}], "uniqueItems": true, "prefixItems": []}
                },
                "patternProperties": {"^x": {}},
                "if": {}, "then": {}, "else": {},
                "dependentRequired": {},
                "maxLenght": 3
            }),
        ),
        (
            "draft 4 exclusive bounds",
            json!({"minimum": 0, "exclusiveMinimum": true, "maximum": 9, "exclusiveMaximum": false}),
        ),
        (
            "errors",
            json!({
                "type": "object",
                "properties": {
                    "a": {"type": "text"},
                    "b": {"minLength": -1, "maxLength": 2.5, "minItems": "3"},
                    "c": {"pattern": "(unclosed"},
                    "d": {"required": "a", "enum": "x"},
                    "e": 3,
                    "f": {"type": [], "anyOf": []},
                    "g": {"type": ["string", 1], "minimum": "0", "anyOf": {}},
                    "h": {"properties": [], "additionalProperties": "no", "items": null}
                }
            }),
        ),
        (
            "whole numbers as counts",
            json!({"minLength": 2.0, "maxItems": 4294967296_u64}),
        ),
        ("not a schema", json!("string")),
        (
            "combinators, names and formats",
            json!({
                "type": "object",
                "properties": {
                    "when": {"type": "string", "format": "date-time"},
                    "day": {"format": "date"},
                    "mail": {"format": "email"},
                    "link": {"format": "uri"},
                    "id": {"format": "uuid"},
                    "host": {"format": "hostname"},
                    "pick": {"oneOf": [{"type": "integer"}, {"type": "string"}]},
                    "both": {"allOf": [{"minimum": 0}, {"maximum": 9}]},
                    "tags": {
                        "type": "object",
                        "patternProperties": {"^x-": {"type": "string"}},
                        "propertyNames": {"maxLength": 8}
                    }
                }
            }),
        ),
        (
            "local references",
            json!({
                "$defs": {"Zone": {"type": "string", "enum": ["UTC", "CET"]}, "Unused": {"not": {}}},
                "definitions": {"Old": {"type": "integer"}},
                "type": "object",
                "properties": {
                    "from": {"$ref": "#/$defs/Zone"},
                    "to": {"$ref": "#/$defs/Zone"},
                    "n": {"$ref": "#/definitions/Old"},
                    "self": {"$ref": "#"},
                    "far": {"$ref": "other.json#/a"},
                    "anchor": {"$ref": "#zone"}
                }
            }),
        ),
        (
            "recursive tree",
            json!({
                "$defs": {"Node": {
                    "type": "object",
                    "properties": {"label": {"type": "string"}, "children": {"type": "array", "items": {"$ref": "#/$defs/Node"}}}
                }},
                "type": "object",
                "properties": {"root": {"$ref": "#/$defs/Node"}}
            }),
        ),
        (
            "reference errors",
            json!({
                "$defs": {"A": {"$ref": "#/$defs/B"}, "B": {"allOf": [{"$ref": "#/$defs/A"}]}},
                "properties": {"a": {"$ref": "#/$defs/A"}, "missing": {"$ref": "#/$defs/Nope"}, "loop": {"$ref": "#"}},
                "anyOf": [{"$ref": "#/properties/loop"}]
            }),
        ),
        (
            "closed objects",
            json!({
                "type": "object",
                "properties": {
                    "meta": {"type": "object"},
                    "free": {"type": "object", "additionalProperties": true},
                    "open": {"type": "object", "additionalProperties": {}},
                    "named": {"type": "object", "properties": {"a": {}}},
                    "through": {"type": "object", "allOf": [{"properties": {"b": {}}}]}
                }
            }),
        ),
    ];
    let rendered: Vec<_> = cases
        .iter()
        .map(|(name, schema)| render(name, schema))
        .collect();
    insta::assert_snapshot!(rendered.join("\n"));
}

#[test]
fn layout_does_not_depend_on_key_order() {
    let a = json!({"required": ["x"], "properties": {"x": {"maximum": 3, "type": "integer"}}, "type": "object", "enum": [1]});
    let b = json!({"type": "object", "enum": [1], "properties": {"x": {"type": "integer", "maximum": 3}}, "required": ["x"]});
    assert_eq!(compile(&a).0, compile(&b).0);
}

#[test]
fn the_same_schema_gives_the_same_arenas() {
    let schema =
        json!({"properties": {"b": {"enum": [1, [2]]}, "a": {"anyOf": [true, {"const": "x"}]}}});
    let (first, first_compiled) = compile(&schema);
    let (second, second_compiled) = compile(&schema);
    assert_eq!(first, second);
    assert_eq!(first_compiled, second_compiled);
}

#[test]
fn schemas_append_after_what_the_arenas_hold() {
    let mut body = RecordBody::default();
    let first = compile_schema(
        &mut body.values,
        &mut body.schema_nodes,
        &json!({"const": 1}),
    );
    let second = compile_schema(
        &mut body.values,
        &mut body.schema_nodes,
        &json!({"properties": {"x": {"enum": ["a"]}}}),
    );
    assert_eq!((first.root, second.root), (0, 1));
    assert_eq!(body.schema_nodes[2].enum_values, vec![1]);
    assert_eq!(
        body.values,
        vec![Value::Number(1.0), Value::String("a".to_owned())]
    );
}

#[test]
fn partial_keywords_name_where_they_stand() {
    let (_, compiled) = compile(&json!({
        "properties": {"x": {"properties": {"y": {"if": {}}}}, "a~b": {"not": {}}},
        "uniqueItems": true
    }));
    assert_eq!(
        compiled.partial_keywords,
        vec![
            "/uniqueItems",
            "/properties/x/properties/y/if",
            "/properties/a~0b/not"
        ]
    );
    assert!(compiled.is_partial());
    assert!(
        !compile(&json!({"type": "string", "format": "uri"}))
            .1
            .is_partial()
    );
}

#[test]
fn a_bad_pattern_is_an_error_with_its_pointer() {
    let (body, compiled) = compile(&json!({"properties": {"code": {"pattern": "[a-"}}}));
    assert_eq!(compiled.errors.len(), 1);
    let error = &compiled.errors[0];
    assert_eq!(error.pointer, "/properties/code/pattern");
    assert_eq!(error.kind, SchemaErrorKind::BadPattern);
    assert!(
        error
            .message
            .starts_with("pattern `[a-` does not compile: "),
        "{}",
        error.message
    );
    assert!(!error.message.contains('\n'));
    assert_eq!(body.schema_nodes[1].pattern, None);
}

#[test]
fn deep_nesting_is_an_error_not_a_crash() {
    let mut schema = json!({"type": "string"});
    for _ in 0..200 {
        schema = json!({"items": schema});
    }
    let (body, compiled) = compile(&schema);
    assert_eq!(compiled.errors.len(), 1);
    assert_eq!(compiled.errors[0].kind, SchemaErrorKind::TooDeep);
    assert_eq!(compiled.errors[0].pointer, "/items".repeat(64));
    assert_eq!(body.schema_nodes.len(), 65);
}
