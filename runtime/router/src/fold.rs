//! Folding and tokenising: a turn (or an example, a name, a description) cut into tokens with
//! their byte spans, words folded the same way at compile time and at run time.
//!
//! A word is folded by lower-casing it, decomposing it (NFD) and dropping the combining marks, so
//! `Devolução`, `devolução` and `devolucao` are one word. Tokens are words (letters, with inner
//! apostrophes and hyphens), numbers as written (digits with inner `.` and `,`), e-mail
//! addresses, URLs, quoted texts and single symbols; whitespace separates and is dropped. Spans
//! are byte offsets into the text given, so a slot can always be cut back out of the turn.

use unicode_normalization::UnicodeNormalization;
use unicode_normalization::char::is_combining_mark;

/// What a token is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TokenKind {
    /// Letters (and digits mixed in, as in `visa4242`), folded in [`Token::folded`].
    Word,
    /// Digits, with inner `.` and `,` (`40.00`, `1.234,56`).
    Number,
    /// Letters and digits joined by `-` or `_`, or mixed (`A-4411`, `ORD_12`, `4411b`).
    Code,
    /// `name@host.tld`.
    Email,
    /// `http://…`, `https://…`, `www.…`.
    Url,
    /// The inside of `"…"`, `“…”` or `'…'` (the span excludes the quotes).
    Quoted,
    /// One character that is none of the above (`%`, `+`, `$`, `?`, `#`, `,`).
    Symbol,
}

/// One token of a text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Token {
    pub kind: TokenKind,
    /// Byte offsets into the text.
    pub start: usize,
    pub end: usize,
    /// Words: the folded form; other kinds: the text as written.
    pub folded: String,
}

/// Lower case, no accents: the form every lookup uses.
pub fn fold(word: &str) -> String {
    word.nfd()
        .filter(|c| !is_combining_mark(*c))
        .flat_map(char::to_lowercase)
        .map(|c| match c {
            // Typographic apostrophes read as the plain one.
            '\u{2019}' | '\u{2018}' | '\u{00b4}' | '`' => '\'',
            other => other,
        })
        .collect()
}

fn is_word_char(c: char) -> bool {
    c.is_alphanumeric()
}

/// The tokens of `text`, at most `limit` of them.
pub fn tokens(text: &str, limit: usize) -> Vec<Token> {
    let mut out = Vec::new();
    let mut at = 0;
    while at < text.len() && out.len() < limit {
        let Some(rest) = text.get(at..) else { break };
        let Some(c) = rest.chars().next() else { break };
        if c.is_whitespace() {
            at += c.len_utf8();
            continue;
        }
        let token = if let Some(t) = quoted(text, at, c) {
            t
        } else if let Some(t) = url(text, at) {
            t
        } else if let Some(t) = email(text, at) {
            t
        } else if is_word_char(c) {
            word_or_number(text, at)
        } else {
            Token {
                kind: TokenKind::Symbol,
                start: at,
                end: at + c.len_utf8(),
                folded: c.to_string(),
            }
        };
        at = token.end.max(at + c.len_utf8());
        out.push(token);
    }
    out
}

/// A quoted text starting at `at` with the quote `c`, if it closes on the same line.
fn quoted(text: &str, at: usize, c: char) -> Option<Token> {
    let close = match c {
        '"' => '"',
        '\u{201c}' => '\u{201d}',
        '\u{00ab}' => '\u{00bb}',
        '\'' => {
            // An apostrophe after a letter (`don't`) opens nothing.
            let before = text.get(..at).and_then(|t| t.chars().next_back());
            if before.is_some_and(is_word_char) {
                return None;
            }
            '\''
        }
        _ => return None,
    };
    let inner_start = at + c.len_utf8();
    let rest = text.get(inner_start..)?;
    let mut len = 0;
    for ch in rest.chars() {
        if ch == close {
            if len == 0 {
                return None;
            }
            // The closing quote is left for the next token (a symbol).
            return Some(Token {
                kind: TokenKind::Quoted,
                start: inner_start,
                end: inner_start + len,
                folded: rest.get(..len)?.to_string(),
            });
        }
        if ch == '\n' {
            return None;
        }
        len += ch.len_utf8();
    }
    None
}

/// A URL starting at `at`.
fn url(text: &str, at: usize) -> Option<Token> {
    let rest = text.get(at..)?;
    let lower_start: String = rest.chars().take(8).flat_map(char::to_lowercase).collect();
    if !(lower_start.starts_with("http://")
        || lower_start.starts_with("https://")
        || lower_start.starts_with("www."))
    {
        return None;
    }
    let len = rest
        .char_indices()
        .find(|(_, c)| c.is_whitespace() || matches!(c, '"' | '<' | '>'))
        .map_or(rest.len(), |(i, _)| i);
    let trimmed = rest
        .get(..len)?
        .trim_end_matches(['.', ',', ';', ':', '!', '?', ')']);
    Some(Token {
        kind: TokenKind::Url,
        start: at,
        end: at + trimmed.len(),
        folded: trimmed.to_string(),
    })
}

/// An e-mail address starting at `at`.
fn email(text: &str, at: usize) -> Option<Token> {
    let rest = text.get(at..)?;
    let local_len = rest
        .char_indices()
        .find(|(_, c)| !(c.is_alphanumeric() || matches!(c, '.' | '_' | '+' | '-')))
        .map_or(rest.len(), |(i, _)| i);
    if local_len == 0 || !rest.get(local_len..)?.starts_with('@') {
        return None;
    }
    let domain_start = local_len + 1;
    let domain = rest.get(domain_start..)?;
    let domain_len = domain
        .char_indices()
        .find(|(_, c)| !(c.is_alphanumeric() || matches!(c, '.' | '-')))
        .map_or(domain.len(), |(i, _)| i);
    let domain = domain.get(..domain_len)?.trim_end_matches(['.', '-']);
    let dot = domain.rfind('.')?;
    if dot == 0 || domain.len() - dot < 3 {
        return None;
    }
    let end = domain_start + domain.len();
    Some(Token {
        kind: TokenKind::Email,
        start: at,
        end: at + end,
        folded: rest.get(..end)?.to_string(),
    })
}

/// A word, a number or a code starting at `at` (a word character is there).
fn word_or_number(text: &str, at: usize) -> Token {
    let rest = text.get(at..).unwrap_or("");
    let mut end = 0;
    let mut letters = false;
    let mut digits = false;
    let mut joined = false;
    let mut chars = rest.char_indices().peekable();
    while let Some((i, c)) = chars.next() {
        if is_word_char(c) {
            letters |= !c.is_ascii_digit();
            digits |= c.is_ascii_digit();
            end = i + c.len_utf8();
            continue;
        }
        let next = chars.peek().map(|(_, n)| *n);
        let next_is_word = next.is_some_and(is_word_char);
        let inner = match c {
            // `40.00`, `1.234,56`: separators between digits.
            '.' | ',' => {
                let prev_digit = rest.get(..i).and_then(|p| p.chars().next_back());
                prev_digit.is_some_and(|p| p.is_ascii_digit())
                    && next.is_some_and(|n| n.is_ascii_digit())
            }
            // `don't`, `d'água` (an apostrophe between letters; `4411's` is a number and `'s`).
            '\'' | '\u{2019}' => {
                let prev = rest.get(..i).and_then(|p| p.chars().next_back());
                prev.is_some_and(|p| p.is_alphabetic()) && next.is_some_and(char::is_alphabetic)
            }
            // `A-4411`, `visa-4242`, `ORD_12`.
            '-' | '_' => next_is_word,
            _ => false,
        };
        if !inner {
            break;
        }
        joined |= matches!(c, '-' | '_');
        end = i + c.len_utf8();
    }
    let written = rest.get(..end).unwrap_or("");
    let kind = if !letters {
        if written.contains(['-', '_']) {
            TokenKind::Code
        } else {
            TokenKind::Number
        }
    } else if digits && (joined || written.chars().any(|c| c.is_ascii_digit())) {
        // Letters with digits: `A-4411`, `visa4242`; letters joined by `-` alone (`e-mail`,
        // `look-up`) stay a word.
        TokenKind::Code
    } else {
        TokenKind::Word
    };
    let folded = match kind {
        TokenKind::Word => fold(written),
        _ => written.to_string(),
    };
    Token {
        kind,
        start: at,
        end: at + end,
        folded,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kinds(text: &str) -> Vec<(TokenKind, String)> {
        tokens(text, 100)
            .into_iter()
            .map(|t| (t.kind, t.folded))
            .collect()
    }

    #[test]
    fn accents_fold_away() {
        assert_eq!(fold("Devolução"), "devolucao");
        assert_eq!(fold("DEVOLUCAO"), "devolucao");
        assert_eq!(fold("três"), "tres");
        assert_eq!(fold("don\u{2019}t"), "don't");
    }

    #[test]
    fn a_turn_is_cut_into_tokens_with_spans() {
        use TokenKind::*;
        assert_eq!(
            kinds("Refund order #4411 R$ 1.234,56 to ann@example.com, \"fast\" A-12 don't"),
            vec![
                (Word, "refund".into()),
                (Word, "order".into()),
                (Symbol, "#".into()),
                (Number, "4411".into()),
                (Word, "r".into()),
                (Symbol, "$".into()),
                (Number, "1.234,56".into()),
                (Word, "to".into()),
                (Email, "ann@example.com".into()),
                (Symbol, ",".into()),
                (Quoted, "fast".into()),
                (Symbol, "\"".into()),
                (Code, "A-12".into()),
                (Word, "don't".into()),
            ]
        );
        let t = tokens("pedido 4411", 10);
        assert_eq!(t.get(1).map(|t| (t.start, t.end)), Some((7, 11)));
    }

    #[test]
    fn urls_and_numbers_end_where_they_should() {
        use TokenKind::*;
        assert_eq!(
            kinds("see https://x.example/a. 40.00."),
            vec![
                (Word, "see".into()),
                (Url, "https://x.example/a".into()),
                (Symbol, ".".into()),
                (Number, "40.00".into()),
                (Symbol, ".".into()),
            ]
        );
    }
}
