//! The plan: what the selector read a turn as (spec ch45's table), with what it read it from
//! — the intent, the flow, the values and their spans, the score and the runner-up — so a host
//! can act on it and show why. [`Plan::to_json`] is the form `stalwart plan` prints.

use serde_json::{Map, Value, json};
use stalwart_record::Language;

use crate::lexicon::language_name;

/// Where the turn goes (spec ch45, "The router").
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PlanKind {
    /// A read that resolves: straight to the guarded tool step, the call written from the
    /// person's words.
    ToolStep,
    /// Values the catalogue's listing tools produce: these reads first, a round at a time, then
    /// the plan their results make.
    Chain,
    /// A fixed question naming exactly what is missing (or which of two is meant).
    Ask,
    /// A write put to the person: the call their yes would make.
    Confirm,
    /// A rule refuses (naming the rule), or a calculation this machine cannot run.
    Declined,
    /// Nothing reads the turn: see [`Plan::on_unread`].
    Unread,
}

impl PlanKind {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::ToolStep => "tool_step",
            Self::Chain => "chain",
            Self::Ask => "ask",
            Self::Confirm => "confirm",
            Self::Declined => "declined",
            Self::Unread => "unread",
        }
    }
}

/// What becomes of a turn nothing reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Unread {
    /// The first time: the person is asked to say it again.
    AskAgain,
    /// `on_unread: refuse`: the turn ends with a refusal.
    Refuse,
    /// `on_unread: model`: the turn goes to the agent's model.
    Model,
    /// `on_unread: ask`: the person is asked whether the model may have it.
    Ask,
    /// `on_unread: answer`: answered from documents; with none to ground an answer, refused.
    Answer,
}

impl Unread {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::AskAgain => "ask_again",
            Self::Refuse => "refuse",
            Self::Model => "model",
            Self::Ask => "ask",
            Self::Answer => "answer",
        }
    }
}

/// How the host records the turn in the history.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Record {
    /// A new turn (`read`).
    Read,
    /// The answer to the question the previous plan asked (`reply`).
    Reply,
}

/// A call the plan writes.
#[derive(Debug, Clone, PartialEq)]
pub struct PlannedCall {
    pub tool: String,
    /// In declaration order.
    pub arguments: Map<String, Value>,
    /// Each argument's origin, in the same order: `typed`, or `result:<step>.<field>`.
    pub origins: Map<String, Value>,
}

impl PlannedCall {
    pub fn to_json(&self) -> Value {
        json!({"tool": self.tool, "arguments": self.arguments, "origins": self.origins})
    }
}

/// A value the plan took, and where it was.
#[derive(Debug, Clone, PartialEq)]
pub struct PlanSlot {
    pub argument: String,
    pub value: Value,
    /// Where it was: the turn (`0`), an earlier turn (`-1` the one before, …), or the result of
    /// call `step` of this run.
    pub at: SlotAt,
}

/// Where a value was found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SlotAt {
    /// Byte span in a turn: `turn` is 0 for this turn, -1 for the one before, and so on.
    Turn { turn: i32, start: usize, end: usize },
    /// The reported result of call `step`.
    Result { step: u32 },
}

impl PlanSlot {
    pub fn to_json(&self) -> Value {
        match self.at {
            SlotAt::Turn { turn, start, end } => json!({
                "argument": self.argument, "value": self.value, "turn": turn, "start": start, "end": end,
            }),
            SlotAt::Result { step } => json!({
                "argument": self.argument, "value": self.value, "result_of": step,
            }),
        }
    }
}

/// The selector's score for what it read the turn as, and for the runner-up.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Score {
    /// What the turn was read as: an intent, or a tool read by its own words.
    pub read_as: Option<String>,
    pub score: f32,
    pub runner_up: Option<(String, f32)>,
}

fn rounded(x: f32) -> Value {
    let r = (f64::from(x) * 100.0).round() / 100.0;
    serde_json::Number::from_f64(r).map_or(Value::Null, Value::Number)
}

impl Score {
    pub fn to_json(&self) -> Value {
        json!({
            "read_as": self.read_as,
            "score": rounded(self.score),
            "runner_up": self.runner_up.as_ref().map(|(name, score)| json!({"read_as": name, "score": rounded(*score)})),
        })
    }
}

/// The selector's plan for one turn.
#[derive(Debug, Clone, PartialEq)]
pub struct Plan {
    pub kind: PlanKind,
    pub language: Language,
    /// The person's intent (the check's gate needs it for tools an intent governs).
    pub intent: Option<String>,
    /// The flow the intent starts.
    pub flow: Option<String>,
    /// Tool step and confirm: the call. Chain and ask: the call as far as it is written.
    pub call: Option<PlannedCall>,
    /// Chain: this round's reads.
    pub reads: Vec<PlannedCall>,
    /// The values the plan took, with where they were.
    pub slots: Vec<PlanSlot>,
    /// Ask and chain: the arguments still missing.
    pub missing: Vec<String>,
    /// Ask: what the person chooses between (tools, or values of one argument).
    pub choices: Vec<String>,
    /// The question the turn ends with (ask, ask again, asking leave for the model).
    pub question: Option<String>,
    /// Declined and unread: why, as a short code or the refusing message; a calculation's reason
    /// starts with `compute off:`.
    pub reason: Option<String>,
    /// Declined: the rule that refuses (a flow or rule name, `compute`, `unknown_tool`).
    pub rule: Option<String>,
    /// Declined for another agent's tool: the agents that may call it.
    pub agents: Vec<String>,
    /// Unread: what becomes of the turn.
    pub on_unread: Option<Unread>,
    /// Unread handed to the model: the turn the model gets.
    pub for_model: Option<String>,
    /// How the host records this turn.
    pub record_as: Record,
    pub score: Score,
}

impl Plan {
    /// A plan of `kind` with nothing else said yet.
    pub fn new(kind: PlanKind, language: Language) -> Self {
        Self {
            kind,
            language,
            intent: None,
            flow: None,
            call: None,
            reads: Vec::new(),
            slots: Vec::new(),
            missing: Vec::new(),
            choices: Vec::new(),
            question: None,
            reason: None,
            rule: None,
            agents: Vec::new(),
            on_unread: None,
            for_model: None,
            record_as: Record::Read,
            score: Score::default(),
        }
    }

    /// Whether the plan ends the turn with a question the person's next turn answers.
    pub fn asks(&self) -> bool {
        self.kind == PlanKind::Ask || matches!(self.on_unread, Some(Unread::AskAgain | Unread::Ask))
    }

    /// The plan as JSON: every key, always, in a fixed order.
    pub fn to_json(&self) -> Value {
        json!({
            "kind": self.kind.as_str(),
            "language": language_name(self.language),
            "intent": self.intent,
            "flow": self.flow,
            "call": self.call.as_ref().map(PlannedCall::to_json),
            "reads": self.reads.iter().map(PlannedCall::to_json).collect::<Vec<_>>(),
            "slots": self.slots.iter().map(PlanSlot::to_json).collect::<Vec<_>>(),
            "missing": self.missing,
            "choices": self.choices,
            "question": self.question,
            "reason": self.reason,
            "rule": self.rule,
            "agents": self.agents,
            "on_unread": self.on_unread.map(Unread::as_str),
            "for_model": self.for_model,
            "record_as": match self.record_as { Record::Read => "read", Record::Reply => "reply" },
            "score": self.score.to_json(),
        })
    }
}
