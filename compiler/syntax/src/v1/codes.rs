//! Diagnostic codes of the Colang 1.0 front end (E1000–E1199).

use stalwart_diagnostics::Code;

pub const TAB_INDENT: Code = Code {
    id: "E1000",
    slug: "tab-indentation",
};
pub const UNTERMINATED_DOCSTRING: Code = Code {
    id: "E1001",
    slug: "unterminated-docstring",
};
pub const UNTERMINATED_STRING: Code = Code {
    id: "E1002",
    slug: "unterminated-string",
};
pub const DANGLING_CONTINUATION: Code = Code {
    id: "E1003",
    slug: "dangling-line-continuation",
};
pub const UNEXPECTED_INDENT: Code = Code {
    id: "E1004",
    slug: "unexpected-indentation",
};
pub const EXPECTED_BLOCK: Code = Code {
    id: "E1005",
    slug: "missing-indented-block",
};
pub const UNKNOWN_STATEMENT: Code = Code {
    id: "E1006",
    slug: "unknown-statement",
};
pub const ELSE_WITHOUT_IF: Code = Code {
    id: "E1007",
    slug: "else-without-if",
};
pub const ELSE_WHEN_WITHOUT_WHEN: Code = Code {
    id: "E1008",
    slug: "else-when-without-when",
};
pub const BARE_ELSE_AFTER_WHEN: Code = Code {
    id: "E1009",
    slug: "else-after-when",
};
pub const UNKNOWN_MODIFIER: Code = Code {
    id: "E1010",
    slug: "unknown-flow-modifier",
};
pub const MISSING_NAME: Code = Code {
    id: "E1011",
    slug: "missing-name",
};
pub const UNEXPECTED_TOKEN: Code = Code {
    id: "E1012",
    slug: "unexpected-token",
};
pub const UNEXPECTED_END_OF_LINE: Code = Code {
    id: "E1013",
    slug: "unexpected-end-of-line",
};
pub const ELIF: Code = Code {
    id: "E1014",
    slug: "elif-in-colang-1",
};
pub const V2_SYNTAX: Code = Code {
    id: "E1015",
    slug: "colang-2-syntax",
};
pub const MULTI_TARGET: Code = Code {
    id: "E1016",
    slug: "multiple-assignment-targets",
};
pub const TOO_DEEP: Code = Code {
    id: "E1017",
    slug: "nesting-too-deep",
};
pub const MISSING_EXPRESSION: Code = Code {
    id: "E1018",
    slug: "missing-expression",
};
pub const DUPLICATE_LABEL: Code = Code {
    id: "E1019",
    slug: "duplicate-label",
};
pub const UNCLOSED_BRACKET: Code = Code {
    id: "E1020",
    slug: "unclosed-bracket",
};
pub const DEFINE_NOT_TOP_LEVEL: Code = Code {
    id: "E1021",
    slug: "define-not-at-top-level",
};
pub const UNKNOWN_DEFINE: Code = Code {
    id: "E1022",
    slug: "unknown-define",
};
pub const BAD_BODY_LINE: Code = Code {
    id: "E1023",
    slug: "bad-message-line",
};
/// More errors than a file reports (see [`crate::MAX_ERRORS`]).
pub const TOO_MANY_ERRORS: Code = Code {
    id: "E1024",
    slug: "too-many-errors",
};
/// A comment after a line's closing `"` that makes the string run on (a warning).
pub const COMMENT_OPENS_STRING: Code = Code {
    id: "E1025",
    slug: "comment-opens-string",
};
/// Event arguments with an unclosed bracket or string, or text after them.
pub const BAD_EVENT_ARGUMENTS: Code = Code {
    id: "E1026",
    slug: "bad-event-arguments",
};
/// Statements outside any definition (the file's main flow) in a file that also defines a flow.
pub const MAIN_FLOW_BESIDE_FLOWS: Code = Code {
    id: "E1027",
    slug: "statements-beside-flows",
};
/// A tab after the spaces of a line's indentation, which does not count (a warning).
pub const TAB_AFTER_SPACES: Code = Code {
    id: "E1028",
    slug: "tab-after-spaces",
};
