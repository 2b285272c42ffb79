//! The compiled schema program against the `jsonschema` crate (draft 2020-12, formats asserted) on
//! the supported subset: for generated and enumerated schema/value pairs, our verdict (valid or
//! not) equals jsonschema's. Values (results) are compared with the schema as it is. Arguments are
//! compared with the schema made as strict as the check's rule on undeclared members (see
//! `runtime/check/src/schema.rs`): every schema that stands for a value of its own gets, in an
//! `allOf`, a `propertyNames` that allows only the names it or a schema applied in place
//! (`$ref`, `allOf`, `anyOf`, `oneOf`) declares (`properties`, `required`, `patternProperties`) —
//! unless one of them has an `additionalProperties` schema, an `enum` or a `const`; and members
//! and items none of them describes (no `properties` entry, pattern, `additionalProperties`
//! schema or `items`) must be free values, where every object is empty. With that, the two must
//! agree on every call.

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
/// Patterns for member names.
const NAME_PATTERNS: [&str; 3] = ["^a", "b", "^[cd]$"];
/// The formats the check asserts.
const FORMATS: [&str; 5] = ["date-time", "date", "email", "uri", "uuid"];
/// Strings in and out of those formats.
const FORMATTED: [&str; 10] = [
    "2024-02-29",
    "2023-02-29",
    "2024-05-01T12:30:00Z",
    "2024-05-01T12:30:00",
    "ana@example.com",
    "ana@@example.com",
    "https://example.com/a?b#c",
    "not a uri",
    "123e4567-e89b-12d3-a456-426614174000",
    "123e4567-e89b-12d3-a456-42661417400",
];

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
        prop::sample::select(FORMATTED.to_vec()).prop_map(Json::from),
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
        prop::option::weighted(0.15, prop::sample::select(FORMATS.to_vec())),
    )
        .prop_map(
            |(
                types,
                enumeration,
                constant,
                bounds,
                strings,
                arrays,
                required,
                additional,
                format,
            )| {
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
                put("format", format.map(Json::from));
                map
            },
        )
}

/// A schema with no `$ref` (the target of references), or with `$ref` leaves when `refs`.
fn subschema(refs: bool) -> impl Strategy<Value = Json> {
    let leaf = prop_oneof![
        1 => any::<bool>().prop_map(Json::Bool),
        8 => flat_keywords().prop_map(Json::Object),
        if refs { 2 } else { 0 } => Just(json!({"$ref": "#/$defs/d"})),
    ];
    leaf.prop_recursive(3, 16, 3, |inner| {
        let list = || prop::option::weighted(0.12, prop::collection::vec(inner.clone(), 1..3));
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
            (list(), list(), list()),
            prop::option::weighted(
                0.15,
                prop::collection::btree_map(
                    prop::sample::select(NAME_PATTERNS.to_vec()),
                    inner.clone(),
                    1..=2,
                ),
            ),
            prop::option::weighted(0.1, inner.clone()),
        )
            .prop_map(
                |(mut map, properties, items, additional, lists, patterns, names)| {
                    let mut put = |key: &str, value: Option<Json>| {
                        if let Some(value) = value {
                            map.insert(key.to_owned(), value);
                        }
                    };
                    let object = |m: std::collections::BTreeMap<&str, Json>| {
                        Json::Object(m.into_iter().map(|(k, v)| (k.to_owned(), v)).collect())
                    };
                    put("properties", properties.map(object));
                    put("items", items);
                    put("additionalProperties", additional);
                    put("anyOf", lists.0.map(Json::Array));
                    put("allOf", lists.1.map(Json::Array));
                    put("oneOf", lists.2.map(Json::Array));
                    put("patternProperties", patterns.map(object));
                    put("propertyNames", names);
                    Json::Object(map)
                },
            )
    })
}

/// A schema, with `$defs/d` beside it when it refers to it.
fn schema() -> impl Strategy<Value = Json> {
    (subschema(true), subschema(false)).prop_map(|(body, target)| {
        if !body.to_string().contains("$ref") {
            return body;
        }
        let mut root = match body {
            Json::Object(map) if !map.contains_key("$ref") => map,
            other => {
                let mut map = Map::new();
                map.insert("allOf".to_owned(), json!([other]));
                map
            }
        };
        root.insert("$defs".to_owned(), json!({ "d": target }));
        Json::Object(root)
    })
}

/// The member names, patterns and `additionalProperties` schema a schema declares, with those of
/// the schemas it applies in place.
fn declared(schema: &Json, root: &Json, depth: usize, out: &mut (Vec<String>, Vec<String>, bool)) {
    let Json::Object(map) = schema else { return };
    if depth > 16 {
        out.2 = true;
        return;
    }
    if let Some(Json::Object(props)) = map.get("properties") {
        out.0.extend(props.keys().cloned());
    }
    if let Some(Json::Array(names)) = map.get("required") {
        out.0
            .extend(names.iter().filter_map(|n| n.as_str().map(str::to_owned)));
    }
    if map.contains_key("enum") || map.contains_key("const") {
        out.2 = true;
    }
    if let Some(Json::Object(patterns)) = map.get("patternProperties") {
        out.1.extend(patterns.keys().cloned());
    }
    if map.get("additionalProperties").is_some_and(Json::is_object) {
        out.2 = true;
    }
    if let Some(Json::String(r)) = map.get("$ref") {
        let target = root
            .pointer(r.trim_start_matches('#'))
            .unwrap_or(&Json::Null);
        declared(target, root, depth + 1, out);
    }
    for key in ["allOf", "anyOf", "oneOf"] {
        if let Some(Json::Array(list)) = map.get(key) {
            for s in list {
                declared(s, root, depth + 1, out);
            }
        }
    }
}

/// The schema as strict as the check's rule on undeclared members in a call's arguments.
fn strictify(schema: &Json, root: &Json, value_level: bool) -> Json {
    let mut map = match schema {
        Json::Bool(false) => return Json::Bool(false),
        Json::Bool(true) if value_level => Map::new(),
        Json::Bool(true) => return Json::Bool(true),
        Json::Object(map) => map.clone(),
        other => return other.clone(),
    };
    for (key, value) in map.iter_mut() {
        match key.as_str() {
            "properties" | "patternProperties" | "$defs" => {
                if let Json::Object(children) = value {
                    let level = key != "$defs";
                    for child in children.values_mut() {
                        *child = strictify(child, root, level);
                    }
                }
            }
            "items" | "propertyNames" if value.is_object() || value.is_boolean() => {
                *value = strictify(value, root, true);
            }
            "additionalProperties" if value.is_object() => {
                *value = strictify(value, root, true);
            }
            "allOf" | "anyOf" | "oneOf" => {
                if let Json::Array(list) = value {
                    for child in list.iter_mut() {
                        *child = strictify(child, root, false);
                    }
                }
            }
            _ => {}
        }
    }
    if value_level {
        let mut found = (Vec::new(), Vec::new(), false);
        declared(schema, root, 0, &mut found);
        if !found.2 {
            let mut allowed: Vec<Json> = Vec::new();
            if !found.0.is_empty() {
                allowed.push(json!({"enum": found.0}));
            }
            allowed.extend(found.1.iter().map(|p| json!({"pattern": p})));
            let names = if allowed.is_empty() {
                Json::Bool(false)
            } else {
                json!({"anyOf": allowed})
            };
            let mut all = match map.remove("allOf") {
                Some(Json::Array(list)) => list,
                _ => Vec::new(),
            };
            all.push(json!({"propertyNames": names}));
            map.insert("allOf".to_owned(), Json::Array(all));
        }
        // What no schema describes is free: any object in it must be empty.
        let mut free = Vec::new();
        let mut found = (Vec::new(), Vec::new(), false);
        governed(schema, root, 0, &mut found);
        if !found.2 {
            let named: Map<String, Json> = found.0.into_iter().map(|n| (n, json!(true))).collect();
            let patterns: Map<String, Json> =
                found.1.into_iter().map(|p| (p, json!(true))).collect();
            free.push(json!({
                "properties": named,
                "patternProperties": patterns,
                "additionalProperties": {"$ref": FREE},
            }));
        }
        if !has_items(schema, root, 0) {
            free.push(json!({"items": {"$ref": FREE}}));
        }
        if !free.is_empty() {
            let mut all = match map.remove("allOf") {
                Some(Json::Array(list)) => list,
                _ => Vec::new(),
            };
            all.extend(free);
            map.insert("allOf".to_owned(), Json::Array(all));
        }
    }
    Json::Object(map)
}

/// Where the strict schema keeps the schema of a value nothing describes.
const FREE: &str = "#/$defs/free_value";

/// The strict form of `schema` as a whole: [`strictify`], with the schema of a free value.
fn strict_schema(schema: &Json) -> Json {
    let mut strict = strictify(schema, schema, true);
    if let Json::Object(map) = &mut strict {
        let defs = map.entry("$defs").or_insert_with(|| json!({}));
        if let Json::Object(defs) = defs {
            defs.insert(
                "free_value".to_owned(),
                json!({"propertyNames": false, "items": {"$ref": FREE}}),
            );
        }
    }
    strict
}

/// The member names and patterns whose values a schema describes (`properties`,
/// `patternProperties`), with those of the schemas it applies in place; the flag is set when it
/// describes every member (an `additionalProperties` schema, an `enum`, a `const`).
fn governed(schema: &Json, root: &Json, depth: usize, out: &mut (Vec<String>, Vec<String>, bool)) {
    let Json::Object(map) = schema else { return };
    if depth > 16 {
        out.2 = true;
        return;
    }
    if let Some(Json::Object(props)) = map.get("properties") {
        out.0.extend(props.keys().cloned());
    }
    if let Some(Json::Object(patterns)) = map.get("patternProperties") {
        out.1.extend(patterns.keys().cloned());
    }
    if map.contains_key("enum")
        || map.contains_key("const")
        || map.get("additionalProperties").is_some_and(Json::is_object)
    {
        out.2 = true;
    }
    for child in in_place(map, root) {
        governed(child, root, depth + 1, out);
    }
}

/// Whether a schema, or one it applies in place, describes an array's items (`items`, `enum`,
/// `const`).
fn has_items(schema: &Json, root: &Json, depth: usize) -> bool {
    let Json::Object(map) = schema else {
        return false;
    };
    depth > 16
        || ["items", "enum", "const"]
            .iter()
            .any(|k| map.contains_key(*k))
        || in_place(map, root).any(|child| has_items(child, root, depth + 1))
}

/// The schemas `map` applies in place: its `$ref` target, `allOf`, `anyOf`, `oneOf`.
fn in_place<'a>(map: &'a Map<String, Json>, root: &'a Json) -> impl Iterator<Item = &'a Json> {
    let target = match map.get("$ref") {
        Some(Json::String(r)) => root.pointer(r.trim_start_matches('#')),
        _ => None,
    };
    let lists = ["allOf", "anyOf", "oneOf"]
        .into_iter()
        .filter_map(|key| map.get(key).and_then(Json::as_array))
        .flatten();
    target.into_iter().chain(lists)
}

fn reference(schema: &Json) -> jsonschema::Validator {
    jsonschema::draft202012::options()
        .should_validate_formats(true)
        .build(schema)
        .unwrap()
}

/// Compares the verdicts; returns a description of the difference, if any.
fn differ(schema: &Json, value: &Json) -> Option<String> {
    let compiled = schema_support::compile(schema);
    assert!(
        compiled.schema.partial_keywords.is_empty(),
        "{schema} is outside the subset"
    );
    let body = compiled.body();
    let theirs = reference(schema).is_valid(value);
    let ours = validate_value(body, compiled.schema.root, value);
    if ours.is_none() != theirs {
        return Some(format!("value: ours {ours:?}, jsonschema valid={theirs}"));
    }
    if let Json::Object(args) = value {
        let strict = strict_schema(schema);
        let theirs = reference(&strict).is_valid(value);
        let ours = validate_arguments(body, Some(compiled.schema.root), args);
        if ours.is_none() != theirs {
            return Some(format!(
                "arguments: ours {ours:?}, jsonschema (strict: {strict}) valid={theirs}"
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
fn a_false_alternative_declares_no_member() {
    // `false` is compiled as an empty enumeration; an enumeration declares the members of the
    // values it lists, and an empty one lists none.
    for schema in [
        json!({"anyOf": [{}, {"oneOf": [false]}]}),
        json!({"anyOf": [{"type": "object"}, false]}),
    ] {
        assert_eq!(differ(&schema, &json!({"a": null})), None, "{schema}");
        let compiled = schema_support::compile(&schema);
        let args = json!({"a": null});
        let Json::Object(args) = args else {
            unreachable!()
        };
        assert!(
            validate_arguments(compiled.body(), Some(compiled.schema.root), &args).is_some(),
            "{schema}: a member nothing declares is refused"
        );
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
        json!({"oneOf": [{"type": "integer"}, {"minimum": 0}]}),
        json!({"allOf": [{"properties": {"a": {}}}, {"properties": {"b": {"type": "string"}}}]}),
        json!({"patternProperties": {"^a": {"type": "integer"}}, "additionalProperties": false}),
        json!({"propertyNames": {"maxLength": 1}, "additionalProperties": {}}),
        json!({"properties": {"a": {"$ref": "#/$defs/n"}}, "$defs": {"n": {"type": ["integer", "object"], "properties": {"a": {"$ref": "#/$defs/n"}}}}}),
        json!({"$ref": "#/definitions/o", "definitions": {"o": {"properties": {"a": {"type": "integer"}, "b": {}}}}}),
        json!({"properties": {"a": {"type": "object", "additionalProperties": {}}, "b": {"format": "email"}}}),
        json!({"properties": {"a": {"anyOf": [{"properties": {"a": {}}}, {"properties": {"b": {}}}]}}}),
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
        json!({"a": {"b": 1}}),
        json!({"a": {"a": {"a": 1}}}),
        json!({"ab": 1, "b": "x"}),
        json!({"b": "ana@example.com"}),
        json!({"b": "ana"}),
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

/// Each asserted format against jsonschema on strings chosen at its edges.
#[test]
fn formats_agree_with_jsonschema() {
    let strings: &[&str] = &[
        // date and date-time
        "2024-02-29",
        "2023-02-29",
        "1900-02-29",
        "2000-02-29",
        "2024-13-01",
        "2024-04-31",
        "2024-1-01",
        "24-01-01",
        "2024-01-01T00:00:00Z",
        "2024-01-01t00:00:00z",
        "2024-01-01T23:59:59.999+14:00",
        "2024-01-01T12:00:00",
        "2024-01-01 12:00:00Z",
        "2016-12-31T23:59:60Z",
        "2016-12-31T15:59:60-08:00",
        "2016-12-31T22:59:60Z",
        "2024-01-01T24:00:00Z",
        "2024-01-01T12:60:00Z",
        "2024-01-01T12:00:00.Z",
        "2024-01-01T12:00:00+24:00",
        "2024-01-01T12:00:00+01",
        "2024-01-01",
        // email
        "ana@example.com",
        "ana.b+tag@example.co.uk",
        "a@b",
        "@example.com",
        "ana@",
        "ana..b@example.com",
        ".ana@example.com",
        "ana.@example.com",
        "ana@-example.com",
        "ana@example-.com",
        "ana@exa_mple.com",
        "\"ana b\"@example.com",
        "ana@[127.0.0.1]",
        "ana@[IPv6:::1]",
        "ana@[300.0.0.1]",
        "ana b@example.com",
        "ana@example.com.",
        // uri
        "https://example.com",
        "https://example.com/a/b?c=d#e",
        "mailto:ana@example.com",
        "urn:isbn:0451450523",
        "http://[::1]:8080/",
        "http://user:pw@host:80/p",
        "//example.com/a",
        "/relative/path",
        "https://exa mple.com",
        "https://example.com/%zz",
        "https://example.com/%41",
        "1http://x",
        "http://host:port/",
        "a:b",
        "file:///etc/passwd",
        "https://example.com/a b",
        // uuid
        "123e4567-e89b-12d3-a456-426614174000",
        "123E4567-E89B-12D3-A456-426614174000",
        "123e4567e89b12d3a456426614174000",
        "123e4567-e89b-12d3-a456-42661417400",
        "g23e4567-e89b-12d3-a456-426614174000",
        "123e4567-e89b-12d3-a456-4266141740000",
        "",
    ];
    let mut wrong = Vec::new();
    for format in FORMATS {
        let schema = json!({ "format": format });
        let compiled = schema_support::compile(&schema);
        let theirs = reference(&schema);
        for s in strings {
            let value = json!(s);
            let ours = validate_value(compiled.body(), compiled.schema.root, &value).is_none();
            if ours != theirs.is_valid(&value) {
                wrong.push(format!("{format} {s:?}: ours {ours}"));
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
            "format",
            "maxItems",
            "maxLength",
            "maximum",
            "minItems",
            "minLength",
            "minimum",
            "oneOf",
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

#[test]
fn a_value_no_schema_describes_holds_no_member() {
    let cases = [
        (
            json!({"properties": {"c": {"items": true}}}),
            json!({"c": [{"a": null}]}),
            Some("/c/0/a"),
        ),
        (
            json!({"required": ["a"]}),
            json!({"a": {"b": 1}}),
            Some("/a/b"),
        ),
        (
            json!({"required": ["a"]}),
            json!({"a": [1, [{}, {"b": 1}]]}),
            Some("/a/1/1/b"),
        ),
        (json!({"required": ["a"]}), json!({"a": [1, {}]}), None),
        (
            json!({"anyOf": [{"additionalProperties": true}, {"type": "null", "required": ["a"]}]}),
            json!({"a": {"a": null}}),
            Some("/a/a"),
        ),
        (
            json!({"properties": {"a": {"type": "array"}}}),
            json!({"a": [{"b": 1}]}),
            Some("/a/0/b"),
        ),
        (
            json!({"properties": {"a": {"anyOf": [{"items": {"properties": {"b": {}}}}, {"type": "string"}]}}}),
            json!({"a": [{"b": 1}]}),
            None,
        ),
        (
            json!({"allOf": [{"required": ["a"]}], "properties": {"a": {"properties": {"b": {}}}}}),
            json!({"a": {"b": 1}}),
            None,
        ),
        (
            json!({"properties": {"a": {"additionalProperties": {}}}}),
            json!({"a": {"b": {"c": 1}}}),
            Some("/a/b/c"),
        ),
        (
            json!({"properties": {"a": {"additionalProperties": {}}}}),
            json!({"a": {"b": [1, "x"]}}),
            None,
        ),
    ];
    for (schema, args, pointer) in cases {
        assert_eq!(differ(&schema, &args), None, "{schema} / {args}");
        let compiled = schema_support::compile(&schema);
        let Json::Object(map) = &args else {
            unreachable!()
        };
        let fault = validate_arguments(compiled.body(), Some(compiled.schema.root), map);
        assert_eq!(
            fault.as_ref().map(|f| (f.pointer.as_str(), f.rule)),
            pointer.map(|p| (p, "additionalProperties")),
            "{schema} / {args}"
        );
    }
}
