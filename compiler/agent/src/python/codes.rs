//! Diagnostic codes of Python tool modules (`E0300`–`E0399`). Codes are stable: never renumber
//! or reuse one.

use stalwart_diagnostics::Code;

/// The module does not parse: the label is at the part tree-sitter could not read (or at the
/// place a token is missing). The tools the rest of the module declares are still read.
pub const SYNTAX: Code = Code {
    id: "E0300",
    slug: "python-syntax",
};

/// A `@tool(...)` keyword argument (or part of one) is not a literal: a variable, a call, an
/// f-string with `{…}`, an operator. The module is read, never run, so only literals have a value.
pub const NOT_A_LITERAL: Code = Code {
    id: "E0301",
    slug: "not-a-literal",
};

/// A literal the declaration has no value for: bytes, a set, a complex number, `...`.
pub const UNSUPPORTED_LITERAL: Code = Code {
    id: "E0302",
    slug: "unsupported-literal",
};

/// `@tool(...)` is given a positional argument (or `*args`/`**kwargs`); it takes keyword
/// arguments only.
pub const POSITIONAL_ARGUMENT: Code = Code {
    id: "E0303",
    slug: "positional-decorator-argument",
};

/// A dictionary key in a decorator value that is not a string literal.
pub const NON_STRING_KEY: Code = Code {
    id: "E0304",
    slug: "non-string-key",
};

/// Warning: a type hint the reader does not know (an imported class, a name it cannot see): the
/// argument or field gets no type constraint.
pub const UNKNOWN_TYPE: Code = Code {
    id: "E0305",
    slug: "unknown-type",
};

/// Warning: a `*args` or `**kwargs` parameter is skipped; a call can only pass declared arguments,
/// since undeclared ones are refused.
pub const VARIADIC_PARAMETER: Code = Code {
    id: "E0306",
    slug: "variadic-parameter",
};

/// Warning: `@tool` on something that is not a module-level function (a method, a class, a nested
/// function): it is not read as a tool.
pub const MISPLACED_TOOL: Code = Code {
    id: "E0307",
    slug: "misplaced-tool",
};

/// A decorator value or type hint nested deeper than the reader goes (64 levels).
pub const TOO_DEEP: Code = Code {
    id: "E0308",
    slug: "python-too-deep",
};

/// The same keyword twice in one `@tool(...)` (Python refuses it too); the first is read.
pub const DUPLICATE_KEYWORD: Code = Code {
    id: "E0309",
    slug: "duplicate-keyword",
};

/// A malformed type hint: `Optional` without exactly one type, `Literal[...]` with a member that
/// is not a literal, `dict[...]` with other than two types.
pub const BAD_TYPE_HINT: Code = Code {
    id: "E0310",
    slug: "bad-type-hint",
};

/// Warning: a TypedDict that contains itself; the inner occurrence gets no type constraint.
pub const RECURSIVE_TYPE: Code = Code {
    id: "E0311",
    slug: "recursive-type",
};

/// A number literal a declaration cannot hold: an integer outside 64 bits, a float that
/// overflows to infinity.
pub const NUMBER_OUT_OF_RANGE: Code = Code {
    id: "E0312",
    slug: "number-out-of-range",
};

/// Warning: a second tool decorator on one function; only the first is read.
pub const REPEATED_DECORATOR: Code = Code {
    id: "E0313",
    slug: "repeated-decorator",
};

/// `@tool(name=...)` that is not a non-empty string.
pub const BAD_TOOL_NAME: Code = Code {
    id: "E0314",
    slug: "bad-tool-name",
};
