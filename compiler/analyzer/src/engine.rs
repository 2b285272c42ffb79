//! The engines that answer the obligations, and their agreement.
//!
//! Every engine answers the same `System`. Their answers are combined into one per obligation:
//! a witness counts only when it replays through `explicit::take` (the tool check's transitions),
//! so a reachable answer is a path the check really lets through. A replayed witness makes the
//! obligation reachable (the first engine's, in engine order, is the one reported, so the
//! explicit search's shortest witness is shown); otherwise an engine that proved it unreachable
//! makes it unreachable (each engine's unreachable covers every path within the same bounds);
//! otherwise it is undecided, never clean. Two engines that cannot both be right -- one reachable,
//! the other unreachable, or a witness that does not replay -- are a disagreement, raised as
//! QG312 on the obligation's subject.

use std::collections::BTreeMap;

use crate::explicit;
use crate::system::{Answer, Obligation, System};

/// An engine answers every obligation of a system. Engines run side by side, each on a thread.
pub trait Engine: Sync {
    /// The name verdicts and reports give it.
    fn name(&self) -> &'static str;
    fn solve(&self, sys: &System<'_>) -> BTreeMap<Obligation, Answer>;
}

/// The explicit-state search (`explicit.rs`).
#[derive(Debug, Clone, Copy)]
pub struct Explicit;

impl Engine for Explicit {
    fn name(&self) -> &'static str {
        "explicit"
    }

    fn solve(&self, sys: &System<'_>) -> BTreeMap<Obligation, Answer> {
        explicit::solve(sys)
    }
}

/// Bounded model checking with z3 (`smt/`).
#[cfg(feature = "z3")]
#[derive(Debug, Clone, Copy)]
pub struct Z3;

#[cfg(feature = "z3")]
impl Engine for Z3 {
    fn name(&self) -> &'static str {
        "z3"
    }

    fn solve(&self, sys: &System<'_>) -> BTreeMap<Obligation, Answer> {
        crate::smt::solve(sys)
    }
}

/// The engines that answer every obligation, by name.
#[cfg(feature = "z3")]
pub const ENGINES: &[&str] = &["explicit", "z3"];
/// The engines that answer every obligation, by name.
#[cfg(not(feature = "z3"))]
pub const ENGINES: &[&str] = &["explicit"];

/// The engines of [`ENGINES`].
pub fn engines() -> Vec<&'static dyn Engine> {
    #[cfg(feature = "z3")]
    return vec![&Explicit, &Z3];
    #[cfg(not(feature = "z3"))]
    return vec![&Explicit];
}

/// Two engines that cannot both be right about one obligation.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Disagreement {
    pub obligation: Obligation,
    /// Each engine's verdict.
    pub engines: Vec<(String, String)>,
    /// Engines whose witness does not replay.
    pub unreplayed: Vec<String>,
}

impl Disagreement {
    /// The finding's message.
    pub fn message(&self) -> String {
        let verdicts: Vec<String> = self
            .engines
            .iter()
            .map(|(e, v)| format!("{e} says {v}"))
            .collect();
        let mut text = format!(
            "the engines disagree on {} for '{}': {}",
            self.obligation.rule,
            self.obligation.subject,
            verdicts.join(", ")
        );
        for e in &self.unreplayed {
            text.push_str(&format!(
                ", and the witness {e} gives does not replay through the tool check"
            ));
        }
        text
    }
}

/// The engines' answers, combined.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Combined {
    pub answers: BTreeMap<Obligation, Answer>,
    pub disagreements: Vec<Disagreement>,
}

/// Combines each engine's answers (in engine order) over the system's obligations.
pub fn combine(sys: &System<'_>, results: &[(&str, BTreeMap<Obligation, Answer>)]) -> Combined {
    let mut answers = BTreeMap::new();
    let mut disagreements = Vec::new();
    for o in &sys.obligations {
        let mut witness = None;
        let mut reachable = false;
        let mut unreachable = false;
        let mut unreplayed = Vec::new();
        let mut engines = Vec::new();
        for (name, found) in results {
            let answer = found.get(o).unwrap_or(&Answer::Undecided);
            engines.push((name.to_string(), answer.verdict().to_string()));
            match answer {
                Answer::Reachable(path) if explicit::replay(sys, path, o) => {
                    reachable = true;
                    witness.get_or_insert_with(|| path.clone());
                }
                Answer::Reachable(_) => unreplayed.push(name.to_string()),
                Answer::Unreachable => unreachable = true,
                Answer::Undecided => {}
            }
        }
        let answer = match witness {
            Some(path) => Answer::Reachable(path),
            None if unreachable => Answer::Unreachable,
            None => Answer::Undecided,
        };
        if (reachable && unreachable) || !unreplayed.is_empty() {
            disagreements.push(Disagreement {
                obligation: o.clone(),
                engines,
                unreplayed,
            });
        }
        answers.insert(o.clone(), answer);
    }
    Combined {
        answers,
        disagreements,
    }
}
