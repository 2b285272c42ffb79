//! `stalwart rules compile` and `stalwart rules inspect`: rulebooks on their own.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use stalwart_db::SourceFile;
use stalwart_diagnostics::{Diagnostic, Files, Span};
use stalwart_record::{RecordBody, RecordKind, Source, SourceSpan, Tool};
use stalwart_sema::model::RulebookSet;
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

/// The rulebook the paths name, loaded into `db`: one folder (a NeMo config: its `.co` and YAML
/// files at any depth, but under `kb/`), or one or more files (with the `config.yml` or
/// `config.yaml` beside the first, if there is one). `None` when a path cannot be read.
pub fn load_rulebook<'db>(
    db: &'db Database,
    loader: &dyn FileLoader,
    paths: &[PathBuf],
) -> Result<RulebookSet<'db>, String> {
    if let [one] = paths
        && let Some(listed) = loader.list_tree(one)
    {
        let mut files = Vec::new();
        let mut configs = Vec::new();
        for rel in listed {
            if rel.starts_with("kb/") {
                continue;
            }
            let path = one.join(&rel);
            if rel.ends_with(".co") {
                files.push(db.load(&path).ok_or_else(|| unreadable(&path))?);
            } else if rel.ends_with(".yml") || rel.ends_with(".yaml") {
                configs.push(db.load(&path).ok_or_else(|| unreadable(&path))?);
            }
        }
        return Ok(RulebookSet::new(db, files, configs, true));
    }
    let mut files = Vec::new();
    for path in paths {
        files.push(db.load(path).ok_or_else(|| unreadable(path))?);
    }
    let dir = paths
        .first()
        .and_then(|p| p.parent())
        .map(Path::to_path_buf)
        .unwrap_or_default();
    let configs: Vec<SourceFile> = ["config.yml", "config.yaml"]
        .iter()
        .map(|n| dir.join(n))
        .find(|p| loader.read(p).is_some())
        .and_then(|p| db.load(&p))
        .into_iter()
        .collect();
    Ok(RulebookSet::new(db, files, configs, false))
}

fn unreadable(path: &Path) -> String {
    format!("cannot read `{}`", path.display())
}

/// Compiles a rulebook on its own (a file, several files, or a NeMo config folder) into a record
/// folder: one entry per governed tool, carrying its gate (the catalogue joins it when an agent
/// is compiled).
pub fn compile_rules(loader: Arc<dyn FileLoader>, paths: &[PathBuf], out: &Path) -> CompileOutcome {
    let root = paths
        .first()
        .map(|p| {
            if loader.list_tree(p).is_some() {
                p.clone()
            } else {
                p.parent().map(Path::to_path_buf).unwrap_or_default()
            }
        })
        .unwrap_or_default();
    let db = Database::new(loader.clone(), root);
    let set = match load_rulebook(&db, loader.as_ref(), paths) {
        Ok(set) => set,
        Err(message) => {
            return CompileOutcome {
                diagnostics: Vec::new(),
                files: Files::new(),
                written: None,
                fatal: Some(message),
            };
        }
    };
    let (mut diagnostics, body) = rulebook_body(&db, set);
    let Some(body) = body else {
        return CompileOutcome {
            diagnostics,
            files: db.files(),
            written: None,
            fatal: None,
        };
    };
    let all: Vec<SourceFile> = set
        .configs(&db)
        .iter()
        .chain(set.files(&db).iter())
        .copied()
        .collect();
    match write_record_body(&body, out) {
        Ok(written) => CompileOutcome {
            diagnostics,
            files: db.files(),
            written: Some(written),
            fatal: None,
        },
        Err(e) => {
            let at = all
                .first()
                .map(|f| Span::new(f.id(&db), 0, 0))
                .unwrap_or(Span::new(stalwart_diagnostics::FileId(0), 0, 0));
            diagnostics.push(Diagnostic::error(UNREADABLE_INPUT, at, e));
            CompileOutcome {
                diagnostics,
                files: db.files(),
                written: None,
                fatal: None,
            }
        }
    }
}

/// Every diagnostic `stalwart rules compile` gives a rulebook loaded in `db`, and the record body
/// unless an error stops it before lowering (the same diagnostics the language server publishes for a rulebook
/// that no agent names).
pub fn rulebook_body(db: &Database, set: RulebookSet<'_>) -> (Vec<Diagnostic>, Option<RecordBody>) {
    let model = stalwart_sema::model::rulebook_model(db, set);
    let mut diagnostics = model.diagnostics.clone();
    diagnostics.extend(stalwart_sema::rulebook::check_rulebook_set(
        db,
        set,
        None,
        &Default::default(),
    ));
    let (gates, warnings) = stalwart_sema::model::gates_for(model, None);
    diagnostics.extend(warnings);
    if diagnostics.iter().any(Diagnostic::is_error) {
        stalwart_diagnostics::sort(&mut diagnostics);
        return (diagnostics, None);
    }
    let all: Vec<SourceFile> = set
        .configs(db)
        .iter()
        .chain(set.files(db).iter())
        .copied()
        .collect();
    let mut body = RecordBody {
        kind: RecordKind::Rulebook,
        sources: all
            .iter()
            .map(|f| Source {
                path: f.path(db).clone(),
                digest: blake3::hash(f.text(db).as_bytes()).to_hex().to_string(),
            })
            .collect(),
        ..Default::default()
    };
    for tool in gates.governing.keys() {
        body.tools.push(Tool {
            name: tool.clone(),
            ..Default::default()
        });
    }
    let mut intents: Vec<String> = model.intents.iter().map(|(n, _)| n.clone()).collect();
    intents.sort();
    intents.dedup();
    body.intents = intents;
    let span_of = |s: Span| {
        let at = all.iter().position(|f| f.id(db) == s.file);
        SourceSpan {
            source: at.unwrap_or(0) as u32,
            start: s.start,
            end: s.end,
            line: at
                .and_then(|i| all.get(i))
                .map_or(0, |f| stalwart_db::line_of(db, *f, s.start)),
        }
    };
    diagnostics.extend(stalwart_lower::gate::attach(&mut body, &gates, &span_of));
    (diagnostics, Some(body))
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
