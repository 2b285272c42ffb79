//! Step 3 of the tool check: a call's arguments (and a reported result) against the compiled
//! schema program of the record, answering with the first fault, its JSON pointer and the rule
//! that failed.
//!
//! **Undeclared members.** In a call's arguments one rule holds at every level, the root and
//! every nested object alike: a member is refused (rule `additionalProperties`) unless the
//! object's schema declares it — names it in `properties` or `required`, has a
//! `patternProperties` pattern that finds its name, gives `additionalProperties` a *schema* (`{}`
//! included: the author said what the other members are), or lists the whole value (`enum`,
//! `const`) — counting the schemas applied to the same value in place (`$ref`, `allOf`, `anyOf`,
//! `oneOf`: a member any of them declares is declared). `additionalProperties: true`, or no
//! `additionalProperties`, declares nothing: a member the author did not name may carry what the
//! guard cannot see. With no schema at all every argument is undeclared. The rule reaches into
//! values no schema describes as well: a member only `required` names (or that
//! `additionalProperties: true` lets through), or an item of an array no `items` describes —
//! counting, again, the schemas applied in place — is *free*, and any object inside a free value
//! must be empty, since nothing declares a member there. A reported result keeps plain JSON
//! Schema semantics (a tool may return more than it declares). `additionalProperties: false` and a schema for it act as JSON
//! Schema says, in both.
//!
//! The order of faults is fixed (DESIGN §5.9). For a call's arguments: first every argument the
//! root does not declare, in call order; then `additionalProperties: false` of the root; then each
//! missing `required` argument, in the order `required` lists them (rule `required`, pointer
//! `/<name>`); then `propertyNames`; then each argument's own faults, in call order; then the
//! root's `false`, `type`, `enum`, `const`, `$ref`, `allOf`, `anyOf` and `oneOf`. Inside a value:
//! the `false` schema (rule `false`), `type`, `enum`, `const`, then the keywords of the value's
//! type (`minimum`, `maximum`, `exclusiveMinimum`, `exclusiveMaximum`; `minLength`, `maxLength`,
//! `pattern`, `format`; `minItems`, `maxItems`, then each item; for objects undeclared members as
//! above, `additionalProperties: false` in member order, missing `required` members,
//! `propertyNames`, then each member against its `properties` schema, every `patternProperties`
//! schema whose pattern finds its name, or else the `additionalProperties` schema), then the
//! schemas applied in place: `$ref`, `allOf` (their own faults, as found inside), `anyOf` and
//! `oneOf` (rules `anyOf`, `oneOf`: none, or not exactly one, holds), so a fault inside a member is
//! named before an alternative that fails as a whole. A `propertyNames` fault points at the
//! member whose name fails.
//!
//! Numbers: `integer` accepts a number with a zero fraction (`40.0`); booleans are never numbers;
//! bounds compare as `f64`. Strings count Unicode scalar values. Patterns are unanchored searches
//! (regex-lite), compiled once per [`PatternCache`]. `format` (`date-time`, `date`, `email`,
//! `uri`, `uuid`) is checked by [`crate::format`] (rule `format`). A schema index the record does
//! not hold, or a pattern that does not compile, is a fault with rule `schema`; nesting deeper than
//! [`MAX_DEPTH`] (values, or schemas that refer to themselves through `$ref` — each schema applied
//! in place counts as a level) is a fault with rule `depth`. Nothing is allocated on the way to a
//! pass except a compiled pattern, a member name checked by `propertyNames`, and, for a root with
//! `enum`, `const` or a schema applied in place, one copy of the arguments.

use regex_lite::Regex;
use serde_json::{Map, Number, Value as Json};
use stalwart_record::{
    ArchivedAdditional, ArchivedRecordBody, ArchivedSchemaNode, SchemaIdx, TypeSet,
};

use crate::compare::member;
pub use crate::value::MAX_DEPTH;
use crate::value::json_equals;

/// The first fault found: where (a JSON pointer into the checked value) and which rule failed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SchemaFault {
    /// JSON pointer of the faulty value (`/amount`, `/items/2/sku`; `~0`/`~1` escaped; `""` for the
    /// whole value).
    pub pointer: String,
    /// The keyword that failed (`type`, `required`, `additionalProperties`, ...), or `false`,
    /// `schema`, `depth`.
    pub rule: &'static str,
}

/// Which pattern of a schema node: its `pattern`, or the `patternProperties` entry at an index.
const PATTERN: u32 = u32::MAX;

/// Patterns of one record compiled on first use. Keep it as long as the record to compile each
/// pattern once; a fresh cache allocates nothing until it meets a pattern.
pub struct PatternCache<'r> {
    body: &'r ArchivedRecordBody,
    /// The patterns met so far, by schema node and slot ([`PATTERN`] or a `patternProperties`
    /// index; `None`: it does not compile). A record has few patterns, so a list searched in
    /// order beats a map.
    compiled: Vec<((SchemaIdx, u32), Option<Regex>)>,
}

impl<'r> PatternCache<'r> {
    /// An empty cache for the patterns of `body`.
    pub fn new(body: &'r ArchivedRecordBody) -> Self {
        Self {
            body,
            compiled: Vec::new(),
        }
    }

    /// The record the cache belongs to.
    pub fn body(&self) -> &'r ArchivedRecordBody {
        self.body
    }

    fn regex(&mut self, node: SchemaIdx, slot: u32, pattern: &str) -> Option<&Regex> {
        let key = (node, slot);
        let at = match self.compiled.iter().position(|(k, _)| *k == key) {
            Some(at) => at,
            None => {
                self.compiled.push((key, Regex::new(pattern).ok()));
                self.compiled.len() - 1
            }
        };
        self.compiled.get(at)?.1.as_ref()
    }
}

/// Checks a call's arguments against a tool's compiled argument schema (`None`: the tool declares
/// none, so every argument is undeclared). Compiles the patterns it meets; see
/// [`validate_arguments_cached`] to compile them once.
pub fn validate_arguments(
    body: &ArchivedRecordBody,
    schema: Option<SchemaIdx>,
    args: &Map<String, Json>,
) -> Option<SchemaFault> {
    validate_arguments_cached(&mut PatternCache::new(body), schema, args)
}

/// [`validate_arguments`] with the patterns kept in `cache`.
pub fn validate_arguments_cached(
    cache: &mut PatternCache<'_>,
    schema: Option<SchemaIdx>,
    args: &Map<String, Json>,
) -> Option<SchemaFault> {
    let Some(schema) = schema else {
        let (name, _) = args.iter().next()?;
        return Some(fault(&Path::Key(&Path::Root, name), "additionalProperties"));
    };
    Eval {
        cache,
        strict: true,
    }
    .arguments(schema, args)
    .err()
}

/// Checks a whole value (a reported result) against a compiled schema, with plain JSON Schema
/// semantics: undeclared members are refused only where `additionalProperties` says so.
pub fn validate_value(
    body: &ArchivedRecordBody,
    schema: SchemaIdx,
    value: &Json,
) -> Option<SchemaFault> {
    validate_value_cached(&mut PatternCache::new(body), schema, value)
}

/// [`validate_value`] with the patterns kept in `cache`.
pub fn validate_value_cached(
    cache: &mut PatternCache<'_>,
    schema: SchemaIdx,
    value: &Json,
) -> Option<SchemaFault> {
    Eval {
        cache,
        strict: false,
    }
    .value(schema, value, &Path::Root, 0, Level::Value)
    .err()
}

/// Where a value sits, as a chain of steps from the root (rendered only for a fault).
enum Path<'a> {
    Root,
    Key(&'a Path<'a>, &'a str),
    Index(&'a Path<'a>, usize),
}

#[cold]
fn fault(path: &Path<'_>, rule: &'static str) -> SchemaFault {
    let mut steps = Vec::new();
    let mut at = path;
    loop {
        match at {
            Path::Root => break,
            Path::Key(parent, key) => {
                steps.push(key.replace('~', "~0").replace('/', "~1"));
                at = parent;
            }
            Path::Index(parent, i) => {
                steps.push(i.to_string());
                at = parent;
            }
        }
    }
    let mut pointer = String::new();
    for step in steps.iter().rev() {
        pointer.push('/');
        pointer.push_str(step);
    }
    SchemaFault { pointer, rule }
}

/// Whether a schema stands for a value of its own or is applied to a value in place (`$ref`,
/// `allOf`, `anyOf`, `oneOf`): the rule on undeclared members is checked once per value, where
/// every schema applied in place counts.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Level {
    Value,
    InPlace,
}

/// `Err` carries the first fault; `?` ends the walk there.
type Checked = Result<(), SchemaFault>;

fn fail(path: &Path<'_>, rule: &'static str) -> Checked {
    Err(fault(path, rule))
}

struct Eval<'c, 'r> {
    cache: &'c mut PatternCache<'r>,
    /// A call's arguments: undeclared members are refused at every level.
    strict: bool,
}

impl<'r> Eval<'_, 'r> {
    fn node(&self, idx: SchemaIdx) -> Option<&'r ArchivedSchemaNode> {
        self.cache.body.schema_nodes.get(usize::try_from(idx).ok()?)
    }

    fn arguments(&mut self, schema: SchemaIdx, args: &Map<String, Json>) -> Checked {
        let Some(node) = self.node(schema) else {
            return fail(&Path::Root, "schema");
        };
        self.object(schema, node, args, &Path::Root, 0, Level::Value)?;
        if is_never(node) {
            return fail(&Path::Root, "false");
        }
        if !has_type(node.types, TypeSet::OBJECT) {
            return fail(&Path::Root, "type");
        }
        if node.has_enum || node.constant.is_some() || applies_in_place(node) {
            let whole = Json::Object(args.clone());
            self.enum_const(node, &whole, &Path::Root)?;
            self.in_place(node, &whole, &Path::Root, 0)?;
        }
        Ok(())
    }

    /// Checks `value` against node `idx`.
    fn value(
        &mut self,
        idx: SchemaIdx,
        value: &Json,
        path: &Path<'_>,
        depth: usize,
        level: Level,
    ) -> Checked {
        if depth > MAX_DEPTH {
            return fail(path, "depth");
        }
        let Some(node) = self.node(idx) else {
            return fail(path, "schema");
        };
        if is_never(node) {
            return fail(path, "false");
        }
        if !type_matches(node.types, value) {
            return fail(path, "type");
        }
        self.enum_const(node, value, path)?;
        match value {
            Json::Number(n) => number(node, n, path)?,
            Json::String(s) => self.string(idx, node, s, path)?,
            Json::Array(items) => self.array(idx, node, items, path, depth, level)?,
            Json::Object(members) => self.object(idx, node, members, path, depth, level)?,
            Json::Null | Json::Bool(_) => {}
        }
        self.in_place(node, value, path, depth)
    }

    fn enum_const(&self, node: &ArchivedSchemaNode, value: &Json, path: &Path<'_>) -> Checked {
        let body = self.cache.body;
        if node.has_enum
            && !node
                .enum_values
                .iter()
                .any(|idx| json_equals(body, value, idx.to_native()))
        {
            return fail(path, "enum");
        }
        if let Some(constant) = node.constant.as_ref()
            && !json_equals(body, value, constant.to_native())
        {
            return fail(path, "const");
        }
        Ok(())
    }

    fn string(
        &mut self,
        idx: SchemaIdx,
        node: &ArchivedSchemaNode,
        s: &str,
        path: &Path<'_>,
    ) -> Checked {
        let min = node.min_length.as_ref().map(|n| widen(n.to_native()));
        let max = node.max_length.as_ref().map(|n| widen(n.to_native()));
        if min.is_some() || max.is_some() {
            let len = s.chars().count();
            if min.is_some_and(|min| len < min) {
                return fail(path, "minLength");
            }
            if max.is_some_and(|max| len > max) {
                return fail(path, "maxLength");
            }
        }
        if let Some(pattern) = node.pattern.as_ref() {
            match self.cache.regex(idx, PATTERN, pattern.as_str()) {
                None => return fail(path, "schema"),
                Some(regex) if !regex.is_match(s) => return fail(path, "pattern"),
                Some(_) => {}
            }
        }
        if let Some(format) = node.format.as_ref()
            && !crate::format::matches(native_format(format), s)
        {
            return fail(path, "format");
        }
        Ok(())
    }

    fn array(
        &mut self,
        idx: SchemaIdx,
        node: &ArchivedSchemaNode,
        items: &[Json],
        path: &Path<'_>,
        depth: usize,
        level: Level,
    ) -> Checked {
        if node
            .min_items
            .as_ref()
            .is_some_and(|min| items.len() < widen(min.to_native()))
        {
            return fail(path, "minItems");
        }
        if node
            .max_items
            .as_ref()
            .is_some_and(|max| items.len() > widen(max.to_native()))
        {
            return fail(path, "maxItems");
        }
        if let Some(schema) = node.items.as_ref() {
            for (i, item) in items.iter().enumerate() {
                let at = Path::Index(path, i);
                self.value(schema.to_native(), item, &at, depth + 1, Level::Value)?;
            }
        } else if self.strict
            && level == Level::Value
            && !items.is_empty()
            && !self
                .has_items(idx, depth)
                .map_err(|rule| fault(path, rule))?
        {
            for (i, item) in items.iter().enumerate() {
                self.free(item, &Path::Index(path, i), depth + 1)?;
            }
        }
        Ok(())
    }

    fn object(
        &mut self,
        idx: SchemaIdx,
        node: &ArchivedSchemaNode,
        members: &Map<String, Json>,
        path: &Path<'_>,
        depth: usize,
        level: Level,
    ) -> Checked {
        if self.strict && level == Level::Value {
            for name in members.keys() {
                let at = Path::Key(path, name);
                let declares = self
                    .declares(idx, name, depth)
                    .map_err(|rule| fault(&at, rule))?;
                if !declares {
                    return fail(&at, "additionalProperties");
                }
            }
        }
        if matches!(node.additional, ArchivedAdditional::Deny) {
            for name in members.keys() {
                let at = Path::Key(path, name);
                if declared(node, name).is_none()
                    && !self
                        .pattern_finds(idx, node, name)
                        .map_err(|rule| fault(&at, rule))?
                {
                    return fail(&at, "additionalProperties");
                }
            }
        }
        if let Some(missing) = node
            .required
            .iter()
            .find(|name| member(members, name.as_str()).is_none())
        {
            return fail(&Path::Key(path, missing.as_str()), "required");
        }
        if let Some(names) = node.property_names.as_ref() {
            for name in members.keys() {
                let at = Path::Key(path, name);
                let text = Json::String(name.clone());
                self.value(names.to_native(), &text, &at, depth + 1, Level::Value)?;
            }
        }
        for (name, member) in members {
            let at = Path::Key(path, name);
            let mut matched = false;
            if let Some(schema) = declared(node, name) {
                matched = true;
                self.value(schema, member, &at, depth + 1, Level::Value)?;
            }
            for (slot, entry) in node.pattern_properties.iter().enumerate() {
                let slot = u32::try_from(slot).unwrap_or(PATTERN - 1);
                let Some(regex) = self.cache.regex(idx, slot, entry.0.as_str()) else {
                    return fail(&at, "schema");
                };
                if regex.is_match(name) {
                    matched = true;
                    self.value(entry.1.to_native(), member, &at, depth + 1, Level::Value)?;
                }
            }
            if !matched {
                if let ArchivedAdditional::Schema(schema) = &node.additional {
                    self.value(schema.to_native(), member, &at, depth + 1, Level::Value)?;
                } else if self.strict
                    && level == Level::Value
                    && !self
                        .governs(idx, name, depth)
                        .map_err(|rule| fault(&at, rule))?
                {
                    self.free(member, &at, depth + 1)?;
                }
            }
        }
        Ok(())
    }

    /// A value in a call's arguments that no schema describes (a member only `required` names or
    /// `additionalProperties: true` lets through, an item of an array with no `items`): the rule
    /// on undeclared members still holds inside it, and nothing declares a member there, so any
    /// object in it must be empty.
    fn free(&self, value: &Json, path: &Path<'_>, depth: usize) -> Checked {
        if depth > MAX_DEPTH {
            return fail(path, "depth");
        }
        match value {
            Json::Object(members) => match members.keys().next() {
                Some(name) => fail(&Path::Key(path, name), "additionalProperties"),
                None => Ok(()),
            },
            Json::Array(items) => {
                for (i, item) in items.iter().enumerate() {
                    self.free(item, &Path::Index(path, i), depth + 1)?;
                }
                Ok(())
            }
            _ => Ok(()),
        }
    }

    /// Whether node `idx`, or a schema it applies in place, says what the member `name` holds
    /// (`properties`, a `patternProperties` pattern, an `additionalProperties` schema, or the
    /// whole value in an `enum` or `const`); `Err` names the rule of a broken program.
    fn governs(&mut self, idx: SchemaIdx, name: &str, depth: usize) -> Result<bool, &'static str> {
        self.names(idx, name, depth, false)
    }

    /// Whether node `idx`, or a schema it applies in place, has `items` (or lists the whole
    /// value in an `enum` or `const`).
    fn has_items(&self, idx: SchemaIdx, depth: usize) -> Result<bool, &'static str> {
        if depth > MAX_DEPTH {
            return Err("depth");
        }
        let Some(node) = self.node(idx) else {
            return Err("schema");
        };
        if node.items.is_some() || (node.has_enum && !is_never(node)) || node.constant.is_some() {
            return Ok(true);
        }
        for child in in_place_children(node) {
            if self.has_items(child, depth + 1)? {
                return Ok(true);
            }
        }
        Ok(false)
    }

    /// Whether a `patternProperties` pattern of node `idx` finds `name`; `Err` names the rule of
    /// a broken program.
    fn pattern_finds(
        &mut self,
        idx: SchemaIdx,
        node: &ArchivedSchemaNode,
        name: &str,
    ) -> Result<bool, &'static str> {
        for (slot, entry) in node.pattern_properties.iter().enumerate() {
            let slot = u32::try_from(slot).unwrap_or(PATTERN - 1);
            match self.cache.regex(idx, slot, entry.0.as_str()) {
                None => return Err("schema"),
                Some(regex) if regex.is_match(name) => return Ok(true),
                Some(_) => {}
            }
        }
        Ok(false)
    }

    /// Whether node `idx`, or a schema it applies in place, declares the member `name`: governs
    /// it or names it in `required`; `Err` names the rule of a broken program.
    fn declares(&mut self, idx: SchemaIdx, name: &str, depth: usize) -> Result<bool, &'static str> {
        self.names(idx, name, depth, true)
    }

    /// [`Self::governs`], and with `required` also a member `required` names.
    fn names(
        &mut self,
        idx: SchemaIdx,
        name: &str,
        depth: usize,
        required: bool,
    ) -> Result<bool, &'static str> {
        if depth > MAX_DEPTH {
            return Err("depth");
        }
        let Some(node) = self.node(idx) else {
            return Err("schema");
        };
        if declared(node, name).is_some()
            || (required && node.required.iter().any(|r| r.as_str() == name))
            || matches!(node.additional, ArchivedAdditional::Schema(_))
            // An enumeration lists whole values, so it declares their members; `false` (an
            // empty enumeration) declares none.
            || (node.has_enum && !is_never(node))
            || node.constant.is_some()
            || self.pattern_finds(idx, node, name)?
        {
            return Ok(true);
        }
        for child in in_place_children(node) {
            if self.names(child, name, depth + 1, required)? {
                return Ok(true);
            }
        }
        Ok(false)
    }

    /// The schemas applied to `value` in place: `$ref`, `allOf`, `anyOf`, `oneOf`.
    fn in_place(
        &mut self,
        node: &ArchivedSchemaNode,
        value: &Json,
        path: &Path<'_>,
        depth: usize,
    ) -> Checked {
        if let Some(target) = node.reference.as_ref() {
            self.value(target.to_native(), value, path, depth + 1, Level::InPlace)?;
        }
        for schema in node.all_of.iter() {
            self.value(schema.to_native(), value, path, depth + 1, Level::InPlace)?;
        }
        if !node.any_of.is_empty() {
            let mut held = false;
            for alternative in node.any_of.iter() {
                if self.holds(alternative.to_native(), value, path, depth)? {
                    held = true;
                    break;
                }
            }
            if !held {
                return fail(path, "anyOf");
            }
        }
        if !node.one_of.is_empty() {
            let mut held = 0usize;
            for alternative in node.one_of.iter() {
                if self.holds(alternative.to_native(), value, path, depth)? {
                    held += 1;
                }
            }
            if held != 1 {
                return fail(path, "oneOf");
            }
        }
        Ok(())
    }

    /// Whether an alternative holds; a broken program is reported as such, not as a failed
    /// alternative.
    fn holds(
        &mut self,
        schema: SchemaIdx,
        value: &Json,
        path: &Path<'_>,
        depth: usize,
    ) -> Result<bool, SchemaFault> {
        match self.value(schema, value, path, depth + 1, Level::InPlace) {
            Ok(()) => Ok(true),
            Err(inner) if matches!(inner.rule, "schema" | "depth") => Err(inner),
            Err(_) => Ok(false),
        }
    }
}

/// Whether a node applies other schemas to its value in place.
/// The schemas `node` applies to its value in place: `$ref`, then `allOf`, `anyOf`, `oneOf`.
fn in_place_children(node: &ArchivedSchemaNode) -> impl Iterator<Item = SchemaIdx> + '_ {
    node.reference
        .as_ref()
        .into_iter()
        .chain(node.all_of.iter())
        .chain(node.any_of.iter())
        .chain(node.one_of.iter())
        .map(|idx| idx.to_native())
}

fn applies_in_place(node: &ArchivedSchemaNode) -> bool {
    node.reference.is_some()
        || !node.all_of.is_empty()
        || !node.any_of.is_empty()
        || !node.one_of.is_empty()
}

fn native_format(format: &stalwart_record::ArchivedStringFormat) -> stalwart_record::StringFormat {
    use stalwart_record::{ArchivedStringFormat as A, StringFormat as F};
    match format {
        A::DateTime => F::DateTime,
        A::Date => F::Date,
        A::Email => F::Email,
        A::Uri => F::Uri,
        A::Uuid => F::Uuid,
    }
}

/// The schema of a declared member.
fn declared(node: &ArchivedSchemaNode, name: &str) -> Option<SchemaIdx> {
    node.properties
        .iter()
        .find(|prop| prop.0.as_str() == name)
        .map(|prop| prop.1.to_native())
}

/// The `false` schema (an empty `enum`).
fn is_never(node: &ArchivedSchemaNode) -> bool {
    node.has_enum && node.enum_values.is_empty()
}

/// Whether `value` has one of the `types` (`0`: any).
fn type_matches(types: u8, value: &Json) -> bool {
    let bit = match value {
        Json::Null => TypeSet::NULL,
        Json::Bool(_) => TypeSet::BOOLEAN,
        Json::Number(n) => {
            return has_type(types, TypeSet::NUMBER)
                || (types & TypeSet::INTEGER != 0 && is_integer(n));
        }
        Json::String(_) => TypeSet::STRING,
        Json::Array(_) => TypeSet::ARRAY,
        Json::Object(_) => TypeSet::OBJECT,
    };
    has_type(types, bit)
}

/// Whether a value of type `bit` passes `types` (`0`: any).
fn has_type(types: u8, bit: u8) -> bool {
    types == 0 || types & bit != 0
}

/// An integer, or a float with a zero fraction (`40.0`).
fn is_integer(n: &Number) -> bool {
    n.is_i64()
        || n.is_u64()
        || n.as_f64()
            .is_some_and(|f| f.is_finite() && f.fract() == 0.0)
}

/// The numeric keywords, in order.
fn number(node: &ArchivedSchemaNode, n: &Number, path: &Path<'_>) -> Checked {
    let Some(v) = n.as_f64() else {
        return Ok(());
    };
    if node.minimum.as_ref().is_some_and(|min| v < min.to_native()) {
        return fail(path, "minimum");
    }
    if node.maximum.as_ref().is_some_and(|max| v > max.to_native()) {
        return fail(path, "maximum");
    }
    if node
        .exclusive_minimum
        .as_ref()
        .is_some_and(|min| v <= min.to_native())
    {
        return fail(path, "exclusiveMinimum");
    }
    if node
        .exclusive_maximum
        .as_ref()
        .is_some_and(|max| v >= max.to_native())
    {
        return fail(path, "exclusiveMaximum");
    }
    Ok(())
}

/// A stored `u32` count as `usize` (saturating on targets narrower than 32 bits).
fn widen(count: u32) -> usize {
    usize::try_from(count).unwrap_or(usize::MAX)
}
