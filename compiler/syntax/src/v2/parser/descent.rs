//! A recursive-descent parser for clean Colang 2.x files: the productions of
//! grammars/colang_v2.lalrpop, one function per rule, calling the same actions of
//! [`Pending`] in the same order as the generated parsers do (children before their parent,
//! left to right), so it builds the same nodes with the same spans.
//!
//! It decides each alternative on the next token (two at a few places: `name :` is a label,
//! `$v =` an assignment or a named simple argument, `not in` and `is not` one operator), which
//! the grammar allows because it is LR(1) without conflicts and every alternative it chooses
//! here is the only one whose first tokens match; binary operators are read by precedence
//! climbing over the grammar's `Tier` levels, left-associative as the grammar's left-recursive
//! rules make them. The one place where the grammar defers its choice, the first entry of a
//! `{…}` (a set element is an atom with its postfixes, a dict key a whole test), is read as an
//! atom first and read again as a test when no `,` or `}` follows.
//!
//! It never reports errors: at any token it does not expect, at a check an action rejects, or
//! deeper than [`MAX_DEPTH`] nested rules, it stops with [`Rejected`], and the file goes to the
//! generated parsers (the clean-file one, then the first one, whose errors are reported). So
//! what it accepts, it must accept as they do: tests in `parser::tests` check that it accepts
//! exactly the files the clean-file parser accepts, with the same statements.

use stalwart_diagnostics::FileId;

use super::{LineIndex, Token};
use crate::v2::ast::{
    AssignOp, BinOp, CallArg, CmpOp, ExprKind, Flow, Import, SpecOp, Stmt, StmtKind,
};
use crate::v2::builder::{self as b, ArgsCount, Pending, Words};
use crate::v2::layout::{Stream, stream_capacity};
use crate::v2::token::Tok;

/// How deep rules may nest (brackets, unary operators, `not`, blocks) before the file is left
/// to the generated parsers, which keep their state on the heap.
const MAX_DEPTH: u32 = 200;

/// The parse stopped: the file is left to the generated parsers.
#[derive(Debug)]
pub(super) struct Rejected;

type R<T = ()> = Result<T, Rejected>;

/// A top-level statement the descent parser has read.
pub(super) enum Top<'s> {
    /// A flow definition (not boxed: it goes into the module's items as it is).
    Flow(Flow),
    /// Any other statement, pushed onto these statements.
    Stmts(&'s mut Vec<Stmt>),
}

/// Parses the whole token stream of a file as the grammar's `Block`, calling `each` with each
/// top-level statement; on `Err`, `p` holds junk and must be cleared. It reads the tokens as
/// the layout pass lays them out, and rejects a file where that pass reported something (those
/// places are `Error` tokens, which no rule reads).
pub(super) fn parse_block<'a>(
    text: &'a str,
    file: FileId,
    lines: &LineIndex<'_>,
    p: &mut Pending,
    toks: &mut Stream<'a>,
    mut each: impl FnMut(Top<'_>),
) -> R {
    let mut d = Descent {
        text,
        file,
        lines,
        line_at: (0, 0),
        p,
        toks,
        buf: Vec::with_capacity(stream_capacity(text)),
        base: 0,
        pos: 0,
        keep: usize::MAX,
        end: 0,
        depth: 0,
    };
    while let Some((l, tok, _)) = d.token(0) {
        if matches!(tok, Tok::At | Tok::Flow) {
            let f = d.nested(|d| d.flow_def(l))?;
            each(Top::Flow(f));
        } else {
            d.stmt()?;
            each(Top::Stmts(&mut d.p.stmts));
        }
    }
    if !d.toks.is_clean() {
        return Err(Rejected);
    }
    Ok(())
}

struct Descent<'a, 'p> {
    text: &'a str,
    file: FileId,
    /// Numbers the line of each flow.
    lines: &'p LineIndex<'p>,
    /// Where the line of the last flow was found ([`LineIndex::line_after`]).
    line_at: (usize, usize),
    p: &'p mut Pending,
    toks: &'p mut Stream<'a>,
    /// The tokens laid out and not yet dropped, from token `base` of the file on.
    buf: Vec<Token>,
    base: usize,
    /// The next token, in `buf`.
    pos: usize,
    /// The first token of the file that may be read again (a `{…}` entry is read twice), or
    /// `usize::MAX`.
    keep: usize,
    /// The end of the last token read (the grammar's `@R`).
    end: usize,
    depth: u32,
}

/// The token kind standing for the end of the stream: a clean stream holds no `Error` token.
const END: Tok = Tok::Error;

impl Descent<'_, '_> {
    /// The token `n` places after the next one.
    #[inline]
    fn token(&mut self, n: usize) -> Option<Token> {
        match self.buf.get(self.pos + n) {
            Some(t) => Some(*t),
            None => self.fill(n),
        }
    }

    /// Lays out more tokens, dropping those read: the token `n` places after the next one.
    #[cold]
    #[inline(never)]
    fn fill(&mut self, n: usize) -> Option<Token> {
        let at = self.base + self.pos;
        self.base = self.toks.fill(&mut self.buf, at + n, self.keep.min(at));
        self.pos = at - self.base;
        self.buf.get(self.pos + n).copied()
    }

    #[inline]
    fn peek(&mut self) -> Tok {
        self.peek_at(0)
    }

    #[inline]
    fn peek_at(&mut self, n: usize) -> Tok {
        match self.buf.get(self.pos + n) {
            Some(t) => t.1,
            None => self.fill(n).map_or(END, |t| t.1),
        }
    }

    /// Where the next token starts (the grammar's `@L`).
    #[inline]
    fn start(&mut self) -> usize {
        match self.buf.get(self.pos) {
            Some(t) => t.0,
            None => self.fill(0).map_or(self.end, |t| t.0),
        }
    }

    #[inline]
    fn bump(&mut self) -> Token {
        let t = self.token(0).unwrap_or((0, END, 0));
        self.pos += 1;
        self.end = t.2;
        t
    }

    #[inline]
    fn expect(&mut self, tok: Tok) -> R<Token> {
        if self.peek() == tok {
            Ok(self.bump())
        } else {
            Err(Rejected)
        }
    }

    #[inline]
    fn eat(&mut self, tok: Tok) -> bool {
        let found = self.peek() == tok;
        if found {
            self.bump();
        }
        found
    }

    fn nested<T>(&mut self, f: impl FnOnce(&mut Self) -> R<T>) -> R<T> {
        if self.depth >= MAX_DEPTH {
            return Err(Rejected);
        }
        self.depth += 1;
        let out = f(self);
        self.depth -= 1;
        out
    }

    // ----- statements -----

    fn stmt(&mut self) -> R {
        let l = self.start();
        match self.peek() {
            Tok::Newline => {
                self.bump();
                self.p.stmt(self.file, l, l, StmtKind::Empty);
            }
            Tok::If => self.nested(|d| d.if_stmt(l))?,
            Tok::While => self.nested(|d| d.while_stmt(l))?,
            Tok::When => self.nested(|d| d.when_stmt(l))?,
            Tok::At | Tok::Flow => {
                let f = self.nested(|d| d.flow_def(l))?;
                self.p
                    .stmt(self.file, l, self.end, StmtKind::Flow(Box::new(f)));
            }
            _ => {
                self.simple()?;
                let r = self.end;
                self.expect(Tok::Newline)?;
                self.p.simple_stmt(self.file, l, r);
            }
        }
        Ok(())
    }

    fn simple(&mut self) -> R {
        let tok = self.peek();
        if let Some(op) = spec_op(tok) {
            self.bump();
            self.spec_or()?;
            self.p.spec_stmt(op, false, None);
            return Ok(());
        }
        match tok {
            Tok::Var => match assign_op(self.peek_at(1)) {
                Some(op) => self.assignment(op)?,
                None => {
                    self.spec_or()?;
                    self.p.spec_stmt(SpecOp::Await, true, None);
                }
            },
            Tok::Name if self.peek_at(1) == Tok::Colon => {
                let (l, _, r) = self.bump();
                self.bump();
                let label = StmtKind::Label(b::span(self.file, l, r));
                self.p.kinds.push(label);
            }
            Tok::Name | Tok::LParen => {
                self.spec_or()?;
                self.p.spec_stmt(SpecOp::Await, true, None);
            }
            Tok::Return => {
                self.bump();
                let value = self.peek() != Tok::Newline;
                if value {
                    self.test()?;
                }
                self.p.optional_expr_kind(value, StmtKind::Return);
            }
            Tok::Abort => self.keyword(StmtKind::Abort),
            Tok::Break => self.keyword(StmtKind::Break),
            Tok::Continue => self.keyword(StmtKind::Continue),
            Tok::Pass => self.keyword(StmtKind::Pass),
            Tok::LongStr => self.keyword(StmtKind::Docstring),
            Tok::Generate => self.keyword(StmtKind::Generate),
            Tok::Global => {
                self.bump();
                let v = self.var_node()?;
                self.p.kinds.push(StmtKind::Global(v));
            }
            Tok::Log => self.keyword_expr(StmtKind::Log)?,
            Tok::Print => self.keyword_expr(StmtKind::Print)?,
            Tok::Priority => self.keyword_expr(StmtKind::Priority)?,
            Tok::ExprParen => {
                self.bump();
                self.test()?;
                self.expect(Tok::RParen)?;
                self.p.expr_kind(StmtKind::Expr);
            }
            Tok::Import => {
                let i = self.import()?;
                self.p.kinds.push(StmtKind::Import(i));
            }
            _ => return Err(Rejected),
        }
        Ok(())
    }

    /// `$v = …`, `$v += …`, `$v -= …`: a test, or a spec operation.
    fn assignment(&mut self, op: AssignOp) -> R {
        let target = self.var_node()?;
        self.bump();
        let next = self.peek();
        if let Some(spec) = spec_op(next) {
            self.bump();
            self.spec_or()?;
            self.p.spec_stmt(spec, false, Some(Box::new(target)));
        } else if next == Tok::ImplicitSpec {
            self.bump();
            self.spec_or()?;
            self.p
                .spec_stmt(SpecOp::Await, true, Some(Box::new(target)));
        } else {
            self.test()?;
            self.p.assign(target, op);
        }
        Ok(())
    }

    #[inline]
    fn keyword(&mut self, kind: StmtKind) {
        self.bump();
        self.p.kinds.push(kind);
    }

    fn keyword_expr(&mut self, kind: fn(Box<crate::v2::ast::Expr>) -> StmtKind) -> R {
        self.bump();
        self.expr()?;
        self.p.expr_kind(kind);
        Ok(())
    }

    fn import(&mut self) -> R<Import> {
        let (l, _, _) = self.bump();
        if self.peek() == Tok::Str {
            let (sl, _, sr) = self.bump();
            return Ok(b::import_string(self.text, self.file, l, sr, sl, sr));
        }
        let mut parts = Vec::new();
        loop {
            let (a, _, z) = self.expect(Tok::Name)?;
            parts.push((a, z));
            if !self.eat(Tok::Dot) {
                break;
            }
        }
        Ok(b::import_module(self.text, self.file, l, self.end, &parts))
    }

    fn if_stmt(&mut self, l: usize) -> R {
        self.if_arm()?;
        let mut more = 0;
        while self.peek() == Tok::Elif {
            self.if_arm()?;
            more += 1;
        }
        let else_body = self.else_arm()?;
        self.p.if_stmt(self.file, l, self.end, more, else_body);
        Ok(())
    }

    /// `if` or `elif`, its test and body.
    fn if_arm(&mut self) -> R {
        let (l, _, _) = self.bump();
        self.test()?;
        self.eat(Tok::Colon);
        let body = self.body()?;
        self.p.if_arm(self.file, l, self.end, body);
        Ok(())
    }

    fn while_stmt(&mut self, l: usize) -> R {
        self.bump();
        self.test()?;
        self.eat(Tok::Colon);
        let body = self.body()?;
        self.p.while_stmt(self.file, l, self.end, body);
        Ok(())
    }

    fn when_stmt(&mut self, l: usize) -> R {
        self.when_arm()?;
        let mut more = 0;
        while self.peek() == Tok::OrWhen {
            self.when_arm()?;
            more += 1;
        }
        let else_body = self.else_arm()?;
        self.p.when_stmt(self.file, l, self.end, more, else_body);
        Ok(())
    }

    /// `when` or `or when`, its spec expression and body.
    fn when_arm(&mut self) -> R {
        let (l, _, _) = self.bump();
        self.spec_or()?;
        self.eat(Tok::Colon);
        let body = self.body()?;
        self.p.when_arm(self.file, l, self.end, body);
        Ok(())
    }

    fn else_arm(&mut self) -> R<Option<Vec<Stmt>>> {
        if !self.eat(Tok::Else) {
            return Ok(None);
        }
        self.eat(Tok::Colon);
        self.body().map(Some)
    }

    /// `nl indent Stmt+ dedent`.
    fn body(&mut self) -> R<Vec<Stmt>> {
        self.expect(Tok::Newline)?;
        self.expect(Tok::Indent)?;
        let base = self.p.stmts.len();
        loop {
            self.stmt()?;
            if self.eat(Tok::Dedent) {
                break;
            }
        }
        let n = self.p.stmts.len() - base;
        Ok(self.p.take_stmts(n))
    }

    // ----- flow definitions -----

    fn flow_def(&mut self, l: usize) -> R<Flow> {
        // Flows start in the order they are read here (not in the order they end).
        let line = self.lines.line_after(&mut self.line_at, l as u32);
        let mut decorators = 0;
        while self.peek() == Tok::At {
            self.decorator()?;
            decorators += 1;
        }
        self.expect(Tok::Flow)?;
        let nl = self.start();
        let words = self.words()?;
        let nr = self.end;
        let params = match self.peek() {
            Tok::Var => {
                let mut n = 0;
                while self.peek() == Tok::Var {
                    self.param_def()?;
                    n += 1;
                }
                Some(n)
            }
            Tok::LParen => {
                self.bump();
                let n = self.param_defs()?;
                self.expect(Tok::RParen)?;
                Some(n)
            }
            _ => None,
        };
        let returns = if self.eat(Tok::Arrow) {
            Some(self.param_defs()?)
        } else {
            None
        };
        let body = self.body()?;
        let name = words.name(self.text);
        let mut flow = self.p.flow(
            self.file,
            l,
            self.end,
            decorators,
            (nl, nr, name),
            params,
            returns,
            body,
        );
        flow.line = line;
        Ok(flow)
    }

    fn decorator(&mut self) -> R {
        let (l, _, _) = self.bump();
        let (a, _, z) = self.expect(Tok::Name)?;
        let args = if self.eat(Tok::LParen) {
            let n = self.arg_values()?;
            self.expect(Tok::RParen)?;
            Some(n)
        } else {
            None
        };
        let r = self.end;
        self.expect(Tok::Newline)?;
        self.p
            .decorator(self.text, self.file, l, r, (a, z), args)
            .map_err(|_| Rejected)
    }

    /// `Comma1<ParamDef>`: the number of parameters.
    fn param_defs(&mut self) -> R<usize> {
        let mut n = 0;
        loop {
            self.param_def()?;
            n += 1;
            if !self.eat(Tok::Comma) {
                return Ok(n);
            }
        }
    }

    fn param_def(&mut self) -> R {
        let l = self.start();
        let v = self.var_node()?;
        let default = self.eat(Tok::Assign);
        if default {
            self.test()?;
        }
        self.p.param(self.text, self.file, l, self.end, v, default);
        Ok(())
    }

    /// One or more names: the name of a flow or spec.
    #[inline]
    fn words(&mut self) -> R<Words> {
        let (a, _, z) = self.expect(Tok::Name)?;
        let mut words = Words::first((a, z));
        while self.peek() == Tok::Name {
            let (a, _, z) = self.bump();
            words = words.add(self.text, (a, z));
        }
        Ok(words)
    }

    #[inline]
    fn var_node(&mut self) -> R<crate::v2::ast::Var> {
        let (l, _, r) = self.expect(Tok::Var)?;
        Ok(b::var(self.text, self.file, l, r))
    }

    // ----- specs -----

    fn spec_or(&mut self) -> R {
        let l = self.start();
        self.spec_and()?;
        let mut n = 1;
        while self.eat(Tok::Or) {
            self.spec_and()?;
            n += 1;
        }
        if n > 1 {
            self.p.spec_chain(self.file, l, self.end, n, true);
        }
        Ok(())
    }

    fn spec_and(&mut self) -> R {
        let l = self.start();
        self.spec_atom()?;
        let mut n = 1;
        while self.eat(Tok::And) {
            self.spec_atom()?;
            n += 1;
        }
        if n > 1 {
            self.p.spec_chain(self.file, l, self.end, n, false);
        }
        Ok(())
    }

    fn spec_atom(&mut self) -> R {
        let l = self.start();
        match self.peek() {
            Tok::Name => self.spec_named(l),
            Tok::Var => {
                let v = self.var_node()?;
                let members = self.members()?;
                let capture = self.capture()?;
                self.p.spec_ref(self.file, l, self.end, v, members, capture);
                Ok(())
            }
            Tok::LParen => self.nested(|d| {
                d.bump();
                d.spec_or()?;
                d.expect(Tok::RParen)?;
                let members = d.members()?;
                let capture = d.capture()?;
                d.p.group(d.file, l, d.end, members, capture)
                    .map_err(|_| Rejected)
            }),
            _ => Err(Rejected),
        }
    }

    /// A spec named by words: with classic arguments, members and a capture, or with simple
    /// arguments and a capture.
    fn spec_named(&mut self, l: usize) -> R {
        let words = self.words()?;
        let nr = self.end;
        if starts_expr(self.peek()) {
            let n = self.simple_args()?;
            let capture = self.capture()?;
            self.p.check_args(n).map_err(|_| Rejected)?;
            let name = (l, nr, words.name(self.text));
            let args = Some(ArgsCount::Simple(n));
            self.p
                .spec_named(self.file, l, self.end, name, args, 0, capture);
            return Ok(());
        }
        let args = if self.peek() == Tok::LParen {
            Some(ArgsCount::Classic(self.classic_args()?))
        } else {
            None
        };
        let members = self.members()?;
        let capture = self.capture()?;
        let name = (l, nr, words.name(self.text));
        self.p
            .spec_named(self.file, l, self.end, name, args, members, capture);
        Ok(())
    }

    fn members(&mut self) -> R<usize> {
        let mut n = 0;
        while self.peek() == Tok::Dot {
            let (l, _, _) = self.bump();
            let (a, _, z) = self.expect(Tok::Name)?;
            let args = if self.peek() == Tok::LParen {
                Some(self.classic_args()?)
            } else {
                None
            };
            self.p
                .member(self.text, self.file, l, self.end, (a, z), args);
            n += 1;
        }
        Ok(n)
    }

    #[inline]
    fn capture(&mut self) -> R<Option<Box<crate::v2::ast::Var>>> {
        if self.eat(Tok::As) {
            self.var_node().map(|v| Some(Box::new(v)))
        } else {
            Ok(None)
        }
    }

    /// `( Comma<ArgValue> )`: the number of arguments, checked for their order.
    fn classic_args(&mut self) -> R<usize> {
        self.nested(|d| {
            d.bump();
            let n = d.arg_values()?;
            d.expect(Tok::RParen)?;
            d.p.check_args(n).map_err(|_| Rejected)?;
            Ok(n)
        })
    }

    /// `Comma<ArgValue>` up to the `)`: the number of arguments.
    fn arg_values(&mut self) -> R<usize> {
        if self.peek() == Tok::RParen {
            return Ok(0);
        }
        let mut n = 0;
        loop {
            let l = self.start();
            if self.peek() == Tok::Name {
                let (a, _, z) = self.bump();
                self.expect(Tok::Assign)?;
                self.expr()?;
                let name = b::name_of(self.text, (a, z));
                self.p.arg(self.file, l, self.end, Some(name));
            } else {
                self.expr()?;
                self.p.arg(self.file, l, self.end, None);
            }
            n += 1;
            if !self.eat(Tok::Comma) {
                return Ok(n);
            }
        }
    }

    /// `SimpleFirst SimpleRest*`: the number of arguments.
    fn simple_args(&mut self) -> R<usize> {
        self.simple_arg(false)?;
        let mut n = 1;
        while starts_atom_nu(self.peek()) {
            self.simple_arg(true)?;
            n += 1;
        }
        Ok(n)
    }

    /// A named simple argument `$k = expr`, or a positional one (after the first, an
    /// expression that does not start with a unary operator or a list).
    fn simple_arg(&mut self, rest: bool) -> R {
        let l = self.start();
        if self.peek() == Tok::Var && self.peek_at(1) == Tok::Assign {
            let v = self.var_node()?;
            self.bump();
            self.expr()?;
            self.p.arg(self.file, l, self.end, Some(v.name));
        } else {
            self.bit_expr(rest)?;
            self.p.arg(self.file, l, self.end, None);
        }
        Ok(())
    }

    // ----- expressions -----

    fn test(&mut self) -> R {
        let l = self.start();
        self.and_test()?;
        while self.eat(Tok::Or) {
            self.and_test()?;
            self.p.or(self.file, l, self.end);
        }
        Ok(())
    }

    fn and_test(&mut self) -> R {
        let l = self.start();
        self.not_test()?;
        while self.eat(Tok::And) {
            self.not_test()?;
            self.p.and(self.file, l, self.end);
        }
        Ok(())
    }

    fn not_test(&mut self) -> R {
        if self.peek() != Tok::Not {
            return self.comparison();
        }
        let (l, _, _) = self.bump();
        self.nested(Self::not_test)?;
        self.p.not(self.file, l, self.end);
        Ok(())
    }

    fn comparison(&mut self) -> R {
        let l = self.start();
        self.expr()?;
        loop {
            let (op, len) = match self.peek() {
                Tok::Lt => (CmpOp::Lt, 1),
                Tok::Gt => (CmpOp::Gt, 1),
                Tok::EqEq => (CmpOp::Eq, 1),
                Tok::Ge => (CmpOp::Ge, 1),
                Tok::Le => (CmpOp::Le, 1),
                Tok::Ne => (CmpOp::Ne, 1),
                Tok::In => (CmpOp::In, 1),
                Tok::Not if self.peek_at(1) == Tok::In => (CmpOp::NotIn, 2),
                Tok::Is if self.peek_at(1) == Tok::Not => (CmpOp::IsNot, 2),
                Tok::Is => (CmpOp::Is, 1),
                _ => return Ok(()),
            };
            for _ in 0..len {
                self.bump();
            }
            self.expr()?;
            self.p.compare(self.file, l, self.end, op);
        }
    }

    /// The grammar's `Expr`.
    fn expr(&mut self) -> R {
        self.bit_expr(false)
    }

    /// `Expr`, or with `nu` the grammar's `ExprNU` (the first operand without a unary operator
    /// and not a list).
    fn bit_expr(&mut self, nu: bool) -> R {
        let l = self.start();
        if nu {
            self.power(true)?;
        } else {
            self.factor()?;
        }
        self.climb(l, 0)
    }

    /// The binary operators from precedence `min` up, after an operand starting at `l`.
    fn climb(&mut self, l: usize, min: u8) -> R {
        while let Some((op, prec)) = bin_op(self.peek()) {
            if prec < min {
                break;
            }
            self.bump();
            let rl = self.start();
            self.factor()?;
            self.climb(rl, prec + 1)?;
            self.p.binary(self.file, l, self.end, op);
        }
        Ok(())
    }

    fn factor(&mut self) -> R {
        let op = match self.peek() {
            Tok::Plus => crate::v2::ast::UnaryOp::Plus,
            Tok::Minus => crate::v2::ast::UnaryOp::Minus,
            Tok::Tilde => crate::v2::ast::UnaryOp::Invert,
            _ => return self.power(false),
        };
        let (l, _, _) = self.bump();
        self.nested(Self::factor)?;
        self.p.unary(self.file, l, self.end, op);
        Ok(())
    }

    fn power(&mut self, nu: bool) -> R {
        let l = self.start();
        self.atom_expr(nu)?;
        if self.eat(Tok::DoubleStar) {
            self.nested(Self::factor)?;
            self.p.binary(self.file, l, self.end, BinOp::Pow);
        }
        Ok(())
    }

    /// An atom and its subscripts, attributes and method calls.
    fn atom_expr(&mut self, nu: bool) -> R {
        let l = self.start();
        self.atom(nu)?;
        loop {
            match self.peek() {
                Tok::LBracket => self.nested(|d| d.index(l))?,
                Tok::Dot => match self.peek_at(1) {
                    Tok::Name => {
                        self.bump();
                        let (a, _, z) = self.bump();
                        self.p.attr(self.file, l, z, (a, z));
                    }
                    Tok::FuncName => {
                        self.bump();
                        let (a, _, z) = self.bump();
                        let n = self.nested(Self::call_args)?;
                        self.p
                            .method(self.file, l, self.end, (a, z), n)
                            .map_err(|_| Rejected)?;
                    }
                    _ => return Err(Rejected),
                },
                _ => return Ok(()),
            }
        }
    }

    /// `[ subscripts ]` after the expression starting at `l`.
    fn index(&mut self, l: usize) -> R {
        self.bump();
        let mut n = 0;
        while self.peek() != Tok::RBracket {
            self.subscript()?;
            n += 1;
            if !self.eat(Tok::Comma) {
                break;
            }
        }
        let close = self.start();
        self.expect(Tok::RBracket)?;
        self.p
            .index(self.file, l, self.end, n, close)
            .map_err(|_| Rejected)
    }

    fn subscript(&mut self) -> R {
        let lower = self.peek() != Tok::Colon;
        if lower {
            self.test()?;
            if self.peek() != Tok::Colon {
                self.p.subscript_index();
                return Ok(());
            }
        }
        self.bump();
        let upper = !matches!(self.peek(), Tok::Colon | Tok::Comma | Tok::RBracket);
        if upper {
            self.test()?;
        }
        let mut step = false;
        if self.eat(Tok::Colon) {
            step = !matches!(self.peek(), Tok::Comma | Tok::RBracket);
            if step {
                self.test()?;
            }
        }
        self.p.subscript_slice(lower, upper, step);
        Ok(())
    }

    fn atom(&mut self, nu: bool) -> R {
        let (l, tok, r) = self.token(0).unwrap_or((0, END, 0));
        let leaf = match tok {
            Tok::Var => ExprKind::Var,
            Tok::Int => ExprKind::Int,
            Tok::Float => ExprKind::Float,
            Tok::Str => ExprKind::Str,
            Tok::LongStr => ExprKind::LongStr,
            Tok::Nld => ExprKind::Nld,
            Tok::None => ExprKind::None,
            Tok::True => ExprKind::True,
            Tok::False => ExprKind::False,
            Tok::FuncName => {
                self.bump();
                let n = self.nested(Self::call_args)?;
                return self
                    .p
                    .call(self.file, l, self.end, (l, r), n)
                    .map_err(|_| Rejected);
            }
            Tok::LBrace => return self.nested(|d| d.brace(l)),
            Tok::LBracket if !nu => return self.nested(|d| d.list(l)),
            _ => return Err(Rejected),
        };
        self.bump();
        self.p.leaf(self.file, l, r, leaf);
        Ok(())
    }

    /// `[ AtomExpr, … ]`.
    fn list(&mut self, l: usize) -> R {
        self.bump();
        let mut n = 0;
        while self.peek() != Tok::RBracket {
            self.atom_expr(false)?;
            n += 1;
            if !self.eat(Tok::Comma) {
                break;
            }
        }
        self.expect(Tok::RBracket)?;
        self.p.list(self.file, l, self.end, n, ExprKind::List);
        Ok(())
    }

    /// `{…}`: a set when its first entry is an atom expression followed by `,` or `}`, else a
    /// dict.
    fn brace(&mut self, l: usize) -> R {
        self.bump();
        if starts_atom(self.peek()) {
            let (at, end, keep) = (self.base + self.pos, self.end, self.keep);
            self.keep = keep.min(at);
            self.atom_expr(false)?;
            let set = matches!(self.peek(), Tok::Comma | Tok::RBrace);
            self.keep = keep;
            if set {
                return self.set(l);
            }
            // A dict key: read it again as a test.
            self.p.drop_expr();
            (self.pos, self.end) = (at - self.base, end);
        }
        let mut n = 0;
        while self.peek() != Tok::RBrace {
            if self.eat(Tok::DoubleStar) {
                self.expr()?;
                self.p.dict_spread();
            } else {
                self.test()?;
                self.expect(Tok::Colon)?;
                self.test()?;
                self.p.dict_pair();
            }
            n += 1;
            if !self.eat(Tok::Comma) {
                break;
            }
        }
        self.expect(Tok::RBrace)?;
        self.p.dict(self.file, l, self.end, n);
        Ok(())
    }

    /// The rest of a set after its first element.
    fn set(&mut self, l: usize) -> R {
        let mut n = 1;
        while self.eat(Tok::Comma) {
            if self.peek() == Tok::RBrace {
                break;
            }
            self.atom_expr(false)?;
            n += 1;
        }
        self.expect(Tok::RBrace)?;
        self.p.list(self.file, l, self.end, n, ExprKind::Set);
        Ok(())
    }

    /// `( CallArgs )` after a call's name: the number of arguments.
    fn call_args(&mut self) -> R<usize> {
        self.expect(Tok::LParen)?;
        let mut n = 0;
        while self.peek() != Tok::RParen {
            match self.peek() {
                Tok::Name => {
                    let (a, _, z) = self.bump();
                    self.expect(Tok::Assign)?;
                    self.expr()?;
                    self.p.named_call_arg(b::span(self.file, a, z));
                }
                Tok::Star => {
                    self.bump();
                    self.test()?;
                    self.p.call_arg(CallArg::Star);
                }
                Tok::DoubleStar => {
                    self.bump();
                    self.test()?;
                    self.p.call_arg(CallArg::DoubleStar);
                }
                _ => {
                    self.expr()?;
                    self.p.call_arg(CallArg::Positional);
                }
            }
            n += 1;
            if !self.eat(Tok::Comma) {
                break;
            }
        }
        self.expect(Tok::RParen)?;
        Ok(n)
    }
}

fn spec_op(tok: Tok) -> Option<SpecOp> {
    Some(match tok {
        Tok::Match => SpecOp::Match,
        Tok::Send => SpecOp::Send,
        Tok::Start => SpecOp::Start,
        Tok::Await => SpecOp::Await,
        Tok::Stop => SpecOp::Stop,
        Tok::Activate => SpecOp::Activate,
        Tok::Deactivate => SpecOp::Deactivate,
        _ => return None,
    })
}

fn assign_op(tok: Tok) -> Option<AssignOp> {
    Some(match tok {
        Tok::Assign => AssignOp::Set,
        Tok::PlusAssign => AssignOp::Add,
        Tok::MinusAssign => AssignOp::Sub,
        _ => return None,
    })
}

/// A binary operator of the `Tier` levels and its precedence (`|` lowest).
fn bin_op(tok: Tok) -> Option<(BinOp, u8)> {
    Some(match tok {
        Tok::Pipe => (BinOp::BitOr, 0),
        Tok::Caret => (BinOp::BitXor, 1),
        Tok::Amp => (BinOp::BitAnd, 2),
        Tok::Shl => (BinOp::Shl, 3),
        Tok::Shr => (BinOp::Shr, 3),
        Tok::Plus => (BinOp::Add, 4),
        Tok::Minus => (BinOp::Sub, 4),
        Tok::Star => (BinOp::Mul, 5),
        Tok::At => (BinOp::MatMul, 5),
        Tok::Slash => (BinOp::Div, 5),
        Tok::Percent => (BinOp::Mod, 5),
        Tok::DoubleSlash => (BinOp::FloorDiv, 5),
        _ => return None,
    })
}

/// The first tokens of the grammar's `AtomNU`.
fn starts_atom_nu(tok: Tok) -> bool {
    matches!(
        tok,
        Tok::Var
            | Tok::Int
            | Tok::Float
            | Tok::Str
            | Tok::LongStr
            | Tok::Nld
            | Tok::None
            | Tok::True
            | Tok::False
            | Tok::FuncName
            | Tok::LBrace
    )
}

/// The first tokens of the grammar's `Atom`.
fn starts_atom(tok: Tok) -> bool {
    tok == Tok::LBracket || starts_atom_nu(tok)
}

/// The first tokens of the grammar's `Expr` (and of a named simple argument).
fn starts_expr(tok: Tok) -> bool {
    matches!(tok, Tok::Plus | Tok::Minus | Tok::Tilde) || starts_atom(tok)
}
