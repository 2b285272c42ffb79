//! Diagnostic codes of rule sheets (E1500–E1599; warnings keep the range with a `W`).

use stalwart_diagnostics::Code;

/// A quoted CSV cell that is never closed.
pub const UNCLOSED_QUOTE: Code = Code {
    id: "E1500",
    slug: "sheet-unclosed-quote",
};
/// A `"` inside an unquoted cell, or text after a quoted cell's closing quote.
pub const STRAY_QUOTE: Code = Code {
    id: "E1501",
    slug: "sheet-stray-quote",
};
/// A CSV sheet without its header row.
pub const NO_HEADER: Code = Code {
    id: "E1502",
    slug: "sheet-no-header",
};
/// A header column (or YAML key) the sheet does not have.
pub const UNKNOWN_COLUMN: Code = Code {
    id: "E1503",
    slug: "sheet-unknown-column",
};
/// A column named twice in the header.
pub const DUPLICATE_COLUMN: Code = Code {
    id: "E1504",
    slug: "sheet-duplicate-column",
};
/// The header lacks a required column (`rule`, `tool`, `then`).
pub const MISSING_COLUMN: Code = Code {
    id: "E1505",
    slug: "sheet-missing-column",
};
/// A row with more or fewer cells than the header.
pub const ROW_WIDTH: Code = Code {
    id: "E1506",
    slug: "sheet-row-width",
};
/// A row without a tool.
pub const MISSING_TOOL: Code = Code {
    id: "E1507",
    slug: "sheet-missing-tool",
};
/// A row without a rule name.
pub const MISSING_RULE: Code = Code {
    id: "E1508",
    slug: "sheet-missing-rule",
};
/// A `then` other than `allow`, `refuse` or `ask`.
pub const UNKNOWN_THEN: Code = Code {
    id: "E1509",
    slug: "sheet-unknown-then",
};
/// A row without `then`.
pub const MISSING_THEN: Code = Code {
    id: "E1510",
    slug: "sheet-missing-then",
};
/// A rule name used again after other rules' rows.
pub const DUPLICATE_RULE: Code = Code {
    id: "E1511",
    slug: "sheet-duplicate-rule",
};
/// A default other than `allow` or `refuse`.
pub const UNKNOWN_DEFAULT: Code = Code {
    id: "E1512",
    slug: "sheet-unknown-default",
};
/// The default written twice.
pub const DUPLICATE_DEFAULT: Code = Code {
    id: "E1513",
    slug: "sheet-duplicate-default",
};
/// An `ask` row without a question in `say`.
pub const ASK_WITHOUT_QUESTION: Code = Code {
    id: "W1514",
    slug: "sheet-ask-without-question",
};
/// `<`, `<=`, `>`, `>=` with a string literal: never true (they compare two numbers only).
pub const STRING_ORDERING: Code = Code {
    id: "E1515",
    slug: "sheet-string-ordering",
};
/// `and`, `or` or `not` of a literal that is not a boolean.
pub const NON_BOOLEAN_OPERAND: Code = Code {
    id: "E1516",
    slug: "sheet-non-boolean-operand",
};
/// `$args.<name>` naming an argument the tool does not declare.
pub const UNKNOWN_ARGUMENT: Code = Code {
    id: "E1517",
    slug: "sheet-unknown-argument",
};
/// A row after an unconditional row for the same tool: it never decides.
pub const SHADOWED_ROW: Code = Code {
    id: "W1518",
    slug: "sheet-shadowed-row",
};
/// A `.rules.yaml` value of the wrong shape (not a mapping, `rules` not a list, …).
pub const YAML_SHAPE: Code = Code {
    id: "E1520",
    slug: "sheet-yaml-shape",
};
/// A `.rules.yaml` key the sheet does not have.
pub const UNKNOWN_KEY: Code = Code {
    id: "E1521",
    slug: "sheet-unknown-key",
};

/// The header row separates its columns with `;` (as spreadsheets set to some locales save CSV):
/// a sheet separates them with `,`. Nothing else of the sheet is read.
pub const SEMICOLON_SEPARATED: Code = Code {
    id: "E1522",
    slug: "semicolon-separated",
};
