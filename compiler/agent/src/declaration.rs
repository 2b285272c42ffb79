//! One tool declaration (a [`Node`] mapping from any source) to [`crate::ToolDecl`].
use stalwart_diagnostics::Diagnostic;

use crate::node::Node;
use crate::{Parse, ToolDecl, ToolOrigin};

/// Reads a tool declaration from a mapping node. `name` is given when the source names the tool
/// itself (a Python function's name); otherwise the mapping's `name:` is required.
pub fn tool_from_node(node: &Node, origin: ToolOrigin, name: Option<crate::Spanned<String>>) -> Parse<Option<ToolDecl>> {
    let _ = (node, origin, name);
    Parse { value: None, diagnostics: Vec::<Diagnostic>::new() }
}
