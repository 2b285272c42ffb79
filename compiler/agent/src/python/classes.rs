//! The classes of a tool module that give schemas or tools, found by their bases and decorators
//! without running anything.
//!
//! | class | how it is recognised | what it gives |
//! |---|---|---|
//! | TypedDict | a base `TypedDict` (any prefix) or an earlier TypedDict of the module | an object schema |
//! | Pydantic model | a base `BaseModel` or `BaseSettings` (any prefix), or an earlier model of the module | an object schema (fields, `Field(...)`) |
//! | dataclass | a decorator `@dataclass` / `@dataclasses.dataclass` / `@pydantic.dataclasses.dataclass`, with or without arguments | an object schema |
//! | enumeration | a base `Enum`, `StrEnum`, `IntEnum` (any prefix) or an earlier enumeration | an `enum` of its members' literal values |
//! | tool class | a base `BaseTool` (LangChain's or CrewAI's, any prefix) or an earlier tool class | a tool (see `python::class_tool`) |
//!
//! Classes nested in a class (`class Tank(BaseModel): class Shrimp(BaseModel): ...`) are found
//! too, by their own name and by their dotted path (`Tank.Shrimp`). Bases are matched by the
//! last part of their dotted name, so an import under another module path still counts; a base
//! imported under another name does not.

use tree_sitter::Node as TsNode;

use super::literal::{Source, children};

/// What a class is, for schemas and tools.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum ClassKind {
    TypedDict,
    Model,
    Dataclass,
    Enum,
    Tool,
}

/// A class of the module that gives a schema or a tool.
pub(super) struct Class<'t> {
    /// Its name, and its dotted path when nested (`Tank.Shrimp`).
    pub names: Vec<String>,
    pub class: TsNode<'t>,
    pub kind: ClassKind,
}

/// The module's classes that matter, in the order they are defined (outer before inner).
pub(super) struct Classes<'t> {
    pub all: Vec<Class<'t>>,
}

impl<'t> Classes<'t> {
    /// Finds the classes among the module-level statements (each a class definition, possibly
    /// decorated) and inside them.
    pub fn find(src: Source<'_>, statements: &[TsNode<'t>]) -> Self {
        let mut out = Classes { all: Vec::new() };
        for statement in statements {
            out.visit(src, *statement, "", 0);
        }
        out
    }

    fn visit(&mut self, src: Source<'_>, statement: TsNode<'t>, prefix: &str, depth: u32) {
        if depth > 8 {
            return;
        }
        let (class, decorators) = match statement.kind() {
            "class_definition" => (statement, Vec::new()),
            "decorated_definition" => match statement.child_by_field_name("definition") {
                Some(d) if d.kind() == "class_definition" => (
                    d,
                    children(statement)
                        .into_iter()
                        .filter(|c| c.kind() == "decorator")
                        .collect(),
                ),
                _ => return,
            },
            _ => return,
        };
        let Some(name) = class.child_by_field_name("name") else {
            return;
        };
        let name = src.text_of(name).to_string();
        let path = if prefix.is_empty() {
            name.clone()
        } else {
            format!("{prefix}.{name}")
        };
        if let Some(kind) = self.kind_of(src, class, &decorators) {
            let mut names = vec![name.clone()];
            if path != name {
                names.push(path.clone());
            }
            self.all.push(Class { names, class, kind });
        }
        if let Some(body) = class.child_by_field_name("body") {
            for inner in children(body) {
                self.visit(src, inner, &path, depth + 1);
            }
        }
    }

    fn kind_of(
        &self,
        src: Source<'_>,
        class: TsNode<'_>,
        decorators: &[TsNode<'_>],
    ) -> Option<ClassKind> {
        let is_dataclass = decorators.iter().any(|d| {
            let text = src.text_of(*d).trim_start_matches('@');
            let callee = text.split('(').next().unwrap_or("").trim();
            last_part(callee) == "dataclass"
        });
        for base in bases(class) {
            let text = src.text_of(base);
            let last = last_part(text);
            let kind = match last {
                "TypedDict" => Some(ClassKind::TypedDict),
                "BaseModel" | "BaseSettings" => Some(ClassKind::Model),
                "Enum" | "StrEnum" | "IntEnum" => Some(ClassKind::Enum),
                "BaseTool" => Some(ClassKind::Tool),
                _ => self.get(text).map(|c| c.kind),
            };
            if kind.is_some() {
                return kind;
            }
        }
        is_dataclass.then_some(ClassKind::Dataclass)
    }

    /// The class named `name` (a plain or dotted name), the last defined if several share it.
    pub fn get(&self, name: &str) -> Option<&Class<'t>> {
        self.all
            .iter()
            .rev()
            .find(|c| c.names.iter().any(|n| n == name))
    }

    /// The position of the class named `name`.
    pub fn position(&self, name: &str) -> Option<usize> {
        let found = self.get(name)?;
        self.all.iter().position(|c| c.class == found.class)
    }

    /// The classes of the module that are tool classes.
    pub fn tools(&self) -> impl Iterator<Item = &Class<'t>> {
        self.all.iter().filter(|c| c.kind == ClassKind::Tool)
    }
}

/// The last part of a dotted name (`typing.TypedDict` → `TypedDict`).
pub(super) fn last_part(text: &str) -> &str {
    text.rsplit('.').next().unwrap_or(text).trim()
}

/// A class's positional bases.
pub(super) fn bases(class: TsNode<'_>) -> Vec<TsNode<'_>> {
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

/// The statements of a class body that assign to a name: `(name, annotation, value)`, in order.
/// `x: int`, `x: int = 3`, `x = 3`.
pub(super) fn assignments<'t>(
    src: Source<'_>,
    class: TsNode<'t>,
) -> Vec<(TsNode<'t>, Option<TsNode<'t>>, Option<TsNode<'t>>)> {
    let Some(body) = class.child_by_field_name("body") else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for statement in children(body) {
        let Some(assignment) = children(statement)
            .into_iter()
            .next()
            .filter(|a| a.kind() == "assignment")
        else {
            continue;
        };
        let Some(left) = assignment
            .child_by_field_name("left")
            .filter(|l| l.kind() == "identifier")
        else {
            continue;
        };
        if src.text_of(left).is_empty() {
            continue;
        }
        out.push((
            left,
            assignment.child_by_field_name("type"),
            assignment.child_by_field_name("right"),
        ));
    }
    out
}

/// The methods of a class body, by name.
pub(super) fn method<'t>(src: Source<'_>, class: TsNode<'t>, name: &str) -> Option<TsNode<'t>> {
    let body = class.child_by_field_name("body")?;
    children(body).into_iter().find_map(|statement| {
        let function = match statement.kind() {
            "function_definition" => statement,
            "decorated_definition" => statement.child_by_field_name("definition")?,
            _ => return None,
        };
        (function.kind() == "function_definition"
            && function
                .child_by_field_name("name")
                .is_some_and(|n| src.text_of(n) == name))
        .then_some(function)
    })
}
