//! Scenario files (docs/scenarios.md): YAML files that drive the tool check step by step and say
//! what each check must answer. [`Runner`] runs them against the agent each names, compiling each
//! agent once, and returns every step's result: what was expected, what was answered, and the
//! `source` of both; with coverage on, it also counts what of the record each check exercised
//! ([`coverage`]). `stalwart test` prints the results ([`report`]); the workspace's conformance
//! tests run the same runner.

pub mod codes;
pub mod coverage;
pub mod report;
mod run;

use std::path::{Path, PathBuf};

use serde_json::Value;
use stalwart_diagnostics::{Diagnostic, Files};

pub use run::Runner;

/// The clock scenarios start at unless they say otherwise: 2026-11-30T12:00:00Z.
pub const DEFAULT_NOW: u64 = 1_796_040_000;

/// One scenario file's result.
#[derive(Debug, Clone)]
pub struct ScenarioResult {
    /// The file, as it was named.
    pub path: PathBuf,
    /// The agent.yaml (or record folder) it ran against.
    pub agent: PathBuf,
    pub steps: Vec<StepResult>,
}

impl ScenarioResult {
    pub fn passed(&self) -> bool {
        self.steps.iter().all(StepResult::passed)
    }

    pub fn failed_steps(&self) -> impl Iterator<Item = &StepResult> {
        self.steps.iter().filter(|s| !s.passed())
    }
}

/// One step's result.
#[derive(Debug, Clone)]
pub struct StepResult {
    /// 1-based position in `steps:`.
    pub index: usize,
    /// Its `name:`, else `step N`.
    pub name: String,
    /// 1-based line of the step in the scenario file.
    pub line: u32,
    /// `check`, `read`, `reply`, `plan_again`, `report`, `advance`, `session`, `tamper`, `route`.
    pub kind: &'static str,
    /// Each way the answer differed from what was expected (empty: the step passed).
    pub failures: Vec<Failure>,
    /// The check's whole answer (`check` steps), or the plan (`read` with `plan:`, `plan_again`).
    pub answer: Option<Value>,
    /// `expect.detail.source` when the scenario names one.
    pub expected_source: Option<Value>,
    /// The answer's `detail.source`, when it has one.
    pub actual_source: Option<Value>,
    /// Seconds the step took.
    pub seconds: f64,
}

impl StepResult {
    pub fn passed(&self) -> bool {
        self.failures.is_empty()
    }
}

/// One difference between the answer and the expectation.
#[derive(Debug, Clone, PartialEq)]
pub struct Failure {
    /// What was compared: `decision`, `reasons`, `detail.<key>`, `no_detail.<key>`,
    /// `question_contains`, `confirmation`, `idempotency_key`, `plan.<key>`, `history`, `report`,
    /// `from_plan`.
    pub what: String,
    /// The expected value (null where the expectation is an absence).
    pub expected: Value,
    /// The answered value (null where it is missing).
    pub actual: Value,
}

impl Failure {
    /// One line: `decision: expected "refuse", got "allow"`.
    pub fn describe(&self) -> String {
        match self.what.as_str() {
            "report" | "from_plan" | "history" | "source" => {
                format!("{}: {}", self.what, text(&self.actual))
            }
            w if w.starts_with("no_detail.") => format!(
                "detail.{} should be absent, got {}",
                w.trim_start_matches("no_detail."),
                self.actual
            ),
            w if w.starts_with("detail.") && self.actual.is_null() => {
                format!("{w}: expected {}, but it is missing", self.expected)
            }
            "question_contains" => format!(
                "the question {} does not contain {}",
                self.actual, self.expected
            ),
            _ => format!(
                "{}: expected {}, got {}",
                self.what, self.expected, self.actual
            ),
        }
    }
}

fn text(v: &Value) -> String {
    v.as_str()
        .map(str::to_string)
        .unwrap_or_else(|| v.to_string())
}

/// A scenario that could not be run: bad YAML, an unknown step, an agent that does not compile.
#[derive(Debug, Clone)]
pub struct ScenarioError {
    pub diagnostic: Box<Diagnostic>,
    /// The files the diagnostic's spans are in (the scenario file; an agent's files).
    pub files: Files,
    /// More diagnostics, rendered (an agent's own, when it does not compile).
    pub related: String,
}

impl ScenarioError {
    /// The diagnostics as the compiler prints them (`error[E0600]: … --> file:line:col`).
    pub fn render(&self) -> String {
        let mut out = stalwart_diagnostics::render_text(
            &self.files,
            std::slice::from_ref(self.diagnostic.as_ref()),
        );
        out.push_str(&self.related);
        out
    }

    /// `file:line:col: code message` in one line.
    pub fn one_line(&self) -> String {
        let span = self.diagnostic.primary.span;
        let (line, col) = self.files.line_col(span.file, span.start);
        format!(
            "{}:{line}:{col}: {} {}",
            self.files.name(span.file).unwrap_or("?"),
            self.diagnostic.code.id,
            self.diagnostic.message
        )
    }
}

/// The scenario files under `paths`: a file as it is named; in a folder, recursively and sorted,
/// each `*.yaml` and `*.yml` file that is a scenario ([`looks_like_scenario`]: agent.yaml and
/// catalogues kept beside the scenarios are not); `.stalwart` folders are skipped.
pub fn collect(paths: &[PathBuf]) -> Result<Vec<PathBuf>, String> {
    let mut out = Vec::new();
    for p in paths {
        if p.is_dir() {
            let mut found = Vec::new();
            walk(p, &mut found).map_err(|e| format!("{}: {e}", p.display()))?;
            found.sort();
            out.extend(found.into_iter().filter(|f| looks_like_scenario(f)));
        } else if p.exists() {
            out.push(p.clone());
        } else {
            return Err(format!("{}: no such file or folder", p.display()));
        }
    }
    Ok(out)
}

fn walk(dir: &Path, out: &mut Vec<PathBuf>) -> std::io::Result<()> {
    for entry in std::fs::read_dir(dir)? {
        let path = entry?.path();
        if path.is_dir() {
            if path.file_name().is_some_and(|n| n == ".stalwart") {
                continue;
            }
            walk(&path, out)?;
        } else if path.extension().is_some_and(|e| e == "yaml" || e == "yml") {
            out.push(path);
        }
    }
    Ok(())
}

/// Whether a file found in a folder is a scenario: a mapping with `steps:`. A file that cannot be
/// read or is not YAML counts as one, so that running it reports why.
pub fn looks_like_scenario(path: &Path) -> bool {
    let Ok(text) = std::fs::read_to_string(path) else {
        return true;
    };
    let parsed = stalwart_agent::parse_yaml_value(stalwart_diagnostics::FileId(0), &text);
    if parsed.diagnostics.iter().any(Diagnostic::is_error) {
        return true;
    }
    parsed.value.is_some_and(|v| v.get("steps").is_some())
}

/// What a scenario names to run against.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum NamedAgent {
    /// `agent:` — an agent.yaml to compile (normalised, relative to the scenario's folder).
    Agent(PathBuf),
    /// `record:` — a record folder.
    Record(PathBuf),
}

/// The agent a scenario's text names, when the text is a scenario (a mapping with `steps:`) and
/// names one; `path` is the scenario's own.
pub fn named_agent(path: &Path, text: &str) -> Option<NamedAgent> {
    let parsed = stalwart_agent::parse_yaml_value(stalwart_diagnostics::FileId(0), text);
    let doc = parsed.value?;
    doc.get("steps")?;
    let dir = path.parent().unwrap_or(Path::new("."));
    if let Some(agent) = doc.get("agent").and_then(Value::as_str) {
        return Some(NamedAgent::Agent(normalize(&dir.join(agent))));
    }
    let record = doc.get("record").and_then(Value::as_str)?;
    Some(NamedAgent::Record(normalize(&dir.join(record))))
}

/// Runs one scenario file on its own (the conformance tests' entry): `Ok` with the number of
/// steps, or `Err` with every step that did not answer as expected, one a line.
pub fn run_scenario(path: &Path) -> Result<usize, String> {
    let mut runner = Runner::new(false);
    match runner.run(path) {
        Ok(result) if result.passed() => Ok(result.steps.len()),
        Ok(result) => {
            let lines: Vec<String> = result
                .failed_steps()
                .flat_map(|s| {
                    s.failures.iter().map(move |f| {
                        let got = s
                            .answer
                            .as_ref()
                            .map(|a| format!("; got {a}"))
                            .unwrap_or_default();
                        format!("{} (line {}): {}{got}", s.name, s.line, f.describe())
                    })
                })
                .collect();
            Err(format!("{}:\n  {}", path.display(), lines.join("\n  ")))
        }
        Err(e) => Err(e.one_line()),
    }
}

/// JSON equality with numbers compared as numbers (`40` = `40.0`).
pub fn same(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => x.as_f64() == y.as_f64(),
        (Value::Array(x), Value::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(a, b)| same(a, b))
        }
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len() && x.iter().all(|(k, v)| y.get(k).is_some_and(|w| same(v, w)))
        }
        _ => a == b,
    }
}

/// A path with `.` and `a/..` taken out, without reading the disk (`tests/x/../../shop` →
/// `shop`).
pub fn normalize(path: &Path) -> PathBuf {
    use std::path::Component;
    let mut out: Vec<Component<'_>> = Vec::new();
    for c in path.components() {
        match c {
            Component::CurDir => {}
            Component::ParentDir => match out.last() {
                Some(Component::Normal(_)) => {
                    out.pop();
                }
                Some(Component::RootDir | Component::Prefix(_)) => {}
                _ => out.push(c),
            },
            other => out.push(other),
        }
    }
    if out.is_empty() {
        return PathBuf::from(".");
    }
    out.iter().collect()
}
