//! The proof of an agent: lints from the runtime, code checks of its Python tools, and the hunt
//! of its graph for a way past the guard.
//!
//! `catalogue` reads the record's tools, `system` is the transition system and its obligations,
//! `explicit` the explicit-state engine and `smt` the z3 engine that answer them, `engine` how
//! their answers combine (and disagree, QG312), `gate` whether each path of the rulebook's gates
//! can decide a call, its conditions read in their theories (`theory`), `findings` what each
//! rule raises, `lints` and `code` the checks beside the proof, `report` the text, JSON and
//! SARIF forms, `cache` the proof cache keyed by the digest of graph, catalogue and rulebook, and
//! `witness` each finding's witness path as a session the runtime can replay.

pub mod cache;
pub mod catalogue;
pub mod code;
pub mod diff;
pub mod engine;
pub mod explicit;
pub mod findings;
pub mod gate;
pub mod lints;
pub mod report;
pub mod rulebook;
pub mod rules;
#[cfg(feature = "z3")]
pub mod smt;
pub mod system;
pub mod theory;
pub mod witness;

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use stalwart_graph::{AgentGraph, Place};
use stalwart_record::RecordBody;

pub use catalogue::Catalogue;
pub use code::CodeReport;
pub use engine::{ENGINES, Engine, engines};
pub use findings::Finding;
pub use lints::Lint;
pub use rules::{RULES, Rule, RuleType, rule_by_id};
pub use system::{Answer, Bounds, Obligation, System};

/// Everything a proof reads.
#[derive(Debug, Clone)]
pub struct ProofInput<'a> {
    pub graph: &'a AgentGraph,
    pub body: &'a RecordBody,
    /// The rulebook's path as agent.yaml writes it, when it names one.
    pub rulebook: Option<String>,
    /// Errors the rulebook raised when lowered for the tool check, with their places.
    pub rulebook_errors: Vec<(String, Place)>,
    /// Python tool modules: `(path relative to agent.yaml's folder, text)`.
    pub python: Vec<(String, String)>,
    pub bounds: Bounds,
    /// What the rulebook's rules read: its checks, its flows, the advisories given.
    pub rulebook_input: rulebook::RulebookInput,
}

/// One obligation's answer, as the report states it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Verdict {
    pub rule: String,
    pub subject: String,
    /// Each engine's verdict: `reachable`, `unreachable` or `undecided`.
    pub engines: Vec<(String, String)>,
}

/// A whole proof.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Proof {
    pub rulebook: Option<String>,
    /// The catalogue's tools the rulebook governs, and those it does not (the check's other
    /// steps decide them: QG004's permissive default), by name.
    #[serde(default)]
    pub governs: Vec<String>,
    #[serde(default)]
    pub not_governed: Vec<String>,
    pub lints: Vec<Lint>,
    pub code: CodeReport,
    pub findings: Vec<Finding>,
    /// Obligations no engine could decide: never reported as clean.
    pub undecided: Vec<Verdict>,
    pub verdicts: Vec<Verdict>,
    /// `(rule, why)` for the rules that had nothing to read.
    pub nothing_to_read: Vec<(String, String)>,
    pub depth: u32,
    pub turns: u32,
    /// The digest the proof is cached under.
    pub key: String,
    /// Whether this proof was answered from the cache.
    #[serde(default)]
    pub from_cache: bool,
}

impl Proof {
    /// Findings whose rule fails the gate.
    pub fn failures(&self) -> impl Iterator<Item = &Finding> {
        self.findings.iter().filter(|f| findings::fails_gate(f))
    }

    /// The gate passes when no finding fails it and every obligation was decided.
    pub fn gate_passed(&self) -> bool {
        self.failures().next().is_none() && self.undecided.is_empty()
    }
}

/// What the hunt of a graph found: the combined answer to each obligation, each engine's
/// verdicts, and the findings (path findings, disagreements, and findings of structure).
#[derive(Debug, Clone, PartialEq)]
pub struct Hunt {
    pub answers: BTreeMap<Obligation, Answer>,
    /// Every obligation but the model's reach, with each engine's verdict.
    pub verdicts: Vec<Verdict>,
    /// The verdicts whose combined answer is undecided.
    pub undecided: Vec<Verdict>,
    pub findings: Vec<Finding>,
}

/// Runs every engine on the system, each on a thread of its own, and turns the combined answers
/// into findings.
pub fn hunt(inputs: &findings::Inputs<'_>, sys: &System<'_>, engines: &[&dyn Engine]) -> Hunt {
    let (results, structure) = std::thread::scope(|scope| {
        let running: Vec<_> = engines
            .iter()
            .map(|e| (e.name(), scope.spawn(move || e.solve(sys))))
            .collect();
        // The findings of structure (the gates' paths with z3 among them) need no answer: this
        // thread finds them while the engines search.
        let structure = findings::from_structure(inputs);
        let results: Vec<(&str, BTreeMap<Obligation, Answer>)> = running
            .into_iter()
            // An engine that panicked answers nothing: every obligation undecided by it.
            .map(|(name, run)| (name, run.join().unwrap_or_default()))
            .collect();
        (results, structure)
    });
    let combined = engine::combine(sys, &results);
    let mut found = findings::from_answers(inputs, &combined.answers);
    found.extend(
        combined
            .disagreements
            .iter()
            .map(|d| findings::disagreement(inputs, &d.obligation, d.message())),
    );
    found.extend(structure);
    findings::sort(&mut found);
    let verdict = |o: &Obligation| Verdict {
        rule: o.rule.to_string(),
        subject: o.subject.clone(),
        engines: results
            .iter()
            .map(|(name, answers)| {
                let v = answers.get(o).map_or("undecided", Answer::verdict);
                (name.to_string(), v.to_string())
            })
            .collect(),
    };
    let verdicts: Vec<Verdict> = sys
        .obligations
        .iter()
        .filter(|o| o.rule != "reach_model")
        .map(verdict)
        .collect();
    let undecided = sys
        .obligations
        .iter()
        .filter(|o| o.rule != "reach_model")
        .filter(|o| matches!(combined.answers.get(*o), Some(Answer::Undecided) | None))
        .map(verdict)
        .collect();
    Hunt {
        answers: combined.answers,
        verdicts,
        undecided,
        findings: found,
    }
}

/// Runs the proof with the engines of [`ENGINES`].
pub fn prove(input: &ProofInput<'_>) -> Proof {
    prove_with(input, &engines())
}

/// Runs the proof with the given engines.
pub fn prove_with(input: &ProofInput<'_>, engines: &[&dyn Engine]) -> Proof {
    let catalogue = Catalogue::from_record(input.body);
    let sys = System::new(input.graph, &catalogue, input.bounds);
    let inputs = findings::Inputs {
        graph: input.graph,
        catalogue: &catalogue,
        body: input.body,
        rulebook_errors: &input.rulebook_errors,
        has_rulebook: input.rulebook.is_some(),
        rulebook: &input.rulebook_input,
    };
    let hunt = hunt(&inputs, &sys, engines);
    let sends_out: Vec<String> = catalogue
        .tools
        .iter()
        .filter(|t| t.sends_out)
        .map(|t| t.name.clone())
        .collect();
    let (governed, not_governed): (Vec<_>, Vec<_>) =
        input.body.tools.iter().partition(|t| t.gate.governed);
    Proof {
        rulebook: input.rulebook.clone(),
        governs: governed.iter().map(|t| t.name.clone()).collect(),
        not_governed: not_governed.iter().map(|t| t.name.clone()).collect(),
        lints: lints::lint(&catalogue, input.graph),
        code: code::check_python(&input.python, &sends_out),
        findings: hunt.findings,
        undecided: hunt.undecided,
        verdicts: hunt.verdicts,
        nothing_to_read: findings::nothing_to_read(&inputs)
            .into_iter()
            .map(|(r, w)| (r.to_string(), w.to_string()))
            .collect(),
        depth: input.bounds.depth,
        turns: input.bounds.turns,
        key: cache::key(input),
        from_cache: false,
    }
}
