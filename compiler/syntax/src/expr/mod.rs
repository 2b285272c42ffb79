//! The condition language shared by Colang 1.0 `if`/`while`/`when`, 2.x `if` conditions that fit
//! it, and rule sheets' `when` column: `$fact`, `$args.<name>`, member access (`$result.action`,
//! `$config.x`), literals and lists, comparisons, `in` / `not in`, `is None` / `is not None`,
//! function calls (`len(…)`, `is_str(…)`) and method calls (`$x.lower()`), `and`, `or`, `not`
//! and parentheses. Precedence is Python's, which the reference evaluates conditions with,
//! tightest first: member access and calls, comparisons, `not`, `and`, `or` (so `not $a == 1`
//! is `not ($a == 1)`).
//!
//! The lexer is [`lexer`] (logos), the parser is generated from `grammars/condition.lalrpop`.

pub mod ast;
pub mod codes;
pub mod lexer;

pub use ast::{CmpOp, Expr, ExprKind, Literal, LogicOp};

use stalwart_diagnostics::{Diagnostic, FileId, Span};

use crate::Parse;
use lexer::Tok;

generated_parser!(grammar, "/condition.rs");

/// The most nesting (parentheses, `not`s and `and`/`or` operators together) a condition may have.
pub const MAX_NESTING: usize = 200;

/// Parses `text`, a condition found at byte `offset` of `file`: every span of the result and of
/// the diagnostics is shifted by `offset`. The value is `None` exactly when there are errors.
pub fn parse_condition(file: FileId, text: &str, offset: u32) -> Parse<Option<Expr>> {
    let tokens = lexer::tokenize(text);
    let mut diagnostics = Vec::new();
    let at = |l: usize, r: usize| span(file, offset, l, r);
    if tokens.is_empty() {
        let end = text.len();
        diagnostics.push(
            Diagnostic::error(codes::EMPTY, at(0, end), "empty condition")
                .with_label("a condition is needed here"),
        );
        return Parse {
            value: None,
            diagnostics,
        };
    }
    check_tokens(text, &tokens, &at, &mut diagnostics);
    if !diagnostics.is_empty() {
        return Parse {
            value: None,
            diagnostics,
        };
    }
    if nesting(&tokens) > MAX_NESTING {
        let end = text.len();
        diagnostics.push(
            Diagnostic::error(
                codes::TOO_DEEP,
                at(0, end),
                "condition is too deeply nested or too long",
            )
            .with_note(format!(
                "a condition may hold at most {MAX_NESTING} operators and parentheses"
            )),
        );
        return Parse {
            value: None,
            diagnostics,
        };
    }
    let end = text.len();
    match grammar::ConditionParser::new().parse(text, file, offset, tokens) {
        Ok(expr) => Parse {
            value: Some(expr),
            diagnostics,
        },
        Err(err) => {
            diagnostics.push(parse_error(text, end, err, &at));
            Parse {
                value: None,
                diagnostics,
            }
        }
    }
}

/// [`parse_condition`]'s tree, without its diagnostics: `None` exactly when `parse_condition`
/// reports an error. For callers that only keep whether the text fits the language (Colang 1.0
/// keeps other conditions as raw text), so no message is formatted for a text that does not.
pub fn try_condition(file: FileId, text: &str, offset: u32) -> Option<Expr> {
    let tokens = lexer::tokenize(text);
    if tokens.is_empty()
        || tokens.iter().any(|&(_, tok, _)| foreign(tok))
        || bare_words(&tokens).next().is_some()
        || nesting(&tokens) > MAX_NESTING
    {
        return None;
    }
    grammar::ConditionParser::new()
        .parse(text, file, offset, tokens)
        .ok()
}

/// Whether [`check_tokens`] reports `tok`: a token the language does not have.
fn foreign(tok: Tok) -> bool {
    matches!(tok, Tok::Other | Tok::UnterminatedStr | Tok::Assign)
}

/// The words that stand as values: a word is a function's name before `(` and a member's after
/// `.`, and nothing else.
fn bare_words(tokens: &[(usize, Tok, usize)]) -> impl Iterator<Item = (usize, usize)> + '_ {
    tokens.iter().enumerate().filter_map(|(i, &(l, tok, r))| {
        let after_dot = i
            .checked_sub(1)
            .and_then(|p| tokens.get(p))
            .is_some_and(|t| t.1 == Tok::Dot);
        let before_paren = tokens.get(i + 1).is_some_and(|t| t.1 == Tok::LParen);
        (tok == Tok::Word && !after_dot && !before_paren).then_some((l, r))
    })
}

/// Reports tokens the language does not have, each at its own span.
fn check_tokens(
    text: &str,
    tokens: &[(usize, Tok, usize)],
    at: &impl Fn(usize, usize) -> Span,
    out: &mut Vec<Diagnostic>,
) {
    for (l, r) in bare_words(tokens) {
        let word = text.get(l..r).unwrap_or("");
        out.push(
            Diagnostic::error(
                codes::BARE_WORD,
                at(l, r),
                format!("`{word}` is not a value"),
            )
            .with_help(format!("a fact is written with a `$`: `${word}`")),
        );
    }
    for &(l, tok, r) in tokens {
        let word = text.get(l..r).unwrap_or("");
        let d = match tok {
            Tok::Other => Diagnostic::error(
                codes::INVALID_CHARACTER,
                at(l, r),
                format!("unexpected character `{word}` in condition"),
            ),
            Tok::UnterminatedStr => Diagnostic::error(
                codes::UNTERMINATED_STRING,
                at(l, r),
                "unterminated string in condition",
            )
            .with_label("the string is not closed on this line"),
            Tok::Assign => Diagnostic::error(codes::SINGLE_EQUALS, at(l, r), "`=` in a condition")
                .with_fix(at(l, r), "==", "compare with `==`"),
            _ => {
                debug_assert!(!foreign(tok));
                continue;
            }
        };
        out.push(d);
    }
}

/// An upper bound of the syntax tree's depth: parentheses, `not`s and binary operators.
fn nesting(tokens: &[(usize, Tok, usize)]) -> usize {
    tokens
        .iter()
        .filter(|(_, t, _)| {
            matches!(
                t,
                Tok::LParen | Tok::LBracket | Tok::Not | Tok::And | Tok::Or | Tok::Dot | Tok::In
            )
        })
        .count()
}

type ParseError = lalrpop_util::ParseError<usize, Tok, ()>;

#[cold]
fn parse_error(
    text: &str,
    end: usize,
    err: ParseError,
    at: &impl Fn(usize, usize) -> Span,
) -> Diagnostic {
    use lalrpop_util::ParseError as E;
    match err {
        E::UnrecognizedToken {
            token: (l, tok, r),
            expected,
        } => {
            let word = text.get(l..r).unwrap_or("");
            if is_comparison(tok) && !expects_value(&expected) {
                return Diagnostic::error(
                    codes::CHAINED_COMPARISON,
                    at(l, r),
                    "comparisons cannot be chained",
                )
                .with_label(format!("a second `{word}`"))
                .with_help("join the comparisons with `and`");
            }
            Diagnostic::error(
                codes::UNEXPECTED_TOKEN,
                at(l, r),
                format!("unexpected `{word}` in condition"),
            )
            .with_label(expected_label(&expected))
        }
        E::UnrecognizedEof { expected, .. } => Diagnostic::error(
            codes::UNEXPECTED_END,
            at(end, end),
            "condition ends too early",
        )
        .with_label(expected_label(&expected)),
        E::ExtraToken { token: (l, _, r) } => {
            let word = text.get(l..r).unwrap_or("");
            Diagnostic::error(
                codes::UNEXPECTED_TOKEN,
                at(l, r),
                format!("unexpected `{word}` in condition"),
            )
        }
        E::InvalidToken { location } => Diagnostic::error(
            codes::INVALID_CHARACTER,
            at(location, location.saturating_add(1)),
            "unexpected character in condition",
        ),
        E::User { .. } => {
            Diagnostic::error(codes::UNEXPECTED_TOKEN, at(0, end), "invalid condition")
        }
    }
}

fn is_comparison(tok: Tok) -> bool {
    matches!(
        tok,
        Tok::EqEq | Tok::Ne | Tok::Lt | Tok::Le | Tok::Gt | Tok::Ge
    )
}

fn expects_value(expected: &[String]) -> bool {
    expected.iter().any(|e| e == "\"fact\"")
}

fn expected_label(expected: &[String]) -> String {
    if expects_value(expected) {
        "expected a fact, an argument, a literal, a list, a function call, `not` or `(`".to_string()
    } else if expected.iter().any(|e| e == "\")\"") {
        "expected an operator or `)`".to_string()
    } else {
        "expected an operator or the end of the condition".to_string()
    }
}

/// A span of `file` from a range relative to a condition found at `offset`.
pub(crate) fn span(file: FileId, offset: u32, l: usize, r: usize) -> Span {
    let l = u32::try_from(l).unwrap_or(u32::MAX);
    let r = u32::try_from(r).unwrap_or(u32::MAX);
    Span::new(file, offset.saturating_add(l), offset.saturating_add(r))
}

pub(crate) fn mk(file: FileId, offset: u32, l: usize, r: usize, kind: ExprKind) -> Expr {
    Expr {
        kind,
        span: span(file, offset, l, r),
    }
}

/// A number token's value; `_` only groups digits (`1_000` is 1000).
pub(crate) fn lit_number(text: &str) -> f64 {
    if text.contains('_') {
        text.replace('_', "").parse().unwrap_or(0.0)
    } else {
        text.parse().unwrap_or(0.0)
    }
}

/// The contents of a quoted string, with `\"`, `\'` and `\\` unescaped.
pub(crate) fn lit_string(text: &str) -> String {
    let mut chars = text.chars();
    chars.next();
    chars.next_back();
    let mut out = String::with_capacity(text.len());
    let mut escaped = false;
    for c in chars {
        if escaped {
            if !matches!(c, '"' | '\'' | '\\') {
                out.push('\\');
            }
            out.push(c);
            escaped = false;
        } else if c == '\\' {
            escaped = true;
        } else {
            out.push(c);
        }
    }
    if escaped {
        out.push('\\');
    }
    out
}
