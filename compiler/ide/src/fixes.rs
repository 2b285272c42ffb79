//! Code actions: the fix a diagnostic carries, as an edit the editor applies.

use std::path::Path;

use crate::host::{AnalysisHost, FileDiagnostic, TextEdit};

/// A fix offered at a range: its title, the edit, and the diagnostic it answers.
#[derive(Debug, Clone, PartialEq)]
pub struct CodeFix {
    pub title: String,
    pub edit: TextEdit,
    pub diagnostic: FileDiagnostic,
}

impl AnalysisHost {
    /// The fixes of the diagnostics of a file whose range meets `start..end`.
    pub fn fixes(&self, path: &Path, start: u32, end: u32) -> Vec<CodeFix> {
        let Some(project) = self.project_of(path) else {
            return Vec::new();
        };
        let path = stalwart_driver::database::normalize(path);
        project
            .diagnostics()
            .iter()
            .filter_map(|d| crate::host::file_diagnostic(project, d))
            .filter(|d| d.range.path == path && d.range.start <= end && start <= d.range.end)
            .filter_map(|d| {
                let (title, edit) = d.fix.clone()?;
                Some(CodeFix {
                    title,
                    edit,
                    diagnostic: d,
                })
            })
            .collect()
    }
}
