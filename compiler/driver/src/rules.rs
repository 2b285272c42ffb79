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
use crate::database::{Database, FileLoader, Unreadable, unreadable};
use stalwart_db::LoadProblem;

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
        if loader.list_tree(path).is_some() {
            out.push(inspect_folder(loader.clone(), path, forced)?);
            continue;
        }
        let (db, file) = match Database::open(loader.clone(), path) {
            Ok(opened) => opened,
            Err(unreadable) => {
                out.push(Inspected {
                    file: path.clone(),
                    facts: serde_json::Value::Null,
                    diagnostics: vec![unreadable.diagnostic],
                    files: unreadable.files,
                });
                continue;
            }
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

/// Whether a file under a folder is a rulebook file: Colang (`*.co`), a rule sheet (`*.csv`,
/// `*.rules.yaml`, `*.rules.yml`).
fn is_rulebook_file(rel: &str) -> bool {
    [".co", ".csv", ".rules.yaml", ".rules.yml"]
        .iter()
        .any(|ext| rel.ends_with(ext))
}

/// The rulebook the paths name, loaded into `db`: files, folders, or both. A folder is a NeMo
/// config: its rulebook files (`*.co`, `*.csv`, `*.rules.yaml`) and its YAML files (its config) at
/// any depth, but under `kb/`; files come with the `config.yml` or `config.yaml` beside the first,
/// if there is one. A path that cannot be read, or a folder with nothing to read, is a coded
/// diagnostic.
pub fn load_rulebook<'db>(
    db: &'db Database,
    loader: &dyn FileLoader,
    paths: &[PathBuf],
) -> Result<RulebookSet<'db>, Box<Unreadable>> {
    let load = |path: &Path| -> Result<SourceFile, Box<Unreadable>> {
        db.load(path).ok_or_else(|| {
            let problem = db.problem_at(path).unwrap_or(LoadProblem::Missing);
            Box::new(unreadable(loader, path, &problem))
        })
    };
    let mut files = Vec::new();
    let mut configs = Vec::new();
    let mut folder = false;
    for path in paths {
        let Some(listed) = loader.list_tree(path) else {
            files.push(load(path)?);
            continue;
        };
        folder = true;
        let before = files.len() + configs.len();
        for rel in listed {
            if rel.starts_with("kb/") {
                continue;
            }
            let at = path.join(&rel);
            if is_rulebook_file(&rel) {
                files.push(load(&at)?);
            } else if rel.ends_with(".yml") || rel.ends_with(".yaml") {
                configs.push(load(&at)?);
            }
        }
        if files.len() + configs.len() == before {
            let problem = LoadProblem::Other(
                "the folder holds no rulebook file (`*.co`, `*.csv`, `*.rules.yaml`) and no \
                 config (`*.yml`)"
                    .to_string(),
            );
            return Err(Box::new(unreadable(loader, path, &problem)));
        }
    }
    if !folder {
        let dir = paths
            .first()
            .and_then(|p| p.parent())
            .map(Path::to_path_buf)
            .unwrap_or_default();
        configs.extend(
            ["config.yml", "config.yaml"]
                .iter()
                .map(|n| dir.join(n))
                .find(|p| loader.read(p).is_ok())
                .and_then(|p| db.load(&p)),
        );
    }
    Ok(RulebookSet::new(
        db,
        files,
        configs,
        folder && paths.len() == 1,
    ))
}

/// The facts of a NeMo config folder as `RailsConfig.from_path` joins its files': messages by
/// name (the first file's definition wins, as the reference's reversed join leaves it), flows
/// and imports of every file (the files in reverse order, as the reference joins them).
fn inspect_folder(
    loader: Arc<dyn FileLoader>,
    path: &Path,
    forced: Option<Dialect>,
) -> Result<Inspected, String> {
    let db = Database::new(loader.clone(), path.to_path_buf());
    let set = match load_rulebook(&db, loader.as_ref(), &[path.to_path_buf()]) {
        Ok(set) => set,
        Err(unreadable) => {
            return Ok(Inspected {
                file: path.to_path_buf(),
                facts: serde_json::Value::Null,
                diagnostics: vec![unreadable.diagnostic],
                files: unreadable.files,
            });
        }
    };
    let model = stalwart_sema::model::rulebook_model(&db, set);
    let dialect = forced.or(model.dialect).unwrap_or(Dialect::V1);
    let mut diagnostics = model.diagnostics.clone();
    let mut joined = serde_json::Map::new();
    joined.insert(
        "version".into(),
        serde_json::Value::String(match dialect {
            Dialect::V1 => "1.0".into(),
            Dialect::V2 => "2.x".into(),
        }),
    );
    for file in set.files(&db).iter().rev() {
        let parsed = stalwart_sema::model::parse_rulebook_as(&db, *file, dialect);
        let facts = match &parsed.module {
            RulebookModule::V1(m) => stalwart_syntax::inspect_v1(m),
            RulebookModule::V2(m) => stalwart_syntax::v2::inspect_v2(m),
            RulebookModule::Sheet(sheet) => inspect_sheet(sheet),
        };
        let serde_json::Value::Object(facts) = facts else {
            continue;
        };
        for (key, value) in facts {
            match (joined.get_mut(&key), value) {
                (_, serde_json::Value::String(_)) if key == "version" => {}
                (Some(serde_json::Value::Object(into)), serde_json::Value::Object(more)) => {
                    // A later (in reverse: an earlier) file's definition replaces.
                    for (k, v) in more {
                        into.insert(k, v);
                    }
                }
                (Some(serde_json::Value::Array(into)), serde_json::Value::Array(more)) => {
                    into.extend(more);
                }
                (_, value) => {
                    joined.insert(key, value);
                }
            }
        }
    }
    // The library modules the files import are loaded with them, as the reference loads them.
    let imported: Vec<String> = joined
        .get("imports")
        .and_then(serde_json::Value::as_array)
        .map(|a| {
            a.iter()
                .filter_map(|i| i.as_str().map(str::to_string))
                .collect()
        })
        .unwrap_or_default();
    let library = stalwart_sema::model::library::library();
    for path in library.v2_imports_closure(imported.iter().map(String::as_str)) {
        let Some(flows) = library.v2_module(&path) else {
            continue;
        };
        if let Some(serde_json::Value::Array(list)) = joined.get_mut("flows") {
            for f in flows {
                list.push(serde_json::json!({
                    "name": f.name,
                    "parameters": f.parameters,
                    "library": path,
                }));
            }
        }
    }
    stalwart_diagnostics::sort(&mut diagnostics);
    Ok(Inspected {
        file: path.to_path_buf(),
        facts: serde_json::Value::Object(joined),
        diagnostics,
        files: db.files(),
    })
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
        Err(unreadable) => {
            return CompileOutcome {
                diagnostics: vec![unreadable.diagnostic],
                files: unreadable.files,
                written: None,
                fatal: None,
            };
        }
    };
    if paths.is_empty() {
        return CompileOutcome {
            diagnostics: Vec::new(),
            files: Files::new(),
            written: None,
            fatal: Some("no rulebook was given".to_string()),
        };
    }
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
    for file in set.files(db).iter().chain(set.configs(db).iter()) {
        if stalwart_db::Db::had_bom(db, *file) {
            diagnostics.push(stalwart_sema::agent::byte_order_mark(db, *file));
        }
    }
    diagnostics.extend(stalwart_sema::rulebook::check_rulebook_set(db, set, None));
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
        let (line, col) = at
            .and_then(|i| all.get(i))
            .map_or((0, 0), |f| stalwart_db::line_col_of(db, *f, s.start));
        SourceSpan {
            source: at.unwrap_or(0) as u32,
            start: s.start,
            end: s.end,
            line,
            col,
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
