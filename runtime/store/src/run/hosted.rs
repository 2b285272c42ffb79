//! Turns whose calls a host makes one at a time: a graph (LangGraph's tools node) runs the tools,
//! not a program the store runs again from its start.
//!
//! The host names each call: turn `number` (a graph's n-th person message) and its `invocation`
//! in the turn (the call's place among the turn's tool calls). A call is checked, asked about,
//! journaled and run exactly as a program's call is ([`Turn::tool`]); a node the graph runs
//! again gets, for a call that ran, its recorded result (nothing runs twice), and for a call
//! that was asked about, the answer the store holds, whichever process gave it.

use std::collections::HashMap;

use stalwart_host::HostError;
use stalwart_runtime::{Call, Env};

use super::{Guard, Reply, ReplyKind, Stop, ToolFn, Turn, abort};
use crate::approval::{Approval, ApprovalState};
use crate::codes::TURN_STATE;
use crate::db::Param;
use crate::store::{Store, conversation_row, int, missing, now};
use crate::turns::{JournalRecord, TurnState, approvals_of, earlier_turns, journal_of, turn_of};

/// What a claim of a hosted turn found.
enum Claim {
    /// The turn is this process's to run the call in.
    Run {
        input: String,
        writer: u64,
        journal: Vec<JournalRecord>,
        approvals: Vec<Approval>,
    },
    /// The call's approval waits for a person: nothing runs.
    Waits(Box<Approval>),
    /// The call ran (or was answered) before, in a turn that has ended since: its record.
    Ended(Reply),
}

impl Store {
    /// Opens turn `number` of a conversation a host drives, with the person's words `input`
    /// read into the history, unless the conversation has that turn (or a later one) already.
    /// Earlier turns left open are ended: `done` when they were running, `abandoned` when they
    /// still waited (the host went on without their answer).
    pub fn host_turn(
        &mut self,
        guard: &Guard<'_>,
        conversation: &str,
        number: u64,
        input: &str,
    ) -> Result<(), HostError> {
        let now = now();
        let lease = now.saturating_add(self.lease);
        let key = guard.key;
        self.with_session(conversation, |tx, session| {
            let later = tx.query(
                "SELECT number FROM turns WHERE conversation = $1 AND number >= $2 LIMIT 1",
                &[Param::Text(conversation), int(number)],
            )?;
            if !later.is_empty() {
                return Ok(());
            }
            tx.exec(
                "UPDATE turns SET state = 'done', owner = NULL, updated = $1 WHERE conversation \
                 = $2 AND number < $3 AND state IN ('running', 'interrupted')",
                &[int(now), Param::Text(conversation), int(number)],
            )?;
            tx.exec(
                "UPDATE turns SET state = 'abandoned', owner = NULL, ended_why = 'the host went \
                 on', updated = $1 WHERE conversation = $2 AND number < $3 AND state = 'waiting'",
                &[int(now), Param::Text(conversation), int(number)],
            )?;
            super::open_turn(
                tx,
                Env { key, now },
                session,
                conversation,
                number,
                input,
                lease,
            )?;
            Ok(())
        })
    }

    /// Call `invocation` of turn `number` (opened with `input` when it is new, as
    /// [`Store::host_turn`] does), made by the host: checked, asked about, journaled and run as a
    /// program's call is, or answered from the journal when it ran before. A call whose approval
    /// still waits for a person ends in [`Stop::Waiting`] and nothing runs; a call a person
    /// answered goes on as they said (a yes checked again with the confirmation's token).
    #[expect(
        clippy::too_many_arguments,
        reason = "the call's place, the call and its code"
    )]
    pub fn host_call(
        &mut self,
        guard: &mut Guard<'_>,
        conversation: &str,
        number: u64,
        input: &str,
        invocation: u32,
        call: Call,
        run: &mut ToolFn<'_>,
    ) -> Result<Result<Reply, Stop>, HostError> {
        self.host_turn(guard, conversation, number, input)?;
        let now = now();
        let lease = now.saturating_add(self.lease);
        let claim = self.tx(|tx| {
            conversation_row(tx, conversation, true)?.ok_or_else(|| missing(conversation))?;
            let row = turn_of(tx, conversation, Some(number))?;
            let state = row.effective(now);
            let mine = row.owner.as_deref() == Some(crate::owner::me());
            if state.ended()
                && let Some(reply) = journal_of(tx, conversation, number)?
                    .into_iter()
                    .find(|r| r.kind == "tool" && r.number == invocation && r.state == "done")
                    .map(replayed)
            {
                return Ok(Claim::Ended(reply));
            }
            if state.ended() || (state == TurnState::Running && !mine) {
                return Err(abort(
                    TURN_STATE,
                    format!(
                        "turn {number} of `{conversation}` is {}{}",
                        state.as_str(),
                        match (&row.owner, state) {
                            (Some(o), TurnState::Running) => format!(" in the process `{o}`"),
                            _ => String::new(),
                        }
                    ),
                ));
            }
            let approvals = approvals_of(tx, conversation, number)?;
            if let Some(a) = approvals
                .iter()
                .find(|a| a.invocation == invocation && a.state == ApprovalState::Pending)
            {
                return Ok(Claim::Waits(Box::new(a.clone())));
            }
            let journal = journal_of(tx, conversation, number)?;
            let writer = if state == TurnState::Running {
                row.writer
            } else {
                row.writer + 1
            };
            tx.exec(
                "UPDATE turns SET state = 'running', owner = $1, lease = $2, writer = $3, \
                 updated = $4 WHERE conversation = $5 AND number = $6",
                &[
                    Param::Text(crate::owner::me()),
                    int(lease),
                    int(writer),
                    int(now),
                    Param::Text(conversation),
                    int(number),
                ],
            )?;
            Ok(Claim::Run {
                input: row.input,
                writer,
                journal,
                approvals,
            })
        })?;
        let (input, writer, journal, approvals) = match claim {
            Claim::Waits(a) => return Ok(Err(Stop::Waiting(vec![*a]))),
            Claim::Ended(reply) => return Ok(Ok(reply)),
            Claim::Run {
                input,
                writer,
                journal,
                approvals,
            } => (input, writer, journal, approvals),
        };
        let earlier = self.tx(|tx| earlier_turns(tx, conversation, number))?;
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
            next_invocation: invocation.saturating_sub(1),
            model_seen: HashMap::new(),
            path: Vec::new(),
            pending: Vec::new(),
        };
        let reply = turn.tool(call, run);
        match &reply {
            Ok(_) => turn.settle()?,
            Err(Stop::Interrupted(_) | Stop::Failed(_)) => turn.set_interrupted()?,
            Err(Stop::Store(e)) => {
                let _ = turn.set_interrupted();
                return Err(e.clone());
            }
            Err(Stop::Waiting(_) | Stop::ApprovalRequired(_)) => {}
        }
        Ok(reply)
    }

    /// Ends turn `number` of a conversation a host drives with its answer (the model's last
    /// words), unless it waits for a person or has ended already.
    pub fn host_done(
        &mut self,
        conversation: &str,
        number: u64,
        answer: &str,
    ) -> Result<(), HostError> {
        let now = now();
        self.tx(|tx| {
            conversation_row(tx, conversation, true)?.ok_or_else(|| missing(conversation))?;
            tx.exec(
                "UPDATE turns SET state = 'done', answer = $1, owner = NULL, updated = $2 \
                 WHERE conversation = $3 AND number = $4 AND state IN ('running', 'interrupted')",
                &[
                    Param::Text(answer),
                    int(now),
                    Param::Text(conversation),
                    int(number),
                ],
            )?;
            Ok(())
        })
    }
}

/// A call's `done` record as the reply the host reads again.
fn replayed(r: JournalRecord) -> Reply {
    let kind = match r.outcome.as_deref() {
        Some("failed") => ReplyKind::Failed,
        Some("denied") => ReplyKind::Denied,
        Some("refused") => ReplyKind::Refused,
        _ => ReplyKind::Ran,
    };
    Reply {
        invocation: r.number,
        kind,
        value: r.result.unwrap_or(serde_json::Value::Null),
        replayed: true,
    }
}

impl Turn<'_, '_> {
    /// After a hosted call ran: the reads' results recorded, and the turn back to `waiting`
    /// while another of its calls waits for a person.
    fn settle(&mut self) -> Result<(), HostError> {
        let r = self.write(|tx, t| {
            let waits = tx.query(
                "SELECT invocation FROM approvals WHERE conversation = $1 AND turn = $2 AND \
                 state = 'pending'",
                &[Param::Text(t.conversation), int(t.turn)],
            )?;
            if !waits.is_empty() {
                tx.exec(
                    "UPDATE turns SET state = 'waiting', owner = NULL WHERE conversation = $1 \
                     AND number = $2",
                    &[Param::Text(t.conversation), int(t.turn)],
                )?;
            }
            Ok(())
        });
        match r {
            Ok(()) => Ok(()),
            Err(Stop::Store(e)) => Err(e),
            Err(_) => Ok(()),
        }
    }
}
