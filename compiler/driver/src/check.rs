//! `stalwart check` and `stalwart report`: the tool check run once from the command line, with
//! the history kept in a JSON file, anchored and locked in the state folder, and the key read
//! from the licence file (all of it through `stalwart-host`).
//!
//! The flags' JSON (`--args`, `--origins`, `--labels`, `--context`, `--result`) is given as
//! text, `@FILE` or `-` (standard input) and read strictly; every bad input is a coded
//! [`HostError`] and leaves every file as it was.

use std::path::{Path, PathBuf};

use stalwart_host::history_file::{hold, new_id};
use stalwart_host::intake::{MAX_NESTING, list_map, object, parse_strict, read_flags, string_map};
use stalwart_host::key::load_key;
use stalwart_host::state::StateDir;
use stalwart_host::{HostError, RECORD_UNUSABLE, REPORT_REFUSED, UNKNOWN_AGENT, UNKNOWN_LABEL};
use stalwart_record::{LoadError, Record};
use stalwart_runtime::{Call, Check, Env, Outcome, Session};

/// The code of a record that cannot be used (for the plan's errors).
pub(crate) const RECORD_UNUSABLE_CODE: stalwart_host::Code = RECORD_UNUSABLE;

/// The flags of `stalwart check`.
#[derive(Debug, Clone, Default)]
pub struct CheckRequest {
    pub dir: PathBuf,
    pub agent: String,
    pub tool: String,
    pub args: String,
    pub origins: Option<String>,
    pub labels: Option<String>,
    pub context: Option<String>,
    pub turns: Vec<String>,
    pub intent: Option<String>,
    pub history: Option<PathBuf>,
    pub confirmation: Option<String>,
    pub undoes: Option<u32>,
    /// A plan `stalwart plan` printed (JSON, `@FILE` or `-`): the call it writes is checked —
    /// its tool, arguments and origins, and its intent unless `intent` is given.
    pub plan: Option<String>,
}

/// Runs one check and returns its answer.
pub fn run_check(req: &CheckRequest) -> Result<Check, HostError> {
    let planned;
    let req = match &req.plan {
        Some(plan) => {
            planned = from_plan(req, plan)?;
            &planned
        }
        None => req,
    };
    let record = load_record(&req.dir)?;
    let body = record.body();
    if !body.agents.is_empty() && !body.agents.iter().any(|a| a.name.as_str() == req.agent) {
        let names: Vec<&str> = body.agents.iter().map(|a| a.name.as_str()).collect();
        return Err(HostError::new(
            UNKNOWN_AGENT,
            format!(
                "unknown agent `{}`: the record has {}",
                req.agent,
                names.join(", ")
            ),
        ));
    }
    let now = now();
    let key = load_key(&req.dir, now)?.for_record(&record.header().digest);
    let [args, origins, labels, context] = read_flags([
        ("--args", Some(req.args.as_str())),
        ("--origins", req.origins.as_deref()),
        ("--labels", req.labels.as_deref()),
        ("--context", req.context.as_deref()),
    ])?;
    let labels = labels
        .as_ref()
        .map(list_map)
        .transpose()?
        .unwrap_or_default();
    if let Some(label) = stalwart_runtime::unknown_label(body, &labels) {
        let agents: Vec<&str> = body.agents.iter().map(|a| a.name.as_str()).collect();
        return Err(HostError::new(
            UNKNOWN_LABEL,
            format!(
                "--labels: unknown label `{label}`: a label is `untrusted`, \
                 `untrusted:<where>`, `low`, `medium`, `high` or `agent:<name>` with an agent \
                 of the record ({})",
                if agents.is_empty() {
                    "it has none".to_string()
                } else {
                    agents.join(", ")
                }
            ),
        ));
    }
    let call = Call {
        tool: req.tool.clone(),
        agent: Some(req.agent.clone()),
        arguments: args
            .as_ref()
            .map(object)
            .transpose()?
            .unwrap_or_default()
            .into(),
        origins: origins
            .as_ref()
            .map(string_map)
            .transpose()?
            .unwrap_or_default()
            .into(),
        labels,
        context: context
            .as_ref()
            .map(object)
            .transpose()?
            .unwrap_or_default(),
        intent: req.intent.clone(),
        confirmation: req.confirmation.clone(),
        undoes: req.undoes,
    };
    let env = Env { key: &key, now };
    let Some(path) = &req.history else {
        let mut session = Session::new(req.agent.clone(), new_id()?);
        return Ok(check_once(body, env, &mut session, &req.turns, &call));
    };
    let state = StateDir::locate()?;
    let mut held = hold(&state, &key, path, Some(&req.agent))?;
    let check = check_once(body, env, &mut held.session, &req.turns, &call);
    if is_history_invalid(&check) {
        held.restart()?;
    }
    held.save()?;
    Ok(check)
}

/// The request with the call a plan writes: its tool, arguments, origins and intent.
fn from_plan(req: &CheckRequest, plan: &str) -> Result<CheckRequest, HostError> {
    let [plan] = read_flags([("--plan", Some(plan))])?;
    let plan = match plan {
        Some(text) => serde_json::Value::Object(object(&text)?),
        None => serde_json::Value::Null,
    };
    let kind = plan
        .get("kind")
        .and_then(serde_json::Value::as_str)
        .unwrap_or("");
    let call = plan.get("call").filter(|c| !c.is_null());
    let Some(call) = call.filter(|_| matches!(kind, "tool_step" | "confirm")) else {
        return Err(HostError::new(
            stalwart_host::WRONG_SHAPE,
            format!(
                "--plan: a plan of kind `{kind}` writes no call to check; only a tool step or a \
                 confirm does"
            ),
        ));
    };
    let tool = call
        .get("tool")
        .and_then(serde_json::Value::as_str)
        .unwrap_or_default()
        .to_string();
    let field = |name: &str| {
        call.get(name)
            .cloned()
            .unwrap_or_else(|| serde_json::Value::Object(Default::default()))
            .to_string()
    };
    Ok(CheckRequest {
        tool,
        args: field("arguments"),
        origins: Some(field("origins")),
        intent: req.intent.clone().or_else(|| {
            plan.get("intent")
                .and_then(serde_json::Value::as_str)
                .map(str::to_string)
        }),
        plan: None,
        ..req.clone()
    })
}

/// Reads the turns into the session, then checks the call.
fn check_once(
    body: &stalwart_record::ArchivedRecordBody,
    env: Env<'_>,
    session: &mut Session,
    turns: &[String],
    call: &Call,
) -> Check {
    for turn in turns {
        stalwart_runtime::read(env, session, turn);
    }
    stalwart_runtime::check_tool_call(body, env, session, call)
}

fn is_history_invalid(check: &Check) -> bool {
    check.reasons.len() == 1
        && check
            .reasons
            .first()
            .is_some_and(|r| r == "history_invalid")
}

/// The flags of `stalwart report`.
#[derive(Debug, Clone, Default)]
pub struct ReportRequest {
    pub dir: PathBuf,
    pub history: PathBuf,
    pub step: u32,
    pub outcome: String,
    pub result: Option<String>,
}

/// Appends a signed report of what became of a call to the history file.
pub fn run_report(req: &ReportRequest) -> Result<(), HostError> {
    let record = load_record(&req.dir)?;
    let now = now();
    let key = load_key(&req.dir, now)?.for_record(&record.header().digest);
    let outcome = Outcome::parse(&req.outcome).ok_or_else(|| {
        HostError::new(
            REPORT_REFUSED,
            format!(
                "unknown outcome `{}`: one of ran, failed, outcome_unknown, compensated",
                req.outcome
            ),
        )
    })?;
    let [result] = read_flags([("--result", req.result.as_deref())])?;
    let result = result
        .map(|text| parse_strict(&text, MAX_NESTING))
        .transpose()?;
    let state = StateDir::locate()?;
    let mut held = hold(&state, &key, &req.history, None)?;
    stalwart_runtime::report(
        Env { key: &key, now },
        &mut held.session,
        req.step,
        outcome,
        result,
    )
    .map_err(|e| {
        HostError::new(
            REPORT_REFUSED,
            format!(
                "cannot report on call {}: {e}; `{}` was left as it is",
                req.step,
                req.history.display()
            ),
        )
    })?;
    held.save()
}

pub(crate) fn load_record(dir: &Path) -> Result<Record, HostError> {
    let path = if dir.is_dir() {
        dir.join("record.bin")
    } else {
        dir.to_path_buf()
    };
    Record::open(&path).map_err(|e| {
        let todo = match e {
            LoadError::UnsupportedVersion { .. }
            | LoadError::Archive(_)
            | LoadError::Deserialize(_) => "",
            _ => "; compile the agent again (`stalwart compile agent.yaml -o DIR`)",
        };
        HostError::new(
            RECORD_UNUSABLE,
            format!("cannot use the record `{}`: {e}{todo}", path.display()),
        )
    })
}

/// Seconds since the epoch, from the system clock (nothing in the environment moves it).
pub(crate) fn now() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0)
}
