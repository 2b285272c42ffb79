//! The tokens of Colang 1.0. The logos lexer produces the in-line tokens of one segment of a
//! logical line; the layout pass ([`super::layout`]) adds the structure tokens (newline, indent,
//! dedent) and turns the first words of a line into its statement keyword.

use logos::Logos;

/// A Colang 1.0 token. Tokens carry no text: the parser reads it from the source by range.
#[derive(Logos, Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[logos(skip r"[ \t\r\n\f]+")]
pub enum Tok {
    // ----- in-line tokens (logos) -----
    #[regex(r"[\p{L}\p{N}_][\p{L}\p{N}_\-']*")]
    Word,
    #[regex(r"\$[\p{L}\p{N}_]+(\.[\p{L}\p{N}_]+)*")]
    Var,
    #[regex(r"[0-9]+(\.[0-9]+)?", priority = 5)]
    Number,
    /// A double-quoted string (it may span lines: the line rules decided so).
    #[regex(r#""[^"]*""#)]
    Str,
    /// A double-quoted string the segment does not close.
    #[regex(r#""[^"]*"#, priority = 0)]
    OpenStr,
    #[regex(r"'[^'\n]*'")]
    SingleStr,
    #[token("(")]
    LParen,
    #[token(")")]
    RParen,
    #[token("[")]
    LBracket,
    #[token("]")]
    RBracket,
    #[token("{")]
    LBrace,
    #[token("}")]
    RBrace,
    #[token(",")]
    Comma,
    #[token("=")]
    Assign,
    #[token("+=")]
    PlusAssign,
    #[token("-=")]
    MinusAssign,
    #[token("==")]
    #[token("!=")]
    #[token("<")]
    #[token("<=")]
    #[token(">")]
    #[token(">=")]
    #[token("+")]
    #[token("-")]
    #[token("*")]
    #[token("/")]
    #[token("%")]
    Op,
    #[token(":")]
    Colon,
    #[token(".")]
    Dot,
    #[token("...")]
    Ellipsis,
    /// Any other character.
    Other,

    // ----- structure (layout pass) -----
    Newline,
    Indent,
    Dedent,

    // ----- line keywords (layout pass) -----
    Define,
    DefUser,
    DefBot,
    DefFlow,
    DefSubflow,
    /// `define action|snippet`: the body is not Colang and is skipped.
    DefOther,
    Modifier,
    Import,
    User,
    /// `or user` inside a `user` or `when` line.
    OrUser,
    Bot,
    Run,
    /// `execute` after `$x =`.
    RunInline,
    Do,
    Event,
    Infer,
    If,
    ElseIf,
    Else,
    When,
    ElseWhen,
    While,
    Break,
    Continue,
    Stop,
    Return,
    Set,
    Priority,
    Meta,
    Label,
    Goto,
    Any,
    /// `check`, `expect`, `log` and the other rare statements kept as keyword + text.
    Generic,
    /// A zero-width marker before a line that opens an old-style named flow (`name:` + block).
    NamedFlow,
    /// A zero-width marker before a line already reported as an error.
    Bad,
}

/// Appends the tokens of `text[start..end]` (byte offsets of the file) to `out`.
pub fn lex_segment(text: &str, start: usize, end: usize, out: &mut Vec<(usize, Tok, usize)>) {
    let Some(segment) = text.get(start..end) else {
        return;
    };
    let mut lexer = Tok::lexer(segment);
    while let Some(tok) = lexer.next() {
        let range = lexer.span();
        out.push((
            start + range.start,
            tok.unwrap_or(Tok::Other),
            start + range.end,
        ));
    }
}
