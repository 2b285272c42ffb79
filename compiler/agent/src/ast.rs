//! The typed tree of an agent description: agent.yaml and every tool declaration, with spans.
//!
//! Every source of tools (inline in agent.yaml, a catalogue file, an MCP `tools/list` answer, a
//! Python tool module) produces the same [`ToolDecl`]. Names are kept as written, with the span
//! that wrote them; resolving them against each other is `resolve`'s job.

use stalwart_diagnostics::Span;

/// A value and the span of the source text that gave it.
#[derive(Debug, Clone, PartialEq)]
pub struct Spanned<T> {
    pub value: T,
    pub span: Span,
}

impl<T> Spanned<T> {
    pub fn new(value: T, span: Span) -> Self {
        Self { value, span }
    }
}

/// agent.yaml, parsed.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct AgentFile {
    pub agents: Vec<AgentDecl>,
    /// The `tools:` list, in order.
    pub tools: Vec<ToolEntry>,
    /// `rulebook:` as written (a path relative to agent.yaml's folder).
    pub rulebook: Option<Spanned<String>>,
    pub facts: Vec<FactDecl>,
    pub settings: SettingsDecl,
    /// `budget: {steps: N}` for the run.
    pub budget: Option<Spanned<u32>>,
    pub steps: Vec<StepDecl>,
    pub channels: Vec<ChannelDecl>,
    pub stores: Vec<StoreDecl>,
    /// `overrides:`: fields set for tools declared elsewhere, in file order.
    pub overrides: Vec<OverrideDecl>,
}

/// One entry of `overrides:`: the fields agent.yaml sets for a tool its source declares (an MCP
/// answer, a Python module, a catalogue file, or inline), without redeclaring it.
#[derive(Debug, Clone, PartialEq)]
pub struct OverrideDecl {
    /// The tool the override is for, as written.
    pub tool: Spanned<String>,
    /// The fields, read as a declaration of that tool (only `keys` are meant).
    pub decl: ToolDecl,
    /// The keys the override sets, in order, each at its place in agent.yaml.
    pub keys: Vec<Spanned<String>>,
    /// The whole entry (name through value).
    pub span: Span,
}

/// One entry of agent.yaml's `tools:` list.
#[derive(Debug, Clone, PartialEq)]
pub enum ToolEntry {
    /// A mapping with `name:`.
    Inline(Box<ToolDecl>),
    /// `- python: shop.tools`: a module path, resolved relative to agent.yaml's folder.
    Python(Spanned<String>),
    /// `- catalogue: file.json|yaml`.
    Catalogue(Spanned<String>),
    /// `- mcp: file.json`: an MCP `tools/list` answer.
    Mcp(Spanned<String>),
}

#[derive(Debug, Clone, PartialEq)]
pub struct AgentDecl {
    pub name: Spanned<String>,
    pub model: Option<Spanned<String>>,
    pub tools: Vec<Spanned<String>>,
    pub hands_off_to: Vec<Spanned<String>>,
    pub on_unread: Option<Spanned<OnUnread>>,
    /// `language:`: the language the selector reads this agent's turns in.
    pub language: Option<Spanned<Language>>,
    pub privilege: Option<Spanned<Trust>>,
    pub budget: Option<Spanned<u32>>,
    pub exit_after: Option<Spanned<ExitAfter>>,
    /// The whole mapping entry (key through value).
    pub span: Span,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OnUnread {
    Refuse,
    Model,
    Ask,
    Answer,
}

/// Trust levels, lowest first.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Trust {
    Untrusted,
    Low,
    Medium,
    High,
}

/// `exit_after: {counter: tries, at_most: 3}`.
#[derive(Debug, Clone, PartialEq)]
pub struct ExitAfter {
    pub counter: Spanned<String>,
    pub at_most: Spanned<u32>,
}

/// `facts: {name: {from: tool.field [== value], same: argument}}`.
#[derive(Debug, Clone, PartialEq)]
pub struct FactDecl {
    pub name: Spanned<String>,
    pub tool: Spanned<String>,
    pub field: Spanned<String>,
    /// `== value`: the literal as JSON (`paid` is the string "paid"; `true`, numbers as such).
    pub equals: Option<Spanned<serde_json::Value>>,
    pub same: Option<Spanned<String>>,
    pub span: Span,
}

#[derive(Debug, Clone, PartialEq, Default)]
pub struct SettingsDecl {
    pub taint_policy: Option<Spanned<TaintPolicy>>,
    /// `confirmation_expiry: 1d` in seconds.
    pub confirmation_expiry: Option<Spanned<u64>>,
    pub language: Option<Spanned<Language>>,
    /// `licence:` path of the key file.
    pub licence: Option<Spanned<String>>,
    /// `lapsed: refuse` (every call) or `writes` (the default).
    pub lapsed_refuses_all: Option<Spanned<bool>>,
    pub compiled_only: Option<Spanned<bool>>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TaintPolicy {
    Confirm,
    Refuse,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Language {
    En,
    PtBr,
}

/// A custom graph step (`steps:`).
#[derive(Debug, Clone, PartialEq)]
pub struct StepDecl {
    pub name: Spanned<String>,
    pub agent: Spanned<String>,
    pub from: Vec<Spanned<String>>,
    pub routes: Vec<Spanned<String>>,
    pub calls: Vec<Spanned<String>>,
    pub guarded: bool,
    pub span: Span,
}

/// A remote agent channel (`channels:`).
#[derive(Debug, Clone, PartialEq)]
pub struct ChannelDecl {
    pub name: Spanned<String>,
    pub remote: Spanned<String>,
    pub hands_to: Spanned<String>,
    pub auth: Spanned<Auth>,
    pub span: Span,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Auth {
    None,
    Token,
    Mtls,
}

/// A store (`stores:`).
#[derive(Debug, Clone, PartialEq)]
pub struct StoreDecl {
    pub name: Spanned<String>,
    pub multi_tenant: bool,
    pub bind: Option<Spanned<String>>,
    pub persistent: bool,
    pub span: Span,
}

/// Where a tool declaration came from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ToolOrigin {
    Inline,
    /// A catalogue file, by the path agent.yaml gave.
    Catalogue(String),
    /// An MCP `tools/list` answer, by the path agent.yaml gave.
    Mcp(String),
    /// A Python module, by its dotted name.
    Python(String),
}

/// One tool's declaration (DESIGN §2.2), from any source.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolDecl {
    pub name: Spanned<String>,
    pub origin: ToolOrigin,
    /// The whole declaration.
    pub span: Span,
    pub description: Option<String>,
    pub effects: Option<Spanned<Effects>>,
    /// JSON Schema of the arguments (an object schema).
    pub arguments: Option<Spanned<serde_json::Value>>,
    /// JSON Schema of the result.
    pub result: Option<Spanned<serde_json::Value>>,
    pub sends_out: Option<Spanned<bool>>,
    pub reads_outside: Option<Spanned<bool>>,
    pub requires: Option<Spanned<Trust>>,
    pub after: Vec<AfterDecl>,
    pub not_after: Vec<Spanned<NotAfterDecl>>,
    pub at_most: Option<Spanned<AtMostDecl>>,
    pub undo: Option<Spanned<UndoDecl>>,
    pub irreversible: Option<Spanned<bool>>,
    pub idempotency: Option<Spanned<IdempotencyDecl>>,
    pub checks: Vec<CheckDecl>,
    pub spend: Option<Spanned<SpendDecl>>,
    pub confidential: Option<Spanned<bool>>,
    pub argument_kinds: Vec<(Spanned<String>, Spanned<ArgumentKind>)>,
    pub source: Option<Spanned<SourceDecl>>,
    pub retrieves_from: Option<Spanned<String>>,
    pub writes_to: Option<Spanned<String>>,
    /// The keys agent.yaml's `overrides:` set on this tool, in the order they were applied
    /// (empty for a tool no override names).
    pub overridden: Vec<String>,
    /// Where each key of the declaration is written (from the key to the end of its value), by
    /// key name, in source order; an override's key replaces the source's. For answers that
    /// point at the entry that decided them.
    pub key_spans: Vec<(String, Span)>,
    /// Where each part of the arguments schema is written, by JSON pointer into the schema: `""`
    /// is the whole schema, `/properties/amount` the entry of that property (from its key),
    /// `/properties/amount/maximum` the keyword's entry. Empty when the source has no such
    /// places (a schema derived from Python type hints).
    pub argument_places: Vec<(String, Span)>,
}

impl ToolDecl {
    /// Where the key `key` is written, if the declaration has it.
    pub fn key_span(&self, key: &str) -> Option<Span> {
        self.key_spans
            .iter()
            .find(|(k, _)| k == key)
            .map(|(_, span)| *span)
    }
}

impl ToolDecl {
    /// A declaration with only a name; every other field unset.
    pub fn named(name: Spanned<String>, origin: ToolOrigin, span: Span) -> Self {
        Self {
            name,
            origin,
            span,
            description: None,
            effects: None,
            arguments: None,
            result: None,
            sends_out: None,
            reads_outside: None,
            requires: None,
            after: Vec::new(),
            not_after: Vec::new(),
            at_most: None,
            undo: None,
            irreversible: None,
            idempotency: None,
            checks: Vec::new(),
            spend: None,
            confidential: None,
            argument_kinds: Vec::new(),
            source: None,
            retrieves_from: None,
            writes_to: None,
            overridden: Vec::new(),
            key_spans: Vec::new(),
            argument_places: Vec::new(),
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Effects {
    Reads,
    Changes,
}

/// `after: [tool]` or `[{tool: get_order, bind: {order_id: order_id}}]`.
#[derive(Debug, Clone, PartialEq)]
pub struct AfterDecl {
    pub tool: Spanned<String>,
    /// `(mine, theirs)` pairs.
    pub bind: Vec<(Spanned<String>, Spanned<String>)>,
    pub span: Span,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum NotAfterDecl {
    Tool(String),
    Untrusted,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Period {
    Hour,
    Day,
    Week,
    Month,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct AtMostDecl {
    pub count: u32,
    pub per: Option<Period>,
}

#[derive(Debug, Clone, PartialEq)]
pub enum UndoDecl {
    /// `undo: none`.
    None,
    /// `(undo's argument, this call's argument or result field)` pairs.
    Tool {
        tool: Spanned<String>,
        bind: Vec<(Spanned<String>, Spanned<String>)>,
    },
}

#[derive(Debug, Clone, PartialEq)]
pub enum IdempotencyDecl {
    Key(Spanned<String>),
    RetrySafe,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CheckOp {
    AtMost,
    AtLeast,
    Equals,
    OneOf,
}

#[derive(Debug, Clone, PartialEq)]
pub enum CheckOperand {
    Value(serde_json::Value),
    From {
        tool: Spanned<String>,
        field: Spanned<String>,
    },
}

#[derive(Debug, Clone, PartialEq)]
pub struct CheckDecl {
    pub argument: Spanned<String>,
    pub op: CheckOp,
    pub operand: Spanned<CheckOperand>,
    pub span: Span,
}

#[derive(Debug, Clone, PartialEq)]
pub struct SpendDecl {
    pub argument: Spanned<String>,
    pub at_most: f64,
    pub per: Period,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ArgumentKind {
    Code,
    Shell,
    Sql,
    Query,
    Path,
    Url,
    Template,
    /// Where the tool sends: the check lets a destination through in this argument.
    Destination,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SourceKind {
    Mcp,
    Package,
}

/// `source: {mcp: "server", pin: "sha256:…"}` or `{package: "name", pin: "1.2.3"}`.
#[derive(Debug, Clone, PartialEq)]
pub struct SourceDecl {
    pub kind: SourceKind,
    pub name: String,
    pub pin: Option<String>,
}
