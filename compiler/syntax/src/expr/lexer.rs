//! The condition language's tokens (logos), with byte ranges relative to the condition's text.

use logos::Logos;

/// A token of the condition language. Tokens carry no text: the parser reads it from the source
/// by range.
#[derive(Logos, Debug, Clone, Copy, PartialEq, Eq)]
#[logos(skip r"[ \t\r\n\f]+")]
pub enum Tok {
    #[token("(")]
    LParen,
    #[token(")")]
    RParen,
    #[token("==")]
    EqEq,
    #[token("!=")]
    Ne,
    #[token("<")]
    Lt,
    #[token("<=")]
    Le,
    #[token(">")]
    Gt,
    #[token(">=")]
    Ge,
    #[token("and")]
    And,
    #[token("or")]
    Or,
    #[token("not")]
    Not,
    #[token("in")]
    In,
    #[token("is")]
    Is,
    #[token(".")]
    Dot,
    #[token(",")]
    Comma,
    #[token("[")]
    LBracket,
    #[token("]")]
    RBracket,
    #[token("true")]
    #[token("True")]
    True,
    #[token("false")]
    #[token("False")]
    False,
    #[token("null")]
    #[token("None")]
    Null,
    /// `$args.name`.
    #[regex(r"\$args\.[\p{L}\p{N}_]+", priority = 10)]
    ArgRef,
    /// `$name`.
    #[regex(r"\$[\p{L}\p{N}_]+")]
    Fact,
    /// A number as Python writes one: `500`, `1_000`, `0.5`, `.5`, `1e3`, `2.5E-2`.
    #[regex(
        r"-?([0-9](_?[0-9])*(\.[0-9](_?[0-9])*)?|\.[0-9](_?[0-9])*)([eE][+-]?[0-9](_?[0-9])*)?",
        priority = 5
    )]
    Number,
    #[regex(r#""([^"\\\n]|\\.)*""#)]
    #[regex(r"'([^'\\\n]|\\.)*'")]
    Str,
    #[regex(r#""([^"\\\n]|\\.)*"#, priority = 0)]
    #[regex(r"'([^'\\\n]|\\.)*", priority = 0)]
    UnterminatedStr,
    /// A bare word: a function's or a member's name (`len(…)`, `$x.lower()`, `$x.field`); as a
    /// value it is not part of the language (facts are written `$name`).
    #[regex(r"[\p{L}_][\p{L}\p{N}_]*", priority = 1)]
    Word,
    /// `=`, a common slip for `==`.
    #[token("=")]
    Assign,
    /// Any other character.
    Other,
}

/// The tokens of `text` with their byte ranges; characters logos cannot match become `Other`.
pub fn tokenize(text: &str) -> Vec<(usize, Tok, usize)> {
    let mut lexer = Tok::lexer(text);
    let mut out = Vec::new();
    while let Some(tok) = lexer.next() {
        let range = lexer.span();
        out.push((range.start, tok.unwrap_or(Tok::Other), range.end));
    }
    out
}
