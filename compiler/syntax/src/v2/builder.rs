//! The helpers the Colang 2.x grammar's actions call to build the tree: spans, flattening of
//! `and`/`or` chains, flow and decorator assembly, and the checks the reference parser makes
//! while it builds (argument order, literal decorator arguments, members on spec groups).

use lalrpop_util::ParseError;
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

pub(crate) fn push<T>(mut v: Vec<T>, e: T) -> Vec<T> {
    v.push(e);
    v
}

pub(crate) fn push_opt<T>(mut v: Vec<T>, e: Option<T>) -> Vec<T> {
    v.extend(e);
    v
}

pub(crate) fn prepend<T>(first: T, rest: Vec<T>) -> Vec<T> {
    let mut v = Vec::with_capacity(rest.len() + 1);
    v.push(first);
    v.extend(rest);
    v
}

pub(crate) fn stmt(file: FileId, l: usize, r: usize, kind: StmtKind) -> Stmt {
    Stmt {
        kind,
        span: span(file, l, r),
    }
}

pub(crate) fn branch<C>(file: FileId, l: usize, r: usize, cond: C, body: Vec<Stmt>) -> Branch<C> {
    Branch {
        cond,
        body,
        span: span(file, l, r),
    }
}

pub(crate) fn expr(file: FileId, l: usize, r: usize, kind: ExprKind) -> Expr {
    Expr {
        kind,
        span: span(file, l, r),
    }
}

pub(crate) fn var(text: &str, file: FileId, l: usize, r: usize) -> Var {
    Var {
        name: text.get(l + 1..r).unwrap_or("").to_string(),
        span: span(file, l, r),
    }
}

pub(crate) fn binary(file: FileId, l: usize, r: usize, op: BinOp, a: Expr, c: Expr) -> Expr {
    expr(
        file,
        l,
        r,
        ExprKind::Binary {
            op,
            lhs: Box::new(a),
            rhs: Box::new(c),
        },
    )
}

pub(crate) fn compare(file: FileId, l: usize, r: usize, a: Expr, op: CmpOp, c: Expr) -> Expr {
    match a.kind {
        ExprKind::Compare { first, mut rest } => {
            rest.push((op, c));
            expr(file, l, r, ExprKind::Compare { first, rest })
        }
        kind => {
            let first = Box::new(Expr { kind, span: a.span });
            expr(
                file,
                l,
                r,
                ExprKind::Compare {
                    first,
                    rest: vec![(op, c)],
                },
            )
        }
    }
}

pub(crate) fn or(file: FileId, l: usize, r: usize, a: Expr, c: Expr) -> Expr {
    match a.kind {
        ExprKind::Or(mut v) => {
            v.push(c);
            expr(file, l, r, ExprKind::Or(v))
        }
        kind => expr(
            file,
            l,
            r,
            ExprKind::Or(vec![Expr { kind, span: a.span }, c]),
        ),
    }
}

pub(crate) fn and(file: FileId, l: usize, r: usize, a: Expr, c: Expr) -> Expr {
    match a.kind {
        ExprKind::And(mut v) => {
            v.push(c);
            expr(file, l, r, ExprKind::And(v))
        }
        kind => expr(
            file,
            l,
            r,
            ExprKind::And(vec![Expr { kind, span: a.span }, c]),
        ),
    }
}

pub(crate) fn spec_or(file: FileId, l: usize, r: usize, a: SpecExpr, c: SpecExpr) -> SpecExpr {
    match a {
        SpecExpr::Or(mut v, _) => {
            v.push(c);
            SpecExpr::Or(v, span(file, l, r))
        }
        a => SpecExpr::Or(vec![a, c], span(file, l, r)),
    }
}

pub(crate) fn spec_and(file: FileId, l: usize, r: usize, a: SpecExpr, c: SpecExpr) -> SpecExpr {
    match a {
        SpecExpr::And(mut v, _) => {
            v.push(c);
            SpecExpr::And(v, span(file, l, r))
        }
        a => SpecExpr::And(vec![a, c], span(file, l, r)),
    }
}

/// `( spec_expr ) members as $ref`: members and a capture apply only to a parenthesized bare name.
pub(crate) fn group(
    file: FileId,
    l: usize,
    r: usize,
    e: SpecExpr,
    members: Vec<Member>,
    capture: Option<Var>,
) -> Res<SpecExpr> {
    if members.is_empty() && capture.is_none() {
        return Ok(e);
    }
    match e {
        SpecExpr::Spec(s)
            if s.args == Args::None && s.members.is_empty() && s.capture.is_none() =>
        {
            Ok(SpecExpr::Spec(Spec {
                target: s.target,
                args: Args::None,
                members,
                capture,
                span: span(file, l, r),
            }))
        }
        other => fail(UserErrorKind::MemberOnGroup, other.span()),
    }
}

pub(crate) fn words(text: &str, words: &[(usize, usize)]) -> String {
    let mut name = String::new();
    for &(l, r) in words {
        if !name.is_empty() {
            name.push(' ');
        }
        name.push_str(text.get(l..r).unwrap_or(""));
    }
    name
}

#[expect(
    clippy::too_many_arguments,
    reason = "the grammar action passes each piece it matched"
)]
pub(crate) fn spec_named(
    text: &str,
    file: FileId,
    l: usize,
    r: usize,
    (nl, nr, n): (usize, usize, &[(usize, usize)]),
    args: Args,
    members: Vec<Member>,
    capture: Option<Var>,
) -> Spec {
    let target = SpecTarget::Name {
        name: words(text, n),
        span: span(file, nl, nr),
    };
    Spec {
        target,
        args,
        members,
        capture,
        span: span(file, l, r),
    }
}

pub(crate) fn spec_ref(
    file: FileId,
    l: usize,
    r: usize,
    v: Var,
    members: Vec<Member>,
    capture: Option<Var>,
) -> Spec {
    Spec {
        target: SpecTarget::Ref(v),
        args: Args::None,
        members,
        capture,
        span: span(file, l, r),
    }
}

pub(crate) fn member(
    text: &str,
    file: FileId,
    l: usize,
    r: usize,
    n: (usize, usize),
    args: Option<Vec<Arg>>,
) -> Member {
    Member {
        name: text_of(text, n),
        args,
        span: span(file, l, r),
    }
}

pub(crate) fn arg(file: FileId, l: usize, r: usize, name: Option<String>, value: Expr) -> Arg {
    Arg {
        name,
        value,
        span: span(file, l, r),
    }
}

/// Positional arguments must come before named ones.
pub(crate) fn check_args(args: Vec<Arg>) -> Res<Vec<Arg>> {
    let mut named = false;
    for a in &args {
        match (&a.name, named) {
            (Some(_), _) => named = true,
            (None, true) => return fail(UserErrorKind::PositionalAfterNamed, a.span),
            (None, false) => {}
        }
    }
    Ok(args)
}

/// Positional arguments must come before named ones in calls too.
pub(crate) fn check_call_args(args: Vec<CallArg>) -> Res<Vec<CallArg>> {
    let mut named = false;
    for a in &args {
        match a {
            CallArg::Named(..) | CallArg::DoubleStar(_) => named = true,
            CallArg::Positional(e) if named => {
                return fail(UserErrorKind::PositionalAfterNamed, e.span);
            }
            _ => {}
        }
    }
    Ok(args)
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

pub(crate) fn param(
    text: &str,
    file: FileId,
    l: usize,
    r: usize,
    v: Var,
    default: Option<Expr>,
) -> Param {
    let default_text = default
        .as_ref()
        .map(|d| text.get(d.span.range()).unwrap_or("").to_string());
    Param {
        name: v.name,
        default,
        default_text,
        span: span(file, l, r),
    }
}

/// Decorator arguments go through a literal evaluation; positional ones are keyed `$0`, `$1`, ...
pub(crate) fn decorator(
    text: &str,
    file: FileId,
    l: usize,
    r: usize,
    n: (usize, usize),
    args: Option<Vec<Arg>>,
) -> Res<Decorator> {
    let args = check_args(args.unwrap_or_default())?;
    let mut parameters = Vec::with_capacity(args.len());
    let mut position = 0usize;
    for a in args {
        let Some(value) = literal(text, &a.value) else {
            return fail(UserErrorKind::NonLiteralDecoratorArgument, a.value.span);
        };
        let key = match a.name {
            Some(name) => name,
            None => {
                position += 1;
                format!("${}", position - 1)
            }
        };
        parameters.push((key, value));
    }
    Ok(Decorator {
        name: text_of(text, n),
        parameters,
        span: span(file, l, r),
    })
}

#[expect(
    clippy::too_many_arguments,
    reason = "the grammar action passes each piece it matched"
)]
pub(crate) fn flow(
    text: &str,
    file: FileId,
    l: usize,
    r: usize,
    decorators: Vec<Decorator>,
    (nl, nr, n): (usize, usize, &[(usize, usize)]),
    params: Option<Vec<Param>>,
    returns: Option<Vec<Param>>,
    body: Vec<Stmt>,
) -> Flow {
    Flow {
        decorators,
        name: words(text, n),
        name_span: span(file, nl, nr),
        parameters: params.unwrap_or_default(),
        return_members: returns.unwrap_or_default(),
        body,
        span: span(file, l, r),
        line: 0,
    }
}

/// `x[...]` needs at least one subscript.
pub(crate) fn subscripts(
    mut v: Vec<Subscript>,
    last: Option<Subscript>,
    close: usize,
) -> Res<Vec<Subscript>> {
    v.extend(last);
    if v.is_empty() {
        return Err(ParseError::UnrecognizedToken {
            token: (close, Tok::RBracket, close + 1),
            expected: Vec::new(),
        });
    }
    Ok(v)
}
