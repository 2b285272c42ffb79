//! agent.yaml: saphyr's marked tree to [`crate::AgentFile`], with a diagnostic for every bad key.
use stalwart_diagnostics::FileId;
use crate::{AgentFile, Parse};
pub(crate) fn parse_agent(_file: FileId, _text: &str) -> Parse<AgentFile> {
    Parse { value: AgentFile::default(), diagnostics: Vec::new() }
}
