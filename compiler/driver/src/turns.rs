//! `stalwart turns`: the turns a store holds, and the answers a person or an operator gives
//! from a terminal (DESIGN §5.8), through `stalwart-store`.
//!
//! Each function opens the store by its URL, does one thing in one transaction, and returns
//! plain data for the command line to print. An answer is recorded here; the turn goes on when
//! its host resumes it (the host has the model and the tools; the terminal has neither).

use std::collections::BTreeMap;

use serde_json::Value;
use stalwart_host::{HostError, WRONG_SHAPE};
use stalwart_store::Store;
pub use stalwart_store::{
    Answered, Approval, ApprovalState, JournalRecord, TurnFilter, TurnInfo, TurnState, TurnSummary,
    Unfinished,
};

/// The turns of the store at `url` that `filter` lets through.
pub fn list_turns(url: &str, filter: &TurnFilter) -> Result<Vec<TurnSummary>, HostError> {
    Store::open(url)?.turns(filter)
}

/// One turn, whole (the conversation's last when `turn` is `None`).
pub fn show_turn(url: &str, conversation: &str, turn: Option<u64>) -> Result<TurnInfo, HostError> {
    Store::open(url)?.turn(conversation, turn)
}

/// Approves what the turn waits for, as `by`.
pub fn approve_turn(
    url: &str,
    conversation: &str,
    turn: Option<u64>,
    invocation: Option<u32>,
    by: &str,
) -> Result<Answered, HostError> {
    Store::open(url)?.approve(conversation, turn, invocation, by)
}

/// Refuses what the turn waits for, as `by`, with a reason the model reads.
pub fn deny_turn(
    url: &str,
    conversation: &str,
    turn: Option<u64>,
    invocation: Option<u32>,
    by: &str,
    reason: Option<&str>,
) -> Result<Answered, HostError> {
    Store::open(url)?.deny(conversation, turn, invocation, by, reason)
}

/// Says what became of an interrupted turn's unfinished calls: `results` as `N=VALUE` (a JSON
/// value, or else the text as it is) and `rerun` by number. Answers the turn's number.
pub fn resolve_turn(
    url: &str,
    conversation: &str,
    turn: Option<u64>,
    results: &[String],
    rerun: &[u32],
    by: &str,
) -> Result<u64, HostError> {
    let mut parsed = BTreeMap::new();
    for r in results {
        let (n, value) = r.split_once('=').ok_or_else(|| {
            HostError::new(
                WRONG_SHAPE,
                format!("--result `{r}`: write the call's number, `=`, and what it returned"),
            )
        })?;
        let n: u32 = n.trim().parse().map_err(|_| {
            HostError::new(
                WRONG_SHAPE,
                format!("--result `{r}`: `{n}` is not a call's number"),
            )
        })?;
        let value = serde_json::from_str::<Value>(value)
            .unwrap_or_else(|_| Value::String(value.to_string()));
        parsed.insert(n, value);
    }
    Store::open(url)?.resolve(conversation, turn, &parsed, rerun, by)
}

/// Ends a turn without going on.
pub fn abandon_turn(
    url: &str,
    conversation: &str,
    turn: Option<u64>,
    by: &str,
    why: Option<&str>,
) -> Result<u64, HostError> {
    Store::open(url)?.abandon(conversation, turn, by, why)
}
