//! One semantic model of a rulebook, whatever its dialect and however many files it has.
//!
//! A rulebook is a Colang file, a rule sheet, several files, or a NeMo Guardrails config folder
//! (its YAML config files and every `.co` file under it, as `RailsConfig.from_path` reads it).
//! [`rulebook_model`] gives, once per set of files: the dialect (`colang_version`, else detected),
//! the config, the flows of every file with whether they act, the paths from the flows that act
//! to each tool with their resolved conditions ([`paths::Gates`]), the calls of flows that never
//! act, the intents with their examples, and every diagnostic. Lowering, the proof's rulebook
//! checks and `rules compile` read it.
//!
//! Which flows act (their paths are the gate):
//! - Colang 1.0: every `define flow` of the rulebook's files (dialog flows run on the events they
//!   wait for), and every flow a rail of the config lists (`rails.input.flows`, …); a `subflow`
//!   acts only where an acting flow runs it (`do`), in place;
//! - Colang 2.x: when a file defines `flow main`, only `main`, the flows marked `@active`, the
//!   flows a config rail lists, and the flows an acting flow activates (`activate x`), as the
//!   reference runs them; a rulebook without `main` is a set of rules, and every flow acts.
//!   A flow an acting flow awaits or starts is walked in place.
//!
//! A flow that never acts governs nothing: a tool only it calls is named in a warning
//! ([`NOT_GOVERNED`]), and the check's permissive default (QG004) applies to it.

pub mod cond;
pub mod config;
pub mod file_gates;
pub mod library;
pub mod names;
pub mod outline;
pub mod paths;
mod walk_sheet;
mod walk_v1;
mod walk_v2;

use std::collections::{BTreeMap, BTreeSet};

use serde_json::Value;
use stalwart_db::{Db, SourceFile};
use stalwart_diagnostics::{Code, Diagnostic, Span};
use stalwart_syntax::Dialect;
use stalwart_syntax::v1::ast as v1;
use stalwart_syntax::v2::ast as v2;

use crate::rulebook::RulebookModule;
use config::NemoConfig;
use paths::{Gates, Path};
pub use walk_sheet::sheet_gates;

/// A tool a rulebook calls only from flows that never act.
pub const NOT_GOVERNED: Code = Code {
    id: "W1613",
    slug: "tool-not-governed",
};
/// A rail of the config lists a flow that no file and no library module defines.
pub const UNKNOWN_RAIL_FLOW: Code = Code {
    id: "E1614",
    slug: "rail-flow-undefined",
};
/// A 2.x `import` that names no file of the rulebook and no library module.
pub const UNRESOLVED_IMPORT: Code = Code {
    id: "E1615",
    slug: "import-unresolved",
};
/// The rulebook's files are in two Colang versions.
pub const MIXED_DIALECTS: Code = Code {
    id: "E1616",
    slug: "mixed-colang-dialects",
};
/// A rulebook with nothing in it.
pub const EMPTY_RULEBOOK: Code = Code {
    id: "W1617",
    slug: "empty-rulebook",
};

/// The files of one rulebook: its rule files (`.co`, sheets) and its config files, sorted by
/// path. `folder`: whether it was named as a folder (a NeMo config).
#[salsa::interned(debug)]
pub struct RulebookSet<'db> {
    #[returns(ref)]
    pub files: Vec<SourceFile>,
    #[returns(ref)]
    pub configs: Vec<SourceFile>,
    pub folder: bool,
}

/// What a rulebook is, once read whole.
#[derive(Debug, Clone, PartialEq)]
pub struct RulebookModel {
    /// `None` for a rule sheet.
    pub dialect: Option<Dialect>,
    pub config: NemoConfig,
    pub gates: Gates,
    /// Every flow of the rulebook's files: name, where its name is written, and whether it acts.
    pub flows: Vec<FlowInfo>,
    /// Actions called from flows that never act: (tool, where, the flow).
    pub inactive_calls: Vec<(String, Span, String)>,
    /// The intents the rulebook defines, with their examples, in file order (1.0 `define user`,
    /// 2.x `flow user …` with `user said "…"` lines).
    pub intents: Vec<(String, Vec<String>)>,
    /// Every diagnostic of the files, the config and the model.
    pub diagnostics: Vec<Diagnostic>,
}

/// A flow of the rulebook.
#[derive(Debug, Clone, PartialEq)]
pub struct FlowInfo {
    pub name: String,
    pub span: Span,
    pub acts: bool,
    /// A 1.0 subflow.
    pub subflow: bool,
}

/// The rulebook agent.yaml names (a file, or a folder), if it names one that exists.
#[salsa::tracked(returns(copy))]
pub fn agent_rulebook_set<'db>(db: &'db dyn Db, file: SourceFile) -> Option<RulebookSet<'db>> {
    let parsed = crate::agent::parse_agent_file(db, file);
    let path = parsed.value.rulebook.as_ref()?;
    rulebook_set_at(db, file, &path.value)
}

/// The rulebook at `path`, written inside `from`: a file (with a `config.yml`/`config.yaml`
/// beside it as its config), or a folder (every `.co` file and YAML file under it, but those
/// under `kb/`, which NeMo reads as documents).
pub fn rulebook_set_at<'db>(
    db: &'db dyn Db,
    from: SourceFile,
    path: &str,
) -> Option<RulebookSet<'db>> {
    if let Some(file) = db.resolve(from, path) {
        let dir = path.rsplit_once('/').map_or("", |(d, _)| d);
        let beside = |name: &str| {
            let p = if dir.is_empty() {
                name.to_string()
            } else {
                format!("{dir}/{name}")
            };
            db.resolve(from, &p)
        };
        let configs: Vec<SourceFile> = beside("config.yml")
            .or_else(|| beside("config.yaml"))
            .into_iter()
            .collect();
        return Some(RulebookSet::new(db, vec![file], configs, false));
    }
    let listed = db.list_tree(from, path)?;
    let mut files = Vec::new();
    let mut configs = Vec::new();
    for rel in listed {
        if rel.starts_with("kb/") {
            continue;
        }
        let full = format!("{}/{rel}", path.trim_end_matches('/'));
        if rel.ends_with(".co") {
            files.extend(db.resolve(from, &full));
        } else if rel.ends_with(".yml") || rel.ends_with(".yaml") {
            configs.extend(db.resolve(from, &full));
        }
    }
    Some(RulebookSet::new(db, files, configs, true))
}

/// Parses a rule file in the dialect the rulebook gives it. `no_eq`: trees are cheap to
/// rebuild.
#[salsa::tracked(returns(ref), no_eq)]
pub fn parse_rulebook_as(
    db: &dyn Db,
    file: SourceFile,
    dialect: Dialect,
) -> crate::rulebook::RulebookParse {
    if crate::sheet::is_sheet_path(file.path(db)) {
        return crate::rulebook::parse_rulebook(db, file).clone();
    }
    match dialect {
        Dialect::V1 => {
            let parse = stalwart_syntax::parse_v1(file.id(db), file.text(db));
            crate::rulebook::RulebookParse {
                dialect,
                module: RulebookModule::V1(parse.value),
                diagnostics: parse.diagnostics,
            }
        }
        Dialect::V2 => {
            let parse = stalwart_syntax::v2::parse_v2(file.id(db), file.text(db));
            crate::rulebook::RulebookParse {
                dialect,
                module: RulebookModule::V2(parse.value),
                diagnostics: parse.diagnostics,
            }
        }
    }
}

/// The config of a rulebook: its YAML files read and joined.
#[salsa::tracked(returns(ref))]
pub fn rulebook_config<'db>(db: &'db dyn Db, set: RulebookSet<'db>) -> NemoConfig {
    let mut parsed = Vec::new();
    for file in set.configs(db) {
        let p = stalwart_agent::parse_yaml_node(file.id(db), file.text(db));
        if let Some(node) = p.value {
            parsed.push((node, p.diagnostics));
        }
    }
    config::read_config(&parsed)
}

/// The dialect of each rule file: the config's `colang_version`, else the file's own (detected
/// as the reference detects it); `None` for a rule sheet.
pub(crate) fn file_dialect(db: &dyn Db, file: SourceFile, config: &NemoConfig) -> Option<Dialect> {
    if crate::sheet::is_sheet_path(file.path(db)) {
        return None;
    }
    Some(if config.version_given {
        config.dialect
    } else {
        crate::rulebook::rulebook_dialect(db, file)
    })
}

/// The model of a rulebook (see the module's documentation). `no_eq`: it holds trees' spans
/// and conditions, rebuilt whenever a file of the set changes.
#[salsa::tracked(returns(ref), no_eq)]
pub fn rulebook_model<'db>(db: &'db dyn Db, set: RulebookSet<'db>) -> RulebookModel {
    let config = rulebook_config(db, set).clone();
    let files = set.files(db);
    let mut dialects: Vec<(Option<Dialect>, SourceFile)> = files
        .iter()
        .map(|&f| (file_dialect(db, f, &config), f))
        .collect();
    dialects.sort_by_key(|(_, f)| f.path(db).clone());
    let sheets: Vec<SourceFile> = dialects
        .iter()
        .filter(|(d, _)| d.is_none())
        .map(|(_, f)| *f)
        .collect();
    let dialect = outline::rulebook_outline(db, set).dialect;
    let mut model = RulebookModel {
        dialect,
        config: config.clone(),
        gates: Gates::default(),
        flows: Vec::new(),
        inactive_calls: Vec::new(),
        intents: Vec::new(),
        // The config's, the files' and the outline's, as their own queries give them.
        diagnostics: outline::rulebook_diagnostics(db, set).clone(),
    };
    let parses: Vec<(SourceFile, &crate::rulebook::RulebookParse)> = dialects
        .iter()
        .map(|(d, f)| (*f, parse_rulebook_as(db, *f, d.unwrap_or(Dialect::V1))))
        .collect();
    let library_actions = &library::library().actions;
    match dialect {
        Some(Dialect::V1) => {
            let modules: Vec<&v1::Module> = parses
                .iter()
                .filter_map(|(_, p)| match &p.module {
                    RulebookModule::V1(m) => Some(m),
                    _ => None,
                })
                .collect();
            model_v1(&modules, &config, library_actions, &mut model);
        }
        Some(Dialect::V2) => {
            let modules: Vec<(&v2::Module, &str)> = parses
                .iter()
                .filter_map(|(f, p)| match &p.module {
                    RulebookModule::V2(m) => Some((m, f.text(db).as_str())),
                    _ => None,
                })
                .collect();
            let acting = file_gates::acting_v2(db, set).as_ref();
            model_v2(&modules, &config, library_actions, acting, &mut model);
        }
        None => {}
    }
    for (f, p) in &parses {
        if let RulebookModule::Sheet(sheet) = &p.module
            && sheets.contains(f)
        {
            let g = walk_sheet::sheet_gates(sheet, &config.value);
            merge(&mut model.gates, g);
        }
    }
    // The gate's own diagnostics (`rulebook_unsupported`, conditions possibly taken) stay with
    // the gates: lowering reports them, and the proof reads the errors as QG005.
    model
}

/// The file is in another Colang version than the rulebook's first.
fn mixed_dialects(db: &dyn Db, file: SourceFile, other: Dialect, first: Dialect) -> Diagnostic {
    Diagnostic::error(
        MIXED_DIALECTS,
        Span::new(file.id(db), 0, 0),
        format!(
            "this file is Colang {}, the rulebook's first is Colang {}",
            dialect_word(other),
            dialect_word(first)
        ),
    )
    .with_help("set `colang_version` in the config, or keep one dialect per rulebook")
}

/// The rulebook defines nothing (reported at its first file).
fn empty_rulebook(db: &dyn Db, first: SourceFile) -> Diagnostic {
    let at = Span::new(first.id(db), 0, 0);
    let message = format!(
        "the rulebook `{}` defines nothing: it governs no tool",
        first.name(db)
    );
    Diagnostic::warning(EMPTY_RULEBOOK, at, message)
        .with_label("no flow, intent or rule")
        .with_note("it governs no tool: the check's other steps decide every call")
}

fn dialect_word(d: Dialect) -> &'static str {
    match d {
        Dialect::V1 => "1.0",
        Dialect::V2 => "2.x",
    }
}

fn merge(into: &mut Gates, more: Gates) {
    into.rules.extend(more.rules);
    for (tool, flows) in more.governing {
        let entry = into.governing.entry(tool).or_default();
        for f in flows {
            if !entry.contains(&f) {
                entry.push(f);
            }
        }
    }
    if more.default.is_some() {
        into.default = more.default;
    }
    into.diagnostics.extend(more.diagnostics);
    into.said.extend(more.said);
}

/// Drops the calls of actions NeMo Guardrails runs itself: they are not tools.
fn keep_tools(paths: &mut [Path], library_actions: &BTreeSet<String>) {
    for p in paths {
        p.calls.retain(|(t, _)| !library_actions.contains(t));
    }
}

fn model_v1(
    modules: &[&v1::Module],
    config: &NemoConfig,
    library_actions: &BTreeSet<String>,
    model: &mut RulebookModel,
) {
    let mut flows: BTreeMap<&str, &v1::FlowDef> = BTreeMap::new();
    for m in modules {
        for item in &m.items {
            match item {
                v1::Item::Flow(f) => {
                    flows.entry(f.id.as_str()).or_insert(f);
                }
                v1::Item::User(u) => model
                    .intents
                    .push((u.name.text.to_string(), v1_examples(u))),
                _ => {}
            }
        }
    }
    let rails: BTreeSet<&str> = config.rails.iter().map(|(_, f, _)| f.as_str()).collect();
    let walker = walk_v1::Walker {
        flows: &flows,
        config: &config.value,
        tools: None,
        library_actions,
    };
    for m in modules {
        for item in &m.items {
            let v1::Item::Flow(flow) = item else { continue };
            let acts = !flow.subflow || rails.contains(flow.id.as_str());
            model.flows.push(FlowInfo {
                name: flow.id.to_string(),
                span: flow.name.as_ref().map_or(flow.header, |n| n.span),
                acts,
                subflow: flow.subflow,
            });
            let mut paths = walker.flow_paths(flow);
            keep_tools(&mut paths, library_actions);
            if acts {
                paths::add_flow(&mut model.gates, &flow.id, paths);
            } else {
                note_inactive(model, &flow.id, &paths);
            }
        }
    }
}

fn model_v2(
    modules: &[(&v2::Module, &str)],
    config: &NemoConfig,
    library_actions: &BTreeSet<String>,
    acting: Option<&BTreeSet<String>>,
    model: &mut RulebookModel,
) {
    let mut flows: BTreeMap<&str, walk_v2::FlowIn<'_>> = BTreeMap::new();
    let mut order: Vec<walk_v2::FlowIn<'_>> = Vec::new();
    for (m, text) in modules {
        for item in &m.items {
            if let v2::Item::Flow(f) = item {
                let at = walk_v2::FlowIn { flow: f, text };
                flows.entry(f.name.as_str()).or_insert(at);
                order.push(at);
                if let Some(intent) = f.name.strip_prefix("user ") {
                    model
                        .intents
                        .push((intent.to_string(), user_examples(f, text)));
                }
            }
        }
    }
    let walker = walk_v2::Walker {
        flows: &flows,
        config: &config.value,
        tools: None,
        library_actions,
    };
    for at in &order {
        let name = at.flow.name.as_str();
        if walk_v2::is_message_flow(name) {
            continue;
        }
        let acts = acting.is_none_or(|a| a.contains(name));
        model.flows.push(FlowInfo {
            name: name.to_string(),
            span: at.flow.name_span,
            acts,
            subflow: false,
        });
        let mut paths = walker.flow_paths(*at);
        keep_tools(&mut paths, library_actions);
        if acts {
            paths::add_flow(&mut model.gates, name, paths);
        } else {
            note_inactive(model, name, &paths);
        }
    }
}

/// The flows a body activates, awaits or starts (anywhere in it): all run when it does.
fn activated(body: &[v2::Stmt]) -> Vec<&str> {
    let mut out = Vec::new();
    let mut stack: Vec<&[v2::Stmt]> = vec![body];
    while let Some(stmts) = stack.pop() {
        for s in stmts {
            if let v2::StmtKind::Spec { op, expr, .. } = &s.kind
                && matches!(
                    op,
                    v2::SpecOp::Activate | v2::SpecOp::Await | v2::SpecOp::Start
                )
            {
                spec_names(expr, &mut out);
            }
            stack.extend(crate::checks::v2_bodies(&s.kind));
        }
    }
    out
}

fn spec_names<'a>(expr: &'a v2::SpecExpr, out: &mut Vec<&'a str>) {
    match expr {
        v2::SpecExpr::Spec(spec) => {
            if let v2::SpecTarget::Name { name, .. } = &spec.target {
                out.push(name.as_str());
            }
        }
        v2::SpecExpr::And(items, _) | v2::SpecExpr::Or(items, _) => {
            for i in items.iter() {
                spec_names(i, out);
            }
        }
    }
}

/// The examples of a 1.0 `define user`: its quoted lines, without the quotes.
fn v1_examples(u: &v1::UserDef) -> Vec<String> {
    u.lines
        .iter()
        .filter_map(|l| match l {
            v1::MessageLine::Text(t) => {
                let t = t.text.trim();
                t.strip_prefix('"')
                    .and_then(|r| r.strip_suffix('"'))
                    .map(str::to_string)
            }
            v1::MessageLine::Branch(_) => None,
        })
        .collect()
}

/// The examples of a 2.x intent flow: the texts of its `user said "…"` lines.
fn user_examples(flow: &v2::Flow, text: &str) -> Vec<String> {
    let mut out = Vec::new();
    for s in &flow.body {
        let v2::StmtKind::Spec { expr, .. } = &s.kind else {
            continue;
        };
        let mut names = Vec::new();
        spec_names(expr, &mut names);
        if names.iter().any(|n| n.starts_with("user said")) {
            let line = text
                .get(s.span.start as usize..s.span.end as usize)
                .unwrap_or("");
            for part in line.split('"').skip(1).step_by(2) {
                out.push(part.to_string());
            }
        }
    }
    out
}

/// Notes the calls of a flow that never acts.
fn note_inactive(model: &mut RulebookModel, flow: &str, paths: &[Path]) {
    for p in paths {
        for (tool, span) in &p.calls {
            if !model
                .inactive_calls
                .iter()
                .any(|(t, s, _)| t == tool && s == span)
            {
                model
                    .inactive_calls
                    .push((tool.clone(), *span, flow.to_string()));
            }
        }
    }
}

/// Every flow a rail lists must be defined somewhere.
fn check_rails(config: &NemoConfig, defined: impl Fn(&str) -> bool) -> Vec<Diagnostic> {
    let mut out = Vec::new();
    for (rail, flow, span) in &config.rails {
        if !defined(flow) {
            out.push(
                Diagnostic::error(
                    UNKNOWN_RAIL_FLOW,
                    *span,
                    format!("`rails.{rail}.flows` names `{flow}`, which nothing defines"),
                )
                .with_label("no file of the rulebook and no library module defines this flow"),
            );
        }
    }
    out
}

/// A 2.x `import` names a library module or a file of the rulebook.
fn check_imports(module: &v2::Module, folder: bool) -> Vec<Diagnostic> {
    let mut out = Vec::new();
    for item in &module.items {
        let v2::Item::Import(import) = item else {
            continue;
        };
        let path = import.path.trim_matches('"');
        if library::library().v2_module(path).is_some() {
            continue;
        }
        // A local module: in a config folder, its files are the folder's own, already read.
        if folder {
            continue;
        }
        out.push(
            Diagnostic::error(
                UNRESOLVED_IMPORT,
                import.span,
                format!("`import {}` names nothing", path.replace('/', ".")),
            )
            .with_label("no library module and no file of this rulebook")
            .with_help(format!(
                "the library's modules are {}; a rulebook of several files is a folder with a \
                 config.yml",
                library::library()
                    .v2_modules
                    .keys()
                    .filter(|k| !k.contains('/'))
                    .map(|k| format!("`{k}`"))
                    .collect::<Vec<_>>()
                    .join(", ")
            )),
        );
    }
    out
}

/// The gates a rulebook gives an agent whose catalogue declares `tools`: rules of actions
/// outside the catalogue are dropped (NeMo Guardrails runs them; the check never sees them), and
/// what such an action returns is something the check never has. Also the gate's diagnostics
/// (`rulebook_unsupported`, conditions possibly taken) and the warnings for the catalogue's tools
/// that only flows that never act call.
pub fn gates_for(
    model: &RulebookModel,
    tools: Option<&BTreeSet<String>>,
) -> (Gates, Vec<Diagnostic>) {
    let mut gates = model.gates.clone();
    let mut diagnostics = std::mem::take(&mut gates.diagnostics);
    if let Some(tools) = tools {
        gates.rules.retain(|r| tools.contains(&r.tool));
        gates.governing.retain(|t, _| tools.contains(t));
        let mut reported = BTreeSet::new();
        for rule in &mut gates.rules {
            for (cond, _) in &mut rule.conditions {
                outside_results(cond, tools, &mut |why, span| {
                    if reported.insert(span) {
                        diagnostics.push(possibly_taken(span, why));
                    }
                });
            }
        }
    }
    let governed: BTreeSet<&String> = gates.governing.keys().collect();
    let mut named = BTreeSet::new();
    for (tool, span, flow) in &model.inactive_calls {
        let is_tool = tools.is_none_or(|t| t.contains(tool));
        if is_tool && !governed.contains(tool) && named.insert(tool.clone()) {
            diagnostics.push(not_governed(tool, *span, flow));
        }
    }
    (gates, diagnostics)
}

/// A condition on a gate's path that reads what an action outside the catalogue returns.
fn possibly_taken(span: Span, why: String) -> Diagnostic {
    Diagnostic::warning(
        paths::POSSIBLY_TAKEN,
        span,
        format!("the check cannot evaluate this: {why}"),
    )
    .with_label("read as possibly true and possibly false")
    .with_note(
        "the path is treated as possibly taken, never as a proof of safety: a refusal or a \
         question on it always applies, and a tool call on it never passes the gate",
    )
    .with_help(cond::SUPPORTED)
}

/// A catalogue's tool that only flows that never act call.
fn not_governed(tool: &str, span: Span, flow: &str) -> Diagnostic {
    Diagnostic::warning(
        NOT_GOVERNED,
        span,
        format!("the rulebook names `{tool}` but does not govern it"),
    )
    .with_label(format!("only in `{flow}`, which never acts"))
    .with_note(
        "no flow that acts reaches this call, so no path of the rulebook decides `{tool}`: the \
         check's other steps decide it (QG004's permissive default)"
            .replace("{tool}", tool),
    )
    .with_help(
        "run the flow from one that acts (`do` in 1.0; `await`/`activate` from `main` in 2.x), \
         mark it `@active`, or list it in a rail of config.yml",
    )
}

/// Turns the results of actions outside the catalogue into unknowns, reporting each.
fn outside_results(
    cond: &mut cond::Cond,
    tools: &BTreeSet<String>,
    report: &mut impl FnMut(String, Span),
) {
    if let cond::CondKind::Result(tool) = &cond.kind
        && !tools.contains(tool)
    {
        let why = format!(
            "`{tool}` is an action outside the catalogue: what it returns never reaches the check"
        );
        report(why.clone(), cond.span);
        cond.kind = cond::CondKind::Unknown(why);
        return;
    }
    match &mut cond.kind {
        cond::CondKind::Member { base, .. } => outside_results(base, tools, report),
        cond::CondKind::Not(inner) => outside_results(inner, tools, report),
        cond::CondKind::IsNone { expr, .. } => outside_results(expr, tools, report),
        cond::CondKind::Logic { lhs, rhs, .. } | cond::CondKind::Compare { lhs, rhs, .. } => {
            outside_results(lhs, tools, report);
            outside_results(rhs, tools, report);
        }
        cond::CondKind::In {
            item, collection, ..
        } => {
            outside_results(item, tools, report);
            outside_results(collection, tools, report);
        }
        cond::CondKind::List(items) | cond::CondKind::Call { args: items, .. } => {
            for i in items {
                outside_results(i, tools, report);
            }
        }
        cond::CondKind::Method { receiver, args, .. } => {
            outside_results(receiver, tools, report);
            for a in args {
                outside_results(a, tools, report);
            }
        }
        _ => {}
    }
}

/// The tools the rulebook governs, and the catalogue's tools it does not, for reports.
pub fn coverage(gates: &Gates, tools: &BTreeSet<String>) -> (Vec<String>, Vec<String>) {
    let governed: Vec<String> = gates.governing.keys().cloned().collect();
    let not: Vec<String> = tools
        .iter()
        .filter(|t| !gates.governing.contains_key(*t))
        .cloned()
        .collect();
    (governed, not)
}

/// The config's joined value (for callers that read `$config` themselves).
pub fn config_value(model: &RulebookModel) -> &Value {
    &model.config.value
}
