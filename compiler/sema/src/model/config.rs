//! A NeMo Guardrails config as a rulebook reads it: `config.yml` / `config.yaml` (and any other
//! YAML file of the folder, joined as `RailsConfig.from_path` joins them), for
//! `colang_version`, the rails' flow lists that activate flows, and the values `$config.…`
//! conditions read. Keys that shape prompts (`instructions`, `sample_conversation`, `prompts`)
//! are noted as ignored: the check reads no prompt.

use serde_json::{Map, Value};
use stalwart_agent::node::{Node, NodeKind};
use stalwart_diagnostics::{Code, Diagnostic, Span};
use stalwart_syntax::Dialect;

/// `colang_version` is neither `1.0` nor `2.x`.
pub const BAD_COLANG_VERSION: Code = Code {
    id: "E1610",
    slug: "unknown-colang-version",
};
/// A key of the config the check does not read (it shapes prompts): a note.
pub const IGNORED_KEY: Code = Code {
    id: "N1611",
    slug: "config-key-ignored",
};
/// Config files disagree on `colang_version`.
pub const MIXED_VERSIONS: Code = Code {
    id: "E1612",
    slug: "mixed-colang-versions",
};

/// The rails whose `flows` lists activate flows.
pub const RAIL_KINDS: [&str; 6] = [
    "input",
    "output",
    "dialog",
    "retrieval",
    "tool_input",
    "tool_output",
];

/// What a rulebook reads of its NeMo config.
#[derive(Debug, Clone, PartialEq)]
pub struct NemoConfig {
    /// The dialect `colang_version` names (1.0 when none does).
    pub dialect: Dialect,
    /// Whether a config file said so (else the dialect is detected per file).
    pub version_given: bool,
    /// The flows each rail activates: (rail, flow, where).
    pub rails: Vec<(String, String, Span)>,
    /// The joined config, as `$config` reads it.
    pub value: Value,
    pub diagnostics: Vec<Diagnostic>,
}

impl Default for NemoConfig {
    fn default() -> Self {
        Self {
            dialect: Dialect::V1,
            version_given: false,
            rails: Vec::new(),
            value: Value::Object(Map::new()),
            diagnostics: Vec::new(),
        }
    }
}

/// Reads and joins the config files (already parsed to marked trees), in order.
pub fn read_config(files: &[(Node, Vec<Diagnostic>)]) -> NemoConfig {
    let mut config = NemoConfig::default();
    let mut version: Option<(Dialect, Span)> = None;
    for (node, diagnostics) in files {
        config.diagnostics.extend(diagnostics.iter().cloned());
        let Some(entries) = node.entries() else {
            continue;
        };
        for (key, value) in entries {
            match key.name.as_str() {
                "colang_version" => {
                    let text = match &value.kind {
                        NodeKind::Str(s) => s.clone(),
                        NodeKind::Float(f) => format!("{f:.1}"),
                        NodeKind::Int(i) => i.to_string(),
                        _ => String::new(),
                    };
                    let dialect = match text.as_str() {
                        "1.0" => Some(Dialect::V1),
                        "2.x" => Some(Dialect::V2),
                        _ => None,
                    };
                    match (dialect, version) {
                        (None, _) => config.diagnostics.push(
                            Diagnostic::error(
                                BAD_COLANG_VERSION,
                                value.span,
                                format!("unknown `colang_version` `{text}`"),
                            )
                            .with_label("expected `1.0` or `2.x`"),
                        ),
                        (Some(d), Some((first, at))) if d != first => config.diagnostics.push(
                            Diagnostic::error(
                                MIXED_VERSIONS,
                                value.span,
                                "the config's files name two Colang versions",
                            )
                            .with_secondary(at, "the first"),
                        ),
                        (Some(d), _) => version = Some((d, value.span)),
                    }
                }
                "rails" => read_rails(value, &mut config.rails),
                "instructions" | "sample_conversation" | "prompts" => {
                    config.diagnostics.push(
                        Diagnostic::note(
                            IGNORED_KEY,
                            key.span,
                            format!("`{}` is ignored", key.name),
                        )
                        .with_label("it shapes the model's prompt, which the check never reads"),
                    );
                }
                _ => {}
            }
        }
        join(&mut config.value, node.to_json());
    }
    if let Some((dialect, _)) = version {
        config.dialect = dialect;
        config.version_given = true;
    }
    config
}

/// `rails: {input: {flows: [...]}, …}`.
fn read_rails(rails: &Node, out: &mut Vec<(String, String, Span)>) {
    let Some(entries) = rails.entries() else {
        return;
    };
    for (kind, rail) in entries {
        if !RAIL_KINDS.contains(&kind.name.as_str()) {
            continue;
        }
        let Some(flows) = rail.get("flows").and_then(Node::items) else {
            continue;
        };
        for flow in flows {
            if let Some(name) = flow.as_str() {
                out.push((kind.name.clone(), name.trim().to_string(), flow.span));
            }
        }
    }
}

/// Joins `more` into `into` as NeMo joins config files: objects member by member, lists
/// concatenated without repeats, anything else replaced.
fn join(into: &mut Value, more: Value) {
    match (into, more) {
        (Value::Object(a), Value::Object(b)) => {
            for (k, v) in b {
                match a.get_mut(&k) {
                    Some(existing) => join(existing, v),
                    None => {
                        a.insert(k, v);
                    }
                }
            }
        }
        (Value::Array(a), Value::Array(b)) => {
            for v in b {
                if !a.contains(&v) {
                    a.push(v);
                }
            }
        }
        (slot, v) => *slot = v,
    }
}
