//! The tokens the Colang 2.x grammar reads: words already read as keywords or names for their
//! place in the line, plus the layout tokens `Newline`, `Indent` and `Dedent`. Tokens carry no
//! text; the parser slices the source by the token's span.

/// A parser token.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Tok {
    Name,
    /// Two or more names in a row, each gap one space: given only to the clean-file parser,
    /// which reads it as the name words of a flow or spec (see `parser::NameRuns`).
    Names,
    /// A name directly followed by `(` in an expression: a function or method call.
    FuncName,
    Var,
    Int,
    Float,
    Str,
    /// A string right after a name and before a token that cannot continue an expression: given
    /// only to the clean-file parser, which reads it as the first argument of a spec (see
    /// `parser::NameRuns`).
    SimpleStr,
    /// A string right after `name =` and before a token that cannot continue an expression:
    /// given only to the clean-file parser, which reads it as a named argument's value.
    NamedStr,
    LongStr,
    Nld,
    /// A `...` line, which stands for the generated-flow statements.
    Generate,
    Newline,
    Indent,
    Dedent,
    LParen,
    /// The `(` that opens an expression statement `(expr)`.
    ExprParen,
    /// Zero-width: a spec operation without keyword follows `$v =`.
    ImplicitSpec,
    RParen,
    LBracket,
    RBracket,
    LBrace,
    RBrace,
    Comma,
    Colon,
    Dot,
    Assign,
    PlusAssign,
    MinusAssign,
    Arrow,
    At,
    Plus,
    Minus,
    Star,
    DoubleStar,
    Slash,
    DoubleSlash,
    Percent,
    Pipe,
    Caret,
    Amp,
    Tilde,
    Shl,
    Shr,
    Lt,
    Gt,
    EqEq,
    Ge,
    Le,
    Ne,
    Flow,
    Import,
    If,
    Elif,
    Else,
    While,
    When,
    OrWhen,
    Match,
    Send,
    Start,
    Await,
    Stop,
    Activate,
    Deactivate,
    Return,
    Abort,
    Break,
    Continue,
    Pass,
    Log,
    Print,
    Priority,
    Global,
    And,
    Or,
    Not,
    In,
    Is,
    As,
    True,
    False,
    None,
    /// A place the layout pass already reported; the block it is in is not parsed.
    Error,
}

impl Tok {
    /// How a message names this token (`describe(tok, text)` adds the text for words).
    pub(crate) fn describe(self) -> &'static str {
        match self {
            Tok::Name | Tok::Names | Tok::FuncName => "name",
            Tok::Var => "variable",
            Tok::Int | Tok::Float => "number",
            Tok::Str | Tok::SimpleStr | Tok::NamedStr | Tok::LongStr | Tok::Nld => "string",
            Tok::Generate => "`...`",
            Tok::Newline => "end of line",
            Tok::Indent => "indentation",
            Tok::Dedent => "end of block",
            Tok::LParen | Tok::ExprParen => "`(`",
            Tok::ImplicitSpec => "flow or event",
            Tok::RParen => "`)`",
            Tok::LBracket => "`[`",
            Tok::RBracket => "`]`",
            Tok::LBrace => "`{`",
            Tok::RBrace => "`}`",
            Tok::Comma => "`,`",
            Tok::Colon => "`:`",
            Tok::Dot => "`.`",
            Tok::Assign => "`=`",
            Tok::PlusAssign => "`+=`",
            Tok::MinusAssign => "`-=`",
            Tok::Arrow => "`->`",
            Tok::At => "`@`",
            Tok::Plus => "`+`",
            Tok::Minus => "`-`",
            Tok::Star => "`*`",
            Tok::DoubleStar => "`**`",
            Tok::Slash => "`/`",
            Tok::DoubleSlash => "`//`",
            Tok::Percent => "`%`",
            Tok::Pipe => "`|`",
            Tok::Caret => "`^`",
            Tok::Amp => "`&`",
            Tok::Tilde => "`~`",
            Tok::Shl => "`<<`",
            Tok::Shr => "`>>`",
            Tok::Lt => "`<`",
            Tok::Gt => "`>`",
            Tok::EqEq => "`==`",
            Tok::Ge => "`>=`",
            Tok::Le => "`<=`",
            Tok::Ne => "`!=`",
            Tok::Flow => "`flow`",
            Tok::Import => "`import`",
            Tok::If => "`if`",
            Tok::Elif => "`elif`",
            Tok::Else => "`else`",
            Tok::While => "`while`",
            Tok::When => "`when`",
            Tok::OrWhen => "`or when`",
            Tok::Match => "`match`",
            Tok::Send => "`send`",
            Tok::Start => "`start`",
            Tok::Await => "`await`",
            Tok::Stop => "`stop`",
            Tok::Activate => "`activate`",
            Tok::Deactivate => "`deactivate`",
            Tok::Return => "`return`",
            Tok::Abort => "`abort`",
            Tok::Break => "`break`",
            Tok::Continue => "`continue`",
            Tok::Pass => "`pass`",
            Tok::Log => "`log`",
            Tok::Print => "`print`",
            Tok::Priority => "`priority`",
            Tok::Global => "`global`",
            Tok::And => "`and`",
            Tok::Or => "`or`",
            Tok::Not => "`not`",
            Tok::In => "`in`",
            Tok::Is => "`is`",
            Tok::As => "`as`",
            Tok::True => "`True`",
            Tok::False => "`False`",
            Tok::None => "`None`",
            Tok::Error => "error",
        }
    }

    /// Whether this token can end an operand, so that a next line starting with `and` / `or`
    /// continues the expression.
    pub(crate) fn ends_operand(self) -> bool {
        matches!(
            self,
            Tok::Name
                | Tok::Var
                | Tok::Int
                | Tok::Float
                | Tok::Str
                | Tok::LongStr
                | Tok::Nld
                | Tok::RParen
                | Tok::RBracket
                | Tok::RBrace
                | Tok::True
                | Tok::False
                | Tok::None
        )
    }
}
