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

/// The semantic checks of a rulebook's files (E1600–E1699, and a sheet's `$args` check), each
/// file's its own query ([`crate::model::outline::check_rule_file`]); `agent`: the agent.yaml
/// whose catalogue (tools with their argument names) and facts they read, `None` for a rulebook
/// compiled on its own. Each file's names are checked against what every file of the rulebook
/// and the standard library define.
pub fn check_rulebook_set(
    db: &dyn Db,
    set: crate::model::RulebookSet<'_>,
    agent: Option<SourceFile>,
) -> Vec<Diagnostic> {
    rulebook_checks(db, set, agent).clone()
}

/// [`check_rulebook_set`] as a query. Compared on each re-run: kept when no file's checks
/// changed.
#[salsa::tracked(returns(ref))]
pub fn rulebook_checks<'db>(
    db: &'db dyn Db,
    set: crate::model::RulebookSet<'db>,
    agent: Option<SourceFile>,
) -> Vec<Diagnostic> {
    let mut out = Vec::new();
    for &file in set.files(db) {
        out.extend(
            crate::model::outline::check_rule_file(db, set, file, agent)
                .iter()
                .cloned(),
        );
    }
    out
}

/// What the files of a rulebook define, with the standard library's modules they import.
/// `folder`: a NeMo config folder, whose local imports are its own files.
pub fn known_names(modules: &[&RulebookModule], folder: bool) -> crate::checks::Known {
    let names: Vec<crate::model::outline::FileNames> = modules
        .iter()
        .map(|m| crate::model::outline::names_of(m, false))
        .collect();
    crate::model::outline::known_from(&names, folder)
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
