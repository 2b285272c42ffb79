//! JSON Schema to the record's validation program: the supported subset of a tool's `arguments`
//! and `result` schemas, compiled into [`SchemaNode`]s and [`Value`]s appended to the record's
//! arenas.
//!
//! The compiled subset: `type` (a name or a list of names), `properties`, `patternProperties`,
//! `additionalProperties` (a boolean or a schema), `propertyNames`, `required`, `enum`, `const`,
//! `minimum`, `maximum`, `exclusiveMinimum`, `exclusiveMaximum` (numbers, the draft 6 and later
//! form), `minLength`, `maxLength`, `pattern`, `format` (`date-time`, `date`, `email`, `uri`,
//! `uuid`), `items` (one schema), `minItems`, `maxItems`, `anyOf`, `allOf`, `oneOf` and a local
//! `$ref`, at any depth, plus the boolean schemas `true` and `false`. Keywords that carry no
//! assertion are accepted and dropped: `title`, `description`, `default`, `examples`, `$schema`,
//! `$id`, `$comment`, `$anchor`, `$defs`, `definitions`, `readOnly`, `writeOnly`, `deprecated`, the
//! `content*` keywords, `x-` extensions, and a `format` other than the five above (JSON Schema
//! 2020-12 makes `format` an annotation unless a validator opts in; the check opts in for those
//! five only). Every other keyword (`not`, `if`, `uniqueItems`, `multipleOf`, `prefixItems`, a
//! remote or anchor `$ref`, a misspelt keyword, ...) is left out of the program and named in
//! [`CompiledSchema::partial_keywords`] by the JSON pointer of where it stands, so the tool is
//! marked `schema_partial`; the rest of that schema is still compiled.
//!
//! `$ref`: `#` and `#/<JSON pointer>` (so `#/$defs/...` and `#/definitions/...`) name a schema
//! inside the same document; each target is compiled once, the first time a reference reaches it,
//! and every reference to it shares its node, so a recursive schema (a tree whose children are
//! trees) compiles to a program with a back edge, whose recursion the runtime bounds by depth. A
//! chain of references that comes back to where it started without reaching a value (`a` is
//! `{"$ref": "#/$defs/b"}` and `b` is `{"allOf": [{"$ref": "#/$defs/a"}]}`) could never decide
//! anything: it is an error (`ref-cycle`) naming the chain. A reference to nothing in the document
//! is an error (`bad-ref`).
//!
//! A keyword whose value has the wrong shape (`minLength: "3"`, an unknown type name, a pattern
//! that does not compile) is an error in [`CompiledSchema::errors`], never a panic. The `false`
//! schema compiles to a node with an empty `enum` (which nothing satisfies); the runtime reports
//! it as rule `false`. Nodes are laid out in a fixed keyword order, parents before children, so
//! the same schema always gives the same arena contents, whatever the order of its keys.
//!
//! [`CompiledSchema::closed_objects`] lists the objects below the root that declare no member at
//! all (no `properties`, `required`, `patternProperties`, `additionalProperties` schema, `enum`
//! or `const`, counting the schemas applied in place): in a call's arguments such an object must
//! be empty (the tool check's rule for undeclared members, which `additionalProperties: true` does
//! not lift), so lowering warns about them in argument schemas.

use std::collections::BTreeMap;

use serde_json::{Map, Value as Json};
use stalwart_record::{Additional, SchemaIdx, SchemaNode, StringFormat, TypeSet, Value, ValueIdx};

use crate::value::push_json;

mod analysis;

/// Schemas nested deeper than this are refused (the runtime's own limit is higher).
pub const MAX_SCHEMA_DEPTH: usize = 64;

/// Keywords that assert nothing and are dropped without marking the schema partial.
const ANNOTATIONS: &[&str] = &[
    "title",
    "description",
    "default",
    "examples",
    "$schema",
    "$id",
    "$comment",
    "$anchor",
    "$defs",
    "definitions",
    "readOnly",
    "writeOnly",
    "deprecated",
    "contentMediaType",
    "contentEncoding",
    "contentSchema",
];

/// Keywords compiled into the program, in the order they are compiled.
const COMPILED: &[&str] = &[
    "type",
    "enum",
    "const",
    "minimum",
    "maximum",
    "exclusiveMinimum",
    "exclusiveMaximum",
    "minLength",
    "maxLength",
    "pattern",
    "format",
    "items",
    "minItems",
    "maxItems",
    "properties",
    "patternProperties",
    "required",
    "additionalProperties",
    "propertyNames",
    "anyOf",
    "allOf",
    "oneOf",
    "$ref",
];

/// The `format` values the check asserts, by name.
const FORMATS: &[(&str, StringFormat)] = &[
    ("date-time", StringFormat::DateTime),
    ("date", StringFormat::Date),
    ("email", StringFormat::Email),
    ("uri", StringFormat::Uri),
    ("uuid", StringFormat::Uuid),
];

/// Appends compiled schemas to a record's `values` and `schema_nodes` arenas.
pub struct SchemaBuilder<'a> {
    values: &'a mut Vec<Value>,
    nodes: &'a mut Vec<SchemaNode>,
}

/// The outcome of compiling one schema.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CompiledSchema {
    /// The root node in the schema arena.
    pub root: SchemaIdx,
    /// Names of the root's `properties`, in declaration order.
    pub property_names: Vec<String>,
    /// JSON pointers (into the schema) of the keywords left out of the program.
    pub partial_keywords: Vec<String>,
    /// Keywords whose value is malformed; a schema with errors must not be used.
    pub errors: Vec<SchemaError>,
    /// JSON pointers of the object schemas below the root that declare no member (see the
    /// module's documentation), in the order they were compiled.
    pub closed_objects: Vec<String>,
    /// The JSON pointer (into the schema) of every node this compile appended, in arena order
    /// from `root` (for placing each node where it is written).
    pub node_pointers: Vec<String>,
}

impl CompiledSchema {
    /// Whether a keyword outside the compiled subset was seen (the tool is `schema_partial`).
    pub fn is_partial(&self) -> bool {
        !self.partial_keywords.is_empty()
    }
}

/// A malformed keyword, at the JSON pointer of its value inside the schema.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SchemaError {
    pub pointer: String,
    pub kind: SchemaErrorKind,
    /// One line, lowercase start, no final period, user text in backticks.
    pub message: String,
}

/// What is wrong with a keyword.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SchemaErrorKind {
    /// A schema that is neither an object nor a boolean.
    NotASchema,
    /// A keyword whose value has the wrong shape.
    BadKeyword,
    /// A `type` name JSON Schema does not have.
    UnknownType,
    /// A `pattern` (or a `patternProperties` name) that does not compile.
    BadPattern,
    /// Schemas nested deeper than [`MAX_SCHEMA_DEPTH`].
    TooDeep,
    /// A local `$ref` that names nothing in the document.
    BadRef,
    /// References that come back to where they started without reaching a value.
    RefCycle,
}

impl SchemaErrorKind {
    /// A stable kebab slug naming the bad pattern.
    pub fn slug(self) -> &'static str {
        match self {
            SchemaErrorKind::NotASchema => "schema-not-object",
            SchemaErrorKind::BadKeyword => "bad-schema-keyword",
            SchemaErrorKind::UnknownType => "unknown-schema-type",
            SchemaErrorKind::BadPattern => "bad-schema-pattern",
            SchemaErrorKind::TooDeep => "schema-too-deep",
            SchemaErrorKind::BadRef => "bad-ref",
            SchemaErrorKind::RefCycle => "ref-cycle",
        }
    }
}

impl<'a> SchemaBuilder<'a> {
    /// A builder appending to the record's `values` and `schema_nodes` arenas.
    pub fn new(values: &'a mut Vec<Value>, nodes: &'a mut Vec<SchemaNode>) -> Self {
        Self { values, nodes }
    }

    /// Compiles `schema`, appending its nodes and values; returns its root and what was left out.
    pub fn compile_schema(&mut self, schema: &Json) -> CompiledSchema {
        let first = self.nodes.len();
        let mut ctx = Ctx {
            document: schema,
            builder: self,
            first,
            pointers: Vec::new(),
            value_level: Vec::new(),
            targets: BTreeMap::new(),
            partial: Vec::new(),
            errors: Vec::new(),
        };
        ctx.targets.insert(String::new(), arena_index(first));
        let root = ctx.schema(schema, "", 0, true);
        ctx.find_ref_cycles();
        let closed_objects = ctx.closed_objects(root);
        let property_names = match schema.get("properties") {
            Some(Json::Object(props)) => props.keys().cloned().collect(),
            _ => Vec::new(),
        };
        let mut partial = ctx.partial;
        let mut seen = std::collections::BTreeSet::new();
        partial.retain(|p| seen.insert(p.clone()));
        CompiledSchema {
            root,
            property_names,
            partial_keywords: partial,
            errors: ctx.errors,
            closed_objects,
            node_pointers: ctx.pointers,
        }
    }

    /// Appends a JSON value (and its members) to the value arena; returns its index.
    pub fn push_value(&mut self, json: &Json) -> ValueIdx {
        push_json(self.values, json)
    }
}

/// Compiles `schema` into the record's arenas (a shorthand for [`SchemaBuilder::compile_schema`]).
pub fn compile_schema(
    values: &mut Vec<Value>,
    nodes: &mut Vec<SchemaNode>,
    schema: &Json,
) -> CompiledSchema {
    SchemaBuilder::new(values, nodes).compile_schema(schema)
}

/// An arena length as an index. Arenas never come near `u32::MAX` entries: rkyv's 32-bit offsets
/// could not archive a body that large.
fn arena_index(len: usize) -> u32 {
    u32::try_from(len).unwrap_or(u32::MAX)
}

/// Escapes one JSON pointer segment (`~` as `~0`, `/` as `~1`).
pub fn escape_pointer_segment(segment: &str) -> String {
    segment.replace('~', "~0").replace('/', "~1")
}

struct Ctx<'b, 'a> {
    /// The whole schema, which local references point into.
    document: &'b Json,
    builder: &'b mut SchemaBuilder<'a>,
    /// The arena index of the first node this compile appended.
    first: usize,
    /// The JSON pointer of every node this compile appended, by `index - first`.
    pointers: Vec<String>,
    /// Whether each node this compile appended stands for a value of its own (the root and the
    /// subschemas of `properties`, `patternProperties`, `additionalProperties`, `items`) rather
    /// than being applied in place (`$ref` targets, `allOf`/`anyOf`/`oneOf` members).
    value_level: Vec<bool>,
    /// Compiled `$ref` targets by their pointer in the document (`""` is the root).
    targets: BTreeMap<String, SchemaIdx>,
    partial: Vec<String>,
    errors: Vec<SchemaError>,
}

impl Ctx<'_, '_> {
    fn error(&mut self, pointer: &str, kind: SchemaErrorKind, message: String) {
        self.errors.push(SchemaError {
            pointer: pointer.to_owned(),
            kind,
            message,
        });
    }

    fn schema(&mut self, schema: &Json, ptr: &str, depth: usize, value_level: bool) -> SchemaIdx {
        let idx = arena_index(self.builder.nodes.len());
        self.builder.nodes.push(SchemaNode::default());
        self.pointers.push(ptr.to_owned());
        self.value_level.push(value_level);
        let node = match schema {
            Json::Bool(true) => SchemaNode::default(),
            Json::Bool(false) => never(),
            Json::Object(_) if depth >= MAX_SCHEMA_DEPTH => {
                let message = format!("schemas are nested more than {MAX_SCHEMA_DEPTH} deep");
                self.error(ptr, SchemaErrorKind::TooDeep, message);
                SchemaNode::default()
            }
            Json::Object(map) => self.object(map, ptr, depth),
            other => {
                let message = format!(
                    "a schema is an object or a boolean, not {}",
                    json_kind(other)
                );
                self.error(ptr, SchemaErrorKind::NotASchema, message);
                SchemaNode::default()
            }
        };
        if let Some(slot) = self.builder.nodes.get_mut(idx as usize) {
            *slot = node;
        }
        idx
    }

    fn object(&mut self, map: &Map<String, Json>, ptr: &str, depth: usize) -> SchemaNode {
        for key in map.keys() {
            let known = COMPILED.contains(&key.as_str()) || ANNOTATIONS.contains(&key.as_str());
            if !known && !key.starts_with("x-") {
                self.partial
                    .push(format!("{ptr}/{}", escape_pointer_segment(key)));
            }
        }
        let mut node = SchemaNode::default();
        for &keyword in COMPILED {
            if let Some(value) = map.get(keyword) {
                let at = format!("{ptr}/{}", escape_pointer_segment(keyword));
                self.keyword(&mut node, keyword, value, &at, depth);
            }
        }
        node
    }

    fn keyword(
        &mut self,
        node: &mut SchemaNode,
        keyword: &str,
        value: &Json,
        at: &str,
        depth: usize,
    ) {
        match keyword {
            "type" => node.types = self.types(value, at),
            "enum" => self.enumeration(node, value, at),
            "const" => node.constant = Some(self.builder.push_value(value)),
            "minimum" => node.minimum = self.number(value, at),
            "maximum" => node.maximum = self.number(value, at),
            "exclusiveMinimum" => node.exclusive_minimum = self.exclusive_bound(value, at),
            "exclusiveMaximum" => node.exclusive_maximum = self.exclusive_bound(value, at),
            "minLength" => node.min_length = self.count(value, at),
            "maxLength" => node.max_length = self.count(value, at),
            "pattern" => node.pattern = self.pattern(value, at),
            "format" => node.format = self.format(value, at),
            "items" => node.items = self.items(value, at, depth),
            "minItems" => node.min_items = self.count(value, at),
            "maxItems" => node.max_items = self.count(value, at),
            "properties" => node.properties = self.properties(value, at, depth),
            "patternProperties" => {
                node.pattern_properties = self.pattern_properties(value, at, depth)
            }
            "required" => node.required = self.required(value, at),
            "additionalProperties" => node.additional = self.additional(value, at, depth),
            "propertyNames" => node.property_names = Some(self.schema(value, at, depth + 1, true)),
            "anyOf" => node.any_of = self.in_place_list(value, at, depth),
            "allOf" => node.all_of = self.in_place_list(value, at, depth),
            "oneOf" => node.one_of = self.in_place_list(value, at, depth),
            "$ref" => node.reference = self.reference(value, at, depth),
            _ => {}
        }
    }

    fn types(&mut self, value: &Json, at: &str) -> u8 {
        match value {
            Json::String(name) => self.type_bit(name, at),
            Json::Array(names) if !names.is_empty() => {
                let mut bits = 0;
                for (i, name) in names.iter().enumerate() {
                    let item_at = format!("{at}/{i}");
                    match name {
                        Json::String(name) => bits |= self.type_bit(name, &item_at),
                        other => self.bad(&item_at, "a type name", other),
                    }
                }
                bits
            }
            other => {
                self.bad(at, "a type name or a non-empty list of them", other);
                0
            }
        }
    }

    fn type_bit(&mut self, name: &str, at: &str) -> u8 {
        match name {
            "null" => TypeSet::NULL,
            "boolean" => TypeSet::BOOLEAN,
            "integer" => TypeSet::INTEGER,
            "number" => TypeSet::NUMBER,
            "string" => TypeSet::STRING,
            "array" => TypeSet::ARRAY,
            "object" => TypeSet::OBJECT,
            _ => {
                let message = format!("`{name}` is not a JSON Schema type");
                self.error(at, SchemaErrorKind::UnknownType, message);
                0
            }
        }
    }

    fn enumeration(&mut self, node: &mut SchemaNode, value: &Json, at: &str) {
        let Json::Array(members) = value else {
            return self.bad(at, "a list of values", value);
        };
        node.has_enum = true;
        node.enum_values = members
            .iter()
            .map(|member| self.builder.push_value(member))
            .collect();
    }

    fn number(&mut self, value: &Json, at: &str) -> Option<f64> {
        match value {
            Json::Number(n) => n.as_f64(),
            other => {
                self.bad(at, "a number", other);
                None
            }
        }
    }

    /// `exclusiveMinimum`/`exclusiveMaximum`: a number. Of the draft 4 boolean form, `false`
    /// changes nothing and `true` (which makes `minimum`/`maximum` exclusive) is not compiled.
    fn exclusive_bound(&mut self, value: &Json, at: &str) -> Option<f64> {
        match value {
            Json::Bool(false) => None,
            Json::Bool(true) => {
                self.partial.push(at.to_owned());
                None
            }
            other => self.number(other, at),
        }
    }

    fn count(&mut self, value: &Json, at: &str) -> Option<u32> {
        let count = match value {
            Json::Number(n) => match (n.as_u64(), n.as_f64()) {
                (Some(u), _) => Some(u),
                (None, Some(f)) if f >= 0.0 && f.fract() == 0.0 => Some(f as u64),
                _ => None,
            },
            _ => None,
        };
        match count {
            Some(count) => Some(u32::try_from(count).unwrap_or(u32::MAX)),
            None => {
                self.bad(at, "a non-negative integer", value);
                None
            }
        }
    }

    fn pattern(&mut self, value: &Json, at: &str) -> Option<String> {
        let Json::String(pattern) = value else {
            self.bad(at, "a regular expression", value);
            return None;
        };
        self.regex(pattern, at).then(|| pattern.clone())
    }

    /// Whether `pattern` compiles; an error at `at` when it does not.
    fn regex(&mut self, pattern: &str, at: &str) -> bool {
        match regex_lite::Regex::new(pattern) {
            Ok(_) => true,
            Err(err) => {
                let reason = err.to_string().replace('\n', " ");
                let message = format!("pattern `{pattern}` does not compile: {reason}");
                self.error(at, SchemaErrorKind::BadPattern, message);
                false
            }
        }
    }

    /// `format`: one of the five the check asserts, or an annotation.
    fn format(&mut self, value: &Json, at: &str) -> Option<StringFormat> {
        let Json::String(name) = value else {
            self.bad(at, "a format name", value);
            return None;
        };
        FORMATS
            .iter()
            .find(|(known, _)| known == name)
            .map(|(_, format)| *format)
    }

    fn items(&mut self, value: &Json, at: &str, depth: usize) -> Option<SchemaIdx> {
        if value.is_array() {
            // The draft 4 tuple form (now `prefixItems`) is outside the subset.
            self.partial.push(at.to_owned());
            return None;
        }
        Some(self.schema(value, at, depth + 1, true))
    }

    fn properties(&mut self, value: &Json, at: &str, depth: usize) -> Vec<(String, SchemaIdx)> {
        let Json::Object(props) = value else {
            self.bad(at, "an object of schemas", value);
            return Vec::new();
        };
        props
            .iter()
            .map(|(name, schema)| {
                let prop_at = format!("{at}/{}", escape_pointer_segment(name));
                (name.clone(), self.schema(schema, &prop_at, depth + 1, true))
            })
            .collect()
    }

    fn pattern_properties(
        &mut self,
        value: &Json,
        at: &str,
        depth: usize,
    ) -> Vec<(String, SchemaIdx)> {
        let Json::Object(props) = value else {
            self.bad(at, "an object of schemas", value);
            return Vec::new();
        };
        let mut out = Vec::with_capacity(props.len());
        for (pattern, schema) in props {
            let prop_at = format!("{at}/{}", escape_pointer_segment(pattern));
            if self.regex(pattern, &prop_at) {
                let idx = self.schema(schema, &prop_at, depth + 1, true);
                out.push((pattern.clone(), idx));
            }
        }
        out
    }

    fn required(&mut self, value: &Json, at: &str) -> Vec<String> {
        let Json::Array(names) = value else {
            self.bad(at, "a list of property names", value);
            return Vec::new();
        };
        let mut required = Vec::with_capacity(names.len());
        for (i, name) in names.iter().enumerate() {
            match name {
                Json::String(name) => required.push(name.clone()),
                other => self.bad(&format!("{at}/{i}"), "a property name", other),
            }
        }
        required
    }

    fn additional(&mut self, value: &Json, at: &str, depth: usize) -> Additional {
        match value {
            Json::Bool(true) => Additional::Allow,
            Json::Bool(false) => Additional::Deny,
            schema => Additional::Schema(self.schema(schema, at, depth + 1, true)),
        }
    }

    /// `anyOf`, `allOf`, `oneOf`: a non-empty list of schemas applied to the same value.
    fn in_place_list(&mut self, value: &Json, at: &str, depth: usize) -> Vec<SchemaIdx> {
        match value {
            Json::Array(schemas) if !schemas.is_empty() => schemas
                .iter()
                .enumerate()
                .map(|(i, schema)| self.schema(schema, &format!("{at}/{i}"), depth + 1, false))
                .collect(),
            other => {
                self.bad(at, "a non-empty list of schemas", other);
                Vec::new()
            }
        }
    }

    /// A local `$ref`: the node of its target, compiled the first time it is reached.
    fn reference(&mut self, value: &Json, at: &str, depth: usize) -> Option<SchemaIdx> {
        let Json::String(reference) = value else {
            self.bad(at, "a reference (`#/$defs/name`)", value);
            return None;
        };
        let Some(pointer) = local_pointer(reference) else {
            // A remote document, or an anchor: outside the subset.
            self.partial.push(at.to_owned());
            return None;
        };
        if let Some(&idx) = self.targets.get(&pointer) {
            return Some(idx);
        }
        let Some(target) = self.document.pointer(&pointer) else {
            let message = format!("`$ref` `{reference}` names nothing in the schema");
            self.error(at, SchemaErrorKind::BadRef, message);
            return None;
        };
        let idx = arena_index(self.builder.nodes.len());
        self.targets.insert(pointer.clone(), idx);
        Some(self.schema(target, &pointer, depth + 1, false))
    }

    fn bad(&mut self, at: &str, expected: &str, found: &Json) {
        let keyword = at
            .rsplit('/')
            .find(|segment| segment.parse::<usize>().is_err())
            .unwrap_or(at);
        let found = match found {
            Json::Number(n) => format!("`{n}`"),
            Json::Array(items) if items.is_empty() => "an empty list".to_owned(),
            other => json_kind(other).to_owned(),
        };
        let message = format!("`{keyword}` takes {expected}, not {found}");
        self.error(at, SchemaErrorKind::BadKeyword, message);
    }
}

/// The JSON pointer a local reference names (`#` → `""`, `#/$defs/a%20b` → `/$defs/a b`), or
/// `None` for a reference into another document or to an anchor.
fn local_pointer(reference: &str) -> Option<String> {
    let fragment = reference.strip_prefix('#')?;
    if !(fragment.is_empty() || fragment.starts_with('/')) {
        return None;
    }
    percent_decode(fragment)
}

/// Decodes `%XX` escapes (a URI fragment); `None` when an escape is malformed or the result is
/// not UTF-8.
fn percent_decode(text: &str) -> Option<String> {
    if !text.contains('%') {
        return Some(text.to_owned());
    }
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while let Some(&b) = bytes.get(i) {
        if b == b'%' {
            let hex = text.get(i + 1..i + 3)?;
            out.push(u8::from_str_radix(hex, 16).ok()?);
            i += 3;
        } else {
            out.push(b);
            i += 1;
        }
    }
    String::from_utf8(out).ok()
}

/// The `false` schema: an empty `enum`, which no value satisfies.
fn never() -> SchemaNode {
    SchemaNode {
        has_enum: true,
        ..SchemaNode::default()
    }
}

fn json_kind(value: &Json) -> &'static str {
    match value {
        Json::Null => "null",
        Json::Bool(_) => "a boolean",
        Json::Number(_) => "a number",
        Json::String(_) => "a string",
        Json::Array(_) => "a list",
        Json::Object(_) => "an object",
    }
}

#[cfg(test)]
mod tests {
    use super::local_pointer;

    #[test]
    fn local_references_become_pointers() {
        assert_eq!(local_pointer("#"), Some(String::new()));
        assert_eq!(local_pointer("#/$defs/a"), Some("/$defs/a".to_owned()));
        assert_eq!(
            local_pointer("#/$defs/a%20b"),
            Some("/$defs/a b".to_owned())
        );
        assert_eq!(local_pointer("#/$defs/%zz"), None);
        assert_eq!(local_pointer("#anchor"), None);
        assert_eq!(local_pointer("other.json#/a"), None);
        assert_eq!(local_pointer("https://example.com/s.json"), None);
    }
}
