//! Diagnostic codes raised while lowering (`W0400`–`W0449` warnings, `E0450`–`E0499` errors).

use stalwart_diagnostics::Code;

/// A schema keyword outside the subset the tool check enforces: the tool is `schema_partial`.
pub const SCHEMA_PARTIAL: Code = Code {
    id: "W0401",
    slug: "schema-partial",
};

/// An object in a tool's argument schema that declares no member (no `properties`,
/// `patternProperties` or `additionalProperties` schema): the check refuses every member a call
/// gives it, since an argument nothing declares is refused at every level.
pub const CLOSED_OBJECT: Code = Code {
    id: "W0402",
    slug: "closed-object",
};

/// A construct on a path of a flow that governs a tool, which the gate cannot lower (found by
/// the rulebook model, which holds the code).
pub use stalwart_sema::model::paths::RULEBOOK_UNSUPPORTED;
/// The rulebook calls a tool the catalogue does not declare.
pub const RULEBOOK_UNKNOWN_TOOL: Code = Code {
    id: "E0452",
    slug: "rulebook-unknown-tool",
};
/// A JSON Schema the tool check cannot compile as written (a pattern that is not a regular
/// expression, a keyword whose value has the wrong shape, an unknown type).
pub const SCHEMA_INVALID: Code = Code {
    id: "E0453",
    slug: "schema-invalid",
};
