//! Lowering as a salsa query over an analysed agent description.

use stalwart_db::{Db, SourceFile};
use stalwart_diagnostics::FileId;
use stalwart_diagnostics::{Diagnostic, Span};
use stalwart_record::Source;
use stalwart_sema::model::{agent_rulebook_set, gates_for, rulebook_model};
use stalwart_sema::{RulebookModule, agent_catalogue, parse_agent_file};

use crate::agent::{Lowered, SourceMap, lower_agent};

/// Every diagnostic lowering gives an agent description, without building the record: the
/// tools' schemas ([`tool_lowering_diagnostics`]) and the rulebook's gate. The same list as
/// [`lower_agent_file`]'s `diagnostics` (the selector's readers raise none, and `gates_for` keeps
/// only the catalogue's tools, so `gate::attach` finds none missing; the test
/// `lowering_diagnostics_match_the_record` holds the two equal), so the diagnostics that
/// `stalwart compile` and the language server give need no record. Run it only once
/// `analyze_agent` found no error.
#[salsa::tracked(returns(ref))]
pub fn lowering_diagnostics(db: &dyn Db, file: SourceFile) -> Vec<Diagnostic> {
    let mut out = tool_lowering_diagnostics(db, file).clone();
    if let Some(set) = agent_rulebook_set(db, file) {
        // The gate's diagnostics, file by file: an edit inside one rule file walks that file's
        // flows again, not the whole rulebook's.
        out.extend(
            stalwart_sema::model::file_gates::rulebook_gate_diagnostics(db, set, file)
                .iter()
                .cloned(),
        );
    }
    out
}

/// The diagnostics of lowering agent.yaml's tools (their schemas): agent.yaml and the catalogue
/// only, so an edit to a rulebook file never runs it again.
#[salsa::tracked(returns(ref))]
pub fn tool_lowering_diagnostics(db: &dyn Db, file: SourceFile) -> Vec<Diagnostic> {
    let parsed = parse_agent_file(db, file);
    let catalogue = agent_catalogue(db, file);
    // Diagnostics carry spans, never the record's places: no file map is needed.
    lower_agent(&parsed.value, &catalogue.tools, Vec::new(), &NoFiles).diagnostics
}

/// A map that places nothing (for lowering run for its diagnostics only).
struct NoFiles;

impl SourceMap for NoFiles {
    fn source_index(&self, _file: FileId) -> u32 {
        0
    }

    fn line_col(&self, _file: FileId, _offset: u32) -> (u32, u32) {
        (0, 0)
    }
}

/// The record body of an agent description. Run it only once `analyze_agent` found no error.
/// `no_eq`: the body holds floats; it is rebuilt whenever an input it read changes.
#[salsa::tracked(returns(ref), no_eq)]
pub fn lower_agent_file(db: &dyn Db, file: SourceFile) -> Lowered {
    let parsed = parse_agent_file(db, file);
    let catalogue = agent_catalogue(db, file);
    let mut files = vec![file];
    files.extend(catalogue.sources.iter().copied());
    let rulebook = agent_rulebook_set(db, file);
    if let Some(set) = rulebook {
        files.extend(set.configs(db).iter().copied());
        files.extend(set.files(db).iter().copied());
    }
    let map = FilesMap::new(db, &files);
    let root = std::path::Path::new(file.name(db))
        .parent()
        .map(std::path::Path::to_path_buf)
        .unwrap_or_default();
    let sources = files
        .iter()
        .map(|f| Source {
            path: record_path(&root, f.name(db), f.path(db)),
            digest: blake3::hash(f.text(db).as_bytes()).to_hex().to_string(),
        })
        .collect();
    let mut lowered = lower_agent(&parsed.value, &catalogue.tools, sources, &map);
    if let Some(set) = rulebook {
        let model = rulebook_model(db, set);
        let tools: std::collections::BTreeSet<String> = catalogue
            .tools
            .iter()
            .map(|t| t.name.value.clone())
            .collect();
        let (gates, gate_diagnostics) = gates_for(model, Some(&tools));
        lowered.diagnostics.extend(gate_diagnostics);
        let span_of = |span: Span| map.span(span);
        let attached = crate::gate::attach(&mut lowered.body, &gates, &span_of);
        lowered.diagnostics.extend(attached);
        let mut intents = Vec::new();
        let mut utterances = std::collections::BTreeMap::new();
        let dialect = model.dialect.unwrap_or(stalwart_syntax::Dialect::V1);
        for &f in set.files(db) {
            match &stalwart_sema::model::parse_rulebook_as(db, f, dialect).module {
                RulebookModule::V1(module) => {
                    intents.extend(crate::selector::intents_v1(module));
                    for (k, v) in crate::selector::utterances_v1(module) {
                        utterances.entry(k).or_insert(v);
                    }
                }
                RulebookModule::V2(module) => {
                    intents.extend(crate::selector::intents_v2(module, f.text(db)));
                }
                RulebookModule::Sheet(_) => {}
            }
        }
        crate::selector::lower_selector(&mut lowered.body, &intents, &utterances, &gates, &span_of);
    } else {
        let span_of = |span: Span| map.span(span);
        crate::selector::lower_selector(
            &mut lowered.body,
            &[],
            &Default::default(),
            &stalwart_sema::model::paths::Gates::default(),
            &span_of,
        );
    }
    lowered
}

/// A file's path as the record names it: relative to agent.yaml's folder `root`, `/`-separated,
/// with `..` for a file outside it (a rulebook or a catalogue in a sibling folder), so that the
/// record and the answers' `source` read the same on every machine. `relative` is the database's
/// path, used as it is for a file under `root`.
fn record_path(root: &std::path::Path, name: &str, relative: &str) -> String {
    use std::path::{Component, Path};
    if Path::new(name).starts_with(root) {
        return relative.to_string();
    }
    let to: Vec<Component<'_>> = Path::new(name).components().collect();
    let from: Vec<Component<'_>> = root.components().collect();
    let shared = to.iter().zip(&from).take_while(|(a, b)| a == b).count();
    if shared == 0 {
        return relative.to_string();
    }
    let mut parts: Vec<String> = from.iter().skip(shared).map(|_| "..".to_string()).collect();
    parts.extend(
        to.iter()
            .skip(shared)
            .map(|c| c.as_os_str().to_string_lossy().into_owned()),
    );
    parts.join("/")
}

/// Each file's place among the record's sources, by id.
struct FilesMap<'a> {
    db: &'a dyn Db,
    // INVARIANT: built once per lowering; each lookup is a hash probe, never a walk over the files
    // (a rulebook of thousands of files has a span per gate).
    by_id: std::collections::HashMap<FileId, (u32, SourceFile)>,
}

impl<'a> FilesMap<'a> {
    fn new(db: &'a dyn Db, files: &[SourceFile]) -> Self {
        let mut by_id = std::collections::HashMap::with_capacity(files.len());
        for (i, f) in files.iter().enumerate() {
            // The first file with an id wins, as a walk from the front found it.
            by_id.entry(f.id(db)).or_insert((i as u32, *f));
        }
        Self { db, by_id }
    }

    fn span(&self, span: Span) -> stalwart_record::SourceSpan {
        crate::agent::record_span(self, span)
    }
}

impl SourceMap for FilesMap<'_> {
    fn source_index(&self, file: FileId) -> u32 {
        self.by_id.get(&file).map_or(0, |(i, _)| *i)
    }

    fn line_col(&self, file: FileId, offset: u32) -> (u32, u32) {
        let Some((_, f)) = self.by_id.get(&file) else {
            return (0, 0);
        };
        stalwart_db::line_col_of(self.db, *f, offset)
    }
}
