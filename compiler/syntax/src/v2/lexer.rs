//! The raw Colang 2.x lexer: a logos scanner that turns text into raw tokens (words, variables,
//! literals, punctuation, newlines, comments, tabs). Indentation, line joining and the
//! contextual reading of keywords are the business of `layout`, which runs over these tokens.

use logos::Logos;

/// A raw token. Words stay words here: whether `match` or `if` is a keyword depends on where it
/// stands, which `layout` decides.
#[derive(Logos, Debug, Clone, Copy, PartialEq, Eq)]
#[logos(skip r" +")]
pub(crate) enum Raw {
    #[regex(r"[\p{L}_][\p{L}\p{N}_]*")]
    Word,
    #[regex(r"\$[\p{L}_][\p{L}\p{N}_]*")]
    Var,
    #[regex(r"[0-9](_?[0-9])*")]
    Int,
    #[regex(r"[0-9](_?[0-9])*[eE][+-]?[0-9](_?[0-9])*")]
    #[regex(r"\.[0-9](_?[0-9])*([eE][+-]?[0-9](_?[0-9])*)?")]
    #[regex(r"[0-9](_?[0-9])*\.([0-9](_?[0-9])*)?([eE][+-]?[0-9](_?[0-9])*)?")]
    Float,
    #[regex(r#""([^"\\\n]|\\[^\n])*""#)]
    #[regex(r#"'([^'\\\n]|\\[^\n])*'"#)]
    Str,
    #[regex(r#""([^"\\\n]|\\[^\n])*"#)]
    #[regex(r#"'([^'\\\n]|\\[^\n])*"#)]
    UnterminatedStr,
    #[token("\"\"\"", |lex| long_string(lex, b'"'))]
    #[token("'''", |lex| long_string(lex, b'\''))]
    LongStr,
    #[regex(r#"\.\.\. *"([^"\\\n]|\\[^\n])*""#)]
    #[regex(r#"\.\.\. *'([^'\\\n]|\\[^\n])*'"#)]
    Nld,
    #[token("...")]
    Ellipsis,
    #[regex(r"#[^\n]*", allow_greedy = true)]
    Comment,
    #[regex(r"\r?\n")]
    Newline,
    #[token("\t")]
    Tab,
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
    #[token(":")]
    Colon,
    #[token(".")]
    Dot,
    #[token("=")]
    Assign,
    #[token("+=")]
    PlusAssign,
    #[token("-=")]
    MinusAssign,
    #[token("->")]
    Arrow,
    #[token("@")]
    At,
    #[token("+")]
    Plus,
    #[token("-")]
    Minus,
    #[token("*")]
    Star,
    #[token("**")]
    DoubleStar,
    #[token("/")]
    Slash,
    #[token("//")]
    DoubleSlash,
    #[token("%")]
    Percent,
    #[token("|")]
    Pipe,
    #[token("^")]
    Caret,
    #[token("&")]
    Amp,
    #[token("~")]
    Tilde,
    #[token("<<")]
    Shl,
    #[token(">>")]
    Shr,
    #[token("<")]
    Lt,
    #[token(">")]
    Gt,
    #[token("==")]
    EqEq,
    #[token(">=")]
    Ge,
    #[token("<=")]
    Le,
    #[token("!=")]
    #[token("<>")]
    Ne,
}

/// Scans a triple-quoted string after its opening quotes: it ends at the first three quotes
/// that are not escaped. An unterminated one runs to the end of the text and is reported.
fn long_string(lex: &mut logos::Lexer<'_, Raw>, quote: u8) -> bool {
    let rest = lex.remainder().as_bytes();
    let mut i = 0usize;
    while let Some(&b) = rest.get(i) {
        if b == b'\\' {
            i += 2;
            continue;
        }
        if b == quote && rest.get(i + 1) == Some(&quote) && rest.get(i + 2) == Some(&quote) {
            lex.bump(i + 3);
            return true;
        }
        i += 1;
    }
    lex.bump(rest.len());
    false
}

/// Lexes up to `n` more tokens onto `out`: `(token, start, end)`, with `None` for text no token
/// matches; `false` when the end of the text was reached. Offsets are `u32` (the parser refuses
/// larger files before lexing), so a token takes 12 bytes.
pub(crate) fn lex_window(
    lexer: &mut logos::Lexer<'_, Raw>,
    out: &mut Vec<(Option<Raw>, u32, u32)>,
    n: usize,
) -> bool {
    for _ in 0..n {
        let Some(tok) = lexer.next() else {
            return false;
        };
        let span = lexer.span();
        out.push((tok.ok(), span.start as u32, span.end as u32));
    }
    true
}
