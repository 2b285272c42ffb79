//! The token stream of the clean-file parser, with each run of in-line tokens that follows a
//! keyword taking text given as one token.
//!
//! After such a keyword (`user`, `bot`, `if`, `define flow`, …) grammars/colang_v1.lalrpop reads
//! the rest of the line up to `or user` or the end of the line as `Text: InTok+`, and keeps only
//! the range from the first token's start to the last one's end. One `word` token with that
//! range is read the same way, with one shift instead of a shift and a reduction per token.
//! Where such a keyword stands in a line the grammar reads as `AnyTok*` (a raw block, a line
//! marked bad), one `word` is an `AnyTok` as well, and the line's range is unchanged. So the
//! parser accepts the merged stream exactly when it accepts the whole stream, and runs the same
//! actions on the same ranges. The merged stream is given only to the clean-file parser, whose
//! errors are never reported.

use super::lexer::Tok;

type Spanned = (usize, Tok, usize);

/// The tokens of `tokens`, with the runs described above merged.
pub(crate) struct TextRuns<'a> {
    tokens: std::slice::Iter<'a, Spanned>,
    /// Whether the last token is a keyword taking text.
    after_keyword: bool,
    /// The token after a merged run: read ahead while finding where the run ends.
    held: Option<Spanned>,
}

impl<'a> TextRuns<'a> {
    pub(crate) fn new(tokens: &'a [Spanned]) -> Self {
        TextRuns {
            tokens: tokens.iter(),
            after_keyword: false,
            held: None,
        }
    }
}

impl Iterator for TextRuns<'_> {
    type Item = Spanned;

    #[inline]
    fn next(&mut self) -> Option<Spanned> {
        let (start, tok, mut end) = match self.held.take() {
            Some(t) => t,
            None => *self.tokens.next()?,
        };
        if self.after_keyword && in_text(tok) {
            for &next in self.tokens.by_ref() {
                if !in_text(next.1) {
                    self.held = Some(next);
                    break;
                }
                end = next.2;
            }
            self.after_keyword = false;
            return Some((start, Tok::Word, end));
        }
        self.after_keyword = takes_text(tok);
        Some((start, tok, end))
    }
}

/// The tokens of `InTok` in grammars/colang_v1.lalrpop.
pub(super) fn in_text(tok: Tok) -> bool {
    matches!(
        tok,
        Tok::Word
            | Tok::Var
            | Tok::Number
            | Tok::Str
            | Tok::OpenStr
            | Tok::SingleStr
            | Tok::LParen
            | Tok::RParen
            | Tok::LBracket
            | Tok::RBracket
            | Tok::LBrace
            | Tok::RBrace
            | Tok::Comma
            | Tok::Assign
            | Tok::PlusAssign
            | Tok::MinusAssign
            | Tok::Op
            | Tok::Colon
            | Tok::Dot
            | Tok::Ellipsis
            | Tok::Other
    )
}

/// The keywords that grammars/colang_v1.lalrpop follows with `Text` or `Text?` wherever it
/// reads them outside `AnyTok`.
fn takes_text(tok: Tok) -> bool {
    matches!(
        tok,
        Tok::DefUser
            | Tok::DefBot
            | Tok::DefFlow
            | Tok::DefSubflow
            | Tok::DefOther
            | Tok::Import
            | Tok::NamedFlow
            | Tok::User
            | Tok::OrUser
            | Tok::Bot
            | Tok::Set
            | Tok::Do
            | Tok::Event
            | Tok::Infer
            | Tok::If
            | Tok::ElseIf
            | Tok::When
            | Tok::ElseWhen
            | Tok::While
            | Tok::Return
            | Tok::Priority
            | Tok::Meta
            | Tok::Label
            | Tok::Goto
            | Tok::Generic
    )
}

#[cfg(test)]
mod tests;
