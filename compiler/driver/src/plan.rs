//! `stalwart plan`: the selector's plan for a turn, from the command line (DESIGN §6).
//!
//! With `--history FILE` the person's earlier turns come from the history (anchored and locked
//! in the state folder, as `stalwart check` holds it) and the turn is recorded there as the plan
//! says: a new turn (`read`), or the answer to the question the last plan asked (`reply`).
//! Without `--turn`, the history's last turn is planned again with the results its run has
//! reported since — the next round of a chain — and nothing is recorded. A history that does not
//! verify starts the session afresh, as the check does.

use std::path::PathBuf;

use serde_json::Value;
use stalwart_host::history_file::{hold, new_id};
use stalwart_host::key::load_key;
use stalwart_host::state::StateDir;
use stalwart_host::{HostError, UNKNOWN_AGENT, WRONG_SHAPE};
use stalwart_record::Language;
use stalwart_router::{Earlier, Plan, Record, Request, RunResult};
use stalwart_runtime::history::verify_session;
use stalwart_runtime::{Entry, Env, Session};

/// The flags of `stalwart plan`.
#[derive(Debug, Clone, Default)]
pub struct PlanRequest {
    pub dir: PathBuf,
    pub agent: String,
    pub turn: Option<String>,
    pub language: Option<Language>,
    pub history: Option<PathBuf>,
}

/// The plan for the turn.
pub fn run_plan(req: &PlanRequest) -> Result<Plan, HostError> {
    let record = crate::check::load_record(&req.dir)?;
    let body = record.body();
    let Some(path) = &req.history else {
        let turn = req.turn.as_deref().ok_or_else(|| {
            HostError::new(
                WRONG_SHAPE,
                "give the turn with --turn (or a --history to plan again)",
            )
        })?;
        return plan_with(body, req, turn, &[], &[]);
    };
    let now = crate::check::now();
    let key = load_key(&req.dir, now)?.for_record(&record.header().digest);
    let state = StateDir::locate()?;
    let mut held = hold(&state, &key, path, Some(&req.agent))?;
    let valid = !held.session.tampered
        && verify_session(&key, &mut held.session)
        && held.session.follows_anchor();
    if !valid {
        held.session.truncate(0);
        held.session.tampered = false;
        held.restart()?;
    }
    let session = &held.session;
    let turns: Vec<(bool, &str)> = session
        .entries()
        .iter()
        .filter_map(|e| match e {
            Entry::Read { text, .. } => Some((false, text.as_str())),
            Entry::Reply { text, .. } => Some((true, text.as_str())),
            _ => None,
        })
        .collect();
    let plan = match &req.turn {
        Some(turn) => {
            let earlier: Vec<Earlier<'_>> = turns
                .iter()
                .map(|&(reply, text)| Earlier { text, reply })
                .collect();
            plan_with(body, req, turn, &earlier, &[])?
        }
        None => {
            let Some((&(_, last), before)) = turns.split_last() else {
                return Err(HostError::new(
                    WRONG_SHAPE,
                    format!(
                        "the history `{}` holds no turn to plan again: give --turn",
                        path.display()
                    ),
                ));
            };
            let earlier: Vec<Earlier<'_>> = before
                .iter()
                .map(|&(reply, text)| Earlier { text, reply })
                .collect();
            let results = run_results(session);
            let results: Vec<RunResult<'_>> = results
                .iter()
                .map(|(step, tool, result)| RunResult {
                    step: *step,
                    tool,
                    result,
                })
                .collect();
            let plan = plan_with(body, req, last, &earlier, &results)?;
            held.save()?;
            return Ok(plan);
        }
    };
    if let Some(turn) = &req.turn {
        let env = Env { key: &key, now };
        match plan.record_as {
            Record::Read => stalwart_runtime::read(env, &mut held.session, turn),
            Record::Reply => stalwart_runtime::reply(env, &mut held.session, turn),
        }
    }
    held.save()?;
    Ok(plan)
}

fn plan_with(
    body: &stalwart_record::ArchivedRecordBody,
    req: &PlanRequest,
    turn: &str,
    earlier: &[Earlier<'_>],
    results: &[RunResult<'_>],
) -> Result<Plan, HostError> {
    stalwart_router::plan(
        body,
        &Request {
            agent: &req.agent,
            turn,
            language: req.language,
            earlier,
            results,
        },
    )
    .map_err(|e| match e {
        stalwart_router::PlanError::UnknownAgent { .. } => {
            HostError::new(UNKNOWN_AGENT, e.to_string())
        }
        stalwart_router::PlanError::NoReader { .. } => {
            HostError::new(crate::check::RECORD_UNUSABLE_CODE, e.to_string())
        }
    })
}

/// The calls of the current run (after the last turn) that ran, with their reported results.
pub fn run_results(session: &Session) -> Vec<(u32, String, Value)> {
    session
        .allowed_run_calls()
        .filter_map(|c| {
            let result = session.result_of(c)?;
            Some((c.step, c.tool.to_string(), result.clone()))
        })
        .collect()
}

/// A new session id (for callers that plan without a history file).
pub fn fresh_id() -> Result<String, HostError> {
    new_id()
}
