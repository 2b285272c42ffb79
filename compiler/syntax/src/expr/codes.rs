//! Diagnostic codes of the condition language (E1200–E1249).

use stalwart_diagnostics::Code;

pub const UNEXPECTED_TOKEN: Code = Code {
    id: "E1200",
    slug: "condition-unexpected-token",
};
pub const UNEXPECTED_END: Code = Code {
    id: "E1201",
    slug: "condition-unexpected-end",
};
pub const INVALID_CHARACTER: Code = Code {
    id: "E1202",
    slug: "condition-invalid-character",
};
pub const UNTERMINATED_STRING: Code = Code {
    id: "E1203",
    slug: "condition-unterminated-string",
};
pub const TOO_DEEP: Code = Code {
    id: "E1204",
    slug: "condition-too-deep",
};
pub const EMPTY: Code = Code {
    id: "E1205",
    slug: "condition-empty",
};
// E1206 (`condition-property-path`) is retired: member access is part of the language.
pub const BARE_WORD: Code = Code {
    id: "E1207",
    slug: "condition-bare-word",
};
pub const CHAINED_COMPARISON: Code = Code {
    id: "E1208",
    slug: "condition-chained-comparison",
};
pub const SINGLE_EQUALS: Code = Code {
    id: "E1209",
    slug: "condition-single-equals",
};
