//! Rulebooks as queries: the dialect (from a sibling `config.yml`, else detected as the
//! reference package does), and the parse.

use stalwart_db::{Db, SourceFile};
use stalwart_diagnostics::Diagnostic;
use stalwart_syntax::Dialect;

/// A rulebook file's module in its dialect.
#[derive(Debug, Clone, PartialEq)]
pub enum RulebookModule {
    V1(stalwart_syntax::v1::ast::Module),
    V2(stalwart_syntax::v2::ast::Module),
    /// A rule sheet (`*.csv`, `*.rules.yaml`).
    Sheet(stalwart_syntax::sheet::ast::Sheet),
}

/// A parsed rulebook file.
#[derive(Debug, Clone, PartialEq)]
pub struct RulebookParse {
    pub dialect: Dialect,
    pub module: RulebookModule,
    pub diagnostics: Vec<Diagnostic>,
}

/// The dialect of a rulebook file: `colang_version` in `config.yml` beside it, else detected.
#[salsa::tracked(returns(copy))]
pub fn rulebook_dialect(db: &dyn Db, file: SourceFile) -> Dialect {
    db.resolve(file, "config.yml")
        .and_then(|config| stalwart_syntax::dialect_from_config(config.text(db)))
        .unwrap_or_else(|| stalwart_syntax::detect_dialect(file.text(db)))
}

/// Parses a rulebook file in its dialect. `no_eq`: trees are cheap to rebuild.
#[salsa::tracked(returns(ref), no_eq)]
pub fn parse_rulebook(db: &dyn Db, file: SourceFile) -> RulebookParse {
    if crate::sheet::is_sheet_path(file.path(db)) {
        let parse = crate::sheet::parse_sheet(file.id(db), file.path(db), file.text(db));
        return RulebookParse {
            dialect: Dialect::V1,
            module: RulebookModule::Sheet(parse.value),
            diagnostics: parse.diagnostics,
        };
    }
    let dialect = rulebook_dialect(db, file);
    match dialect {
        Dialect::V1 => {
            let parse = stalwart_syntax::parse_v1(file.id(db), file.text(db));
            RulebookParse {
                dialect,
                module: RulebookModule::V1(parse.value),
                diagnostics: parse.diagnostics,
            }
        }
        Dialect::V2 => {
            let parse = stalwart_syntax::v2::parse_v2(file.id(db), file.text(db));
            RulebookParse {
                dialect,
                module: RulebookModule::V2(parse.value),
                diagnostics: parse.diagnostics,
            }
        }
    }
}

/// The semantic checks of a rulebook's files (E1600–E1699, and a sheet's `$args` check), given
/// the catalogue's tools with their argument names when compiled with an agent, and the facts
/// agent.yaml declares. Each file's names are checked against what every file of the rulebook
/// and the standard library define.
pub fn check_rulebook_set(
    db: &dyn Db,
    set: crate::model::RulebookSet<'_>,
    catalogue: Option<&std::collections::BTreeMap<String, std::collections::BTreeSet<String>>>,
    facts: &std::collections::BTreeSet<String>,
) -> Vec<Diagnostic> {
    let names: Option<std::collections::BTreeSet<String>> =
        catalogue.map(|c| c.keys().cloned().collect());
    let model = crate::model::rulebook_model(db, set);
    let dialect = model.dialect.unwrap_or(Dialect::V1);
    let parses: Vec<(SourceFile, &RulebookParse)> = set
        .files(db)
        .iter()
        .map(|&f| (f, crate::model::parse_rulebook_as(db, f, dialect)))
        .collect();
    let modules: Vec<&RulebookModule> = parses.iter().map(|(_, p)| &p.module).collect();
    let known = known_names(&modules, *set.folder(db));
    let mut out = Vec::new();
    for (file, parsed) in &parses {
        out.extend(match &parsed.module {
            RulebookModule::V1(m) => crate::checks::check_v1(m, names.as_ref(), facts, &known),
            RulebookModule::V2(m) => {
                crate::checks::check_v2(m, file.text(db), names.as_ref(), facts, &known)
            }
            RulebookModule::Sheet(sheet) => match catalogue {
                Some(tools) => stalwart_syntax::sheet::check_sheet_arguments(sheet, tools),
                None => Vec::new(),
            },
        });
    }
    out
}

/// What the files of a rulebook define, with the standard library's modules they import.
/// `folder`: a NeMo config folder, whose local imports are its own files.
pub fn known_names(modules: &[&RulebookModule], folder: bool) -> crate::checks::Known {
    use stalwart_syntax::v1::ast as v1;
    use stalwart_syntax::v2::ast as v2;
    let library = crate::model::library::library();
    let mut known = crate::checks::Known::default();
    let mut imported: std::collections::BTreeSet<&str> = std::collections::BTreeSet::new();
    for module in modules {
        match module {
            RulebookModule::V1(m) => {
                for item in &m.items {
                    match item {
                        v1::Item::Flow(f) => {
                            known.flows.insert(f.id.to_string());
                        }
                        v1::Item::Bot(b) => {
                            known.messages.insert(b.name.text.to_string());
                        }
                        _ => {}
                    }
                }
            }
            RulebookModule::V2(m) => {
                for item in &m.items {
                    match item {
                        v2::Item::Flow(f) => {
                            known.flows.insert(f.name.to_string());
                        }
                        v2::Item::Import(i) => {
                            let path = i.path.trim_matches('"');
                            match library.v2_modules.get_key_value(path) {
                                Some((k, _)) => {
                                    imported.insert(k.as_str());
                                }
                                None => known.opaque |= !folder,
                            }
                        }
                        _ => {}
                    }
                }
            }
            RulebookModule::Sheet(_) => {}
        }
    }
    let imported: std::collections::BTreeSet<String> = library
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

/// The flows a rulebook file defines or runs, with where, in source order (none for a rule
/// sheet, which has rows rather than flows).
pub fn used_flows(db: &dyn Db, file: SourceFile) -> Vec<(String, stalwart_diagnostics::Span)> {
    match &parse_rulebook(db, file).module {
        RulebookModule::V1(m) => crate::checks::used_flows_v1(m),
        RulebookModule::V2(m) => crate::checks::used_flows_v2(m),
        RulebookModule::Sheet(_) => Vec::new(),
    }
}
