//! The session a caller carries: its agent, its id, and the signed history of entries.
//!
//! The runtime keeps no state between checks: every check reads the history the caller hands
//! in, verifies it (`history`), and appends the call's entry. The whole history serialises to
//! JSON and back unchanged (`serde`), so a caller may store it anywhere.
//!
//! The entries are read-only outside the runtime: a history changes only by the runtime's own
//! appends (each signed as it is written) or by being read from JSON or from parts, which starts
//! it unverified. So a session remembers how much of its history it has verified, with which key
//! ([`Verified`]): a check verifies only the entries it has not seen, and a history read from
//! outside is verified in full at its first check.

use std::collections::BTreeMap;
use std::sync::Arc;

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use smol_str::SmolStr;

/// One conversation with one agent.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(from = "Stored")]
pub struct Session {
    /// The agent the session belongs to.
    pub agent: String,
    /// The session's id; the first link of the history's signature chain.
    pub id: String,
    #[serde(default)]
    entries: Vec<Entry>,
    /// Set when the history read from JSON was not a history (an entry edited into a shape no
    /// check writes): the next check answers `history_invalid`. Never serialised.
    #[serde(skip)]
    pub tampered: bool,
    /// How much of `entries` is known to verify. Never serialised: a history read from outside
    /// starts unverified.
    #[serde(skip)]
    pub(crate) verified: Verified,
    /// A buffer the check writes the call's bytes into, kept from one check to the next (no
    /// allocation per check). Never serialised, compared or cloned.
    #[serde(skip)]
    pub(crate) scratch: Scratch,
    /// Where the allowed calls, the turns and the outcomes lie in `entries`. Never serialised.
    #[serde(skip)]
    index: Index,
    /// The tokens of the first entries as bytes, when the runtime signed those entries itself
    /// (INVARIANT: at most as many as `entries`, each the bytes `entries[i].token()` encodes): the
    /// next entry is signed after the last token's bytes, and reading them here saves decoding
    /// its text. Never serialised.
    #[serde(skip)]
    raw_tokens: Vec<[u8; 32]>,
    /// The head the host keeps for this session where the caller cannot write it (a state
    /// folder, a database): a history behind it — cut back, or grown from an older copy — is
    /// `history_invalid`. Never serialised: it is not the caller's to carry.
    #[serde(skip)]
    anchor: Option<Head>,
}

/// A session's head: how many entries its history has, and the token of the last one (empty
/// for an empty history). Kept by the host after every check and report, it anchors the
/// session: a later history must extend it ([`Session::follows_anchor`]).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Head {
    pub entries: u64,
    pub token: String,
}

/// A session as stored: what the JSON holds. Reading one builds the session's [`Index`].
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Stored {
    agent: String,
    id: String,
    #[serde(default)]
    entries: Vec<Entry>,
}

impl From<Stored> for Session {
    fn from(stored: Stored) -> Self {
        Session::from_parts(stored.agent, stored.id, stored.entries)
    }
}

/// The positions in a history of the entries the checks look for: the calls, the allowed calls
/// (only they can have run or count), the person's turns and the reported outcomes, each in
/// order.
///
/// INVARIANT: derived from the session's entries, and changed with them by every change the
/// session makes (`push_signed`, `truncate`, `clear`, and building a session from parts or JSON),
/// so a check finds these entries without scanning the whole history.
#[derive(Debug, Clone, Default)]
struct Index {
    calls: Vec<usize>,
    allowed: Vec<usize>,
    turns: Vec<usize>,
    outcomes: Vec<usize>,
}

impl Index {
    fn of(entries: &[Entry]) -> Self {
        let mut index = Self::default();
        for (at, entry) in entries.iter().enumerate() {
            index.push(at, entry);
        }
        index
    }

    /// Notes the entry at position `at`, the newest.
    fn push(&mut self, at: usize, entry: &Entry) {
        match entry {
            Entry::Call(c) => {
                self.calls.push(at);
                if c.decision == Decision::Allow {
                    self.allowed.push(at);
                }
            }
            Entry::Read { .. } | Entry::Reply { .. } => self.turns.push(at),
            Entry::Outcome { .. } => self.outcomes.push(at),
        }
    }

    /// Forgets the entries from position `len` on.
    fn truncate(&mut self, len: usize) {
        for list in [
            &mut self.calls,
            &mut self.allowed,
            &mut self.turns,
            &mut self.outcomes,
        ] {
            let keep = list.partition_point(|&at| at < len);
            list.truncate(keep);
        }
    }
}

/// The session's scratch buffer: a clone starts empty, and it prints as its name only.
#[derive(Default)]
pub(crate) struct Scratch(pub Vec<u8>);

impl Clone for Scratch {
    fn clone(&self) -> Self {
        Self(Vec::new())
    }
}

impl std::fmt::Debug for Scratch {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Scratch")
    }
}

/// The verified prefix of a session's history: its length, the calls in it, the key it was
/// verified with (by fingerprint), and the session's id and agent it was verified for.
///
/// INVARIANT: `entries[..len]` verifies with the key whose fingerprint is `key`, for a session
/// with this `id` and `agent` (the chain starts from them), and holds `calls` call entries. Only
/// `history::verify_session` and `history::append` raise `len`; every other change to `entries`
/// lowers it to what still holds. A session whose `id` or `agent` no longer equals the memo's
/// is verified in full again.
#[derive(Debug, Clone, Default)]
pub(crate) struct Verified {
    pub len: usize,
    pub calls: u32,
    pub key: [u8; 16],
    pub id: String,
    pub agent: String,
}

impl Verified {
    /// Whether the memo was made for this session's id and agent with this key.
    pub fn holds_for(&self, key: [u8; 16], id: &str, agent: &str) -> bool {
        self.key == key && self.id == id && self.agent == agent
    }
}

/// Two sessions are equal when their agent, id and history are: what has been verified of them
/// is not part of their value.
impl PartialEq for Session {
    fn eq(&self, other: &Self) -> bool {
        self.agent == other.agent
            && self.id == other.id
            && self.entries == other.entries
            && self.tampered == other.tampered
    }
}

/// One entry of the history. Every entry carries `token`: the signature of the chain up to it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum Entry {
    /// A turn the person typed.
    Read { text: String, token: String },
    /// The person's answer to a question.
    Reply { text: String, token: String },
    /// A checked call.
    Call(CallEntry),
    /// The caller's report of what became of call `step`.
    Outcome {
        step: u32,
        outcome: Outcome,
        /// What the call returned; a result of `null` is `Some(Value::Null)`, written and read
        /// back as `"result": null`, and absent only when nothing was reported.
        #[serde(
            default,
            skip_serializing_if = "Option::is_none",
            deserialize_with = "present"
        )]
        result: Option<Value>,
        token: String,
    },
}

/// A field that is present: `null` included, read as `Some(Value::Null)` (a missing field is
/// `None` through `default`).
fn present<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<Value>, D::Error> {
    Value::deserialize(d).map(Some)
}

impl Entry {
    pub fn token(&self) -> &str {
        match self {
            Entry::Read { token, .. }
            | Entry::Reply { token, .. }
            | Entry::Outcome { token, .. } => token,
            Entry::Call(c) => &c.token,
        }
    }

    pub(crate) fn set_token(&mut self, value: String) {
        match self {
            Entry::Read { token, .. }
            | Entry::Reply { token, .. }
            | Entry::Outcome { token, .. } => *token = value,
            Entry::Call(c) => c.token = value,
        }
    }
}

/// Each argument's marks (and the call's, under `call`), ordered by argument name.
///
/// A call has a few arguments with marks at most, so they are kept as a sorted list of pairs:
/// no tree node to allocate and free on every check. It serialises as a JSON object with its
/// keys in order, as a `BTreeMap` would; read back, a repeated key keeps its last list.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(from = "BTreeMap<SmolStr, Vec<SmolStr>>")]
pub struct Marks {
    entries: Vec<(SmolStr, Vec<SmolStr>)>,
}

impl Marks {
    /// No marks.
    pub const fn new() -> Self {
        Self {
            entries: Vec::new(),
        }
    }

    /// The list of `name`, added (empty, in order) when it has none yet.
    fn list(&mut self, name: &str) -> Option<&mut Vec<SmolStr>> {
        let at = match self.entries.binary_search_by(|(k, _)| k.as_str().cmp(name)) {
            Ok(at) => at,
            Err(at) => {
                self.entries.insert(at, (SmolStr::new(name), Vec::new()));
                at
            }
        };
        self.entries.get_mut(at).map(|(_, list)| list)
    }

    /// Adds `mark` to the marks of `name`.
    pub fn push(&mut self, name: &str, mark: SmolStr) {
        if let Some(list) = self.list(name) {
            list.push(mark);
        }
    }

    /// Adds `marks` to the marks of `name`.
    pub fn extend(&mut self, name: &str, marks: impl IntoIterator<Item = SmolStr>) {
        if let Some(list) = self.list(name) {
            list.extend(marks);
        }
    }

    /// The marks of `name`.
    pub fn get(&self, name: &str) -> Option<&[SmolStr]> {
        self.entries
            .binary_search_by(|(k, _)| k.as_str().cmp(name))
            .ok()
            .and_then(|at| self.entries.get(at))
            .map(|(_, v)| v.as_slice())
    }

    /// Each name with its marks, ordered by name.
    pub fn iter(&self) -> impl Iterator<Item = (&SmolStr, &Vec<SmolStr>)> {
        self.entries.iter().map(|(k, v)| (k, v))
    }

    /// Each name's list of marks.
    pub fn values_mut(&mut self) -> impl Iterator<Item = &mut Vec<SmolStr>> {
        self.entries.iter_mut().map(|(_, v)| v)
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    pub fn len(&self) -> usize {
        self.entries.len()
    }
}

impl From<BTreeMap<SmolStr, Vec<SmolStr>>> for Marks {
    fn from(map: BTreeMap<SmolStr, Vec<SmolStr>>) -> Self {
        Self {
            entries: map.into_iter().collect(),
        }
    }
}

impl Serialize for Marks {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_map(self.entries.iter().map(|(k, v)| (k, v)))
    }
}

/// A checked call, as the history records it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CallEntry {
    /// The call's number: call entries count from 1.
    pub step: u32,
    /// The tool, agent, reasons and marks are short words: kept inline (up to 23 bytes), they
    /// cost no allocation to write or to drop.
    pub tool: SmolStr,
    pub agent: SmolStr,
    /// The arguments as the call gave them (shared with the [`Call`](crate::Call) they came
    /// from: the entry takes no copy of them).
    pub arguments: Arc<Map<String, Value>>,
    /// BLAKE3 of the arguments' canonical JSON, base64url.
    pub digest: String,
    /// Each argument's origin as the call gave it (absent: `model`), shared with the call.
    #[serde(default)]
    pub origins: Arc<BTreeMap<String, String>>,
    /// Each argument's marks (explicit and derived) at the time of the check.
    #[serde(default)]
    pub marks: Marks,
    pub decision: Decision,
    pub reasons: Vec<SmolStr>,
    /// The step this call undoes, when it is an undo.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub undoes: Option<u32>,
    /// When the check ran (seconds since the Unix epoch).
    pub at: u64,
    pub token: String,
}

/// The check's answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Decision {
    Allow,
    Confirm,
    Refuse,
}

impl Decision {
    pub fn as_str(self) -> &'static str {
        match self {
            Decision::Allow => "allow",
            Decision::Confirm => "confirm",
            Decision::Refuse => "refuse",
        }
    }
}

/// What became of a call, as the caller reports it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Outcome {
    Ran,
    Failed,
    OutcomeUnknown,
    Compensated,
}

impl Outcome {
    pub fn as_str(self) -> &'static str {
        match self {
            Outcome::Ran => "ran",
            Outcome::Failed => "failed",
            Outcome::OutcomeUnknown => "outcome_unknown",
            Outcome::Compensated => "compensated",
        }
    }

    /// Parses the words of the command line and the API.
    pub fn parse(text: &str) -> Option<Self> {
        match text {
            "ran" => Some(Outcome::Ran),
            "failed" => Some(Outcome::Failed),
            "outcome_unknown" => Some(Outcome::OutcomeUnknown),
            "compensated" => Some(Outcome::Compensated),
            _ => None,
        }
    }
}

impl Session {
    /// A new, empty session.
    pub fn new(agent: impl Into<String>, id: impl Into<String>) -> Self {
        Self {
            agent: agent.into(),
            id: id.into(),
            entries: Vec::new(),
            tampered: false,
            verified: Verified::default(),
            scratch: Scratch::default(),
            index: Index::default(),
            raw_tokens: Vec::new(),
            anchor: None,
        }
    }

    /// A session from stored parts: its history is verified at its first check, like one read
    /// from JSON.
    pub fn from_parts(
        agent: impl Into<String>,
        id: impl Into<String>,
        entries: Vec<Entry>,
    ) -> Self {
        Self {
            index: Index::of(&entries),
            raw_tokens: Vec::new(),
            entries,
            ..Self::new(agent, id)
        }
    }

    /// The session's head: its number of entries and the last one's token.
    pub fn head(&self) -> Head {
        Head {
            entries: self.entries.len() as u64,
            token: self
                .entries
                .last()
                .map(Entry::token)
                .unwrap_or("")
                .to_string(),
        }
    }

    /// Anchors the session at `head`, the head the host kept for it: from now on its history
    /// verifies only while it extends that head.
    pub fn set_anchor(&mut self, head: Head) {
        self.anchor = Some(head);
    }

    /// The head this session is anchored at, if the host gave one.
    pub fn anchor(&self) -> Option<&Head> {
        self.anchor.as_ref()
    }

    /// Whether the history extends its anchor: it has at least the anchor's entries, and the
    /// one at the anchor's end carries the anchor's token (so, the chain being verified, every
    /// entry up to there is the one anchored). True when the host gave no anchor.
    pub fn follows_anchor(&self) -> bool {
        let Some(head) = &self.anchor else {
            return true;
        };
        let Ok(count) = usize::try_from(head.entries) else {
            return false;
        };
        match count.checked_sub(1) {
            None => true,
            Some(last) => self
                .entries
                .get(last)
                .is_some_and(|e| e.token() == head.token),
        }
    }

    /// Appends entries read from outside (a store's rows, written by another process): like a
    /// history read from JSON they are verified at the next check, and only they, since what
    /// was verified of the history before them stays verified.
    pub fn extend(&mut self, entries: impl IntoIterator<Item = Entry>) {
        for entry in entries {
            self.index.push(self.entries.len(), &entry);
            self.entries.push(entry);
        }
    }

    /// The history's entries, oldest first.
    pub fn entries(&self) -> &[Entry] {
        &self.entries
    }

    /// The history's entries, to keep elsewhere (the session is used up).
    pub fn into_entries(self) -> Vec<Entry> {
        self.entries
    }

    /// Cuts the history back to its first `len` entries. A prefix of a signed history is a
    /// signed history, so what was verified of it stays verified.
    pub fn truncate(&mut self, len: usize) {
        if len < self.entries.len() {
            if self.verified.len > len {
                // The verified prefix loses the calls among the entries cut from it.
                let cut = self
                    .entries
                    .get(len..self.verified.len)
                    .unwrap_or(&[])
                    .iter()
                    .filter(|e| matches!(e, Entry::Call(_)))
                    .count() as u32;
                self.verified.len = len;
                self.verified.calls = self.verified.calls.saturating_sub(cut);
            }
            self.entries.truncate(len);
            self.index.truncate(len);
            self.raw_tokens.truncate(len);
        }
    }

    /// The last entry's token as bytes, when the runtime signed it itself (see `raw_tokens`).
    pub(crate) fn last_raw_token(&self) -> Option<&[u8; 32]> {
        match self.raw_tokens.len() == self.entries.len() {
            true => self.raw_tokens.last(),
            false => None,
        }
    }

    /// Drops the whole history (after it failed to verify). The session starts again at step 0
    /// with no anchor: the host gives it a new id, since the old one stays anchored where it was.
    pub(crate) fn clear(&mut self) {
        self.anchor = None;
        self.entries.clear();
        self.index = Index::default();
        self.raw_tokens.clear();
        self.tampered = false;
        self.verified = Verified::default();
    }

    /// Appends an entry already signed over the chain (`history::append`).
    pub(crate) fn push_signed(&mut self, entry: Entry, token: [u8; 32], key: [u8; 16]) {
        // An empty history is verified under any key, for any id and agent.
        let empty = self.entries.is_empty();
        let whole = self.verified.len == self.entries.len()
            && (empty || self.verified.holds_for(key, &self.id, &self.agent));
        let call = matches!(entry, Entry::Call(_));
        self.index.push(self.entries.len(), &entry);
        if self.raw_tokens.len() == self.entries.len() {
            self.raw_tokens.push(token);
        }
        self.entries.push(entry);
        if whole {
            let memo = &mut self.verified;
            if empty {
                memo.calls = 0;
                memo.key = key;
                if memo.id != self.id {
                    memo.id.clone_from(&self.id);
                }
                if memo.agent != self.agent {
                    memo.agent.clone_from(&self.agent);
                }
            }
            memo.len = self.entries.len();
            memo.calls += u32::from(call);
        }
    }

    /// Reads a history from JSON. JSON that is an object but not a history as checks write it
    /// (a field added, a type changed) gives an empty session marked `tampered`, so the next
    /// check refuses it with `history_invalid`; `None` only when it is not a JSON object at all.
    pub fn from_json(value: Value) -> Option<Self> {
        let Value::Object(map) = &value else {
            return None;
        };
        let agent = map
            .get("agent")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_string();
        let id = map
            .get("id")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_string();
        match serde_json::from_value::<Session>(value) {
            Ok(session) => Some(session),
            Err(_) => Some(Self {
                tampered: true,
                ..Self::new(agent, id)
            }),
        }
    }

    /// The history as JSON.
    pub fn to_json(&self) -> Value {
        serde_json::to_value(self).unwrap_or(Value::Null)
    }

    /// The call entries, in order.
    pub fn calls(&self) -> impl DoubleEndedIterator<Item = &CallEntry> {
        self.index.calls.iter().filter_map(|&at| self.call_at(at))
    }

    /// The allowed call entries, in order: the only ones that can have run, or count towards a
    /// limit or an order rule.
    pub fn allowed_calls(&self) -> impl DoubleEndedIterator<Item = &CallEntry> {
        self.index.allowed.iter().filter_map(|&at| self.call_at(at))
    }

    /// The allowed call entries of the current run (after the last turn), in order.
    pub fn allowed_run_calls(&self) -> impl DoubleEndedIterator<Item = &CallEntry> {
        let start = self.run_start();
        let from = self.index.allowed.partition_point(|&at| at < start);
        self.index
            .allowed
            .get(from..)
            .unwrap_or(&[])
            .iter()
            .filter_map(|&at| self.call_at(at))
    }

    fn call_at(&self, at: usize) -> Option<&CallEntry> {
        match self.entries.get(at) {
            Some(Entry::Call(c)) => Some(c),
            _ => None,
        }
    }

    /// The number the next call gets.
    pub fn next_step(&self) -> u32 {
        if self.verified.len == self.entries.len() {
            return self.verified.calls + 1;
        }
        self.index.calls.len() as u32 + 1
    }

    /// The call entry of `step`.
    pub fn call(&self, step: u32) -> Option<&CallEntry> {
        // In a history verified whole, the calls are numbered 1, 2, … in order (verification
        // checks it, and the runtime's appends number them so), so call `step` is the
        // `step`-th; in any other, the first so numbered is searched for.
        if self.verified.len == self.entries.len() && !self.entries.is_empty() {
            let nth = (step as usize)
                .checked_sub(1)
                .and_then(|i| self.index.calls.get(i));
            return nth.and_then(|&at| self.call_at(at));
        }
        self.calls().find(|c| c.step == step)
    }

    /// The latest reported outcome of `step`, with its result.
    pub fn outcome(&self, step: u32) -> Option<(Outcome, Option<&Value>)> {
        self.index
            .outcomes
            .iter()
            .rev()
            .find_map(|&at| match self.entries.get(at) {
                Some(Entry::Outcome {
                    step: s,
                    outcome,
                    result,
                    ..
                }) if *s == step => Some((*outcome, result.as_ref())),
                _ => None,
            })
    }

    /// Whether call `step` ran: it was allowed and its latest report says `ran`.
    pub fn ran(&self, call: &CallEntry) -> bool {
        call.decision == Decision::Allow
            && matches!(self.outcome(call.step), Some((Outcome::Ran, _)))
    }

    /// The reported result of a call that ran.
    pub fn result_of(&self, call: &CallEntry) -> Option<&Value> {
        if call.decision != Decision::Allow {
            return None;
        }
        match self.outcome(call.step) {
            Some((Outcome::Ran, result)) => result,
            _ => None,
        }
    }

    /// Index of the first entry of the current run (the entries after the last turn).
    pub fn run_start(&self) -> usize {
        self.index.turns.last().map_or(0, |&at| at + 1)
    }

    /// The texts the person wrote in this history.
    pub fn turns(&self) -> impl Iterator<Item = &str> {
        self.index
            .turns
            .iter()
            .filter_map(|&at| match self.entries.get(at) {
                Some(Entry::Read { text, .. } | Entry::Reply { text, .. }) => Some(text.as_str()),
                _ => None,
            })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn marks_serialise_and_read_back_as_a_sorted_map_does() {
        let mut marks = Marks::new();
        let mut map: BTreeMap<SmolStr, Vec<SmolStr>> = BTreeMap::new();
        for (name, mark) in [
            ("to", "untrusted:read_inbox"),
            ("amount", "low"),
            ("to", "untrusted"),
            ("call", "agent:a-name-longer-than-twenty-three-bytes"),
            ("amount", "medium"),
        ] {
            marks.push(name, SmolStr::new(mark));
            map.entry(SmolStr::new(name))
                .or_default()
                .push(SmolStr::new(mark));
        }
        marks.extend("note", [SmolStr::new("high")]);
        map.entry(SmolStr::new("note"))
            .or_default()
            .push(SmolStr::new("high"));
        let json = serde_json::to_string(&marks).unwrap_or_default();
        assert_eq!(json, serde_json::to_string(&map).unwrap_or_default());
        assert_eq!(marks.len(), 4);
        assert_eq!(
            marks.get("amount"),
            Some(&[SmolStr::new("low"), SmolStr::new("medium")][..])
        );
        assert_eq!(marks.get("absent"), None);
        let names: Vec<&str> = marks.iter().map(|(k, _)| k.as_str()).collect();
        assert_eq!(names, ["amount", "call", "note", "to"]);
        let back: Marks = serde_json::from_str(&json).unwrap_or_default();
        assert_eq!(back, marks);
        // A repeated key keeps its last list, as a map read from JSON does.
        let repeated: Marks = serde_json::from_str(r#"{"b":["low"],"a":["high"],"b":["medium"]}"#)
            .unwrap_or_default();
        assert_eq!(
            serde_json::to_string(&repeated).unwrap_or_default(),
            r#"{"a":["high"],"b":["medium"]}"#
        );
        assert!(Marks::new().is_empty());
        assert_eq!(
            serde_json::to_string(&Marks::new()).unwrap_or_default(),
            "{}"
        );
    }

    #[test]
    fn a_field_added_to_an_entry_does_not_parse() {
        let call = r#"{"agent":"a","id":"s","entries":[{"kind":"call","step":1,"tool":"t","agent":"a","arguments":{},"digest":"d","decision":"allow","reasons":["allow"],"at":0,"token":"x"}]}"#;
        assert!(serde_json::from_str::<Session>(call).is_ok());
        let extra = call.replace(r#""tool":"t""#, r#""tool":"t","note":"added""#);
        assert!(serde_json::from_str::<Session>(&extra).is_err());
        let read = r#"{"agent":"a","id":"s","entries":[{"kind":"read","text":"hi","token":"x","tool":"get_order"}]}"#;
        assert!(serde_json::from_str::<Session>(read).is_err());
    }

    #[test]
    fn entries_extended_from_outside_are_verified_and_only_they() {
        let key = crate::Key::new("k", [3; 32], u64::MAX).for_record(&[1; 32]);
        let env = crate::Env { key: &key, now: 1 };
        let mut theirs = Session::new("a", "s");
        crate::read(env, &mut theirs, "one");
        crate::read(env, &mut theirs, "two");
        // Another holder of the session, verified up to one entry, reads the second from outside.
        let mut mine = Session::new("a", "s");
        crate::read(env, &mut mine, "one");
        assert_eq!(mine.verified.len, 1);
        mine.extend(theirs.entries().get(1..).unwrap_or(&[]).to_vec());
        assert_eq!(mine.verified.len, 1);
        assert_eq!(mine.turns().collect::<Vec<_>>(), ["one", "two"]);
        assert!(crate::history::verify_session(&key, &mut mine));
        assert_eq!(mine.verified.len, 2);
        // An entry edited outside does not verify.
        let mut edited = theirs.entries().get(1..).unwrap_or(&[]).to_vec();
        if let Some(Entry::Read { text, .. }) = edited.first_mut() {
            *text = "changed".into();
        }
        let mut other = Session::new("a", "s");
        crate::read(env, &mut other, "one");
        other.extend(edited);
        assert!(!crate::history::verify_session(&key, &mut other));
    }

    /// An entry from a small code: calls (allowed or not, some with a step other than their
    /// place), turns and outcomes; no tokens (the index does not read them).
    fn entry(code: u8, step: u32) -> Entry {
        let call = |decision, step| {
            Entry::Call(CallEntry {
                step,
                tool: "t".into(),
                agent: "a".into(),
                arguments: Arc::default(),
                digest: String::new(),
                origins: Arc::default(),
                marks: Marks::new(),
                decision,
                reasons: Vec::new(),
                undoes: None,
                at: 0,
                token: String::new(),
            })
        };
        match code % 7 {
            0 => call(Decision::Allow, step),
            1 => call(Decision::Confirm, step),
            2 => call(Decision::Refuse, step),
            3 => call(Decision::Allow, step + 2),
            4 => Entry::Read {
                text: format!("turn {step}"),
                token: String::new(),
            },
            5 => Entry::Reply {
                text: format!("yes {step}"),
                token: String::new(),
            },
            _ => Entry::Outcome {
                step: step % 4 + 1,
                outcome: if step.is_multiple_of(2) {
                    Outcome::Ran
                } else {
                    Outcome::Failed
                },
                result: None,
                token: String::new(),
            },
        }
    }

    /// The indexed answers equal those of a scan of the entries.
    fn same_as_a_scan(s: &Session) -> Result<(), proptest::test_runner::TestCaseError> {
        let calls: Vec<&CallEntry> = s
            .entries()
            .iter()
            .filter_map(|e| match e {
                Entry::Call(c) => Some(c),
                _ => None,
            })
            .collect();
        proptest::prop_assert_eq!(s.calls().collect::<Vec<_>>(), calls.clone());
        let allowed: Vec<&CallEntry> = calls
            .iter()
            .copied()
            .filter(|c| c.decision == Decision::Allow)
            .collect();
        proptest::prop_assert_eq!(s.allowed_calls().collect::<Vec<_>>(), allowed);
        let turns: Vec<&str> = s
            .entries()
            .iter()
            .filter_map(|e| match e {
                Entry::Read { text, .. } | Entry::Reply { text, .. } => Some(text.as_str()),
                _ => None,
            })
            .collect();
        proptest::prop_assert_eq!(s.turns().collect::<Vec<_>>(), turns);
        let start = s
            .entries()
            .iter()
            .rposition(|e| matches!(e, Entry::Read { .. } | Entry::Reply { .. }))
            .map_or(0, |i| i + 1);
        proptest::prop_assert_eq!(s.run_start(), start);
        let run_allowed: Vec<&CallEntry> = s
            .entries()
            .get(start..)
            .unwrap_or(&[])
            .iter()
            .filter_map(|e| match e {
                Entry::Call(c) if c.decision == Decision::Allow => Some(c),
                _ => None,
            })
            .collect();
        proptest::prop_assert_eq!(s.allowed_run_calls().collect::<Vec<_>>(), run_allowed);
        for step in 0..12 {
            proptest::prop_assert_eq!(s.call(step), calls.iter().copied().find(|c| c.step == step));
            let outcome = s.entries().iter().rev().find_map(|e| match e {
                Entry::Outcome {
                    step: at,
                    outcome,
                    result,
                    ..
                } if *at == step => Some((*outcome, result.as_ref())),
                _ => None,
            });
            proptest::prop_assert_eq!(s.outcome(step), outcome);
        }
        proptest::prop_assert_eq!(s.next_step(), calls.len() as u32 + 1);
        Ok(())
    }

    proptest::proptest! {
        #[test]
        fn the_index_answers_as_a_scan_of_the_entries(
            codes in proptest::collection::vec(0u8..7, 0..16),
            cuts in proptest::collection::vec(0usize..16, 0..4),
        ) {
            let entries: Vec<Entry> = codes
                .iter()
                .enumerate()
                .map(|(i, &code)| entry(code, i as u32 + 1))
                .collect();
            // Appended as the runtime appends: calls numbered 1, 2, … (a history read from parts
            // or JSON may number them otherwise, and is not verified).
            let mut s = Session::from_parts("a", "s", Vec::new());
            for &code in &codes {
                let code = if code == 3 { 0 } else { code };
                s.push_signed(entry(code, s.next_step()), [0; 32], [0; 16]);
                same_as_a_scan(&s)?;
            }
            let read: Session = serde_json::from_value(s.to_json()).unwrap_or_else(|_| Session::new("", ""));
            proptest::prop_assert_eq!(&read, &s);
            same_as_a_scan(&read)?;
            same_as_a_scan(&Session::from_parts("a", "s", entries.clone()))?;
            for cut in cuts {
                s.truncate(cut);
                same_as_a_scan(&s)?;
                let code = if cut % 7 == 3 { 0 } else { cut as u8 };
                s.push_signed(entry(code, s.next_step()), [0; 32], [0; 16]);
                same_as_a_scan(&s)?;
            }
            s.clear();
            same_as_a_scan(&s)?;
        }
    }
}
