//! The helpers the Colang 2.x grammar's actions call to build the tree: the stacks of nodes
//! built and not yet placed in their parent ([`Pending`]), spans, flattening of `and`/`or`
//! chains, flow and decorator assembly, and the checks the reference parser makes while it
//! builds (argument order, literal decorator arguments, members on spec groups).

use lalrpop_util::ParseError;
use smol_str::SmolStr;
use stalwart_diagnostics::{FileId, Span};

use super::ast::*;
use super::literal::literal;
use super::token::Tok;

/// What the grammar's actions reject.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum UserErrorKind {
    PositionalAfterNamed,
    NonLiteralDecoratorArgument,
    MemberOnGroup,
}

/// An error raised by a grammar action, with the byte range it is about.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct UserError {
    pub kind: UserErrorKind,
    pub start: u32,
    pub end: u32,
}

type Res<T> = Result<T, ParseError<usize, Tok, UserError>>;

fn fail<T>(kind: UserErrorKind, span: Span) -> Res<T> {
    Err(ParseError::User {
        error: UserError {
            kind,
            start: span.start,
            end: span.end,
        },
    })
}

pub(crate) fn span(file: FileId, l: usize, r: usize) -> Span {
    Span::new(file, l as u32, r as u32)
}

pub(crate) fn text_of(text: &str, (l, r): (usize, usize)) -> String {
    text.get(l..r).unwrap_or("").to_string()
}

pub(crate) fn name_of(text: &str, (l, r): (usize, usize)) -> SmolStr {
    SmolStr::new(text.get(l..r).unwrap_or(""))
}

/// Name words being read: while every gap between them is one space, the name is the source
/// text from the first word's start to the last one's end, and no string is built.
#[derive(Debug)]
pub(crate) struct Words {
    start: usize,
    end: usize,
    joined: Option<String>,
}

impl Words {
    pub fn first((l, r): (usize, usize)) -> Self {
        Words {
            start: l,
            end: r,
            joined: None,
        }
    }

    /// `self` with one more word.
    pub fn add(mut self, text: &str, (l, r): (usize, usize)) -> Self {
        let word = text.get(l..r).unwrap_or("");
        match &mut self.joined {
            None if text.get(self.end..l) == Some(" ") => {}
            None => {
                let mut joined = text.get(self.start..self.end).unwrap_or("").to_string();
                joined.push(' ');
                joined.push_str(word);
                self.joined = Some(joined);
            }
            Some(joined) => {
                joined.push(' ');
                joined.push_str(word);
            }
        }
        self.end = r;
        self
    }

    /// The words joined by one space.
    pub fn name(self, text: &str) -> SmolStr {
        match self.joined {
            Some(joined) => SmolStr::from(joined),
            None => name_of(text, (self.start, self.end)),
        }
    }
}

pub(crate) fn push<T>(mut v: Vec<T>, e: T) -> Vec<T> {
    v.push(e);
    v
}

pub(crate) fn var(text: &str, file: FileId, l: usize, r: usize) -> Var {
    Var {
        name: SmolStr::new(text.get(l + 1..r).unwrap_or("")),
        span: span(file, l, r),
    }
}

pub(crate) fn import_module(
    text: &str,
    file: FileId,
    l: usize,
    r: usize,
    parts: &[(usize, usize)],
) -> Import {
    let mut path = String::new();
    for &(a, b) in parts {
        if !path.is_empty() {
            path.push('/');
        }
        path.push_str(text.get(a..b).unwrap_or(""));
    }
    Import {
        path,
        span: span(file, l, r),
    }
}

pub(crate) fn import_string(
    text: &str,
    file: FileId,
    l: usize,
    r: usize,
    sl: usize,
    sr: usize,
) -> Import {
    Import {
        path: text_of(text, (sl, sr)),
        span: span(file, l, r),
    }
}

/// How a spec's arguments were written, and how many there are.
#[derive(Debug, Clone, Copy)]
pub(crate) enum ArgsCount {
    Classic(usize),
    Simple(usize),
}

/// Takes the last `n` nodes of `stack`, in order.
fn take<T>(stack: &mut Vec<T>, n: usize) -> Vec<T> {
    let at = stack.len().saturating_sub(n);
    stack.split_off(at)
}

/// The nodes the grammar's actions have built and not yet placed in their parent, one stack per
/// kind of node. An action pops its children and pushes its node; a list rule yields only its
/// length, and the rule holding the list takes that many. The parser's symbols then carry no
/// large node, which makes every shift and every (often unit) reduction cheap.
///
/// INVARIANT: when an action runs, the children it pops are on top of their stacks, last child
/// on top: the parser reduces bottom-up and left to right, and each child's own children were
/// taken when the child was built. The grammar has no error recovery, so no reduction is ever
/// undone; a parse that fails leaves junk behind, which [`Pending::clear`] removes before the
/// next parse. Popping an empty stack (impossible by the invariant) yields a placeholder node
/// rather than a panic.
#[derive(Debug, Default)]
pub(crate) struct Pending {
    pub stmts: Vec<Stmt>,
    pub kinds: Vec<StmtKind>,
    exprs: Vec<Expr>,
    specs: Vec<SpecExpr>,
    args: Vec<Arg>,
    call_args: Vec<CallArg>,
    members: Vec<Member>,
    params: Vec<Param>,
    decorators: Vec<Decorator>,
    dict: Vec<DictEntry>,
    subscripts: Vec<Subscript>,
    if_arms: Vec<Branch<Expr>>,
    when_arms: Vec<Branch<SpecExpr>>,
}

fn placeholder(file: FileId) -> Expr {
    Expr {
        kind: ExprKind::None,
        span: span(file, 0, 0),
    }
}

impl Pending {
    /// Forgets everything, after a parse that failed.
    pub fn clear(&mut self) {
        *self = Pending::default();
    }

    /// Drops the last expression built (the descent parser reads a `{…}` entry again).
    pub fn drop_expr(&mut self) {
        self.exprs.pop();
    }

    fn pop_expr(&mut self) -> Expr {
        self.exprs.pop().unwrap_or_else(|| placeholder(FileId(0)))
    }

    fn pop_spec(&mut self) -> SpecExpr {
        self.specs.pop().unwrap_or_else(|| {
            SpecExpr::Spec(Box::new(Spec {
                target: SpecTarget::Name {
                    name: SmolStr::default(),
                    span: span(FileId(0), 0, 0),
                },
                args: Args::None,
                members: Vec::new(),
                capture: None,
                span: span(FileId(0), 0, 0),
            }))
        })
    }

    fn pop_kind(&mut self) -> StmtKind {
        self.kinds.pop().unwrap_or(StmtKind::Pass)
    }

    // ----- statements -----

    pub fn stmt(&mut self, file: FileId, l: usize, r: usize, kind: StmtKind) {
        self.stmts.push(Stmt {
            kind,
            span: span(file, l, r),
        });
    }

    pub fn simple_stmt(&mut self, file: FileId, l: usize, r: usize) {
        let kind = self.pop_kind();
        self.stmt(file, l, r, kind);
    }

    pub fn take_stmts(&mut self, n: usize) -> Vec<Stmt> {
        take(&mut self.stmts, n)
    }

    pub fn spec_stmt(&mut self, op: SpecOp, implicit: bool, capture: Option<Box<Var>>) {
        let expr = self.pop_spec();
        self.kinds.push(StmtKind::Spec {
            op,
            implicit,
            capture,
            expr,
        });
    }

    pub fn assign(&mut self, target: Var, op: AssignOp) {
        let value = self.pop_expr();
        self.kinds
            .push(StmtKind::Assign(Box::new(Assignment { target, op, value })));
    }

    pub fn expr_kind(&mut self, kind: fn(Box<Expr>) -> StmtKind) {
        let e = Box::new(self.pop_expr());
        self.kinds.push(kind(e));
    }

    pub fn optional_expr_kind(&mut self, present: bool, kind: fn(Option<Box<Expr>>) -> StmtKind) {
        let e = present.then(|| Box::new(self.pop_expr()));
        self.kinds.push(kind(e));
    }

    pub fn if_arm(&mut self, file: FileId, l: usize, r: usize, body: Vec<Stmt>) {
        let cond = self.pop_expr();
        self.if_arms.push(Branch {
            cond,
            body,
            span: span(file, l, r),
        });
    }

    pub fn when_arm(&mut self, file: FileId, l: usize, r: usize, body: Vec<Stmt>) {
        let cond = self.pop_spec();
        self.when_arms.push(Branch {
            cond,
            body,
            span: span(file, l, r),
        });
    }

    /// `if` with `more` `elif` arms.
    pub fn if_stmt(
        &mut self,
        file: FileId,
        l: usize,
        r: usize,
        more: usize,
        else_body: Option<Vec<Stmt>>,
    ) {
        let branches = take(&mut self.if_arms, more + 1);
        self.stmt(
            file,
            l,
            r,
            StmtKind::If {
                branches,
                else_body: else_body.map(Vec::into_boxed_slice),
            },
        );
    }

    /// `when` with `more` `or when` arms.
    pub fn when_stmt(
        &mut self,
        file: FileId,
        l: usize,
        r: usize,
        more: usize,
        else_body: Option<Vec<Stmt>>,
    ) {
        let branches = take(&mut self.when_arms, more + 1);
        self.stmt(
            file,
            l,
            r,
            StmtKind::When {
                branches,
                else_body: else_body.map(Vec::into_boxed_slice),
            },
        );
    }

    pub fn while_stmt(&mut self, file: FileId, l: usize, r: usize, body: Vec<Stmt>) {
        let cond = Box::new(self.pop_expr());
        self.stmt(file, l, r, StmtKind::While { cond, body });
    }

    // ----- flows -----

    #[expect(
        clippy::too_many_arguments,
        reason = "the grammar action passes each piece it matched"
    )]
    pub fn flow(
        &mut self,
        file: FileId,
        l: usize,
        r: usize,
        decorators: usize,
        (nl, nr, name): (usize, usize, SmolStr),
        params: Option<usize>,
        returns: Option<usize>,
        body: Vec<Stmt>,
    ) -> Flow {
        let return_members = take(&mut self.params, returns.unwrap_or(0));
        let parameters = take(&mut self.params, params.unwrap_or(0));
        Flow {
            decorators: take(&mut self.decorators, decorators),
            name,
            name_span: span(file, nl, nr),
            parameters,
            return_members,
            body,
            span: span(file, l, r),
            line: 0,
        }
    }

    pub fn param(&mut self, text: &str, file: FileId, l: usize, r: usize, v: Var, default: bool) {
        let default = default.then(|| self.pop_expr());
        let default_text = default
            .as_ref()
            .map(|d| text.get(d.span.range()).unwrap_or("").to_string());
        self.params.push(Param {
            name: v.name,
            default,
            default_text,
            span: span(file, l, r),
        });
    }

    /// Decorator arguments go through a literal evaluation; positional ones are keyed `$0`,
    /// `$1`, ...
    pub fn decorator(
        &mut self,
        text: &str,
        file: FileId,
        l: usize,
        r: usize,
        n: (usize, usize),
        args: Option<usize>,
    ) -> Res<()> {
        let args = take(&mut self.args, args.unwrap_or(0));
        check_arg_order(&args)?;
        let mut parameters = Vec::with_capacity(args.len());
        let mut position = 0usize;
        for a in args {
            let Some(value) = literal(text, &a.value) else {
                return fail(UserErrorKind::NonLiteralDecoratorArgument, a.value.span);
            };
            let key = match a.name {
                Some(name) => name.to_string(),
                None => {
                    position += 1;
                    format!("${}", position - 1)
                }
            };
            parameters.push((key, value));
        }
        self.decorators.push(Decorator {
            name: name_of(text, n),
            parameters,
            span: span(file, l, r),
        });
        Ok(())
    }

    // ----- specs -----

    pub fn spec_or(&mut self, file: FileId, l: usize, r: usize) {
        let c = self.pop_spec();
        let a = self.pop_spec();
        self.specs.push(match a {
            SpecExpr::Or(v, _) => {
                let mut v = v.into_vec();
                v.push(c);
                SpecExpr::Or(v.into_boxed_slice(), span(file, l, r))
            }
            a => SpecExpr::Or(Box::new([a, c]), span(file, l, r)),
        });
    }

    /// `n` specs joined by `or` (or by `and`), read at once: the result of `n - 1` calls of
    /// `spec_or` (`spec_and`), with its operands allocated once.
    pub fn spec_chain(&mut self, file: FileId, l: usize, r: usize, n: usize, or: bool) {
        let mut operands = take(&mut self.specs, n).into_iter();
        let mut parts = Vec::new();
        match operands.next() {
            Some(SpecExpr::Or(v, _)) if or => {
                parts.reserve_exact(v.len() + n - 1);
                parts.extend(v);
            }
            Some(SpecExpr::And(v, _)) if !or => {
                parts.reserve_exact(v.len() + n - 1);
                parts.extend(v);
            }
            Some(first) => {
                parts.reserve_exact(n);
                parts.push(first);
            }
            None => {}
        }
        parts.extend(operands);
        let parts = parts.into_boxed_slice();
        self.specs.push(if or {
            SpecExpr::Or(parts, span(file, l, r))
        } else {
            SpecExpr::And(parts, span(file, l, r))
        });
    }

    pub fn spec_and(&mut self, file: FileId, l: usize, r: usize) {
        let c = self.pop_spec();
        let a = self.pop_spec();
        self.specs.push(match a {
            SpecExpr::And(v, _) => {
                let mut v = v.into_vec();
                v.push(c);
                SpecExpr::And(v.into_boxed_slice(), span(file, l, r))
            }
            a => SpecExpr::And(Box::new([a, c]), span(file, l, r)),
        });
    }

    /// `( spec_expr ) members as $ref`: members and a capture apply only to a parenthesized bare
    /// name.
    pub fn group(
        &mut self,
        file: FileId,
        l: usize,
        r: usize,
        members: usize,
        capture: Option<Box<Var>>,
    ) -> Res<()> {
        let members = take(&mut self.members, members);
        let e = self.pop_spec();
        if members.is_empty() && capture.is_none() {
            self.specs.push(e);
            return Ok(());
        }
        // The reference's `"(" spec_name [arguments] ")" member* [capture]`: one named flow,
        // action or event with its arguments, and nothing else, inside the parentheses.
        match e {
            SpecExpr::Spec(mut s)
                if matches!(s.target, SpecTarget::Name { .. })
                    && s.members.is_empty()
                    && s.capture.is_none() =>
            {
                s.members = members;
                s.capture = capture;
                s.span = span(file, l, r);
                self.specs.push(SpecExpr::Spec(s));
                Ok(())
            }
            other => fail(UserErrorKind::MemberOnGroup, other.span()),
        }
    }

    #[expect(
        clippy::too_many_arguments,
        reason = "the grammar action passes each piece it matched"
    )]
    pub fn spec_named(
        &mut self,
        file: FileId,
        l: usize,
        r: usize,
        (nl, nr, name): (usize, usize, SmolStr),
        args: Option<ArgsCount>,
        members: usize,
        capture: Option<Box<Var>>,
    ) {
        let members = take(&mut self.members, members);
        let args = match args {
            None => Args::None,
            Some(ArgsCount::Classic(n)) => Args::Classic(take(&mut self.args, n)),
            Some(ArgsCount::Simple(n)) => Args::Simple(take(&mut self.args, n)),
        };
        self.specs.push(SpecExpr::Spec(Box::new(Spec {
            target: SpecTarget::Name {
                name,
                span: span(file, nl, nr),
            },
            args,
            members,
            capture,
            span: span(file, l, r),
        })));
    }

    pub fn spec_ref(
        &mut self,
        file: FileId,
        l: usize,
        r: usize,
        v: Var,
        members: usize,
        capture: Option<Box<Var>>,
    ) {
        let members = take(&mut self.members, members);
        self.specs.push(SpecExpr::Spec(Box::new(Spec {
            target: SpecTarget::Ref(v),
            args: Args::None,
            members,
            capture,
            span: span(file, l, r),
        })));
    }

    pub fn member(
        &mut self,
        text: &str,
        file: FileId,
        l: usize,
        r: usize,
        n: (usize, usize),
        args: Option<usize>,
    ) {
        let args = args.map(|n| take(&mut self.args, n));
        self.members.push(Member {
            name: name_of(text, n),
            args,
            span: span(file, l, r),
        });
    }

    pub fn arg(&mut self, file: FileId, l: usize, r: usize, name: Option<SmolStr>) {
        let value = self.pop_expr();
        self.args.push(Arg {
            name,
            value,
            span: span(file, l, r),
        });
    }

    /// Positional arguments must come before named ones: checks the last `n` arguments.
    pub fn check_args(&self, n: usize) -> Res<()> {
        let at = self.args.len().saturating_sub(n);
        check_arg_order(self.args.get(at..).unwrap_or(&[]))
    }

    // ----- expressions -----

    fn push_expr(&mut self, file: FileId, l: usize, r: usize, kind: ExprKind) {
        self.exprs.push(Expr {
            kind,
            span: span(file, l, r),
        });
    }

    pub fn leaf(&mut self, file: FileId, l: usize, r: usize, kind: ExprKind) {
        self.push_expr(file, l, r, kind);
    }

    pub fn or(&mut self, file: FileId, l: usize, r: usize) {
        self.chain(file, l, r, Chain::Or);
    }

    pub fn and(&mut self, file: FileId, l: usize, r: usize) {
        self.chain(file, l, r, Chain::And);
    }

    /// `a or c` / `a and c`: a chain of the same operator grows by `c` instead of nesting.
    fn chain(&mut self, file: FileId, l: usize, r: usize, op: Chain) {
        let c = self.pop_expr();
        let a = self.pop_expr();
        let mut items = match (op, a.kind) {
            (Chain::Or, ExprKind::Or(v)) | (Chain::And, ExprKind::And(v)) => v,
            (_, kind) => vec![Expr { kind, span: a.span }],
        };
        items.push(c);
        let kind = match op {
            Chain::Or => ExprKind::Or(items),
            Chain::And => ExprKind::And(items),
        };
        self.push_expr(file, l, r, kind);
    }

    pub fn not(&mut self, file: FileId, l: usize, r: usize) {
        let e = self.pop_expr();
        self.push_expr(file, l, r, ExprKind::Not(Box::new(e)));
    }

    pub fn compare(&mut self, file: FileId, l: usize, r: usize, op: CmpOp) {
        let c = self.pop_expr();
        let a = self.pop_expr();
        let kind = match a.kind {
            ExprKind::Compare { first, mut rest } => {
                rest.push((op, c));
                ExprKind::Compare { first, rest }
            }
            kind => ExprKind::Compare {
                first: Box::new(Expr { kind, span: a.span }),
                rest: vec![(op, c)],
            },
        };
        self.push_expr(file, l, r, kind);
    }

    pub fn binary(&mut self, file: FileId, l: usize, r: usize, op: BinOp) {
        let c = self.pop_expr();
        let a = self.pop_expr();
        self.push_expr(
            file,
            l,
            r,
            ExprKind::Binary {
                op,
                lhs: Box::new(a),
                rhs: Box::new(c),
            },
        );
    }

    pub fn unary(&mut self, file: FileId, l: usize, r: usize, op: UnaryOp) {
        let e = self.pop_expr();
        self.push_expr(
            file,
            l,
            r,
            ExprKind::Unary {
                op,
                operand: Box::new(e),
            },
        );
    }

    /// `x[...]` with `n` subscripts; it needs at least one.
    pub fn index(&mut self, file: FileId, l: usize, r: usize, n: usize, close: usize) -> Res<()> {
        let subscripts = take(&mut self.subscripts, n);
        if subscripts.is_empty() {
            return Err(ParseError::UnrecognizedToken {
                token: (close, Tok::RBracket, close + 1),
                expected: Vec::new(),
            });
        }
        let base = Box::new(self.pop_expr());
        self.push_expr(file, l, r, ExprKind::Index { base, subscripts });
        Ok(())
    }

    pub fn attr(&mut self, file: FileId, l: usize, r: usize, n: (usize, usize)) {
        let base = Box::new(self.pop_expr());
        let attr = span(file, n.0, n.1);
        self.push_expr(file, l, r, ExprKind::Attr { base, attr });
    }

    pub fn method(
        &mut self,
        file: FileId,
        l: usize,
        r: usize,
        n: (usize, usize),
        args: usize,
    ) -> Res<()> {
        let args = take(&mut self.call_args, args);
        check_call_arg_order(&args)?;
        let receiver = Box::new(self.pop_expr());
        let method = span(file, n.0, n.1);
        self.push_expr(
            file,
            l,
            r,
            ExprKind::Method {
                receiver,
                method,
                args,
            },
        );
        Ok(())
    }

    pub fn call(
        &mut self,
        file: FileId,
        l: usize,
        r: usize,
        f: (usize, usize),
        args: usize,
    ) -> Res<()> {
        let args = take(&mut self.call_args, args);
        check_call_arg_order(&args)?;
        let func = span(file, f.0, f.1);
        self.push_expr(file, l, r, ExprKind::Call { func, args });
        Ok(())
    }

    /// A list or set of the last `n` expressions.
    pub fn list(
        &mut self,
        file: FileId,
        l: usize,
        r: usize,
        n: usize,
        kind: fn(Vec<Expr>) -> ExprKind,
    ) {
        let items = take(&mut self.exprs, n);
        self.push_expr(file, l, r, kind(items));
    }

    pub fn dict(&mut self, file: FileId, l: usize, r: usize, n: usize) {
        let entries = take(&mut self.dict, n);
        self.push_expr(file, l, r, ExprKind::Dict(entries));
    }

    pub fn dict_pair(&mut self) {
        let v = self.pop_expr();
        let k = self.pop_expr();
        self.dict.push(DictEntry::Pair(k, v));
    }

    pub fn dict_spread(&mut self) {
        let e = self.pop_expr();
        self.dict.push(DictEntry::Spread(e));
    }

    pub fn call_arg(&mut self, kind: fn(Expr) -> CallArg) {
        let e = self.pop_expr();
        self.call_args.push(kind(e));
    }

    pub fn named_call_arg(&mut self, name: Span) {
        let e = self.pop_expr();
        self.call_args.push(CallArg::Named(name, e));
    }

    pub fn subscript_index(&mut self) {
        let e = self.pop_expr();
        self.subscripts.push(Subscript::Index(e));
    }

    pub fn subscript_slice(&mut self, lower: bool, upper: bool, step: bool) {
        let step = step.then(|| self.pop_expr());
        let upper = upper.then(|| self.pop_expr());
        let lower = lower.then(|| self.pop_expr());
        self.subscripts
            .push(Subscript::Slice { lower, upper, step });
    }
}

/// Positional arguments must come before named ones.
fn check_arg_order(args: &[Arg]) -> Res<()> {
    let mut named = false;
    for a in args {
        match (&a.name, named) {
            (Some(_), _) => named = true,
            (None, true) => return fail(UserErrorKind::PositionalAfterNamed, a.span),
            (None, false) => {}
        }
    }
    Ok(())
}

/// Positional arguments must come before named ones in calls too.
fn check_call_arg_order(args: &[CallArg]) -> Res<()> {
    let mut named = false;
    for a in args {
        match a {
            CallArg::Named(..) | CallArg::DoubleStar(_) => named = true,
            CallArg::Positional(e) if named => {
                return fail(UserErrorKind::PositionalAfterNamed, e.span);
            }
            _ => {}
        }
    }
    Ok(())
}

/// The operators whose operands form one list.
#[derive(Clone, Copy)]
enum Chain {
    Or,
    And,
}
