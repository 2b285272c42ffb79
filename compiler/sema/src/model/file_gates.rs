//! The gate's diagnostics file by file: what lowering reports of a rulebook's gate
//! ([`super::gates_for`] over the whole model), found without building the model.
//!
//! Each rule file's acting flows are walked by [`file_gates`], which reads another file only when
//! a walk runs one of its flows (through [`flow_index`], the first file defining each name); the
//! 2.x flows that act come from [`acting_v2`], built from each file's activations. Both are
//! compared on each re-run and stay equal when an edit inside a flow's body changes no name and
//! no activation. [`rulebook_gate_diagnostics`] joins the files' results as `gates_for` does:
//! conditions reading results outside the catalogue once per place, and the tools only flows
//! that never act call.

use std::collections::{BTreeMap, BTreeSet};

use stalwart_db::{Db, SourceFile};
use stalwart_diagnostics::{Diagnostic, Span};
use stalwart_syntax::Dialect;
use stalwart_syntax::v1::ast as v1;
use stalwart_syntax::v2::ast as v2;

use super::outline::{ModuleKind, rule_file_names, rulebook_outline};
use super::paths::{FlowTable, Gates, Path};
use super::{RulebookSet, file_dialect, library, parse_rulebook_as, rulebook_config, walk_v2};
use crate::rulebook::RulebookModule;

/// A 2.x flow as [`acting_v2`] reads it: its name, whether it is marked `@active`, and the flows
/// its body activates, awaits or starts.
pub type Activations = Vec<(String, bool, Vec<String>)>;

/// The activations of a rule file's top-level 2.x flows (none for another module).
#[salsa::tracked(returns(ref))]
pub fn rule_file_activations(db: &dyn Db, file: SourceFile, dialect: Dialect) -> Activations {
    let RulebookModule::V2(m) = &parse_rulebook_as(db, file, dialect).module else {
        return Vec::new();
    };
    m.items
        .iter()
        .filter_map(|item| match item {
            v2::Item::Flow(f) => Some((
                f.name.to_string(),
                f.decorators.iter().any(|d| d.name == "active"),
                super::activated(&f.body)
                    .into_iter()
                    .map(str::to_string)
                    .collect(),
            )),
            _ => None,
        })
        .collect()
}

/// The files of the rulebook whose module is in its dialect, each with its own dialect, sorted
/// by path (the model's order).
fn model_files(db: &dyn Db, set: RulebookSet<'_>) -> Vec<(Dialect, SourceFile)> {
    let config = rulebook_config(db, set);
    let Some(dialect) = rulebook_outline(db, set).dialect else {
        return Vec::new();
    };
    let kind = match dialect {
        Dialect::V1 => ModuleKind::V1,
        Dialect::V2 => ModuleKind::V2,
    };
    let mut files: Vec<(Dialect, SourceFile)> = set
        .files(db)
        .iter()
        .filter_map(|&f| {
            let d = file_dialect(db, f, config)?;
            (rule_file_names(db, f, d).kind == kind).then_some((d, f))
        })
        .collect();
    files.sort_by_key(|(_, f)| f.path(db).clone());
    files
}

/// The file that defines each flow first (the one a walk runs), with that file's dialect.
#[salsa::tracked(returns(ref))]
pub fn flow_index<'db>(
    db: &'db dyn Db,
    set: RulebookSet<'db>,
) -> BTreeMap<String, (Dialect, SourceFile)> {
    let mut index = BTreeMap::new();
    for (d, f) in model_files(db, set) {
        for name in &rule_file_names(db, f, d).flows {
            index.entry(name.clone()).or_insert((d, f));
        }
    }
    index
}

/// The 2.x flows that act (see the model's documentation); `None` when every flow does (no
/// `main`).
#[salsa::tracked(returns(ref))]
pub fn acting_v2<'db>(db: &'db dyn Db, set: RulebookSet<'db>) -> Option<BTreeSet<String>> {
    let files = model_files(db, set);
    let all: Vec<&(String, bool, Vec<String>)> = files
        .iter()
        .flat_map(|(d, f)| rule_file_activations(db, *f, *d).iter())
        .collect();
    // The first definition of each name is the one that runs.
    let mut first: BTreeMap<&str, &Vec<String>> = BTreeMap::new();
    for (name, _, runs) in &all {
        first.entry(name.as_str()).or_insert(runs);
    }
    if !first.contains_key("main") {
        return None;
    }
    let mut queue: Vec<&str> = vec!["main"];
    queue.extend(
        all.iter()
            .filter(|(_, active, _)| *active)
            .map(|(n, _, _)| n.as_str()),
    );
    for (_, rail_flow, _) in &rulebook_config(db, set).rails {
        if let Some((name, _)) = first.get_key_value(rail_flow.as_str()) {
            queue.push(name);
        }
    }
    let mut acting: BTreeSet<String> = BTreeSet::new();
    while let Some(name) = queue.pop() {
        if !acting.insert(name.to_string()) {
            continue;
        }
        if let Some(runs) = first.get(name) {
            for started in runs.iter() {
                if let Some((n, _)) = first.get_key_value(started.as_str()) {
                    queue.push(n);
                }
            }
        }
    }
    Some(acting)
}

/// Flows looked up by name through [`flow_index`]: a file is read when a walk runs its flow.
struct Indexed<'db> {
    db: &'db dyn Db,
    index: &'db BTreeMap<String, (Dialect, SourceFile)>,
}

impl<'db> Indexed<'db> {
    fn module(&self, name: &str) -> Option<(&'db RulebookModule, SourceFile)> {
        let (d, f) = self.index.get(name)?;
        Some((&parse_rulebook_as(self.db, *f, *d).module, *f))
    }
}

impl<'db> FlowTable<&'db v1::FlowDef> for Indexed<'db> {
    fn flow(&self, name: &str) -> Option<&'db v1::FlowDef> {
        let (RulebookModule::V1(m), _) = self.module(name)? else {
            return None;
        };
        m.items.iter().find_map(|i| match i {
            v1::Item::Flow(f) if f.id.as_str() == name => Some(f),
            _ => None,
        })
    }
}

impl<'db> FlowTable<walk_v2::FlowIn<'db>> for Indexed<'db> {
    fn flow(&self, name: &str) -> Option<walk_v2::FlowIn<'db>> {
        let (RulebookModule::V2(m), file) = self.module(name)? else {
            return None;
        };
        let text = file.text(self.db).as_str();
        m.items.iter().find_map(|i| match i {
            v2::Item::Flow(f) if f.name.as_str() == name => Some(walk_v2::FlowIn { flow: f, text }),
            _ => None,
        })
    }
}

/// What one rule file gives the gate's diagnostics for an agent whose catalogue declares
/// `tools` (see [`super::gates_for`]).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct FileGates {
    /// The gate's own diagnostics of the file's acting flows (and a sheet's).
    pub diagnostics: Vec<Diagnostic>,
    /// Conditions reading what an action outside the catalogue returns, once per place.
    pub outside: Vec<(Span, Diagnostic)>,
    /// The catalogue's tools the file's acting flows (or rows) govern.
    pub governed: BTreeSet<String>,
    /// Calls from the file's flows that never act: (tool, where, the flow), once per place.
    pub inactive: Vec<(String, Span, String)>,
}

/// The names of the tools agent.yaml's catalogue declares.
#[salsa::tracked(returns(ref))]
pub fn catalogue_tool_names(db: &dyn Db, agent: SourceFile) -> BTreeSet<String> {
    crate::agent::agent_catalogue(db, agent)
        .tools
        .iter()
        .map(|t| t.name.value.clone())
        .collect()
}

/// One rule file's [`FileGates`] for agent.yaml's catalogue.
#[salsa::tracked(returns(ref))]
pub fn file_gates<'db>(
    db: &'db dyn Db,
    set: RulebookSet<'db>,
    file: SourceFile,
    agent: SourceFile,
) -> FileGates {
    let tools = catalogue_tool_names(db, agent);
    let config = rulebook_config(db, set);
    let library_actions = &library::library().actions;
    let mut gates = Gates::default();
    let mut inactive: Vec<(String, Span, String)> = Vec::new();
    let mut note = |flow: &str, paths: &[Path]| {
        for p in paths {
            for (tool, span) in &p.calls {
                if !inactive.iter().any(|(t, s, _)| t == tool && s == span) {
                    inactive.push((tool.clone(), *span, flow.to_string()));
                }
            }
        }
    };
    let dialect = rulebook_outline(db, set).dialect;
    let own = file_dialect(db, file, config);
    let parse = parse_rulebook_as(db, file, own.unwrap_or(Dialect::V1));
    let index = Indexed {
        db,
        index: flow_index(db, set),
    };
    let rails: BTreeSet<&str> = config.rails.iter().map(|(_, f, _)| f.as_str()).collect();
    match (&parse.module, dialect) {
        (RulebookModule::V1(m), Some(Dialect::V1)) => {
            let walker = super::walk_v1::Walker {
                flows: &index,
                config: &config.value,
                tools: None,
                library_actions,
            };
            for item in &m.items {
                let v1::Item::Flow(flow) = item else { continue };
                let acts = !flow.subflow || rails.contains(flow.id.as_str());
                let mut paths = walker.flow_paths(flow);
                super::keep_tools(&mut paths, library_actions);
                if acts {
                    super::paths::add_flow(&mut gates, &flow.id, paths);
                } else {
                    note(&flow.id, &paths);
                }
            }
        }
        (RulebookModule::V2(m), Some(Dialect::V2)) => {
            let acting = acting_v2(db, set);
            let walker = walk_v2::Walker {
                flows: &index,
                config: &config.value,
                tools: None,
                library_actions,
            };
            let text = file.text(db).as_str();
            for item in &m.items {
                let v2::Item::Flow(flow) = item else { continue };
                let name = flow.name.as_str();
                if walk_v2::is_message_flow(name) {
                    continue;
                }
                let acts = acting.as_ref().is_none_or(|a| a.contains(name));
                let mut paths = walker.flow_paths(walk_v2::FlowIn { flow, text });
                super::keep_tools(&mut paths, library_actions);
                if acts {
                    super::paths::add_flow(&mut gates, name, paths);
                } else {
                    note(name, &paths);
                }
            }
        }
        (RulebookModule::Sheet(sheet), _) if own.is_none() => {
            gates = super::sheet_gates(sheet, &config.value);
        }
        _ => {}
    }
    let diagnostics = std::mem::take(&mut gates.diagnostics);
    gates.rules.retain(|r| tools.contains(&r.tool));
    let mut outside: Vec<(Span, Diagnostic)> = Vec::new();
    for rule in &mut gates.rules {
        for (cond, _) in &mut rule.conditions {
            super::outside_results(cond, tools, &mut |why, span| {
                if !outside.iter().any(|(s, _)| *s == span) {
                    outside.push((span, super::possibly_taken(span, why)));
                }
            });
        }
    }
    FileGates {
        diagnostics,
        outside,
        governed: gates
            .governing
            .into_keys()
            .filter(|t| tools.contains(t))
            .collect(),
        inactive,
    }
}

/// The gate's diagnostics for agent.yaml's catalogue: the same as
/// `gates_for(rulebook_model(set), Some(tools))` gives, joined from [`file_gates`].
#[salsa::tracked(returns(ref))]
pub fn rulebook_gate_diagnostics<'db>(
    db: &'db dyn Db,
    set: RulebookSet<'db>,
    agent: SourceFile,
) -> Vec<Diagnostic> {
    let tools = catalogue_tool_names(db, agent);
    let mut files: Vec<SourceFile> = set.files(db).clone();
    files.sort_by_key(|f| f.path(db).clone());
    let per_file: Vec<&FileGates> = files
        .iter()
        .map(|f| file_gates(db, set, *f, agent))
        .collect();
    let mut out: Vec<Diagnostic> = Vec::new();
    for g in &per_file {
        out.extend(g.diagnostics.iter().cloned());
    }
    let mut reported: BTreeSet<Span> = BTreeSet::new();
    let mut governed: BTreeSet<&String> = BTreeSet::new();
    let mut inactive: Vec<&(String, Span, String)> = Vec::new();
    for g in &per_file {
        for (span, d) in &g.outside {
            if reported.insert(*span) {
                out.push(d.clone());
            }
        }
        governed.extend(g.governed.iter());
        for call in &g.inactive {
            if !inactive
                .iter()
                .any(|(t, s, _)| *t == call.0 && *s == call.1)
            {
                inactive.push(call);
            }
        }
    }
    let mut named = BTreeSet::new();
    for (tool, span, flow) in inactive {
        if tools.contains(tool) && !governed.contains(tool) && named.insert(tool.clone()) {
            out.push(super::not_governed(tool, *span, flow));
        }
    }
    out
}
