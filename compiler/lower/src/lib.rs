//! Lowering: resolved agent descriptions and rulebooks to the record, as pure functions.
//!
//! `agent` lowers agent.yaml and its catalogue (names to indices, sorted for determinism);
//! `schema` compiles JSON Schemas to the record's validation program; `value` puts JSON values
//! in the record's value arena; `selector` the intents, routes and readers the selector runs on.

pub mod agent;
pub mod codes;
pub mod gate;
pub mod query;
pub mod schema;
pub mod selector;
pub mod value;

pub use agent::{Lowered, SourceMap, lower_agent};
pub use query::{lower_agent_file, lowering_diagnostics, tool_lowering_diagnostics};
