//! Editor features as plain data: the language server's logic, with no LSP types.
//!
//! [`AnalysisHost`] holds one long-lived salsa database per project (agent.yaml and what it
//! names, or a rulebook no agent names), fed by open buffers over the disk ([`WorkspaceLoader`]).
//! Every feature answers in byte offsets and paths: diagnostics (the very list `stalwart compile`
//! gives), definition, references, rename, hover, completion, document symbols, fixes, the
//! proof's findings (`proof`: the explicit-state engine, cached by the proof's key), and what a
//! scenario file's steps answer (`scenario`). Positions in UTF-16 or lines exist only in the
//! `stalwart-lsp` crate.

pub mod complete;
pub mod docs;
pub mod fixes;
pub mod host;
pub mod hover;
pub mod loader;
pub mod navigate;
pub mod proof;
pub mod scenario;
pub mod symbols;
pub mod yaml;

pub use complete::{Completion, CompletionKind};
pub use docs::{code_page, rule_of_code, rule_page};
pub use fixes::CodeFix;
pub use host::{
    AnalysisHost, FileDiagnostic, FileRange, Project, ProjectKind, TextEdit, is_agent_file,
    is_rule_file,
};
pub use hover::Hover;
pub use loader::{MAX_ANALYSED_BYTES, WorkspaceLoader};
pub use navigate::NameAt;
pub use proof::{ProofCache, ProofOutcome, ProofRequest, run_proof};
pub use scenario::ScenarioAnswer;
pub use stalwart_diagnostics::Severity;
pub use stalwart_driver::database::{LoadProblem, Text, normalize};

/// A file's text as the command line reads it from the disk, or why it is not readable text.
pub fn read_disk(path: &std::path::Path) -> Result<Text, LoadProblem> {
    use stalwart_driver::FileLoader as _;
    stalwart_driver::DiskLoader.read(path)
}
pub use stalwart_sema::model::names::NameKind;
pub use symbols::Symbol;
