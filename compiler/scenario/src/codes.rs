//! The codes of scenario files' diagnostics (E0600–E0699; docs/scenarios.md lists them).

use stalwart_diagnostics::Code;

/// The file cannot be read, or holds nothing.
pub const UNREADABLE: Code = Code {
    id: "E0600",
    slug: "scenario-unreadable",
};
/// The file is not YAML.
pub const NOT_YAML: Code = Code {
    id: "E0601",
    slug: "scenario-not-yaml",
};
/// The scenario names neither `agent:` nor `record:`, or names one that cannot be loaded.
pub const NO_AGENT: Code = Code {
    id: "E0602",
    slug: "scenario-no-agent",
};
/// The agent the scenario names does not compile.
pub const AGENT_DOES_NOT_COMPILE: Code = Code {
    id: "E0603",
    slug: "scenario-agent-does-not-compile",
};
/// A step of no kind the runner knows.
pub const UNKNOWN_STEP: Code = Code {
    id: "E0604",
    slug: "scenario-unknown-step",
};
/// A value the runner cannot read: a time, an outcome, a language, a history edit, `steps:` that
/// is not a list, a plan asked for with no turn.
pub const BAD_VALUE: Code = Code {
    id: "E0605",
    slug: "scenario-bad-value",
};
/// A step answered otherwise than it expects (the language server's diagnostic on an open
/// scenario; `stalwart test` reports the same as a failed step).
pub const STEP_FAILED: Code = Code {
    id: "E0606",
    slug: "scenario-step-failed",
};
