//! Lints from the runtime: what makes a write hard to run safely (no idempotency, no result
//! schema, an undo that is not retry-safe or that the agent cannot reach). None of these blocks an
//! agent; the report lists them first, in the order the runtime raises them.

use std::collections::{HashMap, HashSet};

use serde::{Deserialize, Serialize};
use stalwart_graph::AgentGraph;

use crate::catalogue::{Catalogue, ToolFacts};

/// One lint.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Lint {
    pub code: String,
    pub tool: String,
    pub message: String,
}

impl Lint {
    /// `write_not_retry_safe (warning) on charge_card: …`.
    pub fn line(&self) -> String {
        format!("{} (warning) on {}: {}", self.code, self.tool, self.message)
    }
}

/// Every lint, per write in catalogue order, then the undo lints that read the agents.
pub fn lint(catalogue: &Catalogue, graph: &AgentGraph) -> Vec<Lint> {
    let mut out = Vec::new();
    let mut push = |code: &'static str, tool: &str, message: String| {
        out.push(Lint {
            code: code.to_string(),
            tool: tool.to_string(),
            message,
        });
    };
    // The first tool of each name, as `Catalogue::tool` finds it.
    let mut by_name: HashMap<&str, &ToolFacts> = HashMap::new();
    for t in &catalogue.tools {
        by_name.entry(t.name.as_str()).or_insert(t);
    }
    for t in catalogue.tools.iter().filter(|t| t.write) {
        if !t.retry_safe {
            push(
                "write_not_retry_safe",
                &t.name,
                "a write with no idempotency, so an ambiguous failure goes to a person".to_string(),
            );
        }
        if !t.has_result_schema {
            push(
                "write_without_result_schema",
                &t.name,
                "a write with no result schema, so its outcome could not be reported".to_string(),
            );
        }
        if let Some(undo) = &t.undo_tool
            && by_name.get(undo.as_str()).is_some_and(|u| !u.retry_safe)
        {
            push(
                "compensation_not_retry_safe",
                &t.name,
                format!("'{undo}' undoes it and is not retry-safe"),
            );
        }
    }
    // Per tool, the agents that list it, in order; per agent, what it lists.
    let lists: Vec<HashSet<&str>> = graph
        .agents
        .iter()
        .map(|a| a.tools.iter().map(String::as_str).collect())
        .collect();
    let mut listed_by: HashMap<&str, Vec<usize>> = HashMap::new();
    for (i, a) in graph.agents.iter().enumerate() {
        for t in &a.tools {
            let by = listed_by.entry(t.as_str()).or_default();
            if by.last() != Some(&i) {
                by.push(i);
            }
        }
    }
    for t in catalogue.tools.iter().filter(|t| t.write) {
        let Some(undo) = &t.undo_tool else { continue };
        let agents = listed_by
            .get(t.name.as_str())
            .map_or(&[][..], Vec::as_slice);
        for (a, tools) in agents
            .iter()
            .filter_map(|&i| Some((graph.agents.get(i)?, lists.get(i)?)))
        {
            if !tools.contains(undo.as_str()) {
                push(
                    "compensation_out_of_reach",
                    &t.name,
                    format!(
                        "agent '{}' can call it but not '{undo}', which undoes it, so a run of that agent cannot undo it",
                        a.name
                    ),
                );
            }
        }
    }
    out
}
