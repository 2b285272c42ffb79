//! Diagnostic codes of the agent front end.
//!
//! Ranges: `E0100`–`E0149` structure and values of agent.yaml and of every tool declaration
//! (whatever source wrote it: agent.yaml, a catalogue file, an MCP answer, a Python decorator);
//! `E0150`–`E0199` names resolved across files; `E0200`–`E0249` catalogue files; `E0250`–`E0299`
//! MCP answers; `E0300`–`E0399` Python tool modules. Codes are stable: never renumber or reuse one.

use stalwart_diagnostics::Code;

/// The text is not valid YAML (or JSON, which is read as YAML): the position is where the
/// parser stopped. Nothing else of the file is read.
pub const SYNTAX: Code = Code {
    id: "E0100",
    slug: "syntax",
};

/// A mapping has a key that is not one of the keys allowed at that place (agent.yaml's top level,
/// an agent, `settings`, a step, a channel, a store, a tool declaration and each of its nested
/// mappings). The label names the key; a help suggests the nearest known key when one is close.
pub const UNKNOWN_KEY: Code = Code {
    id: "E0101",
    slug: "unknown-key",
};

/// A value has the wrong type: a string where a list is expected, a list where a mapping is, a
/// number where a name is. The label is at the value.
pub const WRONG_TYPE: Code = Code {
    id: "E0102",
    slug: "wrong-type",
};

/// A value is not one of the words allowed there (`on_unread`, `privilege`, `effects`, `per`,
/// `auth`, …); the message lists the allowed ones.
pub const BAD_VALUE: Code = Code {
    id: "E0103",
    slug: "bad-value",
};

/// A number is out of range: a count, budget or limit below 1, above 2^32-1, or a negative
/// amount.
pub const OUT_OF_RANGE: Code = Code {
    id: "E0104",
    slug: "out-of-range",
};

/// A mapping has the same key twice. Two agents (or steps, channels, stores, facts) with one
/// name are caught this way. The secondary label is at the first.
pub const DUPLICATE_KEY: Code = Code {
    id: "E0105",
    slug: "duplicate-key",
};

/// YAML aliases (`*name`, and so merge keys `<<: *name`) are not supported: every value is
/// written out where it is used, so each has one place to report on.
pub const ALIAS: Code = Code {
    id: "E0106",
    slug: "alias",
};

/// A required key is missing: a tool's `name`, a step's `agent` or `routes`, a channel's
/// `remote`, `hands_to` or `auth` (which must be said, even when it is `none`), `exit_after`'s
/// `counter` or `at_most`, `spend`'s `argument`, `at_most` or `per`, a fact's `from`, an
/// `after`/`undo` entry's `tool`, a `budget`'s `steps`, `at_most`'s `count`.
pub const MISSING_KEY: Code = Code {
    id: "E0107",
    slug: "missing-key",
};

/// agent.yaml declares no agent: `agents:` is missing or empty. (An agent with no `tools:` is
/// allowed: it can only talk, hand off and run its steps.)
pub const NO_AGENTS: Code = Code {
    id: "E0108",
    slug: "no-agents",
};

/// `confirmation_expiry` is neither a whole number of seconds nor a duration like `30m`, `12h`,
/// `1d`, `2w` (units `s`, `m`, `h`, `d`, `w`), or is zero, or overflows.
pub const BAD_DURATION: Code = Code {
    id: "E0109",
    slug: "bad-duration",
};

/// An entry of agent.yaml's `tools:` list is none of: a mapping with `name:` (an inline tool),
/// `python: module`, `catalogue: file`, `mcp: file`.
pub const BAD_TOOL_ENTRY: Code = Code {
    id: "E0110",
    slug: "bad-tool-entry",
};

/// A fact's `from:` is not `tool.field` or `tool.field == value` (value: a bare word, `true`,
/// `false`, `null`, a number, or a quoted string).
pub const BAD_FACT_EXPRESSION: Code = Code {
    id: "E0111",
    slug: "bad-fact-expression",
};

/// A scalar tagged with a core type it does not have (`!!int abc`).
pub const BAD_TAGGED_VALUE: Code = Code {
    id: "E0112",
    slug: "bad-tagged-value",
};

/// The text holds more than one YAML document (`---`): only the first is read.
pub const SEVERAL_DOCUMENTS: Code = Code {
    id: "E0113",
    slug: "several-documents",
};

/// Values nested deeper than the front end reads (64 levels): the deeper value is dropped.
pub const TOO_DEEP: Code = Code {
    id: "E0114",
    slug: "too-deep",
};

/// A mapping key that is a list or a mapping; keys are names.
pub const COMPLEX_KEY: Code = Code {
    id: "E0115",
    slug: "complex-key",
};

/// A `from:` of a check is not `tool.field`.
pub const BAD_FIELD_REFERENCE: Code = Code {
    id: "E0116",
    slug: "bad-field-reference",
};

/// Keys that exclude each other: a `tools:` entry with `python:` and `name:`, `idempotency`
/// with both `key` and `retry_safe`, `source` with both `mcp` and `package`.
pub const CONFLICTING_KEYS: Code = Code {
    id: "E0117",
    slug: "conflicting-keys",
};

/// `arguments` is not an object schema: not a mapping, a `type` other than `object`, or
/// `properties` that is not a mapping of schemas.
pub const BAD_ARGUMENT_SCHEMA: Code = Code {
    id: "E0118",
    slug: "bad-argument-schema",
};

/// A name (of a tool, agent, step, argument, …) that is empty.
pub const EMPTY_NAME: Code = Code {
    id: "E0119",
    slug: "empty-name",
};

/// `language: pt-PT` (or `pt`): European Portuguese is not a grammar the selector has. The
/// selector reads English (`en`) and Brazilian Portuguese (`pt-BR`) only.
pub const LANGUAGE_UNSUPPORTED: Code = Code {
    id: "E0120",
    slug: "language-unsupported",
};

/// An agent names a tool that no source (inline, catalogue, MCP answer, Python module) declares.
pub const UNKNOWN_TOOL: Code = Code {
    id: "E0150",
    slug: "unknown-tool",
};

/// `hands_off_to`, a step's `agent` or a channel's `hands_to` names an agent agent.yaml does not
/// declare.
pub const UNKNOWN_AGENT: Code = Code {
    id: "E0151",
    slug: "unknown-agent",
};

/// Two declarations (from any sources) give the same tool name; the secondary label is at the
/// first.
pub const DUPLICATE_TOOL: Code = Code {
    id: "E0152",
    slug: "duplicate-tool",
};

/// A declaration or a fact refers to a tool nobody declares: `after`, `not_after`, `undo`, a
/// check's `from:`, a fact's `from:`, a step's `calls`.
pub const UNKNOWN_TOOL_REFERENCE: Code = Code {
    id: "E0153",
    slug: "unknown-tool-reference",
};

/// A `bind` key that is not an argument of the tool it must belong to: `after`'s `mine` (this
/// tool) or `undo`'s key (the undo tool). A tool without an `arguments` schema declares none.
pub const UNKNOWN_BIND_ARGUMENT: Code = Code {
    id: "E0154",
    slug: "unknown-bind-argument",
};

/// A `bind` value that is neither an argument nor a result field of the tool it reads from:
/// `after`'s `theirs` (the earlier tool) or `undo`'s value (this tool).
pub const UNKNOWN_BIND_FIELD: Code = Code {
    id: "E0155",
    slug: "unknown-bind-field",
};

/// `idempotency.key`, `spend.argument`, a `checks` entry or an `argument_kinds` entry names an
/// argument the tool's `arguments` schema does not declare.
pub const UNDECLARED_ARGUMENT: Code = Code {
    id: "E0156",
    slug: "undeclared-argument",
};

/// A fact's or a check's `tool.field` names a field the tool's result schema does not declare
/// (checked only when the tool has a result schema with `properties`).
pub const UNKNOWN_RESULT_FIELD: Code = Code {
    id: "E0157",
    slug: "unknown-result-field",
};

/// A fact reads a `reads_outside` tool: what such a tool returns is untrusted, so a fact never
/// comes from it.
pub const FACT_FROM_OUTSIDE: Code = Code {
    id: "E0158",
    slug: "fact-from-outside",
};

/// A fact's `same:` is not an argument of its tool.
pub const UNKNOWN_SAME_ARGUMENT: Code = Code {
    id: "E0159",
    slug: "unknown-same-argument",
};

/// A step's `routes` or `from` names something that is not a step, `<agent>_model`, `guard`,
/// `tool:<name>` of a declared tool, or `end`. A warning: the graph leaves the route out, and
/// `stalwart verify` reports it as the finding QG015 (undeclared route).
pub const UNKNOWN_ROUTE: Code = Code {
    id: "W0160",
    slug: "unknown-route",
};

/// A tool's `retrieves_from` or `writes_to` names a store `stores:` does not declare.
pub const UNKNOWN_STORE: Code = Code {
    id: "E0161",
    slug: "unknown-store",
};

/// An entry of `overrides:` names a tool no source declares (a help suggests the nearest name).
pub const UNKNOWN_OVERRIDE: Code = Code {
    id: "E0162",
    slug: "unknown-override",
};

/// A catalogue file is neither a list of tool declarations nor a mapping with `tools:`.
pub const BAD_CATALOGUE: Code = Code {
    id: "E0200",
    slug: "bad-catalogue",
};

/// An entry of a catalogue's tool list is not a mapping.
pub const BAD_CATALOGUE_ENTRY: Code = Code {
    id: "E0201",
    slug: "bad-catalogue-entry",
};
