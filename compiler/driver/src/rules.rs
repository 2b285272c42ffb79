//! `stalwart rules compile` and `stalwart rules inspect`: rulebooks on their own.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use stalwart_diagnostics::{Diagnostic, Files, Span};
use stalwart_record::{RecordBody, RecordKind, Source, SourceSpan, Tool};
use stalwart_sema::{RulebookModule, parse_rulebook};
use stalwart_syntax::Dialect;

use crate::compile::{CompileOutcome, UNREADABLE_INPUT, write_record_body};
use crate::database::{Database, FileLoader};

/// The facts of one rulebook file, as `stalwart rules inspect` prints them.
#[derive(Debug)]
pub struct Inspected {
    pub file: PathBuf,
    pub facts: serde_json::Value,
    pub diagnostics: Vec<Diagnostic>,
    pub files: Files,
}

/// Parses each file in its dialect (`forced`, else `colang_version` in a sibling `config.yml`,
/// else detected as the reference package does) and returns its facts.
pub fn inspect_rules(
    loader: Arc<dyn FileLoader>,
    paths: &[PathBuf],
    forced: Option<Dialect>,
) -> Result<Vec<Inspected>, String> {
    let mut out = Vec::new();
    for path in paths {
        let Some((db, file)) = Database::open(loader.clone(), path) else {
            return Err(format!("cannot read `{}`", path.display()));
        };
        let (facts, diagnostics) = match forced {
            Some(Dialect::V1) => {
                let p = stalwart_syntax::parse_v1(file.id(&db), file.text(&db));
                (stalwart_syntax::inspect_v1(&p.value), p.diagnostics)
            }
            Some(Dialect::V2) => {
                let p = stalwart_syntax::v2::parse_v2(file.id(&db), file.text(&db));
                (stalwart_syntax::v2::inspect_v2(&p.value), p.diagnostics)
            }
            None => {
                let parsed = parse_rulebook(&db, file);
                let facts = match &parsed.module {
                    RulebookModule::V1(m) => stalwart_syntax::inspect_v1(m),
                    RulebookModule::V2(m) => stalwart_syntax::v2::inspect_v2(m),
                    RulebookModule::Sheet(sheet) => inspect_sheet(sheet),
                };
                (facts, parsed.diagnostics.clone())
            }
        };
        out.push(Inspected {
            file: path.clone(),
            facts,
            diagnostics,
            files: db.files(),
        });
    }
    Ok(out)
}

/// Compiles a rulebook file on its own into a record folder: one entry per governed tool,
/// carrying its gate (the catalogue joins it when an agent is compiled).
pub fn compile_rules(loader: Arc<dyn FileLoader>, path: &Path, out: &Path) -> CompileOutcome {
    let Some((db, file)) = Database::open(loader, path) else {
        return CompileOutcome {
            diagnostics: Vec::new(),
            files: Files::new(),
            written: None,
            fatal: Some(format!("cannot read `{}`", path.display())),
        };
    };
    let parsed = parse_rulebook(&db, file);
    let mut diagnostics = parsed.diagnostics.clone();
    diagnostics.extend(stalwart_sema::rulebook::check_rulebook(
        &db,
        file,
        None,
        &Default::default(),
    ));
    let gates = match &parsed.module {
        RulebookModule::V1(module) => stalwart_lower::gate::lower_v1(module),
        RulebookModule::V2(module) => stalwart_lower::gate_v2::lower_v2(module, file.text(&db)),
        RulebookModule::Sheet(sheet) => stalwart_lower::gate_sheet::lower_sheet(sheet),
    };
    diagnostics.extend(gates.diagnostics.iter().cloned());
    if diagnostics.iter().any(Diagnostic::is_error) {
        stalwart_diagnostics::sort(&mut diagnostics);
        return CompileOutcome {
            diagnostics,
            files: db.files(),
            written: None,
            fatal: None,
        };
    }
    let text = file.text(&db).clone();
    let mut body = RecordBody {
        kind: RecordKind::Rulebook,
        sources: vec![Source {
            path: file.path(&db).clone(),
            digest: blake3::hash(text.as_bytes()).to_hex().to_string(),
        }],
        ..Default::default()
    };
    for tool in gates.governing.keys() {
        body.tools.push(Tool {
            name: tool.clone(),
            ..Default::default()
        });
    }
    if let RulebookModule::V1(module) = &parsed.module {
        body.intents = intents(module);
    }
    let line = |offset: u32| {
        text.as_bytes()
            .iter()
            .take(offset as usize)
            .filter(|&&b| b == b'\n')
            .count() as u32
            + 1
    };
    let span_of = |s: Span| SourceSpan {
        source: 0,
        start: s.start,
        end: s.end,
        line: line(s.start),
    };
    diagnostics.extend(stalwart_lower::gate::attach(&mut body, &gates, &span_of));
    match write_record_body(&body, out) {
        Ok(written) => CompileOutcome {
            diagnostics,
            files: db.files(),
            written: Some(written),
            fatal: None,
        },
        Err(e) => {
            diagnostics.push(Diagnostic::error(
                UNREADABLE_INPUT,
                Span::new(file.id(&db), 0, 0),
                e,
            ));
            CompileOutcome {
                diagnostics,
                files: db.files(),
                written: None,
                fatal: None,
            }
        }
    }
}

fn intents(module: &stalwart_syntax::v1::ast::Module) -> Vec<String> {
    let mut names: Vec<String> = module
        .items
        .iter()
        .filter_map(|i| match i {
            stalwart_syntax::v1::ast::Item::User(u) => Some(u.name.text.to_string()),
            _ => None,
        })
        .collect();
    names.sort();
    names.dedup();
    names
}

/// A rule sheet's facts: its rows as written, and its default.
fn inspect_sheet(sheet: &stalwart_syntax::sheet::ast::Sheet) -> serde_json::Value {
    serde_json::json!({
        "version": "sheet",
        "default": match sheet.default_decision() {
            stalwart_syntax::sheet::ast::SheetDefault::Allow => "allow",
            stalwart_syntax::sheet::ast::SheetDefault::Refuse => "refuse",
        },
        "rules": sheet.rows.iter().map(|r| serde_json::json!({
            "rule": r.rule.text, "tool": r.tool.text, "when": r.when_cell.text,
            "then": r.then_cell.text, "say": r.say.text,
        })).collect::<Vec<_>>(),
    })
}
