//! Turns as a person or an operator sees them: their state, what they wait for, what a crash
//! left unfinished, their journal; and the answers given from any process — approve, deny,
//! resolve an unfinished call, abandon.
//!
//! Every answer runs in a transaction that holds the conversation's lock, so when two processes
//! answer one approval at once, exactly one answer is recorded and the other is told who
//! answered first ([`Answered::Already`]).

use std::collections::{BTreeMap, HashMap};

use serde::Serialize;
use serde_json::{Map, Value};
use stalwart_host::HostError;

use crate::approval::{Approval, ApprovalState, Effects};
use crate::codes::{NOT_FOUND, TURN_STATE};
use crate::db::{Param, Row, Tx, TxError};
use crate::store::{Store, conversation_row, int, missing, now};

/// Where a turn stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum TurnState {
    /// A process runs it.
    Running,
    /// It waits, saved, for a person's answer.
    Waiting,
    /// Its process stopped (a crash, a deploy) while it ran: it goes on once a person has said
    /// what became of each unfinished call, or at once when there is none.
    Interrupted,
    Done,
    Abandoned,
}

impl TurnState {
    pub fn as_str(self) -> &'static str {
        match self {
            TurnState::Running => "running",
            TurnState::Waiting => "waiting",
            TurnState::Interrupted => "interrupted",
            TurnState::Done => "done",
            TurnState::Abandoned => "abandoned",
        }
    }

    pub fn parse(text: &str) -> Option<Self> {
        Some(match text {
            "running" => TurnState::Running,
            "waiting" => TurnState::Waiting,
            "interrupted" => TurnState::Interrupted,
            "done" => TurnState::Done,
            "abandoned" => TurnState::Abandoned,
            _ => return None,
        })
    }

    /// Whether the turn has ended for good.
    pub fn ended(self) -> bool {
        matches!(self, TurnState::Done | TurnState::Abandoned)
    }
}

/// A call whose last record is `started`: it may have run. Never run again on its own.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Unfinished {
    pub invocation: u32,
    pub name: String,
    pub input: Value,
    /// What a person said of it, once they have: `result` (with the result) or `rerun`.
    pub resolution: Option<String>,
}

/// One record of a turn's journal.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct JournalRecord {
    /// `model` (a model's reply) or `tool` (a tool call).
    pub kind: String,
    /// The model request's number, or the call's invocation number.
    pub number: u32,
    pub name: String,
    pub input: Value,
    /// `started` or `done`.
    pub state: String,
    /// `ran`, `failed`, `denied` or `refused` (tool calls that are done).
    pub outcome: Option<String>,
    pub result: Option<Value>,
    /// The history's call number of the call's check.
    pub step: Option<u32>,
    /// Which run of the turn wrote it (1 the first, 2 a resumed run, …).
    pub writer: u64,
    pub started: u64,
    pub done: Option<u64>,
    pub resolution: Option<String>,
    pub resolved_by: Option<String>,
    #[serde(skip)]
    pub(crate) digest: String,
    #[serde(skip)]
    pub(crate) occurrence: u64,
}

/// A turn, whole.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TurnInfo {
    pub conversation: String,
    pub agent: String,
    pub number: u64,
    pub input: String,
    pub state: TurnState,
    pub answer: Option<String>,
    /// How many runs the turn has had.
    pub writer: u64,
    pub owner: Option<String>,
    /// The approvals it waits for.
    pub waiting: Vec<Approval>,
    /// Every approval it asked for, answered or not.
    pub approvals: Vec<Approval>,
    /// The calls a crash left unfinished.
    pub unfinished: Vec<Unfinished>,
    pub journal: Vec<JournalRecord>,
    pub ended_by: Option<String>,
    pub ended_why: Option<String>,
    pub created: u64,
    pub updated: u64,
}

/// A turn in a list.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TurnSummary {
    pub conversation: String,
    pub agent: String,
    pub number: u64,
    pub state: TurnState,
    pub input: String,
    pub waiting: Vec<String>,
    pub unfinished: Vec<u32>,
    pub updated: u64,
}

/// What an answer did.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "answered", content = "approvals", rename_all = "snake_case")]
pub enum Answered {
    /// This answer was recorded, for these approvals.
    Recorded(Vec<Approval>),
    /// Another answer came first: these approvals, as it left them.
    Already(Vec<Approval>),
}

/// A turn's row.
#[derive(Debug, Clone)]
pub(crate) struct TurnRow {
    pub number: u64,
    pub input: String,
    pub state: TurnState,
    pub answer: Option<String>,
    pub writer: u64,
    pub owner: Option<String>,
    pub lease: u64,
    pub ended_by: Option<String>,
    pub ended_why: Option<String>,
    pub created: u64,
    pub updated: u64,
}

const TURN_COLUMNS: &str =
    "number, input, state, answer, writer, owner, lease, ended_by, ended_why, created, updated";

fn turn_row(r: &Row) -> TurnRow {
    TurnRow {
        number: u64::try_from(r.int(0)).unwrap_or(0),
        input: r.text(1),
        state: TurnState::parse(&r.text(2)).unwrap_or(TurnState::Interrupted),
        answer: r.opt_text(3),
        writer: u64::try_from(r.int(4)).unwrap_or(0),
        owner: r.opt_text(5),
        lease: u64::try_from(r.int(6)).unwrap_or(0),
        ended_by: r.opt_text(7),
        ended_why: r.opt_text(8),
        created: u64::try_from(r.int(9)).unwrap_or(0),
        updated: u64::try_from(r.int(10)).unwrap_or(0),
    }
}

impl TurnRow {
    /// The state as it stands: a turn left `running` by a process that is gone (on this host),
    /// or silent past its lease (elsewhere), is `interrupted`.
    pub fn effective(&self, now: u64) -> TurnState {
        if self.state != TurnState::Running {
            return self.state;
        }
        match self.owner.as_deref() {
            None => TurnState::Interrupted,
            Some(owner) if owner == crate::owner::me() => TurnState::Running,
            Some(owner) => match crate::owner::gone(owner) {
                Some(true) => TurnState::Interrupted,
                Some(false) => TurnState::Running,
                None if now > self.lease => TurnState::Interrupted,
                None => TurnState::Running,
            },
        }
    }
}

/// The turn `number`, or the conversation's last turn.
pub(crate) fn turn_of(
    tx: &mut dyn Tx,
    conversation: &str,
    number: Option<u64>,
) -> Result<TurnRow, TxError<HostError>> {
    let rows = match number {
        Some(n) => tx.query(
            &format!("SELECT {TURN_COLUMNS} FROM turns WHERE conversation = $1 AND number = $2"),
            &[Param::Text(conversation), int(n)],
        )?,
        None => tx.query(
            &format!(
                "SELECT {TURN_COLUMNS} FROM turns WHERE conversation = $1 \
                 ORDER BY number DESC LIMIT 1"
            ),
            &[Param::Text(conversation)],
        )?,
    };
    rows.first().map(turn_row).ok_or_else(|| {
        TxError::Abort(HostError::new(
            NOT_FOUND,
            match number {
                Some(n) => format!("the conversation `{conversation}` has no turn {n}"),
                None => format!("the conversation `{conversation}` has no turn yet"),
            },
        ))
    })
}

/// The turns of a conversation before `number`: each input and answer, in order.
pub(crate) fn earlier_turns(
    tx: &mut dyn Tx,
    conversation: &str,
    number: u64,
) -> Result<Vec<(String, Option<String>)>, TxError<HostError>> {
    Ok(tx
        .query(
            "SELECT input, answer FROM turns WHERE conversation = $1 AND number < $2 \
             ORDER BY number",
            &[Param::Text(conversation), int(number)],
        )?
        .iter()
        .map(|r| (r.text(0), r.opt_text(1)))
        .collect())
}

fn json(text: &str) -> Value {
    serde_json::from_str(text).unwrap_or(Value::Null)
}

pub(crate) fn approvals_of(
    tx: &mut dyn Tx,
    conversation: &str,
    turn: u64,
) -> Result<Vec<Approval>, TxError<HostError>> {
    let rows = tx.query(
        "SELECT invocation, tool, path, arguments, origins, effects, question, reasons, step, \
         confirmation, state, answered_by, answered_at, why, asked FROM approvals \
         WHERE conversation = $1 AND turn = $2 ORDER BY invocation",
        &[Param::Text(conversation), int(turn)],
    )?;
    Ok(rows
        .iter()
        .map(|r| Approval {
            conversation: conversation.to_string(),
            turn,
            invocation: u32::try_from(r.int(0)).unwrap_or(0),
            tool: r.text(1),
            path: r.text(2),
            arguments: match json(&r.text(3)) {
                Value::Object(m) => m,
                _ => Map::new(),
            },
            origins: serde_json::from_str(&r.text(4)).unwrap_or_default(),
            effects: Effects::parse(&r.text(5)),
            question: r.text(6),
            reasons: serde_json::from_str(&r.text(7)).unwrap_or_default(),
            step: u32::try_from(r.int(8)).unwrap_or(0),
            confirmation: r.opt_text(9),
            state: ApprovalState::parse(&r.text(10)),
            answered_by: r.opt_text(11),
            answered_at: r.opt_int(12).and_then(|n| u64::try_from(n).ok()),
            why: r.opt_text(13),
            asked: u64::try_from(r.int(14)).unwrap_or(0),
        })
        .collect())
}

pub(crate) fn journal_of(
    tx: &mut dyn Tx,
    conversation: &str,
    turn: u64,
) -> Result<Vec<JournalRecord>, TxError<HostError>> {
    let rows = tx.query(
        "SELECT kind, number, name, input, state, outcome, result, step, writer, started, done, \
         resolution, resolved_by, digest, occurrence FROM journal \
         WHERE conversation = $1 AND turn = $2 ORDER BY started, kind, number",
        &[Param::Text(conversation), int(turn)],
    )?;
    Ok(rows
        .iter()
        .map(|r| JournalRecord {
            kind: r.text(0),
            number: u32::try_from(r.int(1)).unwrap_or(0),
            name: r.text(2),
            input: json(&r.text(3)),
            state: r.text(4),
            outcome: r.opt_text(5),
            result: r.opt_text(6).map(|t| json(&t)),
            step: r.opt_int(7).and_then(|n| u32::try_from(n).ok()),
            writer: u64::try_from(r.int(8)).unwrap_or(0),
            started: u64::try_from(r.int(9)).unwrap_or(0),
            done: r.opt_int(10).and_then(|n| u64::try_from(n).ok()),
            resolution: r.opt_text(11),
            resolved_by: r.opt_text(12),
            digest: r.text(13),
            occurrence: u64::try_from(r.int(14)).unwrap_or(0),
        })
        .collect())
}

/// The tool calls whose last record is `started`.
pub(crate) fn unfinished_of(journal: &[JournalRecord]) -> Vec<Unfinished> {
    let mut out: Vec<Unfinished> = journal
        .iter()
        .filter(|r| r.kind == "tool" && r.state == "started")
        .map(|r| Unfinished {
            invocation: r.number,
            name: r.name.clone(),
            input: r.input.clone(),
            resolution: r.resolution.clone(),
        })
        .collect();
    out.sort_by_key(|u| u.invocation);
    out
}

fn info(
    tx: &mut dyn Tx,
    conversation: &str,
    number: Option<u64>,
) -> Result<TurnInfo, TxError<HostError>> {
    let conv = conversation_row(tx, conversation, false)?.ok_or_else(|| missing(conversation))?;
    let row = turn_of(tx, conversation, number)?;
    let approvals = approvals_of(tx, conversation, row.number)?;
    let journal = journal_of(tx, conversation, row.number)?;
    let state = row.effective(now());
    Ok(TurnInfo {
        conversation: conversation.to_string(),
        agent: conv.agent,
        number: row.number,
        input: row.input,
        state,
        answer: row.answer,
        writer: row.writer,
        owner: row.owner,
        waiting: approvals
            .iter()
            .filter(|a| a.state == ApprovalState::Pending && state == TurnState::Waiting)
            .cloned()
            .collect(),
        approvals,
        unfinished: unfinished_of(&journal),
        journal,
        ended_by: row.ended_by,
        ended_why: row.ended_why,
        created: row.created,
        updated: row.updated,
    })
}

/// What a list of turns is narrowed to.
#[derive(Debug, Clone, Default)]
pub struct TurnFilter {
    pub conversation: Option<String>,
    pub agent: Option<String>,
    pub state: Option<TurnState>,
}

impl Store {
    /// A turn, whole: the conversation's last when `number` is `None`.
    pub fn turn(&mut self, conversation: &str, number: Option<u64>) -> Result<TurnInfo, HostError> {
        self.tx(|tx| info(tx, conversation, number))
    }

    /// The turns the filter lets through, by conversation and number. The filter is applied in
    /// the database (turns are indexed by state), so a list of what waits does not read every
    /// turn.
    pub fn turns(&mut self, filter: &TurnFilter) -> Result<Vec<TurnSummary>, HostError> {
        let now = now();
        let stored: &[&str] = match filter.state {
            None => &[],
            Some(TurnState::Interrupted) => &["interrupted", "running"],
            Some(TurnState::Running) => &["running"],
            Some(TurnState::Waiting) => &["waiting"],
            Some(TurnState::Done) => &["done"],
            Some(TurnState::Abandoned) => &["abandoned"],
        };
        let mut clauses: Vec<String> = Vec::new();
        let mut params: Vec<Param<'_>> = Vec::new();
        if !stored.is_empty() {
            let marks: Vec<String> = stored
                .iter()
                .map(|s| {
                    params.push(Param::Text(s));
                    format!("${}", params.len())
                })
                .collect();
            clauses.push(format!("t.state IN ({})", marks.join(", ")));
        }
        if let Some(c) = &filter.conversation {
            params.push(Param::Text(c));
            clauses.push(format!("t.conversation = ${}", params.len()));
        }
        if let Some(a) = &filter.agent {
            params.push(Param::Text(a));
            clauses.push(format!("c.agent = ${}", params.len()));
        }
        let filter_sql = if clauses.is_empty() {
            String::new()
        } else {
            format!(" WHERE {}", clauses.join(" AND "))
        };
        self.tx(|tx| {
            let rows = tx.query(
                &format!(
                    "SELECT t.conversation, c.agent, t.number, t.state, t.input, t.updated, \
                     t.owner, t.lease FROM turns t JOIN conversations c ON c.id = t.conversation\
                     {filter_sql} ORDER BY t.conversation, t.number"
                ),
                &params,
            )?;
            let mut waiting: HashMap<(String, i64), Vec<String>> = HashMap::new();
            for w in tx.query(
                "SELECT conversation, turn, tool, invocation FROM approvals \
                 WHERE state = 'pending' ORDER BY conversation, turn, invocation",
                &[],
            )? {
                waiting
                    .entry((w.text(0), w.int(1)))
                    .or_default()
                    .push(format!("{} #{}", w.text(2), w.int(3)));
            }
            let mut started: HashMap<(String, i64), Vec<u32>> = HashMap::new();
            for j in tx.query(
                "SELECT conversation, turn, number FROM journal \
                 WHERE state = 'started' AND kind = 'tool' ORDER BY conversation, turn, number",
                &[],
            )? {
                started
                    .entry((j.text(0), j.int(1)))
                    .or_default()
                    .push(u32::try_from(j.int(2)).unwrap_or(0));
            }
            let mut out = Vec::new();
            for r in &rows {
                let row = TurnRow {
                    number: u64::try_from(r.int(2)).unwrap_or(0),
                    input: r.text(4),
                    state: TurnState::parse(&r.text(3)).unwrap_or(TurnState::Interrupted),
                    answer: None,
                    writer: 0,
                    owner: r.opt_text(6),
                    lease: u64::try_from(r.int(7)).unwrap_or(0),
                    ended_by: None,
                    ended_why: None,
                    created: 0,
                    updated: u64::try_from(r.int(5)).unwrap_or(0),
                };
                let state = row.effective(now);
                if filter.state.is_some_and(|s| s != state) {
                    continue;
                }
                let key = (r.text(0), r.int(2));
                out.push(TurnSummary {
                    waiting: match state {
                        TurnState::Waiting => waiting.remove(&key).unwrap_or_default(),
                        _ => Vec::new(),
                    },
                    unfinished: started.remove(&key).unwrap_or_default(),
                    conversation: key.0,
                    agent: r.text(1),
                    number: row.number,
                    state,
                    input: row.input,
                    updated: row.updated,
                });
            }
            Ok(out)
        })
    }

    /// Approves what the turn waits for (one call when `invocation` is given, else every one),
    /// as `by`. The turn goes on when a host resumes it ([`Store::resume_turn`]).
    pub fn approve(
        &mut self,
        conversation: &str,
        turn: Option<u64>,
        invocation: Option<u32>,
        by: &str,
    ) -> Result<Answered, HostError> {
        self.answer(conversation, turn, invocation, by, None)
    }

    /// Refuses what the turn waits for, as `by`, with a reason the model reads after
    /// `The person did not allow this call.`
    pub fn deny(
        &mut self,
        conversation: &str,
        turn: Option<u64>,
        invocation: Option<u32>,
        by: &str,
        reason: Option<&str>,
    ) -> Result<Answered, HostError> {
        self.answer(
            conversation,
            turn,
            invocation,
            by,
            Some(reason.unwrap_or("")),
        )
    }

    fn answer(
        &mut self,
        conversation: &str,
        turn: Option<u64>,
        invocation: Option<u32>,
        by: &str,
        denied: Option<&str>,
    ) -> Result<Answered, HostError> {
        let now = now();
        self.tx(|tx| {
            conversation_row(tx, conversation, true)?.ok_or_else(|| missing(conversation))?;
            let row = turn_of(tx, conversation, turn)?;
            let all = approvals_of(tx, conversation, row.number)?;
            let chosen: Vec<Approval> = all
                .into_iter()
                .filter(|a| invocation.is_none_or(|n| a.invocation == n))
                .collect();
            if chosen.is_empty() {
                return Err(TxError::Abort(HostError::new(
                    NOT_FOUND,
                    match invocation {
                        Some(n) => format!(
                            "turn {} of `{conversation}` asked no approval for call {n}",
                            row.number
                        ),
                        None => {
                            format!("turn {} of `{conversation}` asked no approval", row.number)
                        }
                    },
                )));
            }
            let pending: Vec<Approval> = chosen
                .iter()
                .filter(|a| a.state == ApprovalState::Pending)
                .cloned()
                .collect();
            if pending.is_empty() || row.state.ended() {
                return Ok(Answered::Already(chosen));
            }
            let state = if denied.is_some() {
                "denied"
            } else {
                "approved"
            };
            let why = denied.filter(|w| !w.trim().is_empty());
            let mut recorded = Vec::new();
            for mut a in pending {
                let n = tx.exec(
                    "UPDATE approvals SET state = $1, answered_by = $2, answered_at = $3, \
                     why = $4 WHERE conversation = $5 AND turn = $6 AND invocation = $7 \
                     AND state = 'pending'",
                    &[
                        Param::Text(state),
                        Param::Text(by),
                        int(now),
                        Param::opt_text(why),
                        Param::Text(conversation),
                        int(row.number),
                        int(u64::from(a.invocation)),
                    ],
                )?;
                if n == 1 {
                    a.state = ApprovalState::parse(state);
                    a.answered_by = Some(by.to_string());
                    a.answered_at = Some(now);
                    a.why = why.map(str::to_string);
                    recorded.push(a);
                }
            }
            Ok(Answered::Recorded(recorded))
        })
    }

    /// Says what became of the calls a crash left unfinished in an interrupted turn: `results`
    /// (they ran, and returned this) and `rerun` (they did not: run them again). The turn goes
    /// on when a host resumes it.
    pub fn resolve(
        &mut self,
        conversation: &str,
        turn: Option<u64>,
        results: &BTreeMap<u32, Value>,
        rerun: &[u32],
        by: &str,
    ) -> Result<u64, HostError> {
        let now = now();
        self.tx(|tx| {
            conversation_row(tx, conversation, true)?.ok_or_else(|| missing(conversation))?;
            let row = turn_of(tx, conversation, turn)?;
            let state = row.effective(now);
            if state != TurnState::Interrupted {
                return Err(TxError::Abort(HostError::new(
                    TURN_STATE,
                    format!(
                        "turn {} of `{conversation}` is {}, not interrupted: it has no \
                         unfinished call to resolve",
                        row.number,
                        state.as_str()
                    ),
                )));
            }
            let journal = journal_of(tx, conversation, row.number)?;
            let unfinished = unfinished_of(&journal);
            let named: Vec<u32> = results
                .keys()
                .copied()
                .chain(rerun.iter().copied())
                .collect();
            for n in &named {
                if !unfinished.iter().any(|u| u.invocation == *n) {
                    let list: Vec<String> = unfinished
                        .iter()
                        .map(|u| u.invocation.to_string())
                        .collect();
                    return Err(TxError::Abort(HostError::new(
                        NOT_FOUND,
                        format!(
                            "call {n} of turn {} is not unfinished (unfinished: {})",
                            row.number,
                            if list.is_empty() {
                                "none".into()
                            } else {
                                list.join(", ")
                            }
                        ),
                    )));
                }
            }
            for (n, result) in results {
                let text = result.to_string();
                tx.exec(
                    "UPDATE journal SET resolution = 'result', result = $1, resolved_by = $2 \
                     WHERE conversation = $3 AND turn = $4 AND kind = 'tool' AND number = $5",
                    &[
                        Param::Text(&text),
                        Param::Text(by),
                        Param::Text(conversation),
                        int(row.number),
                        int(u64::from(*n)),
                    ],
                )?;
            }
            for n in rerun {
                tx.exec(
                    "UPDATE journal SET resolution = 'rerun', resolved_by = $1 \
                     WHERE conversation = $2 AND turn = $3 AND kind = 'tool' AND number = $4",
                    &[
                        Param::Text(by),
                        Param::Text(conversation),
                        int(row.number),
                        int(u64::from(*n)),
                    ],
                )?;
            }
            Ok(row.number)
        })
    }

    /// Ends a turn without going on. A turn that a live process runs, or that has ended, is
    /// not abandoned.
    pub fn abandon(
        &mut self,
        conversation: &str,
        turn: Option<u64>,
        by: &str,
        why: Option<&str>,
    ) -> Result<u64, HostError> {
        let now = now();
        self.tx(|tx| {
            conversation_row(tx, conversation, true)?.ok_or_else(|| missing(conversation))?;
            let row = turn_of(tx, conversation, turn)?;
            let state = row.effective(now);
            if state.ended() || state == TurnState::Running {
                return Err(TxError::Abort(HostError::new(
                    TURN_STATE,
                    format!(
                        "turn {} of `{conversation}` is {}: only a turn that waits or was \
                         interrupted can be abandoned",
                        row.number,
                        state.as_str()
                    ),
                )));
            }
            tx.exec(
                "UPDATE turns SET state = 'abandoned', owner = NULL, ended_by = $1, \
                 ended_why = $2, updated = $3 WHERE conversation = $4 AND number = $5",
                &[
                    Param::Text(by),
                    Param::opt_text(why),
                    int(now),
                    Param::Text(conversation),
                    int(row.number),
                ],
            )?;
            Ok(row.number)
        })
    }

    /// The turns a host may go on with now: waiting turns whose approvals are all answered,
    /// and interrupted turns with no unfinished call left unresolved.
    pub fn ready_turns(&mut self) -> Result<Vec<(String, u64)>, HostError> {
        let now = now();
        self.tx(|tx| {
            let mut out: Vec<(String, u64)> = tx
                .query(
                    "SELECT t.conversation, t.number FROM turns t WHERE t.state = 'waiting' \
                     AND NOT EXISTS (SELECT 1 FROM approvals a WHERE a.conversation = \
                     t.conversation AND a.turn = t.number AND a.state = 'pending')",
                    &[],
                )?
                .iter()
                .map(|r| (r.text(0), u64::try_from(r.int(1)).unwrap_or(0)))
                .collect();
            let stopped = tx.query(
                &format!(
                    "SELECT {TURN_COLUMNS}, conversation FROM turns t \
                     WHERE t.state IN ('interrupted', 'running') AND NOT EXISTS (SELECT 1 FROM \
                     journal j WHERE j.conversation = t.conversation AND j.turn = t.number \
                     AND j.state = 'started' AND j.kind = 'tool' AND j.resolution IS NULL)"
                ),
                &[],
            )?;
            for r in &stopped {
                let row = turn_row(r);
                if row.effective(now) == TurnState::Interrupted {
                    out.push((r.text(11), row.number));
                }
            }
            out.sort();
            Ok(out)
        })
    }
}
