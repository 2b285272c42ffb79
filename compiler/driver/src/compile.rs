//! `stalwart compile`: agent.yaml and everything it names to a record folder.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use serde_json::json;
use stalwart_db::SourceFile;
use stalwart_diagnostics::{Code, Diagnostic, Files, Span};
use stalwart_record::{Effects, RecordBody};

use crate::database::{Database, FileLoader, normalize};
use crate::output::write_folder_atomically;

/// The version written into every record's header and manifest.
pub const COMPILER_VERSION: &str = env!("CARGO_PKG_VERSION");

/// The file agent.yaml names cannot be read.
pub const UNREADABLE_INPUT: Code = Code {
    id: "E0001",
    slug: "unreadable-input",
};
/// The record folder could not be written.
pub const WRITE_FAILED: Code = Code {
    id: "E0002",
    slug: "write-failed",
};
/// The record could not be encoded.
pub const ENCODE_FAILED: Code = Code {
    id: "E0003",
    slug: "encode-failed",
};

/// What a compile produced.
#[derive(Debug)]
pub struct CompileOutcome {
    /// Every diagnostic, sorted; renderable with `files`.
    pub diagnostics: Vec<Diagnostic>,
    pub files: Files,
    /// Present when the record folder was written.
    pub written: Option<Written>,
    /// A message about the input that has no place in a file (the input itself is missing).
    pub fatal: Option<String>,
}

impl CompileOutcome {
    pub fn has_errors(&self) -> bool {
        self.fatal.is_some() || self.diagnostics.iter().any(Diagnostic::is_error)
    }
}

/// A written record folder.
#[derive(Debug, Clone)]
pub struct Written {
    pub dir: PathBuf,
    pub record_bytes: usize,
    pub digest: String,
    pub body: RecordBody,
    pub manifest: serde_json::Value,
}

/// Options of `stalwart compile`.
#[derive(Debug, Clone, Default)]
pub struct CompileOptions {
    /// The output folder; default `.stalwart/record` beside agent.yaml.
    pub out: Option<PathBuf>,
}

/// The default output folder of an agent.yaml.
pub fn default_out_dir(agent_yaml: &Path) -> PathBuf {
    agent_yaml
        .parent()
        .unwrap_or(Path::new("."))
        .join(".stalwart")
        .join("record")
}

/// Compiles agent.yaml (from the disk through `loader`) and writes the record folder when there
/// is no error. Nothing is written when there is one.
pub fn compile_agent(
    loader: Arc<dyn FileLoader>,
    agent_yaml: &Path,
    options: &CompileOptions,
) -> CompileOutcome {
    let (db, file) = match Database::open(loader, agent_yaml) {
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
    let mut diagnostics = agent_diagnostics(&db, file);
    if diagnostics.iter().any(Diagnostic::is_error) {
        return CompileOutcome {
            diagnostics,
            files: db.files(),
            written: None,
            fatal: None,
        };
    }
    let out = options
        .out
        .clone()
        .unwrap_or_else(|| default_out_dir(agent_yaml));
    let lowered = stalwart_lower::lower_agent_file(&db, file);
    let graph = crate::graph::graph_json(&db, file);
    let overrides: std::collections::BTreeMap<String, Vec<String>> =
        stalwart_sema::agent_catalogue(&db, file)
            .tools
            .iter()
            .filter(|t| !t.overridden.is_empty())
            .map(|t| (t.name.value.clone(), t.overridden.clone()))
            .collect();
    let written = write_record(
        &db,
        file,
        &lowered.body,
        Some(graph.as_str()),
        &out,
        &overrides,
    );
    match written {
        Ok(w) => CompileOutcome {
            diagnostics,
            files: db.files(),
            written: Some(w),
            fatal: None,
        },
        Err(d) => {
            diagnostics.push(*d);
            CompileOutcome {
                diagnostics,
                files: db.files(),
                written: None,
                fatal: None,
            }
        }
    }
}

/// The record of agent.yaml loaded in `db`, in memory, as `stalwart compile` would write it: for
/// an editor, which runs scenarios against its buffers. `Err` when the agent has an error (the
/// first one's message) or the record does not encode.
pub fn agent_record(db: &Database, file: SourceFile) -> Result<stalwart_record::Record, String> {
    if let Some(e) = agent_diagnostics(db, file)
        .into_iter()
        .find(Diagnostic::is_error)
    {
        return Err(format!("{}: {}", e.code.id, e.message));
    }
    let lowered = stalwart_lower::lower_agent_file(db, file);
    let bytes = stalwart_record::encode(&lowered.body, COMPILER_VERSION)
        .map_err(|e| format!("cannot encode the record: {e}"))?;
    stalwart_record::Record::from_bytes(&bytes).map_err(|e| e.to_string())
}

/// Every diagnostic `stalwart compile` gives agent.yaml (loaded in `db`) and what it names: the
/// analysis, then, when it found no error, the lowering's; sorted. The language server publishes
/// the same list.
pub fn agent_diagnostics(db: &Database, file: SourceFile) -> Vec<Diagnostic> {
    let mut diagnostics = stalwart_sema::analyze_agent(db, file).diagnostics.clone();
    if diagnostics.iter().any(Diagnostic::is_error) {
        return diagnostics;
    }
    // The lowering's diagnostics without its record: the selector's readers are built only
    // when a record is written.
    diagnostics.extend(
        stalwart_lower::lowering_diagnostics(db, file)
            .iter()
            .cloned(),
    );
    stalwart_diagnostics::sort(&mut diagnostics);
    diagnostics
}

fn write_record(
    db: &Database,
    file: SourceFile,
    body: &RecordBody,
    graph: Option<&str>,
    out: &Path,
    overrides: &std::collections::BTreeMap<String, Vec<String>>,
) -> Result<Written, Box<Diagnostic>> {
    let at = Span::new(file.id(db), 0, 0);
    write_folder(body, graph, out, overrides).map_err(|e| {
        let code = if e.starts_with("cannot encode") {
            ENCODE_FAILED
        } else {
            WRITE_FAILED
        };
        Box::new(Diagnostic::error(code, at, e))
    })
}

/// Encodes a body and writes its record folder (record.bin + manifest.json) atomically.
pub fn write_record_body(body: &RecordBody, out: &Path) -> Result<Written, String> {
    write_record_folder(body, None, out)
}

/// The same, with the agent graph (`graph.json`, qls-graph/1) beside the record.
pub fn write_record_folder(
    body: &RecordBody,
    graph: Option<&str>,
    out: &Path,
) -> Result<Written, String> {
    write_folder(body, graph, out, &Default::default())
}

/// The same, with the keys agent.yaml's `overrides:` set on each tool, which the manifest lists.
fn write_folder(
    body: &RecordBody,
    graph: Option<&str>,
    out: &Path,
    overrides: &std::collections::BTreeMap<String, Vec<String>>,
) -> Result<Written, String> {
    let bytes = stalwart_record::encode(body, COMPILER_VERSION)
        .map_err(|e| format!("cannot encode the record: {e}"))?;
    let digest = blake3::hash(&bytes).to_hex().to_string();
    let mut manifest = manifest(body, bytes.len(), &digest);
    if let Some(tools) = manifest.get_mut("tools").and_then(|t| t.as_array_mut()) {
        for tool in tools {
            let keys = tool
                .get("name")
                .and_then(|n| n.as_str())
                .and_then(|n| overrides.get(n));
            if let (Some(keys), Some(map)) = (keys, tool.as_object_mut()) {
                map.insert("overrides".to_string(), json!(keys));
            }
        }
    }
    let manifest_text = format!(
        "{}\n",
        serde_json::to_string_pretty(&manifest).unwrap_or_default()
    );
    let mut files: Vec<(&str, &[u8])> = vec![
        ("record.bin", &bytes),
        ("manifest.json", manifest_text.as_bytes()),
    ];
    if let Some(g) = graph {
        files.push(("graph.json", g.as_bytes()));
    }
    write_folder_atomically(out, &files)
        .map_err(|e| format!("cannot write the record folder `{}`: {e}", out.display()))?;
    Ok(Written {
        dir: normalize(out),
        record_bytes: bytes.len(),
        digest,
        body: body.clone(),
        manifest,
    })
}

/// `manifest.json`: what was compiled, from which sources, and counts. Deterministic: no clock.
pub fn manifest(body: &RecordBody, record_bytes: usize, digest: &str) -> serde_json::Value {
    let gated = body.tools.iter().filter(|t| t.gate.governed).count();
    json!({
        "format": "stalwart-record",
        "format_version": stalwart_record::FORMAT_VERSION,
        "compiler_version": COMPILER_VERSION,
        "kind": match body.kind { stalwart_record::RecordKind::Agent => "agent", stalwart_record::RecordKind::Rulebook => "rulebook" },
        "record": {"file": "record.bin", "bytes": record_bytes, "blake3": digest},
        "sources": body.sources.iter().map(|s| json!({"path": s.path, "blake3": s.digest})).collect::<Vec<_>>(),
        "agents": body.agents.iter().map(|a| json!({
            "name": a.name,
            "tools": a.tools.iter().filter_map(|&t| body.tools.get(t as usize)).map(|t| t.name.clone()).collect::<Vec<_>>(),
        })).collect::<Vec<_>>(),
        "tools": body.tools.iter().map(|t| json!({
            "name": t.name,
            "effects": match t.effects { Effects::Reads => "reads", Effects::Changes => "changes", Effects::Unknown => "unknown" },
            "governed_by_rulebook": t.gate.governed,
            "schema_partial": t.schema_partial,
        })).collect::<Vec<_>>(),
        "counts": {
            "agents": body.agents.len(),
            "tools": body.tools.len(),
            "facts": body.facts.len(),
            "gated_tools": gated,
            "schema_nodes": body.schema_nodes.len(),
            "values": body.values.len(),
        },
    })
}
