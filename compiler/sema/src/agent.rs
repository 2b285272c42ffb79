//! agent.yaml and its catalogue as queries: parse, gather the tools of every source, resolve.

use std::collections::{BTreeMap, BTreeSet};

use stalwart_agent::{AgentFile, Parse, ToolDecl, ToolEntry};
use stalwart_db::{Db, LoadProblem, SourceFile};
use stalwart_diagnostics::Diagnostic;

use crate::codes;

/// agent.yaml parsed. `no_eq`: the tree holds floats and is cheap to rebuild, so equality is not
/// worth comparing; dependants re-run when the text changes.
#[salsa::tracked(returns(ref), no_eq)]
pub fn parse_agent_file(db: &dyn Db, file: SourceFile) -> Parse<AgentFile> {
    stalwart_agent::parse_agent(file.id(db), file.text(db))
}

/// A Python tool module read statically. The module's dotted name comes from its file name.
#[salsa::tracked(returns(ref), no_eq)]
pub fn parse_python_tools(db: &dyn Db, file: SourceFile) -> Parse<Vec<ToolDecl>> {
    let module = module_name(file.path(db));
    stalwart_agent::parse_python_module(file.id(db), file.text(db), &module)
}

/// A catalogue file (JSON or YAML).
#[salsa::tracked(returns(ref), no_eq)]
pub fn parse_catalogue_tools(db: &dyn Db, file: SourceFile) -> Parse<Vec<ToolDecl>> {
    stalwart_agent::parse_catalogue(file.id(db), file.text(db), file.path(db))
}

/// An MCP `tools/list` answer.
#[salsa::tracked(returns(ref), no_eq)]
pub fn parse_mcp_tools(db: &dyn Db, file: SourceFile) -> Parse<Vec<ToolDecl>> {
    stalwart_agent::parse_mcp(file.id(db), file.text(db), file.path(db))
}

/// Every tool declaration an agent.yaml brings in, in `tools:` order, with agent.yaml's
/// `overrides:` applied, and the files they came from.
#[derive(Debug, Clone, PartialEq)]
pub struct Catalogue {
    pub tools: Vec<ToolDecl>,
    /// The files read for tools (modules, catalogues, MCP answers), in `tools:` order.
    pub sources: Vec<SourceFile>,
    pub diagnostics: Vec<Diagnostic>,
}

/// Gathers the catalogue from inline declarations and every source file `tools:` names.
#[salsa::tracked(returns(ref), no_eq)]
pub fn agent_catalogue(db: &dyn Db, file: SourceFile) -> Catalogue {
    let parsed = parse_agent_file(db, file);
    let mut out = Catalogue {
        tools: Vec::new(),
        sources: Vec::new(),
        diagnostics: Vec::new(),
    };
    for entry in &parsed.value.tools {
        match entry {
            ToolEntry::Inline(decl) => out.tools.push((**decl).clone()),
            ToolEntry::Python(module) => {
                let candidates = module_candidates(&module.value);
                let found = candidates.iter().find_map(|c| db.resolve(file, c));
                match found {
                    Some(source) => {
                        let tools = parse_python_tools(db, source);
                        out.tools.extend(tools.value.iter().cloned());
                        out.diagnostics.extend(tools.diagnostics.iter().cloned());
                        out.sources.push(source);
                    }
                    None => {
                        let problem = candidates.iter().find_map(|c| {
                            db.load_problem(file, c)
                                .filter(|p| !matches!(p, LoadProblem::Missing))
                                .map(|p| (c, p))
                        });
                        out.diagnostics.push(match problem {
                            Some((path, problem)) => unreadable(path, module.span, &problem),
                            None => Diagnostic::error(
                                codes::MISSING_TOOL_SOURCE,
                                module.span,
                                format!("cannot find the Python module `{}`", module.value),
                            )
                            .with_label("no such module beside agent.yaml")
                            .with_note(format!("looked for {}", quote_list(&candidates))),
                        });
                    }
                }
            }
            ToolEntry::Catalogue(path) | ToolEntry::Mcp(path) => {
                let is_mcp = matches!(entry, ToolEntry::Mcp(_));
                match db.resolve(file, &path.value) {
                    Some(source) => {
                        let tools = if is_mcp {
                            parse_mcp_tools(db, source)
                        } else {
                            parse_catalogue_tools(db, source)
                        };
                        out.tools.extend(tools.value.iter().cloned());
                        out.diagnostics.extend(tools.diagnostics.iter().cloned());
                        out.sources.push(source);
                    }
                    None => out
                        .diagnostics
                        .push(match db.load_problem(file, &path.value) {
                            Some(problem) if !matches!(problem, LoadProblem::Missing) => {
                                unreadable(&path.value, path.span, &problem)
                            }
                            _ => Diagnostic::error(
                                codes::MISSING_TOOL_SOURCE,
                                path.span,
                                format!(
                                    "cannot find the {} `{}`",
                                    if is_mcp { "MCP answer" } else { "catalogue" },
                                    path.value
                                ),
                            )
                            .with_label("no such file beside agent.yaml"),
                        }),
                }
            }
        }
    }
    stalwart_agent::apply_overrides(&mut out.tools, &parsed.value.overrides);
    out
}

/// A file agent.yaml names that exists but cannot be read as text, at the name in agent.yaml.
fn unreadable(path: &str, at: stalwart_diagnostics::Span, problem: &LoadProblem) -> Diagnostic {
    let code = problem.code().unwrap_or(codes::UNREADABLE_SOURCE);
    Diagnostic::error(code, at, problem.message(path))
        .with_label("named here")
        .with_help(problem.help())
}

/// The warning for a file read without its byte-order mark.
pub fn byte_order_mark(db: &dyn Db, file: SourceFile) -> Diagnostic {
    Diagnostic::warning(
        stalwart_db::BYTE_ORDER_MARK,
        stalwart_diagnostics::Span::new(file.id(db), 0, 0),
        format!(
            "`{}` starts with a byte-order mark: it is read without it",
            file.name(db)
        ),
    )
    .with_label("a byte-order mark was here")
    .with_help("save the file as UTF-8 without a byte-order mark")
}

/// Whether a diagnostic says a name does not resolve: a consequence when the file that should
/// have declared the name could not be read.
fn is_consequence(d: &Diagnostic) -> bool {
    matches!(
        d.code.slug,
        "unknown-tool"
            | "unknown-tool-reference"
            | "unknown-override"
            | "unknown-route"
            | "unknown-bind-argument"
            | "unknown-bind-field"
            | "rulebook-unknown-tool"
    )
}

/// Everything known about an agent description once its names are resolved.
#[derive(Debug, Clone, PartialEq)]
pub struct AgentAnalysis {
    /// Every diagnostic: agent.yaml's, its sources', and the resolver's, sorted by place.
    pub diagnostics: Vec<Diagnostic>,
}

/// What the rulebook's checks read of agent.yaml: the catalogue's tools with their argument
/// names (`None` when a tool source is missing: the catalogue is incomplete, and checking the
/// rulebook's tools against it would only repeat that one error), and the declared facts.
/// Compared on each re-run, so an edit to agent.yaml that changes neither keeps every check.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct RuleCheckInputs {
    pub catalogue: Option<BTreeMap<String, BTreeSet<String>>>,
    /// The catalogue's tool names (its keys), once for every file's checks.
    pub names: Option<BTreeSet<String>>,
    pub facts: BTreeSet<String>,
}

/// The [`RuleCheckInputs`] of an agent.yaml.
#[salsa::tracked(returns(ref))]
pub fn rule_check_inputs(db: &dyn Db, file: SourceFile) -> RuleCheckInputs {
    let parsed = parse_agent_file(db, file);
    let catalogue = agent_catalogue(db, file);
    let tools: BTreeMap<String, BTreeSet<String>> = catalogue
        .tools
        .iter()
        .map(|t| (t.name.value.clone(), argument_names(t)))
        .collect();
    let facts = parsed
        .value
        .facts
        .iter()
        .map(|f| f.name.value.clone())
        .collect();
    let catalogue = (!source_missing(catalogue)).then_some(tools);
    RuleCheckInputs {
        names: catalogue.as_ref().map(|c| c.keys().cloned().collect()),
        catalogue,
        facts,
    }
}

/// Whether a tool source agent.yaml names cannot be found or read.
fn source_missing(catalogue: &Catalogue) -> bool {
    catalogue.diagnostics.iter().any(|d| {
        d.code == codes::MISSING_TOOL_SOURCE
            || [
                stalwart_db::INPUT_IS_A_DIRECTORY,
                stalwart_db::BINARY_INPUT,
                stalwart_db::NOT_UTF8,
                codes::UNREADABLE_SOURCE,
            ]
            .contains(&d.code)
    })
}

/// The diagnostics of agent.yaml and its tool sources, resolved: everything [`analyze_agent`]
/// gives but the rulebook's and the byte-order marks', unsorted. Compared on each re-run, so an
/// edit to a rulebook file never runs the resolver again.
#[salsa::tracked(returns(ref))]
pub fn agent_file_diagnostics(db: &dyn Db, file: SourceFile) -> Vec<Diagnostic> {
    let parsed = parse_agent_file(db, file);
    let catalogue = agent_catalogue(db, file);
    let mut diagnostics = parsed.diagnostics.clone();
    diagnostics.extend(catalogue.diagnostics.iter().cloned());
    if parsed.value.agents.is_empty() && !parsed.diagnostics.iter().any(Diagnostic::is_error) {
        diagnostics.push(
            Diagnostic::error(
                codes::NO_AGENTS,
                stalwart_diagnostics::Span::new(file.id(db), 0, 0),
                "agent.yaml declares no agent",
            )
            .with_help("add `agents:` with at least one agent and the tools it may reach"),
        );
    }
    let resolved = stalwart_agent::resolve_agent(&parsed.value, &catalogue.tools);
    let source_missing = source_missing(catalogue);
    // A tool source that cannot be found leaves its tools undeclared: naming each of them again
    // would only repeat the one error that matters.
    diagnostics.extend(resolved.into_iter().filter(|d| {
        !(source_missing && matches!(d.code.slug, "unknown-tool" | "unknown-override"))
    }));
    if let Some(rulebook) = &parsed.value.rulebook
        && crate::model::agent_rulebook_set(db, file).is_none()
    {
        diagnostics.push(
            Diagnostic::error(
                codes::MISSING_RULEBOOK,
                rulebook.span,
                format!("cannot find the rulebook `{}`", rulebook.value),
            )
            .with_label("no such file or folder beside agent.yaml"),
        );
    }
    diagnostics
}

/// Parses, gathers and resolves an agent description.
#[salsa::tracked(returns(ref), no_eq)]
pub fn analyze_agent(db: &dyn Db, file: SourceFile) -> AgentAnalysis {
    let parsed = parse_agent_file(db, file);
    let catalogue = agent_catalogue(db, file);
    let mut diagnostics = agent_file_diagnostics(db, file).clone();
    if parsed.value.rulebook.is_some()
        && let Some(set) = crate::model::agent_rulebook_set(db, file)
    {
        // Each part its own query: an edit inside one rule file re-runs that file's only.
        diagnostics.extend(
            crate::model::outline::rulebook_diagnostics(db, set)
                .iter()
                .cloned(),
        );
        diagnostics.extend(
            crate::rulebook::rulebook_checks(db, set, Some(file))
                .iter()
                .cloned(),
        );
    }
    for source in std::iter::once(file)
        .chain(catalogue.sources.iter().copied())
        .chain(agent_rulebook_files(db, file))
    {
        if db.had_bom(source) {
            diagnostics.push(byte_order_mark(db, source));
        }
    }
    stalwart_diagnostics::sort(&mut diagnostics);
    diagnostics.dedup();
    // A name that does not resolve because the file that declares it has errors follows those
    // errors: the cause is read first.
    let agent_id = file.id(db);
    let source_failed = diagnostics
        .iter()
        .any(|d| d.is_error() && !is_consequence(d) && d.primary.span.file != agent_id)
        || catalogue.diagnostics.iter().any(Diagnostic::is_error);
    if source_failed {
        let (consequences, causes): (Vec<_>, Vec<_>) =
            diagnostics.into_iter().partition(is_consequence);
        diagnostics = causes;
        diagnostics.extend(consequences);
    }
    AgentAnalysis { diagnostics }
}

/// The files a dotted module name may live in, in the order Python looks: `shop.tools` →
/// `shop/tools.py`, then `shop/tools/__init__.py`.
pub fn module_candidates(module: &str) -> Vec<String> {
    let base = module.replace('.', "/");
    vec![format!("{base}.py"), format!("{base}/__init__.py")]
}

/// The top-level property names of a tool's argument schema.
fn argument_names(tool: &ToolDecl) -> BTreeSet<String> {
    tool.arguments
        .as_ref()
        .and_then(|a| a.value.get("properties"))
        .and_then(|p| p.as_object())
        .map(|p| p.keys().cloned().collect())
        .unwrap_or_default()
}

/// Every file of the rulebook agent.yaml names (its config files, then its rule files).
pub fn agent_rulebook_files(db: &dyn Db, file: SourceFile) -> Vec<SourceFile> {
    match crate::model::agent_rulebook_set(db, file) {
        Some(set) => set
            .configs(db)
            .iter()
            .chain(set.files(db).iter())
            .copied()
            .collect(),
        None => Vec::new(),
    }
}

/// `shop/tools.py` → `shop.tools`; `shop/__init__.py` → `shop`.
pub fn module_name(file_name: &str) -> String {
    let trimmed = file_name.trim_start_matches("./");
    let stem = trimmed
        .strip_suffix("/__init__.py")
        .or_else(|| trimmed.strip_suffix(".py"))
        .unwrap_or(trimmed);
    stem.replace('/', ".")
}

fn quote_list(items: &[String]) -> String {
    items
        .iter()
        .map(|i| format!("`{i}`"))
        .collect::<Vec<_>>()
        .join(" and ")
}

#[cfg(test)]
mod tests {
    use super::module_name;

    #[test]
    fn module_names_follow_python_packages() {
        assert_eq!(module_name("shop/tools.py"), "shop.tools");
        assert_eq!(module_name("shop/__init__.py"), "shop");
        assert_eq!(module_name("./a/b/c.py"), "a.b.c");
    }
}
