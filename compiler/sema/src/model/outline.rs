//! A rulebook's queries per file, and the whole rulebook read from small summaries of its files.
//!
//! Each rule file has its own queries: [`rule_file_names`] (what it declares: names only, no
//! spans), [`rule_file_problems`] (its parse's diagnostics and its imports') and
//! [`check_rule_file`] (its semantic checks). What the whole rulebook needs of its files —
//! the dialect, the names every file sees, the empty rulebook, the rails' flows — is
//! [`rulebook_outline`], which reads only the summaries. An edit inside a flow's body leaves the
//! file's summary equal, so salsa backdates it and keeps the outline and every other file's
//! checks: such an edit re-runs the edited file's parse, summary, problems and checks only.

use std::collections::BTreeSet;

use stalwart_db::{Db, SourceFile};
use stalwart_diagnostics::Diagnostic;
use stalwart_syntax::Dialect;
use stalwart_syntax::v1::ast as v1;
use stalwart_syntax::v2::ast as v2;

use super::{RulebookSet, config::NemoConfig, file_dialect, library, rulebook_config};
use crate::checks::Known;
use crate::rulebook::RulebookModule;

/// What a rule file's module is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ModuleKind {
    #[default]
    V1,
    V2,
    Sheet,
}

/// What a rule file declares, as the rulebook's other files see it.
///
/// INVARIANT: names and flags only, never spans or bodies: an edit inside a flow's body (or one
/// that moves lines) gives an equal value, which is what lets salsa keep the queries that read it.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct FileNames {
    pub kind: ModuleKind,
    /// Its top-level flows: 1.0 flow ids, 2.x flow names (message flows included).
    pub flows: Vec<String>,
    /// 1.0 `define bot` names.
    pub messages: Vec<String>,
    /// It defines an intent (1.0 `define user`, 2.x `flow user …`).
    pub intents: bool,
    /// 2.x imports of the standard library's modules (the library's own keys).
    pub library_imports: Vec<String>,
    /// A 2.x import names no module of the standard library.
    pub local_import: bool,
    /// Its parse found an error.
    pub parse_error: bool,
}

/// What a module declares (see [`FileNames`]).
pub fn names_of(module: &RulebookModule, parse_error: bool) -> FileNames {
    let mut names = FileNames {
        parse_error,
        ..FileNames::default()
    };
    match module {
        RulebookModule::V1(m) => {
            names.kind = ModuleKind::V1;
            for item in &m.items {
                match item {
                    v1::Item::Flow(f) => names.flows.push(f.id.to_string()),
                    v1::Item::Bot(b) => names.messages.push(b.name.text.to_string()),
                    v1::Item::User(_) => names.intents = true,
                    _ => {}
                }
            }
        }
        RulebookModule::V2(m) => {
            names.kind = ModuleKind::V2;
            let library = library::library();
            for item in &m.items {
                match item {
                    v2::Item::Flow(f) => {
                        names.intents |= f.name.starts_with("user ");
                        names.flows.push(f.name.to_string());
                    }
                    v2::Item::Import(i) => {
                        let path = i.path.trim_matches('"');
                        match library.v2_modules.get_key_value(path) {
                            Some((k, _)) => names.library_imports.push(k.clone()),
                            None => names.local_import = true,
                        }
                    }
                    _ => {}
                }
            }
        }
        RulebookModule::Sheet(_) => names.kind = ModuleKind::Sheet,
    }
    names
}

/// What a rule file, parsed in `dialect`, declares.
#[salsa::tracked(returns(ref))]
pub fn rule_file_names(db: &dyn Db, file: SourceFile, dialect: Dialect) -> FileNames {
    let parse = super::parse_rulebook_as(db, file, dialect);
    names_of(
        &parse.module,
        parse.diagnostics.iter().any(Diagnostic::is_error),
    )
}

/// What the files of a rulebook define, with the standard library's modules they import.
/// `folder`: a NeMo config folder, whose local imports are its own files.
pub fn known_from<'a>(files: impl IntoIterator<Item = &'a FileNames>, folder: bool) -> Known {
    let library = library::library();
    let mut known = Known::default();
    let mut imported: BTreeSet<&str> = BTreeSet::new();
    for names in files {
        match names.kind {
            ModuleKind::V1 => {
                known.flows.extend(names.flows.iter().cloned());
                known.messages.extend(names.messages.iter().cloned());
            }
            ModuleKind::V2 => {
                known.flows.extend(names.flows.iter().cloned());
                imported.extend(names.library_imports.iter().map(String::as_str));
                known.opaque |= names.local_import && !folder;
            }
            ModuleKind::Sheet => {}
        }
    }
    let imported: BTreeSet<String> = library
        .v2_imports_closure(imported.iter().copied())
        .into_iter()
        .collect();
    for (module, flows) in &library.v2_modules {
        for f in flows {
            if imported.contains(module.as_str()) {
                known.flows.insert(f.name.clone());
            } else {
                known
                    .library_elsewhere
                    .entry(f.name.clone())
                    .or_insert_with(|| module.clone());
            }
        }
    }
    known
}

/// The whole rulebook as its files' summaries give it.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Outline {
    /// The dialect of the first Colang file by path; `None` when there is none.
    pub dialect: Option<Dialect>,
    /// What every file of the rulebook (and the standard library) defines, read in `dialect`.
    pub known: Known,
    /// The config's diagnostics and the mixed dialects' (before the files' parse diagnostics).
    pub head: Vec<Diagnostic>,
    /// The empty rulebook's warning (after the files' parse diagnostics).
    pub empty: Vec<Diagnostic>,
    /// The rails' flows nothing defines (after the imports').
    pub rails: Vec<Diagnostic>,
}

/// Each rule file with its own dialect (`None`: a rule sheet), sorted by path.
fn dialects(
    db: &dyn Db,
    set: RulebookSet<'_>,
    config: &NemoConfig,
) -> Vec<(Option<Dialect>, SourceFile)> {
    let mut dialects: Vec<(Option<Dialect>, SourceFile)> = set
        .files(db)
        .iter()
        .map(|&f| (file_dialect(db, f, config), f))
        .collect();
    dialects.sort_by_key(|(_, f)| f.path(db).clone());
    dialects
}

/// The rulebook's outline (see the module's documentation). Compared on each re-run: when no
/// file's names changed, what reads it is kept.
#[salsa::tracked(returns(ref))]
pub fn rulebook_outline<'db>(db: &'db dyn Db, set: RulebookSet<'db>) -> Outline {
    let config = rulebook_config(db, set);
    let mut head = config.diagnostics.clone();
    let dialects = dialects(db, set, config);
    let colang: Vec<(Dialect, SourceFile)> = dialects
        .iter()
        .filter_map(|(d, f)| Some(((*d)?, *f)))
        .collect();
    let dialect = colang.first().map(|(d, _)| *d);
    if let Some(first) = dialect
        && let Some((other, file)) = colang.iter().find(|(d, _)| *d != first)
    {
        head.push(super::mixed_dialects(db, *file, *other, first));
    }
    // The model's view: each file in its own dialect, the rulebook's dialect's modules only.
    let mut has_error = head.iter().any(Diagnostic::is_error);
    let mut defined: BTreeSet<&str> = BTreeSet::new();
    let (mut any_flow, mut any_intent, mut any_rule) = (false, false, false);
    for (d, f) in &dialects {
        let names = rule_file_names(db, *f, d.unwrap_or(Dialect::V1));
        has_error |= names.parse_error;
        let read = match (dialect, names.kind) {
            (Some(Dialect::V1), ModuleKind::V1) => true,
            (Some(Dialect::V2), ModuleKind::V2) => true,
            (_, ModuleKind::Sheet) => {
                // A sheet's rules are the gate's whatever the dialect.
                if d.is_none()
                    && let RulebookModule::Sheet(sheet) =
                        &super::parse_rulebook_as(db, *f, Dialect::V1).module
                {
                    any_rule |= !super::sheet_gates(sheet, &config.value).rules.is_empty();
                }
                false
            }
            _ => false,
        };
        if read {
            defined.extend(names.flows.iter().map(String::as_str));
            any_intent |= names.intents;
            any_flow |= match names.kind {
                ModuleKind::V2 => names
                    .flows
                    .iter()
                    .any(|n| !super::walk_v2::is_message_flow(n)),
                _ => !names.flows.is_empty(),
            };
        }
    }
    let mut empty = Vec::new();
    if !any_rule && !any_flow && !any_intent && !has_error {
        let first = set.files(db).first().or_else(|| set.configs(db).first());
        if let Some(first) = first {
            empty.push(super::empty_rulebook(db, *first));
        }
    }
    let rails = match dialect {
        Some(Dialect::V1) => super::check_rails(config, |name| {
            defined.contains(name) || library::library().v1_flows.contains(name)
        }),
        Some(Dialect::V2) => super::check_rails(config, |name| {
            defined.contains(name) || library::library().v2_flow_module(name).is_some()
        }),
        None => Vec::new(),
    };
    // The checks read every file in the rulebook's dialect.
    let in_dialect = dialect.unwrap_or(Dialect::V1);
    let files: Vec<&FileNames> = set
        .files(db)
        .iter()
        .map(|&f| rule_file_names(db, f, in_dialect))
        .collect();
    let known = known_from(files, *set.folder(db));
    Outline {
        dialect,
        known,
        head,
        empty,
        rails,
    }
}

/// The diagnostics of one rule file that no other file changes: its parse's (in its own
/// dialect) and, in a 2.x rulebook, its imports'.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct FileProblems {
    pub parse: Vec<Diagnostic>,
    pub imports: Vec<Diagnostic>,
}

/// One rule file's [`FileProblems`].
#[salsa::tracked(returns(ref))]
pub fn rule_file_problems<'db>(
    db: &'db dyn Db,
    set: RulebookSet<'db>,
    file: SourceFile,
) -> FileProblems {
    let config = rulebook_config(db, set);
    let dialect = file_dialect(db, file, config);
    let parse = super::parse_rulebook_as(db, file, dialect.unwrap_or(Dialect::V1));
    let imports = match (&parse.module, rulebook_outline(db, set).dialect) {
        (RulebookModule::V2(m), Some(Dialect::V2)) => super::check_imports(m, *set.folder(db)),
        _ => Vec::new(),
    };
    FileProblems {
        parse: parse.diagnostics.clone(),
        imports,
    }
}

/// The semantic checks of one rule file (E1600–E1699, and a sheet's `$args` check), in the
/// rulebook's dialect, against what every file of the rulebook defines ([`Outline::known`]);
/// `agent`: the agent.yaml whose catalogue and facts the checks read (`None`: a rulebook
/// compiled on its own, whose tools are not checked).
#[salsa::tracked(returns(ref))]
pub fn check_rule_file<'db>(
    db: &'db dyn Db,
    set: RulebookSet<'db>,
    file: SourceFile,
    agent: Option<SourceFile>,
) -> Vec<Diagnostic> {
    let outline = rulebook_outline(db, set);
    let dialect = outline.dialect.unwrap_or(Dialect::V1);
    let parsed = super::parse_rulebook_as(db, file, dialect);
    let no_inputs = crate::agent::RuleCheckInputs::default();
    let inputs = match agent {
        Some(agent) => crate::agent::rule_check_inputs(db, agent),
        None => &no_inputs,
    };
    let names = inputs.names.as_ref();
    match &parsed.module {
        RulebookModule::V1(m) => crate::checks::check_v1(m, names, &inputs.facts, &outline.known),
        RulebookModule::V2(m) => {
            crate::checks::check_v2(m, file.text(db), names, &inputs.facts, &outline.known)
        }
        RulebookModule::Sheet(sheet) => match &inputs.catalogue {
            Some(tools) => stalwart_syntax::sheet::check_sheet_arguments(sheet, tools),
            None => Vec::new(),
        },
    }
}

/// Every diagnostic of a rulebook's files, config and outline, in the model's order: the
/// config's and the mixed dialects', each file's parse's (by path), the empty rulebook's, each
/// file's imports', the rails'. Compared on each re-run: kept when no file's list changed.
#[salsa::tracked(returns(ref))]
pub fn rulebook_diagnostics<'db>(db: &'db dyn Db, set: RulebookSet<'db>) -> Vec<Diagnostic> {
    let outline = rulebook_outline(db, set);
    let config = rulebook_config(db, set);
    let problems: Vec<&FileProblems> = dialects(db, set, config)
        .iter()
        .map(|(_, f)| rule_file_problems(db, set, *f))
        .collect();
    let mut out = outline.head.clone();
    for p in &problems {
        out.extend(p.parse.iter().cloned());
    }
    out.extend(outline.empty.iter().cloned());
    for p in &problems {
        out.extend(p.imports.iter().cloned());
    }
    out.extend(outline.rails.iter().cloned());
    out
}
