//! Running a turn: the host's program calls the model and the tools through a [`Turn`], and the
//! store journals, asks, waits and replays.
//!
//! - A model request is recorded `started` before it is sent and `done` with its reply after. A
//!   request made before (the same request, the same time over) gets its recorded reply: nothing
//!   is paid twice.
//! - A tool call gets the next invocation number of the turn (1, 2, … across every step). It is
//!   checked under the store (the conversation's lock held), asked about when it needs an
//!   approval, and then run: a call that changes things (or says nothing) is recorded `started`
//!   in the check's own transaction, before it runs, and `done` with its result after; a read
//!   runs at once, and its result is recorded with the next write. A call that ran before gets
//!   its recorded result: nothing runs twice.
//! - A call whose last record is `started` may have run (the process died while it ran): it is
//!   never run again on its own. The turn is `interrupted` until a person says what it returned
//!   or asks for a rerun ([`Store::resolve`]), or abandons the turn.
//!
//! A resumed turn runs the program again with the same input and earlier turns; its records go
//! on as a later writer's (the turn's `writer` counts its runs).

use std::collections::{BTreeMap, HashMap};

use serde::Serialize;
use serde_json::{Map, Value};
use stalwart_host::HostError;
use stalwart_record::ArchivedRecordBody;
use stalwart_runtime::{Call, Decision, Env, Outcome, RecordKey, Session};

mod hosted;

use crate::approval::{Approval, ApprovalState, Approve, Effects, Verdict};
use crate::codes::{HISTORY_INVALID, PROGRAM_DIVERGED, TURN_STATE};
use crate::db::{Param, Tx, TxError};
use crate::store::{Store, conversation_row, int, missing, now, read_into};
use crate::turns::{
    JournalRecord, TurnState, Unfinished, approvals_of, earlier_turns, journal_of, turn_of,
    unfinished_of,
};

/// What a turn runs under: the record, its key, and who answers approvals.
pub struct Guard<'a> {
    pub body: &'a ArchivedRecordBody,
    pub key: &'a RecordKey,
    pub approve: Approve<'a>,
}

impl std::fmt::Debug for Guard<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Guard")
            .field("approve", &self.approve)
            .finish_non_exhaustive()
    }
}

/// Why a turn's program stopped before its answer.
#[derive(Debug, Clone, PartialEq)]
pub enum Stop {
    /// A call waits for a person: the turn is saved, `waiting`.
    Waiting(Vec<Approval>),
    /// A call a crash left unfinished has no resolution yet: the turn is `interrupted`.
    Interrupted(Vec<Unfinished>),
    /// A call needs an approval and nobody can give one: it did not run.
    ApprovalRequired(Box<Approval>),
    /// The program or its model failed: the turn is `interrupted` and may be resumed.
    Failed(String),
    /// The store failed (the turn's records stand as last committed).
    Store(HostError),
}

impl From<HostError> for Stop {
    fn from(e: HostError) -> Self {
        Stop::Store(e)
    }
}

/// How a run of a turn ended.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "state", rename_all = "snake_case")]
pub enum TurnEnd {
    Done {
        answer: String,
    },
    Waiting {
        approvals: Vec<Approval>,
    },
    Interrupted {
        unfinished: Vec<Unfinished>,
        why: Option<String>,
    },
    Abandoned {
        why: String,
    },
}

/// A run of a turn: which turn, and how it ended.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TurnRun {
    pub conversation: String,
    pub turn: u64,
    pub writer: u64,
    pub end: TurnEnd,
}

/// How a tool call ended, as its program sees it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ReplyKind {
    /// The tool ran; the value is its result.
    Ran,
    /// The tool ran and failed; the value is its error.
    Failed,
    /// A person (or the host's function) did not allow it.
    Denied,
    /// The check refused it.
    Refused,
}

/// A tool call's reply.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Reply {
    pub invocation: u32,
    pub kind: ReplyKind,
    pub value: Value,
    /// Whether it was read from the journal (an earlier run's), not made now.
    pub replayed: bool,
}

impl Reply {
    /// What the model reads: the result (a text as it is, anything else as JSON).
    pub fn text(&self) -> String {
        match &self.value {
            Value::String(s) => s.clone(),
            other => other.to_string(),
        }
    }
}

/// The host's program for a turn: it calls the model and the tools through the turn, and
/// returns the turn's answer. Run again on resume, it must make the same requests given the
/// same input and replies (one that does not makes new requests: they cost, never mislead).
pub trait Program {
    fn run(&mut self, turn: &mut Turn<'_, '_>) -> Result<String, Stop>;
}

impl<F: FnMut(&mut Turn<'_, '_>) -> Result<String, Stop>> Program for F {
    fn run(&mut self, turn: &mut Turn<'_, '_>) -> Result<String, Stop> {
        self(turn)
    }
}

/// A tool's code: given the arguments and the call's invocation number, its result or error.
pub type ToolFn<'f> = dyn FnMut(&Map<String, Value>, u32) -> Result<Value, String> + 'f;

/// A model: given a request, its reply or error.
pub type ModelFn<'f> = dyn FnMut(&Value) -> Result<Value, String> + 'f;

/// A read's result, recorded with the next write.
#[derive(Debug, Clone)]
struct Pending {
    record: JournalRecord,
    outcome: Outcome,
}

/// One run of a turn, as its program drives it.
pub struct Turn<'s, 'g> {
    store: &'s mut Store,
    guard: &'s mut Guard<'g>,
    conversation: String,
    agent: String,
    number: u64,
    input: String,
    writer: u64,
    earlier: Vec<(String, Option<String>)>,
    journal: Vec<JournalRecord>,
    approvals: Vec<Approval>,
    next_invocation: u32,
    model_seen: HashMap<String, u64>,
    path: Vec<String>,
    pending: Vec<Pending>,
}

impl std::fmt::Debug for Turn<'_, '_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Turn")
            .field("conversation", &self.conversation)
            .field("number", &self.number)
            .field("writer", &self.writer)
            .finish_non_exhaustive()
    }
}

fn abort(code: stalwart_host::Code, message: String) -> TxError<HostError> {
    TxError::Abort(HostError::new(code, message))
}

fn digest(value: &Value) -> String {
    stalwart_runtime::canonical::base64url(blake3::hash(value.to_string().as_bytes()).as_bytes())
}

impl<'s, 'g> Turn<'s, 'g> {
    /// The person's words this turn answers.
    pub fn input(&self) -> &str {
        &self.input
    }

    /// The conversation's earlier turns: each input and answer, oldest first.
    pub fn earlier(&self) -> &[(String, Option<String>)] {
        &self.earlier
    }

    pub fn conversation(&self) -> &str {
        &self.conversation
    }

    pub fn number(&self) -> u64 {
        self.number
    }

    /// Which run of the turn this is (1 the first).
    pub fn writer(&self) -> u64 {
        self.writer
    }

    /// Runs `f` as the program `name` (an approval path's segment: calls inside are at
    /// `agent/name/tool`).
    pub fn within<R>(&mut self, name: &str, f: impl FnOnce(&mut Self) -> R) -> R {
        self.path.push(name.to_string());
        let r = f(self);
        self.path.pop();
        r
    }

    fn path_of(&self, tool: &str) -> String {
        let mut parts = vec![self.agent.as_str()];
        parts.extend(self.path.iter().map(String::as_str));
        parts.push(tool);
        parts.join("/")
    }

    /// Asks the model, or answers from the journal when this request was made before.
    pub fn model(&mut self, request: &Value, model: &mut ModelFn<'_>) -> Result<Value, Stop> {
        let digest = digest(request);
        let seen = self.model_seen.entry(digest.clone()).or_insert(0);
        *seen += 1;
        let occurrence = *seen;
        let earlier = self
            .journal
            .iter()
            .find(|r| r.kind == "model" && r.digest == digest && r.occurrence == occurrence)
            .cloned();
        if let Some(r) = &earlier
            && r.state == "done"
        {
            return Ok(r.result.clone().unwrap_or(Value::Null));
        }
        let number = match &earlier {
            Some(r) => r.number,
            None => {
                self.journal
                    .iter()
                    .filter(|r| r.kind == "model")
                    .map(|r| r.number)
                    .max()
                    .unwrap_or(0)
                    + 1
            }
        };
        let record = JournalRecord {
            kind: "model".into(),
            number,
            name: "model".into(),
            input: Value::Null,
            state: "started".into(),
            outcome: None,
            result: None,
            step: None,
            writer: self.writer,
            started: now(),
            done: None,
            resolution: None,
            resolved_by: None,
            digest,
            occurrence,
        };
        if earlier.is_none() {
            self.write(|tx, t| put_record(tx, t.conversation, t.turn, &record))?;
            self.journal.push(record.clone());
        }
        let reply = model(request).map_err(Stop::Failed)?;
        let mut done = record;
        done.state = "done".into();
        done.result = Some(reply.clone());
        done.done = Some(now());
        self.write(|tx, t| put_record(tx, t.conversation, t.turn, &done))?;
        self.remember(done);
        Ok(reply)
    }

    fn remember(&mut self, record: JournalRecord) {
        match self
            .journal
            .iter_mut()
            .find(|r| r.kind == record.kind && r.number == record.number)
        {
            Some(r) => *r = record,
            None => self.journal.push(record),
        }
    }

    /// Runs a transaction on the conversation's session: it takes the lock, writes the reads'
    /// results waiting to be recorded, checks that this process still runs the turn, renews its
    /// lease, then runs `f`.
    fn write<R>(
        &mut self,
        mut f: impl FnMut(&mut dyn Tx, &mut TxCtx<'_>) -> Result<R, TxError<HostError>>,
    ) -> Result<R, Stop> {
        let now = now();
        let lease = now.saturating_add(self.store.lease);
        let number = self.number;
        let pending = self.pending.clone();
        let conversation = self.conversation.clone();
        let key = self.guard.key;
        let r = self.store.with_session(&conversation, |tx, session| {
            let n = tx.exec(
                "UPDATE turns SET lease = $1, updated = $2 WHERE conversation = $3 \
                 AND number = $4 AND owner = $5 AND state = 'running'",
                &[
                    int(lease),
                    int(now),
                    Param::Text(&conversation),
                    int(number),
                    Param::Text(crate::owner::me()),
                ],
            )?;
            if n != 1 {
                return Err(abort(
                    TURN_STATE,
                    format!("turn {number} of `{conversation}` is no longer run by this process"),
                ));
            }
            let env = Env { key, now };
            for p in &pending {
                if let Some(step) = p.record.step {
                    let _ = stalwart_runtime::report(
                        env,
                        session,
                        step,
                        p.outcome,
                        p.record.result.clone(),
                    );
                }
                put_record(tx, &conversation, number, &p.record)?;
            }
            let mut ctx = TxCtx {
                session,
                conversation: &conversation,
                turn: number,
                env,
            };
            f(tx, &mut ctx)
        });
        match r {
            Ok(r) => {
                self.pending.clear();
                Ok(r)
            }
            Err(e) => Err(Stop::Store(e)),
        }
    }

    /// Calls a tool: checked, asked about, journaled and run as the module says; or answered
    /// from the journal when it ran before.
    pub fn tool(&mut self, call: Call, run: &mut ToolFn<'_>) -> Result<Reply, Stop> {
        self.next_invocation += 1;
        let invocation = self.next_invocation;
        let arguments = Value::Object((*call.arguments).clone());
        let recorded = self
            .journal
            .iter()
            .find(|r| r.kind == "tool" && r.number == invocation)
            .cloned();
        if let Some(r) = recorded {
            if r.name != call.tool {
                return Err(Stop::Store(HostError::new(
                    PROGRAM_DIVERGED,
                    format!(
                        "turn {} of `{}` called `{}` as call {invocation}, where it called `{}` \
                         before: its program is not deterministic given its inputs and replies",
                        self.number, self.conversation, call.tool, r.name
                    ),
                )));
            }
            return self.recorded(r, run);
        }
        let effects = match stalwart_runtime::origin::find_tool(self.guard.body, &call.tool) {
            Some(t) => match t.effects {
                stalwart_record::ArchivedEffects::Reads => Effects::Reads,
                stalwart_record::ArchivedEffects::Changes => Effects::Changes,
                stalwart_record::ArchivedEffects::Unknown => Effects::Unknown,
            },
            None => Effects::Unknown,
        };
        let path = self.path_of(&call.tool);
        let record = JournalRecord {
            kind: "tool".into(),
            number: invocation,
            name: call.tool.clone(),
            input: arguments,
            state: "started".into(),
            outcome: None,
            result: None,
            step: None,
            writer: self.writer,
            started: now(),
            done: None,
            resolution: None,
            resolved_by: None,
            digest: String::new(),
            occurrence: 0,
        };
        let asked = self
            .approvals
            .iter()
            .find(|a| a.invocation == invocation)
            .cloned();
        match asked {
            Some(a) => self.answered(a, call, record, effects, run),
            None => self.check_and_run(call, record, effects, path, run),
        }
    }

    /// A call the journal holds.
    fn recorded(&mut self, r: JournalRecord, run: &mut ToolFn<'_>) -> Result<Reply, Stop> {
        let invocation = r.number;
        if r.state == "done" {
            let kind = match r.outcome.as_deref() {
                Some("failed") => ReplyKind::Failed,
                Some("denied") => ReplyKind::Denied,
                Some("refused") => ReplyKind::Refused,
                _ => ReplyKind::Ran,
            };
            return Ok(Reply {
                invocation,
                kind,
                value: r.result.unwrap_or(Value::Null),
                replayed: true,
            });
        }
        match r.resolution.as_deref() {
            Some("result") => {
                let mut done = r;
                done.state = "done".into();
                done.outcome = Some("ran".into());
                done.done = Some(now());
                done.writer = self.writer;
                let value = done.result.clone().unwrap_or(Value::Null);
                self.write(|tx, t| {
                    if let Some(step) = done.step {
                        let _ = stalwart_runtime::report(
                            t.env,
                            t.session,
                            step,
                            Outcome::Ran,
                            done.result.clone(),
                        );
                    }
                    put_record(tx, t.conversation, t.turn, &done)
                })?;
                self.remember(done);
                Ok(Reply {
                    invocation,
                    kind: ReplyKind::Ran,
                    value,
                    replayed: true,
                })
            }
            Some("rerun") => self.run_changing(r, run),
            _ => {
                let unfinished = unfinished_of(&self.journal);
                Err(Stop::Interrupted(unfinished))
            }
        }
    }

    /// A call a person (or the host's function) was asked about in an earlier run.
    fn answered(
        &mut self,
        a: Approval,
        call: Call,
        mut record: JournalRecord,
        effects: Effects,
        run: &mut ToolFn<'_>,
    ) -> Result<Reply, Stop> {
        match a.state {
            ApprovalState::Pending => Err(Stop::Waiting(
                self.approvals
                    .iter()
                    .filter(|a| a.state == ApprovalState::Pending)
                    .cloned()
                    .collect(),
            )),
            ApprovalState::Denied => self.deny(record, a.why.as_deref()),
            ApprovalState::Approved => {
                let Some(token) = a.confirmation.clone() else {
                    record.step = Some(a.step);
                    return self.proceed(record, effects, run);
                };
                let mut call = call;
                call.confirmation = Some(token);
                let body = self.guard.body;
                let changes = effects.changes();
                let check = self.write(|tx, t| {
                    let check = stalwart_runtime::check_tool_call(body, t.env, t.session, &call);
                    if check.decision == Decision::Allow && changes {
                        let mut started = record.clone();
                        started.step = Some(t.session.next_step().saturating_sub(1));
                        put_record(tx, t.conversation, t.turn, &started)?;
                    }
                    Ok((check, t.session.next_step().saturating_sub(1)))
                })?;
                let (check, step) = check;
                record.step = Some(step);
                match check.decision {
                    Decision::Allow if changes => {
                        self.journal.push(record.clone());
                        self.run_changing(record, run)
                    }
                    Decision::Allow => self.run_read(record, run),
                    Decision::Refuse => self.refuse(record, &check.reasons),
                    // The confirmation lapsed (a day by default): the person is asked again.
                    Decision::Confirm => {
                        let mut again = a;
                        again.state = ApprovalState::Pending;
                        again.answered_by = None;
                        again.answered_at = None;
                        again.why = None;
                        again.step = step;
                        again.confirmation = check.confirmation.clone();
                        again.question = question_of(&check);
                        self.ask_person(again)
                    }
                }
            }
        }
    }

    /// A new call: checked under the store, then asked about, run, or refused.
    fn check_and_run(
        &mut self,
        call: Call,
        mut record: JournalRecord,
        effects: Effects,
        path: String,
        run: &mut ToolFn<'_>,
    ) -> Result<Reply, Stop> {
        let body = self.guard.body;
        let named = self.guard.approve.names(&path, effects);
        let changes = effects.changes();
        let (check, step) = self.write(|tx, t| {
            let check = stalwart_runtime::check_tool_call(body, t.env, t.session, &call);
            let step = t.session.next_step().saturating_sub(1);
            // The common case, a write nobody needs to be asked about: recorded `started` in
            // the check's own transaction.
            if check.decision == Decision::Allow && !named && changes {
                let mut started = record.clone();
                started.step = Some(step);
                put_record(tx, t.conversation, t.turn, &started)?;
            }
            Ok((check, step))
        })?;
        record.step = Some(step);
        if check.reasons.len() == 1
            && check
                .reasons
                .first()
                .is_some_and(|r| r == "history_invalid")
        {
            return Err(Stop::Store(HostError::new(
                HISTORY_INVALID,
                format!(
                    "the history of `{}` does not verify: an entry was edited, removed or \
                     reordered in the store",
                    self.conversation
                ),
            )));
        }
        match check.decision {
            Decision::Refuse => self.refuse(record, &check.reasons),
            Decision::Allow if !named => {
                if changes {
                    self.journal.push(record.clone());
                    self.run_changing(record, run)
                } else {
                    self.run_read(record, run)
                }
            }
            Decision::Allow | Decision::Confirm => {
                let approval = Approval {
                    conversation: self.conversation.clone(),
                    turn: self.number,
                    invocation: record.number,
                    tool: call.tool.clone(),
                    path,
                    arguments: (*call.arguments).clone(),
                    origins: (*call.origins).clone(),
                    effects,
                    question: match check.decision {
                        Decision::Confirm => question_of(&check),
                        _ => format!(
                            "May `{}` run with {}?",
                            call.tool,
                            Value::Object((*call.arguments).clone())
                        ),
                    },
                    reasons: check.reasons.iter().map(|r| r.to_string()).collect(),
                    state: ApprovalState::Pending,
                    answered_by: None,
                    answered_at: None,
                    why: None,
                    asked: now(),
                    step,
                    confirmation: check.confirmation.clone(),
                };
                self.ask(approval, call, record, effects, run)
            }
        }
    }

    /// Asks the turn's approver about a call.
    fn ask(
        &mut self,
        approval: Approval,
        call: Call,
        record: JournalRecord,
        effects: Effects,
        run: &mut ToolFn<'_>,
    ) -> Result<Reply, Stop> {
        match &mut self.guard.approve {
            Approve::Person(_) => self.ask_person(approval),
            Approve::Nobody => {
                let conversation = self.conversation.clone();
                let number = self.number;
                self.write(|tx, _| {
                    tx.exec(
                        "UPDATE turns SET state = 'abandoned', owner = NULL, ended_why = \
                         'approval_required' WHERE conversation = $1 AND number = $2",
                        &[Param::Text(&conversation), int(number)],
                    )?;
                    Ok(())
                })?;
                Err(Stop::ApprovalRequired(Box::new(approval)))
            }
            Approve::Function(f) => {
                let verdict = f(&approval);
                let mut answered = approval;
                answered.answered_by = Some("host".into());
                answered.answered_at = Some(now());
                match verdict {
                    Verdict::Allow => answered.state = ApprovalState::Approved,
                    Verdict::Deny(why) => {
                        answered.state = ApprovalState::Denied;
                        answered.why = why;
                    }
                }
                let stored = answered.clone();
                self.write(|tx, _| insert_approval(tx, &stored))?;
                self.approvals.push(answered.clone());
                self.answered(answered, call, record, effects, run)
            }
        }
    }

    /// Saves the approval and stops the turn: it waits.
    fn ask_person(&mut self, approval: Approval) -> Result<Reply, Stop> {
        let conversation = self.conversation.clone();
        let number = self.number;
        let stored = approval.clone();
        self.write(|tx, _| {
            tx.exec(
                "DELETE FROM approvals WHERE conversation = $1 AND turn = $2 AND invocation = $3",
                &[
                    Param::Text(&conversation),
                    int(number),
                    int(u64::from(stored.invocation)),
                ],
            )?;
            insert_approval(tx, &stored)?;
            tx.exec(
                "UPDATE turns SET state = 'waiting', owner = NULL WHERE conversation = $1 \
                 AND number = $2",
                &[Param::Text(&conversation), int(number)],
            )?;
            Ok(())
        })?;
        Err(Stop::Waiting(vec![approval]))
    }

    fn proceed(
        &mut self,
        mut record: JournalRecord,
        effects: Effects,
        run: &mut ToolFn<'_>,
    ) -> Result<Reply, Stop> {
        if !effects.changes() {
            return self.run_read(record, run);
        }
        let started = record.clone();
        self.write(|tx, t| put_record(tx, t.conversation, t.turn, &started))?;
        record.state = "started".into();
        self.journal.push(record.clone());
        self.run_changing(record, run)
    }

    /// Runs a changing call recorded `started`, then records it `done`.
    fn run_changing(&mut self, record: JournalRecord, run: &mut ToolFn<'_>) -> Result<Reply, Stop> {
        let arguments = match &record.input {
            Value::Object(m) => m.clone(),
            _ => Map::new(),
        };
        let result = run(&arguments, record.number);
        let (outcome, kind, value) = match result {
            Ok(v) => (Outcome::Ran, ReplyKind::Ran, v),
            Err(e) => (Outcome::Failed, ReplyKind::Failed, Value::String(e)),
        };
        let mut done = record;
        done.state = "done".into();
        done.outcome = Some(outcome.as_str().to_string());
        done.result = Some(value.clone());
        done.done = Some(now());
        done.writer = self.writer;
        self.write(|tx, t| {
            if let Some(step) = done.step {
                let _ =
                    stalwart_runtime::report(t.env, t.session, step, outcome, done.result.clone());
            }
            put_record(tx, t.conversation, t.turn, &done)
        })?;
        let invocation = done.number;
        self.remember(done);
        Ok(Reply {
            invocation,
            kind,
            value,
            replayed: false,
        })
    }

    /// Runs a read at once; its result is recorded with the next write.
    fn run_read(&mut self, record: JournalRecord, run: &mut ToolFn<'_>) -> Result<Reply, Stop> {
        let arguments = match &record.input {
            Value::Object(m) => m.clone(),
            _ => Map::new(),
        };
        let (outcome, kind, value) = match run(&arguments, record.number) {
            Ok(v) => (Outcome::Ran, ReplyKind::Ran, v),
            Err(e) => (Outcome::Failed, ReplyKind::Failed, Value::String(e)),
        };
        let mut done = record;
        done.state = "done".into();
        done.outcome = Some(outcome.as_str().to_string());
        done.result = Some(value.clone());
        done.done = Some(now());
        let invocation = done.number;
        self.pending.push(Pending {
            record: done.clone(),
            outcome,
        });
        self.remember(done);
        Ok(Reply {
            invocation,
            kind,
            value,
            replayed: false,
        })
    }

    fn deny(&mut self, record: JournalRecord, why: Option<&str>) -> Result<Reply, Stop> {
        let text = Approval::refusal(why);
        self.finish_unrun(record, "denied", Value::String(text), ReplyKind::Denied)
    }

    fn refuse(
        &mut self,
        record: JournalRecord,
        reasons: &[stalwart_runtime::SmolStr],
    ) -> Result<Reply, Stop> {
        let list: Vec<&str> = reasons.iter().map(|r| r.as_str()).collect();
        let text = format!("The guard refused this call: {}.", list.join(", "));
        self.finish_unrun(record, "refused", Value::String(text), ReplyKind::Refused)
    }

    /// Records a call that did not run, with what the model reads instead of a result.
    fn finish_unrun(
        &mut self,
        record: JournalRecord,
        outcome: &str,
        value: Value,
        kind: ReplyKind,
    ) -> Result<Reply, Stop> {
        let mut done = record;
        done.state = "done".into();
        done.outcome = Some(outcome.to_string());
        done.result = Some(value.clone());
        done.done = Some(now());
        let stored = done.clone();
        self.write(|tx, t| put_record(tx, t.conversation, t.turn, &stored))?;
        let invocation = done.number;
        self.remember(done);
        Ok(Reply {
            invocation,
            kind,
            value,
            replayed: false,
        })
    }
}

/// What a transaction on the turn's conversation has at hand.
pub(crate) struct TxCtx<'a> {
    pub session: &'a mut Session,
    pub conversation: &'a str,
    pub turn: u64,
    pub env: Env<'a>,
}

fn question_of(check: &stalwart_runtime::Check) -> String {
    check
        .to_json()
        .pointer("/detail/question")
        .and_then(Value::as_str)
        .map(str::to_string)
        .unwrap_or_else(|| {
            let reasons: Vec<&str> = check.reasons.iter().map(|r| r.as_str()).collect();
            format!("May this call run? ({})", reasons.join(", "))
        })
}

/// Writes a journal record (a new one, or the next state of one).
fn put_record(
    tx: &mut dyn Tx,
    conversation: &str,
    turn: u64,
    r: &JournalRecord,
) -> Result<(), TxError<HostError>> {
    let input = r.input.to_string();
    let result = r.result.as_ref().map(Value::to_string);
    tx.exec(
        "INSERT INTO journal (conversation, turn, kind, number, name, input, digest, occurrence, \
         state, outcome, result, step, writer, started, done, resolution, resolved_by) \
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17) \
         ON CONFLICT (conversation, turn, kind, number) DO UPDATE SET state = $9, \
         outcome = $10, result = $11, step = $12, writer = $13, done = $15",
        &[
            Param::Text(conversation),
            int(turn),
            Param::Text(&r.kind),
            int(u64::from(r.number)),
            Param::Text(&r.name),
            Param::Text(&input),
            Param::Text(&r.digest),
            int(r.occurrence),
            Param::Text(&r.state),
            Param::opt_text(r.outcome.as_deref()),
            Param::opt_text(result.as_deref()),
            Param::opt_int(r.step.map(i64::from)),
            int(r.writer),
            int(r.started),
            Param::opt_int(r.done.and_then(|d| i64::try_from(d).ok())),
            Param::opt_text(r.resolution.as_deref()),
            Param::opt_text(r.resolved_by.as_deref()),
        ],
    )?;
    Ok(())
}

/// Writes an approval as it stands.
fn insert_approval(tx: &mut dyn Tx, a: &Approval) -> Result<(), TxError<HostError>> {
    let arguments = Value::Object(a.arguments.clone()).to_string();
    let origins = serde_json::to_string(&a.origins).unwrap_or_default();
    let reasons = serde_json::to_string(&a.reasons).unwrap_or_default();
    tx.exec(
        "INSERT INTO approvals (conversation, turn, invocation, tool, path, arguments, origins, \
         effects, question, reasons, step, confirmation, state, answered_by, answered_at, why, \
         asked) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, \
         $17)",
        &[
            Param::Text(&a.conversation),
            int(a.turn),
            int(u64::from(a.invocation)),
            Param::Text(&a.tool),
            Param::Text(&a.path),
            Param::Text(&arguments),
            Param::Text(&origins),
            Param::Text(a.effects.as_str()),
            Param::Text(&a.question),
            Param::Text(&reasons),
            int(u64::from(a.step)),
            Param::opt_text(a.confirmation.as_deref()),
            Param::Text(a.state.as_str()),
            Param::opt_text(a.answered_by.as_deref()),
            Param::opt_int(a.answered_at.and_then(|d| i64::try_from(d).ok())),
            Param::opt_text(a.why.as_deref()),
            int(a.asked),
        ],
    )?;
    Ok(())
}

/// Reads the person's words `input` into the conversation's history (which must verify) and
/// opens turn `number` with them, running in this process until `lease`.
pub(super) fn open_turn(
    tx: &mut dyn Tx,
    env: Env<'_>,
    session: &mut Session,
    conversation: &str,
    number: u64,
    input: &str,
    lease: u64,
) -> Result<(), TxError<HostError>> {
    if !read_into(env, session, input) {
        return Err(abort(
            HISTORY_INVALID,
            format!(
                "the history of `{conversation}` does not verify: an entry was edited, removed \
                 or reordered in the store"
            ),
        ));
    }
    tx.exec(
        "INSERT INTO turns (conversation, number, input, state, writer, owner, lease, created, \
         updated) VALUES ($1, $2, $3, 'running', 1, $4, $5, $6, $6)",
        &[
            Param::Text(conversation),
            int(number),
            Param::Text(input),
            Param::Text(crate::owner::me()),
            int(lease),
            int(env.now),
        ],
    )?;
    Ok(())
}

/// What a claim found: the turn to run, or how it stands without running.
enum Claim {
    Run {
        number: u64,
        input: String,
        writer: u64,
        earlier: Vec<(String, Option<String>)>,
        journal: Vec<JournalRecord>,
        approvals: Vec<Approval>,
    },
    Stands(u64, u64, TurnEnd),
}

impl Store {
    /// Starts a new turn of the conversation with the person's words `input`, and runs it. The
    /// conversation's last turn must have ended (done or abandoned).
    pub fn start_turn(
        &mut self,
        guard: &mut Guard<'_>,
        conversation: &str,
        input: &str,
        program: &mut dyn Program,
    ) -> Result<TurnRun, HostError> {
        let now = now();
        let lease = now.saturating_add(self.lease);
        let key = guard.key;
        let number = self.with_session(conversation, |tx, session| {
            let last = tx.query(
                "SELECT number, state, owner, lease FROM turns WHERE conversation = $1 \
                 ORDER BY number DESC LIMIT 1",
                &[Param::Text(conversation)],
            )?;
            let mut number = 1;
            if let Some(r) = last.first() {
                let row = turn_of(tx, conversation, u64::try_from(r.int(0)).ok())?;
                let state = row.effective(now);
                if !state.ended() {
                    return Err(abort(
                        TURN_STATE,
                        format!(
                            "turn {} of `{conversation}` is {}: answer it, resume it or abandon \
                             it before a new turn starts",
                            row.number,
                            state.as_str()
                        ),
                    ));
                }
                number = row.number + 1;
            }
            open_turn(
                tx,
                Env { key, now },
                session,
                conversation,
                number,
                input,
                lease,
            )?;
            Ok(number)
        })?;
        let earlier = self.tx(|tx| earlier_turns(tx, conversation, number))?;
        self.drive(
            guard,
            conversation,
            Claim::Run {
                number,
                input: input.to_string(),
                writer: 1,
                earlier,
                journal: Vec::new(),
                approvals: Vec::new(),
            },
            program,
        )
    }

    /// Goes on with a turn (the conversation's last when `turn` is `None`): a waiting turn whose
    /// approvals are answered, or an interrupted one whose unfinished calls are resolved. The
    /// program runs again from its start; what was done before is answered from the journal.
    /// A turn that still waits, or still has an unresolved unfinished call, is returned as it
    /// stands without running.
    pub fn resume_turn(
        &mut self,
        guard: &mut Guard<'_>,
        conversation: &str,
        turn: Option<u64>,
        program: &mut dyn Program,
    ) -> Result<TurnRun, HostError> {
        let now = now();
        let lease = now.saturating_add(self.lease);
        let claim = self.tx(|tx| {
            conversation_row(tx, conversation, true)?.ok_or_else(|| missing(conversation))?;
            let row = turn_of(tx, conversation, turn)?;
            let state = row.effective(now);
            let mine = row.owner.as_deref() == Some(crate::owner::me());
            if state.ended() || (state == TurnState::Running && !mine) {
                return Err(abort(
                    TURN_STATE,
                    format!(
                        "turn {} of `{conversation}` is {}{}",
                        row.number,
                        state.as_str(),
                        match (&row.owner, state) {
                            (Some(o), TurnState::Running) => format!(" in the process `{o}`"),
                            _ => String::new(),
                        }
                    ),
                ));
            }
            let approvals = approvals_of(tx, conversation, row.number)?;
            let pending: Vec<Approval> = approvals
                .iter()
                .filter(|a| a.state == ApprovalState::Pending)
                .cloned()
                .collect();
            if !pending.is_empty() {
                return Ok(Claim::Stands(
                    row.number,
                    row.writer,
                    TurnEnd::Waiting { approvals: pending },
                ));
            }
            let journal = journal_of(tx, conversation, row.number)?;
            let open: Vec<Unfinished> = unfinished_of(&journal)
                .into_iter()
                .filter(|u| u.resolution.is_none())
                .collect();
            if !open.is_empty() {
                tx.exec(
                    "UPDATE turns SET state = 'interrupted', owner = NULL WHERE conversation = $1 \
                     AND number = $2",
                    &[Param::Text(conversation), int(row.number)],
                )?;
                return Ok(Claim::Stands(
                    row.number,
                    row.writer,
                    TurnEnd::Interrupted {
                        unfinished: open,
                        why: None,
                    },
                ));
            }
            let writer = row.writer + 1;
            tx.exec(
                "UPDATE turns SET state = 'running', owner = $1, lease = $2, writer = $3, \
                 updated = $4 WHERE conversation = $5 AND number = $6",
                &[
                    Param::Text(crate::owner::me()),
                    int(lease),
                    int(writer),
                    int(now),
                    Param::Text(conversation),
                    int(row.number),
                ],
            )?;
            Ok(Claim::Run {
                number: row.number,
                input: row.input,
                writer,
                earlier: earlier_turns(tx, conversation, row.number)?,
                journal,
                approvals,
            })
        })?;
        self.drive(guard, conversation, claim, program)
    }

    /// Runs the program on a claimed turn and records how it ended.
    fn drive(
        &mut self,
        guard: &mut Guard<'_>,
        conversation: &str,
        claim: Claim,
        program: &mut dyn Program,
    ) -> Result<TurnRun, HostError> {
        let (number, input, writer, earlier, journal, approvals) = match claim {
            Claim::Stands(turn, writer, end) => {
                return Ok(TurnRun {
                    conversation: conversation.to_string(),
                    turn,
                    writer,
                    end,
                });
            }
            Claim::Run {
                number,
                input,
                writer,
                earlier,
                journal,
                approvals,
            } => (number, input, writer, earlier, journal, approvals),
        };
        let agent = self
            .tx(|tx| {
                conversation_row(tx, conversation, false)?.ok_or_else(|| missing(conversation))
            })?
            .agent;
        let mut turn = Turn {
            store: self,
            guard,
            conversation: conversation.to_string(),
            agent,
            number,
            input,
            writer,
            earlier,
            journal,
            approvals,
            next_invocation: 0,
            model_seen: HashMap::new(),
            path: Vec::new(),
            pending: Vec::new(),
        };
        let outcome = program.run(&mut turn);
        let end = match outcome {
            Ok(answer) => {
                let text = answer.clone();
                turn.write(|tx, t| {
                    tx.exec(
                        "UPDATE turns SET state = 'done', answer = $1, owner = NULL \
                         WHERE conversation = $2 AND number = $3",
                        &[Param::Text(&text), Param::Text(t.conversation), int(t.turn)],
                    )?;
                    Ok(())
                })
                .map(|()| TurnEnd::Done { answer })
            }
            Err(stop) => Ok(match stop {
                Stop::Waiting(approvals) => TurnEnd::Waiting { approvals },
                Stop::Interrupted(unfinished) => {
                    turn.set_interrupted()?;
                    TurnEnd::Interrupted {
                        unfinished,
                        why: None,
                    }
                }
                Stop::ApprovalRequired(a) => TurnEnd::Abandoned {
                    why: format!("approval_required: {a}"),
                },
                Stop::Failed(why) => {
                    turn.set_interrupted()?;
                    TurnEnd::Interrupted {
                        unfinished: Vec::new(),
                        why: Some(why),
                    }
                }
                Stop::Store(e) => {
                    let _ = turn.set_interrupted();
                    return Err(e);
                }
            }),
        };
        match end {
            Ok(end) => Ok(TurnRun {
                conversation: conversation.to_string(),
                turn: number,
                writer,
                end,
            }),
            Err(Stop::Store(e)) => Err(e),
            Err(other) => Err(HostError::new(
                TURN_STATE,
                format!("turn {number} of `{conversation}` stopped: {other:?}"),
            )),
        }
    }
}

impl Turn<'_, '_> {
    /// Leaves the turn `interrupted` (its reads' results recorded), when this process still
    /// runs it.
    fn set_interrupted(&mut self) -> Result<(), HostError> {
        let r = self.write(|tx, t| {
            tx.exec(
                "UPDATE turns SET state = 'interrupted', owner = NULL WHERE conversation = $1 \
                 AND number = $2",
                &[Param::Text(t.conversation), int(t.turn)],
            )?;
            Ok(())
        });
        match r {
            Ok(()) => Ok(()),
            Err(Stop::Store(e)) => Err(e),
            Err(_) => Ok(()),
        }
    }
}

/// The results a person gives for unfinished calls, by invocation (for [`Store::resolve`]).
pub type Results = BTreeMap<u32, Value>;
