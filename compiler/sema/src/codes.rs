//! Diagnostic codes raised by the queries that tie files together (`E0500`–`E0599`).

use stalwart_diagnostics::Code;

/// A file that agent.yaml names (a Python module, a catalogue, an MCP answer) does not exist.
pub const MISSING_TOOL_SOURCE: Code = Code {
    id: "E0501",
    slug: "missing-tool-source",
};
/// The rulebook that agent.yaml names does not exist.
pub const MISSING_RULEBOOK: Code = Code {
    id: "E0502",
    slug: "missing-rulebook",
};
/// An agent.yaml declares no agent.
pub const NO_AGENTS: Code = Code {
    id: "E0503",
    slug: "no-agents",
};
/// A file that agent.yaml names cannot be read as text: a folder, a binary file, a file that is
/// not UTF-8 (the message says which byte, where). The same codes as the command line's inputs
/// (`E0004`–`E0006`) say which; this one is for other errors of the system.
pub const UNREADABLE_SOURCE: Code = Code {
    id: "E0505",
    slug: "unreadable-source",
};
