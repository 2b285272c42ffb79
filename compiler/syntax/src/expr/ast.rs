//! The syntax tree of a condition: facts, argument references, literals, comparisons and the
//! boolean connectives, each with the span it was read from.

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
    /// A literal value.
    Lit(Literal),
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
