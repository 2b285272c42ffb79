//! The tool check's step 3 end to end: a JSON Schema compiled by the compiler, archived, and a
//! call's arguments validated by the runtime, answering the first fault in the order of DESIGN
//! §5.9 (undeclared, then required, then each value in call order).

mod schema_support;

use serde_json::{Value as Json, json};
use stalwart_runtime::schema::validate_arguments;

type Expected = Option<(&'static str, &'static str)>;

fn refund() -> Json {
    json!({
        "type": "object",
        "properties": {
            "order_id": {"type": "string", "minLength": 1},
            "amount": {"type": "number", "exclusiveMinimum": 0},
            "reason": {"type": "string", "enum": ["damaged", "late", "other"]}
        },
        "required": ["order_id", "amount"]
    })
}

/// A schema with a single property `v`, for keyword-by-keyword cases.
fn prop(schema: Json) -> Json {
    json!({"type": "object", "properties": {"v": schema}})
}

fn cases() -> Vec<(&'static str, Json, Json, Expected)> {
    vec![
        // --- §5.9 ordering: undeclared, then required, then values -------------------------
        (
            "valid refund",
            refund(),
            json!({"order_id": "4411", "amount": 40.0}),
            None,
        ),
        (
            "undeclared note",
            refund(),
            json!({"order_id": "4411", "amount": 40.0, "note": "x"}),
            Some(("/note", "additionalProperties")),
        ),
        (
            "undeclared before required",
            refund(),
            json!({"note": "x"}),
            Some(("/note", "additionalProperties")),
        ),
        (
            "undeclared before an earlier bad value",
            refund(),
            json!({"amount": "x", "order_id": "1", "note": "x"}),
            Some(("/note", "additionalProperties")),
        ),
        (
            "undeclared in call order",
            refund(),
            json!({"zeta": 1, "alpha": 2}),
            Some(("/zeta", "additionalProperties")),
        ),
        (
            "required before values",
            refund(),
            json!({"amount": -1}),
            Some(("/order_id", "required")),
        ),
        (
            "required in declared order",
            refund(),
            json!({}),
            Some(("/order_id", "required")),
        ),
        (
            "second required",
            refund(),
            json!({"order_id": "1"}),
            Some(("/amount", "required")),
        ),
        (
            "values in call order",
            refund(),
            json!({"amount": 0, "order_id": ""}),
            Some(("/amount", "exclusiveMinimum")),
        ),
        (
            "values in call order, swapped",
            refund(),
            json!({"order_id": "", "amount": 0}),
            Some(("/order_id", "minLength")),
        ),
        (
            "additionalProperties true refuses undeclared top-level",
            json!({"type": "object", "properties": {"a": {}}, "additionalProperties": true}),
            json!({"a": 1, "b": 2}),
            Some(("/b", "additionalProperties")),
        ),
        (
            "an additionalProperties schema declares the other arguments",
            json!({"type": "object", "properties": {"a": {}}, "additionalProperties": {"type": "string"}}),
            json!({"b": "x"}),
            None,
        ),
        (
            "and checks them",
            json!({"type": "object", "properties": {"a": {}}, "additionalProperties": {"type": "string"}}),
            json!({"b": 1}),
            Some(("/b", "type")),
        ),
        (
            "no properties: everything undeclared",
            json!({"type": "object"}),
            json!({"a": 1}),
            Some(("/a", "additionalProperties")),
        ),
        (
            "no arguments, none required",
            json!({"type": "object"}),
            json!({}),
            None,
        ),
        (
            "root true: everything undeclared",
            json!(true),
            json!({"a": 1}),
            Some(("/a", "additionalProperties")),
        ),
        (
            "root false refuses even no arguments",
            json!(false),
            json!({}),
            Some(("", "false")),
        ),
        // --- nested objects: the same rule as the top level ----------------------------------
        (
            "nested extras refused like top-level ones",
            prop(json!({"type": "object", "properties": {"x": {}}})),
            json!({"v": {"x": 1, "extra": 2}}),
            Some(("/v/extra", "additionalProperties")),
        ),
        (
            "nested additionalProperties true refuses them too",
            prop(json!({"type": "object", "additionalProperties": true})),
            json!({"v": {"extra": 2}}),
            Some(("/v/extra", "additionalProperties")),
        ),
        (
            "nested additionalProperties {} declares every member",
            prop(json!({"type": "object", "additionalProperties": {}})),
            json!({"v": {"extra": [2]}}),
            None,
        ),
        (
            "a member a schema applied in place declares",
            prop(json!({"allOf": [{"properties": {"x": {}}}, {"properties": {"y": {}}}]})),
            json!({"v": {"x": 1, "y": 2}}),
            None,
        ),
        (
            "a required member is declared",
            prop(json!({"required": ["x"]})),
            json!({"v": {"x": 1}}),
            None,
        ),
        (
            "nested additionalProperties false",
            prop(json!({"type": "object", "properties": {"x": {}}, "additionalProperties": false})),
            json!({"v": {"x": 1, "extra": 2}}),
            Some(("/v/extra", "additionalProperties")),
        ),
        (
            "nested additionalProperties schema",
            prop(json!({"type": "object", "additionalProperties": {"type": "string"}})),
            json!({"v": {"a": "x", "b": 1}}),
            Some(("/v/b", "type")),
        ),
        (
            "nested undeclared before required",
            prop(
                json!({"type": "object", "properties": {"x": {}}, "required": ["x"], "additionalProperties": false}),
            ),
            json!({"v": {"y": 1}}),
            Some(("/v/y", "additionalProperties")),
        ),
        (
            "nested required",
            prop(json!({"type": "object", "properties": {"x": {}}, "required": ["x"]})),
            json!({"v": {}}),
            Some(("/v/x", "required")),
        ),
        (
            "nested required before member faults",
            prop(
                json!({"type": "object", "properties": {"x": {}, "y": {"type": "string"}}, "required": ["x"]}),
            ),
            json!({"v": {"y": 1}}),
            Some(("/v/x", "required")),
        ),
        (
            "nested members in value order",
            prop(json!({"properties": {"x": {"type": "string"}, "y": {"type": "string"}}})),
            json!({"v": {"y": 1, "x": 1}}),
            Some(("/v/y", "type")),
        ),
        (
            "nested type",
            prop(json!({"type": "object"})),
            json!({"v": "str"}),
            Some(("/v", "type")),
        ),
        (
            "deep pointer",
            prop(
                json!({"properties": {"a": {"properties": {"b": {"items": {"type": "integer"}}}}}}),
            ),
            json!({"v": {"a": {"b": [1, 2, 3.5]}}}),
            Some(("/v/a/b/2", "type")),
        ),
        // --- type ---------------------------------------------------------------------------
        (
            "integer accepts 40",
            prop(json!({"type": "integer"})),
            json!({"v": 40}),
            None,
        ),
        (
            "integer accepts 40.0",
            prop(json!({"type": "integer"})),
            json!({"v": 40.0}),
            None,
        ),
        (
            "integer refuses 40.5",
            prop(json!({"type": "integer"})),
            json!({"v": 40.5}),
            Some(("/v", "type")),
        ),
        (
            "integer refuses false",
            prop(json!({"type": "integer"})),
            json!({"v": false}),
            Some(("/v", "type")),
        ),
        (
            "number refuses true",
            prop(json!({"type": "number"})),
            json!({"v": true}),
            Some(("/v", "type")),
        ),
        (
            "number refuses numeric string",
            prop(json!({"type": "number"})),
            json!({"v": "40"}),
            Some(("/v", "type")),
        ),
        (
            "number accepts an integer",
            prop(json!({"type": "number"})),
            json!({"v": 3}),
            None,
        ),
        (
            "string refuses a number",
            prop(json!({"type": "string"})),
            json!({"v": 1}),
            Some(("/v", "type")),
        ),
        (
            "boolean refuses 0",
            prop(json!({"type": "boolean"})),
            json!({"v": 0}),
            Some(("/v", "type")),
        ),
        (
            "boolean accepts true",
            prop(json!({"type": "boolean"})),
            json!({"v": true}),
            None,
        ),
        (
            "null accepts null",
            prop(json!({"type": "null"})),
            json!({"v": null}),
            None,
        ),
        (
            "array refuses an object",
            prop(json!({"type": "array"})),
            json!({"v": {}}),
            Some(("/v", "type")),
        ),
        (
            "object refuses an array",
            prop(json!({"type": "object"})),
            json!({"v": []}),
            Some(("/v", "type")),
        ),
        (
            "type list accepts null",
            prop(json!({"type": ["string", "null"]})),
            json!({"v": null}),
            None,
        ),
        (
            "type list refuses a number",
            prop(json!({"type": ["string", "null"]})),
            json!({"v": 1}),
            Some(("/v", "type")),
        ),
        (
            "type before enum",
            prop(json!({"type": "string", "enum": ["a"]})),
            json!({"v": 1}),
            Some(("/v", "type")),
        ),
        // --- enum, const --------------------------------------------------------------------
        (
            "enum member",
            refund(),
            json!({"order_id": "1", "amount": 1, "reason": "late"}),
            None,
        ),
        (
            "enum non-member",
            refund(),
            json!({"order_id": "1", "amount": 1, "reason": "bored"}),
            Some(("/reason", "enum")),
        ),
        (
            "enum numbers as numbers",
            prop(json!({"enum": [1, 2]})),
            json!({"v": 1.0}),
            None,
        ),
        (
            "enum booleans are not numbers",
            prop(json!({"enum": [1, 0]})),
            json!({"v": true}),
            Some(("/v", "enum")),
        ),
        (
            "enum of mixed values",
            prop(json!({"enum": [null, "a", [1]]})),
            json!({"v": [1.0]}),
            None,
        ),
        (
            "const equal",
            prop(json!({"const": "x"})),
            json!({"v": "x"}),
            None,
        ),
        (
            "const different",
            prop(json!({"const": "x"})),
            json!({"v": "y"}),
            Some(("/v", "const")),
        ),
        (
            "const object in any member order",
            prop(json!({"const": {"a": 1, "b": [true]}})),
            json!({"v": {"b": [true], "a": 1.0}}),
            None,
        ),
        (
            "const object with an extra member",
            prop(json!({"const": {"a": 1}})),
            json!({"v": {"a": 1, "b": 2}}),
            Some(("/v", "const")),
        ),
        (
            "enum before minLength",
            prop(json!({"enum": ["abc"], "minLength": 5})),
            json!({"v": "ab"}),
            Some(("/v", "enum")),
        ),
        // --- numbers ------------------------------------------------------------------------
        (
            "minimum inclusive",
            prop(json!({"minimum": 0})),
            json!({"v": 0}),
            None,
        ),
        (
            "minimum",
            prop(json!({"minimum": 0})),
            json!({"v": -0.5}),
            Some(("/v", "minimum")),
        ),
        (
            "maximum inclusive",
            prop(json!({"maximum": 100})),
            json!({"v": 100}),
            None,
        ),
        (
            "maximum",
            prop(json!({"maximum": 100})),
            json!({"v": 100.5}),
            Some(("/v", "maximum")),
        ),
        (
            "exclusiveMinimum",
            prop(json!({"exclusiveMinimum": 0})),
            json!({"v": 0}),
            Some(("/v", "exclusiveMinimum")),
        ),
        (
            "exclusiveMinimum passes above",
            prop(json!({"exclusiveMinimum": 0})),
            json!({"v": 0.01}),
            None,
        ),
        (
            "exclusiveMaximum",
            prop(json!({"exclusiveMaximum": 10})),
            json!({"v": 10}),
            Some(("/v", "exclusiveMaximum")),
        ),
        (
            "exclusiveMaximum passes below",
            prop(json!({"exclusiveMaximum": 10})),
            json!({"v": 9.99}),
            None,
        ),
        (
            "minimum before maximum",
            prop(json!({"minimum": 10, "maximum": 5})),
            json!({"v": 7}),
            Some(("/v", "minimum")),
        ),
        (
            "numeric keywords ignore strings",
            prop(json!({"minimum": 10})),
            json!({"v": "abc"}),
            None,
        ),
        // --- strings ------------------------------------------------------------------------
        (
            "minLength",
            prop(json!({"minLength": 2})),
            json!({"v": "a"}),
            Some(("/v", "minLength")),
        ),
        (
            "maxLength",
            prop(json!({"maxLength": 3})),
            json!({"v": "abcd"}),
            Some(("/v", "maxLength")),
        ),
        (
            "maxLength counts scalar values",
            prop(json!({"maxLength": 3})),
            json!({"v": "héé"}),
            None,
        ),
        (
            "maxLength counts an emoji once",
            prop(json!({"maxLength": 2})),
            json!({"v": "😀😀"}),
            None,
        ),
        (
            "minLength counts scalar values",
            prop(json!({"minLength": 3})),
            json!({"v": "😀😀"}),
            Some(("/v", "minLength")),
        ),
        (
            "pattern is a search",
            prop(json!({"pattern": "[0-9]+"})),
            json!({"v": "ab12"}),
            None,
        ),
        (
            "pattern does not match",
            prop(json!({"pattern": "[0-9]+"})),
            json!({"v": "ab"}),
            Some(("/v", "pattern")),
        ),
        (
            "anchored pattern",
            prop(json!({"pattern": "^[A-Z]{3}$"})),
            json!({"v": "ABCD"}),
            Some(("/v", "pattern")),
        ),
        (
            "length before pattern",
            prop(json!({"pattern": "^x", "maxLength": 1})),
            json!({"v": "yy"}),
            Some(("/v", "maxLength")),
        ),
        (
            "string keywords ignore numbers",
            prop(json!({"minLength": 3, "pattern": "^a"})),
            json!({"v": 1}),
            None,
        ),
        (
            "format email is asserted",
            prop(json!({"type": "string", "format": "email"})),
            json!({"v": "not an address"}),
            Some(("/v", "format")),
        ),
        (
            "format after pattern",
            prop(json!({"type": "string", "format": "uuid", "pattern": "^x"})),
            json!({"v": "not a uuid"}),
            Some(("/v", "pattern")),
        ),
        (
            "format date-time",
            prop(json!({"type": "string", "format": "date-time"})),
            json!({"v": "2026-12-02T10:00:00Z"}),
            None,
        ),
        (
            "format date refuses a day that is not",
            prop(json!({"format": "date"})),
            json!({"v": "2026-02-29"}),
            Some(("/v", "format")),
        ),
        (
            "format only on strings",
            prop(json!({"format": "uri"})),
            json!({"v": 3}),
            None,
        ),
        (
            "another format is an annotation",
            prop(json!({"type": "string", "format": "hostname"})),
            json!({"v": "not a host name!"}),
            None,
        ),
        // --- combinators and references -------------------------------------------------------
        (
            "oneOf: exactly one",
            prop(json!({"oneOf": [{"type": "integer"}, {"minimum": 0}]})),
            json!({"v": 3}),
            Some(("/v", "oneOf")),
        ),
        (
            "oneOf: one holds",
            prop(json!({"oneOf": [{"type": "integer"}, {"minimum": 0}]})),
            json!({"v": 2.5}),
            None,
        ),
        (
            "allOf names the inner fault",
            prop(json!({"allOf": [{"type": "string"}, {"maxLength": 2}]})),
            json!({"v": "abc"}),
            Some(("/v", "maxLength")),
        ),
        (
            "a $ref names the inner fault",
            json!({"$defs": {"Zone": {"enum": ["UTC", "CET"]}}, "properties": {"from": {"$ref": "#/$defs/Zone"}}}),
            json!({"from": "PST"}),
            Some(("/from", "enum")),
        ),
        (
            "a recursive $ref follows the value down",
            json!({
                "$defs": {"Node": {"type": "object", "properties": {"name": {"type": "string"}, "children": {"type": "array", "items": {"$ref": "#/$defs/Node"}}}}},
                "properties": {"tree": {"$ref": "#/$defs/Node"}}
            }),
            json!({"tree": {"name": "a", "children": [{"name": "b", "children": [{"name": 3}]}]}}),
            Some(("/tree/children/0/children/0/name", "type")),
        ),
        (
            "members a $ref target declares",
            json!({"$defs": {"P": {"properties": {"x": {}}}}, "properties": {"p": {"$ref": "#/$defs/P"}}}),
            json!({"p": {"x": 1, "y": 2}}),
            Some(("/p/y", "additionalProperties")),
        ),
        (
            "patternProperties declare and check",
            prop(json!({"patternProperties": {"^x-": {"type": "string"}}})),
            json!({"v": {"x-a": 1}}),
            Some(("/v/x-a", "type")),
        ),
        (
            "a name no pattern finds",
            prop(json!({"patternProperties": {"^x-": {"type": "string"}}})),
            json!({"v": {"y": "1"}}),
            Some(("/v/y", "additionalProperties")),
        ),
        (
            "additionalProperties false and patternProperties",
            prop(
                json!({"patternProperties": {"^x-": {}}, "additionalProperties": false, "properties": {"a": {}}}),
            ),
            json!({"v": {"a": 1, "x-b": 2}}),
            None,
        ),
        (
            "propertyNames points at the member",
            prop(json!({"additionalProperties": {}, "propertyNames": {"maxLength": 3}})),
            json!({"v": {"ok": 1, "toolong": 2}}),
            Some(("/v/toolong", "maxLength")),
        ),
        // --- arrays -------------------------------------------------------------------------
        (
            "minItems",
            prop(json!({"minItems": 1})),
            json!({"v": []}),
            Some(("/v", "minItems")),
        ),
        (
            "maxItems",
            prop(json!({"maxItems": 2})),
            json!({"v": [1, 2, 3]}),
            Some(("/v", "maxItems")),
        ),
        (
            "items",
            prop(json!({"items": {"type": "integer"}})),
            json!({"v": [1, "x"]}),
            Some(("/v/1", "type")),
        ),
        (
            "minItems before items",
            prop(json!({"minItems": 2, "items": {"type": "integer"}})),
            json!({"v": ["x"]}),
            Some(("/v", "minItems")),
        ),
        (
            "items of objects",
            json!({"properties": {"items": {"type": "array", "items": {"type": "object", "properties": {"sku": {"type": "string", "pattern": "^[A-Z]"}}, "required": ["sku"]}}}}),
            json!({"items": [{"sku": "A1"}, {"sku": "B2"}, {"sku": "c3"}]}),
            Some(("/items/2/sku", "pattern")),
        ),
        (
            "items of objects, missing member",
            json!({"properties": {"items": {"items": {"required": ["sku"]}}}}),
            json!({"items": [{"sku": 1}, {}]}),
            Some(("/items/1/sku", "required")),
        ),
        (
            "items false",
            prop(json!({"items": false})),
            json!({"v": [1]}),
            Some(("/v/0", "false")),
        ),
        (
            "items false, empty array",
            prop(json!({"items": false})),
            json!({"v": []}),
            None,
        ),
        // --- anyOf (Optional) ---------------------------------------------------------------
        (
            "optional accepts null",
            prop(json!({"anyOf": [{"type": "string"}, {"type": "null"}]})),
            json!({"v": null}),
            None,
        ),
        (
            "optional accepts the type",
            prop(json!({"anyOf": [{"type": "string"}, {"type": "null"}]})),
            json!({"v": "x"}),
            None,
        ),
        (
            "optional refuses another type",
            prop(json!({"anyOf": [{"type": "string"}, {"type": "null"}]})),
            json!({"v": 1}),
            Some(("/v", "anyOf")),
        ),
        (
            "anyOf of ranges",
            prop(json!({"anyOf": [{"minimum": 10}, {"maximum": 0}]})),
            json!({"v": 5}),
            Some(("/v", "anyOf")),
        ),
        (
            "anyOf after member faults",
            prop(
                json!({"type": "object", "properties": {"x": {"type": "string"}}, "anyOf": [{"required": ["y"]}]}),
            ),
            json!({"v": {"x": 1}}),
            Some(("/v/x", "type")),
        ),
        (
            "anyOf of objects",
            prop(json!({"anyOf": [{"required": ["a"]}, {"required": ["b"]}]})),
            json!({"v": {"b": 1}}),
            None,
        ),
        // --- boolean schemas, escaping, partial keywords --------------------------------------
        (
            "property true accepts any value without members",
            json!({"properties": {"x": true}}),
            json!({"x": [1, "a", [null], {}]}),
            None,
        ),
        (
            "property true declares no member, inside an array either",
            json!({"properties": {"x": true}}),
            json!({"x": [{"deep": null}]}),
            Some(("/x/0/deep", "additionalProperties")),
        ),
        (
            "property false",
            json!({"properties": {"x": false}}),
            json!({"x": null}),
            Some(("/x", "false")),
        ),
        (
            "pointer escapes slash",
            prop(json!({"required": ["a/b"]})),
            json!({"v": {}}),
            Some(("/v/a~1b", "required")),
        ),
        (
            "pointer escapes tilde",
            json!({"properties": {"t~x": {"type": "string"}}}),
            json!({"t~x": 1}),
            Some(("/t~0x", "type")),
        ),
        (
            "a keyword outside the subset is not enforced",
            prop(json!({"type": "integer", "multipleOf": 5})),
            json!({"v": 7}),
            None,
        ),
        (
            "the subset around it still is",
            prop(json!({"type": "integer", "multipleOf": 5})),
            json!({"v": 7.5}),
            Some(("/v", "type")),
        ),
    ]
}

#[test]
fn arguments_against_compiled_schemas() {
    let cases = cases();
    assert!(cases.len() >= 60, "{} cases", cases.len());
    let mut wrong = Vec::new();
    for (name, schema, args, expected) in cases {
        let compiled = schema_support::compile(&schema);
        let fault = validate_arguments(
            compiled.body(),
            Some(compiled.schema.root),
            &schema_support::object(args.clone()),
        );
        let got = fault.as_ref().map(|f| (f.pointer.as_str(), f.rule));
        if got != expected {
            wrong.push(format!(
                "{name}: {args} gave {got:?}, expected {expected:?}"
            ));
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

#[test]
fn no_schema_refuses_every_argument_in_call_order() {
    let compiled = schema_support::compile(&json!(true));
    let body = compiled.body();
    let args = schema_support::object(json!({"b": 1, "a": 2}));
    let fault = validate_arguments(body, None, &args).unwrap();
    assert_eq!(
        (fault.pointer.as_str(), fault.rule),
        ("/b", "additionalProperties")
    );
    assert_eq!(
        validate_arguments(body, None, &serde_json::Map::new()),
        None
    );
}
