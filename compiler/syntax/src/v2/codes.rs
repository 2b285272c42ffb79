//! The stable diagnostic codes of the Colang 2.x front end (E1300–E1499): lexical errors from
//! E1300, layout (indentation, lines) from E1320, syntax from E1340, meaning-level checks the
//! reference parser also makes from E1400.

use stalwart_diagnostics::Code;

const fn code(id: &'static str, slug: &'static str) -> Code {
    Code { id, slug }
}

/// A character no token starts with.
pub const UNEXPECTED_CHARACTER: Code = code("E1300", "unexpected-character");
/// A tab between two tokens of a line (tabs only count as indentation).
pub const TAB_IN_LINE: Code = code("E1301", "tab-in-line");
/// A UTF-8 byte order mark at the start of the file.
pub const BYTE_ORDER_MARK: Code = code("E1302", "byte-order-mark");
/// A string literal without its closing quote.
pub const UNTERMINATED_STRING: Code = code("E1303", "unterminated-string");
/// A decimal integer written with leading zeros (`007`).
pub const LEADING_ZERO: Code = code("E1304", "leading-zero-integer");
/// A bracket that is never closed, or a closing bracket that opens nothing.
pub const UNBALANCED_BRACKET: Code = code("E1305", "unbalanced-bracket");
/// A `...` that is not a whole line of its own (nor the prefix of a string).
pub const STRAY_ELLIPSIS: Code = code("E1306", "stray-ellipsis");
/// The file is larger than the 4 GiB spans can address.
pub const FILE_TOO_LARGE: Code = code("E1307", "file-too-large");

/// A line dedented to a column that matches no enclosing block.
pub const BAD_DEDENT: Code = code("E1320", "inconsistent-dedent");
/// Blocks nested deeper than the parser allows.
pub const TOO_DEEP: Code = code("E1321", "nesting-too-deep");
/// A full-line comment at a column that breaks the block structure.
pub const MISPLACED_COMMENT: Code = code("E1322", "misplaced-comment");
/// A line that ends with `and` / `or`: the continuation must start the next line instead.
pub const TRAILING_OPERATOR: Code = code("E1323", "line-ends-with-operator");

/// A token the grammar does not allow where it stands.
pub const UNEXPECTED_TOKEN: Code = code("E1340", "unexpected-token");
/// A block header (`flow`, `if`, `when`, ...) with no indented body.
pub const MISSING_BLOCK: Code = code("E1341", "missing-block");
/// An indented line where no block opens.
pub const UNEXPECTED_INDENT: Code = code("E1342", "unexpected-indent");
/// `else`, `elif` or `or when` with nothing to continue.
pub const DANGLING_BRANCH: Code = code("E1343", "dangling-branch");
/// Parentheses around a sub-expression (the expression grammar has no such atom).
pub const PARENTHESIZED_EXPRESSION: Code = code("E1344", "parenthesized-expression");
/// A conditional expression `a if c else b`.
pub const CONDITIONAL_EXPRESSION: Code = code("E1345", "conditional-expression");
/// Two string literals side by side in an expression.
pub const ADJACENT_STRINGS: Code = code("E1346", "adjacent-string-literals");
/// `and` / `or` used as a word of a flow name.
pub const OPERATOR_IN_FLOW_NAME: Code = code("E1347", "operator-in-flow-name");
/// Return members not separated by commas.
pub const RETURN_MEMBERS_WITHOUT_COMMAS: Code = code("E1348", "return-members-without-commas");
/// A comment line between a decorator and its flow.
pub const COMMENT_AFTER_DECORATOR: Code = code("E1349", "comment-after-decorator");
/// The file ends in the middle of a construct.
pub const UNEXPECTED_END: Code = code("E1350", "unexpected-end-of-file");
/// More errors than a file reports (see [`crate::MAX_ERRORS`]).
pub const TOO_MANY_ERRORS: Code = code("E1351", "too-many-errors");

/// A positional argument after a named one.
pub const POSITIONAL_AFTER_NAMED: Code = code("E1400", "positional-after-named-argument");
/// A decorator argument that is not a literal.
pub const NON_LITERAL_DECORATOR_ARGUMENT: Code = code("E1401", "non-literal-decorator-argument");
/// Member access (`.Finished()`) or `as` after a parenthesized group of several specs.
pub const MEMBER_ON_GROUP: Code = code("E1402", "member-on-spec-group");
/// A statement at top level, outside any flow (ignored, a warning).
pub const STATEMENT_OUTSIDE_FLOW: Code = code("E1420", "statement-outside-flow");
/// A file whose only content is one `import` or one statement outside a flow.
pub const LONE_TOP_LEVEL_ELEMENT: Code = code("E1421", "lone-top-level-element");
