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
/// Index of an intent in [`Selector::intents`].
pub type IntentIdx = u32;
/// Index of a route in [`Selector::routes`].
pub type RouteIdx = u32;
/// Index of a term in [`Reader::terms`].
pub type TermIdx = u32;

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
    /// Where each expression node is written, by the same index as `exprs` (a node lowering
    /// made up, such as the conjunction of a path's conditions, is placed at its last operand).
    /// Not index-checked at load: the runtime reads a span's source with `get`.
    pub expr_spans: Vec<SourceSpan>,
    /// The selector's matcher (DESIGN §6): intents, routes and one reader per language.
    pub selector: Selector,
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

/// A place in a source file: for reasons and findings that name a line, and for the `source` of
/// an answer (`path:line:col`).
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
    /// 1-based column of `start`, counted in characters (Unicode scalar values) from the line's
    /// start.
    pub col: u32,
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
    /// Where its keys are written.
    pub spans: ToolSpans,
}

/// Where a tool's keys are written (each from the key to the end of its value), wherever they
/// were written: the catalogue, or an override in agent.yaml. `None` (or a missing entry) means
/// the key is not written. The lists run parallel to the tool's lists of the same name.
///
/// These spans are not index-checked at load: the runtime reads a span's source with `get`.
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[derive(Archive, Serialize, Deserialize, Debug, Clone, PartialEq, Eq, Default)]
#[rkyv(derive(Debug))]
pub struct ToolSpans {
    pub effects: Option<SourceSpan>,
    pub arguments: Option<SourceSpan>,
    pub sends_out: Option<SourceSpan>,
    pub requires: Option<SourceSpan>,
    /// `after:`'s entries, by the index of [`Tool::after`].
    pub after: Vec<SourceSpan>,
    /// `not_after:`'s entries, by the index of [`Tool::not_after`].
    pub not_after: Vec<SourceSpan>,
    pub at_most: Option<SourceSpan>,
    pub undo: Option<SourceSpan>,
    pub irreversible: Option<SourceSpan>,
    /// `checks:`'s entries (`argument: {op: value}` each), by the index of [`Tool::checks`].
    pub checks: Vec<SourceSpan>,
    pub spend: Option<SourceSpan>,
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
    /// The argument names where the tool sends (a URL, an address, a host): step 4 of the check
    /// lets a destination through in this argument, and the proof reads it (QG018).
    Destination,
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
    /// The language the selector reads this agent's turns in (`language:` on the agent); `None`
    /// means the record's `settings.language`.
    pub language: Option<Language>,
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
    /// `allOf`: every schema must hold.
    pub all_of: Vec<SchemaIdx>,
    /// `oneOf`: exactly one schema must hold.
    pub one_of: Vec<SchemaIdx>,
    /// A local `$ref`, resolved at compile time to the node of its target (which may be an
    /// ancestor: a recursive schema; the runtime bounds the recursion).
    pub reference: Option<SchemaIdx>,
    /// `propertyNames`: a schema every member name of an object must hold (as a string).
    pub property_names: Option<SchemaIdx>,
    /// `patternProperties`: (regular expression, schema); a member whose name the expression
    /// finds (unanchored) must hold the schema.
    pub pattern_properties: Vec<(String, SchemaIdx)>,
    /// `format`, for the formats the check asserts; other formats are annotations.
    pub format: Option<StringFormat>,
    /// Where the schema is written (the tool's `arguments:` or `result:` when the source gives
    /// no finer place). Not index-checked at load.
    pub span: SourceSpan,
    /// Where each of its keywords is written (`maximum`, `required`, …), in source order; empty
    /// when the source gives no finer place than the schema's.
    pub keyword_spans: Vec<(String, SourceSpan)>,
}

/// The `format` values the tool check asserts (on strings; other values pass).
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[derive(Archive, Serialize, Deserialize, Debug, Clone, Copy, PartialEq, Eq)]
#[rkyv(derive(Debug, PartialEq, Eq), compare(PartialEq))]
pub enum StringFormat {
    /// RFC 3339 `date-time`.
    DateTime,
    /// RFC 3339 `full-date`.
    Date,
    /// An e-mail address (`local@domain`).
    Email,
    /// An RFC 3986 URI (with a scheme).
    Uri,
    /// An RFC 4122 UUID in its hyphenated form.
    Uuid,
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

/// The selector's matcher (DESIGN §6): what a turn can be read as, and how each language reads.
///
/// A *route* is one thing a turn can ask for: an intent of the rulebook with the flow it starts and
/// what that flow reaches (a tool, a bot message, a question), or a tool of the catalogue that no
/// intent governs, read by its own name and description. A *reader* is one language's matcher
/// over the routes: the words it knows, the stems of the rulebook's examples and of the
/// catalogue's names, and, for each term, the routes it points to (an inverted index).
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[derive(Archive, Serialize, Deserialize, Debug, Clone, PartialEq, Default)]
#[rkyv(derive(Debug))]
pub struct Selector {
    /// The rulebook's user intents, sorted by name, with their examples as written.
    pub intents: Vec<Intent>,
    /// What a turn can be read as, in a stable order (intent routes by intent, then tool routes
    /// by tool).
    pub routes: Vec<Route>,
    /// One reader per language, in the order of [`Language`].
    pub readers: Vec<Reader>,
}

/// A user intent (`define user …` in Colang 1.0, `flow user …` in 2.x).
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[derive(Archive, Serialize, Deserialize, Debug, Clone, PartialEq, Eq)]
#[rkyv(derive(Debug))]
pub struct Intent {
    pub name: String,
    /// Its examples, as written (parameters kept as `$name`).
    pub examples: Vec<String>,
    pub span: SourceSpan,
}

/// One thing a turn can ask for.
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[derive(Archive, Serialize, Deserialize, Debug, Clone, PartialEq, Eq)]
#[rkyv(derive(Debug))]
pub struct Route {
    /// The intent the turn is read as; `None` for a tool read by its own words.
    pub intent: Option<IntentIdx>,
    /// The flow the intent starts.
    pub flow: Option<String>,
    pub target: RouteTarget,
    /// The target is reached only under a condition the tool check decides (a fact, an argument).
    pub conditional: bool,
}

/// What a route reaches.
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[derive(Archive, Serialize, Deserialize, Debug, Clone, PartialEq, Eq)]
#[rkyv(derive(Debug))]
pub enum RouteTarget {
    /// A tool of the catalogue.
    Tool(ToolIdx),
    /// A bot message on every path of the flow (no tool): the turn is declined with it.
    Say { message: String },
    /// A question (`bot ask …`) on every path of the flow: the turn is asked it (its first
    /// utterance when the rulebook defines one, else its name).
    Ask {
        message: String,
        text: Option<String>,
    },
}

/// One language's matcher.
///
/// INVARIANT: `words`, `phrases`, `stems` and `near` are sorted by their text (byte order) so the
/// runtime finds an entry by binary search; `profiles` has one entry per route, in route order.
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[derive(Archive, Serialize, Deserialize, Debug, Clone, PartialEq, Default)]
#[rkyv(derive(Debug))]
pub struct Reader {
    pub language: Language,
    /// Every term the reader scores: concepts of its lexicon (`@refund`) and stems.
    pub terms: Vec<Term>,
    /// Words the reader knows, folded (lower case, accents removed), each with what it is.
    pub words: Vec<Word>,
    /// Runs of words read as one (`money back`, `por cento`), keyed by their folded text with
    /// single spaces.
    pub phrases: Vec<Word>,
    /// Stems (of folded words) to terms: the inflected forms of known words.
    pub stems: Vec<StemEntry>,
    /// Typo keys: each known word of six letters or more with one letter left out, and the word
    /// itself, to the index of that word in `words`.
    pub near: Vec<NearEntry>,
    /// Per route, in route order: what it is read from.
    pub profiles: Vec<Profile>,
}

/// A term: a concept of the lexicon or a stem, and the routes it points to.
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[derive(Archive, Serialize, Deserialize, Debug, Clone, PartialEq, Eq)]
#[rkyv(derive(Debug))]
pub struct Term {
    /// `@concept` or a stem.
    pub text: String,
    pub class: TermClass,
    /// The routes whose names, examples or descriptions hold the term, by route; a route at most
    /// once, with its strongest role.
    pub postings: Vec<Posting>,
}

/// What kind of word a term is.
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[derive(Archive, Serialize, Deserialize, Debug, Clone, Copy, PartialEq, Eq)]
#[rkyv(derive(Debug, PartialEq, Eq), compare(PartialEq))]
pub enum TermClass {
    /// A verb that asks for one kind of tool (`refund`, `charge`, `send`).
    Action,
    /// A verb that asks to see something (`show`, `check`, `look up`): any reading tool.
    Look,
    /// A thing (`order`, `receipt`, `inbox`).
    Object,
    /// Any other word.
    Other,
}

/// A route a term points to, and how strongly.
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[derive(Archive, Serialize, Deserialize, Debug, Clone, Copy, PartialEq, Eq)]
#[rkyv(derive(Debug))]
pub struct Posting {
    pub route: RouteIdx,
    pub role: Role,
}

/// Where in a route a term stands, strongest first.
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[derive(Archive, Serialize, Deserialize, Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
#[rkyv(derive(Debug, PartialEq, Eq), compare(PartialEq))]
pub enum Role {
    /// The route's action: the verb of its tool's name, its intent's name, its examples.
    Action,
    /// A word of its tool's or intent's name.
    Name,
    /// A word of its examples or its arguments' names.
    Object,
    /// A word of its tool's description.
    Context,
}

/// A word (or a run of words) the reader knows.
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[derive(Archive, Serialize, Deserialize, Debug, Clone, PartialEq, Eq)]
#[rkyv(derive(Debug))]
pub struct Word {
    pub text: String,
    pub kind: WordKind,
}

/// What a known word is.
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[derive(Archive, Serialize, Deserialize, Debug, Clone, Copy, PartialEq, Eq)]
#[rkyv(derive(Debug, PartialEq, Eq), compare(PartialEq))]
pub enum WordKind {
    /// A word that carries meaning: the term it reads as.
    Term(TermIdx),
    /// A word of the language that carries none here (`the`, `please`, `o`, `por favor`).
    Stop,
    /// A word that turns the request around (`don't`, `never`, `não`).
    Negation,
    /// A word that asks how or why (`how`, `why`, `como`, `por que`).
    Question,
    /// A word that asks for a calculation (`calculate`, `plus`, `percent`, `metade`).
    Compute,
    /// A word of another language, not of this one.
    Foreign,
    /// A number word for a small count (`two`, `duas`).
    Number(u32),
    /// A yes.
    Yes,
    /// A no.
    No,
    /// A word that joins two requests (`and then`, `e depois`).
    Then,
    /// A word that asks for a calculation when it stands between two numbers (`plus`, `vezes`,
    /// `x`); anywhere else it carries nothing.
    Operator,
}

/// A stem and its term.
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[derive(Archive, Serialize, Deserialize, Debug, Clone, PartialEq, Eq)]
#[rkyv(derive(Debug))]
pub struct StemEntry {
    pub stem: String,
    pub term: TermIdx,
}

/// A typo key and the word it came from.
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[derive(Archive, Serialize, Deserialize, Debug, Clone, PartialEq, Eq)]
#[rkyv(derive(Debug))]
pub struct NearEntry {
    pub key: String,
    /// Index in [`Reader::words`].
    pub word: u32,
}

/// What a route is read from, in one language.
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[derive(Archive, Serialize, Deserialize, Debug, Clone, PartialEq, Eq, Default)]
#[rkyv(derive(Debug))]
pub struct Profile {
    /// Each example of the route's intent as the set of its terms (sorted, no repeats).
    pub examples: Vec<Vec<TermIdx>>,
}
