//! The schema program evaluated over hand-built records: broken programs (missing nodes, cycles,
//! bad patterns) give faults, never panics; the value arena helpers compare as JSON Schema does.

#![allow(
    clippy::unwrap_used,
    clippy::panic,
    reason = "test helpers fail the test loudly"
)]

use rkyv::rancor::Error;
use serde_json::{Map, Value as Json, json};
use stalwart_record::{Additional, ArchivedRecordBody, RecordBody, SchemaNode, TypeSet, Value};
use stalwart_runtime::schema::{
    PatternCache, SchemaFault, validate_arguments, validate_arguments_cached, validate_value,
};
use stalwart_runtime::value::{json_equals, number_equals, to_json};

/// Archives a body with rkyv alone: bytecheck passes, but the record loader's index checks do not
/// run, so these tests can hand the runtime programs that point outside their arenas.
fn archive(values: Vec<Value>, schema_nodes: Vec<SchemaNode>) -> rkyv::util::AlignedVec {
    let body = RecordBody {
        values,
        schema_nodes,
        ..RecordBody::default()
    };
    rkyv::to_bytes::<Error>(&body).unwrap()
}

fn access(bytes: &[u8]) -> &ArchivedRecordBody {
    rkyv::access::<ArchivedRecordBody, Error>(bytes).unwrap()
}

fn args(json: Json) -> Map<String, Json> {
    match json {
        Json::Object(map) => map,
        other => panic!("arguments must be an object, got {other}"),
    }
}

fn found(fault: Option<SchemaFault>) -> Option<(String, &'static str)> {
    fault.map(|f| (f.pointer, f.rule))
}

fn at(pointer: &str, rule: &'static str) -> Option<(String, &'static str)> {
    Some((pointer.to_owned(), rule))
}

fn object(properties: &[(&str, u32)], required: &[&str]) -> SchemaNode {
    SchemaNode {
        types: TypeSet::OBJECT,
        properties: properties
            .iter()
            .map(|(n, i)| ((*n).to_owned(), *i))
            .collect(),
        required: required.iter().map(|n| (*n).to_owned()).collect(),
        ..SchemaNode::default()
    }
}

#[test]
fn missing_root_node_is_a_schema_fault() {
    let bytes = archive(vec![], vec![]);
    let body = access(&bytes);
    assert_eq!(
        found(validate_arguments(body, Some(0), &args(json!({})))),
        at("", "schema")
    );
    assert_eq!(found(validate_value(body, 7, &json!(1))), at("", "schema"));
}

#[test]
fn property_pointing_outside_the_arena_is_a_schema_fault_at_the_argument() {
    let bytes = archive(vec![], vec![object(&[("a", 9)], &[])]);
    let body = access(&bytes);
    let fault = validate_arguments(body, Some(0), &args(json!({"a": 1})));
    assert_eq!(found(fault), at("/a", "schema"));
}

#[test]
fn any_of_that_contains_itself_ends_with_a_depth_fault() {
    let node = SchemaNode {
        any_of: vec![0],
        ..SchemaNode::default()
    };
    let bytes = archive(vec![], vec![node]);
    let body = access(&bytes);
    assert_eq!(found(validate_value(body, 0, &json!("x"))), at("", "depth"));
}

#[test]
fn references_that_loop_in_place_end_with_a_depth_fault() {
    // A program the compiler refuses to write (`ref-cycle`), loaded as it is: a `$ref` to itself,
    // and an `allOf` and a `oneOf` through each other.
    let own = SchemaNode {
        reference: Some(0),
        ..SchemaNode::default()
    };
    let bytes = archive(vec![], vec![own]);
    assert_eq!(
        found(validate_value(access(&bytes), 0, &json!(1))),
        at("", "depth")
    );
    let a = SchemaNode {
        all_of: vec![1],
        ..SchemaNode::default()
    };
    let b = SchemaNode {
        one_of: vec![0],
        ..SchemaNode::default()
    };
    let bytes = archive(vec![], vec![a, b]);
    assert_eq!(
        found(validate_value(access(&bytes), 0, &json!({"k": 1}))),
        at("", "depth")
    );
    // The rule on undeclared members walks the same loop and stops the same way.
    let root = object(&[("o", 1)], &[]);
    let looping = SchemaNode {
        reference: Some(1),
        ..SchemaNode::default()
    };
    let bytes = archive(vec![], vec![root, looping]);
    let fault = validate_arguments(access(&bytes), Some(0), &args(json!({"o": {"k": 1}})));
    assert_eq!(found(fault), at("/o/k", "depth"));
}

#[test]
fn a_recursive_reference_follows_the_value_until_the_depth_limit() {
    // A tree: an object whose `children` are trees, through `$ref` to itself.
    let tree = object(&[("children", 1)], &[]);
    let children = SchemaNode {
        types: TypeSet::ARRAY,
        items: Some(2),
        ..SchemaNode::default()
    };
    let reference = SchemaNode {
        reference: Some(0),
        ..SchemaNode::default()
    };
    let bytes = archive(vec![], vec![tree, children, reference]);
    let body = access(&bytes);
    let shallow = json!({"children": [{"children": []}]});
    assert_eq!(
        found(validate_arguments(body, Some(0), &args(shallow))),
        None
    );
    let mut deep = json!({"children": []});
    for _ in 0..100 {
        deep = json!({ "children": [deep] });
    }
    let fault = validate_arguments(body, Some(0), &args(deep)).unwrap();
    assert_eq!(fault.rule, "depth");
}

#[test]
fn items_that_refer_to_themselves_follow_the_value_until_the_depth_limit() {
    let node = SchemaNode {
        types: TypeSet::ARRAY,
        items: Some(0),
        ..SchemaNode::default()
    };
    let bytes = archive(vec![], vec![node]);
    let body = access(&bytes);
    assert_eq!(found(validate_value(body, 0, &json!([[[[]]]]))), None);
    let mut deep = json!([]);
    for _ in 0..200 {
        deep = Json::Array(vec![deep]);
    }
    let fault = validate_value(body, 0, &deep).unwrap();
    assert_eq!(fault.rule, "depth");
    assert_eq!(fault.pointer, "/0".repeat(129));
}

#[test]
fn a_pattern_that_does_not_compile_is_a_schema_fault() {
    let node = SchemaNode {
        pattern: Some("(".to_owned()),
        ..SchemaNode::default()
    };
    let bytes = archive(vec![], vec![object(&[("code", 1)], &[]), node]);
    let body = access(&bytes);
    let fault = validate_arguments(body, Some(0), &args(json!({"code": "x"})));
    assert_eq!(found(fault), at("/code", "schema"));
    // Other types never reach the pattern.
    assert_eq!(
        found(validate_arguments(body, Some(0), &args(json!({"code": 3})))),
        None
    );
}

#[test]
fn a_kept_pattern_cache_gives_the_same_verdicts_on_every_call() {
    let sku = SchemaNode {
        pattern: Some("^[A-Z]{3}-[0-9]+$".to_owned()),
        ..SchemaNode::default()
    };
    let zip = SchemaNode {
        pattern: Some("^[0-9]{5}$".to_owned()),
        ..SchemaNode::default()
    };
    let bytes = archive(
        vec![],
        vec![object(&[("sku", 1), ("zip", 2)], &[]), sku, zip],
    );
    let body = access(&bytes);
    let mut cache = PatternCache::new(body);
    let cases = [
        (json!({"sku": "ABC-12", "zip": "12345"}), None),
        (json!({"sku": "abc-12"}), at("/sku", "pattern")),
        (
            json!({"sku": "ABC-1", "zip": "1234"}),
            at("/zip", "pattern"),
        ),
        (json!({"zip": "99999", "sku": "XYZ-9"}), None),
    ];
    for _ in 0..3 {
        for (call, expected) in &cases {
            let fault = validate_arguments_cached(&mut cache, Some(0), &args(call.clone()));
            assert_eq!(&found(fault), expected, "{call}");
        }
    }
}

#[test]
fn without_a_schema_the_first_argument_in_call_order_is_undeclared() {
    let bytes = archive(vec![], vec![]);
    let body = access(&bytes);
    assert_eq!(
        found(validate_arguments(body, None, &args(json!({})))),
        None
    );
    let fault = validate_arguments(body, None, &args(json!({"zeta": 1, "alpha": 2})));
    assert_eq!(found(fault), at("/zeta", "additionalProperties"));
}

#[test]
fn pointers_escape_tilde_and_slash() {
    let inner = object(&[], &["x/y"]);
    let bytes = archive(vec![], vec![object(&[("a~b", 1)], &[]), inner]);
    let body = access(&bytes);
    let fault = validate_arguments(body, Some(0), &args(json!({"a~b": {}})));
    assert_eq!(found(fault), at("/a~0b/x~1y", "required"));
}

#[test]
fn an_empty_enum_is_the_false_schema() {
    let never = SchemaNode {
        has_enum: true,
        ..SchemaNode::default()
    };
    let root = SchemaNode {
        additional: Additional::Schema(1),
        ..object(&[("o", 2)], &[])
    };
    let nested = SchemaNode {
        additional: Additional::Schema(1),
        ..SchemaNode::default()
    };
    let bytes = archive(vec![], vec![root, never, nested]);
    let body = access(&bytes);
    assert_eq!(
        found(validate_value(body, 1, &json!(null))),
        at("", "false")
    );
    let fault = validate_arguments(body, Some(0), &args(json!({"o": {"k": 1}})));
    assert_eq!(found(fault), at("/o/k", "false"));
    assert_eq!(
        found(validate_arguments(body, Some(0), &args(json!({"o": {}})))),
        None
    );
}

#[test]
fn enum_and_const_compare_numbers_as_numbers_and_objects_as_sets() {
    let values = vec![
        Value::Number(40.0),                                           // 0
        Value::Object(vec![("b".to_owned(), 2), ("a".to_owned(), 3)]), // 1
        Value::Array(vec![0]),                                         // 2
        Value::String("x".to_owned()),                                 // 3
    ];
    let with_enum = SchemaNode {
        has_enum: true,
        enum_values: vec![0, 3],
        ..SchemaNode::default()
    };
    let with_const = SchemaNode {
        constant: Some(1),
        ..SchemaNode::default()
    };
    let bytes = archive(values, vec![with_enum, with_const]);
    let body = access(&bytes);
    let cases = [
        (0, json!(40), None),
        (0, json!(40.0), None),
        (0, json!("x"), None),
        (0, json!(40.5), at("", "enum")),
        (0, json!("40"), at("", "enum")),
        (1, json!({"a": "x", "b": [40]}), None),
        (1, json!({"b": [40.0], "a": "x"}), None),
        (1, json!({"b": [40], "a": "y"}), at("", "const")),
        (1, json!({"b": [40], "a": "x", "c": 1}), at("", "const")),
        (1, json!({"b": [40, 40], "a": "x"}), at("", "const")),
    ];
    for (schema, value, expected) in cases {
        assert_eq!(
            found(validate_value(body, schema, &value)),
            expected,
            "{schema} {value}"
        );
    }
}

#[test]
fn value_helpers_read_the_arena() {
    let values = vec![
        Value::Array(vec![1, 2]),
        Value::Number(9_007_199_254_740_992.0),
        Value::Object(vec![("k".to_owned(), 3)]),
        Value::Bool(true),
        Value::Array(vec![4]), // 4: contains itself
    ];
    let bytes = archive(values, vec![]);
    let body = access(&bytes);
    assert_eq!(
        to_json(body, 0),
        Some(json!([9_007_199_254_740_992_i64, {"k": true}]))
    );
    assert_eq!(to_json(body, 4), None);
    assert_eq!(to_json(body, 99), None);
    assert!(json_equals(body, &json!(9_007_199_254_740_992_u64), 1));
    assert!(!json_equals(body, &json!(9_007_199_254_740_993_u64), 1));
    assert!(!json_equals(body, &json!(true), 99));
    assert!(!json_equals(body, &json!([[[[]]]]), 4));
    assert!(
        !json_equals(body, &json!(1), 3),
        "booleans are never numbers"
    );
}

#[test]
fn numbers_compare_as_numbers() {
    let n = |s: &str| match serde_json::from_str::<Json>(s).unwrap() {
        Json::Number(n) => n,
        other => panic!("{other}"),
    };
    let cases = [
        ("40.00", "40", true),
        ("40", "40.0", true),
        ("40.5", "40.50", true),
        ("-0.0", "0", true),
        ("40", "41", false),
        ("18446744073709551615", "18446744073709551615", true),
        ("18446744073709551615", "-1", false),
        ("9007199254740993", "9007199254740992.0", false),
        ("1e2", "100", true),
    ];
    for (a, b, equal) in cases {
        assert_eq!(number_equals(&n(a), &n(b)), equal, "{a} == {b}");
        assert_eq!(number_equals(&n(b), &n(a)), equal, "{b} == {a}");
    }
}
