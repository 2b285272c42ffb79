//! The proof's findings in the editor: on save, agent.yaml is compiled as `stalwart verify`
//! compiles it and proved by the explicit-state engine (the editor never links z3), on another
//! thread, from a database snapshot; each finding is a diagnostic on its agent.yaml line with the
//! witness path as related places. Proofs are cached by the proof's key (the digest of the graph,
//! the compiled catalogue and rulebook, the bounds and the engine), as `stalwart verify` caches
//! them.

use std::collections::HashMap;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use stalwart_analyzer::engine::Explicit;
use stalwart_analyzer::{Bounds, Engine, Proof};
use stalwart_db::SourceFile;
use stalwart_diagnostics::Severity;
use stalwart_driver::Database;
use stalwart_driver::database::normalize;
use stalwart_graph::Place;

use crate::host::{AnalysisHost, FileDiagnostic, FileRange, ProjectKind};

/// A proof to run: a snapshot of agent.yaml's database.
pub struct ProofRequest {
    pub agent_yaml: PathBuf,
    db: Database,
    file: SourceFile,
}

impl std::fmt::Debug for ProofRequest {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ProofRequest")
            .field("agent_yaml", &self.agent_yaml)
            .finish()
    }
}

/// Proofs by key, shared by the proof threads.
#[derive(Debug, Clone, Default)]
pub struct ProofCache {
    proofs: Arc<Mutex<HashMap<String, Arc<Proof>>>>,
}

/// What a proof gave the editor.
#[derive(Debug, Clone, PartialEq)]
pub struct ProofOutcome {
    pub agent_yaml: PathBuf,
    /// Findings (and undecided obligations) as diagnostics, on agent.yaml's lines.
    pub diagnostics: Vec<FileDiagnostic>,
    pub gate_passed: bool,
    pub from_cache: bool,
    /// An input error stopped the compile: there is no proof (the diagnostics say why).
    pub stopped: bool,
}

impl AnalysisHost {
    /// The agents whose proof reads `path` (agent.yaml itself or a file it names).
    pub fn agents_reading(&self, path: &Path) -> Vec<PathBuf> {
        let path = normalize(path);
        // INVARIANT: no query runs here (the main loop calls this on every edit): a file the
        // database loaded is one the project read, or read before an edit dropped it, which at
        // worst starts a proof that finds what the last one found.
        self.projects()
            .iter()
            .filter(|p| p.kind == ProjectKind::Agent && p.db.loaded(&path).is_some())
            .map(|p| p.entry.clone())
            .collect()
    }

    /// A snapshot of agent.yaml's database for a proof on another thread.
    pub fn proof_request(&self, agent_yaml: &Path) -> Option<ProofRequest> {
        let agent_yaml = normalize(agent_yaml);
        let project = self
            .projects()
            .iter()
            .find(|p| p.kind == ProjectKind::Agent && p.entry == agent_yaml)?;
        let (db, file) = project.snapshot();
        Some(ProofRequest {
            agent_yaml,
            db,
            file: file?,
        })
    }
}

/// Compiles and proves; `None` when an edit cancelled the compile (salsa unwinds a snapshot's
/// queries when the database is written) or the proof failed.
pub fn run_proof(request: ProofRequest, cache: &ProofCache) -> Option<ProofOutcome> {
    let ProofRequest {
        agent_yaml,
        db,
        file,
    } = request;
    let root = db.root().to_path_buf();
    let prepared = catch_unwind(AssertUnwindSafe(|| {
        stalwart_driver::verify::prepare_proof(&db, file, Vec::new())
    }))
    .ok()?;
    // The snapshot is let go before the proof runs: an edit waits for no proof.
    drop(db);
    let parts = match prepared {
        Ok(parts) => parts,
        Err(_) => {
            return Some(ProofOutcome {
                agent_yaml,
                diagnostics: Vec::new(),
                gate_passed: false,
                from_cache: false,
                stopped: true,
            });
        }
    };
    let input = parts.input(Bounds::default());
    let key = format!(
        "{}:{}",
        stalwart_analyzer::cache::key(&input),
        Explicit.name()
    );
    let cached = cache.proofs.lock().ok()?.get(&key).cloned();
    let (proof, from_cache) = match cached {
        Some(p) => (p, true),
        None => {
            let engines: [&dyn Engine; 1] = [&Explicit];
            let proof = catch_unwind(AssertUnwindSafe(|| {
                stalwart_analyzer::prove_with(&input, &engines)
            }))
            .ok()?;
            let proof = Arc::new(proof);
            if let Ok(mut map) = cache.proofs.lock() {
                map.insert(key, proof.clone());
            }
            (proof, false)
        }
    };
    Some(ProofOutcome {
        diagnostics: findings(&proof, &root, &agent_yaml),
        gate_passed: proof.gate_passed(),
        agent_yaml,
        from_cache,
        stopped: false,
    })
}

fn findings(proof: &Proof, root: &Path, agent_yaml: &Path) -> Vec<FileDiagnostic> {
    let range = |p: &Place| FileRange {
        path: if p.file.is_empty() {
            agent_yaml.to_path_buf()
        } else {
            normalize(&root.join(&p.file))
        },
        start: p.start,
        end: p.end,
    };
    let mut out = Vec::new();
    for f in &proof.findings {
        let rule = stalwart_analyzer::rule_by_id(&f.rule);
        let fails = stalwart_analyzer::findings::fails_gate(f);
        let related = f
            .witness
            .iter()
            .enumerate()
            .map(|(i, s)| {
                (
                    range(&s.place),
                    format!("witness step {}: {} → {}", i + 1, s.from, s.to),
                )
            })
            .collect();
        out.push(FileDiagnostic {
            range: range(&f.place),
            severity: if fails {
                Severity::Error
            } else {
                Severity::Warning
            },
            code: f.rule.clone(),
            slug: rule
                .map(|r| r.title.to_lowercase().replace(' ', "-"))
                .unwrap_or_default(),
            message: f.message.clone(),
            label: format!("on `{}`", f.subject),
            related,
            notes: Vec::new(),
            help: rule.map(|r| r.fix.replace("{subject}", &f.subject)),
            fix: None,
        });
    }
    for v in &proof.undecided {
        out.push(FileDiagnostic {
            range: FileRange {
                path: agent_yaml.to_path_buf(),
                start: 0,
                end: 0,
            },
            severity: Severity::Warning,
            code: v.rule.clone(),
            slug: "undecided".to_string(),
            message: format!(
                "{} is undecided for `{}` to depth {}: never clean",
                v.rule, v.subject, proof.depth
            ),
            label: String::new(),
            related: Vec::new(),
            notes: Vec::new(),
            help: Some("run `stalwart verify` for both engines".to_string()),
            fix: None,
        });
    }
    out
}
