//! `stalwart graph` and the graph.json of a record folder: the agent graph (qls-graph/1) as JSON,
//! and as dot or SVG with the findings of the proof and their witness paths highlighted.

use std::path::Path;
use std::sync::Arc;

use stalwart_db::SourceFile;
use stalwart_graph::{AgentGraph, Highlight};

use crate::database::{Database, FileLoader};
use crate::verify::{VerifyOptions, VerifyOutcome, verify_agent};

/// graph.json's text for an agent already analysed without errors in `db` (what
/// `stalwart compile` writes beside record.bin).
pub fn graph_json(db: &Database, file: SourceFile) -> String {
    stalwart_graph::to_json_string(stalwart_graph::agent_graph(db, file))
}

/// The graph of agent.yaml and the proof's highlights, or the verify outcome's errors.
pub fn graph_with_findings(
    loader: Arc<dyn FileLoader>,
    agent_yaml: &Path,
    options: &VerifyOptions,
) -> VerifyOutcome {
    verify_agent(loader, agent_yaml, options)
}

/// The nodes findings are on and the edges of their witness paths.
pub fn highlight(graph: &AgentGraph, outcome: &VerifyOutcome) -> Highlight {
    let mut h = Highlight::default();
    let Some(proof) = &outcome.proof else {
        return h;
    };
    for f in &proof.findings {
        let node = f.subject.strip_prefix("cycle:").unwrap_or(&f.subject);
        for id in [
            node.to_string(),
            format!("tool:{node}"),
            format!("channel:{node}"),
        ] {
            if graph.node(&id).is_some() {
                h.nodes.insert(id);
            }
        }
        for step in &f.witness {
            if let Some(i) = graph
                .edges
                .iter()
                .position(|e| e.from == step.from && e.to == step.to && e.place == step.place)
            {
                h.edges.insert(i);
            }
        }
    }
    h
}

/// Renders dot to SVG with Graphviz's `dot`, or says why it could not.
pub fn dot_to_svg(dot: &str) -> Result<String, String> {
    use std::io::Write;
    use std::process::{Command, Stdio};
    let mut child = Command::new("dot").arg("-Tsvg").stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().map_err(|_| {
        "cannot render SVG: Graphviz's `dot` is not installed (install Graphviz, or use `--format dot` and render it elsewhere)".to_string()
    })?;
    if let Some(mut stdin) = child.stdin.take() {
        stdin
            .write_all(dot.as_bytes())
            .map_err(|e| format!("cannot render SVG: {e}"))?;
    }
    let out = child
        .wait_with_output()
        .map_err(|e| format!("cannot render SVG: {e}"))?;
    if !out.status.success() {
        return Err(format!(
            "cannot render SVG: `dot` failed: {}",
            String::from_utf8_lossy(&out.stderr).trim()
        ));
    }
    String::from_utf8(out.stdout).map_err(|_| "cannot render SVG: `dot` wrote no text".to_string())
}
