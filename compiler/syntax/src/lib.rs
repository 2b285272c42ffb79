//! Rulebook front ends: Colang 1.0 (`v1`), Colang 2.x (`v2`), rule sheets (`sheet`), and the
//! condition language they share (`expr`): lexers (logos), parsers (lalrpop, grammars in the
//! workspace's `grammars/`), typed ASTs with spans, and the facts `stalwart rules inspect` prints.

pub mod v1;
pub mod v2;
