//! Compiling and proving agents through the compiler's façade (`stalwart-driver`), as
//! `stalwart compile`, `stalwart rules compile` and `stalwart verify` do, with their outcomes
//! turned into Python values and exceptions.
//!
//! An agent compiled for this process is compiled into a private temporary folder and loaded
//! from there into memory; nothing is written beside agent.yaml but the proof cache
//! (`.stalwart/cache/`, as `stalwart verify` keeps it). An agent given as Python values
//! (`Agent(...)`) is compiled from its agent.yaml text, held in memory under the name
//! `Agent(...)` in its folder, so relative paths in it resolve from that folder.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use pyo3::exceptions::{PyFileNotFoundError, PyValueError};
use pyo3::prelude::*;
use stalwart_analyzer::rule_by_id;
use stalwart_diagnostics::{Diagnostic, Files};
use stalwart_driver::database::{LoadProblem, normalize};
use stalwart_driver::verify::{VerifyOptions, verify_agent};
use stalwart_driver::{CompileOptions, CompileOutcome, DiskLoader, FileLoader, Text};
use stalwart_record::Record;

use crate::convert::to_py;
use crate::errors::{error, guard};
use crate::record::{PyRecord, load_error};

/// Reads one file from memory and every other from the disk.
struct Overlay {
    path: PathBuf,
    text: String,
}

impl FileLoader for Overlay {
    fn read(&self, path: &Path) -> Result<Text, LoadProblem> {
        if normalize(path) == self.path {
            return Ok(Text {
                text: self.text.clone(),
                had_bom: false,
            });
        }
        DiskLoader.read(path)
    }

    fn read_lossy(&self, path: &Path) -> Option<String> {
        DiskLoader.read_lossy(path)
    }

    fn list_tree(&self, path: &Path) -> Option<Vec<String>> {
        DiskLoader.list_tree(path)
    }
}

fn loader(path: &Path, text: Option<String>) -> Arc<dyn FileLoader> {
    match text {
        Some(text) => Arc::new(Overlay {
            path: normalize(path),
            text,
        }),
        None => Arc::new(DiskLoader),
    }
}

/// Whether a diagnostic is the rulebook's: the rulebook languages' codes (E1000–E1999) and the
/// errors of lowering a rulebook into gates (E0451 `rulebook-unsupported`, E0452 a tool the
/// rulebook names that the catalogue lacks).
fn is_rulebook_code(code: &str) -> bool {
    let number: u32 = code.get(1..).and_then(|n| n.parse().ok()).unwrap_or(0);
    matches!(code, "E0451" | "E0452") || (1000..2000).contains(&number)
}

/// A source path that is a rulebook compiled from source: Colang files, rule sheets, a NeMo
/// configuration.
fn is_rulebook_source(path: &str) -> bool {
    let name = path.rsplit('/').next().unwrap_or(path);
    path.ends_with(".co")
        || path.ends_with(".csv")
        || path.ends_with(".rules.yaml")
        || path.ends_with(".rules.yml")
        || name == "config.yml"
        || name == "config.yaml"
}

/// Raises the exception a failed compile is: `FileNotFoundError` when the input is missing,
/// `RulebookNotHeld("rulebook_unsupported")` when the rulebook's own errors stop it, otherwise
/// `ValueError` with the compiler's diagnostics as text.
fn compile_failure(py: Python<'_>, outcome: &CompileOutcome) -> PyErr {
    if let Some(fatal) = &outcome.fatal {
        return PyFileNotFoundError::new_err(fatal.clone());
    }
    let errors: Vec<Diagnostic> = outcome
        .diagnostics
        .iter()
        .filter(|d| d.is_error())
        .cloned()
        .collect();
    // An input that is not there (`unreadable-input`, E0001): the file the caller named.
    if let [only] = errors.as_slice()
        && only.code.id == "E0001"
        && only.message.ends_with("does not exist")
    {
        return PyFileNotFoundError::new_err(only.message.clone());
    }
    rendered_failure(py, &outcome.files, &errors)
}

fn rendered_failure(py: Python<'_>, files: &Files, errors: &[Diagnostic]) -> PyErr {
    let text = stalwart_diagnostics::render_text(files, errors);
    let text = text.trim_end().to_string();
    if errors.iter().any(|d| is_rulebook_code(d.code.id)) {
        let message =
            format!("the rulebook was not compiled whole, so the agent does not run:\n{text}");
        return error(
            py,
            "RulebookNotHeld",
            (message, "rulebook_unsupported", text),
        );
    }
    PyValueError::new_err(text)
}

/// Compiles agent.yaml at `path` (or `text` held in memory under that path) into a record
/// folder at `out`.
fn compile_to(
    py: Python<'_>,
    path: &Path,
    text: Option<String>,
    out: &Path,
) -> PyResult<stalwart_driver::Written> {
    let loader = loader(path, text);
    let options = CompileOptions {
        out: Some(out.to_path_buf()),
    };
    let outcome = guard(py, "the compiler", || {
        stalwart_driver::compile_agent(loader, path, &options)
    })?;
    match (&outcome.written, outcome.has_errors()) {
        (Some(written), false) => Ok(written.clone()),
        _ => Err(compile_failure(py, &outcome)),
    }
}

/// Under `settings: {compiled_only: true}` only a compiled rulebook may be used: a rulebook this
/// compile read from source is `policy_input_refused`.
fn check_compiled_only(py: Python<'_>, record: &Record, path: &Path) -> PyResult<()> {
    let body = record.body();
    if !body.settings.compiled_only {
        return Ok(());
    }
    let Some(source) = body
        .sources
        .iter()
        .find(|s| is_rulebook_source(s.path.as_str()))
    else {
        return Ok(());
    };
    let message = format!(
        "`{}` sets `compiled_only: true`, so only a rulebook folder `stalwart rules compile` wrote \
         is accepted, and the rulebook `{}` was given as source: the agent does not run",
        path.display(),
        source.path.as_str()
    );
    Err(error(
        py,
        "RulebookNotHeld",
        (message.clone(), "policy_input_refused", message),
    ))
}

/// Proves the agent (cached by its graph's digest, as `stalwart verify` does) and returns the
/// report; raises `NotVerified` when a finding stops the agent or an obligation stayed undecided.
fn prove(py: Python<'_>, path: &Path, text: Option<String>) -> PyResult<serde_json::Value> {
    let loader = loader(path, text);
    let outcome = guard(py, "the proof", || {
        verify_agent(loader, path, &VerifyOptions::default())
    })?;
    if let Some(fatal) = &outcome.fatal {
        return Err(PyFileNotFoundError::new_err(fatal.clone()));
    }
    let errors: Vec<Diagnostic> = outcome
        .diagnostics
        .iter()
        .filter(|d| d.is_error())
        .cloned()
        .collect();
    let Some(proof) = outcome.proof.filter(|_| errors.is_empty()) else {
        return Err(rendered_failure(py, &outcome.files, &errors));
    };
    let report = stalwart_analyzer::report::json(&proof);
    let stopping: Vec<String> = proof
        .findings
        .iter()
        .filter(|f| rule_by_id(&f.rule).is_some_and(|r| r.stops_agent))
        .map(|f| {
            let title = rule_by_id(&f.rule).map_or("", |r| r.title);
            format!(
                "{} {title} on {} ({}): {}",
                f.rule,
                f.subject,
                f.place.short(),
                f.message
            )
        })
        .collect();
    let undecided: Vec<String> = proof
        .undecided
        .iter()
        .map(|v| format!("{} on {}", v.rule, v.subject))
        .collect();
    if stopping.is_empty() && undecided.is_empty() {
        return Ok(report);
    }
    let mut message = format!(
        "the proof of `{}` does not let this agent run:",
        path.display()
    );
    for line in &stopping {
        message.push_str("\n  ");
        message.push_str(line);
    }
    if !undecided.is_empty() {
        message.push_str(&format!(
            "\n  undecided to depth {} (never reported as clean): {}",
            proof.depth,
            undecided.join(", ")
        ));
    }
    let findings: Vec<serde_json::Value> = report
        .get("findings")
        .and_then(|f| f.as_array())
        .map(|all| {
            all.iter()
                .filter(|f| f.get("stops_agent") == Some(&serde_json::Value::Bool(true)))
                .cloned()
                .collect()
        })
        .unwrap_or_default();
    let findings = to_py(py, &serde_json::Value::Array(findings))?;
    let report = to_py(py, &report)?;
    Err(error(py, "NotVerified", (message, findings, report)))
}

/// Compiles an agent for this process: `(record, report)`, the report being the proof's (None
/// without `verify`). `text` is agent.yaml's text when it is not read from `path`.
#[pyfunction]
#[pyo3(signature = (path, text=None, verify=true))]
pub fn compile_agent<'py>(
    py: Python<'py>,
    path: PathBuf,
    text: Option<String>,
    verify: bool,
) -> PyResult<(PyRecord, Option<Bound<'py, PyAny>>)> {
    let scratch = tempfile::tempdir()
        .map_err(|e| PyValueError::new_err(format!("cannot make a folder to compile into: {e}")))?;
    let out = scratch.path().join("record");
    compile_to(py, &path, text.clone(), &out)?;
    let file = out.join("record.bin");
    let record = Record::read(&file).map_err(|e| load_error(&file, &e))?;
    check_compiled_only(py, &record, &path)?;
    let graph = std::fs::read_to_string(out.join("graph.json")).ok();
    let report = if verify {
        Some(to_py(py, &prove(py, &path, text)?)?)
    } else {
        None
    };
    let record = PyRecord {
        inner: Arc::new(record),
        folder: stalwart_driver::default_out_dir(&path),
        graph,
    };
    Ok((record, report))
}

/// `stalwart compile agent.yaml -o OUT`: writes the record folder and returns its path.
#[pyfunction]
#[pyo3(signature = (path, out=None))]
pub fn write_agent_record(
    py: Python<'_>,
    path: PathBuf,
    out: Option<PathBuf>,
) -> PyResult<PathBuf> {
    let out = out.unwrap_or_else(|| stalwart_driver::default_out_dir(&path));
    compile_to(py, &path, None, &out).map(|w| w.dir)
}

/// `stalwart rules compile RULEBOOK -o OUT`: writes the rulebook's record folder and returns its
/// path.
#[pyfunction]
pub fn write_rules_record(py: Python<'_>, path: PathBuf, out: PathBuf) -> PyResult<PathBuf> {
    let outcome = guard(py, "the compiler", || {
        stalwart_driver::compile_rules(Arc::new(DiskLoader), std::slice::from_ref(&path), &out)
    })?;
    match (&outcome.written, outcome.has_errors()) {
        (Some(written), false) => Ok(written.dir.clone()),
        _ => Err(compile_failure(py, &outcome)),
    }
}
