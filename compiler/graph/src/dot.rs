//! Renders the graph for Graphviz: nodes by kind, edges labelled with the line that makes them,
//! and the nodes and edges of findings' witness paths highlighted.

use std::collections::BTreeSet;
use std::fmt::Write as _;

use crate::model::{AgentGraph, EdgeKind, NodeKind};

/// What to highlight: nodes a finding is on, and the edges of witness paths (by index into
/// `AgentGraph::edges`).
#[derive(Debug, Clone, Default)]
pub struct Highlight {
    pub nodes: BTreeSet<String>,
    pub edges: BTreeSet<usize>,
}

/// The graph in the dot language.
pub fn to_dot(graph: &AgentGraph, highlight: &Highlight) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "digraph \"{}\" {{", escape(&graph.file));
    out.push_str("  rankdir=LR;\n  node [fontname=\"Helvetica\"];\n  edge [fontname=\"Helvetica\", fontsize=10];\n");
    for node in &graph.nodes {
        let shape = match node.kind {
            NodeKind::Turn | NodeKind::End => "circle",
            NodeKind::Router | NodeKind::Guard => "diamond",
            NodeKind::Model => "ellipse",
            NodeKind::Tool => "box",
            NodeKind::Confirm => "octagon",
            NodeKind::Step => "component",
            NodeKind::Channel => "cds",
            NodeKind::Store => "cylinder",
        };
        let mut attrs = format!("shape={shape}");
        if let Some(place) = &node.place {
            let _ = write!(attrs, ", tooltip=\"{}\"", escape(&place.short()));
        }
        if highlight.nodes.contains(&node.id) {
            attrs.push_str(", color=red, penwidth=2, fontcolor=red");
        }
        let _ = writeln!(out, "  \"{}\" [{attrs}];", escape(&node.id));
    }
    for (i, edge) in graph.edges.iter().enumerate() {
        let mut label = format!("{}", edge.place.line);
        if let Some(agent) = &edge.agent {
            let _ = write!(label, " {agent}");
        }
        if let Some(exit) = &edge.exit_after {
            let _ = write!(label, " exit_after {} {}", exit.counter, exit.at_most);
        }
        let style = match edge.kind {
            EdgeKind::Unguarded => ", style=dashed",
            EdgeKind::Undo => ", style=dotted",
            EdgeKind::HandsOff | EdgeKind::Channel => ", style=bold",
            EdgeKind::NextTurn => ", style=dotted, constraint=false",
            _ => "",
        };
        let hl = if highlight.edges.contains(&i) {
            ", color=red, penwidth=2, fontcolor=red"
        } else {
            ""
        };
        let _ = writeln!(
            out,
            "  \"{}\" -> \"{}\" [label=\"{}\"{style}{hl}];",
            escape(&edge.from),
            escape(&edge.to),
            escape(&label)
        );
    }
    out.push_str("}\n");
    out
}

fn escape(text: &str) -> String {
    text.replace('\\', "\\\\").replace('"', "\\\"")
}
