//! Pydantic's `Field(...)` (and `dataclasses.field(...)`) read statically: a field's or a
//! parameter's default, and the constraints that become JSON Schema keywords.
//!
//! | `Field` argument | schema |
//! |---|---|
//! | first positional, `default=` | `default` (the field is optional); `...` makes it required |
//! | `default_factory=` | optional, no `default` recorded |
//! | `description=`, `title=`, `examples=` | the same keywords |
//! | `ge=`, `le=`, `gt=`, `lt=` | `minimum`, `maximum`, `exclusiveMinimum`, `exclusiveMaximum` |
//! | `min_length=`, `max_length=` | `minLength`/`maxLength` on strings, `minItems`/`maxItems` on lists |
//! | `pattern=` | `pattern` |
//! | `multiple_of=` | `multipleOf` (outside the compiled subset: the tool is `schema_partial`) |
//! | `alias=` | the property's name in the schema (as Pydantic's schema writes it) |
//!
//! Other arguments (`frozen`, `repr`, `exclude`, `json_schema_extra`, …) describe the Python
//! object, not the call, and are passed over. An argument whose value is not a literal is passed
//! over too: the module is never run, and a constraint it cannot read is one the check does not
//! hold (the type still is).

use serde_json::{Map, Value as Json};
use tree_sitter::Node as TsNode;

use super::classes::last_part;
use super::literal::{Source, children, literal_value};

/// What a default or a `Field(...)` says about one field or parameter.
#[derive(Debug, Default)]
pub(super) struct FieldInfo {
    /// The field may be left out (it has a default or a default factory).
    pub optional: bool,
    /// Schema keywords: `default`, `description`, bounds, lengths, `pattern`, …
    pub keywords: Map<String, Json>,
    /// `min_length`/`max_length`, placed once the field's type is known.
    pub lengths: Vec<(&'static str, Json)>,
    /// `alias=`: the name the schema gives the property.
    pub alias: Option<String>,
}

/// Whether `node` is a call of `Field(...)` or `field(...)` (any prefix).
pub(super) fn is_field_call(src: Source<'_>, node: TsNode<'_>) -> bool {
    node.kind() == "call"
        && node
            .child_by_field_name("function")
            .is_some_and(|f| matches!(last_part(src.text_of(f)), "Field" | "field"))
}

/// What the value after `=` says: a `Field(...)` call, a literal default, or another expression
/// (optional, no default recorded). `None` for no value: the field is required.
pub(super) fn from_default(src: Source<'_>, value: Option<TsNode<'_>>) -> FieldInfo {
    let Some(value) = value else {
        return FieldInfo::default();
    };
    if is_field_call(src, value) {
        return from_call(src, value);
    }
    let mut info = FieldInfo {
        optional: true,
        ..FieldInfo::default()
    };
    if let Some(literal) = literal_value(src, value) {
        info.keywords
            .insert("default".to_string(), literal.to_json());
    }
    info
}

/// Reads a `Field(...)` call.
pub(super) fn from_call(src: Source<'_>, call: TsNode<'_>) -> FieldInfo {
    let mut info = FieldInfo::default();
    let Some(args) = call.child_by_field_name("arguments") else {
        return info;
    };
    let mut positional = 0;
    for arg in children(args) {
        if arg.kind() != "keyword_argument" {
            if positional == 0 {
                default(src, arg, &mut info);
            }
            positional += 1;
            continue;
        }
        let (Some(key), Some(value)) = (
            arg.child_by_field_name("name"),
            arg.child_by_field_name("value"),
        ) else {
            continue;
        };
        keyword(src, src.text_of(key), value, &mut info);
    }
    info
}

fn default(src: Source<'_>, value: TsNode<'_>, info: &mut FieldInfo) {
    if value.kind() == "ellipsis" {
        return;
    }
    info.optional = true;
    if let Some(literal) = literal_value(src, value) {
        info.keywords
            .insert("default".to_string(), literal.to_json());
    }
}

fn keyword(src: Source<'_>, key: &str, value: TsNode<'_>, info: &mut FieldInfo) {
    if key == "default" {
        return default(src, value, info);
    }
    if key == "default_factory" {
        info.optional = true;
        return;
    }
    let Some(literal) = literal_value(src, value).map(|n| n.to_json()) else {
        return;
    };
    let schema_key = match key {
        "description" | "title" | "examples" | "pattern" => key,
        "ge" => "minimum",
        "le" => "maximum",
        "gt" => "exclusiveMinimum",
        "lt" => "exclusiveMaximum",
        "multiple_of" => "multipleOf",
        "min_length" => {
            info.lengths.push(("min", literal));
            return;
        }
        "max_length" => {
            info.lengths.push(("max", literal));
            return;
        }
        "alias" | "serialization_alias" => {
            if let Json::String(alias) = literal {
                info.alias = Some(alias);
            }
            return;
        }
        _ => return,
    };
    info.keywords.insert(schema_key.to_string(), literal);
}

/// Adds what `info` says to a field's schema: its keywords, and its lengths as `minLength` /
/// `maxLength` where the field may be a string and `minItems` / `maxItems` where it may be a list.
pub(super) fn apply(schema: &mut Json, info: &FieldInfo) {
    let types = types_of(schema);
    let Json::Object(map) = schema else {
        return;
    };
    for (key, value) in &info.keywords {
        map.insert(key.clone(), value.clone());
    }
    let any = types.is_empty();
    for (bound, value) in &info.lengths {
        if any || types.iter().any(|t| t == "string") {
            let key = if *bound == "min" {
                "minLength"
            } else {
                "maxLength"
            };
            map.insert(key.to_string(), value.clone());
        }
        if any || types.iter().any(|t| t == "array") {
            let key = if *bound == "min" {
                "minItems"
            } else {
                "maxItems"
            };
            map.insert(key.to_string(), value.clone());
        }
    }
}

/// The type names a schema (or the members of its `anyOf`) gives.
fn types_of(schema: &Json) -> Vec<String> {
    let mut out = Vec::new();
    let mut add = |s: &Json| match s.get("type") {
        Some(Json::String(t)) => out.push(t.clone()),
        Some(Json::Array(ts)) => out.extend(ts.iter().filter_map(|t| t.as_str().map(String::from))),
        _ => {}
    };
    add(schema);
    if let Some(Json::Array(members)) = schema.get("anyOf") {
        members.iter().for_each(&mut add);
    }
    out.retain(|t| t != "null");
    out
}
