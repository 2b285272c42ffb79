//! The `verify` and `graph` subcommands: run the driver's proof and print its report or graph.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use clap::ValueEnum;
use stalwart_driver::DiskLoader;
use stalwart_driver::verify::{VerifyOptions, verify_agent};

use crate::render;

/// `stalwart verify --format`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ReportFormat {
    Text,
    Json,
    Sarif,
}

/// `stalwart graph --format`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum GraphFormat {
    Dot,
    Json,
    Svg,
}

fn options(depth: Option<u32>, turns: Option<u32>, no_cache: bool) -> VerifyOptions {
    let mut o = VerifyOptions::default();
    if let Some(d) = depth {
        o.bounds.depth = d;
    }
    if let Some(t) = turns {
        o.bounds.turns = t.max(1);
    }
    o.cache = !no_cache;
    o
}

/// `stalwart verify`'s flags beside the format and the bounds.
#[derive(Debug, Clone, Default)]
pub struct Extra {
    pub no_cache: bool,
    pub advisories: Option<PathBuf>,
    /// The folder witness sessions are written to.
    pub witnesses: Option<PathBuf>,
}

/// `stalwart verify`: 0 when the gate passes, 1 when it fails, 2 on bad input.
pub fn verify(
    agent: &Path,
    format: ReportFormat,
    depth: Option<u32>,
    turns: Option<u32>,
    extra: Extra,
) -> u8 {
    let mut options = options(depth, turns, extra.no_cache);
    options.advisories = extra.advisories;
    let outcome = verify_agent(Arc::new(DiskLoader), agent, &options);
    if let Some(message) = &outcome.fatal {
        render::fatal(message);
        return 2;
    }
    render::diagnostics(&outcome.files, &outcome.diagnostics, crate::Format::Text);
    let Some(proof) = &outcome.proof else {
        eprintln!(
            "error: could not verify `{}`: fix the errors above first",
            agent.display()
        );
        return 2;
    };
    if let Some(dir) = &extra.witnesses
        && let Err(message) = crate::witnesses::write(dir, agent, &outcome)
    {
        render::fatal(&message);
        return 2;
    }
    match format {
        ReportFormat::Text => out!(
            "{}",
            stalwart_analyzer::report::text(proof, &agent.display().to_string())
        ),
        ReportFormat::Json => {
            outln!(
                "{}",
                serde_json::to_string_pretty(&stalwart_analyzer::report::json(proof))
                    .unwrap_or_default()
            )
        }
        ReportFormat::Sarif => {
            outln!(
                "{}",
                serde_json::to_string_pretty(&stalwart_analyzer::report::sarif(proof))
                    .unwrap_or_default()
            )
        }
    }
    if proof.gate_passed() { 0 } else { 1 }
}

/// `stalwart graph`: the graph, findings and witness paths highlighted.
pub fn graph(agent: &Path, format: GraphFormat, depth: Option<u32>, turns: Option<u32>) -> u8 {
    let outcome = verify_agent(Arc::new(DiskLoader), agent, &options(depth, turns, false));
    if let Some(message) = &outcome.fatal {
        render::fatal(message);
        return 2;
    }
    render::diagnostics(&outcome.files, &outcome.diagnostics, crate::Format::Text);
    let Some(graph) = &outcome.graph else {
        eprintln!(
            "error: could not build the graph of `{}`: fix the errors above first",
            agent.display()
        );
        return 2;
    };
    let highlight = stalwart_driver::graph::highlight(graph, &outcome);
    match format {
        GraphFormat::Json => out!("{}", stalwart_graph::to_json_string(graph)),
        GraphFormat::Dot => out!("{}", stalwart_graph::to_dot(graph, &highlight)),
        GraphFormat::Svg => {
            match stalwart_driver::graph::dot_to_svg(&stalwart_graph::to_dot(graph, &highlight)) {
                Ok(svg) => out!("{svg}"),
                Err(message) => {
                    render::fatal(&message);
                    return 2;
                }
            }
        }
    }
    0
}
