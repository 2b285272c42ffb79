//! Type hints to JSON Schema: a tool function's parameters become its `arguments` object schema,
//! its return annotation its `result` schema.
//!
//! | hint | schema |
//! |---|---|
//! | `str`, `int`, `float`, `bool`, `None` | `string`, `integer`, `number`, `boolean`, `null` |
//! | `list`, `List[X]`, `list[X]`, `Sequence[X]`, `tuple[X, ...]`, `set[X]` | `array` (with `items` when given) |
//! | `dict`, `Dict[K, V]`, `Mapping[K, V]` | `object` (with `additionalProperties: V` when given) |
//! | `datetime`, `date`, `UUID` | `string` with `format` `date-time`, `date`, `uuid` |
//! | `EmailStr`, `AnyUrl`/`HttpUrl`/`AnyHttpUrl` | `string` with `format` `email`, `uri` |
//! | `time`, `timedelta`, `Path`, `bytes`, `SecretStr` | `string` |
//! | `Decimal` | `number` or `string` |
//! | `Optional[X]`, `X \| None`, `Union[X, None]` | `anyOf: [X, {type: null}]` |
//! | `Union[A, B]`, `A \| B` | `anyOf: [A, B]` (one member: that member) |
//! | `Literal["a", 1]` | `enum: ["a", 1]` |
//! | `Annotated[X, …]`, `Required[X]`, `NotRequired[X]` | `X`, with what a `Field(...)` among `…` says |
//! | `Any`, `object`, no annotation | no constraint (`{}`) |
//! | a TypedDict, Pydantic model or dataclass of the module | `object` with `properties` and `required` |
//! | an `Enum` of the module | `enum` of its members' values |
//! | anything else | no constraint, and a warning |
//!
//! `typing.`, `typing_extensions.`, `collections.abc.` and `builtins.` prefixes are allowed. A string
//! annotation (`"Order"`) is read when it is a plain name. A TypedDict's keys are all required
//! unless the class says `total=False`; `Required[...]`/`NotRequired[...]` override per key; bases
//! that are TypedDicts of the module contribute their keys first. A Pydantic model's or a
//! dataclass's fields are its annotated class attributes (not `ClassVar`, not `_private`, not
//! `model_config`), its bases' first; a field is required unless it has a default (`= value`,
//! `Field(default)`, `Field(default_factory=…)`), and `Field(...)` adds its constraints
//! (`python::fields`). `Optional[X]` without a default is required and may be `null`, as
//! Pydantic has it. In the arguments these objects are closed (`additionalProperties: false`: a
//! model may not invent keys); in a result they are open (a tool may return more than it declares;
//! what it declares is checked). A bare `dict` (or `dict[str, Any]`) is `additionalProperties: {}`:
//! its members are free, which the check's rule on undeclared members needs said.
//!
//! Parameters the framework fills in, not the model, are not arguments: `self`, `cls`,
//! `run_manager`, `callbacks`, and any parameter annotated `Context`, `RunnableConfig`,
//! `ToolRuntime`, `CallbackManagerForToolRun` (sync or async), or `Annotated[…, InjectedToolArg]`
//! (`InjectedState`, `InjectedStore`, `InjectedToolCallId` likewise).

use serde_json::{Map, Value, json};
use stalwart_diagnostics::Diagnostic;
use tree_sitter::Node as TsNode;

use super::classes::{ClassKind, Classes, assignments, bases, last_part};
use super::codes;
use super::fields::{self, FieldInfo};
use super::literal::{MAX_DEPTH, Source, children, decode, literal_value};
use crate::node::NodeKind;

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
    pub classes: &'s Classes<'t>,
    /// Message prefix (`tool `x`: `).
    pub ctx: String,
    pub diagnostics: Vec<Diagnostic>,
    /// Whether TypedDicts are closed (arguments) or open (results).
    closed: bool,
    /// TypedDicts being expanded, to catch one that contains itself.
    stack: Vec<String>,
}

impl<'s, 't> Schemas<'s, 't> {
    pub fn new(src: Source<'s>, classes: &'s Classes<'t>, ctx: String) -> Self {
        Self {
            src,
            classes,
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
            if self.injected(&name, ty) {
                continue;
            }
            let info = fields::from_default(self.src, default);
            let mut schema = ty.map_or_else(|| json!({}), |t| self.schema(t, 0));
            fields::apply(&mut schema, &info);
            if !info.optional {
                required.push(Value::String(name.clone()));
            }
            properties.insert(name, schema);
        }
        object(properties, required, true)
    }

    /// The `arguments` schema of a model named by `args_schema=` (a class of the module): its
    /// fields, closed. A name the module does not define gives no argument, with a warning.
    pub fn model_arguments(&mut self, model: TsNode<'_>) -> Value {
        self.closed = true;
        let name = name_of(self.src.text_of(model));
        match self.classes.position(&name) {
            Some(index) => self.class(model, index, 0),
            None => {
                self.diagnostics.push(
                    Diagnostic::warning(
                        codes::UNKNOWN_TYPE,
                        self.src.span(model),
                        format!(
                            "{}the arguments model `{}` is not defined in this module: no argument is declared",
                            self.ctx,
                            self.src.text_of(model)
                        ),
                    )
                    .with_label("not a Pydantic model, dataclass or TypedDict of this module")
                    .with_help("define the model in the module, or declare `arguments` under `overrides:` in agent.yaml"),
                );
                object(Map::new(), Vec::new(), true)
            }
        }
    }

    /// Whether a parameter is filled in by the framework rather than given by the model.
    fn injected(&self, name: &str, ty: Option<TsNode<'_>>) -> bool {
        if matches!(name, "self" | "cls" | "run_manager" | "callbacks") {
            return true;
        }
        let Some(ty) = ty else {
            return false;
        };
        let text = self.src.text_of(ty);
        let base = text.split('[').next().unwrap_or(text).trim();
        if matches!(
            last_part(base),
            "Context"
                | "RunnableConfig"
                | "ToolRuntime"
                | "CallbackManagerForToolRun"
                | "AsyncCallbackManagerForToolRun"
        ) {
            return true;
        }
        last_part(base) == "Annotated"
            && [
                "InjectedToolArg",
                "InjectedState",
                "InjectedStore",
                "InjectedToolCallId",
            ]
            .iter()
            .any(|marker| text.contains(marker))
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
            "datetime" | "datetime.datetime" | "AwareDatetime" | "NaiveDatetime" => {
                json!({"type": "string", "format": "date-time"})
            }
            "date" | "datetime.date" => json!({"type": "string", "format": "date"}),
            "UUID" | "uuid.UUID" | "UUID1" | "UUID3" | "UUID4" | "UUID5" => {
                json!({"type": "string", "format": "uuid"})
            }
            "EmailStr" | "pydantic.EmailStr" => json!({"type": "string", "format": "email"}),
            "AnyUrl" | "HttpUrl" | "AnyHttpUrl" | "pydantic.AnyUrl" | "pydantic.HttpUrl" => {
                json!({"type": "string", "format": "uri"})
            }
            "time" | "datetime.time" | "timedelta" | "datetime.timedelta" | "Path"
            | "pathlib.Path" | "PurePath" | "bytes" | "SecretStr" | "pydantic.SecretStr" => {
                json!({"type": "string"})
            }
            "Decimal" | "decimal.Decimal" => json!({"type": ["number", "string"]}),
            _ if ARRAYS.contains(&name) => json!({"type": "array"}),
            _ if OBJECTS.contains(&name) => json!({"type": "object", "additionalProperties": {}}),
            _ => match self.classes.position(name) {
                Some(index) => self.class(node, index, depth),
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
            "Annotated" => match args.split_first() {
                Some((inner, metadata)) => {
                    let mut schema = self.schema(*inner, depth + 1);
                    for item in metadata {
                        let item = if item.kind() == "type" {
                            children(*item).into_iter().next().unwrap_or(*item)
                        } else {
                            *item
                        };
                        if fields::is_field_call(self.src, item) {
                            fields::apply(&mut schema, &fields::from_call(self.src, item));
                        }
                    }
                    schema
                }
                None => self.bad_hint(node, "`Annotated[...]` needs a type"),
            },
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
                    json!({"type": "object", "additionalProperties": values})
                }
                _ => self.bad_hint(
                    node,
                    &format!("`{name}[...]` takes two types: keys and values"),
                ),
            },
            _ => match self.classes.position(name) {
                Some(index) => self.class(node, index, depth),
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

    /// The schema of a class of the module: an object for a TypedDict, a model or a dataclass,
    /// an `enum` for an enumeration.
    fn class(&mut self, node: TsNode<'_>, index: usize, depth: u32) -> Value {
        let Some(class) = self.classes.all.get(index) else {
            return json!({});
        };
        let (kind, class_node) = (class.kind, class.class);
        let name = class.names.first().cloned().unwrap_or_default();
        match kind {
            ClassKind::Enum => return self.enumeration(class_node),
            ClassKind::Tool => return self.unknown(node),
            ClassKind::TypedDict | ClassKind::Model | ClassKind::Dataclass => {}
        }
        if self.stack.contains(&name) {
            self.diagnostics.push(
                Diagnostic::warning(
                    codes::RECURSIVE_TYPE,
                    self.src.span(node),
                    format!(
                        "{}`{name}` contains itself: the inner `{name}` is not checked",
                        self.ctx
                    ),
                )
                .with_label("recursive use"),
            );
            return json!({});
        }
        self.stack.push(name);
        let mut properties = Map::new();
        let mut required = Vec::new();
        if kind == ClassKind::TypedDict {
            self.fields(class_node, depth, &mut properties, &mut required);
        } else {
            self.model_fields(class_node, depth, &mut properties, &mut required);
        }
        self.stack.pop();
        object(properties, required, self.closed)
    }

    /// An enumeration's members' literal values, in order.
    fn enumeration(&mut self, class: TsNode<'_>) -> Value {
        let values: Vec<Value> = assignments(self.src, class)
            .into_iter()
            .filter(|(name, ty, _)| ty.is_none() && !self.src.text_of(*name).starts_with('_'))
            .filter_map(|(_, _, value)| literal_value(self.src, value?))
            .map(|v| v.to_json())
            .collect();
        if values.is_empty() {
            json!({})
        } else {
            json!({"enum": values})
        }
    }

    /// A Pydantic model's or a dataclass's fields, its bases' first.
    fn model_fields(
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
                .classes
                .get(&base_name)
                .filter(|c| c.class != class && c.kind != ClassKind::Tool)
            {
                let parent = parent.class;
                self.model_fields(parent, depth + 1, properties, required);
            }
        }
        for (left, ty, value) in assignments(self.src, class) {
            let key = self.src.text_of(left).to_string();
            let Some(ty) = ty else { continue };
            let hint = name_of(self.src.text_of(ty));
            if key.starts_with('_') || key == "model_config" || hint.starts_with("ClassVar") {
                continue;
            }
            let info: FieldInfo = fields::from_default(self.src, value);
            let mut schema = self.schema(ty, depth + 1);
            fields::apply(&mut schema, &info);
            let key = info.alias.clone().unwrap_or(key);
            required.retain(|k| k.as_str() != Some(key.as_str()));
            if !info.optional {
                required.push(Value::String(key.clone()));
            }
            properties.insert(key, schema);
        }
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
                .classes
                .get(&base_name)
                .filter(|c| c.class != class && c.kind == ClassKind::TypedDict)
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
        for (left, ty, _) in assignments(self.src, class) {
            let Some(ty) = ty else { continue };
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
            .with_label("not a builtin type, a `typing` form or a class of this module")
            .with_help("declare it in this module (a TypedDict, a Pydantic model, a dataclass or an enumeration), or use a builtin type"),
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
