//! Python tool modules, read statically with tree-sitter-python: the module is parsed, never run.
//!
//! A tool is a module-level function (`def` or `async def`) with a tool decorator. These
//! spellings count: `@tool`, `@tool(...)`, `@<anything>.tool`, `@<anything>.tool(...)` (so
//! `@stalwart_agents.tool(...)`, LangChain's and CrewAI's `@tool(...)` and the MCP SDK's
//! `@mcp.tool()`), and any name `tool` is imported as (`from stalwart_agents import tool as
//! declare` makes `@declare(...)` count). A tool decorator on a method, a class or a nested
//! function is reported and not read; a second one on the same function is reported and ignored.
//! LangChain's and CrewAI's `BaseTool` subclasses and `StructuredTool.from_function(...)` are tools
//! too (`class_tool`).
//!
//! For each tool: the name is the function's (or the decorator's `name="..."`, or its first
//! argument when that is a string, as LangChain, CrewAI and the MCP SDK write it); the decorator's
//! keyword arguments are the declaration of DESIGN §2.2, read as literals into a [`Node`] mapping
//! and handed to [`declaration::tool_from_node`], except the frameworks' own: `args_schema=Model`
//! gives the arguments, `annotations=` the MCP hints, and the rest (`return_direct`, `title`, …)
//! are passed over. A keyword's value may be a name the module binds once to a literal.
//! `description`, `arguments` and `result` come from the docstring and the type hints (see
//! [`schema`]) unless the decorator gives them. Parameters: one without a default is required, a
//! default makes it optional (recorded as `default` when it is a literal; `Field(...)` says more);
//! parameters the framework fills in (`self`, `run_manager`, `config: RunnableConfig`,
//! `ctx: Context`, `InjectedToolArg`) are left out; `*args` and `**kwargs` are skipped with a
//! warning (undeclared arguments are refused anyway). A syntax error is reported where
//! tree-sitter found it, and the tools the rest of the module declares are still read.

mod class_tool;
mod classes;
mod codes;
mod fields;
mod literal;
mod schema;
mod syntax;
#[cfg(test)]
mod tests;

use serde_json::Value;
use stalwart_diagnostics::{Diagnostic, FileId, Span};
use tree_sitter::Node as TsNode;

use self::classes::Classes;
use self::literal::{Place, Source, children, docstring, literal};
use self::schema::Schemas;
use self::syntax::{MAX_PASSES, blank_errors, syntax_errors, top_level_errors};
use crate::declaration;
use crate::node::{Key, Node, NodeKind};
use crate::{Parse, Spanned, ToolDecl, ToolOrigin};

/// The files a module may be, in the order they are tried: `shop.tools` → `shop/tools.py`, then
/// `shop/tools/__init__.py` (a package).
pub fn module_candidates(module: &str) -> Vec<String> {
    let path = module.replace('.', "/");
    vec![format!("{path}.py"), format!("{path}/__init__.py")]
}

/// `shop.tools` → `shop/tools.py`: the first of [`module_candidates`].
pub fn module_path(module: &str) -> String {
    module_candidates(module)
        .into_iter()
        .next()
        .unwrap_or_default()
}

pub(crate) fn parse_python_module(file: FileId, text: &str, module: &str) -> Parse<Vec<ToolDecl>> {
    let found = read_module(file, text);
    let mut diagnostics = found.diagnostics;
    let mut tools = Vec::new();
    for tool in found.value {
        let parsed = declaration::tool_from_node(
            &tool.node,
            ToolOrigin::Python(module.to_string()),
            Some(tool.name.clone()),
        );
        diagnostics.extend(parsed.diagnostics);
        if let Some(decl) = parsed.value {
            tools.push(tool.complete(decl));
        }
    }
    Parse {
        value: tools,
        diagnostics,
    }
}

/// One decorated function, read but not yet turned into a declaration.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct FoundTool {
    pub name: Spanned<String>,
    /// From the first decorator to the end of the `def` line's signature.
    pub span: Span,
    /// The decorator's keyword arguments (`name` left out): an empty mapping for a bare `@tool`.
    pub node: Node,
    pub description: Option<String>,
    /// The parameters' object schema, spanned at the parameter list.
    pub arguments: Spanned<Value>,
    /// The return annotation's schema, spanned at the annotation.
    pub result: Option<Spanned<Value>>,
}

impl FoundTool {
    /// Fills what the decorator did not say from the signature and the docstring.
    fn complete(self, mut decl: ToolDecl) -> ToolDecl {
        decl.span = self.span;
        if self.node.get("description").is_none() && decl.description.is_none() {
            decl.description = self.description;
        }
        if self.node.get("arguments").is_none() {
            decl.arguments = Some(self.arguments);
        }
        if self.node.get("result").is_none() {
            decl.result = self.result;
        }
        decl
    }
}

/// Reads every tool function of a module, with the module's diagnostics.
pub(crate) fn read_module(file: FileId, text: &str) -> Parse<Vec<FoundTool>> {
    let mut diagnostics = Vec::new();
    let mut parser = tree_sitter::Parser::new();
    if parser
        .set_language(&tree_sitter_python::LANGUAGE.into())
        .is_err()
    {
        return unparsed(file);
    }
    let mut current = text.to_string();
    for pass in 1..=MAX_PASSES {
        let Some(tree) = parser.parse(&current, None) else {
            return unparsed(file);
        };
        let src = Source {
            text: &current,
            file,
        };
        let root = tree.root_node();
        syntax_errors(src, root, &mut diagnostics);
        let errors = top_level_errors(root);
        if !errors.is_empty() && pass < MAX_PASSES {
            let blanked = blank_errors(&current, &errors);
            if blanked != current {
                current = blanked;
                continue;
            }
        }
        let tools = read_tree(src, root, &mut diagnostics);
        let mut unique: Vec<Diagnostic> = Vec::with_capacity(diagnostics.len());
        for d in diagnostics {
            if !unique.contains(&d) {
                unique.push(d);
            }
        }
        return Parse {
            value: tools,
            diagnostics: unique,
        };
    }
    unparsed(file)
}

fn unparsed(file: FileId) -> Parse<Vec<FoundTool>> {
    let d = Diagnostic::error(
        codes::SYNTAX,
        Span::new(file, 0, 0),
        "the module could not be parsed",
    )
    .with_label("the Python parser gave up here");
    Parse {
        value: Vec::new(),
        diagnostics: vec![d],
    }
}

/// The tools of a parsed module.
fn read_tree(
    src: Source<'_>,
    root: TsNode<'_>,
    diagnostics: &mut Vec<Diagnostic>,
) -> Vec<FoundTool> {
    // Module-level statements, and those tree-sitter kept whole inside a top-level error.
    let mut statements = Vec::new();
    for child in children(root) {
        if child.kind() == "ERROR" {
            statements.extend(children(child));
        } else {
            statements.push(child);
        }
    }
    let aliases = tool_aliases(src, &statements);
    let classes = Classes::find(src, &statements);
    let module = Module {
        aliases: &aliases,
        classes: &classes,
        constants: constants(src, &statements),
    };

    let mut tools = Vec::new();
    for statement in &statements {
        match statement.kind() {
            "decorated_definition" => {
                if let Some(tool) = read_decorated(src, *statement, &module, diagnostics) {
                    tools.push(tool);
                }
            }
            "class_definition" | "function_definition" => {
                misplaced_in(src, *statement, &aliases, diagnostics)
            }
            "expression_statement" => {
                tools.extend(class_tool::from_function(
                    src,
                    *statement,
                    &statements,
                    &classes,
                    diagnostics,
                ));
            }
            _ => {}
        }
    }
    for class in classes.tools() {
        if statements
            .iter()
            .any(|s| definition(*s) == Some(class.class))
        {
            tools.push(class_tool::read_class(
                src,
                class.class,
                &classes,
                diagnostics,
            ));
        }
    }
    tools.sort_by_key(|t| t.span.start);
    tools
}

/// The class or function a statement defines (through its decorators).
fn definition(statement: TsNode<'_>) -> Option<TsNode<'_>> {
    match statement.kind() {
        "class_definition" | "function_definition" => Some(statement),
        "decorated_definition" => statement.child_by_field_name("definition"),
        _ => None,
    }
}

/// Names `tool` is imported as: `from stalwart_agents import tool as declare`.
fn tool_aliases(src: Source<'_>, statements: &[TsNode<'_>]) -> Vec<String> {
    let mut aliases = Vec::new();
    for statement in statements
        .iter()
        .filter(|s| s.kind() == "import_from_statement")
    {
        let mut cursor = statement.walk();
        for name in statement.children_by_field_name("name", &mut cursor) {
            if name.kind() != "aliased_import" {
                continue;
            }
            let original = name.child_by_field_name("name").map(|n| src.text_of(n));
            let alias = name.child_by_field_name("alias").map(|n| src.text_of(n));
            if let (Some("tool"), Some(alias)) = (original, alias) {
                aliases.push(alias.to_string());
            }
        }
    }
    aliases
}

/// `Some(arguments)` when the decorator is a tool decorator: the argument list of a call, `None`
/// for a bare `@tool`.
fn tool_decorator<'t>(
    src: Source<'_>,
    decorator: TsNode<'t>,
    aliases: &[String],
) -> Option<Option<TsNode<'t>>> {
    let expr = children(decorator).into_iter().next()?;
    let names_tool = |n: TsNode<'_>| match n.kind() {
        "identifier" => {
            let text = src.text_of(n);
            text == "tool" || aliases.iter().any(|a| a == text)
        }
        "attribute" => n
            .child_by_field_name("attribute")
            .is_some_and(|a| src.text_of(a) == "tool"),
        _ => false,
    };
    if expr.kind() == "call" {
        let function = expr.child_by_field_name("function")?;
        return names_tool(function).then(|| {
            expr.child_by_field_name("arguments")
                .filter(|a| a.kind() == "argument_list")
        });
    }
    names_tool(expr).then_some(None)
}

fn decorators(statement: TsNode<'_>) -> Vec<TsNode<'_>> {
    children(statement)
        .into_iter()
        .filter(|c| c.kind() == "decorator")
        .collect()
}

/// What the whole module says that a tool's reading needs.
struct Module<'m, 't> {
    aliases: &'m [String],
    classes: &'m Classes<'t>,
    /// Names bound once, at the module's top level, to a literal (`DESCRIPTION = "..."`).
    constants: Vec<(String, TsNode<'t>)>,
}

/// The module-level names bound exactly once to a literal, with the literal's node.
fn constants<'t>(src: Source<'_>, statements: &[TsNode<'t>]) -> Vec<(String, TsNode<'t>)> {
    let mut found: Vec<(String, Option<TsNode<'t>>)> = Vec::new();
    for statement in statements
        .iter()
        .filter(|s| s.kind() == "expression_statement")
    {
        let Some(assignment) = children(*statement)
            .into_iter()
            .next()
            .filter(|a| a.kind() == "assignment")
        else {
            continue;
        };
        let (Some(left), Some(right)) = (
            assignment.child_by_field_name("left"),
            assignment.child_by_field_name("right"),
        ) else {
            continue;
        };
        if left.kind() != "identifier" {
            continue;
        }
        let name = src.text_of(left).to_string();
        let value = literal::literal_value(src, right).map(|_| right);
        match found.iter_mut().find(|(n, _)| *n == name) {
            Some(entry) => entry.1 = None,
            None => found.push((name, value)),
        }
    }
    found
        .into_iter()
        .filter_map(|(n, v)| Some((n, v?)))
        .collect()
}

fn read_decorated<'t>(
    src: Source<'_>,
    statement: TsNode<'t>,
    module: &Module<'_, 't>,
    diagnostics: &mut Vec<Diagnostic>,
) -> Option<FoundTool> {
    let (aliases, classes) = (module.aliases, module.classes);
    let tool_decorators: Vec<(TsNode<'t>, Option<TsNode<'t>>)> = decorators(statement)
        .into_iter()
        .filter_map(|d| tool_decorator(src, d, aliases).map(|args| (d, args)))
        .collect();
    let definition = statement.child_by_field_name("definition")?;
    if definition.kind() != "function_definition" {
        for (decorator, _) in &tool_decorators {
            misplaced(src, *decorator, "a class", diagnostics);
        }
        misplaced_in(src, definition, aliases, diagnostics);
        return None;
    }
    misplaced_in(src, definition, aliases, diagnostics);
    let (first, args) = *tool_decorators.first()?;
    for (repeated, _) in tool_decorators.iter().skip(1) {
        diagnostics.push(
            Diagnostic::warning(
                codes::REPEATED_DECORATOR,
                src.span(*repeated),
                "a second tool decorator is ignored",
            )
            .with_label("ignored")
            .with_secondary(src.span(first), "the first one declares the tool"),
        );
    }
    let name_node = definition.child_by_field_name("name")?;
    let parameters = definition.child_by_field_name("parameters")?;
    let mut name = Spanned::new(src.text_of(name_node).to_string(), src.span(name_node));
    let ctx = format!("tool `{}`: ", name.value);
    let decorator_span = src.span(children(first).into_iter().next().unwrap_or(first));
    let read = keywords(
        src,
        args,
        decorator_span,
        &ctx,
        &module.constants,
        diagnostics,
    );
    if let Some(renamed) = read.renamed {
        name = renamed;
    }
    let return_type = definition.child_by_field_name("return_type");
    let header_end = return_type.unwrap_or(parameters).end_byte();
    let span = Span::new(
        src.file,
        src.span(statement).start,
        src.span(parameters).start.max(to_u32(header_end)),
    );

    let mut schemas = Schemas::new(src, classes, format!("tool `{}`: ", name.value));
    let arguments = match read.args_schema {
        Some(model) => class_tool::model_arguments(&mut schemas, model),
        None => Spanned::new(schemas.arguments(parameters), src.span(parameters)),
    };
    let result = return_type.and_then(|r| schemas.result(r).map(|s| Spanned::new(s, src.span(r))));
    diagnostics.append(&mut schemas.diagnostics);
    let description = definition
        .child_by_field_name("body")
        .and_then(|body| docstring(src, body));
    let mut node = read.node;
    if let Some(annotations) = read.annotations {
        node = with_annotations(node, annotations);
    }
    Some(FoundTool {
        name,
        span,
        node,
        description,
        arguments,
        result,
    })
}

/// Adds MCP annotations read from a decorator (`annotations=ToolAnnotations(readOnlyHint=True)`
/// or a dictionary) to the declaration's keys, as an MCP answer's hints map to them; keys the
/// decorator gives itself win.
fn with_annotations(node: Node, annotations: Node) -> Node {
    let mut decl = ToolDecl::named(
        Spanned::new(String::new(), node.span),
        ToolOrigin::Inline,
        node.span,
    );
    let mut ignored = Vec::new();
    crate::mcp::apply_annotations("", &annotations, &mut decl, &mut ignored);
    let NodeKind::Map(mut entries) = node.kind else {
        return node;
    };
    let mut add = |key: &str, value: NodeKind, span: Span| {
        if !entries.iter().any(|(k, _)| k.name == key) {
            entries.push((
                Key {
                    name: key.to_string(),
                    span,
                },
                Node { kind: value, span },
            ));
        }
    };
    if let Some(e) = &decl.effects {
        let word = match e.value {
            crate::Effects::Reads => "reads",
            crate::Effects::Changes => "changes",
        };
        add("effects", NodeKind::Str(word.to_string()), e.span);
    }
    if let Some(i) = &decl.idempotency {
        let retry = (
            Key {
                name: "retry_safe".to_string(),
                span: i.span,
            },
            Node {
                kind: NodeKind::Bool(true),
                span: i.span,
            },
        );
        add("idempotency", NodeKind::Map(vec![retry]), i.span);
    }
    if let Some(r) = &decl.reads_outside {
        add("reads_outside", NodeKind::Bool(r.value), r.span);
    }
    if let Some(o) = &decl.sends_out {
        add("sends_out", NodeKind::Bool(o.value), o.span);
    }
    Node {
        kind: NodeKind::Map(entries),
        span: node.span,
    }
}

fn to_u32(n: usize) -> u32 {
    u32::try_from(n).unwrap_or(u32::MAX)
}

/// What a tool decorator's arguments say.
struct DecoratorArgs<'t> {
    /// Stalwart's keys (DESIGN §2.2), as a mapping.
    node: Node,
    /// `name=` (or the first positional argument, a string, as LangChain, CrewAI and the MCP SDK
    /// write it).
    renamed: Option<Spanned<String>>,
    /// `args_schema=Model`: the class whose fields are the arguments.
    args_schema: Option<TsNode<'t>>,
    /// `annotations=ToolAnnotations(...)` or a dictionary of MCP hints.
    annotations: Option<Node>,
}

/// Keyword arguments of the tool decorators of LangChain (`@tool`), CrewAI (`@tool`) and the MCP
/// SDK (`@mcp.tool()`) that say nothing the check reads: passed over without a word, so that a
/// module written for those frameworks reads as it is.
const FRAMEWORK_KEYWORDS: &[&str] = &[
    "return_direct",
    "response_format",
    "parse_docstring",
    "error_on_invalid_docstring",
    "infer_schema",
    "result_as_answer",
    "title",
    "tags",
    "meta",
    "icons",
    "structured_output",
    "output_schema",
    "enabled",
    "exclude_args",
    "serializer",
    "max_usage_count",
    "context_kwarg",
    "extras",
];

/// The decorator's keyword arguments as a mapping, and what else they say.
fn keywords<'t>(
    src: Source<'_>,
    args: Option<TsNode<'t>>,
    bare_span: Span,
    ctx: &str,
    constants: &[(String, TsNode<'t>)],
    diagnostics: &mut Vec<Diagnostic>,
) -> DecoratorArgs<'t> {
    let mut out = DecoratorArgs {
        node: Node {
            kind: NodeKind::Map(Vec::new()),
            span: bare_span,
        },
        renamed: None,
        args_schema: None,
        annotations: None,
    };
    let Some(args) = args else {
        return out;
    };
    let mut entries: Vec<(Key, Node)> = Vec::new();
    let mut seen: Vec<Key> = Vec::new();
    for (position, arg) in children(args).into_iter().enumerate() {
        match arg.kind() {
            "keyword_argument" => {}
            "ERROR" => continue,
            "string" if position == 0 => {
                if let Some(value) = literal(src, arg, &Place { ctx, key: "name" }, diagnostics) {
                    set_name(&mut out.renamed, value, ctx, diagnostics);
                }
                continue;
            }
            _ => {
                diagnostics.push(
                    Diagnostic::error(
                        codes::POSITIONAL_ARGUMENT,
                        src.span(arg),
                        format!("{ctx}the tool decorator takes keyword arguments only"),
                    )
                    .with_label("not a keyword argument")
                    .with_help("name each field of the declaration: `effects=\"reads\"`"),
                );
                continue;
            }
        }
        let (Some(key_node), Some(value_node)) = (
            arg.child_by_field_name("name"),
            arg.child_by_field_name("value"),
        ) else {
            continue;
        };
        let key = Key {
            name: src.text_of(key_node).to_string(),
            span: src.span(key_node),
        };
        if let Some(first) = seen.iter().find(|k| k.name == key.name) {
            diagnostics.push(
                Diagnostic::error(
                    codes::DUPLICATE_KEYWORD,
                    key.span,
                    format!("{ctx}`{}` is given twice", key.name),
                )
                .with_label("given again here")
                .with_secondary(first.span, "first given here"),
            );
            continue;
        }
        seen.push(key.clone());
        match key.name.as_str() {
            "args_schema" => {
                out.args_schema = Some(value_node);
                continue;
            }
            "annotations" => {
                out.annotations = class_tool::hints(src, value_node);
                continue;
            }
            name if FRAMEWORK_KEYWORDS.contains(&name) => continue,
            _ => {}
        }
        // A name the module binds once to a literal reads as that literal.
        let value_node = match value_node.kind() {
            "identifier" => constants
                .iter()
                .find(|(n, _)| n == src.text_of(value_node))
                .map_or(value_node, |(_, literal)| *literal),
            _ => value_node,
        };
        let place = Place {
            ctx,
            key: &key.name,
        };
        // A value with any part that cannot be read is left out whole, so the declaration reader
        // does not report what is missing from it a second time.
        let mut problems = Vec::new();
        let value = literal(src, value_node, &place, &mut problems);
        let unreadable = !problems.is_empty();
        diagnostics.append(&mut problems);
        let Some(value) = value.filter(|_| !unreadable) else {
            continue;
        };
        if key.name == "name" {
            set_name(&mut out.renamed, value, ctx, diagnostics);
            continue;
        }
        entries.push((key, value));
    }
    out.node = Node {
        kind: NodeKind::Map(entries),
        span: src.span(args),
    };
    out
}

/// A decorator's `name` (keyword or first positional): a non-empty string.
fn set_name(
    renamed: &mut Option<Spanned<String>>,
    value: Node,
    ctx: &str,
    diagnostics: &mut Vec<Diagnostic>,
) {
    match value.kind {
        NodeKind::Str(s) if !s.is_empty() => *renamed = Some(Spanned::new(s, value.span)),
        NodeKind::Str(_) => diagnostics.push(
            Diagnostic::error(
                codes::BAD_TOOL_NAME,
                value.span,
                format!("{ctx}`name` is empty"),
            )
            .with_label("expected the tool's name"),
        ),
        _ => diagnostics.push(
            Diagnostic::error(
                codes::BAD_TOOL_NAME,
                value.span,
                format!("{ctx}`name` must be a string, found {}", value.describe()),
            )
            .with_label("expected the tool's name"),
        ),
    }
}

/// Reports tool decorators inside a class or function body: only module-level functions are tools.
fn misplaced_in(
    src: Source<'_>,
    definition: TsNode<'_>,
    aliases: &[String],
    diagnostics: &mut Vec<Diagnostic>,
) {
    let Some(body) = definition.child_by_field_name("body") else {
        return;
    };
    let inside = if definition.kind() == "class_definition" {
        "a method"
    } else {
        "a nested function"
    };
    for statement in children(body) {
        if statement.kind() != "decorated_definition" {
            continue;
        }
        let what = match statement
            .child_by_field_name("definition")
            .map(|d| d.kind())
        {
            Some("class_definition") => "a class",
            _ => inside,
        };
        for decorator in decorators(statement) {
            if tool_decorator(src, decorator, aliases).is_some() {
                misplaced(src, decorator, what, diagnostics);
            }
        }
    }
}

fn misplaced(
    src: Source<'_>,
    decorator: TsNode<'_>,
    what: &str,
    diagnostics: &mut Vec<Diagnostic>,
) {
    diagnostics.push(
        Diagnostic::warning(
            codes::MISPLACED_TOOL,
            src.span(decorator),
            format!("a tool decorator on {what} is not read"),
        )
        .with_label("not a module-level function")
        .with_note(
            "tools are module-level functions: `def` or `async def` at the top of the module",
        ),
    );
}
