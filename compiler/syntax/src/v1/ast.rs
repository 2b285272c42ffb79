//! The Colang 1.0 syntax tree. Every node has its byte span; names are kept with their
//! whitespace collapsed (as the reference reports them); expressions are kept as raw text, and
//! conditions that fit the shared condition language are also parsed.

use smol_str::SmolStr;
use stalwart_diagnostics::Span;

use crate::expr::Expr;

/// A parsed `.co` file.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Module {
    pub items: Vec<Item>,
    /// The `"""` docstrings, which the language otherwise ignores.
    pub docstrings: Vec<Span>,
}

/// A top-level item.
#[derive(Debug, Clone, PartialEq)]
pub enum Item {
    User(UserDef),
    Bot(BotDef),
    Flow(FlowDef),
    Import(Import),
    /// `define action|snippet …`: recorded, body skipped.
    Other(OtherDef),
    /// A statement outside any `define`: it belongs to the flow whose id is the empty string.
    Stmt(Stmt),
}

/// A text with its span: a name (whitespace collapsed) or raw text. Texts of up to 23 bytes,
/// most names, are stored inline ([`SmolStr`]), without an allocation.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Text {
    pub text: SmolStr,
    pub span: Span,
}

/// `define user <intent>` and its examples.
#[derive(Debug, Clone, PartialEq)]
pub struct UserDef {
    pub name: Text,
    pub lines: Vec<MessageLine>,
    /// The `define user …` line.
    pub header: Span,
    pub span: Span,
}

/// `define bot <message>` and its utterances.
#[derive(Debug, Clone, PartialEq)]
pub struct BotDef {
    pub name: Text,
    pub lines: Vec<MessageLine>,
    pub header: Span,
    pub span: Span,
}

/// A line of a `define user|bot` body.
#[derive(Debug, Clone, PartialEq)]
pub enum MessageLine {
    /// A line of text: `"an example"`, an intent reference (`express greeting`), several parts
    /// joined by ` and `, or a parameter line (`param $x as str`). `text` is the whole line.
    Text(Text),
    /// `if <expr>` / `else if <expr>` / `else` with the lines that apply under it (bot bodies).
    /// Boxed: branches are rare, and inline they would make every line as large as a branch.
    Branch(Box<MessageBranch>),
}

/// A conditional group of a bot body.
#[derive(Debug, Clone, PartialEq)]
pub struct MessageBranch {
    pub keyword: BranchKeyword,
    pub condition: Option<Condition>,
    pub lines: Vec<MessageLine>,
    pub span: Span,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BranchKeyword {
    If,
    ElseIf,
    Else,
}

/// A flow modifier between `define` and `flow`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Modifier {
    /// `interruption` / `repair`.
    Interruption,
    Test,
    /// `non-interruptable` / `noninterruptable` / `continuous`.
    NonInterruptable,
    /// `recursive` / `parallel`.
    AllowMultiple,
    Extension,
    Sample,
    Response,
}

impl Modifier {
    pub fn from_word(word: &str) -> Option<Self> {
        Some(match word {
            "interruption" | "repair" => Modifier::Interruption,
            "test" => Modifier::Test,
            "non-interruptable" | "noninterruptable" | "continuous" => Modifier::NonInterruptable,
            "recursive" | "parallel" => Modifier::AllowMultiple,
            "extension" => Modifier::Extension,
            "sample" => Modifier::Sample,
            "response" => Modifier::Response,
            _ => return None,
        })
    }
}

/// `define [modifiers] flow|subflow [name]`, an old-style `name:` flow, or the implicit flow of
/// top-level statements.
#[derive(Debug, Clone, PartialEq)]
pub struct FlowDef {
    pub kind: FlowKind,
    /// The written name; `None` for `define flow` without one.
    pub name: Option<Text>,
    /// The flow id: the name, or `anonymous-<hash>` for an anonymous flow.
    pub id: SmolStr,
    pub subflow: bool,
    /// Boxed slices rather than vectors, as the body and the modifiers are built whole: 8 bytes
    /// less each, in every item of a module.
    pub modifiers: Box<[(Modifier, Span)]>,
    pub body: Box<[Stmt]>,
    pub header: Span,
    pub span: Span,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FlowKind {
    Define,
    /// A line that is not a statement, followed by an indented block.
    Named,
}

/// `import <name>` / `include <name>`.
#[derive(Debug, Clone, PartialEq)]
pub struct Import {
    /// The package name, quotes and a leading `bot/` removed.
    pub name: String,
    pub span: Span,
}

/// `define action|snippet …`.
#[derive(Debug, Clone, PartialEq)]
pub struct OtherDef {
    pub header: Text,
    pub span: Span,
}

/// A flow statement.
#[derive(Debug, Clone, PartialEq)]
pub struct Stmt {
    pub kind: StmtKind,
    pub span: Span,
}

impl Stmt {
    /// Calls `f` on this statement, then on each statement nested in it, in the order they are
    /// written.
    pub fn walk<'a>(&'a self, f: &mut dyn FnMut(&'a Stmt)) {
        f(self);
        let mut each = |body: &'a [Stmt]| body.iter().for_each(|s| s.walk(f));
        match &self.kind {
            StmtKind::If(i) => {
                i.branches.iter().for_each(|b| each(&b.body));
                if let Some(body) = &i.else_body {
                    each(body);
                }
            }
            StmtKind::When(w) => w.branches.iter().for_each(|b| each(&b.body)),
            StmtKind::While(w) => each(&w.body),
            StmtKind::Any(body) => each(body),
            _ => {}
        }
    }
}

#[derive(Debug, Clone, PartialEq)]
pub enum StmtKind {
    /// `user <intent>`; several for `user a or user b`.
    User(Vec<UserRef>),
    /// `bot <message>` (`bot execute_<tool>` included: see [`BotRef::tool`]).
    Bot(BotRef),
    /// `execute <action>(…)` and `$x = execute <action>(…)`.
    Run(Box<Run>),
    /// `$x = <expr>`, `$x += e`, `$x -= e`, `set $x = e`.
    Set(Box<Set>),
    /// `do <subflow>`.
    Do(Text),
    /// `event <Name>(…)`.
    Event(Text),
    /// `create|new|infer event <Name>(…)`.
    Infer(Option<Text>),
    If(If),
    When(When),
    While(Box<While>),
    /// `any` and its alternatives.
    Any(Vec<Stmt>),
    Break,
    /// `continue` / `pass`.
    Continue,
    /// `stop` / `abort`.
    Stop,
    /// `return [values]` / `done`.
    Return(Option<Text>),
    Priority(Option<Text>),
    /// `meta` with its text and indented lines (raw).
    Meta(Option<Text>),
    /// `label <name>` / `checkpoint <name>`.
    Label(Option<Text>),
    /// `goto <label>` / `go to <label>`.
    Goto(Option<Text>),
    /// `check <expr>`: the keyword and the rest of the line.
    Generic {
        keyword: Text,
        rest: Option<Box<Text>>,
    },
    /// A line already reported as an error.
    Error,
}

/// One intent a `user` statement waits for.
#[derive(Debug, Clone, PartialEq)]
pub struct UserRef {
    /// The intent name (`ask refund`), or `*` for `user something`.
    pub intent: Text,
    /// What follows the name: parameters, `as $x`, or a literal `"text"`. Boxed: most
    /// references have none.
    pub rest: Option<Box<Text>>,
    pub span: Span,
}

/// A `bot` statement. Most are a message name alone: the rest, rarer, sits behind one box
/// ([`BotRef::extra`]) so that every statement stays small; read it with the accessors.
#[derive(Clone, PartialEq)]
pub struct BotRef {
    /// The message name (may be empty for `bot "text"`).
    pub message: Text,
    pub span: Span,
    /// The inline utterance, the parameters and the lines under the statement; `None` when the
    /// statement has none of them.
    pub extra: Option<Box<BotExtra>>,
}

/// The rarer parts of a `bot` statement.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct BotExtra {
    /// An inline utterance `"…"` right after the name.
    pub utterance: Option<Text>,
    /// What follows: parameters (`with`, `for`, `(…)`).
    pub rest: Option<Text>,
    /// The indented lines under the statement: parameter lines, then more utterances (with
    /// `if`/`else` groups), as in a `define bot` body.
    pub lines: Vec<MessageLine>,
}

/// Prints the fields as if they were all inline (the form the tree has always been printed in).
impl std::fmt::Debug for BotRef {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("BotRef")
            .field("message", &self.message)
            .field("utterance", &self.utterance())
            .field("rest", &self.rest())
            .field("lines", &self.lines())
            .field("span", &self.span)
            .finish()
    }
}

impl BotRef {
    /// An inline utterance `"…"` right after the name.
    pub fn utterance(&self) -> Option<&Text> {
        self.extra.as_ref().and_then(|e| e.utterance.as_ref())
    }

    /// What follows: parameters (`with`, `for`, `(…)`).
    pub fn rest(&self) -> Option<&Text> {
        self.extra.as_ref().and_then(|e| e.rest.as_ref())
    }

    /// The indented lines under the statement: parameter lines, then more utterances (with
    /// `if`/`else` groups), as in a `define bot` body.
    pub fn lines(&self) -> &[MessageLine] {
        self.extra.as_ref().map_or(&[], |e| e.lines.as_slice())
    }

    /// Whether the statement also defines its message, as the reference parser takes it: a
    /// named message with an inline utterance or with example lines under it (the first line
    /// starting with `"` or `if` and those after it).
    pub fn defines_message(&self) -> bool {
        !self.message.text.is_empty()
            && (self.utterance().is_some() || self.example_lines().next().is_some())
    }

    /// The lines under the statement from its first example on (parameter lines skipped).
    pub fn example_lines(&self) -> impl Iterator<Item = &MessageLine> {
        self.lines().iter().skip_while(|line| match line {
            MessageLine::Text(t) => !t.text.starts_with('"'),
            MessageLine::Branch(b) => b.keyword != BranchKeyword::If,
        })
    }

    /// For `bot execute_<tool>`, the tool's name.
    pub fn tool(&self) -> Option<&str> {
        self.message
            .text
            .strip_prefix("execute_")
            .filter(|t| !t.is_empty() && !t.contains(' '))
    }
}

/// `[$x =] execute <action>[(args)]`.
#[derive(Debug, Clone, PartialEq)]
pub struct Run {
    /// The variable receiving the result, without `$`.
    pub result: Option<Text>,
    /// The action name, words joined by one space (`call activefence api`).
    pub action: Text,
    pub args: Vec<Arg>,
}

/// An argument of an action call: `name=value` or a positional value.
#[derive(Debug, Clone, PartialEq)]
pub struct Arg {
    pub name: Option<Text>,
    pub value: Text,
    pub span: Span,
}

/// An assignment.
#[derive(Debug, Clone, PartialEq)]
pub struct Set {
    /// The variable, without `$` (`$order.total` gives `order.total`).
    pub target: Text,
    pub op: SetOp,
    /// The value as written (`...` for a generated value).
    pub value: Option<Text>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SetOp {
    Assign,
    Add,
    Sub,
}

/// A condition: its raw text, and its tree when it fits the shared condition language.
#[derive(Debug, Clone, PartialEq)]
pub struct Condition {
    pub text: SmolStr,
    pub span: Span,
    pub expr: ConditionExpr,
}

#[derive(Debug, Clone, PartialEq)]
pub enum ConditionExpr {
    Parsed(Expr),
    /// Text the condition language does not read (`len($x) > 2`, `$a.b`): kept as is; whoever
    /// needs its meaning reports it.
    Unparsed,
}

/// `if` / `else if` … / `else`.
#[derive(Debug, Clone, PartialEq)]
pub struct If {
    /// The `if` and each `else if`, in order.
    pub branches: Vec<CondBlock>,
    pub else_body: Option<Vec<Stmt>>,
}

/// A condition and the statements it guards.
#[derive(Debug, Clone, PartialEq)]
pub struct CondBlock {
    pub condition: Option<Condition>,
    pub body: Vec<Stmt>,
    pub span: Span,
}

/// `when …` / `else when …`.
#[derive(Debug, Clone, PartialEq)]
pub struct When {
    pub branches: Vec<WhenBranch>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct WhenBranch {
    pub on: WhenOn,
    pub body: Vec<Stmt>,
    pub span: Span,
}

/// What a `when` waits for.
#[derive(Debug, Clone, PartialEq)]
pub enum WhenOn {
    User(Vec<UserRef>),
    /// `bot …`, `flow …`, `event …`, `no …`, `any`, and a bare name (an implicit event): the
    /// first word and the rest.
    Other {
        keyword: SmolStr,
        rest: Option<Text>,
    },
}

/// `while <expr>`.
#[derive(Debug, Clone, PartialEq)]
pub struct While {
    pub condition: Option<Condition>,
    pub body: Vec<Stmt>,
}

// The sizes of the nodes a large file holds by the thousand: every statement of a block sits in
// one `Vec<Stmt>`, every line of a message in one `Vec<MessageLine>`, every item in the module's
// `Vec<Item>`. The rare large parts (branches, calls, assignments, loops, a `bot` statement's
// utterance, parameters and lines) are boxed to keep them so; a change that grows one of these
// should be deliberate. (Sizes on 64-bit targets.)
#[cfg(target_pointer_width = "64")]
const _: () = assert!(std::mem::size_of::<Stmt>() == 80);
#[cfg(target_pointer_width = "64")]
const _: () = assert!(std::mem::size_of::<StmtKind>() == 64);
#[cfg(target_pointer_width = "64")]
const _: () = assert!(std::mem::size_of::<BotRef>() == 64);
#[cfg(target_pointer_width = "64")]
const _: () = assert!(std::mem::size_of::<UserRef>() == 64);
#[cfg(target_pointer_width = "64")]
const _: () = assert!(std::mem::size_of::<MessageLine>() == 40);
#[cfg(target_pointer_width = "64")]
const _: () = assert!(std::mem::size_of::<Option<MessageLine>>() == 40);
#[cfg(target_pointer_width = "64")]
const _: () = assert!(std::mem::size_of::<Item>() == 128);
