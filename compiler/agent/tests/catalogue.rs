//! Catalogue files in JSON and YAML, and the published catalogue schema kept in step with the
//! declaration reader: the schema allows exactly the keys `tool_from_node` accepts, at every
//! level, and every catalogue shipped as an example is valid under it and reads without a
//! diagnostic.

#![allow(
    clippy::unwrap_used,
    clippy::indexing_slicing,
    clippy::string_slice,
    clippy::panic,
    reason = "test code: a failure is a test failure"
)]

use std::collections::BTreeSet;
use std::fs;
use std::path::{Path, PathBuf};

use serde_json::{Value, json};
use stalwart_agent::declaration::TOOL_KEYS;
use stalwart_agent::{
    AtMostDecl, CheckOp, CheckOperand, Effects, IdempotencyDecl, NotAfterDecl, Period, SourceKind,
    ToolOrigin, UndoDecl, parse_catalogue,
};
use stalwart_diagnostics::{FileId, Files};

fn schema() -> Value {
    let path =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/schemas/catalogue.schema.json");
    serde_json::from_str(&fs::read_to_string(path).unwrap()).unwrap()
}

fn examples() -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/catalogue");
    let mut paths: Vec<PathBuf> = fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    paths.sort();
    paths
}

/// YAML (or JSON) text as JSON, through saphyr's plain loader.
fn yaml_to_json(text: &str) -> Value {
    use saphyr::{LoadableYamlNode, Scalar, Yaml};
    fn conv(y: &Yaml) -> Value {
        match y {
            Yaml::Value(Scalar::Null) => Value::Null,
            Yaml::Value(Scalar::Boolean(b)) => json!(b),
            Yaml::Value(Scalar::Integer(i)) => json!(i),
            Yaml::Value(Scalar::FloatingPoint(f)) => json!(f.into_inner()),
            Yaml::Value(Scalar::String(s)) => json!(s.as_ref()),
            Yaml::Sequence(items) => Value::Array(items.iter().map(conv).collect()),
            Yaml::Mapping(m) => Value::Object(
                m.iter()
                    .map(|(k, v)| (k.as_str().unwrap().to_string(), conv(v)))
                    .collect(),
            ),
            other => panic!("unexpected YAML node {other:?}"),
        }
    }
    conv(&Yaml::load_from_str(text).unwrap()[0])
}

/// A structural validator for the keywords the published schema uses.
fn valid(root: &Value, schema: &Value, value: &Value) -> bool {
    let Some(obj) = schema.as_object() else {
        return schema.as_bool().unwrap();
    };
    if let Some(r) = obj.get("$ref") {
        let name = r.as_str().unwrap().strip_prefix("#/$defs/").unwrap();
        if !valid(root, &root["$defs"][name], value) {
            return false;
        }
    }
    if let Some(t) = obj.get("type") {
        let types: Vec<&str> = match t {
            Value::String(s) => vec![s.as_str()],
            Value::Array(a) => a.iter().map(|v| v.as_str().unwrap()).collect(),
            _ => panic!("bad type"),
        };
        let fits = |t: &str| match t {
            "object" => value.is_object(),
            "array" => value.is_array(),
            "string" => value.is_string(),
            "number" => value.is_number(),
            "integer" => value.is_i64() || value.is_u64(),
            "boolean" => value.is_boolean(),
            "null" => value.is_null(),
            _ => panic!("unknown type {t}"),
        };
        if !types.into_iter().any(fits) {
            return false;
        }
    }
    if let Some(e) = obj.get("enum")
        && !e.as_array().unwrap().contains(value)
    {
        return false;
    }
    if obj.get("const").is_some_and(|c| c != value) {
        return false;
    }
    if let (Some(min), Some(n)) = (obj.get("minimum"), value.as_f64())
        && n < min.as_f64().unwrap()
    {
        return false;
    }
    if let (Some(max), Some(n)) = (obj.get("maximum"), value.as_f64())
        && n > max.as_f64().unwrap()
    {
        return false;
    }
    if let (Some(min), Some(s)) = (obj.get("minLength"), value.as_str())
        && (s.chars().count() as u64) < min.as_u64().unwrap()
    {
        return false;
    }
    if let Some(one_of) = obj.get("oneOf")
        && one_of
            .as_array()
            .unwrap()
            .iter()
            .filter(|s| valid(root, s, value))
            .count()
            != 1
    {
        return false;
    }
    if let (Some(items), Some(array)) = (obj.get("items"), value.as_array())
        && !array.iter().all(|v| valid(root, items, v))
    {
        return false;
    }
    if let Some(map) = value.as_object() {
        let props = obj.get("properties").and_then(Value::as_object);
        if let Some(required) = obj.get("required")
            && !required
                .as_array()
                .unwrap()
                .iter()
                .all(|k| map.contains_key(k.as_str().unwrap()))
        {
            return false;
        }
        for (k, v) in map {
            let ok = match props.and_then(|p| p.get(k)) {
                Some(s) => valid(root, s, v),
                None => obj
                    .get("additionalProperties")
                    .is_none_or(|a| valid(root, a, v)),
            };
            if !ok {
                return false;
            }
        }
    }
    true
}

/// The property names of the object schemas reachable from `schema` through `$ref` and `oneOf`.
fn object_keys(root: &Value, schema: &Value) -> BTreeSet<String> {
    let mut keys = BTreeSet::new();
    if let Some(r) = schema.get("$ref") {
        let name = r.as_str().unwrap().strip_prefix("#/$defs/").unwrap();
        keys.extend(object_keys(root, &root["$defs"][name]));
    }
    if let Some(alternatives) = schema.get("oneOf") {
        for s in alternatives.as_array().unwrap() {
            keys.extend(object_keys(root, s));
        }
    }
    if schema.get("additionalProperties") == Some(&json!(false)) {
        keys.extend(schema["properties"].as_object().unwrap().keys().cloned());
    }
    keys
}

fn codes(text: &str) -> Vec<&'static str> {
    parse_catalogue(FileId(0), text, "c.json")
        .diagnostics
        .iter()
        .map(|d| d.code.id)
        .collect()
}

#[test]
fn the_schema_allows_exactly_the_keys_a_declaration_accepts() {
    let schema = schema();
    let tool = &schema["$defs"]["tool"];
    let allowed: BTreeSet<String> = tool["properties"]
        .as_object()
        .unwrap()
        .keys()
        .cloned()
        .collect();
    let accepted: BTreeSet<String> = TOOL_KEYS.iter().map(|k| k.to_string()).collect();
    assert_eq!(allowed, accepted);
    for key in TOOL_KEYS {
        let text = format!("[{{\"name\": \"t\", \"{key}\": null}}]");
        assert!(
            !codes(&text).contains(&"E0101"),
            "`{key}` is reported as unknown"
        );
    }
    assert_eq!(codes("[{\"name\": \"t\", \"colour\": null}]"), ["E0101"]);
}

#[test]
fn the_schema_allows_exactly_the_nested_keys_a_declaration_accepts() {
    let root = schema();
    let props = &root["$defs"]["tool"]["properties"];
    // Where each field's nested mapping sits, as a JSON template around `X`.
    let places = [
        ("after", "[X]"),
        ("at_most", "X"),
        ("undo", "X"),
        ("idempotency", "X"),
        ("checks", "{\"amount\": X}"),
        ("spend", "X"),
        ("source", "X"),
    ];
    for (field, template) in places {
        let mut schema = props[field].clone();
        if field == "after" {
            schema = schema["items"].clone();
        }
        if field == "checks" {
            schema = schema["additionalProperties"].clone();
        }
        let keys = object_keys(&root, &schema);
        assert!(!keys.is_empty(), "{field}");
        for key in &keys {
            let inner = template.replace('X', &format!("{{\"{key}\": null}}"));
            let text = format!("[{{\"name\": \"t\", \"{field}\": {inner}}}]");
            assert!(
                !codes(&text).contains(&"E0101"),
                "{field}.{key} is reported as unknown: {text}"
            );
        }
        let inner = template.replace('X', "{\"zzz\": 1}");
        let text = format!("[{{\"name\": \"t\", \"{field}\": {inner}}}]");
        assert!(
            codes(&text).contains(&"E0101"),
            "{field} accepts an unknown key"
        );
    }
    // `from:` operands of checks.
    let from_keys = object_keys(&root, &root["$defs"]["fromField"]);
    assert_eq!(from_keys, BTreeSet::from(["from".to_string()]));
    assert_eq!(
        codes(
            "[{\"name\": \"t\", \"checks\": {\"a\": {\"at_most\": {\"from\": \"x.y\", \"zzz\": 1}}}}]"
        ),
        ["E0101"]
    );
}

#[test]
fn every_shipped_catalogue_is_valid_and_reads_cleanly() {
    let root = schema();
    let paths = examples();
    assert!(paths.len() >= 3);
    for path in paths {
        let text = fs::read_to_string(&path).unwrap();
        let value = yaml_to_json(&text);
        assert!(
            valid(&root, &root, &value),
            "{} is not valid under the schema",
            path.display()
        );
        let parsed = parse_catalogue(FileId(0), &text, "c");
        assert_eq!(parsed.diagnostics, Vec::new(), "{}", path.display());
        assert!(!parsed.value.is_empty());
    }
}

#[test]
fn the_schema_rejects_what_the_reader_rejects() {
    let root = schema();
    for text in [
        r#"[{"effects": "reads"}]"#,
        r#"[{"name": "t", "effects": "writes"}]"#,
        r#"[{"name": "t", "at_most": 0}]"#,
        r#"[{"name": "t", "undo": "refund"}]"#,
        r#"[{"name": "t", "idempotency": {"key": "a", "retry_safe": true}}]"#,
        r#"[{"name": "t", "source": {"mcp": "a", "package": "b"}}]"#,
        r#"[{"name": "t", "spend": {"argument": "a", "at_most": 1}}]"#,
        r#"[{"name": "t", "argument_kinds": {"a": "html"}}]"#,
        r#"{"tool": []}"#,
        r#""tools""#,
    ] {
        let value: Value = serde_json::from_str(text).unwrap();
        assert!(!valid(&root, &root, &value), "the schema accepts {text}");
        assert!(!codes(text).is_empty(), "the reader accepts {text}");
    }
}

#[test]
fn json_list_form_reads_every_field() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/catalogue/payments.json");
    let parsed = parse_catalogue(
        FileId(3),
        &fs::read_to_string(path).unwrap(),
        "payments.json",
    );
    assert_eq!(parsed.diagnostics, Vec::new());
    let names: Vec<&str> = parsed.value.iter().map(|t| t.name.value.as_str()).collect();
    assert_eq!(names, ["pay_invoice", "get_invoice", "void_payment"]);
    let pay = &parsed.value[0];
    assert_eq!(
        pay.origin,
        ToolOrigin::Catalogue("payments.json".to_string())
    );
    assert_eq!(
        pay.description.as_deref(),
        Some("Pays an invoice from the company account.")
    );
    assert_eq!(
        pay.effects.as_ref().map(|e| e.value),
        Some(Effects::Changes)
    );
    assert_eq!(pay.after.len(), 2);
    assert_eq!(pay.after[0].bind, Vec::new());
    assert_eq!(pay.after[1].tool.value, "get_invoice");
    assert_eq!(pay.after[1].bind[0].0.value, "invoice_id");
    assert_eq!(pay.not_after[0].value, NotAfterDecl::Untrusted);
    assert_eq!(
        pay.at_most.as_ref().map(|a| a.value),
        Some(AtMostDecl {
            count: 20,
            per: Some(Period::Day)
        })
    );
    assert!(
        matches!(&pay.undo.as_ref().unwrap().value, UndoDecl::Tool { tool, .. } if tool.value == "void_payment")
    );
    assert!(
        matches!(&pay.idempotency.as_ref().unwrap().value, IdempotencyDecl::Key(k) if k.value == "invoice_id")
    );
    let checks: Vec<(&str, CheckOp)> = pay
        .checks
        .iter()
        .map(|c| (c.argument.value.as_str(), c.op))
        .collect();
    assert_eq!(
        checks,
        [
            ("amount", CheckOp::AtLeast),
            ("amount", CheckOp::AtMost),
            ("currency", CheckOp::OneOf)
        ]
    );
    assert_eq!(
        pay.checks[0].operand.value,
        CheckOperand::Value(json!(0.01))
    );
    assert!(matches!(&pay.checks[1].operand.value,
        CheckOperand::From { tool, field } if tool.value == "get_invoice" && field.value == "total"));
    assert_eq!(
        pay.checks[2].operand.value,
        CheckOperand::Value(json!(["EUR", "USD"]))
    );
    let spend = &pay.spend.as_ref().unwrap().value;
    assert_eq!(
        (spend.argument.value.as_str(), spend.at_most, spend.per),
        ("amount", 5000.0, Period::Week)
    );
    assert_eq!(pay.confidential.as_ref().map(|c| c.value), Some(true));
    let source = &pay.source.as_ref().unwrap().value;
    assert_eq!(
        (&source.kind, source.name.as_str(), source.pin.as_deref()),
        (&SourceKind::Package, "acme-payments", Some("2.4.1"))
    );
    assert_eq!(
        pay.writes_to.as_ref().map(|s| s.value.as_str()),
        Some("ledger")
    );
    assert_eq!(
        parsed.value[1].idempotency.as_ref().map(|i| &i.value),
        Some(&IdempotencyDecl::RetrySafe)
    );
    assert_eq!(
        parsed.value[2].undo.as_ref().map(|u| &u.value),
        Some(&UndoDecl::None)
    );
    assert_eq!(
        parsed.value[2].source.as_ref().map(|s| &s.value.kind),
        Some(&SourceKind::Mcp)
    );
}

#[test]
fn yaml_mapping_form_and_json_mapping_form_read_alike() {
    let yaml = "$schema: x\ntools:\n  - name: lookup\n    effects: reads\n    at_most: 3\n";
    let json =
        r#"{"$schema": "x", "tools": [{"name": "lookup", "effects": "reads", "at_most": 3}]}"#;
    let a = parse_catalogue(FileId(0), yaml, "c.yaml");
    let b = parse_catalogue(FileId(0), json, "c.yaml");
    assert_eq!((a.diagnostics.len(), b.diagnostics.len()), (0, 0));
    let strip = |t: &stalwart_agent::ToolDecl| {
        (
            t.name.value.clone(),
            t.effects.as_ref().map(|e| e.value),
            t.at_most.as_ref().map(|a| a.value),
        )
    };
    assert_eq!(
        a.value.iter().map(strip).collect::<Vec<_>>(),
        b.value.iter().map(strip).collect::<Vec<_>>()
    );
    assert_eq!(
        a.value[0].at_most.as_ref().unwrap().value,
        AtMostDecl {
            count: 3,
            per: None
        }
    );
}

/// `(code, line:col)` of each diagnostic of a catalogue text.
fn located(text: &str) -> Vec<(String, String)> {
    let mut files = Files::new();
    files.insert(FileId(0), "c.json", text);
    parse_catalogue(FileId(0), text, "c.json")
        .diagnostics
        .iter()
        .map(|d| {
            let (line, col) = files.line_col(FileId(0), d.primary.span.start);
            (
                format!("{} {}", d.code.id, d.message),
                format!("{line}:{col}"),
            )
        })
        .collect()
}

#[test]
fn catalogue_errors_point_at_the_offending_text() {
    let loc = |c: &str, m: &str, at: &str| (format!("{c} {m}"), at.to_string());
    assert_eq!(
        located("[\n  {\"name\": \"a\", \"efects\": \"reads\"},\n  3\n]"),
        [
            loc("E0101", "tool `a`: unknown key `efects`", "2:17"),
            loc(
                "E0201",
                "an entry of catalogue `c.json` must be a tool declaration, found an integer",
                "3:3"
            ),
        ]
    );
    assert_eq!(
        located("{\"tool\": []}"),
        [
            loc("E0101", "unknown key `tool`", "1:2"),
            loc("E0200", "catalogue `c.json` has no `tools:`", "1:2"),
        ]
    );
    assert_eq!(
        located("\"tools\""),
        [loc(
            "E0200",
            "catalogue `c.json` must be a list of tools or a mapping with `tools:`, found a string",
            "1:1"
        )]
    );
    assert_eq!(
        located(""),
        [loc("E0200", "catalogue `c.json` is empty", "1:1")]
    );
    assert_eq!(
        located("{\"tools\": {\"name\": \"a\"}}"),
        [loc(
            "E0102",
            "`tools` expects a list of tool declarations, found a mapping",
            "1:11"
        )]
    );
    assert_eq!(
        located("[{\"name\": \"a\",}"),
        [loc(
            "E0100",
            "syntax error: while parsing a flow sequence, expected ',' or ']'",
            "1:16"
        )]
    );
    assert_eq!(
        located("[{\"name\": \"é\", \"effects\": \"both\"}]"),
        [loc(
            "E0103",
            "tool `é`: `effects` must be `reads` or `changes`, not `both`",
            "1:27"
        ),]
    );
    assert_eq!(
        located("[{\"name\": \"a\"}, {\"name\": \"\"}]"),
        [loc(
            "E0119",
            "a tool declaration: `name` has an empty value",
            "1:26"
        )]
    );
    assert_eq!(
        located("[{\"description\": \"x\"}]"),
        [loc("E0107", "a tool declaration is missing `name`", "1:3")]
    );
}
