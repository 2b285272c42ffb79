//! Type hints to JSON Schema: a tool function's parameters become its `arguments` object schema,
//! its return annotation its `result` schema.
//!
//! | hint | schema |
//! |---|---|
//! | `str`, `int`, `float`, `bool`, `None` | `string`, `integer`, `number`, `boolean`, `null` |
//! | `list`, `List[X]`, `list[X]`, `Sequence[X]`, `tuple[X, ...]`, `set[X]` | `array` (with `items` when given) |
//! | `dict`, `Dict[K, V]`, `Mapping[K, V]` | `object` (with `additionalProperties: V` when given) |
//! | `Optional[X]`, `X \| None`, `Union[X, None]` | `anyOf: [X, {type: null}]` |
//! | `Union[A, B]`, `A \| B` | `anyOf: [A, B]` (one member: that member) |
//! | `Literal["a", 1]` | `enum: ["a", 1]` |
//! | `Annotated[X, …]`, `Required[X]`, `NotRequired[X]` | `X` |
//! | `Any`, `object`, no annotation | no constraint (`{}`) |
//! | a TypedDict class of the module | `object` with `properties` and `required` |
//! | anything else | no constraint, and a warning |
//!
//! `typing.`, `typing_extensions.`, `collections.abc.` and `builtins.` prefixes are allowed. A string
//! annotation (`"Order"`) is read when it is a plain name. A TypedDict's keys are all required
//! unless the class says `total=False`; `Required[...]`/`NotRequired[...]` override per key; bases
//! that are TypedDicts of the module contribute their keys first. In the arguments a TypedDict is
//! closed (`additionalProperties: false`: a model may not invent keys); in a result it is open (a
//! tool may return more than it declares; what it declares is checked).

use serde_json::{Map, Value, json};
use stalwart_diagnostics::Diagnostic;
use tree_sitter::Node as TsNode;

use super::codes;
use super::literal::{MAX_DEPTH, Source, children, decode, literal_value};
use crate::node::NodeKind;

/// A TypedDict class of the module, by name.
pub(super) struct TypedDict<'t> {
    pub name: String,
    pub class: TsNode<'t>,
}

/// The module-level classes that are TypedDicts: a base is `TypedDict` (any prefix) or an
/// earlier TypedDict of the module.
pub(super) fn typed_dicts<'t>(src: Source<'_>, classes: &[TsNode<'t>]) -> Vec<TypedDict<'t>> {
    let mut found: Vec<TypedDict<'t>> = Vec::new();
    for class in classes {
        let Some(name) = class.child_by_field_name("name") else {
            continue;
        };
        let is_typed_dict = bases(*class).iter().any(|base| {
            let text = src.text_of(*base);
            text == "TypedDict"
                || text.ends_with(".TypedDict")
                || found.iter().any(|d| d.name == text)
        });
        if is_typed_dict {
            found.push(TypedDict {
                name: src.text_of(name).to_string(),
                class: *class,
            });
        }
    }
    found
}

/// A class's positional bases.
fn bases(class: TsNode<'_>) -> Vec<TsNode<'_>> {
    class
        .child_by_field_name("superclasses")
        .map(|list| {
            children(list)
                .into_iter()
                .filter(|c| c.kind() != "keyword_argument")
                .collect()
        })
        .unwrap_or_default()
}

/// A type hint, whatever node tree-sitter made of it.
enum Hint<'t> {
    Name(String),
    Generic(String, Vec<TsNode<'t>>),
    Union(Vec<TsNode<'t>>),
    None,
    Other,
}

const PREFIXES: [&str; 4] = [
    "typing.",
    "typing_extensions.",
    "collections.abc.",
    "builtins.",
];

fn name_of(text: &str) -> String {
    let compact: String = text.chars().filter(|c| !c.is_whitespace()).collect();
    for prefix in PREFIXES {
        if let Some(rest) = compact.strip_prefix(prefix) {
            return rest.to_string();
        }
    }
    compact
}

fn view<'t>(src: Source<'_>, node: TsNode<'t>) -> Hint<'t> {
    match node.kind() {
        "type" | "parenthesized_expression" => match children(node).as_slice() {
            [one] => view(src, *one),
            _ => Hint::Other,
        },
        "identifier" | "attribute" | "member_type" => Hint::Name(name_of(src.text_of(node))),
        "none" => Hint::None,
        "generic_type" => {
            let parts = children(node);
            let name = parts
                .iter()
                .find(|p| p.kind() == "identifier")
                .map(|n| name_of(src.text_of(*n)));
            let args = parts
                .iter()
                .find(|p| p.kind() == "type_parameter")
                .map(|p| children(*p))
                .unwrap_or_default();
            name.map_or(Hint::Other, |name| Hint::Generic(name, args))
        }
        "subscript" => {
            let Some(value) = node.child_by_field_name("value") else {
                return Hint::Other;
            };
            let mut cursor = node.walk();
            let args: Vec<TsNode<'t>> = node
                .children_by_field_name("subscript", &mut cursor)
                .collect();
            Hint::Generic(name_of(src.text_of(value)), args)
        }
        "binary_operator"
            if node
                .child_by_field_name("operator")
                .is_some_and(|o| o.kind() == "|") =>
        {
            Hint::Union(
                [
                    node.child_by_field_name("left"),
                    node.child_by_field_name("right"),
                ]
                .into_iter()
                .flatten()
                .collect(),
            )
        }
        "union_type" => Hint::Union(children(node)),
        "string" => match decode(src, node) {
            Ok(text) if is_dotted_name(text.trim()) => Hint::Name(name_of(text.trim())),
            _ => Hint::Other,
        },
        _ => Hint::Other,
    }
}

fn is_dotted_name(text: &str) -> bool {
    !text.is_empty()
        && text.split('.').all(|part| {
            let mut chars = part.chars();
            chars.next().is_some_and(|c| c.is_alphabetic() || c == '_')
                && chars.all(|c| c.is_alphanumeric() || c == '_')
        })
}

const ARRAYS: [&str; 14] = [
    "list",
    "List",
    "Sequence",
    "MutableSequence",
    "Iterable",
    "Collection",
    "tuple",
    "Tuple",
    "set",
    "Set",
    "frozenset",
    "FrozenSet",
    "AbstractSet",
    "MutableSet",
];
const OBJECTS: [&str; 5] = ["dict", "Dict", "Mapping", "MutableMapping", "OrderedDict"];
const WRAPPERS: [&str; 4] = ["Annotated", "Required", "NotRequired", "ReadOnly"];

/// Builds schemas for one tool, collecting warnings and errors.
pub(super) struct Schemas<'s, 't> {
    pub src: Source<'s>,
    pub dicts: &'s [TypedDict<'t>],
    /// Message prefix (`tool `x`: `).
    pub ctx: String,
    pub diagnostics: Vec<Diagnostic>,
    /// Whether TypedDicts are closed (arguments) or open (results).
    closed: bool,
    /// TypedDicts being expanded, to catch one that contains itself.
    stack: Vec<String>,
}

impl<'s, 't> Schemas<'s, 't> {
    pub fn new(src: Source<'s>, dicts: &'s [TypedDict<'t>], ctx: String) -> Self {
        Self {
            src,
            dicts,
            ctx,
            diagnostics: Vec::new(),
            closed: true,
            stack: Vec::new(),
        }
    }

    /// The `arguments` schema of a function's `parameters` node.
    pub fn arguments(&mut self, parameters: TsNode<'_>) -> Value {
        self.closed = true;
        let mut properties = Map::new();
        let mut required = Vec::new();
        for param in children(parameters) {
            let (name, ty, default) = match param.kind() {
                "identifier" => (Some(param), None, None),
                "typed_parameter" => {
                    let first = children(param).into_iter().next();
                    match first {
                        Some(n) if n.kind() == "identifier" => {
                            (Some(n), param.child_by_field_name("type"), None)
                        }
                        Some(n) => {
                            self.variadic(n);
                            continue;
                        }
                        None => continue,
                    }
                }
                "default_parameter" | "typed_default_parameter" => (
                    param
                        .child_by_field_name("name")
                        .filter(|n| n.kind() == "identifier"),
                    param.child_by_field_name("type"),
                    param.child_by_field_name("value"),
                ),
                "list_splat_pattern" | "dictionary_splat_pattern" => {
                    self.variadic(param);
                    continue;
                }
                _ => continue,
            };
            let Some(name) = name else { continue };
            let name = self.src.text_of(name).to_string();
            let mut schema = ty.map_or_else(|| json!({}), |t| self.schema(t, 0));
            match default {
                Some(value) => {
                    if let (Some(literal), Value::Object(map)) =
                        (literal_value(self.src, value), &mut schema)
                    {
                        map.insert("default".to_string(), literal.to_json());
                    }
                }
                None => required.push(Value::String(name.clone())),
            }
            properties.insert(name, schema);
        }
        object(properties, required, true)
    }

    /// The `result` schema of a return annotation: `None` for `-> None` and for a type with no
    /// constraint (`Any`, an unknown type).
    pub fn result(&mut self, return_type: TsNode<'_>) -> Option<Value> {
        self.closed = false;
        if matches!(view(self.src, return_type), Hint::None) {
            return None;
        }
        let schema = self.schema(return_type, 0);
        if schema.as_object().is_some_and(Map::is_empty) {
            None
        } else {
            Some(schema)
        }
    }

    fn variadic(&mut self, param: TsNode<'_>) {
        let text = self.src.text_of(param);
        let (what, why) = if param.kind() == "dictionary_splat_pattern" {
            (
                "keyword arguments",
                "a call may pass only the arguments the tool declares",
            )
        } else {
            (
                "positional arguments",
                "a tool is called with named arguments",
            )
        };
        self.diagnostics.push(
            Diagnostic::warning(
                codes::VARIADIC_PARAMETER,
                self.src.span(param),
                format!("{}`{text}` is not read as an argument", self.ctx),
            )
            .with_label(format!("extra {what} are skipped"))
            .with_note(format!("{why}: undeclared arguments are refused")),
        );
    }

    fn schema(&mut self, node: TsNode<'_>, depth: u32) -> Value {
        if depth > MAX_DEPTH {
            self.diagnostics.push(
                Diagnostic::error(
                    codes::TOO_DEEP,
                    self.src.span(node),
                    format!(
                        "{}a type hint is nested deeper than {MAX_DEPTH} levels",
                        self.ctx
                    ),
                )
                .with_label("nested too deep"),
            );
            return json!({});
        }
        match view(self.src, node) {
            Hint::None => json!({"type": "null"}),
            Hint::Name(name) => self.named(node, &name, depth),
            Hint::Generic(name, args) => self.generic(node, &name, &args, depth),
            Hint::Union(_) => self.union(node, depth),
            Hint::Other => self.unknown(node),
        }
    }

    fn named(&mut self, node: TsNode<'_>, name: &str, depth: u32) -> Value {
        match name {
            "str" => json!({"type": "string"}),
            "int" => json!({"type": "integer"}),
            "float" => json!({"type": "number"}),
            "bool" => json!({"type": "boolean"}),
            "None" | "NoneType" => json!({"type": "null"}),
            "Any" | "object" => json!({}),
            _ if ARRAYS.contains(&name) => json!({"type": "array"}),
            _ if OBJECTS.contains(&name) => json!({"type": "object"}),
            _ => match self.dicts.iter().position(|d| d.name == name) {
                Some(index) => self.typed_dict(node, index, depth),
                None => self.unknown(node),
            },
        }
    }

    fn generic(&mut self, node: TsNode<'_>, name: &str, args: &[TsNode<'_>], depth: u32) -> Value {
        match name {
            "Optional" | "Union" => {
                if name == "Optional" && args.len() != 1 {
                    return self.bad_hint(node, "`Optional[...]` takes exactly one type");
                }
                self.union(node, depth)
            }
            "Literal" => self.literal(node, args),
            _ if WRAPPERS.contains(&name) => match args.first() {
                Some(inner) => self.schema(*inner, depth + 1),
                None => self.bad_hint(node, &format!("`{name}[...]` needs a type")),
            },
            _ if ARRAYS.contains(&name) => {
                let items = match args {
                    [one] => Some(self.schema(*one, depth + 1)),
                    [one, rest]
                        if rest.kind() == "ellipsis" || self.src.text_of(*rest) == "..." =>
                    {
                        Some(self.schema(*one, depth + 1))
                    }
                    _ => {
                        let all: Vec<Value> =
                            args.iter().map(|a| self.schema(*a, depth + 1)).collect();
                        all.first()
                            .filter(|first| all.iter().all(|s| s == *first))
                            .cloned()
                    }
                };
                match items.filter(|s| s.as_object().is_none_or(|m| !m.is_empty())) {
                    Some(items) => json!({"type": "array", "items": items}),
                    None => json!({"type": "array"}),
                }
            }
            _ if OBJECTS.contains(&name) => match args {
                [_, value] => {
                    let values = self.schema(*value, depth + 1);
                    if values.as_object().is_some_and(Map::is_empty) {
                        json!({"type": "object"})
                    } else {
                        json!({"type": "object", "additionalProperties": values})
                    }
                }
                _ => self.bad_hint(
                    node,
                    &format!("`{name}[...]` takes two types: keys and values"),
                ),
            },
            _ => match self.dicts.iter().position(|d| d.name == name) {
                Some(index) => self.typed_dict(node, index, depth),
                None => self.unknown(node),
            },
        }
    }

    /// The members of a union, flattened (`Optional[X]` adds `None`), each with its schema.
    fn union(&mut self, node: TsNode<'_>, depth: u32) -> Value {
        let mut members = Vec::new();
        self.flatten(node, depth, &mut members);
        let mut schemas: Vec<Value> = Vec::new();
        for member in members {
            let schema = match member {
                Some(m) => self.schema(m, depth + 1),
                None => json!({"type": "null"}),
            };
            if schema.as_object().is_some_and(Map::is_empty) {
                return json!({});
            }
            if !schemas.contains(&schema) {
                schemas.push(schema);
            }
        }
        match schemas.len() {
            0 => json!({}),
            1 => schemas.pop().unwrap_or_else(|| json!({})),
            _ => json!({"anyOf": schemas}),
        }
    }

    /// `None` stands for the `None` an `Optional` adds.
    fn flatten<'n>(&mut self, node: TsNode<'n>, depth: u32, out: &mut Vec<Option<TsNode<'n>>>) {
        if depth > MAX_DEPTH {
            out.push(Some(node));
            return;
        }
        match view(self.src, node) {
            Hint::Union(parts) => parts
                .into_iter()
                .for_each(|p| self.flatten(p, depth + 1, out)),
            Hint::Generic(name, args) if name == "Union" => args
                .into_iter()
                .for_each(|a| self.flatten(a, depth + 1, out)),
            Hint::Generic(name, args) if name == "Optional" && args.len() == 1 => {
                args.into_iter()
                    .for_each(|a| self.flatten(a, depth + 1, out));
                out.push(None);
            }
            _ => out.push(Some(node)),
        }
    }

    fn literal(&mut self, node: TsNode<'_>, args: &[TsNode<'_>]) -> Value {
        if args.is_empty() {
            return self.bad_hint(node, "`Literal[...]` needs at least one value");
        }
        let mut values = Vec::new();
        for arg in args {
            let inner = if arg.kind() == "type" {
                children(*arg).into_iter().next().unwrap_or(*arg)
            } else {
                *arg
            };
            match literal_value(self.src, inner) {
                Some(v)
                    if matches!(
                        v.kind,
                        NodeKind::Str(_) | NodeKind::Int(_) | NodeKind::Bool(_) | NodeKind::Null
                    ) =>
                {
                    values.push(v.to_json());
                }
                _ => {
                    self.diagnostics.push(
                        Diagnostic::error(
                            codes::BAD_TYPE_HINT,
                            self.src.span(*arg),
                            format!(
                                "{}`Literal[...]` takes literal values, not `{}`",
                                self.ctx,
                                self.src.text_of(*arg)
                            ),
                        )
                        .with_label("not a string, an integer, `True`, `False` or `None`"),
                    );
                    return json!({});
                }
            }
        }
        json!({"enum": values})
    }

    fn typed_dict(&mut self, node: TsNode<'_>, index: usize, depth: u32) -> Value {
        let Some(dict) = self.dicts.get(index) else {
            return json!({});
        };
        if self.stack.contains(&dict.name) {
            self.diagnostics.push(
                Diagnostic::warning(
                    codes::RECURSIVE_TYPE,
                    self.src.span(node),
                    format!(
                        "{}`{}` contains itself: the inner `{}` is not checked",
                        self.ctx, dict.name, dict.name
                    ),
                )
                .with_label("recursive use"),
            );
            return json!({});
        }
        self.stack.push(dict.name.clone());
        let mut properties = Map::new();
        let mut required = Vec::new();
        self.fields(dict.class, depth, &mut properties, &mut required);
        self.stack.pop();
        object(properties, required, self.closed)
    }

    /// A TypedDict's keys, its bases' first.
    fn fields(
        &mut self,
        class: TsNode<'_>,
        depth: u32,
        properties: &mut Map<String, Value>,
        required: &mut Vec<Value>,
    ) {
        if depth > MAX_DEPTH {
            return;
        }
        for base in bases(class) {
            let base_name = name_of(self.src.text_of(base));
            if let Some(parent) = self
                .dicts
                .iter()
                .find(|d| d.name == base_name && d.class != class)
            {
                let parent = parent.class;
                self.fields(parent, depth + 1, properties, required);
            }
        }
        let total = !class
            .child_by_field_name("superclasses")
            .map(children)
            .unwrap_or_default()
            .iter()
            .filter(|c| c.kind() == "keyword_argument")
            .any(|k| {
                k.child_by_field_name("name")
                    .is_some_and(|n| self.src.text_of(n) == "total")
                    && k.child_by_field_name("value")
                        .is_some_and(|v| v.kind() == "false")
            });
        let Some(body) = class.child_by_field_name("body") else {
            return;
        };
        for statement in children(body) {
            let Some(assignment) = children(statement)
                .into_iter()
                .next()
                .filter(|a| a.kind() == "assignment")
            else {
                continue;
            };
            let (Some(left), Some(ty)) = (
                assignment.child_by_field_name("left"),
                assignment.child_by_field_name("type"),
            ) else {
                continue;
            };
            if left.kind() != "identifier" {
                continue;
            }
            let key = self.src.text_of(left).to_string();
            let is_required = match view(self.src, ty) {
                Hint::Generic(name, _) if name == "Required" => true,
                Hint::Generic(name, _) if name == "NotRequired" => false,
                _ => total,
            };
            let schema = self.schema(ty, depth + 1);
            required.retain(|k| k.as_str() != Some(key.as_str()));
            if is_required {
                required.push(Value::String(key.clone()));
            }
            properties.insert(key, schema);
        }
    }

    fn unknown(&mut self, node: TsNode<'_>) -> Value {
        self.diagnostics.push(
            Diagnostic::warning(
                codes::UNKNOWN_TYPE,
                self.src.span(node),
                format!(
                    "{}the type `{}` is not known: its values are not checked",
                    self.ctx,
                    self.src.text_of(node)
                ),
            )
            .with_label("not a builtin type, a `typing` form or a TypedDict of this module")
            .with_help("declare it as a TypedDict in this module, or use a builtin type"),
        );
        json!({})
    }

    fn bad_hint(&mut self, node: TsNode<'_>, why: &str) -> Value {
        self.diagnostics.push(
            Diagnostic::error(
                codes::BAD_TYPE_HINT,
                self.src.span(node),
                format!(
                    "{}the type hint `{}` is malformed",
                    self.ctx,
                    self.src.text_of(node)
                ),
            )
            .with_label(why.to_string()),
        );
        json!({})
    }
}

/// An object schema; `required` only when not empty.
fn object(properties: Map<String, Value>, required: Vec<Value>, closed: bool) -> Value {
    let mut schema = Map::new();
    schema.insert("type".to_string(), json!("object"));
    schema.insert("properties".to_string(), Value::Object(properties));
    if !required.is_empty() {
        schema.insert("required".to_string(), Value::Array(required));
    }
    if closed {
        schema.insert("additionalProperties".to_string(), Value::Bool(false));
    }
    Value::Object(schema)
}
