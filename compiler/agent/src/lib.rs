//! Front end for agent descriptions: agent.yaml and every way of declaring tools.
//!
//! Each function here is pure: text in, a typed tree and diagnostics out (`Parse<T>`); nothing
//! reads files. The driver finds the files (catalogues, MCP answers, Python modules) that
//! agent.yaml names and hands their text back in. `resolve_agent` checks names across the
//! parsed pieces (tools named by agents, `after`/`undo` bindings, facts, duplicates).

pub mod ast;
pub mod codes;

mod catalogue;
pub mod declaration;
mod mcp;
pub mod node;
mod overrides;
mod python;
mod resolve;
mod yaml;

use stalwart_diagnostics::{Diagnostic, FileId};

pub use ast::*;
pub use overrides::apply_overrides;
pub use python::{module_candidates, module_path};

/// A value and the diagnostics found while producing it. Parsing never fails: bad input gives
/// diagnostics and as much of the value as could be read.
#[derive(Debug, Clone, PartialEq)]
pub struct Parse<T> {
    pub value: T,
    pub diagnostics: Vec<Diagnostic>,
}

/// Parses agent.yaml.
pub fn parse_agent(file: FileId, text: &str) -> Parse<AgentFile> {
    yaml::parse_agent(file, text)
}

/// Parses a catalogue file (JSON or YAML: a list of tools, or a mapping with `tools:`).
/// `path` is the path as agent.yaml wrote it, recorded as the tools' origin.
pub fn parse_catalogue(file: FileId, text: &str, path: &str) -> Parse<Vec<ToolDecl>> {
    catalogue::parse_catalogue(file, text, path)
}

/// Parses an MCP `tools/list` answer (the JSON-RPC response, or its `result`, or a bare list).
pub fn parse_mcp(file: FileId, text: &str, path: &str) -> Parse<Vec<ToolDecl>> {
    mcp::parse_mcp(file, text, path)
}

/// Reads a Python tool module statically (it is never run): every function decorated
/// `@tool(...)` becomes a declaration.
pub fn parse_python_module(file: FileId, text: &str, module: &str) -> Parse<Vec<ToolDecl>> {
    python::parse_python_module(file, text, module)
}

/// Checks names across agent.yaml and the tools every source declared.
pub fn resolve_agent(agent: &AgentFile, tools: &[ToolDecl]) -> Vec<Diagnostic> {
    resolve::resolve_agent(agent, tools)
}

/// Reads a YAML (or JSON) document as plain JSON data, with diagnostics for bad input. Used by
/// tools that take YAML files which are not agent descriptions (scenario files, for one).
pub fn parse_yaml_value(file: FileId, text: &str) -> Parse<Option<serde_json::Value>> {
    let parsed = yaml::to_node(file, text);
    Parse {
        value: parsed.value.map(|n| n.to_json()),
        diagnostics: parsed.diagnostics,
    }
}

/// Reads a YAML (or JSON) document as a marked tree (every value and key with its span), for
/// front ends outside this crate that read their own YAML formats (rule sheets).
pub fn parse_yaml_node(file: FileId, text: &str) -> Parse<Option<node::Node>> {
    yaml::to_node(file, text)
}
