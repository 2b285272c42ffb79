//! Semantic checks of Colang rulebooks, as plain functions over the syntax trees (the salsa
//! queries call them): messages and flows used but not defined, flows defined twice, variables
//! read before they are set, tools the catalogue lacks, bot messages that name a tool, and
//! unreachable statements.
//!
//! Decisions:
//! - A rulebook folder may spread its definitions over several files, so what a single file
//!   cannot see (an undefined bot message or flow) is a warning, never an error.
//! - `bot refuse` and `bot stop` are built in, and `bot execute_<tool>` is a tool call.
//! - A `bot` line whose message is a catalogue tool's name (`bot refund_card`, or `bot refund
//!   card`) is reported as naming a tool (W1608) rather than as undefined: it is something the
//!   bot says, so the tool is neither called nor governed there. With imports too, in 2.x.
//! - Colang 2.x imports (`import core`, `import llm`, …) bring the standard library's flows and
//!   let the model produce bot messages, so undefined flows and `bot` messages are only checked
//!   in a 2.x module that imports nothing.
//! - A variable read in a condition is reported only when the flow itself sets it later and
//!   nothing sets it earlier: a variable nothing sets is a fact from the caller's context,
//!   unknown at compile time. In 1.0, where variables are global, a set in any other flow counts
//!   as earlier. Declared facts (agent.yaml's `facts:`) are never reported.
//! - Two 1.0 flows with one name are an error; two 2.x flows with one name, neither marked
//!   `@override`, are a warning (the reference parser accepts them).
//! - Tools are checked only when a catalogue is given.

pub mod codes;
mod common;
pub use common::Known;
pub(crate) use common::variables_in as variables_in_text;
mod flows;
mod v1;
mod v2;

pub use flows::{used_flows_v1, used_flows_v2};
pub use v1::check_v1;
pub use v2::check_v2;

/// The blocks a 2.x statement holds (not those of a nested flow).
pub fn v2_bodies(
    kind: &stalwart_syntax::v2::ast::StmtKind,
) -> Vec<&[stalwart_syntax::v2::ast::Stmt]> {
    v2::bodies(kind)
}
