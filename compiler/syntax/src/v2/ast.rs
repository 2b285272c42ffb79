//! The Colang 2.x syntax tree: modules, flows, statements, spec expressions and expressions,
//! each with its exact source span. Names that facts and lowering need (flow names, parameter
//! names, spec names) are kept as text (inline up to 23 bytes); everything else is a span into
//! the source.

use smol_str::SmolStr;
use stalwart_diagnostics::Span;

/// A parsed `.co` file.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Module {
    pub items: Vec<Item>,
    /// Offsets of the `...` the reference expands before parsing (into an empty line and six
    /// statements, the rest of the line moved onto a line of its own), so every line after one
    /// counts seven more lines there.
    pub generated: Vec<u32>,
    /// The file has a column-0 `# meta: exclude from llm` line.
    pub exclude_from_llm: bool,
}

/// A top-level item.
#[derive(Debug, Clone, PartialEq)]
pub enum Item {
    Flow(Flow),
    Import(Import),
    Docstring(Span),
    /// A statement outside any flow (reported; kept for tools).
    Stmt(Stmt),
}

/// `import core`, `import a.b`, `import "path"`.
#[derive(Debug, Clone, PartialEq)]
pub struct Import {
    /// The path as the reference records it: `a/b` for `a.b`, the quoted text (quotes kept) for
    /// a string.
    pub path: String,
    pub span: Span,
}

/// A flow definition.
#[derive(Debug, Clone, PartialEq)]
pub struct Flow {
    pub decorators: Vec<Decorator>,
    /// The name words joined by one space.
    pub name: SmolStr,
    pub name_span: Span,
    pub parameters: Vec<Param>,
    pub return_members: Vec<Param>,
    pub body: Vec<Stmt>,
    /// From the first decorator (or `flow`) to the end of the body.
    pub span: Span,
    /// The 1-based line of the flow's first decorator (or `flow`), counted as the reference
    /// counts it (after expanding `...` lines).
    pub line: u32,
}

/// `@name` or `@name(args)`; arguments are Python literals.
#[derive(Debug, Clone, PartialEq)]
pub struct Decorator {
    pub name: SmolStr,
    /// Arguments keyed as the reference keys them: `$0`, `$1`, ... for positional ones.
    pub parameters: Vec<(String, Literal)>,
    pub span: Span,
}

/// A literal value (decorator arguments).
#[derive(Debug, Clone, PartialEq)]
pub enum Literal {
    None,
    Bool(bool),
    Int(i64),
    /// An integer beyond 64 bits, as written (underscores removed).
    BigInt(String),
    Float(f64),
    Str(String),
    List(Vec<Literal>),
    Set(Vec<Literal>),
    Dict(Vec<(Literal, Literal)>),
}

/// A flow parameter or return member: `$name` with an optional default.
#[derive(Debug, Clone, PartialEq)]
pub struct Param {
    /// Without the `$`.
    pub name: SmolStr,
    pub default: Option<Expr>,
    /// The default's exact source text.
    pub default_text: Option<String>,
    pub span: Span,
}

/// A statement with its span. A large file holds one per line (blank and comment lines are
/// `Empty`), so the rare large parts (assignments, loop conditions, single expressions, `else`
/// bodies, captures) are boxed: `Box` prints as its contents, and `StmtKind`'s `Debug` is
/// written by hand so that a boxed assignment prints as a struct variant, as it did inline.
#[derive(Debug, Clone, PartialEq)]
pub struct Stmt {
    pub kind: StmtKind,
    pub span: Span,
}

#[derive(Clone, PartialEq)]
pub enum StmtKind {
    /// `[$v =] op spec_expr`; a bare spec expression is an implicit `await`.
    Spec {
        op: SpecOp,
        implicit: bool,
        capture: Option<Box<Var>>,
        expr: SpecExpr,
    },
    /// `$v = expr`, `$v += expr`, `$v -= expr` (boxed: a statement stays small).
    Assign(Box<Assignment>),
    If {
        branches: Vec<Branch<Expr>>,
        else_body: Option<Box<[Stmt]>>,
    },
    While {
        cond: Box<Expr>,
        body: Vec<Stmt>,
    },
    When {
        branches: Vec<Branch<SpecExpr>>,
        else_body: Option<Box<[Stmt]>>,
    },
    Return(Option<Box<Expr>>),
    Abort,
    Break,
    Continue,
    Pass,
    Global(Var),
    Log(Box<Expr>),
    Print(Box<Expr>),
    Priority(Box<Expr>),
    /// `name:`
    Label(Span),
    /// `(expr)`
    Expr(Box<Expr>),
    Docstring,
    /// A `...` line: the generated-flow statements.
    Generate,
    /// A line holding only a comment.
    Empty,
    Flow(Box<Flow>),
    Import(Import),
}

impl std::fmt::Debug for StmtKind {
    // As `#[derive(Debug)]` prints it, with `Assign` printed as a struct variant.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            StmtKind::Spec {
                op,
                implicit,
                capture,
                expr,
            } => f
                .debug_struct("Spec")
                .field("op", op)
                .field("implicit", implicit)
                .field("capture", capture)
                .field("expr", expr)
                .finish(),
            StmtKind::Assign(a) => f
                .debug_struct("Assign")
                .field("target", &a.target)
                .field("op", &a.op)
                .field("value", &a.value)
                .finish(),
            StmtKind::If {
                branches,
                else_body,
            } => f
                .debug_struct("If")
                .field("branches", branches)
                .field("else_body", else_body)
                .finish(),
            StmtKind::While { cond, body } => f
                .debug_struct("While")
                .field("cond", cond)
                .field("body", body)
                .finish(),
            StmtKind::When {
                branches,
                else_body,
            } => f
                .debug_struct("When")
                .field("branches", branches)
                .field("else_body", else_body)
                .finish(),
            StmtKind::Return(e) => f.debug_tuple("Return").field(e).finish(),
            StmtKind::Abort => f.write_str("Abort"),
            StmtKind::Break => f.write_str("Break"),
            StmtKind::Continue => f.write_str("Continue"),
            StmtKind::Pass => f.write_str("Pass"),
            StmtKind::Global(v) => f.debug_tuple("Global").field(v).finish(),
            StmtKind::Log(e) => f.debug_tuple("Log").field(e).finish(),
            StmtKind::Print(e) => f.debug_tuple("Print").field(e).finish(),
            StmtKind::Priority(e) => f.debug_tuple("Priority").field(e).finish(),
            StmtKind::Label(s) => f.debug_tuple("Label").field(s).finish(),
            StmtKind::Expr(e) => f.debug_tuple("Expr").field(e).finish(),
            StmtKind::Docstring => f.write_str("Docstring"),
            StmtKind::Generate => f.write_str("Generate"),
            StmtKind::Empty => f.write_str("Empty"),
            StmtKind::Flow(flow) => f.debug_tuple("Flow").field(flow).finish(),
            StmtKind::Import(i) => f.debug_tuple("Import").field(i).finish(),
        }
    }
}

/// An assignment's parts.
#[derive(Debug, Clone, PartialEq)]
pub struct Assignment {
    pub target: Var,
    pub op: AssignOp,
    pub value: Expr,
}

/// One `if`/`elif` or `when`/`or when` arm.
#[derive(Debug, Clone, PartialEq)]
pub struct Branch<C> {
    pub cond: C,
    pub body: Vec<Stmt>,
    pub span: Span,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SpecOp {
    Match,
    Send,
    Start,
    Await,
    Stop,
    Activate,
    Deactivate,
}

impl SpecOp {
    pub fn as_str(self) -> &'static str {
        match self {
            SpecOp::Match => "match",
            SpecOp::Send => "send",
            SpecOp::Start => "start",
            SpecOp::Await => "await",
            SpecOp::Stop => "stop",
            SpecOp::Activate => "activate",
            SpecOp::Deactivate => "deactivate",
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AssignOp {
    Set,
    Add,
    Sub,
}

/// A variable `$name`; `span` covers the `$`.
#[derive(Debug, Clone, PartialEq)]
pub struct Var {
    /// Without the `$`.
    pub name: SmolStr,
    pub span: Span,
}

/// Specs combined with `and` / `or` (`and` binds tighter). A spec is boxed, and the operands
/// are a boxed slice, so that a statement (which may hold a spec expression) stays small.
#[derive(Debug, Clone, PartialEq)]
pub enum SpecExpr {
    Spec(Box<Spec>),
    And(Box<[SpecExpr]>, Span),
    Or(Box<[SpecExpr]>, Span),
}

impl SpecExpr {
    pub fn span(&self) -> Span {
        match self {
            SpecExpr::Spec(s) => s.span,
            SpecExpr::And(_, span) | SpecExpr::Or(_, span) => *span,
        }
    }
}

/// A flow, action or event (or a reference to one), with arguments, members and capture.
#[derive(Debug, Clone, PartialEq)]
pub struct Spec {
    pub target: SpecTarget,
    pub args: Args,
    /// `.Finished()`, `.action`, ...
    pub members: Vec<Member>,
    /// `as $ref` (rare, so boxed).
    pub capture: Option<Box<Var>>,
    pub span: Span,
}

#[derive(Debug, Clone, PartialEq)]
pub enum SpecTarget {
    /// Name words joined by one space.
    Name { name: SmolStr, span: Span },
    /// `$ref`
    Ref(Var),
}

/// What a spec's name says it is (the reference's rule).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SpecKind {
    Flow,
    Action,
    Event,
    Reference,
}

impl Spec {
    /// All lower case: a flow; ends in `Action` and does not start with `Start`/`Change`/`Stop`:
    /// an action; otherwise an event.
    pub fn kind(&self) -> SpecKind {
        match &self.target {
            SpecTarget::Ref(_) => SpecKind::Reference,
            SpecTarget::Name { name, .. } => {
                let has_upper = name.chars().any(char::is_uppercase);
                let has_cased = name.chars().any(|c| c.is_lowercase() || c.is_uppercase());
                if has_cased && !has_upper {
                    SpecKind::Flow
                } else if name.ends_with("Action")
                    && !name.starts_with("Start")
                    && !name.starts_with("Change")
                    && !name.starts_with("Stop")
                {
                    SpecKind::Action
                } else {
                    SpecKind::Event
                }
            }
        }
    }
}

/// Arguments of a spec or member.
#[derive(Debug, Clone, PartialEq, Default)]
pub enum Args {
    #[default]
    None,
    /// `(a, k=v)`
    Classic(Vec<Arg>),
    /// `a $k=v` (space separated)
    Simple(Vec<Arg>),
}

impl Args {
    pub fn list(&self) -> &[Arg] {
        match self {
            Args::None => &[],
            Args::Classic(a) | Args::Simple(a) => a,
        }
    }
}

/// One argument; `name` is `None` for a positional one.
#[derive(Debug, Clone, PartialEq)]
pub struct Arg {
    pub name: Option<SmolStr>,
    pub value: Expr,
    pub span: Span,
}

/// A member access on a spec: `.Finished()`.
#[derive(Debug, Clone, PartialEq)]
pub struct Member {
    pub name: SmolStr,
    pub args: Option<Vec<Arg>>,
    pub span: Span,
}

/// An expression; `span` is its exact source text.
#[derive(Debug, Clone, PartialEq)]
pub struct Expr {
    pub kind: ExprKind,
    pub span: Span,
}

#[derive(Debug, Clone, PartialEq)]
pub enum ExprKind {
    Var,
    Int,
    Float,
    Str,
    LongStr,
    /// `..."natural language description"`
    Nld,
    None,
    True,
    False,
    List(Vec<Expr>),
    Set(Vec<Expr>),
    Dict(Vec<DictEntry>),
    /// `f(args)`; `func` is the name's span.
    Call {
        func: Span,
        args: Vec<CallArg>,
    },
    /// `x.m(args)`
    Method {
        receiver: Box<Expr>,
        method: Span,
        args: Vec<CallArg>,
    },
    /// `x.a`
    Attr {
        base: Box<Expr>,
        attr: Span,
    },
    /// `x[i]`, `x[a:b]`, `x[i, j]`
    Index {
        base: Box<Expr>,
        subscripts: Vec<Subscript>,
    },
    Unary {
        op: UnaryOp,
        operand: Box<Expr>,
    },
    Binary {
        op: BinOp,
        lhs: Box<Expr>,
        rhs: Box<Expr>,
    },
    /// `a < b == c`: the first operand, then each operator and operand.
    Compare {
        first: Box<Expr>,
        rest: Vec<(CmpOp, Expr)>,
    },
    Not(Box<Expr>),
    And(Vec<Expr>),
    Or(Vec<Expr>),
}

#[derive(Debug, Clone, PartialEq)]
pub enum DictEntry {
    Pair(Expr, Expr),
    Spread(Expr),
}

#[derive(Debug, Clone, PartialEq)]
pub enum CallArg {
    Positional(Expr),
    Named(Span, Expr),
    Star(Expr),
    DoubleStar(Expr),
}

#[derive(Debug, Clone, PartialEq)]
pub enum Subscript {
    Index(Expr),
    Slice {
        lower: Option<Expr>,
        upper: Option<Expr>,
        step: Option<Expr>,
    },
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum UnaryOp {
    Plus,
    Minus,
    Invert,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BinOp {
    BitOr,
    BitXor,
    BitAnd,
    Shl,
    Shr,
    Add,
    Sub,
    Mul,
    MatMul,
    Div,
    FloorDiv,
    Mod,
    Pow,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CmpOp {
    Lt,
    Gt,
    Eq,
    Ge,
    Le,
    Ne,
    In,
    NotIn,
    Is,
    IsNot,
}

// The sizes of the nodes a large file holds by the thousand: every line is a `Stmt` in one
// `Vec<Stmt>`, every spec statement boxes one `Spec`. The rare large parts (assignments, loop
// conditions, `return`/`log`/`print`/`priority`/`(expr)` expressions, `else` bodies, `and`/`or`
// operands, captures) are boxed to keep them so; a change that grows one of these should be deliberate. (Sizes on 64-bit targets.)
#[cfg(target_pointer_width = "64")]
const _: () = assert!(std::mem::size_of::<Stmt>() == 64);
#[cfg(target_pointer_width = "64")]
const _: () = assert!(std::mem::size_of::<StmtKind>() == 48);
#[cfg(target_pointer_width = "64")]
const _: () = assert!(std::mem::size_of::<SpecExpr>() == 32);
#[cfg(target_pointer_width = "64")]
const _: () = assert!(std::mem::size_of::<Spec>() == 128);
#[cfg(target_pointer_width = "64")]
const _: () = assert!(std::mem::size_of::<Expr>() == 64);
