//! Rulebook front ends: Colang 1.0 (`v1`), Colang 2.x (`v2`), rule sheets (`sheet`), and the
//! condition language they share (`expr`): lexers (logos), parsers (lalrpop, grammars in the
//! workspace's `grammars/`), typed ASTs with spans, and the facts `stalwart rules inspect` prints.

pub mod detect;
pub mod expr;
pub mod sheet;
pub mod v1;
pub mod v2;

pub use detect::{Dialect, detect_dialect, dialect_from_config};
pub use expr::parse_condition;
pub use v1::{inspect_v1, parse_v1};

/// The result of parsing: a value (always present, possibly partial) and the diagnostics found.
#[derive(Debug, Clone, PartialEq)]
pub struct Parse<T> {
    pub value: T,
    pub diagnostics: Vec<stalwart_diagnostics::Diagnostic>,
}
