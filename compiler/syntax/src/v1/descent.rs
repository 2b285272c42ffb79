//! A hand-written parser for clean Colang 1.0 files: grammars/colang_v1.lalrpop read by
//! recursive descent over the layout's token stream (pulled from [`Stream`] a line at a time),
//! with the same actions (`nodes`) on the same ranges, so it builds the tree the generated parsers
//! build.
//!
//! It only ever accepts a file the generated clean-file parser accepts without an error, and
//! then with the same items: each function below reads one rule of the grammar and gives up
//! (`None`) at the first token the rule does not allow, where the generated parser would report
//! an error. Giving up is always safe: `parse_items` then runs the generated parsers, whose
//! errors are the ones reported. The grammar needs one token of lookahead everywhere but in an
//! argument (`name = value` or a value), where this parser looks at two.
//!
//! Ranges follow lalrpop's `@L` and `@R`: `@L` before a rule's first token is that token's
//! start, and `@R` is the end of the last token read before it (every `@R` of the grammar
//! follows at least one token of its rule), which is what [`Parser::last_end`] gives.

use stalwart_diagnostics::FileId;

use super::ast::{BranchKeyword, MessageLine, SetOp, Stmt};
use super::layout::{Spanned, Stream};
use super::lexer::Tok;
use super::nodes::{self as n, ArgR, CallR, Pending, R};
use super::text_runs::in_text;

/// The deepest nesting of blocks read; deeper input (which the layout pass does not produce) is
/// left to the generated parsers.
const MAX_BLOCKS: usize = 256;

/// Parses the token stream `stream` lays out into `pending.items`; `false` when the stream is
/// not one this parser accepts (then `pending` holds partial nodes, to be cleared, and `stream`
/// stopped where this parser gave up). On `true`, `stream` has laid out the whole file.
pub(crate) fn parse<'s>(
    src: &'s str,
    file: FileId,
    stream: &mut Stream<'s>,
    pending: &mut Pending,
) -> bool {
    let mut p = Parser {
        src,
        file,
        stream,
        pos: 0,
        last_end: 0,
        pending,
        depth: 0,
        closers: Vec::new(),
    };
    while p.peek().is_some() {
        if p.item().is_none() {
            return false;
        }
    }
    true
}

struct Parser<'s, 'p> {
    src: &'s str,
    file: FileId,
    stream: &'p mut Stream<'s>,
    /// The next token, in `stream.tokens()`.
    pos: usize,
    /// The end of the last token read (`@R`).
    last_end: usize,
    pending: &'p mut Pending,
    /// The blocks open.
    depth: usize,
    /// The closing brackets a value's groups wait for (kept to reuse its buffer).
    closers: Vec<Tok>,
}

impl Parser<'_, '_> {
    /// The next token, laying out the next lines when the ones laid out are read.
    #[inline]
    fn peek(&mut self) -> Option<Spanned> {
        if let Some(&t) = self.stream.tokens().get(self.pos) {
            return Some(t);
        }
        self.pos = 0;
        if self.stream.refill() {
            self.stream.tokens().first().copied()
        } else {
            None
        }
    }

    fn kind(&mut self) -> Option<Tok> {
        self.peek().map(|t| t.1)
    }

    fn at(&mut self, tok: Tok) -> bool {
        self.kind() == Some(tok)
    }

    /// Reads the token [`Parser::peek`] gave.
    fn bump(&mut self) {
        if let Some(t) = self.stream.tokens().get(self.pos) {
            self.last_end = t.2;
        }
        self.pos += 1;
    }

    /// The end of the last token read (`@R`).
    fn last_end(&self) -> usize {
        self.last_end
    }

    /// Reads `tok`, or gives up.
    fn expect(&mut self, tok: Tok) -> Option<()> {
        if self.at(tok) {
            self.bump();
            Some(())
        } else {
            None
        }
    }

    /// `Text?`: a run of in-line tokens, as its range.
    fn text(&mut self) -> Option<R> {
        let (l, tok, _) = self.peek()?;
        if !in_text(tok) {
            return None;
        }
        self.bump();
        while let Some((_, tok, _)) = self.peek()
            && in_text(tok)
        {
            self.bump();
        }
        Some((l, self.last_end))
    }

    /// `("or user" <Text>)*`.
    fn or_users(&mut self) -> Option<Vec<R>> {
        let mut others = Vec::new();
        while self.at(Tok::OrUser) {
            self.bump();
            others.push(self.text()?);
        }
        Some(others)
    }

    /// `AnyTok*`: every token but the structure tokens; how many.
    fn skip_line(&mut self) -> usize {
        let mut skipped = 0;
        while let Some(tok) = self.kind()
            && !matches!(tok, Tok::Newline | Tok::Indent | Tok::Dedent)
        {
            self.bump();
            skipped += 1;
        }
        skipped
    }

    fn enter(&mut self) -> Option<()> {
        self.expect(Tok::Indent)?;
        self.depth += 1;
        (self.depth <= MAX_BLOCKS).then_some(())
    }

    /// `RawBlock?`.
    fn raw_block(&mut self) -> Option<()> {
        if !self.at(Tok::Indent) {
            return Some(());
        }
        self.enter()?;
        let mut lines = 0;
        while !self.at(Tok::Dedent) {
            // `AnyTok+ "end of line" RawBlock?`
            if self.skip_line() == 0 {
                return None;
            }
            self.expect(Tok::Newline)?;
            self.raw_block()?;
            lines += 1;
        }
        self.bump();
        self.depth -= 1;
        (lines > 0).then_some(())
    }

    /// `MsgBlock?`.
    fn msg_block(&mut self) -> Option<Option<Vec<MessageLine>>> {
        if !self.at(Tok::Indent) {
            return Some(None);
        }
        self.enter()?;
        let mut lines = 0;
        while !self.at(Tok::Dedent) {
            self.msg_line()?;
            lines += 1;
        }
        self.bump();
        self.depth -= 1;
        (lines > 0).then(|| Some(self.pending.take_message_lines(lines)))
    }

    /// `MsgLine`.
    fn msg_line(&mut self) -> Option<()> {
        let (src, file) = (self.src, self.file);
        let (l, tok, _) = self.peek()?;
        let branch = match tok {
            Tok::If => BranchKeyword::If,
            Tok::ElseIf => BranchKeyword::ElseIf,
            Tok::Else => BranchKeyword::Else,
            Tok::Bad => {
                self.bump();
                self.skip_line();
                self.expect(Tok::Newline)?;
                self.raw_block()?;
                self.pending.message_lines.push(None);
                return Some(());
            }
            _ => {
                let t = self.text()?;
                self.expect(Tok::Newline)?;
                self.raw_block()?;
                self.pending
                    .message_lines
                    .push(Some(n::message_text(src, file, t)));
                return Some(());
            }
        };
        self.bump();
        let c = if branch == BranchKeyword::Else {
            None
        } else {
            self.text()
        };
        self.expect(Tok::Newline)?;
        let b = self.msg_block()?;
        let r = self.last_end();
        self.pending
            .message_lines
            .push(Some(n::message_branch(src, file, branch, (l, r), c, b)));
        Some(())
    }

    /// `FlowBlock?`.
    fn flow_block(&mut self) -> Option<Option<Vec<Stmt>>> {
        if !self.at(Tok::Indent) {
            return Some(None);
        }
        self.enter()?;
        let mut stmts = 0;
        while !self.at(Tok::Dedent) {
            self.stmt()?;
            stmts += 1;
        }
        self.bump();
        self.depth -= 1;
        (stmts > 0).then(|| Some(self.pending.take_stmts(stmts)))
    }

    /// `Item`.
    fn item(&mut self) -> Option<()> {
        let (src, file) = (self.src, self.file);
        let (l, tok, _) = self.peek()?;
        let item = match tok {
            Tok::Define => {
                self.bump();
                let mut mods = Vec::new();
                while let Some((ml, Tok::Modifier, mr)) = self.peek() {
                    mods.push((ml, mr));
                    self.bump();
                }
                let kind = self.kind()?;
                self.bump();
                let name = self.text();
                let h = self.last_end();
                self.expect(Tok::Newline)?;
                match kind {
                    Tok::DefUser | Tok::DefBot => {
                        let b = self.msg_block()?;
                        let r = self.last_end();
                        if kind == Tok::DefUser {
                            n::user_def(src, file, (l, h), r, name, b)
                        } else {
                            n::bot_def(src, file, (l, h), r, name, b)
                        }
                    }
                    Tok::DefFlow | Tok::DefSubflow => {
                        let b = self.flow_block()?;
                        let r = self.last_end();
                        let subflow = kind == Tok::DefSubflow;
                        n::flow_def(src, file, (l, h), r, mods, subflow, name, b)
                    }
                    Tok::DefOther => n::other_def(src, file, (l, h)),
                    _ => return None,
                }
            }
            Tok::Import => {
                self.bump();
                let t = self.text();
                let r = self.last_end();
                self.expect(Tok::Newline)?;
                n::import(src, file, (l, r), t)
            }
            Tok::NamedFlow => {
                self.bump();
                let t = self.text()?;
                let h = self.last_end();
                self.expect(Tok::Newline)?;
                let b = self.flow_block()?;
                let r = self.last_end();
                n::named_flow(src, file, (l, h), r, t, b)
            }
            _ => {
                self.stmt()?;
                self.pending.stmt_item();
                return Some(());
            }
        };
        self.pending.items.push(item);
        Some(())
    }

    /// A statement whose rule ends `<t:Text?> <r:@R> "end of line"`, then `RawBlock?` when
    /// `raw`: the text and `r`.
    fn text_line(&mut self, raw: bool) -> Option<(Option<R>, usize)> {
        let t = self.text();
        let r = self.last_end();
        self.expect(Tok::Newline)?;
        if raw {
            self.raw_block()?;
        }
        Some((t, r))
    }

    /// `Stmt`.
    fn stmt(&mut self) -> Option<()> {
        let (src, file) = (self.src, self.file);
        let (l, tok, e) = self.peek()?;
        self.bump();
        let stmt = match tok {
            Tok::User => {
                let a = self.text()?;
                let o = self.or_users()?;
                let r = self.last_end();
                self.expect(Tok::Newline)?;
                self.raw_block()?;
                n::user_stmt(src, file, (l, r), a, o)
            }
            Tok::Bot => {
                let t = self.text();
                let r = self.last_end();
                self.expect(Tok::Newline)?;
                let b = self.msg_block()?;
                n::bot_stmt(src, file, (l, r), t, b)
            }
            Tok::Run => {
                let c = self.call()?;
                let r = self.last_end();
                self.expect(Tok::Newline)?;
                self.raw_block()?;
                n::run(src, file, (l, r), None, c)
            }
            Tok::Var => self.assignment((l, e))?,
            Tok::Set => {
                let (t, r) = self.text_line(false)?;
                n::set_keyword(src, file, (l, r), t)
            }
            Tok::Do => {
                let (t, r) = self.text_line(true)?;
                n::do_stmt(src, file, (l, r), t)
            }
            Tok::Event => {
                let (t, r) = self.text_line(true)?;
                n::event(src, file, (l, r), t)
            }
            Tok::Infer => {
                let (t, r) = self.text_line(true)?;
                n::infer(src, file, (l, r), t)
            }
            Tok::If => self.if_stmt(l)?,
            Tok::When => self.when_stmt(l)?,
            Tok::While => {
                let c = self.text();
                self.expect(Tok::Newline)?;
                let b = self.flow_block()?;
                let r = self.last_end();
                n::while_stmt(src, file, (l, r), c, b)
            }
            Tok::Any => {
                self.expect(Tok::Newline)?;
                let b = self.flow_block()?;
                let r = self.last_end();
                n::any(file, (l, r), b)
            }
            Tok::Break | Tok::Continue | Tok::Stop => {
                self.expect(Tok::Newline)?;
                let kind = match tok {
                    Tok::Break => n::Simple::Break,
                    Tok::Continue => n::Simple::Continue,
                    _ => n::Simple::Stop,
                };
                n::simple(file, (l, e), kind)
            }
            Tok::Return | Tok::Priority | Tok::Label | Tok::Goto => {
                let (t, r) = self.text_line(false)?;
                let kind = match tok {
                    Tok::Return => n::WithText::Return,
                    Tok::Priority => n::WithText::Priority,
                    Tok::Label => n::WithText::Label,
                    _ => n::WithText::Goto,
                };
                n::with_text(src, file, (l, r), kind, t)
            }
            Tok::Meta => {
                let t = self.text();
                self.expect(Tok::Newline)?;
                self.raw_block()?;
                let r = self.last_end();
                n::with_text(src, file, (l, r), n::WithText::Meta, t)
            }
            Tok::Generic => {
                let (t, r) = self.text_line(true)?;
                n::generic(src, file, (l, r), (l, e), t)
            }
            Tok::Bad => {
                self.skip_line();
                let r = self.last_end();
                self.expect(Tok::Newline)?;
                self.raw_block()?;
                n::error(file, (l, r))
            }
            _ => return None,
        };
        self.pending.stmts.push(stmt);
        Some(())
    }

    /// After `<v:Var>`: `"=" "execute after =" Call` or `SetOp Text?`.
    fn assignment(&mut self, v: R) -> Option<Stmt> {
        let (src, file) = (self.src, self.file);
        let l = v.0;
        let op = match self.kind()? {
            Tok::Assign => SetOp::Assign,
            Tok::PlusAssign => SetOp::Add,
            Tok::MinusAssign => SetOp::Sub,
            _ => return None,
        };
        self.bump();
        if op == SetOp::Assign && self.at(Tok::RunInline) {
            self.bump();
            let c = self.call()?;
            let r = self.last_end();
            self.expect(Tok::Newline)?;
            self.raw_block()?;
            return Some(n::run(src, file, (l, r), Some(v), c));
        }
        let (t, r) = self.text_line(true)?;
        Some(n::set(src, file, (l, r), v, op, t))
    }

    /// After `"if"`: the condition, the body, `ElseIf*` and `Else?`.
    fn if_stmt(&mut self, l: usize) -> Option<Stmt> {
        let (src, file) = (self.src, self.file);
        let c = self.text();
        let h = self.last_end();
        self.expect(Tok::Newline)?;
        let b = self.flow_block()?;
        let mut else_ifs = Vec::new();
        while let Some((el, Tok::ElseIf, _)) = self.peek() {
            self.bump();
            let c = self.text();
            self.expect(Tok::Newline)?;
            let b = self.flow_block()?;
            else_ifs.push(Box::new(((el, self.last_end()), c, b)));
        }
        let mut else_part = None;
        if let Some((el, Tok::Else, _)) = self.peek() {
            self.bump();
            self.expect(Tok::Newline)?;
            let b = self.flow_block()?;
            else_part = Some(Box::new(((el, self.last_end()), b)));
        }
        let r = self.last_end();
        Some(n::if_stmt(src, file, (l, h), r, c, b, else_ifs, else_part))
    }

    /// After `"when"`: the alternatives, the body and `ElseWhen*`.
    fn when_stmt(&mut self, l: usize) -> Option<Stmt> {
        let (src, file) = (self.src, self.file);
        let a = self.text()?;
        let o = self.or_users()?;
        let h = self.last_end();
        self.expect(Tok::Newline)?;
        let b = self.flow_block()?;
        let mut else_whens = Vec::new();
        while let Some((el, Tok::ElseWhen, _)) = self.peek() {
            self.bump();
            let a = self.text()?;
            let o = self.or_users()?;
            self.expect(Tok::Newline)?;
            let b = self.flow_block()?;
            else_whens.push(Box::new(((el, self.last_end()), a, o, b)));
        }
        let r = self.last_end();
        Some(n::when_stmt(src, file, (l, h), r, a, o, b, else_whens))
    }

    /// `Call`: `NameTok+` and `ArgList?`.
    fn call(&mut self) -> Option<CallR> {
        let (l, _, _) = self.peek()?;
        let mut words = 0;
        while matches!(self.kind(), Some(Tok::Word | Tok::Number | Tok::Dot)) {
            self.bump();
            words += 1;
        }
        if words == 0 {
            return None;
        }
        let name = (l, self.last_end());
        let args = if self.at(Tok::LParen) {
            self.arg_list()?
        } else {
            Vec::new()
        };
        Some((name, args))
    }

    /// `ArgList`: `"(" (Arg ",")* Arg? ")"`.
    #[expect(
        clippy::vec_box,
        reason = "the arguments are boxed as the grammar's `ArgList` gives them to `nodes::run`"
    )]
    fn arg_list(&mut self) -> Option<Vec<Box<ArgR>>> {
        self.expect(Tok::LParen)?;
        let mut args = Vec::new();
        loop {
            if self.at(Tok::RParen) {
                self.bump();
                return Some(args);
            }
            args.push(Box::new(self.arg()?));
            match self.kind()? {
                Tok::Comma => self.bump(),
                Tok::RParen => {
                    self.bump();
                    return Some(args);
                }
                _ => return None,
            }
        }
    }

    /// `Arg`: `Word "=" Value` or `Value`.
    fn arg(&mut self) -> Option<ArgR> {
        let (l, tok, e) = self.peek()?;
        // The token after a word is in the same line, so laid out with it.
        let named = tok == Tok::Word
            && self.stream.tokens().get(self.pos + 1).map(|t| t.1) == Some(Tok::Assign);
        let name = if named {
            self.bump();
            self.bump();
            Some((l, e))
        } else {
            None
        };
        let v = self.value()?;
        Some(((l, self.last_end()), name, v))
    }

    /// `Value`: `ValTok+`, a bracketed group being one `ValTok`.
    fn value(&mut self) -> Option<R> {
        let (l, _, _) = self.peek()?;
        let mut read = 0;
        while let Some(tok) = self.kind() {
            match tok {
                Tok::LParen | Tok::LBracket | Tok::LBrace => self.group()?,
                _ if value_token(tok) => self.bump(),
                _ => break,
            }
            read += 1;
        }
        (read > 0).then(|| (l, self.last_end()))
    }

    /// `"(" ValIn* ")"`, `"[" ValIn* "]"` or `"{" ValIn* "}"`, nested groups read without
    /// recursion.
    fn group(&mut self) -> Option<()> {
        self.closers.clear();
        loop {
            let tok = self.kind()?;
            self.bump();
            match tok {
                Tok::LParen => self.closers.push(Tok::RParen),
                Tok::LBracket => self.closers.push(Tok::RBracket),
                Tok::LBrace => self.closers.push(Tok::RBrace),
                Tok::RParen | Tok::RBracket | Tok::RBrace => {
                    if self.closers.pop()? != tok {
                        return None;
                    }
                    if self.closers.is_empty() {
                        return Some(());
                    }
                }
                Tok::Comma | Tok::Assign | Tok::PlusAssign | Tok::MinusAssign => {}
                _ if value_token(tok) => {}
                _ => return None,
            }
        }
    }
}

/// The tokens of `ValTok` that are not a bracket.
fn value_token(tok: Tok) -> bool {
    matches!(
        tok,
        Tok::Word
            | Tok::Var
            | Tok::Number
            | Tok::Str
            | Tok::OpenStr
            | Tok::SingleStr
            | Tok::Op
            | Tok::Colon
            | Tok::Dot
            | Tok::Ellipsis
            | Tok::Other
    )
}

#[cfg(test)]
mod tests;
