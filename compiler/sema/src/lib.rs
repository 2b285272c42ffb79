//! Semantic analysis as salsa queries.
//!
//! `agent` parses agent.yaml and gathers the catalogue from every source it names (each source
//! file its own query, so an edit to one re-reads only that one), then resolves names across
//! them. Queries return values with their diagnostics; nothing here renders or writes.

pub mod agent;
pub mod checks;
pub mod codes;
pub mod model;
pub mod rulebook;
pub mod sheet;

pub use agent::{
    AgentAnalysis, Catalogue, agent_catalogue, agent_rulebook_files, analyze_agent,
    parse_agent_file,
};
pub use rulebook::{RulebookModule, RulebookParse, parse_rulebook, rulebook_dialect};
