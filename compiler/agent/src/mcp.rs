//! MCP `tools/list` answers mapped to tool declarations.
use stalwart_diagnostics::FileId;
use crate::{Parse, ToolDecl};
pub(crate) fn parse_mcp(_file: FileId, _text: &str, _path: &str) -> Parse<Vec<ToolDecl>> {
    Parse { value: Vec::new(), diagnostics: Vec::new() }
}
