//! The generated workspace: `agent.yaml` with `tools` inline tools over agents of 25 tools each,
//! and a rulebook folder (`rails/`) of `files` Colang 1.0 files, each a user message and a flow
//! that executes one of the tools. Deterministic: the same sizes give the same files.

use std::fmt::Write as _;
use std::path::Path;

/// The rulebook file the bench edits, and the line (0-based) it replaces.
pub const EDITED: &str = "rails/f0000.co";
pub const EDITED_LINE: u32 = 6;

const PER_AGENT: usize = 25;

/// The edited line as generated (`execute` of the file's tool).
pub fn edited_line_text() -> String {
    "    execute tool_0000".to_string()
}

fn rulebook_file(i: usize, tools: usize) -> String {
    format!(
        "define user ask {i}\n  \"question number {i}\"\n\ndefine flow flow {i}\n  user ask {i}\n  if $order_paid\n    execute tool_{:04}\n  else\n    bot refuse\n",
        i % tools.max(1)
    )
}

fn agent_yaml(tools: usize) -> String {
    let agents = tools.div_ceil(PER_AGENT).max(1);
    let mut out = String::from("# A generated agent for the language server's bench.\nagents:\n");
    for a in 0..agents {
        let names: Vec<String> = (a * PER_AGENT..((a + 1) * PER_AGENT).min(tools))
            .map(|i| format!("tool_{i:04}"))
            .collect();
        let _ = writeln!(out, "  agent_{a:03}:");
        let _ = writeln!(out, "    model: \"anthropic:claude-sonnet-5-5\"");
        let _ = writeln!(out, "    tools: [{}]", names.join(", "));
    }
    out.push_str("tools:\n");
    for i in 0..tools {
        let effects = if i % 2 == 0 { "reads" } else { "changes" };
        let _ = writeln!(out, "  - name: tool_{i:04}");
        let _ = writeln!(out, "    description: Tool number {i}.");
        let _ = writeln!(out, "    effects: {effects}");
        let _ = writeln!(
            out,
            "    arguments: {{type: object, properties: {{order_id: {{type: string}}}}, required: [order_id]}}"
        );
    }
    out.push_str("rulebook: rails\n");
    out
}

/// Writes the workspace under `dir` (emptied first).
pub fn write(dir: &Path, files: usize, tools: usize) -> std::io::Result<()> {
    let _ = std::fs::remove_dir_all(dir);
    std::fs::create_dir_all(dir.join("rails"))?;
    std::fs::write(dir.join("agent.yaml"), agent_yaml(tools))?;
    for i in 0..files.max(1) {
        std::fs::write(
            dir.join(format!("rails/f{i:04}.co")),
            rulebook_file(i, tools),
        )?;
    }
    Ok(())
}
