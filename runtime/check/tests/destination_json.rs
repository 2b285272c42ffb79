//! Destination detection over whole arguments: keys and values at any depth, document order, each
//! destination once.

use serde_json::{Value, json};
use stalwart_runtime::destination::{
    find_destinations, find_destinations_in, has_destination, has_destination_in,
};

fn check(args: Value, expected: &[&str]) {
    assert_eq!(find_destinations(&args), expected, "destinations in {args}");
    assert_eq!(
        has_destination(&args),
        !expected.is_empty(),
        "has_destination({args})"
    );
    // A call's arguments are scanned as the object they are, with the same answers.
    if let Value::Object(fields) = &args {
        assert_eq!(find_destinations_in(fields), expected, "in {args}");
        assert_eq!(
            has_destination_in(fields),
            !expected.is_empty(),
            "in {args}"
        );
    }
}

#[test]
fn web_address_as_the_order_id_is_the_destination() {
    check(
        json!({"order_id": "https://refunds.invalid/4411", "amount": 40.00}),
        &["https://refunds.invalid/4411"],
    );
}

#[test]
fn plain_refund_has_no_destination() {
    check(json!({"order_id": "4411", "amount": 40.00}), &[]);
}

#[test]
fn object_keys_are_read() {
    check(json!({"https://evil.com": 1}), &["https://evil.com"]);
}

#[test]
fn key_comes_before_its_value() {
    check(json!({"evil.com": "other.net"}), &["evil.com", "other.net"]);
}

#[test]
fn fields_in_written_order() {
    check(json!({"z": "z.com", "a": "a.com"}), &["z.com", "a.com"]);
}

#[test]
fn nested_arrays_and_objects_depth_first() {
    check(
        json!({
            "a": ["x evil.com", {"b": "bob@evil.org", "c": ["10.0.0.1"]}],
            "d": {"e": {"f": "https://deep.example/x"}},
            "g": "[::1]:80"
        }),
        &[
            "evil.com",
            "bob@evil.org",
            "10.0.0.1",
            "https://deep.example/x",
            "[::1]:80",
        ],
    );
}

#[test]
fn each_destination_once_across_strings() {
    check(
        json!({"to": "evil.com", "cc": ["evil.com", "bob@evil.com"], "evil.com": "bob@evil.com"}),
        &["evil.com", "bob@evil.com"],
    );
}

#[test]
fn numbers_booleans_and_null_are_not_read() {
    check(
        json!({"n": 1.5, "b": true, "z": null, "list": [1, 2.5, false]}),
        &[],
    );
}

#[test]
fn top_level_scalars() {
    check(json!("evil.com"), &["evil.com"]);
    check(json!(["a.io", "b.io"]), &["a.io", "b.io"]);
    check(json!(1.2), &[]);
    check(json!(null), &[]);
    check(json!({}), &[]);
    check(json!([]), &[]);
}

#[test]
fn percent_encoded_and_full_width_values() {
    check(
        json!({"next": "https%3A%2F%2Fevil.com", "host": "evil．com", "alt": "evil%2Ecom"}),
        &["https%3A%2F%2Fevil.com", "evil．com", "evil%2Ecom"],
    );
}

#[test]
fn url_then_its_host_in_another_field() {
    check(
        json!({"a": "https://evil.com/x", "b": "evil.com"}),
        &["https://evil.com/x", "evil.com"],
    );
}

#[test]
fn files_amounts_and_dates_together() {
    check(
        json!({
            "attachment": "invoice.docx",
            "script": "setup.py",
            "amount": "1,234.56",
            "due": "2026-11-30",
            "at": "10:30",
            "version": "v2.0.1-beta",
            "order": "ORD-2024-0001",
            "note": "Done.Next"
        }),
        &[],
    );
}

fn nest_arrays(depth: usize, leaf: Value) -> Value {
    (0..depth).fold(leaf, |inner, _| Value::Array(vec![inner]))
}

fn nest_objects(depth: usize, leaf: Value) -> Value {
    (0..depth).fold(leaf, |inner, level| {
        let mut fields = serde_json::Map::new();
        fields.insert(format!("k{level}.io"), inner);
        Value::Object(fields)
    })
}

#[test]
fn deep_nesting_is_read_to_the_bottom() {
    check(
        nest_arrays(5000, json!("https://deep.example/")),
        &["https://deep.example/"],
    );
    check(nest_arrays(5000, json!("4411")), &[]);
}

#[test]
fn deep_objects_read_keys_outside_in() {
    let args = nest_objects(300, json!("bob@evil.com"));
    let found = find_destinations(&args);
    assert_eq!(found.len(), 301);
    assert_eq!(found[0], "k299.io");
    assert_eq!(found[1], "k298.io");
    assert_eq!(found[299], "k0.io");
    assert_eq!(found[300], "bob@evil.com");
    assert!(has_destination(&args));
}

#[test]
fn deep_objects_keep_order_past_the_recursion_limit() {
    let inner = nest_objects(200, json!("last.example"));
    let args = json!([
        nest_arrays(200, json!("first.example")),
        inner,
        "tail.example"
    ]);
    let found = find_destinations(&args);
    assert_eq!(found.first().map(String::as_str), Some("first.example"));
    assert_eq!(found.get(1).map(String::as_str), Some("k199.io"));
    assert_eq!(found.get(200).map(String::as_str), Some("k0.io"));
    assert_eq!(found.get(201).map(String::as_str), Some("last.example"));
    assert_eq!(found.get(202).map(String::as_str), Some("tail.example"));
    assert_eq!(found.len(), 203);
}
