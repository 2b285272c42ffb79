//! Tools that are not decorated functions: LangChain's and CrewAI's `BaseTool` subclasses,
//! `StructuredTool.from_function(...)`, and the arguments named by `args_schema=`.
//!
//! A `BaseTool` subclass of the module is a tool: its name is the class attribute `name`
//! (`name: str = "read_file"`; the class's name when there is none), its description the
//! attribute `description` (else the class docstring), its arguments the fields of the model its
//! `args_schema` names, or else the parameters of its `_run` method (`self` and `run_manager`
//! left out), and its result the return annotation of `_run`. A value that is not a literal
//! (`description = make_text()`) is passed over: the module is never run.
//!
//! `x = StructuredTool.from_function(func=f, name=..., description=..., args_schema=M)` (or
//! `Tool.from_function`) at the module's top level is a tool too: its arguments are `M`'s fields
//! or `f`'s parameters, its description `description=` or `f`'s docstring.
//!
//! Stalwart's own keys (`effects`, `sends_out`, …) are not written in such modules: they come
//! from agent.yaml's `overrides:`, so the module stays what its framework expects.

use serde_json::{Value, json};
use stalwart_diagnostics::{Diagnostic, Span};
use tree_sitter::Node as TsNode;

use super::classes::{Classes, assignments, last_part, method};
use super::literal::{Source, children, docstring, literal_value};
use super::schema::Schemas;
use super::{FoundTool, to_u32};
use crate::Spanned;
use crate::node::{Key, Node, NodeKind};

/// The arguments schema of `args_schema=Model`: the model's fields, closed.
pub(super) fn model_arguments(schemas: &mut Schemas<'_, '_>, model: TsNode<'_>) -> Spanned<Value> {
    let span = schemas.src.span(model);
    let schema = schemas.model_arguments(model);
    Spanned::new(schema, span)
}

/// MCP hints from `annotations=ToolAnnotations(readOnlyHint=True, …)` or
/// `annotations={"readOnlyHint": True}`, as a mapping node (what an MCP answer's `annotations`
/// would be).
pub(super) fn hints(src: Source<'_>, value: TsNode<'_>) -> Option<Node> {
    if value.kind() == "call" {
        let args = value.child_by_field_name("arguments")?;
        let entries = children(args)
            .into_iter()
            .filter(|a| a.kind() == "keyword_argument")
            .filter_map(|a| {
                let key = a.child_by_field_name("name")?;
                let value = literal_value(src, a.child_by_field_name("value")?)?;
                Some((
                    Key {
                        name: src.text_of(key).to_string(),
                        span: src.span(key),
                    },
                    value,
                ))
            })
            .collect();
        return Some(Node {
            kind: NodeKind::Map(entries),
            span: src.span(value),
        });
    }
    literal_value(src, value).filter(|n| n.entries().is_some())
}

/// A class attribute's literal string value (`name: str = "x"` or `name = "x"`).
fn attribute<'t>(src: Source<'_>, class: TsNode<'t>, name: &str) -> Option<(String, TsNode<'t>)> {
    assignments(src, class)
        .into_iter()
        .rev()
        .find(|(left, _, _)| src.text_of(*left) == name)
        .and_then(|(_, _, value)| {
            let value = value?;
            match literal_value(src, value)?.kind {
                NodeKind::Str(s) => Some((s, value)),
                _ => None,
            }
        })
}

/// A class attribute's value node, whatever it is (`args_schema: Type[BaseModel] = Model`).
fn attribute_node<'t>(src: Source<'_>, class: TsNode<'t>, name: &str) -> Option<TsNode<'t>> {
    assignments(src, class)
        .into_iter()
        .rev()
        .find(|(left, _, _)| src.text_of(*left) == name)
        .and_then(|(_, _, value)| value)
}

/// A `BaseTool` subclass as a tool.
pub(super) fn read_class<'t>(
    src: Source<'_>,
    class: TsNode<'t>,
    classes: &Classes<'t>,
    diagnostics: &mut Vec<Diagnostic>,
) -> FoundTool {
    let class_name = class
        .child_by_field_name("name")
        .map(|n| (src.text_of(n).to_string(), src.span(n)))
        .unwrap_or_default();
    let name = match attribute(src, class, "name") {
        Some((text, node)) => Spanned::new(text, src.span(node)),
        None => Spanned::new(class_name.0.clone(), class_name.1),
    };
    let header_end = class
        .child_by_field_name("superclasses")
        .or_else(|| class.child_by_field_name("name"))
        .map_or(class.end_byte(), |n| n.end_byte());
    let span = Span::new(src.file, src.span(class).start, to_u32(header_end));
    let description = attribute(src, class, "description")
        .map(|(text, _)| text)
        .or_else(|| {
            class
                .child_by_field_name("body")
                .and_then(|b| docstring(src, b))
        });
    let run = method(src, class, "_run");
    let mut schemas = Schemas::new(src, classes, format!("tool `{}`: ", name.value));
    let arguments = match attribute_node(src, class, "args_schema") {
        Some(model) => model_arguments(&mut schemas, model),
        None => match run.and_then(|r| r.child_by_field_name("parameters")) {
            Some(parameters) => Spanned::new(schemas.arguments(parameters), src.span(parameters)),
            None => Spanned::new(json!({"type": "object", "properties": {}}), span),
        },
    };
    let result = run
        .and_then(|r| r.child_by_field_name("return_type"))
        .and_then(|r| schemas.result(r).map(|s| Spanned::new(s, src.span(r))));
    diagnostics.append(&mut schemas.diagnostics);
    FoundTool {
        name,
        span,
        node: Node {
            kind: NodeKind::Map(Vec::new()),
            span,
        },
        description,
        arguments,
        result,
    }
}

/// `x = StructuredTool.from_function(...)` at the module's top level, as a tool.
pub(super) fn from_function<'t>(
    src: Source<'_>,
    statement: TsNode<'t>,
    statements: &[TsNode<'t>],
    classes: &Classes<'t>,
    diagnostics: &mut Vec<Diagnostic>,
) -> Option<FoundTool> {
    let assignment = children(statement)
        .into_iter()
        .next()
        .filter(|a| a.kind() == "assignment")?;
    let call = assignment
        .child_by_field_name("right")
        .filter(|c| c.kind() == "call")?;
    let callee = src.text_of(call.child_by_field_name("function")?);
    if last_part(callee) != "from_function" {
        return None;
    }
    let args = call.child_by_field_name("arguments")?;
    let mut func = None;
    let mut name = None;
    let mut description = None;
    let mut args_schema = None;
    for (i, arg) in children(args).into_iter().enumerate() {
        if arg.kind() != "keyword_argument" {
            if i == 0 {
                func = Some(arg);
            }
            continue;
        }
        let (Some(key), Some(value)) = (
            arg.child_by_field_name("name"),
            arg.child_by_field_name("value"),
        ) else {
            continue;
        };
        match src.text_of(key) {
            "func" => func = Some(value),
            "name" => name = string(src, value),
            "description" => description = string(src, value).map(|s| s.value),
            "args_schema" => args_schema = Some(value),
            _ => {}
        }
    }
    let func_name = src.text_of(func?);
    let function = statements.iter().find_map(|s| {
        let f = match s.kind() {
            "function_definition" => *s,
            "decorated_definition" => s.child_by_field_name("definition")?,
            _ => return None,
        };
        (f.kind() == "function_definition"
            && f.child_by_field_name("name")
                .is_some_and(|n| src.text_of(n) == func_name))
        .then_some(f)
    })?;
    let name = name.unwrap_or_else(|| {
        let n = function.child_by_field_name("name").unwrap_or(function);
        Spanned::new(func_name.to_string(), src.span(n))
    });
    let span = src.span(assignment);
    let mut schemas = Schemas::new(src, classes, format!("tool `{}`: ", name.value));
    let arguments = match args_schema {
        Some(model) => model_arguments(&mut schemas, model),
        None => {
            let parameters = function.child_by_field_name("parameters")?;
            Spanned::new(schemas.arguments(parameters), src.span(parameters))
        }
    };
    let result = function
        .child_by_field_name("return_type")
        .and_then(|r| schemas.result(r).map(|s| Spanned::new(s, src.span(r))));
    diagnostics.append(&mut schemas.diagnostics);
    let description = description.or_else(|| {
        function
            .child_by_field_name("body")
            .and_then(|b| docstring(src, b))
    });
    Some(FoundTool {
        name,
        span,
        node: Node {
            kind: NodeKind::Map(Vec::new()),
            span,
        },
        description,
        arguments,
        result,
    })
}

fn string(src: Source<'_>, node: TsNode<'_>) -> Option<Spanned<String>> {
    match literal_value(src, node)?.kind {
        NodeKind::Str(s) => Some(Spanned::new(s, src.span(node))),
        _ => None,
    }
}
