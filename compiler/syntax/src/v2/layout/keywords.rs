//! How the layout pass reads words: the first word of a statement may be a statement keyword
//! (`if` even inside a longer word, `else if`, `or when`), the word after `$v =` may start a spec
//! operation, and other words are keywords or names depending on whether the line holds specs or
//! expressions, as the reference's contextual lexer decides.

use super::{Ctx, Mode};
use crate::v2::lexer::Raw;
use crate::v2::token::Tok;

pub(super) fn is_spec_op(w: &str) -> Option<Tok> {
    Some(match w {
        "match" => Tok::Match,
        "send" => Tok::Send,
        "start" => Tok::Start,
        "await" => Tok::Await,
        "stop" => Tok::Stop,
        "activate" => Tok::Activate,
        "deactivate" => Tok::Deactivate,
        _ => return None,
    })
}

pub(super) fn constant(w: &str) -> Option<Tok> {
    Some(match w {
        "True" => Tok::True,
        "False" => Tok::False,
        "None" => Tok::None,
        "and" => Tok::And,
        "or" => Tok::Or,
        _ => return None,
    })
}

impl Ctx<'_> {
    /// Reads a word as a keyword or a name; returns the last raw index consumed.
    pub(super) fn word(&mut self, i: usize, start: usize, end: usize) -> usize {
        let w = self.slice(start, end);
        if self.mode == Mode::Start && self.brackets.is_empty() {
            return self.statement_word(i, start, end);
        }
        if self.after_assign {
            self.after_assign = false;
            if let Some(op) = is_spec_op(w) {
                self.mode = Mode::Spec;
                self.push(op, start, end);
                return i;
            }
            match w {
                "not" => {
                    self.mode = Mode::Expr;
                    self.push(Tok::Not, start, end);
                    return i;
                }
                "True" | "False" | "None" => self.mode = Mode::Expr,
                _ if self.next_is_lparen(i) => self.mode = Mode::Expr,
                _ => {
                    self.toks.push((start, Tok::ImplicitSpec, start));
                    self.mode = Mode::Spec;
                }
            }
        }
        if let Some(tok) = constant(w) {
            if matches!(tok, Tok::And | Tok::Or) {
                self.count_operator(start, end);
                if self.in_spec_level() {
                    self.seen_spec_name = false;
                    self.in_simple_args = false;
                }
            } else if self.in_spec_level() && self.seen_spec_name {
                self.in_simple_args = true;
            }
            self.push(tok, start, end);
            return i;
        }
        if w == "as" {
            self.push(Tok::As, start, end);
            return i;
        }
        let head_default = self.mode == Mode::FlowHead
            && self.brackets.is_empty()
            && !matches!(self.prev(), Some(Tok::Flow | Tok::Name));
        if self.in_expr_words() || head_default {
            let tok = match w {
                "not" => Tok::Not,
                "in" => Tok::In,
                "is" => Tok::Is,
                _ if self.next_is_lparen(i) => Tok::FuncName,
                _ => Tok::Name,
            };
            if matches!(tok, Tok::Not | Tok::In | Tok::Is) {
                self.count_operator(start, end);
            }
            self.push(tok, start, end);
            return i;
        }
        let tok = if self.in_spec_level() && self.in_simple_args && self.next_is_lparen(i) {
            Tok::FuncName
        } else {
            Tok::Name
        };
        if self.in_spec_level() && !self.in_simple_args {
            self.seen_spec_name = true;
        }
        self.push(tok, start, end);
        i
    }

    /// The first word of a logical line.
    fn statement_word(&mut self, i: usize, start: usize, end: usize) -> usize {
        let w = self.slice(start, end);
        let (tok, mode) = match w {
            "when" => (Tok::When, Mode::Spec),
            "while" => (Tok::While, Mode::Expr),
            "return" => (Tok::Return, Mode::Expr),
            "log" => (Tok::Log, Mode::Expr),
            "print" => (Tok::Print, Mode::Expr),
            "priority" => (Tok::Priority, Mode::Expr),
            "abort" => (Tok::Abort, Mode::Other),
            "break" => (Tok::Break, Mode::Other),
            "continue" => (Tok::Continue, Mode::Other),
            "pass" => (Tok::Pass, Mode::Other),
            "global" => (Tok::Global, Mode::Other),
            "import" => (Tok::Import, Mode::Import),
            "flow" if !self.next_is_lparen(i) => (Tok::Flow, Mode::FlowHead),
            "else" => return self.else_word(i, start, end),
            "or" => {
                if let Some((j, Some(Raw::Word), s, e)) = self.peek_at(i)
                    && self.slice(s, e) == "when"
                {
                    self.mode = Mode::Spec;
                    self.push(Tok::OrWhen, start, e);
                    return j;
                }
                (Tok::Or, Mode::Spec)
            }
            _ => {
                if let Some(op) = is_spec_op(w) {
                    (op, Mode::Spec)
                } else if let Some(rest) = w.strip_prefix("orwhen") {
                    return self.prefixed(Tok::OrWhen, start, end, 6, rest.len(), Mode::Spec, i);
                } else if let Some(rest) = w.strip_prefix("elif") {
                    return self.prefixed(Tok::Elif, start, end, 4, rest.len(), Mode::Expr, i);
                } else if let Some(rest) = w.strip_prefix("if") {
                    // The reference's `if` token has no word boundary: `iffy` reads as `if fy`.
                    return self.prefixed(Tok::If, start, end, 2, rest.len(), Mode::Expr, i);
                } else if let Some(tok) = constant(w) {
                    (tok, Mode::Expr)
                } else {
                    self.mode = Mode::Spec;
                    self.seen_spec_name = true;
                    self.push(Tok::Name, start, end);
                    return i;
                }
            }
        };
        self.mode = mode;
        self.push(tok, start, end);
        i
    }

    #[expect(
        clippy::too_many_arguments,
        reason = "a prefix split needs the whole word and its place"
    )]
    fn prefixed(
        &mut self,
        tok: Tok,
        start: usize,
        end: usize,
        len: usize,
        rest: usize,
        mode: Mode,
        i: usize,
    ) -> usize {
        self.mode = mode;
        self.push(tok, start, start + len);
        if rest > 0 {
            let t = if self.next_is_lparen(i) {
                Tok::FuncName
            } else {
                Tok::Name
            };
            self.push(t, start + len, end);
        }
        i
    }

    fn else_word(&mut self, i: usize, start: usize, end: usize) -> usize {
        if let Some((j, Some(Raw::Word), s, e)) = self.peek_at(i) {
            let between = self.slice(end, s);
            let next = self.slice(s, e);
            if between.bytes().all(|b| b == b' ' || b == b'\t') && next.starts_with("if") {
                self.mode = Mode::Expr;
                self.push(Tok::Elif, start, s + 2);
                if e > s + 2 {
                    let t = if self.next_is_lparen(j) {
                        Tok::FuncName
                    } else {
                        Tok::Name
                    };
                    self.push(t, s + 2, e);
                }
                return j;
            }
        }
        self.mode = Mode::Other;
        self.push(Tok::Else, start, end);
        i
    }
}
