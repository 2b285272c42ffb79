//! The graph as a salsa query over an agent description: agent.yaml, its catalogue, and the
//! place of every span, read through the database.

use stalwart_db::{Db, SourceFile};
use stalwart_diagnostics::Span;
use stalwart_sema::{agent_catalogue, agent_rulebook_files, parse_agent_file};

use crate::build::build_graph;
use crate::model::{AgentGraph, Place};

/// The agent graph of agent.yaml. Run it only once `analyze_agent` found no error.
#[salsa::tracked(returns(ref))]
pub fn agent_graph(db: &dyn Db, file: SourceFile) -> AgentGraph {
    let parsed = parse_agent_file(db, file);
    let catalogue = agent_catalogue(db, file);
    let files = source_files(db, file);
    let place = |span: Span| place_of(db, &files, span);
    build_graph(&parsed.value, &catalogue.tools, file.path(db), &place)
}

/// agent.yaml, the catalogue's sources and the rulebook: every file a place may name.
pub fn source_files(db: &dyn Db, file: SourceFile) -> Vec<SourceFile> {
    let mut files = vec![file];
    files.extend(agent_catalogue(db, file).sources.iter().copied());
    files.extend(agent_rulebook_files(db, file));
    files
}

/// The place of a span in one of `files`.
pub fn place_of(db: &dyn Db, files: &[SourceFile], span: Span) -> Place {
    let Some(f) = files.iter().find(|f| f.id(db) == span.file) else {
        return Place {
            file: String::new(),
            line: 1,
            start: span.start,
            end: span.end,
        };
    };
    let line = stalwart_db::line_of(db, *f, span.start);
    Place {
        file: f.path(db).clone(),
        line,
        start: span.start,
        end: span.end,
    }
}
