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

/// The rulebook files a command-line argument names: the file itself, or every rulebook file
/// (`*.co`, `*.csv`, `*.rules.yaml`, `*.rules.yml`) under a folder, its subfolders included,
/// sorted by path (folders whose name starts with `.` are skipped).
pub fn rulebook_files(path: &Path) -> Vec<PathBuf> {
    if !path.is_dir() {
        return vec![path.to_path_buf()];
    }
    let mut found = Vec::new();
    let mut stack = vec![path.to_path_buf()];
    while let Some(dir) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        for entry in entries.filter_map(Result::ok) {
            let p = entry.path();
            let name = entry.file_name().to_string_lossy().into_owned();
            if p.is_dir() {
                if !name.starts_with('.') {
                    stack.push(p);
                }
            } else if [".co", ".csv", ".rules.yaml", ".rules.yml"]
                .iter()
                .any(|ext| name.ends_with(ext))
            {
                found.push(p);
            }
        }
    }
    found.sort();
    found
}

/// Compiles a rulebook on its own into a record folder: one entry per governed tool, carrying its
/// gate (the catalogue joins it when an agent is compiled). `paths` are files or folders (each
/// folder stands for the rulebook files under it, [`rulebook_files`]); several files are one
/// rulebook: a tool's gate has the paths of every file, in the order the files are given.
pub fn compile_rules(loader: Arc<dyn FileLoader>, paths: &[PathBuf], out: &Path) -> CompileOutcome {
    let mut files_in: Vec<PathBuf> = Vec::new();
    for path in paths {
        let found = rulebook_files(path);
        if found.is_empty() {
            let problem = stalwart_db::LoadProblem::Other(
                "the folder holds no rulebook file (`*.co`, `*.csv`, `*.rules.yaml`)".to_string(),
            );
            let unreadable = crate::database::unreadable(loader.as_ref(), path, &problem);
            return CompileOutcome {
                diagnostics: vec![unreadable.diagnostic],
                files: unreadable.files,
                written: None,
                fatal: None,
            };
        }
        files_in.extend(found);
    }
    let Some(first) = files_in.first() else {
        return CompileOutcome {
            diagnostics: Vec::new(),
            files: Files::new(),
            written: None,
            fatal: Some("no rulebook was given".to_string()),
        };
    };
    let (db, first_file) = match Database::open(loader.clone(), first) {
        Ok(opened) => opened,
        Err(unreadable) => {
            return CompileOutcome {
                diagnostics: vec![unreadable.diagnostic],
                files: unreadable.files,
                written: None,
                fatal: None,
            };
        }
    };
    let mut files = vec![first_file];
    for path in files_in.iter().skip(1) {
        match db.load(path) {
            Some(file) => files.push(file),
            None => {
                let problem = db
                    .problem_at(path)
                    .unwrap_or(stalwart_db::LoadProblem::Missing);
                let unreadable = crate::database::unreadable(loader.as_ref(), path, &problem);
                return CompileOutcome {
                    diagnostics: vec![unreadable.diagnostic],
                    files: unreadable.files,
                    written: None,
                    fatal: None,
                };
            }
        }
    }
    let mut diagnostics = Vec::new();
    let mut all_gates = Vec::new();
    for &file in &files {
        let parsed = parse_rulebook(&db, file);
        diagnostics.extend(parsed.diagnostics.iter().cloned());
        diagnostics.extend(stalwart_sema::rulebook::check_rulebook(
            &db,
            file,
            None,
            &Default::default(),
        ));
        if stalwart_db::Db::had_bom(&db, file) {
            diagnostics.push(stalwart_sema::agent::byte_order_mark(&db, file));
        }
        if rulebook_is_empty(file.text(&db)) {
            diagnostics.push(empty_rulebook(file.id(&db), file.name(&db)));
        }
        let gates = match &parsed.module {
            RulebookModule::V1(module) => stalwart_lower::gate::lower_v1(module),
            RulebookModule::V2(module) => stalwart_lower::gate_v2::lower_v2(module, file.text(&db)),
            RulebookModule::Sheet(sheet) => stalwart_lower::gate_sheet::lower_sheet(sheet),
        };
        diagnostics.extend(gates.diagnostics.iter().cloned());
        all_gates.push((file, parsed, gates));
    }
    stalwart_diagnostics::sort(&mut diagnostics);
    if diagnostics.iter().any(Diagnostic::is_error) {
        return CompileOutcome {
            diagnostics,
            files: db.files(),
            written: None,
            fatal: None,
        };
    }
    let mut body = RecordBody {
        kind: RecordKind::Rulebook,
        sources: files
            .iter()
            .map(|f| Source {
                path: f.path(&db).clone(),
                digest: blake3::hash(f.text(&db).as_bytes()).to_hex().to_string(),
            })
            .collect(),
        ..Default::default()
    };
    let mut governed: std::collections::BTreeMap<String, Vec<String>> = Default::default();
    for (_, _, gates) in &all_gates {
        for (tool, flows) in &gates.governing {
            let entry = governed.entry(tool.clone()).or_default();
            for flow in flows {
                if !entry.contains(flow) {
                    entry.push(flow.clone());
                }
            }
        }
    }
    for tool in governed.keys() {
        body.tools.push(Tool {
            name: tool.clone(),
            ..Default::default()
        });
    }
    let mut intent_names = Vec::new();
    for (index, (file, parsed, gates)) in all_gates.iter().enumerate() {
        if let RulebookModule::V1(module) = &parsed.module {
            intent_names.extend(intents(module));
        }
        let text = file.text(&db).clone();
        let line = |offset: u32| {
            text.as_bytes()
                .iter()
                .take(offset as usize)
                .filter(|&&b| b == b'\n')
                .count() as u32
                + 1
        };
        let source = u32::try_from(index).unwrap_or(u32::MAX);
        let span_of = |s: Span| SourceSpan {
            source,
            start: s.start,
            end: s.end,
            line: line(s.start),
        };
        diagnostics.extend(stalwart_lower::gate::attach(&mut body, gates, &span_of));
    }
    for tool in &mut body.tools {
        if let Some(flows) = governed.get(&tool.name) {
            tool.gate.flows = flows.clone();
        }
    }
    intent_names.sort();
    intent_names.dedup();
    body.intents = intent_names;
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
                Span::new(first_file.id(&db), 0, 0),
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

/// Whether a rulebook's text holds nothing but blank lines and comments (`#`).
pub fn rulebook_is_empty(text: &str) -> bool {
    text.lines().all(|l| {
        let l = l.trim();
        l.is_empty() || l.starts_with('#')
    })
}

/// The warning for an empty rulebook: it governs no tool, so every tool passes its gate.
pub fn empty_rulebook(file: stalwart_diagnostics::FileId, name: &str) -> Diagnostic {
    Diagnostic::warning(
        stalwart_sema::codes::EMPTY_RULEBOOK,
        Span::new(file, 0, 0),
        format!("the rulebook `{name}` is empty: it governs no tool"),
    )
    .with_label("nothing but blank lines and comments")
    .with_note("a tool no rulebook governs passes the gate")
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
