//! The record's data model: the plain, versioned data the compiler writes and the runtime reads.
//!
//! Every type here is archived with rkyv. Recursive shapes (JSON values, schema programs, gate
//! conditions) are stored flat in arenas and referred to by `u32` indices, so the archived form
//! has no recursive types and validation is a single linear pass. Names that the runtime compares
//! on the hot path (tools, agents) are resolved to indices at lowering time.
//!
//! INVARIANT: every index stored in a record points inside the arena it names; the loader's
//! validation (`crate::load`) checks this after bytecheck, so the runtime may index without
//! bounds failures turning into panics (it still uses `get`).
//!
//! With the crate's `serde` feature every type also derives serde's traits, so tests and
//! benchmarks can compare the record with JSON; the default build has no serde.

use rkyv::{Archive, Deserialize, Serialize};

/// Index of a tool in [`RecordBody::tools`].
pub type ToolIdx = u32;
/// Index of an agent in [`RecordBody::agents`].
pub type AgentIdx = u32;
/// Index of a value in [`RecordBody::values`].
pub type ValueIdx = u32;
/// Index of a schema node in [`RecordBody::schema_nodes`].
pub type SchemaIdx = u32;
/// Index of an expression node in [`RecordBody::exprs`].
pub type ExprIdx = u32;
/// Index of a source file in [`RecordBody::sources`].
pub type SourceIdx = u32;

/// The whole compiled record (everything after the fixed header).
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[derive(Archive, Serialize, Deserialize, Debug, Clone, PartialEq, Default)]
#[rkyv(derive(Debug))]
pub struct RecordBody {
    /// What was compiled: an agent description or a bare rulebook.
    pub kind: RecordKind,
    /// The source files the record was compiled from, in a stable order.
    pub sources: Vec<Source>,
    /// The catalogue, sorted by tool name.
    pub tools: Vec<Tool>,
    /// The agents, sorted by name (empty for a bare rulebook).
    pub agents: Vec<Agent>,
    /// Settings from agent.yaml (`settings:`), with defaults filled in.
    pub settings: Settings,
    /// Facts read from tool results (`facts:` in agent.yaml), sorted by name.
    pub facts: Vec<Fact>,
    /// The rulebook's user intents (for the selector and for reasons), sorted by name.
    pub intents: Vec<String>,
    /// The run's budget in steps, if declared.
    pub budget_steps: Option<u32>,
    /// Arena of JSON values (enum members, constants, check values, fact values).
    pub values: Vec<Value>,
    /// Arena of compiled JSON Schema nodes.
    pub schema_nodes: Vec<SchemaNode>,
    /// Arena of condition expression nodes (the gate's conditions).
    pub exprs: Vec<Expr>,
}

/// What a record was compiled from.
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[derive(Archive, Serialize, Deserialize, Debug, Clone, Copy, PartialEq, Eq, Default)]
#[rkyv(derive(Debug, PartialEq, Eq))]
pub enum RecordKind {
    /// `stalwart compile agent.yaml`.
    #[default]
    Agent,
    /// `stalwart rules compile RULEBOOK`.
    Rulebook,
}

/// A source file that went into the record.
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[derive(Archive, Serialize, Deserialize, Debug, Clone, PartialEq, Eq)]
#[rkyv(derive(Debug))]
pub struct Source {
    /// Path relative to the compiled root (agent.yaml's folder), with `/` separators.
    pub path: String,
    /// BLAKE3 digest of the file's bytes, hex.
    pub digest: String,
}

/// A place in a source file: for reasons and findings that name a line.
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[derive(Archive, Serialize, Deserialize, Debug, Clone, Copy, PartialEq, Eq, Default)]
#[rkyv(derive(Debug))]
pub struct SourceSpan {
    pub source: SourceIdx,
    /// Byte offsets.
    pub start: u32,
    pub end: u32,
    /// 1-based line of `start`.
    pub line: u32,
}

/// One JSON value node. Arrays and objects refer to their members by index.
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[derive(Archive, Serialize, Deserialize, Debug, Clone, PartialEq)]
#[rkyv(derive(Debug))]
pub enum Value {
    Null,
    Bool(bool),
    Number(f64),
    String(String),
    Array(Vec<ValueIdx>),
    /// Members in source order.
    Object(Vec<(String, ValueIdx)>),
}

/// The trust levels, lowest first.
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[derive(Archive, Serialize, Deserialize, Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
#[rkyv(derive(Debug, PartialEq, Eq, PartialOrd, Ord), compare(PartialEq))]
pub enum Trust {
    Untrusted,
    Low,
    Medium,
    High,
}

/// What a tool does to the world.
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[derive(Archive, Serialize, Deserialize, Debug, Clone, Copy, PartialEq, Eq, Default)]
#[rkyv(derive(Debug, PartialEq, Eq), compare(PartialEq))]
pub enum Effects {
    Reads,
    Changes,
    /// Not declared: treated as `Changes` everywhere.
    #[default]
    Unknown,
}

/// A period for host-counted limits and spend.
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[derive(Archive, Serialize, Deserialize, Debug, Clone, Copy, PartialEq, Eq)]
#[rkyv(derive(Debug, PartialEq, Eq), compare(PartialEq))]
pub enum Period {
    Hour,
    Day,
    Week,
    Month,
}

/// One tool of the catalogue with every field of DESIGN §2.2.
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[derive(Archive, Serialize, Deserialize, Debug, Clone, PartialEq, Default)]
#[rkyv(derive(Debug))]
pub struct Tool {
    pub name: String,
    pub description: String,
    pub effects: Effects,
    /// Compiled argument schema; `None` means every argument is undeclared.
    pub arguments: Option<SchemaIdx>,
    /// Declared argument names in declaration order (top-level properties of `arguments`).
    pub argument_names: Vec<String>,
    /// Compiled result schema.
    pub result: Option<SchemaIdx>,
    /// Top-level fields the result schema declares (for `result:<step>.<field>` origins).
    pub result_fields: Vec<String>,
    pub sends_out: bool,
    pub reads_outside: bool,
    /// The trust a write needs; `None` means the reaching agent's privilege.
    pub requires: Option<Trust>,
    pub after: Vec<After>,
    pub not_after: Vec<NotAfter>,
    pub at_most: Option<AtMost>,
    pub undo: Undo,
    pub irreversible: bool,
    pub idempotency: Idempotency,
    pub checks: Vec<ArgumentCheck>,
    pub spend: Option<Spend>,
    pub confidential: bool,
    pub argument_kinds: Vec<(String, ArgumentKind)>,
    pub source: Option<ToolSource>,
    pub retrieves_from: Option<String>,
    pub writes_to: Option<String>,
    /// A schema keyword outside the compiled subset was seen; named in `schema_partial_keywords`.
    pub schema_partial: bool,
    pub schema_partial_keywords: Vec<String>,
    /// The rulebook's gate for this tool.
    pub gate: Gate,
    /// Where the tool was declared.
    pub span: SourceSpan,
}

/// `after: [{tool, bind}]`.
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[derive(Archive, Serialize, Deserialize, Debug, Clone, PartialEq, Eq)]
#[rkyv(derive(Debug))]
pub struct After {
    pub tool: ToolIdx,
    /// `(mine, theirs)`: this call's argument `mine` must equal that call's argument or result
    /// field `theirs`.
    pub bind: Vec<(String, String)>,
}

/// `not_after: [tool | untrusted]`.
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[derive(Archive, Serialize, Deserialize, Debug, Clone, PartialEq, Eq)]
#[rkyv(derive(Debug))]
pub enum NotAfter {
    Tool(ToolIdx),
    /// Any `reads_outside` call.
    Untrusted,
}

/// `at_most: N` (a session) or `{count: N, per: P}` (host-counted).
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[derive(Archive, Serialize, Deserialize, Debug, Clone, Copy, PartialEq, Eq)]
#[rkyv(derive(Debug))]
pub struct AtMost {
    pub count: u32,
    /// `None`: per session, counted over the history; `Some`: counted by the host.
    pub per: Option<Period>,
}

/// `undo:`.
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[derive(Archive, Serialize, Deserialize, Debug, Clone, PartialEq, Eq, Default)]
#[rkyv(derive(Debug))]
pub enum Undo {
    /// Nothing declared.
    #[default]
    Unset,
    /// `undo: none`: a failed run may leave it done.
    None,
    /// `undo: {tool, bind}`: `(undo argument, this call's argument or result field)`.
    Tool {
        tool: ToolIdx,
        bind: Vec<(String, String)>,
    },
}

/// `idempotency:`.
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[derive(Archive, Serialize, Deserialize, Debug, Clone, PartialEq, Eq, Default)]
#[rkyv(derive(Debug))]
pub enum Idempotency {
    #[default]
    None,
    /// `key: <argument>`.
    Key(String),
    /// `retry_safe: true`.
    RetrySafe,
}

/// One `checks:` entry: `argument: {op: value | {from: tool.field}}`.
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[derive(Archive, Serialize, Deserialize, Debug, Clone, PartialEq)]
#[rkyv(derive(Debug))]
pub struct ArgumentCheck {
    pub argument: String,
    pub op: CheckOp,
    pub operand: CheckOperand,
}

#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[derive(Archive, Serialize, Deserialize, Debug, Clone, Copy, PartialEq, Eq)]
#[rkyv(derive(Debug, PartialEq, Eq), compare(PartialEq))]
pub enum CheckOp {
    AtMost,
    AtLeast,
    Equals,
    OneOf,
}

#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[derive(Archive, Serialize, Deserialize, Debug, Clone, PartialEq, Eq)]
#[rkyv(derive(Debug))]
pub enum CheckOperand {
    Value(ValueIdx),
    /// `{from: tool.field}`: the latest reported result of that tool.
    From {
        tool: ToolIdx,
        field: String,
    },
}

/// `spend: {argument, at_most, per}`.
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[derive(Archive, Serialize, Deserialize, Debug, Clone, PartialEq)]
#[rkyv(derive(Debug))]
pub struct Spend {
    pub argument: String,
    pub at_most: f64,
    pub per: Period,
}

#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[derive(Archive, Serialize, Deserialize, Debug, Clone, Copy, PartialEq, Eq)]
#[rkyv(derive(Debug, PartialEq, Eq), compare(PartialEq))]
pub enum ArgumentKind {
    Code,
    Shell,
    Sql,
    Query,
    Path,
    Url,
    Template,
}

/// `source:` — where a tool comes from and its pin.
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[derive(Archive, Serialize, Deserialize, Debug, Clone, PartialEq, Eq)]
#[rkyv(derive(Debug))]
pub struct ToolSource {
    pub kind: ToolSourceKind,
    /// The server or package name.
    pub name: String,
    pub pin: Option<String>,
}

#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[derive(Archive, Serialize, Deserialize, Debug, Clone, Copy, PartialEq, Eq)]
#[rkyv(derive(Debug, PartialEq, Eq), compare(PartialEq))]
pub enum ToolSourceKind {
    Mcp,
    Package,
}

/// An agent of agent.yaml.
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[derive(Archive, Serialize, Deserialize, Debug, Clone, PartialEq, Eq)]
#[rkyv(derive(Debug))]
pub struct Agent {
    pub name: String,
    pub model: Option<String>,
    /// Tools it may reach, sorted by index.
    pub tools: Vec<ToolIdx>,
    pub hands_off_to: Vec<AgentIdx>,
    pub privilege: Trust,
    pub on_unread: OnUnread,
    pub budget_steps: Option<u32>,
    pub span: SourceSpan,
}

#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[derive(Archive, Serialize, Deserialize, Debug, Clone, Copy, PartialEq, Eq, Default)]
#[rkyv(derive(Debug, PartialEq, Eq), compare(PartialEq))]
pub enum OnUnread {
    #[default]
    Refuse,
    Model,
    Ask,
    Answer,
}

/// `settings:` with defaults filled in.
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[derive(Archive, Serialize, Deserialize, Debug, Clone, PartialEq, Eq)]
#[rkyv(derive(Debug))]
pub struct Settings {
    pub taint_policy: TaintPolicy,
    /// Seconds a confirmation token stays valid.
    pub confirmation_expiry_secs: u64,
    pub language: Language,
    /// Under a lapsed licence, refuse every call (not only writes).
    pub lapsed_refuses_all: bool,
    pub compiled_only: bool,
}

impl Default for Settings {
    fn default() -> Self {
        Self {
            taint_policy: TaintPolicy::Confirm,
            confirmation_expiry_secs: 86_400,
            language: Language::En,
            lapsed_refuses_all: false,
            compiled_only: false,
        }
    }
}

#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[derive(Archive, Serialize, Deserialize, Debug, Clone, Copy, PartialEq, Eq, Default)]
#[rkyv(derive(Debug, PartialEq, Eq), compare(PartialEq))]
pub enum TaintPolicy {
    #[default]
    Confirm,
    Refuse,
}

#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[derive(Archive, Serialize, Deserialize, Debug, Clone, Copy, PartialEq, Eq, Default)]
#[rkyv(derive(Debug, PartialEq, Eq), compare(PartialEq))]
pub enum Language {
    #[default]
    En,
    PtBr,
}

/// A fact read from a tool's result (`facts:` in agent.yaml).
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[derive(Archive, Serialize, Deserialize, Debug, Clone, PartialEq, Eq)]
#[rkyv(derive(Debug))]
pub struct Fact {
    pub name: String,
    pub tool: ToolIdx,
    pub field: String,
    /// `from: tool.field == value`; `None` means truthiness of the field.
    pub equals: Option<ValueIdx>,
    /// `same: argument`.
    pub same: Option<String>,
    pub span: SourceSpan,
}

/// A compiled JSON Schema node (the validation program). Children are arena indices.
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[derive(Archive, Serialize, Deserialize, Debug, Clone, PartialEq, Default)]
#[rkyv(derive(Debug))]
pub struct SchemaNode {
    /// Bit set of [`TypeSet`] bits; `0` means any type.
    pub types: u8,
    pub properties: Vec<(String, SchemaIdx)>,
    pub required: Vec<String>,
    pub additional: Additional,
    /// `enum` members (value indices); empty means no `enum`.
    pub enum_values: Vec<ValueIdx>,
    pub has_enum: bool,
    pub constant: Option<ValueIdx>,
    pub minimum: Option<f64>,
    pub maximum: Option<f64>,
    pub exclusive_minimum: Option<f64>,
    pub exclusive_maximum: Option<f64>,
    pub min_length: Option<u32>,
    pub max_length: Option<u32>,
    /// Regular expression source (`pattern`), checked with an unanchored search.
    pub pattern: Option<String>,
    pub items: Option<SchemaIdx>,
    pub min_items: Option<u32>,
    pub max_items: Option<u32>,
    /// `anyOf` alternatives (also used for `Optional[...]` from Python type hints).
    pub any_of: Vec<SchemaIdx>,
}

/// Bits of [`SchemaNode::types`].
pub struct TypeSet;

impl TypeSet {
    pub const NULL: u8 = 1;
    pub const BOOLEAN: u8 = 2;
    pub const INTEGER: u8 = 4;
    pub const NUMBER: u8 = 8;
    pub const STRING: u8 = 16;
    pub const ARRAY: u8 = 32;
    pub const OBJECT: u8 = 64;
}

/// `additionalProperties`.
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[derive(Archive, Serialize, Deserialize, Debug, Clone, Copy, PartialEq, Eq, Default)]
#[rkyv(derive(Debug))]
pub enum Additional {
    /// Not given, or `true`.
    #[default]
    Allow,
    /// `false`.
    Deny,
    /// A schema for the other properties.
    Schema(SchemaIdx),
}

/// The compiled rulebook decision for one tool (DESIGN §5.7).
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[derive(Archive, Serialize, Deserialize, Debug, Clone, PartialEq, Eq, Default)]
#[rkyv(derive(Debug))]
pub struct Gate {
    /// Whether any rulebook governs the tool. An ungoverned tool passes the gate.
    pub governed: bool,
    /// Paths in file order; the first that holds decides.
    pub paths: Vec<GatePath>,
    /// Names of the flows (or sheet rules) that govern this tool, for `no_flow`.
    pub flows: Vec<String>,
    /// The sheet's default when no row holds (`None`: refuse with `no_flow`).
    pub default: Option<GateDefault>,
}

#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[derive(Archive, Serialize, Deserialize, Debug, Clone, Copy, PartialEq, Eq)]
#[rkyv(derive(Debug, PartialEq, Eq), compare(PartialEq))]
pub enum GateDefault {
    Allow,
    Refuse,
}

/// One path through a flow (or one sheet row) to an action on the tool.
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[derive(Archive, Serialize, Deserialize, Debug, Clone, PartialEq, Eq)]
#[rkyv(derive(Debug))]
pub struct GatePath {
    /// The flow's or rule's name.
    pub flow: String,
    /// The person's intent the path needs (`user <intent>` at the flow's start).
    pub intent: Option<String>,
    /// Condition that must hold (`None`: always).
    pub condition: Option<ExprIdx>,
    pub action: GateAction,
    pub span: SourceSpan,
}

#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[derive(Archive, Serialize, Deserialize, Debug, Clone, PartialEq, Eq)]
#[rkyv(derive(Debug))]
pub enum GateAction {
    /// The path reaches the tool: the gate passes.
    Allow,
    /// The path reaches `bot <message>`: refuse with the message as the reason.
    Refuse { message: String },
    /// The path reaches a question: confirm with `gate_clarify`.
    Ask { message: String },
}

/// A condition expression node.
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[derive(Archive, Serialize, Deserialize, Debug, Clone, PartialEq, Eq)]
#[rkyv(derive(Debug))]
pub enum Expr {
    /// `$name`: a fact.
    Fact(String),
    /// `$args.name`.
    Arg(String),
    Literal(ValueIdx),
    Not(ExprIdx),
    And(ExprIdx, ExprIdx),
    Or(ExprIdx, ExprIdx),
    Compare {
        op: CompareOp,
        left: ExprIdx,
        right: ExprIdx,
    },
    /// `base.field`: a member of an object (null when there is none).
    Member {
        base: ExprIdx,
        field: String,
    },
    /// `[a, b, …]`.
    List(Vec<ExprIdx>),
    /// `item in collection`: an item of a list, a key of an object, or a substring of a string.
    In {
        item: ExprIdx,
        collection: ExprIdx,
    },
    /// `e is None`.
    IsNone(ExprIdx),
    /// A function of the condition language.
    Call {
        func: Func,
        args: Vec<ExprIdx>,
    },
    /// A method of a string.
    Method {
        method: StrMethod,
        receiver: ExprIdx,
        args: Vec<ExprIdx>,
    },
    /// What the latest call of the tool that ran in the session reported as its result (a
    /// variable the flow set with `$x = execute <tool>`); null until one did.
    Result(String),
    /// Something the check never has (the person's or the bot's message text, a model's answer,
    /// an action outside the catalogue): the path is possibly taken. A refusal or a question on
    /// such a path applies; a call on it never passes the gate.
    Unknown,
}

/// The functions of the condition language.
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[derive(Archive, Serialize, Deserialize, Debug, Clone, Copy, PartialEq, Eq)]
#[rkyv(derive(Debug, PartialEq, Eq), compare(PartialEq))]
pub enum Func {
    /// `len(x)`: characters of a string, items of a list, members of an object.
    Len,
    IsStr,
    IsInt,
    IsFloat,
    IsBool,
    /// `str(x)`, `int(x)`, `float(x)`.
    Str,
    Int,
    Float,
}

/// The string methods of the condition language.
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[derive(Archive, Serialize, Deserialize, Debug, Clone, Copy, PartialEq, Eq)]
#[rkyv(derive(Debug, PartialEq, Eq), compare(PartialEq))]
pub enum StrMethod {
    Lower,
    Upper,
    Strip,
    StartsWith,
    EndsWith,
}

#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[derive(Archive, Serialize, Deserialize, Debug, Clone, Copy, PartialEq, Eq)]
#[rkyv(derive(Debug, PartialEq, Eq), compare(PartialEq))]
pub enum CompareOp {
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
}
