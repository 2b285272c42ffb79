//! `stalwart verify`: lint, compile, hunt. Loads agent.yaml and what it names, stops at input
//! errors, lowers the agent as `stalwart compile` does (a rulebook the tool check cannot compile
//! becomes the finding QG005 rather than an input error), builds the graph and runs the proof,
//! answering from the proof cache in `.stalwart/cache/` beside agent.yaml when nothing it reads
//! has changed.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use stalwart_analyzer::rulebook::{
    Advisory, RulebookCheck, RulebookFlow, RulebookInput, rule_of_check,
};
use stalwart_analyzer::{Bounds, Proof, ProofInput};
use stalwart_db::SourceFile;
use stalwart_diagnostics::{Diagnostic, Files};
use stalwart_graph::AgentGraph;

use crate::database::{Database, FileLoader};

/// Options of `stalwart verify`.
#[derive(Debug, Clone)]
pub struct VerifyOptions {
    pub bounds: Bounds,
    /// Read and write the proof cache.
    pub cache: bool,
    /// An advisory file (`stalwart-advisories/1`) read beside the advisories built in (QG022).
    pub advisories: Option<PathBuf>,
    /// Only these engines (by name, of `stalwart_analyzer::ENGINES`) answer, for timing one
    /// engine alone; `None`: every engine, compared. A proof by some engines only is never read
    /// from or written to the cache.
    pub engines: Option<Vec<String>>,
}

impl Default for VerifyOptions {
    fn default() -> Self {
        Self {
            bounds: Bounds::default(),
            cache: true,
            advisories: None,
            engines: None,
        }
    }
}

/// What a verify produced.
#[derive(Debug)]
pub struct VerifyOutcome {
    /// Input errors (and warnings) of agent.yaml and what it names.
    pub diagnostics: Vec<Diagnostic>,
    pub files: Files,
    /// A message about an input that has no place in a file (agent.yaml itself is missing).
    pub fatal: Option<String>,
    pub graph: Option<AgentGraph>,
    /// The record the proof was made against (what witness sessions are written from).
    pub body: Option<stalwart_record::RecordBody>,
    pub proof: Option<Proof>,
}

/// The proof cache folder of an agent.yaml.
pub fn cache_dir(agent_yaml: &Path) -> PathBuf {
    agent_yaml
        .parent()
        .unwrap_or(Path::new("."))
        .join(".stalwart")
        .join("cache")
}

/// Lints, compiles and proves an agent.
pub fn verify_agent(
    loader: Arc<dyn FileLoader>,
    agent_yaml: &Path,
    options: &VerifyOptions,
) -> VerifyOutcome {
    let advisories = match read_advisories(loader.as_ref(), options.advisories.as_deref()) {
        Ok(a) => a,
        Err(message) => {
            return VerifyOutcome {
                diagnostics: Vec::new(),
                files: Files::new(),
                fatal: Some(message),
                graph: None,
                body: None,
                proof: None,
            };
        }
    };
    let (db, file) = match Database::open(loader, agent_yaml) {
        Ok(opened) => opened,
        Err(unreadable) => {
            return VerifyOutcome {
                diagnostics: vec![unreadable.diagnostic],
                files: unreadable.files,
                fatal: None,
                graph: None,
                body: None,
                proof: None,
            };
        }
    };
    let parts = match prepare_proof(&db, file, advisories) {
        Ok(parts) => parts,
        Err(diagnostics) => {
            return VerifyOutcome {
                diagnostics,
                files: db.files(),
                fatal: None,
                graph: None,
                body: None,
                proof: None,
            };
        }
    };
    let input = parts.input(options.bounds);
    let proof = match &options.engines {
        None => prove_cached(
            &input,
            options.cache.then(|| cache_dir(agent_yaml)).as_deref(),
        ),
        Some(names) => {
            let chosen: Vec<&dyn stalwart_analyzer::Engine> = stalwart_analyzer::engines()
                .into_iter()
                .filter(|e| names.iter().any(|n| n == e.name()))
                .collect();
            stalwart_analyzer::prove_with(&input, &chosen)
        }
    };
    VerifyOutcome {
        diagnostics: parts.diagnostics,
        files: db.files(),
        fatal: None,
        graph: Some(parts.graph),
        body: Some(parts.body),
        proof: Some(proof),
    }
}

/// What a proof of agent.yaml reads, taken out of the database (owned, so that the proof can run
/// on another thread while the database takes edits), with the input's diagnostics (warnings).
#[derive(Debug, Clone)]
pub struct ProofParts {
    /// The input's warnings (an error stops before a proof: see [`prepare_proof`]).
    pub diagnostics: Vec<Diagnostic>,
    pub graph: AgentGraph,
    pub body: stalwart_record::RecordBody,
    pub rulebook: Option<String>,
    pub rulebook_errors: Vec<(String, stalwart_graph::Place)>,
    pub python: Vec<(String, String)>,
    pub rulebook_input: RulebookInput,
}

impl ProofParts {
    /// The proof's input, to the given bounds.
    pub fn input(&self, bounds: Bounds) -> ProofInput<'_> {
        ProofInput {
            graph: &self.graph,
            body: &self.body,
            rulebook: self.rulebook.clone(),
            rulebook_errors: self.rulebook_errors.clone(),
            python: self.python.clone(),
            bounds,
            rulebook_input: self.rulebook_input.clone(),
        }
    }
}

/// Lints and compiles agent.yaml (loaded in `db`) as `stalwart verify` does before it proves:
/// the proof's parts, or every diagnostic when an input error stops it.
pub fn prepare_proof(
    db: &Database,
    file: SourceFile,
    advisories: Vec<Advisory>,
) -> Result<ProofParts, Vec<Diagnostic>> {
    let mut diagnostics = stalwart_sema::analyze_agent(db, file).diagnostics.clone();
    if diagnostics.iter().any(Diagnostic::is_error) {
        return Err(diagnostics);
    }
    let lowered = stalwart_lower::lower_agent_file(db, file);
    let files_of = stalwart_graph::source_files(db, file);
    let rulebook_files = stalwart_sema::agent_rulebook_files(db, file);
    let rulebook_ids: Vec<stalwart_diagnostics::FileId> =
        rulebook_files.iter().map(|r| r.id(db)).collect();
    let mut rulebook_errors = Vec::new();
    for d in &lowered.diagnostics {
        let in_rulebook = rulebook_ids.contains(&d.primary.span.file);
        if d.is_error() && in_rulebook {
            rulebook_errors.push((
                d.message.clone(),
                stalwart_graph::place_of(db, &files_of, d.primary.span),
            ));
        } else {
            diagnostics.push(d.clone());
        }
    }
    // QG015 reports a step's unknown routes: the warning would say it twice.
    diagnostics.retain(|d| d.code != stalwart_agent::codes::UNKNOWN_ROUTE);
    let mut rulebook_input = RulebookInput {
        advisories,
        ..RulebookInput::default()
    };
    if !rulebook_files.is_empty() {
        // The rulebook checks a rule reports become its findings, not warnings beside them.
        diagnostics.retain(|d| {
            let Some(check) = rulebook_check(d, &rulebook_ids, db, &files_of) else {
                return true;
            };
            rulebook_input.checks.push(check);
            false
        });
        for rulebook in &rulebook_files {
            rulebook_input.flows.extend(
                stalwart_sema::rulebook::used_flows(db, *rulebook)
                    .into_iter()
                    .map(|(name, span)| RulebookFlow {
                        name,
                        place: stalwart_graph::place_of(db, &files_of, span),
                    }),
            );
        }
        rulebook_input.sheet = rulebook_files
            .iter()
            .any(|r| stalwart_sema::sheet::is_sheet_path(r.path(db)));
    }
    stalwart_diagnostics::sort(&mut diagnostics);
    if diagnostics.iter().any(Diagnostic::is_error) {
        return Err(diagnostics);
    }
    let graph = stalwart_graph::agent_graph(db, file).clone();
    let parsed = stalwart_sema::parse_agent_file(db, file);
    Ok(ProofParts {
        diagnostics,
        graph,
        body: lowered.body.clone(),
        rulebook: parsed.value.rulebook.as_ref().map(|r| r.value.clone()),
        rulebook_errors,
        python: python_sources(db, file),
        rulebook_input,
    })
}

/// Proves, or answers from the cache folder when it holds a proof under the same key.
pub fn prove_cached(input: &ProofInput<'_>, cache: Option<&Path>) -> Proof {
    let key = stalwart_analyzer::cache::key(input);
    if let Some(dir) = cache
        && let Some(proof) = stalwart_analyzer::cache::load(dir, &key)
    {
        return proof;
    }
    let proof = stalwart_analyzer::prove(input);
    if let Some(dir) = cache {
        // A cache that cannot be written only costs the next run its answer.
        let _ = stalwart_analyzer::cache::store(dir, &proof);
    }
    proof
}

/// The Python tool modules agent.yaml's catalogue was read from: `(path, text)`.
fn python_sources(db: &Database, file: SourceFile) -> Vec<(String, String)> {
    stalwart_sema::agent_catalogue(db, file)
        .sources
        .iter()
        .filter(|s| s.path(db).ends_with(".py"))
        .map(|s| (s.path(db).clone(), s.text(db).clone()))
        .collect()
}

/// The rulebook check a diagnostic is, when a rule reports it: a diagnostic of the rulebook file
/// whose code [`rule_of_check`] maps, on the subject its message names first in backticks.
fn rulebook_check(
    d: &Diagnostic,
    rulebook: &[stalwart_diagnostics::FileId],
    db: &Database,
    files: &[SourceFile],
) -> Option<RulebookCheck> {
    if !rulebook.contains(&d.primary.span.file) || d.is_error() {
        return None;
    }
    rule_of_check(d.code.id)?;
    let subject = d.message.split('`').nth(1)?.to_string();
    Some(RulebookCheck {
        code: d.code.id.to_string(),
        subject,
        place: stalwart_graph::place_of(db, files, d.primary.span),
    })
}

/// The advisories of the file given with `--advisories`, if one was.
fn read_advisories(loader: &dyn FileLoader, path: Option<&Path>) -> Result<Vec<Advisory>, String> {
    let Some(path) = path else {
        return Ok(Vec::new());
    };
    let text = loader.read(path).map_err(|problem| match problem {
        stalwart_db::LoadProblem::Missing => {
            format!("cannot read the advisory file `{}`", path.display())
        }
        other => format!(
            "cannot read the advisory file `{}`: {}",
            path.display(),
            other.message(&path.display().to_string())
        ),
    })?;
    stalwart_analyzer::rulebook::parse_advisories(&text.text)
        .map_err(|e| format!("the advisory file `{}` is not valid: {e}", path.display()))
}
