//! `stalwart turns list|show|approve|deny|resume|abandon --store URL …`: conversations that wait
//! for a person, from a terminal (DESIGN §5.8). Text for people, `--format json` for scripts.
//!
//! Exit codes: 0 done, 1 the answer was not taken (another answer came first), 2 bad input or a
//! store that cannot be used.

use std::fmt::Write as _;

use clap::{Args, Subcommand, ValueEnum};
use serde_json::json;
use stalwart_driver::turns::{
    Answered, Approval, ApprovalState, TurnFilter, TurnInfo, TurnState, TurnSummary,
};

use crate::render;

#[derive(Subcommand, Debug)]
pub enum TurnsCommand {
    /// The turns of the store, one a line.
    List {
        #[command(flatten)]
        store: StoreArgs,
        /// Only this conversation's turns.
        #[arg(long)]
        conversation: Option<String>,
        /// Only this agent's turns.
        #[arg(long)]
        agent: Option<String>,
        /// Only turns in this state.
        #[arg(long, value_enum)]
        state: Option<StateArg>,
    },
    /// One turn, whole: what it waits for, what a crash left unfinished, its journal.
    Show {
        #[command(flatten)]
        store: StoreArgs,
        #[command(flatten)]
        turn: TurnArgs,
    },
    /// Approve what a turn waits for; the turn goes on when its host resumes it.
    Approve {
        #[command(flatten)]
        store: StoreArgs,
        #[command(flatten)]
        turn: TurnArgs,
        /// Only this call (its invocation number); default: everything the turn waits for.
        #[arg(long)]
        invocation: Option<u32>,
        /// Who answers.
        #[arg(long)]
        by: String,
    },
    /// Refuse what a turn waits for; the model reads "The person did not allow this call."
    /// and the reason.
    Deny {
        #[command(flatten)]
        store: StoreArgs,
        #[command(flatten)]
        turn: TurnArgs,
        /// Only this call (its invocation number); default: everything the turn waits for.
        #[arg(long)]
        invocation: Option<u32>,
        /// Who answers.
        #[arg(long)]
        by: String,
        /// Why, as the model reads it.
        #[arg(long)]
        reason: Option<String>,
    },
    /// Say what became of an interrupted turn's unfinished calls, so it can go on.
    Resume {
        #[command(flatten)]
        store: StoreArgs,
        #[command(flatten)]
        turn: TurnArgs,
        /// `N=VALUE`: call N did run, and returned VALUE (JSON, or else the text as it is).
        #[arg(long = "result")]
        results: Vec<String>,
        /// Call N did not run: run it again.
        #[arg(long)]
        rerun: Vec<u32>,
        /// Who says it (recorded in the journal).
        #[arg(long)]
        by: String,
    },
    /// End a turn without going on.
    Abandon {
        #[command(flatten)]
        store: StoreArgs,
        #[command(flatten)]
        turn: TurnArgs,
        /// Who ends it (recorded in the journal).
        #[arg(long)]
        by: String,
        /// Why (recorded in the journal).
        #[arg(long)]
        reason: Option<String>,
    },
}

#[derive(Args, Debug)]
pub struct StoreArgs {
    /// The store: `sqlite:PATH` (or a path) or `postgres://…`.
    #[arg(long)]
    store: String,
    /// How to print the answer: `text` for a person, `json` for a script.
    #[arg(long, value_enum, default_value_t = OutFormat::Text)]
    format: OutFormat,
}

#[derive(Args, Debug)]
pub struct TurnArgs {
    /// The conversation's id.
    conversation: String,
    /// The turn's number (default: the conversation's last turn).
    #[arg(long)]
    turn: Option<u64>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum OutFormat {
    Text,
    Json,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum StateArg {
    Running,
    Waiting,
    Interrupted,
    Done,
    Abandoned,
}

impl From<StateArg> for TurnState {
    fn from(s: StateArg) -> Self {
        match s {
            StateArg::Running => TurnState::Running,
            StateArg::Waiting => TurnState::Waiting,
            StateArg::Interrupted => TurnState::Interrupted,
            StateArg::Done => TurnState::Done,
            StateArg::Abandoned => TurnState::Abandoned,
        }
    }
}

/// Runs a `turns` command; answers the exit code.
pub fn run(command: TurnsCommand) -> u8 {
    match command {
        TurnsCommand::List {
            store,
            conversation,
            agent,
            state,
        } => {
            let filter = TurnFilter {
                conversation,
                agent,
                state: state.map(TurnState::from),
            };
            done(
                stalwart_driver::turns::list_turns(&store.store, &filter),
                |list| match store.format {
                    OutFormat::Json => {
                        serde_json::to_string_pretty(list).unwrap_or_default() + "\n"
                    }
                    OutFormat::Text => list_text(list),
                },
            )
        }
        TurnsCommand::Show { store, turn } => done(
            stalwart_driver::turns::show_turn(&store.store, &turn.conversation, turn.turn),
            |info| match store.format {
                OutFormat::Json => serde_json::to_string_pretty(info).unwrap_or_default() + "\n",
                OutFormat::Text => show_text(info),
            },
        ),
        TurnsCommand::Approve {
            store,
            turn,
            invocation,
            by,
        } => answered(
            stalwart_driver::turns::approve_turn(
                &store.store,
                &turn.conversation,
                turn.turn,
                invocation,
                &by,
            ),
            store.format,
        ),
        TurnsCommand::Deny {
            store,
            turn,
            invocation,
            by,
            reason,
        } => answered(
            stalwart_driver::turns::deny_turn(
                &store.store,
                &turn.conversation,
                turn.turn,
                invocation,
                &by,
                reason.as_deref(),
            ),
            store.format,
        ),
        TurnsCommand::Resume {
            store,
            turn,
            results,
            rerun,
            by,
        } => done(
            stalwart_driver::turns::resolve_turn(
                &store.store,
                &turn.conversation,
                turn.turn,
                &results,
                &rerun,
                &by,
            ),
            |number| match store.format {
                OutFormat::Json => format!(
                    "{}\n",
                    json!({"conversation": turn.conversation, "turn": number, "results": results, "rerun": rerun, "by": by})
                ),
                OutFormat::Text => {
                    let mut parts: Vec<String> = results
                        .iter()
                        .map(|r| match r.split_once('=') {
                            Some((n, v)) => format!("call {n} returned {v}"),
                            None => r.clone(),
                        })
                        .collect();
                    parts.extend(rerun.iter().map(|n| format!("call {n} runs again")));
                    format!(
                        "Recorded for turn {number} of `{}` (by {by}): {}. The turn goes on when \
                         its host resumes it.\n",
                        turn.conversation,
                        parts.join("; ")
                    )
                }
            },
        ),
        TurnsCommand::Abandon {
            store,
            turn,
            by,
            reason,
        } => done(
            stalwart_driver::turns::abandon_turn(
                &store.store,
                &turn.conversation,
                turn.turn,
                &by,
                reason.as_deref(),
            ),
            |number| match store.format {
                OutFormat::Json => format!(
                    "{}\n",
                    json!({"conversation": turn.conversation, "turn": number, "state": "abandoned", "by": by, "why": reason})
                ),
                OutFormat::Text => format!(
                    "Abandoned turn {number} of `{}` (by {by}{}).\n",
                    turn.conversation,
                    reason
                        .as_deref()
                        .map(|r| format!(": {r}"))
                        .unwrap_or_default()
                ),
            },
        ),
    }
}

fn done<T>(result: Result<T, stalwart_driver::HostError>, print: impl FnOnce(&T) -> String) -> u8 {
    match result {
        Ok(value) => {
            out!("{}", print(&value));
            0
        }
        Err(e) => {
            render::host_error(&e);
            2
        }
    }
}

fn answered(result: Result<Answered, stalwart_driver::HostError>, format: OutFormat) -> u8 {
    let taken = matches!(result, Ok(Answered::Recorded(_)));
    let code = done(result, |a| match format {
        OutFormat::Json => serde_json::to_string_pretty(a).unwrap_or_default() + "\n",
        OutFormat::Text => answered_text(a),
    });
    match (code, taken) {
        (0, false) => 1,
        (code, _) => code,
    }
}

fn answered_text(a: &Answered) -> String {
    let mut out = String::new();
    match a {
        Answered::Recorded(list) => {
            for ap in list {
                let verb = if ap.state == ApprovalState::Approved {
                    "Approved"
                } else {
                    "Denied"
                };
                let _ = writeln!(
                    out,
                    "{verb} {} #{} of turn {} of `{}` (by {}{}). The turn goes on when its host \
                     resumes it.",
                    ap.tool,
                    ap.invocation,
                    ap.turn,
                    ap.conversation,
                    ap.answered_by.as_deref().unwrap_or(""),
                    ap.why
                        .as_deref()
                        .map(|w| format!(": {w}"))
                        .unwrap_or_default()
                );
            }
        }
        Answered::Already(list) => {
            for ap in list {
                let _ = writeln!(out, "Already answered: {}", answer_of(ap));
            }
        }
    }
    out
}

/// `write_note #3 of turn 1 was approved by ana at 2026-12-02T10:00:00Z`.
fn answer_of(a: &Approval) -> String {
    let what = format!("{} #{} of turn {}", a.tool, a.invocation, a.turn);
    match a.state {
        ApprovalState::Pending => format!("{what} waits for an answer"),
        state => format!(
            "{what} was {} by {} at {}{}",
            state.as_str(),
            a.answered_by.as_deref().unwrap_or("?"),
            a.answered_at.map(time_text).unwrap_or_default(),
            a.why
                .as_deref()
                .map(|w| format!(": {w}"))
                .unwrap_or_default()
        ),
    }
}

fn list_text(list: &[TurnSummary]) -> String {
    if list.is_empty() {
        return "No turns.\n".into();
    }
    let mut out = String::new();
    for t in list {
        let _ = write!(
            out,
            "{} #{} {} ({}): {}",
            t.conversation,
            t.number,
            t.state.as_str(),
            t.agent,
            t.input
        );
        if !t.waiting.is_empty() {
            let _ = write!(out, " — waits for {}", t.waiting.join(", "));
        }
        if !t.unfinished.is_empty() {
            let n: Vec<String> = t.unfinished.iter().map(|n| format!("#{n}")).collect();
            let _ = write!(out, " — unfinished {}", n.join(", "));
        }
        out.push('\n');
    }
    out
}

fn show_text(t: &TurnInfo) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "Turn {} of `{}` ({}): {}",
        t.number,
        t.conversation,
        t.agent,
        t.state.as_str()
    );
    let _ = writeln!(out, "  input: {}", t.input);
    let _ = writeln!(out, "  runs: {}", t.writer);
    if !t.waiting.is_empty() {
        let _ = writeln!(out, "  waits for:");
        for a in &t.waiting {
            let _ = writeln!(out, "    {a}");
            let _ = writeln!(
                out,
                "      arguments: {}",
                serde_json::Value::Object(a.arguments.clone())
            );
            let _ = writeln!(out, "      question: {}", a.question);
        }
    }
    let answered: Vec<&Approval> = t
        .approvals
        .iter()
        .filter(|a| a.state != ApprovalState::Pending)
        .collect();
    if !answered.is_empty() {
        let _ = writeln!(out, "  answered:");
        for a in answered {
            let _ = writeln!(out, "    {}", answer_of(a));
        }
    }
    if !t.unfinished.is_empty() {
        let _ = writeln!(out, "  unfinished:");
        for u in &t.unfinished {
            let _ = writeln!(
                out,
                "    #{} {} {}{}",
                u.invocation,
                u.name,
                u.input,
                u.resolution
                    .as_deref()
                    .map(|r| format!(" (resolved: {r})"))
                    .unwrap_or_default()
            );
        }
    }
    if !t.journal.is_empty() {
        let _ = writeln!(out, "  journal:");
        for r in &t.journal {
            let what = if r.kind == "model" {
                format!("model request {}", r.number)
            } else {
                format!("#{} {}", r.number, r.name)
            };
            let _ = writeln!(
                out,
                "    {what}: {}{} (run {})",
                r.state,
                r.outcome
                    .as_deref()
                    .map(|o| format!(", {o}"))
                    .unwrap_or_default(),
                r.writer
            );
        }
    }
    if let Some(answer) = &t.answer {
        let _ = writeln!(out, "  answer: {answer}");
    }
    if t.state == TurnState::Abandoned {
        let _ = writeln!(
            out,
            "  abandoned by {}{}",
            t.ended_by.as_deref().unwrap_or("its host"),
            t.ended_why
                .as_deref()
                .map(|w| format!(": {w}"))
                .unwrap_or_default()
        );
    }
    out
}

/// Seconds since the epoch as `YYYY-MM-DDTHH:MM:SSZ` (UTC).
fn time_text(secs: u64) -> String {
    stalwart_runtime::history::format_time(secs)
}

#[cfg(test)]
mod tests {
    #[test]
    fn times_print_as_utc_dates() {
        assert_eq!(super::time_text(0), "1970-01-01T00:00:00Z");
        assert_eq!(super::time_text(1_796_266_645), "2026-12-03T02:57:25Z");
        assert_eq!(super::time_text(951_782_400), "2000-02-29T00:00:00Z");
    }
}
