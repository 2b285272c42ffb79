//! Effects and approvals (DESIGN §5.8): which calls a person is asked about, and the
//! [`Approval`] the question is about.
//!
//! A call needs an approval when the check answers `confirm`, or when the approval rule names
//! it: `changes` (tools that change things, or do not say: unknown effects count as changes),
//! `all`, or a list of tool names and approval paths (`support/answer/refund`, or an ending of
//! one, `answer/refund`). Names, not ids, so a host writes its rules before any call exists.
//! Who answers is the host's choice ([`Approve`]): a function at once, a person later (the turn
//! waits, saved), or nobody (the call fails with `approval_required` before the tool runs).

use std::collections::BTreeMap;
use std::fmt;

use serde::Serialize;
use serde_json::{Map, Value};

/// The sentence a refusal starts with: the model reads it as the call's result.
pub const DENIED: &str = "The person did not allow this call.";

/// What a tool does to the world, as the record declares it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Effects {
    Reads,
    Changes,
    /// Not declared: every rule treats it as `changes`.
    Unknown,
}

impl Effects {
    pub fn as_str(self) -> &'static str {
        match self {
            Effects::Reads => "reads",
            Effects::Changes => "changes",
            Effects::Unknown => "unknown",
        }
    }

    pub fn parse(text: &str) -> Self {
        match text {
            "reads" => Effects::Reads,
            "changes" => Effects::Changes,
            _ => Effects::Unknown,
        }
    }

    /// Whether the tool may change things: `changes`, or not said.
    pub fn changes(self) -> bool {
        self != Effects::Reads
    }
}

/// Which calls a person is asked about, beyond those the check confirms.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub enum Rule {
    /// Tools that change things, or say nothing.
    #[default]
    Changes,
    /// Every call.
    All,
    /// The tools with these names, and the calls at these approval paths or path endings.
    Only(Vec<String>),
}

impl Rule {
    /// Reads a rule as hosts write it: `changes`, `all`, or names and paths separated by commas.
    pub fn parse(text: &str) -> Self {
        match text.trim() {
            "changes" => Rule::Changes,
            "all" => Rule::All,
            list => Rule::Only(
                list.split(',')
                    .map(str::trim)
                    .filter(|s| !s.is_empty())
                    .map(str::to_string)
                    .collect(),
            ),
        }
    }

    /// Whether the rule names a call of the tool at `path` (which ends with the tool's name).
    pub fn names(&self, path: &str, effects: Effects) -> bool {
        match self {
            Rule::Changes => effects.changes(),
            Rule::All => true,
            Rule::Only(list) => list.iter().any(|entry| path_ends_with(path, entry)),
        }
    }

    /// The rule as text, as it is stored and shown.
    pub fn text(&self) -> String {
        match self {
            Rule::Changes => "changes".into(),
            Rule::All => "all".into(),
            Rule::Only(list) => list.join(","),
        }
    }
}

/// Whether `path` is `entry` or ends with `/entry` (a whole segment: `answer/refund` ends
/// `support/answer/refund`, `swer/refund` does not).
pub fn path_ends_with(path: &str, entry: &str) -> bool {
    let entry = entry.trim_matches('/');
    if entry.is_empty() {
        return false;
    }
    path == entry
        || path
            .strip_suffix(entry)
            .is_some_and(|head| head.ends_with('/'))
}

/// A host function's answer, at once.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Verdict {
    Allow,
    /// Refused, with the reason the model reads after [`DENIED`] (none for a bare `false`).
    Deny(Option<String>),
}

impl From<bool> for Verdict {
    fn from(yes: bool) -> Self {
        if yes {
            Verdict::Allow
        } else {
            Verdict::Deny(None)
        }
    }
}

impl From<&str> for Verdict {
    /// A text is a reason to refuse.
    fn from(reason: &str) -> Self {
        Verdict::Deny(Some(reason.to_string()))
    }
}

/// Who answers the approvals of a turn.
pub enum Approve<'a> {
    /// A person, later: the turn waits, saved, for calls the check confirms and calls the
    /// rule names.
    Person(Rule),
    /// A function of the host, at once, about each call that changes things (or says nothing)
    /// and each call the check confirms.
    Function(&'a mut dyn FnMut(&Approval) -> Verdict),
    /// Nobody: a call that needs an approval fails with `approval_required` before it runs.
    Nobody,
}

impl fmt::Debug for Approve<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Approve::Person(rule) => write!(f, "Person({})", rule.text()),
            Approve::Function(_) => f.write_str("Function"),
            Approve::Nobody => f.write_str("Nobody"),
        }
    }
}

impl Approve<'_> {
    /// Whether the approver is asked about this call when the check did not confirm it.
    pub fn names(&self, path: &str, effects: Effects) -> bool {
        match self {
            Approve::Person(rule) => rule.names(path, effects),
            Approve::Function(_) | Approve::Nobody => effects.changes(),
        }
    }
}

/// Where an approval stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ApprovalState {
    Pending,
    Approved,
    Denied,
}

impl ApprovalState {
    pub fn as_str(self) -> &'static str {
        match self {
            ApprovalState::Pending => "pending",
            ApprovalState::Approved => "approved",
            ApprovalState::Denied => "denied",
        }
    }

    pub fn parse(text: &str) -> Self {
        match text {
            "approved" => ApprovalState::Approved,
            "denied" => ApprovalState::Denied,
            _ => ApprovalState::Pending,
        }
    }
}

/// A call that waits for (or had) a person's answer.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Approval {
    pub conversation: String,
    pub turn: u64,
    /// The call's number in its turn (1, 2, … across every step).
    pub invocation: u32,
    pub tool: String,
    /// The programs the call was made within, then the tool: `gardener/write_note`.
    pub path: String,
    pub arguments: Map<String, Value>,
    /// Each argument's origin as the call gave it (absent: `model`).
    pub origins: BTreeMap<String, String>,
    pub effects: Effects,
    /// The question shown to the person.
    pub question: String,
    /// The check's reasons (empty when only the rule asked).
    pub reasons: Vec<String>,
    pub state: ApprovalState,
    pub answered_by: Option<String>,
    /// When it was answered (seconds since the Unix epoch).
    pub answered_at: Option<u64>,
    /// Why, when the person said.
    pub why: Option<String>,
    pub asked: u64,
    /// The history's call number of the check that asked.
    #[serde(skip)]
    pub(crate) step: u32,
    /// The check's confirmation token, when the check confirmed.
    #[serde(skip)]
    pub(crate) confirmation: Option<String>,
}

impl fmt::Display for Approval {
    /// `Approval(gardener/write_note #2, changes)`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "Approval({} #{}, {})",
            self.path,
            self.invocation,
            self.effects.as_str()
        )
    }
}

impl Approval {
    /// What the model reads when the call was refused: [`DENIED`], then the reason.
    pub fn refusal(why: Option<&str>) -> String {
        match why.map(str::trim).filter(|w| !w.is_empty()) {
            Some(why) => format!("{DENIED} {why}"),
            None => DENIED.to_string(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rules_name_tools_paths_and_path_endings() {
        let rule = Rule::parse("support/answer/refund, send_email");
        assert!(rule.names("support/answer/refund", Effects::Changes));
        assert!(rule.names("desk/send_email", Effects::Reads));
        assert!(!rule.names("support/refund", Effects::Changes));
        let ending = Rule::parse("answer/refund");
        assert!(ending.names("support/answer/refund", Effects::Changes));
        assert!(!ending.names("support/reanswer/refund", Effects::Changes));
        assert!(!ending.names("support/answer/refund_all", Effects::Changes));
        assert!(Rule::Changes.names("g/write_note", Effects::Changes));
        assert!(Rule::Changes.names("g/mystery", Effects::Unknown));
        assert!(!Rule::Changes.names("g/read_note", Effects::Reads));
        assert!(Rule::All.names("g/read_note", Effects::Reads));
        assert_eq!(Rule::parse("all"), Rule::All);
        assert_eq!(Rule::parse(" changes "), Rule::Changes);
    }

    #[test]
    fn a_refusal_reads_as_the_sentence_then_the_reason() {
        assert_eq!(
            Approval::refusal(Some("not today")),
            "The person did not allow this call. not today"
        );
        assert_eq!(
            Approval::refusal(None),
            "The person did not allow this call."
        );
        assert_eq!(
            Verdict::from("only todo.md"),
            Verdict::Deny(Some("only todo.md".into()))
        );
        assert_eq!(Verdict::from(false), Verdict::Deny(None));
        assert_eq!(Verdict::from(true), Verdict::Allow);
    }
}
