//! Document symbols: what a file defines (flows, messages, intents, sheet rules; agents, tools,
//! facts and steps of agent.yaml; a catalogue's tools), in file order.

use std::path::Path;

use stalwart_sema::model::names::NameKind;

use crate::host::{AnalysisHost, FileRange};
use crate::navigate::project_names;

/// One symbol of a file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Symbol {
    pub name: String,
    pub kind: NameKind,
    pub range: FileRange,
}

impl AnalysisHost {
    /// The definitions written in a file.
    pub fn symbols(&self, path: &Path) -> Vec<Symbol> {
        let Some(project) = self.project_of(path) else {
            return Vec::new();
        };
        let mut out: Vec<Symbol> = project_names(project)
            .into_iter()
            .filter(|r| r.definition)
            .filter_map(|r| {
                let range = project.range(r.span)?;
                (range.path == stalwart_driver::database::normalize(path)).then_some(Symbol {
                    name: r.name,
                    kind: r.kind,
                    range,
                })
            })
            .collect();
        out.sort_by_key(|s| s.range.start);
        out.dedup();
        out
    }
}
