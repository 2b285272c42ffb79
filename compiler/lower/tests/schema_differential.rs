//! The compiled schema program against the `jsonschema` crate (draft 2020-12) on the supported
//! subset: for generated and enumerated schema/value pairs, our verdict (valid or not) equals
//! jsonschema's. Arguments are compared too where the call has no top-level undeclared argument,
//! the one place the tool check is deliberately stricter than JSON Schema.

mod schema_support;

use proptest::prelude::*;
use serde_json::{Map, Value as Json, json};
use stalwart_runtime::schema::{validate_arguments, validate_value};

const NAMES: [&str; 3] = ["a", "b", "c"];
const TYPES: [&str; 7] = [
    "null", "boolean", "integer", "number", "string", "array", "object",
];
/// Patterns whose meaning is the same in regex-lite and ECMA-262.
const PATTERNS: [&str; 6] = ["^a", "[0-9]+", "^[a-z]*$", "b$", "é", "^.{2}$"];

fn number() -> impl Strategy<Value = Json> {
    prop_oneof![
        (-3i64..=3).prop_map(Json::from),
        prop::sample::select(vec![-1.5, -0.5, 0.0, 0.5, 1.0, 2.0, 2.5, 40.0]).prop_map(Json::from),
    ]
}

fn scalar() -> impl Strategy<Value = Json> {
    prop_oneof![
        Just(Json::Null),
        any::<bool>().prop_map(Json::Bool),
        number(),
        prop::sample::select(vec![
            "", "a", "ab", "abc", "b", "1", "é", "aé9", "zz", "a😀"
        ])
        .prop_map(Json::from),
    ]
}

fn value() -> impl Strategy<Value = Json> {
    scalar().prop_recursive(3, 24, 4, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..4).prop_map(Json::Array),
            prop::collection::btree_map(
                prop::sample::select(vec!["a", "b", "c", "d"]),
                inner,
                0..4
            )
            .prop_map(|m| Json::Object(m.into_iter().map(|(k, v)| (k.to_owned(), v)).collect())),
        ]
    })
}

fn names() -> impl Strategy<Value = Vec<String>> {
    prop::sample::subsequence(NAMES.to_vec(), 0..=3)
        .prop_map(|names| names.into_iter().map(str::to_owned).collect())
}

/// Optional keywords of one schema object that take no subschema.
fn flat_keywords() -> impl Strategy<Value = Map<String, Json>> {
    let types = prop_oneof![
        prop::sample::select(TYPES.to_vec()).prop_map(Json::from),
        prop::sample::subsequence(TYPES.to_vec(), 1..=3).prop_map(Json::from),
    ];
    let count = || prop::option::weighted(0.2, 0u64..4);
    let bound = || prop::option::weighted(0.15, number());
    (
        prop::option::weighted(0.5, types),
        prop::option::weighted(0.15, prop::collection::vec(scalar(), 1..4)),
        prop::option::weighted(0.1, value()),
        (bound(), bound(), bound(), bound()),
        (
            count(),
            count(),
            prop::option::weighted(0.2, prop::sample::select(PATTERNS.to_vec())),
        ),
        (count(), count()),
        prop::option::weighted(0.3, names()),
        prop::option::weighted(0.2, any::<bool>()),
    )
        .prop_map(
            |(types, enumeration, constant, bounds, strings, arrays, required, additional)| {
                let mut map = Map::new();
                let mut put = |key: &str, value: Option<Json>| {
                    if let Some(value) = value {
                        map.insert(key.to_owned(), value);
                    }
                };
                put("type", types);
                put("enum", enumeration.map(Json::Array));
                put("const", constant);
                put("minimum", bounds.0);
                put("maximum", bounds.1);
                put("exclusiveMinimum", bounds.2);
                put("exclusiveMaximum", bounds.3);
                put("minLength", strings.0.map(Json::from));
                put("maxLength", strings.1.map(Json::from));
                put("pattern", strings.2.map(Json::from));
                put("minItems", arrays.0.map(Json::from));
                put("maxItems", arrays.1.map(Json::from));
                put("required", required.map(Json::from));
                put("additionalProperties", additional.map(Json::Bool));
                map
            },
        )
}

fn schema() -> impl Strategy<Value = Json> {
    let leaf = prop_oneof![
        1 => any::<bool>().prop_map(Json::Bool),
        8 => flat_keywords().prop_map(Json::Object),
    ];
    leaf.prop_recursive(3, 16, 3, |inner| {
        (
            flat_keywords(),
            prop::option::weighted(
                0.6,
                prop::collection::btree_map(
                    prop::sample::select(NAMES.to_vec()),
                    inner.clone(),
                    1..=3,
                ),
            ),
            prop::option::weighted(0.3, inner.clone()),
            prop::option::weighted(0.2, inner.clone()),
            prop::option::weighted(0.25, prop::collection::vec(inner, 1..3)),
        )
            .prop_map(|(mut map, properties, items, additional, any_of)| {
                if let Some(properties) = properties {
                    let properties = properties
                        .into_iter()
                        .map(|(k, v)| (k.to_owned(), v))
                        .collect();
                    map.insert("properties".to_owned(), Json::Object(properties));
                }
                if let Some(items) = items {
                    map.insert("items".to_owned(), items);
                }
                if let Some(additional) = additional {
                    map.insert("additionalProperties".to_owned(), additional);
                }
                if let Some(any_of) = any_of {
                    map.insert("anyOf".to_owned(), Json::Array(any_of));
                }
                Json::Object(map)
            })
    })
}

/// Whether every member of `value` is declared by the root's `properties`.
fn all_declared(schema: &Json, value: &Map<String, Json>) -> bool {
    let declared = schema.get("properties").and_then(Json::as_object);
    value
        .keys()
        .all(|key| declared.is_some_and(|d| d.contains_key(key)))
}

/// Compares the verdicts; returns a description of the difference, if any.
fn differ(schema: &Json, value: &Json) -> Option<String> {
    let compiled = schema_support::compile(schema);
    assert!(
        compiled.schema.partial_keywords.is_empty(),
        "{schema} is outside the subset"
    );
    let body = compiled.body();
    let reference = jsonschema::draft202012::new(schema).unwrap();
    let theirs = reference.is_valid(value);
    let ours = validate_value(body, compiled.schema.root, value);
    if ours.is_none() != theirs {
        return Some(format!("value: ours {ours:?}, jsonschema valid={theirs}"));
    }
    if let Json::Object(args) = value
        && all_declared(schema, args)
    {
        let ours = validate_arguments(body, Some(compiled.schema.root), args);
        if ours.is_none() != theirs {
            return Some(format!(
                "arguments: ours {ours:?}, jsonschema valid={theirs}"
            ));
        }
    }
    None
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 1000, ..ProptestConfig::default() })]

    #[test]
    fn generated_schemas_agree_with_jsonschema(schema in schema(), value in value()) {
        let difference = differ(&schema, &value);
        prop_assert!(difference.is_none(), "schema {schema}\nvalue {value}\n{}", difference.unwrap());
    }

    #[test]
    fn generated_arguments_agree_with_jsonschema(
        schema in schema(),
        args in prop::collection::btree_map(prop::sample::select(NAMES.to_vec()), value(), 0..4),
    ) {
        let value = Json::Object(args.into_iter().map(|(k, v)| (k.to_owned(), v)).collect());
        let difference = differ(&schema, &value);
        prop_assert!(difference.is_none(), "schema {schema}\nvalue {value}\n{}", difference.unwrap());
    }
}

#[test]
fn enumerated_edges_agree_with_jsonschema() {
    let schemas = [
        json!({"type": "integer"}),
        json!({"type": "number"}),
        json!({"type": ["integer", "string"]}),
        json!({"enum": [1, "1", true, null, [1], {"a": 1}]}),
        json!({"const": 0}),
        json!({"const": {"a": [1, 2.0]}}),
        json!({"minLength": 2, "maxLength": 2}),
        json!({"pattern": "^.{2}$"}),
        json!({"exclusiveMinimum": 0, "exclusiveMaximum": 1}),
        json!({"minimum": 0, "maximum": 0}),
        json!({"items": {"type": "integer"}, "minItems": 1, "maxItems": 2}),
        json!({"properties": {"a": false}, "additionalProperties": {"type": "string"}}),
        json!({"required": ["a"], "properties": {"a": {"anyOf": [{"type": "null"}, {"minimum": 1}]}}}),
        json!({"anyOf": [false, {"type": "array", "items": false}]}),
        json!(true),
        json!(false),
        json!({}),
    ];
    let values = [
        json!(null),
        json!(true),
        json!(false),
        json!(0),
        json!(-0.0),
        json!(1),
        json!(1.0),
        json!(0.5),
        json!(40.0),
        json!("1"),
        json!("ab"),
        json!("😀😀"),
        json!("é\u{301}"),
        json!([]),
        json!([1]),
        json!([1.0, 2]),
        json!([1, 2, 3]),
        json!({"a": 1}),
        json!({"a": {"a": [1, 2]}}),
        json!({"a": [1, 2.0]}),
        json!({"a": null, "b": "x"}),
        json!({"b": 1}),
        json!({}),
    ];
    let mut wrong = Vec::new();
    for schema in &schemas {
        for value in &values {
            if let Some(difference) = differ(schema, value) {
                wrong.push(format!("{schema} / {value}: {difference}"));
            }
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

/// The generators reach every rule and both verdicts, so the agreement above means something.
#[test]
fn generated_pairs_cover_every_rule_and_both_verdicts() {
    use proptest::strategy::ValueTree;
    use proptest::test_runner::TestRunner;
    use std::collections::BTreeMap;

    let mut runner = TestRunner::deterministic();
    let pairs = (schema(), value());
    let mut rules = BTreeMap::new();
    let mut valid = 0;
    let total = 2000;
    for _ in 0..total {
        let (schema, value) = pairs.new_tree(&mut runner).unwrap().current();
        let compiled = schema_support::compile(&schema);
        match validate_value(compiled.body(), compiled.schema.root, &value) {
            None => valid += 1,
            Some(fault) => *rules.entry(fault.rule).or_insert(0) += 1,
        }
    }
    let seen: Vec<_> = rules.keys().copied().collect();
    assert_eq!(
        seen,
        vec![
            "additionalProperties",
            "anyOf",
            "const",
            "enum",
            "exclusiveMaximum",
            "exclusiveMinimum",
            "false",
            "maxItems",
            "maxLength",
            "maximum",
            "minItems",
            "minLength",
            "minimum",
            "pattern",
            "required",
            "type",
        ],
        "{rules:?}"
    );
    assert!(
        (total / 5..total * 4 / 5).contains(&valid),
        "{valid} of {total} valid, {rules:?}"
    );
}
