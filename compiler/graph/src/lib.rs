//! The agent graph (qls-graph/1): what the proof searches.
//!
//! Nodes are `turn`, `router`, `<agent>_model`, the guarded tool step (`guard`), each tool
//! (`tool:<name>`), `confirm`, custom steps, channels, stores and `end`; edges are the routes
//! between them, each with the place (file, line, byte range) that makes it. `model` holds the
//! data, `build` makes it from agent.yaml's tree and the catalogue, `query` runs that as a salsa
//! query, `json` and `dot` render it.

pub mod build;
pub mod dot;
pub mod json;
pub mod model;
pub mod query;

pub use build::build_graph;
pub use dot::{Highlight, to_dot};
pub use json::{from_json_str, to_json_string, to_json_value};
pub use model::*;
pub use query::{agent_graph, place_of, source_files};
