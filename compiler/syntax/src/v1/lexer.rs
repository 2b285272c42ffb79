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
    /// `check`, kept as keyword + text.
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
    let before = out.len();
    if lex_plain(segment.as_bytes(), start, out) {
        return;
    }
    out.truncate(before);
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

/// How [`lex_plain`] reads a byte.
const SKIP: u8 = 1;
/// `[A-Za-z_]`: a word.
const ALPHA: u8 = 2;
/// `[0-9]`: a word or a number.
const DIGIT: u8 = 3;
/// A one-byte token: `(`, `)`, `[`, `]`, `{`, `}`, `,`, `:`, `*`, `/`, `%`.
const SINGLE: u8 = 4;
/// A byte whose token depends on the next ones: `$ " ' = + - ! < > .`.
const LEAD: u8 = 5;
/// Anything else (other ASCII punctuation, control bytes, non-ASCII): left to logos.
const ELSE: u8 = 0;

#[expect(
    clippy::indexing_slicing,
    reason = "a table built at compile time: an index out of bounds fails the build"
)]
const CLASS: [u8; 256] = {
    let mut class = [ELSE; 256];
    let mut b = 0;
    while b < 256 {
        class[b] = match b as u8 {
            b' ' | b'\t' | b'\r' | b'\n' | 0x0c => SKIP,
            b'A'..=b'Z' | b'a'..=b'z' | b'_' => ALPHA,
            b'0'..=b'9' => DIGIT,
            b'(' | b')' | b'[' | b']' | b'{' | b'}' | b',' | b':' | b'*' | b'/' | b'%' => SINGLE,
            b'$' | b'"' | b'\'' | b'=' | b'+' | b'-' | b'!' | b'<' | b'>' | b'.' => LEAD,
            _ => ELSE,
        };
        b += 1;
    }
    class
};

/// The bytes that continue a word (`[\p{L}\p{N}_\-']` for ASCII).
#[expect(
    clippy::indexing_slicing,
    reason = "a table built at compile time: an index out of bounds fails the build"
)]
const WORD: [bool; 256] = {
    let mut word = [false; 256];
    let mut b = 0;
    while b < 256 {
        word[b] = matches!(CLASS[b], ALPHA | DIGIT) || b == b'-' as usize || b == b'\'' as usize;
        b += 1;
    }
    word
};

/// The class of a byte (a 256-entry table indexed by a byte: no bounds check is left).
fn class_of(b: u8) -> u8 {
    CLASS.get(usize::from(b)).copied().unwrap_or(ELSE)
}

fn class(b: Option<&u8>) -> u8 {
    b.map_or(ELSE, |&b| class_of(b))
}

fn word_byte(b: u8) -> bool {
    WORD.get(usize::from(b)).copied().unwrap_or(false)
}

/// The end of the run of word bytes starting at `i`.
fn word_end(bytes: &[u8], i: usize) -> usize {
    let rest = bytes.get(i..).unwrap_or(&[]);
    i + rest
        .iter()
        .position(|&b| !word_byte(b))
        .unwrap_or(rest.len())
}

/// The end of the word or variable part `[\p{L}\p{N}_]*` starting at `i`, for ASCII.
fn name_end(bytes: &[u8], mut i: usize) -> usize {
    while matches!(class(bytes.get(i)), ALPHA | DIGIT) {
        i += 1;
    }
    i
}

/// The tokens of `bytes` (at `offset` in the file) as the logos lexer gives them, for a segment
/// whose tokens are all of the usual kinds: words, numbers, variables, strings, brackets and
/// operators, with non-ASCII bytes only inside strings. `false` (with some tokens pushed) at
/// anything else, which the caller then lexes with logos: a non-ASCII word, a byte no token
/// starts with, a single-quoted string left open, `..` or a lone `!` or `$`.
fn lex_plain(bytes: &[u8], offset: usize, out: &mut Vec<(usize, Tok, usize)>) -> bool {
    let mut i = 0;
    while let Some(&b) = bytes.get(i) {
        let start = i;
        let tok = match class_of(b) {
            SKIP => {
                i += 1;
                continue;
            }
            ALPHA => {
                i = word_end(bytes, i + 1);
                Tok::Word
            }
            DIGIT => {
                // The longer of a word and a number; a number when they are as long.
                let digits = i + bytes
                    .get(i..)
                    .map_or(0, |r| r.iter().take_while(|b| b.is_ascii_digit()).count());
                let number = match (bytes.get(digits), bytes.get(digits + 1)) {
                    (Some(b'.'), Some(d)) if d.is_ascii_digit() => {
                        let mut j = digits + 1;
                        while bytes.get(j).is_some_and(u8::is_ascii_digit) {
                            j += 1;
                        }
                        j
                    }
                    _ => digits,
                };
                let word = word_end(bytes, digits);
                if word > number {
                    i = word;
                    Tok::Word
                } else {
                    i = number;
                    Tok::Number
                }
            }
            SINGLE => {
                i += 1;
                match b {
                    b'(' => Tok::LParen,
                    b')' => Tok::RParen,
                    b'[' => Tok::LBracket,
                    b']' => Tok::RBracket,
                    b'{' => Tok::LBrace,
                    b'}' => Tok::RBrace,
                    b',' => Tok::Comma,
                    b':' => Tok::Colon,
                    _ => Tok::Op,
                }
            }
            LEAD => {
                let next = bytes.get(i + 1).copied();
                match (b, next) {
                    (b'$', _) => {
                        let mut end = name_end(bytes, i + 1);
                        if end == i + 1 {
                            return false;
                        }
                        while bytes.get(end) == Some(&b'.') && name_end(bytes, end + 1) > end + 1 {
                            end = name_end(bytes, end + 1);
                        }
                        i = end;
                        Tok::Var
                    }
                    (b'"', _) => {
                        let rest = bytes.get(i + 1..).unwrap_or(&[]);
                        match memchr::memchr(b'"', rest) {
                            Some(close) => {
                                i += close + 2;
                                Tok::Str
                            }
                            None => {
                                i = bytes.len();
                                Tok::OpenStr
                            }
                        }
                    }
                    (b'\'', _) => {
                        let rest = bytes.get(i + 1..).unwrap_or(&[]);
                        match memchr::memchr2(b'\'', b'\n', rest) {
                            Some(close) if rest.get(close) == Some(&b'\'') => {
                                i += close + 2;
                                Tok::SingleStr
                            }
                            _ => return false,
                        }
                    }
                    (b'=', Some(b'=')) | (b'!' | b'<' | b'>', Some(b'=')) => {
                        i += 2;
                        Tok::Op
                    }
                    (b'=', _) => {
                        i += 1;
                        Tok::Assign
                    }
                    (b'+', Some(b'=')) => {
                        i += 2;
                        Tok::PlusAssign
                    }
                    (b'-', Some(b'=')) => {
                        i += 2;
                        Tok::MinusAssign
                    }
                    (b'+' | b'-' | b'<' | b'>', _) => {
                        i += 1;
                        Tok::Op
                    }
                    (b'.', Some(b'.')) => {
                        if bytes.get(i + 2) != Some(&b'.') {
                            return false;
                        }
                        i += 3;
                        Tok::Ellipsis
                    }
                    (b'.', _) => {
                        i += 1;
                        Tok::Dot
                    }
                    _ => return false,
                }
            }
            _ => return false,
        };
        out.push((offset + start, tok, offset + i));
    }
    true
}

#[cfg(test)]
mod tests {
    use logos::Logos;
    use proptest::prelude::*;

    use super::Tok;

    /// The tokens of `text` as logos alone gives them.
    fn by_logos(text: &str) -> Vec<(usize, Tok, usize)> {
        let mut lexer = Tok::lexer(text);
        let mut out = Vec::new();
        while let Some(tok) = lexer.next() {
            let range = lexer.span();
            out.push((range.start, tok.unwrap_or(Tok::Other), range.end));
        }
        out
    }

    /// `lex_segment` gives what logos gives, and reads `text` without logos when it is plain.
    fn same_as_logos(text: &str, plain: Option<bool>) {
        let mut out = Vec::new();
        super::lex_segment(text, 0, text.len(), &mut out);
        assert_eq!(out, by_logos(text), "{text:?}");
        if let Some(plain) = plain {
            let mut out = Vec::new();
            assert_eq!(
                super::lex_plain(text.as_bytes(), 0, &mut out),
                plain,
                "{text:?}"
            );
        }
    }

    #[test]
    fn plain_segments_are_lexed_as_logos_lexes_them() {
        for text in [
            "user express greeting",
            "$x = execute check_facts(text=$x, n=2.5) + 1",
            "bot say \"a \\\"b\" 'c' {d: [e]}",
            "1 1.5 1.5.6 1. 1.a 12ab 1-2 a-b it's a_b 0x1f",
            "$a.b.c $a. $a.1 $1 == != <= >= < > += -= + - * / % ... .",
            "\"open string with é",
            "\"é\" ''",
            "\t\r\n\x0c x",
            "",
        ] {
            same_as_logos(text, Some(true));
        }
        for text in [
            "é", "a..b", "!", "$", "$.", "'open", "'a\nb'", "#", "a;b", "\x0b", "@x",
        ] {
            same_as_logos(text, Some(false));
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(4000))]
        #[test]
        fn segments_are_lexed_as_logos_lexes_them(
            text in "([a-c0-9_$\"'=+\\-!<>.() ,:*/%\\[\\]{}\t\n#;@é]|1\\.5|\\.\\.\\.){0,16}"
        ) {
            same_as_logos(&text, None);
        }
    }
}
