//! Names across agent.yaml and the catalogue.
use stalwart_diagnostics::Diagnostic;
use crate::{AgentFile, ToolDecl};
pub(crate) fn resolve_agent(_agent: &AgentFile, _tools: &[ToolDecl]) -> Vec<Diagnostic> {
    Vec::new()
}
