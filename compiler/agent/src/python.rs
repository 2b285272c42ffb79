//! Python tool modules, read statically with tree-sitter-python.
use stalwart_diagnostics::FileId;
use crate::{Parse, ToolDecl};
pub(crate) fn parse_python_module(_file: FileId, _text: &str, _module: &str) -> Parse<Vec<ToolDecl>> {
    Parse { value: Vec::new(), diagnostics: Vec::new() }
}
/// `shop.tools` → `shop/tools.py`.
pub fn module_path(module: &str) -> String {
    format!("{}.py", module.replace('.', "/"))
}
