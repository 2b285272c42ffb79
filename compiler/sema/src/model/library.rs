//! What NeMo Guardrails' standard library defines, known by name and signature so that a
//! rulebook that uses it is not "undefined": the 1.0 built-in flows and bot messages (the
//! runtime's `llm_flows.co` and the library rails' `flows.v1.co`), and the 2.x library modules
//! (`core`, `llm`, `guardrails`, `avatars`, `timing`, `attention`, `passthrough`, and the rails
//! under `nemoguardrails.library`), with the actions they run.
//!
//! The knowledge is data, `compiler/sema/data/nemo-library.json`, made from the reference
//! package's own files at the version it states; `tests/nemo_library.rs` makes it again from the
//! package's files and compares (`UPDATE_EXPECT=1` writes it).

use std::collections::{BTreeMap, BTreeSet};
use std::sync::OnceLock;

use serde_json::Value;

/// The data file, as shipped.
pub const DATA: &str = include_str!("../../data/nemo-library.json");

/// A 2.x library flow: its name and parameters (without `$`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LibraryFlow {
    pub name: String,
    pub parameters: Vec<String>,
}

/// The standard library, read from [`DATA`].
#[derive(Debug, Default)]
pub struct Library {
    /// The package and version the data was made from.
    pub source: String,
    pub v1_flows: BTreeSet<String>,
    pub v1_bot_messages: BTreeSet<String>,
    /// 2.x modules by import path (`core`, `nemoguardrails/library/self_check/input_check`).
    pub v2_modules: BTreeMap<String, Vec<LibraryFlow>>,
    /// What each 2.x module imports itself.
    pub v2_imports: BTreeMap<String, Vec<String>>,
    /// The actions the library's flows run, as tool names (`self_check_input`).
    pub actions: BTreeSet<String>,
}

/// The standard library (read once).
pub fn library() -> &'static Library {
    static LIBRARY: OnceLock<Library> = OnceLock::new();
    LIBRARY.get_or_init(|| read(DATA))
}

fn strings(v: Option<&Value>) -> BTreeSet<String> {
    v.and_then(Value::as_array)
        .map(|a| {
            a.iter()
                .filter_map(Value::as_str)
                .map(str::to_string)
                .collect()
        })
        .unwrap_or_default()
}

/// Reads the data's JSON; a malformed file gives an empty library (a test holds the shipped
/// one well-formed).
pub fn read(text: &str) -> Library {
    let Ok(v) = serde_json::from_str::<Value>(text) else {
        return Library::default();
    };
    let mut modules = BTreeMap::new();
    let mut imports = BTreeMap::new();
    if let Some(ms) = v.pointer("/v2/modules").and_then(Value::as_object) {
        for (path, m) in ms {
            imports.insert(
                path.clone(),
                strings(m.get("imports")).into_iter().collect(),
            );
            let flows = m
                .get("flows")
                .and_then(Value::as_array)
                .map(|fs| {
                    fs.iter()
                        .filter_map(|f| {
                            Some(LibraryFlow {
                                name: f.get("name")?.as_str()?.to_string(),
                                parameters: strings(f.get("parameters")).into_iter().collect(),
                            })
                        })
                        .collect()
                })
                .unwrap_or_default();
            modules.insert(path.clone(), flows);
        }
    }
    let mut actions = strings(v.pointer("/v1/actions"));
    actions.extend(strings(v.pointer("/v2/actions")));
    Library {
        source: v
            .get("source")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_string(),
        v1_flows: strings(v.pointer("/v1/flows")),
        v1_bot_messages: strings(v.pointer("/v1/bot_messages")),
        v2_modules: modules,
        v2_imports: imports,
        actions,
    }
}

impl Library {
    /// The 2.x module an import path names: `core`, or `nemoguardrails/library/x` (the
    /// reference's import path, dots written as `/`), with or without a trailing `.co`.
    pub fn v2_module(&self, path: &str) -> Option<&[LibraryFlow]> {
        let path = path.trim_matches('"').trim_end_matches(".co");
        self.v2_modules.get(path).map(Vec::as_slice)
    }

    /// The modules an import of `paths` loads: each, and what each imports, at any depth, sorted.
    pub fn v2_imports_closure<'a>(&self, paths: impl IntoIterator<Item = &'a str>) -> Vec<String> {
        let mut out: std::collections::BTreeSet<String> = std::collections::BTreeSet::new();
        let mut queue: Vec<String> = paths
            .into_iter()
            .map(|p| {
                p.trim_matches('"')
                    .trim_end_matches(".co")
                    .replace('.', "/")
            })
            .collect();
        while let Some(p) = queue.pop() {
            if !self.v2_modules.contains_key(&p) || !out.insert(p.clone()) {
                continue;
            }
            if let Some(more) = self.v2_imports.get(&p) {
                queue.extend(more.iter().cloned());
            }
        }
        out.into_iter().collect()
    }

    /// The module (by import path) whose flow this is, if a 2.x library module defines it.
    pub fn v2_flow_module(&self, name: &str) -> Option<&str> {
        self.v2_modules
            .iter()
            .find(|(_, flows)| flows.iter().any(|f| f.name == name))
            .map(|(path, _)| path.as_str())
    }
}
