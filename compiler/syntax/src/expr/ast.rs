//! The syntax tree of a condition: facts, argument references, member access, literals and
//! lists, comparisons, `in`, `is None`, function and method calls, and the boolean connectives,
//! each with the span it was read from.

use stalwart_diagnostics::Span;

/// A condition expression with its span in the enclosing file.
#[derive(Debug, Clone, PartialEq)]
pub struct Expr {
    pub kind: ExprKind,
    pub span: Span,
}

/// What an expression is.
#[derive(Debug, Clone, PartialEq)]
pub enum ExprKind {
    /// `$order_paid`: a fact, named without the `$`.
    Fact(String),
    /// `$args.amount`: an argument of the tool call, named without `$args.`.
    Arg(String),
    /// `base.field`: a member of a value (`$result.action`, `$config.rails.x`).
    Member { base: Box<Expr>, field: String },
    /// A literal value.
    Lit(Literal),
    /// `[a, b, …]`.
    List(Vec<Expr>),
    /// `item in collection`, `item not in collection`.
    In {
        item: Box<Expr>,
        collection: Box<Expr>,
        negated: bool,
    },
    /// `e is None`, `e is not None`.
    IsNone { expr: Box<Expr>, negated: bool },
    /// `name(args)`: a function (`len`, `is_str`, …).
    Call { func: String, args: Vec<Expr> },
    /// `receiver.name(args)`: a method (`$text.lower()`, `$s.startswith("a")`).
    Method {
        receiver: Box<Expr>,
        name: String,
        args: Vec<Expr>,
    },
    /// `not e`.
    Not(Box<Expr>),
    /// `a and b`, `a or b`.
    Logic {
        op: LogicOp,
        lhs: Box<Expr>,
        rhs: Box<Expr>,
    },
    /// `a == b`, `a < b`, ….
    Compare {
        op: CmpOp,
        lhs: Box<Expr>,
        rhs: Box<Expr>,
    },
}

/// A literal.
#[derive(Debug, Clone, PartialEq)]
pub enum Literal {
    Number(f64),
    /// The string's contents, without its quotes (no escapes are interpreted but `\"`, `\'`, `\\`).
    Str(String),
    Bool(bool),
    Null,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum LogicOp {
    And,
    Or,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum CmpOp {
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
}

impl CmpOp {
    /// The operator as written.
    pub fn as_str(self) -> &'static str {
        match self {
            CmpOp::Eq => "==",
            CmpOp::Ne => "!=",
            CmpOp::Lt => "<",
            CmpOp::Le => "<=",
            CmpOp::Gt => ">",
            CmpOp::Ge => ">=",
        }
    }
}

impl LogicOp {
    /// The operator as written.
    pub fn as_str(self) -> &'static str {
        match self {
            LogicOp::And => "and",
            LogicOp::Or => "or",
        }
    }
}

impl Expr {
    /// The expressions directly inside this one, in source order.
    pub fn children(&self) -> Vec<&Expr> {
        match &self.kind {
            ExprKind::Fact(_) | ExprKind::Arg(_) | ExprKind::Lit(_) => Vec::new(),
            ExprKind::Member { base, .. } => vec![base],
            ExprKind::Not(inner) => vec![inner],
            ExprKind::IsNone { expr, .. } => vec![expr],
            ExprKind::Logic { lhs, rhs, .. } | ExprKind::Compare { lhs, rhs, .. } => {
                vec![lhs, rhs]
            }
            ExprKind::In {
                item, collection, ..
            } => vec![item, collection],
            ExprKind::List(items) | ExprKind::Call { args: items, .. } => items.iter().collect(),
            ExprKind::Method { receiver, args, .. } => {
                std::iter::once(&**receiver).chain(args.iter()).collect()
            }
        }
    }

    /// [`Expr::children`], to change in place.
    pub fn children_mut(&mut self) -> Vec<&mut Expr> {
        match &mut self.kind {
            ExprKind::Fact(_) | ExprKind::Arg(_) | ExprKind::Lit(_) => Vec::new(),
            ExprKind::Member { base, .. } => vec![base],
            ExprKind::Not(inner) => vec![inner],
            ExprKind::IsNone { expr, .. } => vec![expr],
            ExprKind::Logic { lhs, rhs, .. } | ExprKind::Compare { lhs, rhs, .. } => {
                vec![lhs, rhs]
            }
            ExprKind::In {
                item, collection, ..
            } => vec![item, collection],
            ExprKind::List(items) | ExprKind::Call { args: items, .. } => {
                items.iter_mut().collect()
            }
            ExprKind::Method { receiver, args, .. } => std::iter::once(&mut **receiver)
                .chain(args.iter_mut())
                .collect(),
        }
    }

    /// The expression in a fully parenthesised form, for tests and debugging:
    /// `(($a == 1) and (not $b))`.
    pub fn to_sexp(&self) -> String {
        let mut out = String::new();
        self.write_sexp(&mut out);
        out
    }

    fn write_sexp(&self, out: &mut String) {
        match &self.kind {
            ExprKind::Fact(name) => {
                out.push('$');
                out.push_str(name);
            }
            ExprKind::Arg(name) => {
                out.push_str("$args.");
                out.push_str(name);
            }
            ExprKind::Lit(Literal::Number(n)) => out.push_str(&n.to_string()),
            ExprKind::Lit(Literal::Str(s)) => {
                out.push('"');
                out.push_str(s);
                out.push('"');
            }
            ExprKind::Lit(Literal::Bool(b)) => out.push_str(if *b { "true" } else { "false" }),
            ExprKind::Lit(Literal::Null) => out.push_str("null"),
            ExprKind::Member { base, field } => {
                base.write_sexp(out);
                out.push('.');
                out.push_str(field);
            }
            ExprKind::List(items) => {
                out.push('[');
                write_list(items, out);
                out.push(']');
            }
            ExprKind::In {
                item,
                collection,
                negated,
            } => {
                out.push('(');
                item.write_sexp(out);
                out.push_str(if *negated { " not in " } else { " in " });
                collection.write_sexp(out);
                out.push(')');
            }
            ExprKind::IsNone { expr, negated } => {
                out.push('(');
                expr.write_sexp(out);
                out.push_str(if *negated {
                    " is not None)"
                } else {
                    " is None)"
                });
            }
            ExprKind::Call { func, args } => {
                out.push_str(func);
                out.push('(');
                write_list(args, out);
                out.push(')');
            }
            ExprKind::Method {
                receiver,
                name,
                args,
            } => {
                receiver.write_sexp(out);
                out.push('.');
                out.push_str(name);
                out.push('(');
                write_list(args, out);
                out.push(')');
            }
            ExprKind::Not(e) => {
                out.push_str("(not ");
                e.write_sexp(out);
                out.push(')');
            }
            ExprKind::Logic { op, lhs, rhs } => {
                out.push('(');
                lhs.write_sexp(out);
                out.push(' ');
                out.push_str(op.as_str());
                out.push(' ');
                rhs.write_sexp(out);
                out.push(')');
            }
            ExprKind::Compare { op, lhs, rhs } => {
                out.push('(');
                lhs.write_sexp(out);
                out.push(' ');
                out.push_str(op.as_str());
                out.push(' ');
                rhs.write_sexp(out);
                out.push(')');
            }
        }
    }
}

fn write_list(items: &[Expr], out: &mut String) {
    for (i, item) in items.iter().enumerate() {
        if i > 0 {
            out.push_str(", ");
        }
        item.write_sexp(out);
    }
}
