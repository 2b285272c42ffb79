//! The selector's labelled turn sets (`tests/router/*.tsv`): each turn with the plan a person
//! expects, scored against what the selector plans. A wrong tool step — a tool step or a confirm
//! whose tool or arguments are not the expected ones, or one where none was expected — is
//! counted apart from the rest: the selector must never write one.

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::Arc;

use serde_json::Value;
use stalwart_record::Record;
use stalwart_router::{Plan, PlanKind, Request};

/// One labelled turn.
#[derive(Debug, Clone)]
pub struct Labelled {
    pub agent: String,
    pub kind: String,
    pub tool: String,
    pub arguments: Value,
    pub turn: String,
}

/// Reads a labelled set (tab-separated: agent, kind, tool, arguments as JSON, turn).
pub fn read_set(path: &Path) -> Result<Vec<Labelled>, String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
    text.lines()
        .filter(|l| !l.starts_with('#'))
        .map(|line| {
            let mut parts = line.splitn(5, '\t');
            let mut next = || parts.next().unwrap_or_default().to_string();
            let (agent, kind, tool, arguments, turn) = (next(), next(), next(), next(), next());
            Ok(Labelled {
                agent,
                kind,
                tool,
                arguments: serde_json::from_str(&arguments)
                    .map_err(|e| format!("{}: bad arguments `{arguments}`: {e}", path.display()))?,
                turn,
            })
        })
        .collect()
}

/// Compiles an agent into a temporary record folder and loads it.
pub fn compile(agent: &Path) -> Result<Record, String> {
    let out = tempfile::tempdir().map_err(|e| e.to_string())?;
    let target = out.path().join("record");
    let outcome = stalwart_driver::compile_agent(
        Arc::new(stalwart_driver::DiskLoader),
        agent,
        &stalwart_driver::CompileOptions {
            out: Some(target.clone()),
        },
    );
    if outcome.has_errors() {
        return Err(format!("{} does not compile", agent.display()));
    }
    Record::read(target.join("record.bin")).map_err(|e| e.to_string())
}

/// How a plan compares with its label.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verdict {
    Right,
    /// Not the plan expected, but no call was written that should not have been.
    Missed,
    /// A tool step or confirm with another tool or other arguments, or where none was expected.
    WrongToolStep,
}

/// The plan the selector makes for a labelled turn (a new session, the record's language).
pub fn plan_of(record: &Record, l: &Labelled) -> Result<Plan, String> {
    stalwart_router::plan(
        record.body(),
        &Request {
            agent: &l.agent,
            turn: &l.turn,
            language: None,
            earlier: &[],
            results: &[],
        },
    )
    .map_err(|e| e.to_string())
}

/// Judges a plan against its label.
pub fn judge(plan: &Plan, l: &Labelled) -> Verdict {
    let writes = matches!(plan.kind, PlanKind::ToolStep | PlanKind::Confirm);
    let call_is = |tool: &str, args: &Value| {
        plan.call.as_ref().is_some_and(|c| {
            c.tool == tool && crate::scenario::same(&Value::Object(c.arguments.clone()), args)
        })
    };
    let right = match l.kind.as_str() {
        "tool_step" | "confirm" => plan.kind.as_str() == l.kind && call_is(&l.tool, &l.arguments),
        "ask" if l.tool.contains('|') => {
            let mut want: Vec<&str> = l.tool.split('|').collect();
            let mut got: Vec<&str> = plan.choices.iter().map(String::as_str).collect();
            want.sort_unstable();
            got.sort_unstable();
            plan.kind == PlanKind::Ask && want == got
        }
        "ask" => plan.kind == PlanKind::Ask && plan.call.as_ref().is_some_and(|c| c.tool == l.tool),
        "declined" => plan.kind == PlanKind::Declined && plan.rule.as_deref() == Some(&l.tool),
        "unread" => plan.kind == PlanKind::Unread,
        _ => false,
    };
    if right {
        Verdict::Right
    } else if writes {
        Verdict::WrongToolStep
    } else {
        Verdict::Missed
    }
}

/// Per expected kind: how many turns, how many planned right.
pub type Tally = BTreeMap<String, (usize, usize)>;

/// Runs a whole set: the tally, and every turn not planned right with what was planned.
pub fn run_set(
    record: &Record,
    set: &[Labelled],
) -> Result<(Tally, Vec<(Verdict, String)>), String> {
    let mut tally = Tally::new();
    let mut misses = Vec::new();
    for l in set {
        let plan = plan_of(record, l)?;
        let verdict = judge(&plan, l);
        let entry = tally.entry(l.kind.clone()).or_default();
        entry.0 += 1;
        if verdict == Verdict::Right {
            entry.1 += 1;
        } else {
            let call = plan
                .call
                .as_ref()
                .map(|c| format!("{} {}", c.tool, Value::Object(c.arguments.clone())))
                .unwrap_or_default();
            misses.push((
                verdict,
                format!(
                    "[{}] {:?} → expected {} {} {}, planned {} {call} {:?} {:?}",
                    l.agent,
                    l.turn,
                    l.kind,
                    l.tool,
                    l.arguments,
                    plan.kind.as_str(),
                    plan.choices,
                    plan.reason
                ),
            ));
        }
    }
    Ok((tally, misses))
}
