//! The scenario runner: YAML files that drive the tool check step by step and say what each
//! check must answer. The format is documented in `tests/conformance/README.md`.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use serde_json::{Map, Value};
use stalwart_diagnostics::FileId;
use stalwart_record::Record;
use stalwart_router::{Earlier, Plan, Record as Recorded, Request, RunResult};
use stalwart_runtime::history::parse_time;
use stalwart_runtime::{Call, Check, Entry, Env, Key, Outcome, Session};

/// The clock scenarios start at unless they say otherwise: 2026-11-30T12:00:00Z.
pub const DEFAULT_NOW: u64 = 1_796_040_000;

/// Runs one scenario file; `Err` lists every step that did not answer as expected.
pub fn run_scenario(path: &Path) -> Result<usize, String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let parsed = stalwart_agent::parse_yaml_value(FileId(0), &text);
    if let Some(d) = parsed.diagnostics.first() {
        return Err(format!(
            "{}: not a YAML scenario: {}",
            path.display(),
            d.message
        ));
    }
    let doc = parsed
        .value
        .ok_or_else(|| format!("{}: empty scenario", path.display()))?;
    let dir = path.parent().unwrap_or(Path::new("."));
    let record = load_record(dir, &doc)?;
    let body = record.body();
    let session_spec = doc.get("session").cloned().unwrap_or(Value::Null);
    let agent = session_spec
        .get("agent")
        .and_then(Value::as_str)
        .unwrap_or_default();
    let id = session_spec
        .get("id")
        .and_then(Value::as_str)
        .unwrap_or("scenario");
    let mut session = Session::new(agent, id);
    let mut now = match doc.get("now").and_then(Value::as_str) {
        Some(t) => parse_time(t).ok_or_else(|| format!("bad `now`: {t}"))?,
        None => DEFAULT_NOW,
    };
    let expires = doc
        .get("licence")
        .and_then(|l| l.get("expires"))
        .and_then(Value::as_str)
        .map(|t| parse_time(t).ok_or_else(|| format!("bad licence expiry: {t}")))
        .transpose()?
        .unwrap_or(DEFAULT_NOW + 365 * 86_400);
    let key = Key::new("scenario", [42; 32], expires).for_record(&record.header().digest);
    let mut saved: BTreeMap<String, String> = BTreeMap::new();
    let mut last_plan: Option<Plan> = None;
    let mut failures = Vec::new();
    let steps = doc
        .get("steps")
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default();
    for (i, step) in steps.iter().enumerate() {
        let env = Env { key: &key, now };
        let label = step
            .get("name")
            .and_then(Value::as_str)
            .map(str::to_string)
            .unwrap_or_else(|| format!("step {}", i + 1));
        if let Some(text) = step.get("read").and_then(Value::as_str) {
            if step.get("plan").is_some() || step.get("language").is_some() {
                let plan = plan_turn(body, &session, step, Some(text))?;
                if let Some(expect) = step.get("plan") {
                    failures.extend(compare_plan(&label, &plan, expect));
                }
                match plan.record_as {
                    Recorded::Read => stalwart_runtime::read(env, &mut session, text),
                    Recorded::Reply => stalwart_runtime::reply(env, &mut session, text),
                }
                last_plan = Some(plan);
            } else {
                stalwart_runtime::read(env, &mut session, text);
            }
        } else if let Some(expect) = step.get("plan_again") {
            let plan = plan_turn(body, &session, step, None)?;
            failures.extend(compare_plan(&label, &plan, expect));
            last_plan = Some(plan);
        } else if let Some(text) = step.get("reply").and_then(Value::as_str) {
            stalwart_runtime::reply(env, &mut session, text);
        } else if let Some(spec) = step.get("session") {
            let agent = spec
                .get("agent")
                .and_then(Value::as_str)
                .unwrap_or_default();
            let id = spec.get("id").and_then(Value::as_str).unwrap_or("scenario");
            session = Session::new(agent, id);
            last_plan = None;
        } else if let Some(seconds) = step.get("advance").and_then(Value::as_u64) {
            now += seconds;
        } else if let Some(report) = step.get("report") {
            let n = report.get("step").and_then(Value::as_u64).unwrap_or(0) as u32;
            let outcome = report
                .get("outcome")
                .and_then(Value::as_str)
                .and_then(Outcome::parse)
                .ok_or("bad outcome")?;
            let result = report.get("result").cloned();
            if let Err(e) = stalwart_runtime::report(env, &mut session, n, outcome, result) {
                failures.push(format!("{label}: report refused: {e}"));
            }
        } else if step.get("route").is_some() {
            // A route of a witness path the tool check takes no part in: written for the reader.
        } else if let Some(edit) = step.get("tamper") {
            session = tamper(&session, edit).map_err(|e| format!("{label}: {e}"))?;
        } else if let Some(spec) = step.get("check") {
            let mut call = call_from(spec, &saved);
            let from_plan = spec.get("from_plan");
            if let Some(which) = from_plan.filter(|v| !v.is_null()) {
                let plan = last_plan.as_ref();
                let planned = match which.as_str() {
                    Some("read") => plan.and_then(|p| p.reads.first()),
                    _ => plan.and_then(|p| p.call.as_ref()),
                };
                let Some(planned) = planned else {
                    failures.push(format!("{label}: `from_plan` but no plan wrote that call"));
                    continue;
                };
                call.tool = planned.tool.clone();
                call.arguments = planned.arguments.clone().into();
                call.origins = planned
                    .origins
                    .iter()
                    .filter_map(|(k, v)| Some((k.clone(), v.as_str()?.to_string())))
                    .collect::<BTreeMap<_, _>>()
                    .into();
                if call.intent.is_none() {
                    call.intent = last_plan.as_ref().and_then(|p| p.intent.clone());
                }
            }
            let check = stalwart_runtime::check_tool_call(body, env, &mut session, &call);
            if let Some(name) = step.get("save").and_then(Value::as_str)
                && let Some(token) = &check.confirmation
            {
                saved.insert(name.to_string(), token.clone());
            }
            if let Some(expect) = step.get("expect") {
                failures.extend(compare(&label, &check, expect));
            }
            if step
                .get("history_roundtrip")
                .and_then(Value::as_bool)
                .unwrap_or(true)
            {
                let json = session.to_json();
                let back = Session::from_json(json.clone()).unwrap_or_else(|| Session::new("", ""));
                if back.to_json() != json || back.tampered {
                    failures.push(format!(
                        "{label}: the history did not round-trip through JSON"
                    ));
                }
            }
        } else {
            return Err(format!("{label}: unknown step {step}"));
        }
    }
    if failures.is_empty() {
        Ok(steps.len())
    } else {
        Err(format!("{}:\n  {}", path.display(), failures.join("\n  ")))
    }
}

/// The selector's plan for `turn` (or, with `None`, for the history's last turn again, with the
/// results its run reported since), with the session's earlier turns.
fn plan_turn(
    body: &stalwart_record::ArchivedRecordBody,
    session: &Session,
    step: &Value,
    turn: Option<&str>,
) -> Result<Plan, String> {
    let language = match step.get("language").and_then(Value::as_str) {
        Some(name) => Some(
            stalwart_router::language_by_name(name)
                .ok_or_else(|| format!("unknown language `{name}`"))?,
        ),
        None => None,
    };
    let turns: Vec<Earlier<'_>> = session
        .entries()
        .iter()
        .filter_map(|e| match e {
            Entry::Read { text, .. } => Some(Earlier { text, reply: false }),
            Entry::Reply { text, .. } => Some(Earlier { text, reply: true }),
            _ => None,
        })
        .collect();
    let ran: Vec<(u32, String, Value)> = session
        .allowed_run_calls()
        .filter_map(|c| Some((c.step, c.tool.to_string(), session.result_of(c)?.clone())))
        .collect();
    let (turn, earlier, results): (&str, &[Earlier<'_>], Vec<RunResult<'_>>) = match turn {
        Some(t) => (t, &turns, Vec::new()),
        None => {
            let (last, before) = turns.split_last().ok_or("`plan_again` with no turn")?;
            let results = ran
                .iter()
                .map(|(step, tool, result)| RunResult {
                    step: *step,
                    tool,
                    result,
                })
                .collect();
            (last.text, before, results)
        }
    };
    stalwart_router::plan(
        body,
        &Request {
            agent: &session.agent,
            turn,
            language,
            earlier,
            results: &results,
        },
    )
    .map_err(|e| e.to_string())
}

/// Compares a plan with what the scenario expects: each key named must equal the plan's (JSON,
/// numbers compared as numbers); keys not named are not compared.
fn compare_plan(label: &str, plan: &Plan, expect: &Value) -> Vec<String> {
    let got = plan.to_json();
    let Value::Object(expected) = expect else {
        return vec![format!("{label}: `plan` must be a mapping")];
    };
    expected
        .iter()
        .filter(|(k, v)| !same(got.get(k.as_str()).unwrap_or(&Value::Null), v))
        .map(|(k, v)| {
            format!(
                "{label}: plan.{k} = {} (expected {v}); got {got}",
                got[k.as_str()]
            )
        })
        .collect()
}

/// JSON equality with numbers compared as numbers (`40` = `40.0`).
pub fn same(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => x.as_f64() == y.as_f64(),
        (Value::Array(x), Value::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(a, b)| same(a, b))
        }
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len() && x.iter().all(|(k, v)| y.get(k).is_some_and(|w| same(v, w)))
        }
        _ => a == b,
    }
}

fn load_record(dir: &Path, doc: &Value) -> Result<Record, String> {
    if let Some(agent) = doc.get("agent").and_then(Value::as_str) {
        let agent_path: PathBuf = dir.join(agent);
        let out = tempfile::tempdir().map_err(|e| e.to_string())?;
        let target = out.path().join("record");
        let outcome = stalwart_driver::compile_agent(
            Arc::new(stalwart_driver::DiskLoader),
            &agent_path,
            &stalwart_driver::CompileOptions {
                out: Some(target.clone()),
            },
        );
        if outcome.has_errors() {
            return Err(format!(
                "{} does not compile:\n{}{}",
                agent_path.display(),
                outcome.fatal.unwrap_or_default(),
                stalwart_diagnostics::render_text(&outcome.files, &outcome.diagnostics)
            ));
        }
        return Record::read(target.join("record.bin")).map_err(|e| e.to_string());
    }
    if let Some(folder) = doc.get("record").and_then(Value::as_str) {
        return Record::read(dir.join(folder).join("record.bin")).map_err(|e| e.to_string());
    }
    Err(
        "a scenario names `agent:` (an agent.yaml to compile) or `record:` (a record folder)"
            .into(),
    )
}

fn call_from(spec: &Value, saved: &BTreeMap<String, String>) -> Call {
    let map_of_strings = |key: &str| -> BTreeMap<String, String> {
        spec.get(key)
            .and_then(Value::as_object)
            .map(|m| {
                m.iter()
                    .filter_map(|(k, v)| Some((k.clone(), v.as_str()?.to_string())))
                    .collect()
            })
            .unwrap_or_default()
    };
    let labels = spec
        .get("labels")
        .and_then(Value::as_object)
        .map(|m| {
            m.iter()
                .map(|(k, v)| {
                    let list = v
                        .as_array()
                        .map(|a| {
                            a.iter()
                                .filter_map(|x| x.as_str().map(str::to_string))
                                .collect()
                        })
                        .unwrap_or_default();
                    (k.clone(), list)
                })
                .collect()
        })
        .unwrap_or_default();
    let confirmation =
        spec.get("confirmation")
            .and_then(Value::as_str)
            .map(|t| match t.strip_prefix('$') {
                Some(name) => saved
                    .get(name)
                    .cloned()
                    .unwrap_or_else(|| format!("<no token saved as {name}>")),
                None => t.to_string(),
            });
    Call {
        tool: spec
            .get("tool")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_string(),
        agent: spec
            .get("agent")
            .and_then(Value::as_str)
            .map(str::to_string),
        arguments: spec
            .get("args")
            .and_then(Value::as_object)
            .cloned()
            .unwrap_or_default()
            .into(),
        origins: map_of_strings("origins").into(),
        labels,
        context: spec
            .get("context")
            .and_then(Value::as_object)
            .cloned()
            .unwrap_or_default(),
        intent: spec
            .get("intent")
            .and_then(Value::as_str)
            .map(str::to_string),
        confirmation,
        undoes: spec.get("undoes").and_then(Value::as_u64).map(|s| s as u32),
    }
}

/// Compares a check with what the scenario expects: `decision` and `reasons` exactly, each key
/// of `detail` by JSON equality (keys not named are not compared), `no_detail` keys absent,
/// `confirmation: true|false` and `idempotency_key: true|false` for presence.
fn compare(label: &str, check: &Check, expect: &Value) -> Vec<String> {
    let mut out = Vec::new();
    let got = check.to_json();
    if let Some(d) = expect.get("decision")
        && got["decision"] != *d
    {
        out.push(format!(
            "{label}: decision {} (expected {d}); got {got}",
            got["decision"]
        ));
    }
    if let Some(r) = expect.get("reasons")
        && got["reasons"] != *r
    {
        out.push(format!(
            "{label}: reasons {} (expected {r}); got {got}",
            got["reasons"]
        ));
    }
    if let Some(Value::Object(detail)) = expect.get("detail") {
        for (k, v) in detail {
            match check.detail.get(k) {
                Some(actual) if actual == v => {}
                Some(actual) => out.push(format!("{label}: detail.{k} = {actual} (expected {v})")),
                None => out.push(format!(
                    "{label}: detail.{k} is missing (expected {v}); got {got}"
                )),
            }
        }
    }
    if let Some(missing) = missing_source(check) {
        out.push(format!("{label}: {missing}; got {got}"));
    }
    if let Some(Value::Array(keys)) = expect.get("no_detail") {
        for k in keys.iter().filter_map(Value::as_str) {
            if check.detail.contains_key(k) {
                out.push(format!("{label}: detail.{k} should be absent; got {got}"));
            }
        }
    }
    if let Some(Value::String(fragment)) = expect.get("question_contains") {
        let q = check
            .detail
            .get("question")
            .and_then(stalwart_runtime::detail::DetailValue::as_str)
            .unwrap_or("");
        if !q.contains(fragment.as_str()) {
            out.push(format!(
                "{label}: the question `{q}` does not contain `{fragment}`"
            ));
        }
    }
    for (key, present) in [
        ("confirmation", check.confirmation.is_some()),
        ("idempotency_key", check.idempotency_key.is_some()),
    ] {
        if let Some(Value::Bool(want)) = expect.get(key)
            && *want != present
        {
            out.push(format!(
                "{label}: {key} present = {present} (expected {want})"
            ));
        }
    }
    out
}

/// Why a decided answer lacks the `source` it must have (docs/answers.md): every answer names
/// where it was decided but `history_invalid`, `agent_required`, `licence_lapsed` and an
/// `unknown_tool` no catalogue declares (one this agent may not reach names the agents that may,
/// and is placed at the agent). A confirm with several reasons also maps each to its place.
fn missing_source(check: &Check) -> Option<String> {
    let first = check.reasons.first()?.as_str();
    let placed = match first {
        "history_invalid" | "agent_required" | "licence_lapsed" => false,
        "unknown_tool" => check.detail.contains_key("agents"),
        _ => true,
    };
    if placed && !check.detail.contains_key("source") {
        return Some(format!("detail.source is missing for `{first}`"));
    }
    if check.reasons.len() > 1 && !check.detail.contains_key("sources") {
        return Some("detail.sources is missing for an answer with several reasons".to_string());
    }
    None
}

/// Edits the history as JSON: `{entry: N, set: {field: value}}`, `{remove: N}`,
/// `{swap: [A, B]}`, `{truncate: N, append: [I, ...]}` (keep the first N entries, then append
/// copies of the original entries I, ...).
fn tamper(session: &Session, edit: &Value) -> Result<Session, String> {
    let mut json = session.to_json();
    let entries = json
        .get_mut("entries")
        .and_then(Value::as_array_mut)
        .ok_or("the history has no entries")?;
    if let (Some(n), Some(Value::Object(set))) =
        (edit.get("entry").and_then(Value::as_u64), edit.get("set"))
    {
        let entry = entries
            .get_mut(n as usize)
            .and_then(Value::as_object_mut)
            .ok_or("no such entry")?;
        for (k, v) in set {
            entry.insert(k.clone(), v.clone());
        }
    } else if let Some(n) = edit.get("remove").and_then(Value::as_u64) {
        if (n as usize) < entries.len() {
            entries.remove(n as usize);
        }
    } else if let Some(Value::Array(pair)) = edit.get("swap") {
        let a = pair.first().and_then(Value::as_u64).unwrap_or(0) as usize;
        let b = pair.get(1).and_then(Value::as_u64).unwrap_or(0) as usize;
        if a < entries.len() && b < entries.len() {
            entries.swap(a, b);
        }
    } else if let Some(n) = edit.get("truncate").and_then(Value::as_u64) {
        let original = entries.clone();
        entries.truncate(n as usize);
        for i in edit
            .get("append")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .filter_map(Value::as_u64)
        {
            entries.extend(original.get(i as usize).cloned());
        }
    } else {
        return Err(format!("unknown tamper {edit}"));
    }
    let _: &Map<String, Value> = json.as_object().ok_or("not an object")?;
    Ok(Session::from_json(json).unwrap_or_else(|| Session::new("", "")))
}
