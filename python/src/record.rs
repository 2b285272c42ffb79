//! `Record`: a loaded, validated record (`record.bin`), with read-only views of what it holds.
//!
//! A record comes from a folder `stalwart compile` or `stalwart rules compile` wrote
//! ([`PyRecord::open`], no compiler involved) or from an agent compiled in this process
//! (`crate::compile`). The views (agents, tools, facts) read the archived body in place; they are
//! conversions, not decisions.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use pyo3::exceptions::{PyFileNotFoundError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList};
use serde_json::{Value, json};
use stalwart_record::{
    ArchivedEffects, ArchivedRecordBody, ArchivedRecordKind, LoadError, Record, RecordKind,
};

use crate::convert::to_py;

/// A compiled record, loaded and validated once.
#[pyclass(module = "stalwart_agents._native", name = "Record", frozen)]
pub struct PyRecord {
    pub inner: Arc<Record>,
    /// The record folder: where `licence.json` is looked for beside `record.bin`. For an agent
    /// compiled in this process, the folder `stalwart compile` would write (`.stalwart/record`
    /// beside agent.yaml), whether or not it exists.
    pub folder: PathBuf,
    /// The agent graph (qls-graph/1 JSON text), when the record is an agent's.
    pub graph: Option<String>,
}

impl PyRecord {
    pub fn body(&self) -> &ArchivedRecordBody {
        self.inner.body()
    }

    /// The path the key lookup starts from (see `stalwart_host::key::load_key`): `record.bin` in
    /// the record folder, so that only `licence.json` in that folder is read.
    pub fn key_path(&self) -> PathBuf {
        self.folder.join("record.bin")
    }

    pub fn digest_hex(&self) -> String {
        hex(&self.inner.header().digest)
    }

    /// The record's agents' names.
    pub fn agent_names(&self) -> Vec<String> {
        self.body()
            .agents
            .iter()
            .map(|a| a.name.to_string())
            .collect()
    }
}

/// Loads `record.bin` (or the one inside a folder), mapping load errors to Python exceptions.
pub fn open_record(path: &Path) -> PyResult<PyRecord> {
    let (folder, file) = if path.is_dir() {
        (path.to_path_buf(), path.join("record.bin"))
    } else {
        (
            path.parent().unwrap_or(Path::new(".")).to_path_buf(),
            path.to_path_buf(),
        )
    };
    let record = Record::open(&file).map_err(|e| load_error(&file, &e))?;
    let graph = std::fs::read_to_string(folder.join("graph.json")).ok();
    Ok(PyRecord {
        inner: Arc::new(record),
        folder,
        graph,
    })
}

/// A load error as the exception it is: `FileNotFoundError` for a missing file, `ValueError`
/// naming what is wrong (another format version names both versions) for the rest.
pub fn load_error(path: &Path, e: &LoadError) -> PyErr {
    match e {
        LoadError::Io { error, .. } if error.kind() == std::io::ErrorKind::NotFound => {
            PyFileNotFoundError::new_err(format!(
                "no record at `{}`: compile one with `stalwart compile agent.yaml -o DIR` or \
                 `stalwart rules compile RULEBOOK -o DIR`",
                path.display()
            ))
        }
        _ => PyValueError::new_err(format!("cannot use the record `{}`: {e}", path.display())),
    }
}

fn hex(bytes: &[u8]) -> String {
    use std::fmt::Write;
    bytes.iter().fold(String::new(), |mut s, b| {
        let _ = write!(s, "{b:02x}");
        s
    })
}

fn effects(e: &ArchivedEffects) -> &'static str {
    match e {
        ArchivedEffects::Reads => "reads",
        ArchivedEffects::Changes => "changes",
        ArchivedEffects::Unknown => "unknown",
    }
}

/// A tool's name from its index.
fn tool_name(body: &ArchivedRecordBody, idx: u32) -> String {
    body.tools
        .get(idx as usize)
        .map(|t| t.name.to_string())
        .unwrap_or_default()
}

/// The file's facts (`facts:` in agent.yaml): name → `{from, tool, field, equals, same}`.
pub fn facts_json(body: &ArchivedRecordBody) -> Value {
    let mut out = serde_json::Map::new();
    for fact in body.facts.iter() {
        let tool = tool_name(body, fact.tool.to_native());
        let field = fact.field.to_string();
        let equals = fact
            .equals
            .as_ref()
            .and_then(|v| stalwart_runtime::value::to_json(body, v.to_native()));
        let from = match &equals {
            None => format!("{tool}.{field}"),
            Some(Value::String(s)) => format!("{tool}.{field} == {s}"),
            Some(other) => format!("{tool}.{field} == {other}"),
        };
        out.insert(
            fact.name.to_string(),
            json!({
                "from": from,
                "tool": tool,
                "field": field,
                "equals": equals,
                "same": fact.same.as_ref().map(|s| s.to_string()),
            }),
        );
    }
    Value::Object(out)
}

#[pymethods]
impl PyRecord {
    /// Opens the record folder (or `record.bin`) at `path`: validated once, then read in place.
    /// No compiler is involved.
    #[staticmethod]
    fn open(path: PathBuf) -> PyResult<Self> {
        open_record(&path)
    }

    /// The BLAKE3 digest of the record's body, hex.
    #[getter]
    fn digest(&self) -> String {
        self.digest_hex()
    }

    #[getter]
    fn format_version(&self) -> u32 {
        self.inner.header().format_version
    }

    #[getter]
    fn compiler_version(&self) -> String {
        self.inner.header().compiler_version.clone()
    }

    /// `"agent"` (from `stalwart compile`) or `"rulebook"` (from `stalwart rules compile`).
    #[getter]
    fn kind(&self) -> &'static str {
        match self.body().kind {
            ArchivedRecordKind::Agent => "agent",
            ArchivedRecordKind::Rulebook => "rulebook",
        }
    }

    /// The record folder (where `licence.json` is looked for).
    #[getter]
    fn folder(&self) -> PathBuf {
        self.folder.clone()
    }

    /// Each agent with the tools it may reach.
    #[getter]
    fn agents<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let body = self.body();
        let out = PyDict::new(py);
        for agent in body.agents.iter() {
            let tools: Vec<String> = agent
                .tools
                .iter()
                .map(|t| tool_name(body, t.to_native()))
                .collect();
            out.set_item(agent.name.as_str(), tools)?;
        }
        Ok(out)
    }

    /// The catalogue's tool names, sorted.
    #[getter]
    fn tools<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        let names: Vec<&str> = self.body().tools.iter().map(|t| t.name.as_str()).collect();
        PyList::new(py, names)
    }

    /// The tools the rulebook governs, sorted.
    #[getter]
    fn governed<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        let names: Vec<&str> = self
            .body()
            .tools
            .iter()
            .filter(|t| t.gate.governed)
            .map(|t| t.name.as_str())
            .collect();
        PyList::new(py, names)
    }

    /// The rulebook's user intents, sorted.
    #[getter]
    fn intents<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        let names: Vec<&str> = self.body().intents.iter().map(|s| s.as_str()).collect();
        PyList::new(py, names)
    }

    /// The sources the record was compiled from: `[{path, blake3}]`.
    #[getter]
    fn sources<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let list: Vec<Value> = self
            .body()
            .sources
            .iter()
            .map(|s| json!({"path": s.path.as_str(), "blake3": s.digest.as_str()}))
            .collect();
        to_py(py, &Value::Array(list))
    }

    /// The file's facts: name → `{from, tool, field, equals, same}`.
    #[getter]
    fn facts<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        to_py(py, &facts_json(self.body()))
    }

    /// One tool's declaration as the record holds it, or None.
    fn tool<'py>(&self, py: Python<'py>, name: &str) -> PyResult<Option<Bound<'py, PyAny>>> {
        let body = self.body();
        let Some(tool) = body.tools.iter().find(|t| t.name.as_str() == name) else {
            return Ok(None);
        };
        let reached_by: Vec<&str> = body
            .agents
            .iter()
            .filter(|a| {
                a.tools
                    .iter()
                    .any(|t| tool_name(body, t.to_native()) == tool.name.as_str())
            })
            .map(|a| a.name.as_str())
            .collect();
        let value = json!({
            "name": tool.name.as_str(),
            "description": tool.description.as_str(),
            "effects": effects(&tool.effects),
            "arguments": tool.argument_names.iter().map(|a| a.as_str()).collect::<Vec<_>>(),
            "result_fields": tool.result_fields.iter().map(|a| a.as_str()).collect::<Vec<_>>(),
            "sends_out": tool.sends_out,
            "reads_outside": tool.reads_outside,
            "irreversible": tool.irreversible,
            "confidential": tool.confidential,
            "schema_partial": tool.schema_partial,
            "governed_by_rulebook": tool.gate.governed,
            "flows": tool.gate.flows.iter().map(|f| f.as_str()).collect::<Vec<_>>(),
            "agents": reached_by,
        });
        to_py(py, &value).map(Some)
    }

    /// The agent graph (qls-graph/1) as a dict, when the record folder has one.
    fn graph<'py>(&self, py: Python<'py>) -> PyResult<Option<Bound<'py, PyAny>>> {
        let Some(text) = &self.graph else {
            return Ok(None);
        };
        let value: Value = serde_json::from_str(text)
            .map_err(|e| PyValueError::new_err(format!("graph.json is not JSON: {e}")))?;
        to_py(py, &value).map(Some)
    }

    fn __eq__(&self, other: &Bound<'_, PyAny>) -> bool {
        other
            .cast::<PyRecord>()
            .is_ok_and(|o| o.get().inner.header().digest == self.inner.header().digest)
    }

    fn __hash__(&self) -> u64 {
        let d = &self.inner.header().digest;
        u64::from_le_bytes([d[0], d[1], d[2], d[3], d[4], d[5], d[6], d[7]])
    }

    fn __repr__(&self) -> String {
        let kind = match self.body().kind {
            ArchivedRecordKind::Agent => RecordKind::Agent,
            ArchivedRecordKind::Rulebook => RecordKind::Rulebook,
        };
        format!(
            "<Record {:?} {} tools, digest {}…>",
            kind,
            self.body().tools.len(),
            self.digest_hex().get(..12).unwrap_or("")
        )
    }
}
