//! The tool check (DESIGN §5): the thirteen steps, in order; the first that answers ends the
//! check, except step 11, which gathers every reason a write needs a person at once.

use std::collections::BTreeMap;
use std::sync::Arc;

use serde_json::{Map, Value, json};
use smol_str::SmolStr;
use stalwart_record::{
    ArchivedCheckOp, ArchivedCheckOperand, ArchivedNotAfter, ArchivedPeriod, ArchivedRecordBody,
    ArchivedTaintPolicy, ArchivedTool, ArchivedUndo, Trust,
};

use crate::canonical::{digest_of, write_object};
use crate::compare::{argument_or_result, json_eq, member};
pub use crate::detail::Taint;
use crate::detail::{Detail, DetailValue};
use crate::gate::{GateVerdict, Scope, eval_gate_observed};
use crate::history::{self, RecordKey};
use crate::origin::{
    find_tool, is_write, label_trust, marks, native_trust, origin_trusted, tool_index,
};
use crate::session::{CallEntry, Decision, Entry, Marks, Outcome, Session};
use crate::source;
use crate::token;
use crate::trace::{Item, Observer, Trace};
use crate::value::to_json;

/// A tool call to check.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Call {
    pub tool: String,
    /// The agent making the call (default: the session's).
    pub agent: Option<String>,
    /// The arguments. Shared, not copied, with the call's history entry (`Arc::make_mut` edits
    /// them in place while no entry holds them).
    pub arguments: Arc<Map<String, Value>>,
    /// Each argument's origin (`typed`, `reply`, `context`, `computed`, `result:<step>[.<field>]`,
    /// `model`); a missing one is `model`. Shared with the entry like the arguments.
    pub origins: Arc<BTreeMap<String, String>>,
    /// Explicit marks per argument, or for the whole call under `call`.
    pub labels: BTreeMap<String, Vec<String>>,
    /// Facts and host counts (`usage`, `spent`) the application supplies.
    pub context: Map<String, Value>,
    /// The person's intent, when the caller knows it.
    pub intent: Option<String>,
    /// A confirmation token from an earlier `confirm`.
    pub confirmation: Option<String>,
    /// The step this call undoes.
    pub undoes: Option<u32>,
}

/// The check's answer.
#[derive(Debug, Clone, PartialEq)]
pub struct Check {
    pub decision: Decision,
    /// The reasons, short words kept inline (no allocation each).
    pub reasons: Vec<SmolStr>,
    pub detail: Detail,
    pub confirmation: Option<String>,
    pub idempotency_key: Option<String>,
}

impl Check {
    fn refuse(reason: impl Into<SmolStr>) -> Self {
        Self::answer(Decision::Refuse, reason)
    }

    /// A decision with one reason and nothing else.
    fn answer(decision: Decision, reason: impl Into<SmolStr>) -> Self {
        Self {
            decision,
            reasons: vec![reason.into()],
            detail: Detail::new(),
            confirmation: None,
            idempotency_key: None,
        }
    }

    fn with(mut self, key: &'static str, value: impl Into<DetailValue>) -> Self {
        self.detail.insert(key, value);
        self
    }

    /// Adds `source` (where the answer was decided), when the record places it.
    fn at(self, place: Option<String>) -> Self {
        match place {
            Some(place) => self.with("source", DetailValue::Text(place)),
            None => self,
        }
    }

    /// Adds `condition_source` (where the deciding condition is written), when there is one.
    fn condition_at(self, place: Option<String>) -> Self {
        match place {
            Some(place) => self.with("condition_source", DetailValue::Text(place)),
            None => self,
        }
    }

    /// `{decision, reasons, detail, confirmation, idempotency_key}` as JSON.
    pub fn to_json(&self) -> Value {
        json!({
            "decision": self.decision.as_str(),
            "reasons": self.reasons,
            "detail": self.detail,
            "confirmation": self.confirmation,
            "idempotency_key": self.idempotency_key,
        })
    }
}

/// The clock and the key a check runs with: the key file's key bound to the record the check
/// decides under ([`Key::for_record`](crate::Key::for_record)).
#[derive(Debug, Clone, Copy)]
pub struct Env<'a> {
    pub key: &'a RecordKey,
    /// Seconds since the Unix epoch.
    pub now: u64,
}

/// Records a turn the person typed.
pub fn read(env: Env<'_>, session: &mut Session, text: &str) {
    history::append(
        env.key,
        session,
        Entry::Read {
            text: text.to_string(),
            token: String::new(),
        },
    );
}

/// Records the person's answer to a question.
pub fn reply(env: Env<'_>, session: &mut Session, text: &str) {
    history::append(
        env.key,
        session,
        Entry::Reply {
            text: text.to_string(),
            token: String::new(),
        },
    );
}

/// Why a report was not recorded.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ReportError {
    HistoryInvalid,
    NoSuchStep(u32),
    /// The result nests deeper than [`MAX_NESTING`](crate::value::MAX_NESTING).
    TooDeep,
}

impl std::fmt::Display for ReportError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ReportError::HistoryInvalid => f.write_str("the history does not verify"),
            ReportError::NoSuchStep(s) => write!(f, "the history has no call {s}"),
            ReportError::TooDeep => write!(
                f,
                "the result nests deeper than {} levels",
                crate::value::MAX_NESTING
            ),
        }
    }
}

impl std::error::Error for ReportError {}

/// Records the caller's report of what became of call `step`.
pub fn report(
    env: Env<'_>,
    session: &mut Session,
    step: u32,
    outcome: Outcome,
    result: Option<Value>,
) -> Result<(), ReportError> {
    if !history_holds(env, session) {
        return Err(ReportError::HistoryInvalid);
    }
    if result
        .as_ref()
        .is_some_and(|r| crate::value::too_deep(r, crate::value::MAX_NESTING))
    {
        return Err(ReportError::TooDeep);
    }
    if session.call(step).is_none() {
        return Err(ReportError::NoSuchStep(step));
    }
    history::append(
        env.key,
        session,
        Entry::Outcome {
            step,
            outcome,
            result,
            token: String::new(),
        },
    );
    Ok(())
}

/// Checks one call against the record and the session's history, and appends its entry.
pub fn check_tool_call(
    body: &ArchivedRecordBody,
    env: Env<'_>,
    session: &mut Session,
    call: &Call,
) -> Check {
    check_observed(body, env, session, call, &mut ())
}

/// The same check, with what it exercised of the record (coverage, `stalwart test
/// --coverage`): each order rule, check, limit, gate path and comparison it evaluated, as it
/// evaluated them, and where it stopped. The answer is the one [`check_tool_call`] gives.
pub fn check_tool_call_traced(
    body: &ArchivedRecordBody,
    env: Env<'_>,
    session: &mut Session,
    call: &Call,
) -> (Check, Trace) {
    let mut events = Vec::new();
    let check = check_observed(body, env, session, call, &mut events);
    let trace = Trace::of(events, &check);
    (check, trace)
}

/// The check, telling `obs` what it evaluates (`()` tells nothing and costs nothing).
fn check_observed<O: Observer>(
    body: &ArchivedRecordBody,
    env: Env<'_>,
    session: &mut Session,
    call: &Call,
    obs: &mut O,
) -> Check {
    // Step 2 first in time, because a history that does not verify is read no further; its
    // answer still names step 1's failure when the tool is unknown.
    let step1 = step_tool(body, env, session, call);
    if !history_holds(env, session) {
        session.clear();
        return Check::refuse("history_invalid");
    }
    // The arguments' canonical JSON, their digest and the marks are each worked out once, for
    // the decision and for the entry.
    // One buffer for the arguments' canonical JSON and, after them, the entry's bytes (room for
    // both in the usual case: the entry is some 500 bytes).
    // The buffer is the session's, kept from the last check.
    let mut written = std::mem::take(&mut session.scratch.0);
    written.clear();
    written.reserve(1024);
    write_object(&mut written, &call.arguments);
    let digest = Digest {
        text: digest_of(&written),
        written,
    };
    let (t, tool, agent) = match step1 {
        Ok(found) => found,
        Err(check) => return finish(body, env, session, call, *check, None, digest, None),
    };
    let mut marks = None;
    let check = decide(
        body,
        env,
        session,
        call,
        (t, tool),
        &agent,
        &digest.text,
        &mut marks,
        obs,
    );
    finish(
        body,
        env,
        session,
        call,
        check,
        Some((tool, agent)),
        digest,
        marks,
    )
}

/// Step 2: the history is one the checks wrote (not tampered), verifies entry by entry under
/// this record's key, and extends the head the host anchored the session at.
fn history_holds(env: Env<'_>, session: &mut Session) -> bool {
    !session.tampered && history::verify_session(env.key, session) && session.follows_anchor()
}

fn step_tool<'b>(
    body: &'b ArchivedRecordBody,
    env: Env<'_>,
    session: &Session,
    call: &Call,
) -> Result<(u32, &'b ArchivedTool, SmolStr), Box<Check>> {
    let agent = match call
        .agent
        .as_deref()
        .filter(|a| !a.is_empty())
        .or(Some(session.agent.as_str()).filter(|a| !a.is_empty()))
    {
        Some(a) => SmolStr::new(a),
        None if body.agents.len() == 1 => body
            .agents
            .first()
            .map(|a| SmolStr::new(a.name.as_str()))
            .unwrap_or_default(),
        None if body.agents.is_empty() => SmolStr::default(),
        None => {
            let names: Vec<&str> = body.agents.iter().map(|a| a.name.as_str()).collect();
            return Err(Box::new(
                Check::refuse("agent_required").with("agents", json!(names)),
            ));
        }
    };
    let Some((idx, tool)) = tool_index(body, &call.tool)
        .and_then(|i| Some((u32::try_from(i).ok()?, body.tools.get(i)?)))
    else {
        return Err(Box::new(Check::refuse("unknown_tool")));
    };
    if !body.agents.is_empty() {
        let reaches =
            |a: &stalwart_record::ArchivedAgent| a.tools.iter().any(|t| t.to_native() == idx);
        let Some(me) = body.agents.iter().find(|a| a.name.as_str() == agent) else {
            let names: Vec<&str> = body.agents.iter().map(|a| a.name.as_str()).collect();
            return Err(Box::new(
                Check::refuse("agent_required").with("agents", json!(names)),
            ));
        };
        if !reaches(me) {
            let who: Vec<&str> = body
                .agents
                .iter()
                .filter(|a| reaches(a))
                .map(|a| a.name.as_str())
                .collect();
            return Err(Box::new(
                Check::refuse("unknown_tool")
                    .with("agents", json!(who))
                    .at(source::place(body, &me.span)),
            ));
        }
    }
    if env.key.lapsed(env.now) && (is_write(tool) || body.settings.lapsed_refuses_all) {
        return Err(Box::new(Check::refuse("licence_lapsed")));
    }
    Ok((idx, tool, agent))
}

/// Whether the tool declares argument `name` to carry a destination (`argument_kinds` `url` or
/// `destination`): step 4 lets a destination through there.
fn carries_destination(tool: &ArchivedTool, name: &str) -> bool {
    tool.argument_kinds.iter().any(|entry| {
        entry.0.as_str() == name
            && matches!(
                entry.1,
                stalwart_record::ArchivedArgumentKind::Url
                    | stalwart_record::ArchivedArgumentKind::Destination
            )
    })
}

/// Steps 3 to 13 for tool `t` of the record. `digest` is the arguments' digest; the call's marks
/// are left in `marks` once step 9 has worked them out; `obs` is told each rule of steps 5, 7
/// and 8 as it is evaluated.
#[allow(clippy::too_many_arguments)]
fn decide<O: Observer>(
    body: &ArchivedRecordBody,
    env: Env<'_>,
    session: &Session,
    call: &Call,
    (t, tool): (u32, &ArchivedTool),
    agent: &str,
    digest: &str,
    marks_out: &mut Option<Marks>,
    obs: &mut O,
) -> Check {
    // 3. The arguments against the schema (and nested no deeper than any host reads back).
    if let Some(pointer) = crate::value::deeper_than(&call.arguments, crate::value::MAX_NESTING) {
        return Check::refuse("argument_schema")
            .with("pointer", Value::String(pointer))
            .with("rule", json!("maxDepth"))
            .at(source::key_or_tool(
                body,
                tool,
                tool.spans.arguments.as_ref(),
            ));
    }
    let schema = tool.arguments.as_ref().map(|s| s.to_native());
    if let Some(fault) = crate::schema::validate_arguments(body, schema, &call.arguments) {
        let place = source::schema_fault(body, tool, &fault.pointer, fault.rule);
        return Check::refuse("argument_schema")
            .with("pointer", Value::String(fault.pointer))
            .with("rule", json!(fault.rule))
            .at(place);
    }
    // 4. Destinations in a tool that sends nothing out, outside the arguments declared to carry
    // one (`argument_kinds` `url` or `destination`).
    if !tool.sends_out {
        let carries = |name: &str| carries_destination(tool, name);
        if crate::destination::has_destination_in_except(&call.arguments, carries) {
            let found = crate::destination::find_destinations_in_except(&call.arguments, carries);
            return Check::refuse("undeclared_destination")
                .with("destinations", json!(found))
                .at(source::key_or_tool(
                    body,
                    tool,
                    tool.spans.sends_out.as_ref(),
                ));
        }
    }
    // 5. Order rules.
    if let Some((rule, place)) = order_rule(body, session, call, (t, tool), obs) {
        return Check::refuse("order_rule")
            .with("rule", Value::String(rule))
            .at(place);
    }
    // 6. An undo bound to what it undoes.
    if let Some(step) = call.undoes {
        if let Some(reason) = undo_fault(body, session, call, tool, step) {
            return Check::refuse(reason)
                .with("undoes", json!(step))
                .at(undo_place(body, session, tool, step));
        }
    } else if let Some(check) = conditions(body, session, call, (t, tool), obs) {
        // 7. Checks, limits and spend (never on an undo).
        return check;
    }
    // 8. The rulebook's gate.
    let scope = Scope {
        body,
        session,
        arguments: &call.arguments,
        context: &call.context,
    };
    let mut clarify = None;
    let mut passed = None;
    match eval_gate_observed(&scope, (t, tool), call.intent.as_deref(), obs) {
        GateVerdict::Pass { path } => passed = path,
        GateVerdict::Refuse { reason, flow, path } => {
            let (place, condition) = source::gate_path(body, tool, path);
            return Check::refuse(reason)
                .with("flow", Value::String(flow))
                .at(place)
                .condition_at(condition);
        }
        GateVerdict::NoFlow { flows, intents } => {
            let check = Check::refuse("no_flow").with("flows", json!(flows));
            let check = if intents.is_empty() {
                check
            } else {
                check.with("intents", json!(intents))
            };
            // The governing flow's first path to the tool (a sheet's first row for it).
            let place = tool
                .gate
                .paths
                .first()
                .and_then(|p| source::place(body, &p.span))
                .or_else(|| source::place(body, &tool.span));
            return check.at(place);
        }
        GateVerdict::Ask {
            question,
            flow,
            path,
        } => clarify = Some((question, flow, path)),
    }
    // 9. Marks less trusted than the tool requires, on a write.
    let marks = marks_out.insert(marks(
        body,
        session,
        &call.arguments,
        &call.origins,
        &call.labels,
    ));
    let tainted = if is_write(tool) {
        tainting_marks(body, tool, agent, marks)
    } else {
        Vec::new()
    };
    let me = || body.agents.iter().find(|a| a.name.as_str() == agent);
    if !tainted.is_empty() && matches!(body.settings.taint_policy, ArchivedTaintPolicy::Refuse) {
        return Check::refuse("tainted_call")
            .with("marks", DetailValue::Marks(tainted))
            .at(source::requires(body, tool, me()));
    }
    // 10. A confirmation token covering exactly this call here.
    if let Some(t) = &call.confirmation
        && token::covers(env, session, t, &call.tool, digest)
    {
        return Check::answer(Decision::Allow, "confirmed").at(source::place(body, &tool.span));
    }
    // 11. Every reason a write needs a person.
    let mut reasons = Vec::with_capacity(4);
    let mut detail = Detail::new();
    if let Some((question, flow, _)) = &clarify {
        reasons.push(SmolStr::new_static("gate_clarify"));
        detail.insert("flow", DetailValue::Text(flow.clone()));
        detail.insert("gate_question", DetailValue::Text(question.clone()));
    }
    let pivot = is_write(tool) && tool.irreversible && earlier_undoable_write_ran(body, session);
    let mut untrusted = Vec::new();
    if is_write(tool) {
        untrusted = untrusted_arguments(body, session, call);
        if !untrusted.is_empty() {
            reasons.push(SmolStr::new_static("argument_origin"));
        }
        if !tainted.is_empty() {
            reasons.push(SmolStr::new_static("tainted_call"));
        }
        if pivot {
            reasons.push(SmolStr::new_static("irreversible_pivot"));
        }
        if tool.schema_partial {
            reasons.push(SmolStr::new_static("schema_partial"));
        }
    }
    // 12. An undo that passed everything above runs without asking.
    if let Some(step) = call.undoes
        && clarify.is_none()
    {
        return Check::answer(Decision::Allow, "compensation")
            .at(undo_place(body, session, tool, step));
    }
    if is_write(tool) && reasons.is_empty() {
        reasons.push(SmolStr::new_static("write"));
    }
    if !reasons.is_empty() {
        let question = crate::question::question(
            body,
            session,
            call,
            tool,
            &reasons,
            &tainted,
            clarify.as_ref().map(|c| c.0.as_str()),
            pivot,
        );
        // The entries in the order the JSON shows them: arguments, marks, question.
        if !untrusted.is_empty() {
            detail.insert("arguments", DetailValue::Names(untrusted));
        }
        if !tainted.is_empty() {
            detail.insert("marks", DetailValue::Marks(tainted));
        }
        detail.insert("question", DetailValue::Text(question));
        // Where each reason was decided: the first reason's place is `source`; with more than
        // one reason, `sources` maps each to its place.
        let mut condition = None;
        let mut places: Vec<(&SmolStr, Option<String>)> = Vec::with_capacity(reasons.len());
        for reason in &reasons {
            let place = match reason.as_str() {
                "gate_clarify" => {
                    let path = clarify.as_ref().map_or(usize::MAX, |c| c.2);
                    let (place, cond) = source::gate_path(body, tool, path);
                    condition = cond;
                    place
                }
                "tainted_call" => source::requires(body, tool, me()),
                "irreversible_pivot" => {
                    source::key_or_tool(body, tool, tool.spans.irreversible.as_ref())
                }
                _ => source::effects(body, tool),
            };
            places.push((reason, place));
        }
        let first = if places.len() == 1 {
            places.pop().and_then(|p| p.1)
        } else {
            places.first().and_then(|p| p.1.clone())
        };
        if let Some(first) = first {
            detail.insert("source", DetailValue::Text(first));
        }
        if let Some(condition) = condition {
            detail.insert("condition_source", DetailValue::Text(condition));
        }
        if places.len() > 1 {
            let map: Map<String, Value> = places
                .into_iter()
                .filter_map(|(r, p)| Some((r.to_string(), Value::String(p?))))
                .collect();
            detail.insert("sources", Value::Object(map));
        }
        return Check {
            decision: Decision::Confirm,
            reasons,
            detail,
            confirmation: None,
            idempotency_key: None,
        };
    }
    // 13. Nothing above held the call back: the gate path that allowed it, or (ungoverned, or
    // the sheet's default) the tool's declaration.
    let (place, condition) = match passed {
        Some(path) => source::gate_path(body, tool, path),
        None => (source::place(body, &tool.span), None),
    };
    Check::answer(Decision::Allow, "allow")
        .at(place)
        .condition_at(condition)
}

/// Where an undo of call `step` is declared: the `undo:` entry of the tool that call ran, else
/// that tool's declaration, else the undo's own declaration.
fn undo_place(
    body: &ArchivedRecordBody,
    session: &Session,
    tool: &ArchivedTool,
    step: u32,
) -> Option<String> {
    match session
        .call(step)
        .and_then(|original| find_tool(body, &original.tool))
    {
        Some(undone) => source::key_or_tool(body, undone, undone.spans.undo.as_ref()),
        None => source::place(body, &tool.span),
    }
}

/// The arguments' canonical JSON and its digest.
struct Digest {
    text: String,
    /// The canonical JSON, alone in a buffer the entry's bytes are then written into.
    written: Vec<u8>,
}

/// Appends the call's entry, adds the token / idempotency key / undo plan, and returns. `marks`
/// are the call's marks when the decision worked them out already.
#[allow(clippy::too_many_arguments)]
fn finish(
    body: &ArchivedRecordBody,
    env: Env<'_>,
    session: &mut Session,
    call: &Call,
    mut check: Check,
    found: Option<(&ArchivedTool, SmolStr)>,
    digest: Digest,
    marks_known: Option<Marks>,
) -> Check {
    let Digest {
        text: digest,
        mut written,
    } = digest;
    let step = session.next_step();
    let (found, agent) = match found {
        Some((_, agent)) => (true, agent),
        None => (
            false,
            SmolStr::new(call.agent.as_deref().unwrap_or(&session.agent)),
        ),
    };
    if check.decision == Decision::Refuse {
        let plan = undo_plan(body, session);
        if !plan.is_empty() {
            check.detail.insert("undo", Value::Array(plan));
        }
    }
    let marks = match (found, marks_known) {
        (true, Some(known)) => known,
        (true, None) => marks(body, session, &call.arguments, &call.origins, &call.labels),
        (false, _) => Marks::new(),
    };
    // The idempotency key covers the session's id, not its entries: it is worked out before the
    // entry takes the digest. The confirmation token covers the confirm's entry: it is worked
    // out after the entry is signed.
    if check.decision == Decision::Allow {
        check.idempotency_key = Some(token::idempotency_key(env, session, step, &digest));
    }
    let entry = CallEntry {
        step,
        tool: SmolStr::new(&call.tool),
        agent,
        arguments: Arc::clone(&call.arguments),
        digest,
        origins: Arc::clone(&call.origins),
        marks,
        decision: check.decision,
        reasons: check.reasons.clone(),
        undoes: call.undoes,
        at: env.now,
        token: String::new(),
    };
    history::append_call(env.key, session, entry, &mut written);
    session.scratch.0 = written;
    if check.decision == Decision::Confirm {
        let expiry = env
            .now
            .saturating_add(body.settings.confirmation_expiry_secs.to_native());
        let signed = session.entries().last().map_or("", Entry::token);
        check.confirmation = Some(token::issue(env, signed, step, expiry));
    }
    check
}

/// Step 5: the first order rule the call breaks, in the words QG014 uses.
fn order_rule<O: Observer>(
    body: &ArchivedRecordBody,
    session: &Session,
    call: &Call,
    (t, tool): (u32, &ArchivedTool),
    obs: &mut O,
) -> Option<(String, Option<String>)> {
    for (i, after) in tool.after.iter().enumerate() {
        let other = body.tools.get(after.tool.to_native() as usize)?;
        let mut any_ran = false;
        // Only an allowed call can have run.
        let bound = session.allowed_calls().any(|c| {
            if c.tool.as_str() != other.name.as_str() || !session.ran(c) {
                return false;
            }
            any_ran = true;
            after.bind.iter().all(|pair| {
                let (mine, theirs) = (pair.0.as_str(), pair.1.as_str());
                match (
                    member(&call.arguments, mine),
                    argument_or_result(session, c, theirs),
                ) {
                    (Some(a), Some(b)) => json_eq(a, b),
                    (None, _) => true,
                    _ => false,
                }
            })
        });
        let index = i as u32;
        obs.note(Item::After { tool: t, index }, Some(bound));
        if !bound {
            let binding: Vec<&str> = after.bind.iter().map(|p| p.0.as_str()).collect();
            let rule = if any_ran && !binding.is_empty() {
                format!("after {} ({})", other.name, binding.join(", "))
            } else {
                format!("after {}", other.name)
            };
            return Some((
                rule,
                source::entry_or_tool(body, tool, &tool.spans.after, i),
            ));
        }
    }
    for (i, rule) in tool.not_after.iter().enumerate() {
        let (hit, name) = match rule {
            ArchivedNotAfter::Untrusted => (
                session.allowed_calls().any(|c| {
                    counts(body, session, c)
                        && find_tool(body, &c.tool).is_some_and(|t| t.reads_outside)
                }),
                "untrusted".to_string(),
            ),
            ArchivedNotAfter::Tool(t) => {
                let other = body.tools.get(t.to_native() as usize)?;
                (
                    session.allowed_calls().any(|c| {
                        c.tool.as_str() == other.name.as_str() && counts(body, session, c)
                    }),
                    other.name.to_string(),
                )
            }
        };
        let index = i as u32;
        obs.note(Item::NotAfter { tool: t, index }, Some(!hit));
        if hit {
            return Some((
                format!("not_after {name}"),
                source::entry_or_tool(body, tool, &tool.spans.not_after, i),
            ));
        }
    }
    if let Some(limit) = tool.at_most.as_ref()
        && limit.per.is_none()
    {
        let used = session
            .allowed_calls()
            .filter(|c| c.tool == call.tool && counts(body, session, c))
            .count();
        let reached = used >= limit.count.to_native() as usize;
        obs.note(Item::AtMost { tool: t }, Some(!reached));
        if reached {
            return Some((
                format!("at_most {}", limit.count),
                source::key_or_tool(body, tool, tool.spans.at_most.as_ref()),
            ));
        }
    }
    None
}

/// Whether an earlier call counts for `not_after` and `at_most`: allowed, and for a write not
/// reported failed (a read counts whatever became of it: what it returned was read).
fn counts(body: &ArchivedRecordBody, session: &Session, c: &CallEntry) -> bool {
    if c.decision != Decision::Allow {
        return false;
    }
    let read = find_tool(body, &c.tool).is_some_and(|t| !is_write(t));
    read || !matches!(session.outcome(c.step), Some((Outcome::Failed, _)))
}

/// Step 6: what is wrong with an undo, if anything.
fn undo_fault(
    body: &ArchivedRecordBody,
    session: &Session,
    call: &Call,
    tool: &ArchivedTool,
    step: u32,
) -> Option<&'static str> {
    let Some(original) = session.call(step) else {
        return Some("compensation_mismatch");
    };
    if !session.ran(original) {
        return Some("compensation_mismatch");
    }
    let Some(undone) = find_tool(body, &original.tool) else {
        return Some("compensation_mismatch");
    };
    let ArchivedUndo::Tool {
        tool: undo_tool,
        bind,
    } = &undone.undo
    else {
        return Some("compensation_mismatch");
    };
    let declared = body.tools.get(undo_tool.to_native() as usize)?;
    if declared.name.as_str() != tool.name.as_str() {
        return Some("compensation_mismatch");
    }
    for pair in bind.iter() {
        let (mine, theirs) = (pair.0.as_str(), pair.1.as_str());
        let ok = match (
            member(&call.arguments, mine),
            argument_or_result(session, original, theirs),
        ) {
            (Some(a), Some(b)) => json_eq(a, b),
            _ => false,
        };
        if !ok {
            return Some("compensation_mismatch");
        }
    }
    already_undone(body, session, step).then_some("compensation_spent")
}

/// Whether call `step` has been undone already: an undo of it was allowed and not reported
/// `failed` (a failed undo may be sent again, until one runs; one whose fate is unknown, or not
/// reported yet, may have run).
fn already_undone(body: &ArchivedRecordBody, session: &Session, step: u32) -> bool {
    session
        .allowed_calls()
        .any(|u| u.undoes == Some(step) && counts(body, session, u))
}

/// Step 7: the tool's checks, its limits per period and its spend, against the host's counts.
fn conditions<O: Observer>(
    body: &ArchivedRecordBody,
    session: &Session,
    call: &Call,
    (t, tool): (u32, &ArchivedTool),
    obs: &mut O,
) -> Option<Check> {
    for (i, check) in tool.checks.iter().enumerate() {
        let Some(value) = member(&call.arguments, check.argument.as_str()) else {
            continue;
        };
        let (operand, described) = match &check.operand {
            ArchivedCheckOperand::Value(v) => {
                let v = to_json(body, v.to_native()).unwrap_or(Value::Null);
                let text = v.to_string();
                (Some(v), text)
            }
            ArchivedCheckOperand::From { tool: from, field } => {
                let other = body.tools.get(from.to_native() as usize)?;
                let latest = session
                    .allowed_calls()
                    .rev()
                    .filter(|c| c.tool.as_str() == other.name.as_str())
                    .find_map(|c| session.result_of(c))
                    .and_then(|r| r.get(field.as_str()))
                    .cloned();
                (latest, format!("{}.{}", other.name, field))
            }
        };
        let op = match check.op {
            ArchivedCheckOp::AtMost => "at_most",
            ArchivedCheckOp::AtLeast => "at_least",
            ArchivedCheckOp::Equals => "equals",
            ArchivedCheckOp::OneOf => "one_of",
        };
        let words = format!("{} {op} {described}", check.argument);
        let place = || source::entry_or_tool(body, tool, &tool.spans.checks, i);
        let item = Item::Check {
            tool: t,
            index: i as u32,
        };
        let Some(operand) = operand else {
            obs.note(item, None);
            return Some(
                Check::refuse("condition_unknown")
                    .with("check", Value::String(words))
                    .at(place()),
            );
        };
        let holds = match check.op {
            ArchivedCheckOp::AtMost => {
                matches!((value.as_f64(), operand.as_f64()), (Some(a), Some(b)) if a <= b)
            }
            ArchivedCheckOp::AtLeast => {
                matches!((value.as_f64(), operand.as_f64()), (Some(a), Some(b)) if a >= b)
            }
            ArchivedCheckOp::Equals => json_eq(value, &operand),
            ArchivedCheckOp::OneOf => operand
                .as_array()
                .is_some_and(|items| items.iter().any(|i| json_eq(i, value))),
        };
        obs.note(item, Some(holds));
        if !holds {
            return Some(
                Check::refuse("condition_failed")
                    .with("check", Value::String(words))
                    .at(place()),
            );
        }
    }
    let host = |key: &str, per: &ArchivedPeriod| -> Option<f64> {
        call.context
            .get(key)?
            .get(call.tool.as_str())?
            .get(period_word(per))?
            .as_f64()
    };
    if let Some(limit) = tool.at_most.as_ref()
        && let Some(per) = limit.per.as_ref()
    {
        let words = format!("at_most {} per {}", limit.count, period_word(per));
        let place = || source::key_or_tool(body, tool, tool.spans.at_most.as_ref());
        let used = host("usage", per);
        let count = f64::from(limit.count.to_native());
        obs.note(Item::AtMost { tool: t }, used.map(|u| u < count));
        match used {
            None => {
                return Some(
                    Check::refuse("usage_unknown")
                        .with("limit", Value::String(words))
                        .at(place()),
                );
            }
            Some(used) if used >= count => {
                return Some(
                    Check::refuse("limit_reached")
                        .with("limit", Value::String(words))
                        .at(place()),
                );
            }
            Some(_) => {}
        }
    }
    if let Some(spend) = tool.spend.as_ref() {
        let words = format!(
            "spend {} at_most {} per {}",
            spend.argument,
            spend.at_most,
            period_word(&spend.per)
        );
        let amount = member(&call.arguments, spend.argument.as_str())
            .and_then(Value::as_f64)
            .unwrap_or(0.0);
        let place = || source::key_or_tool(body, tool, tool.spans.spend.as_ref());
        let spent = host("spent", &spend.per);
        let most = spend.at_most.to_native();
        obs.note(Item::Spend { tool: t }, spent.map(|x| x + amount <= most));
        match spent {
            None => {
                return Some(
                    Check::refuse("spend_unknown")
                        .with("limit", Value::String(words))
                        .at(place()),
                );
            }
            Some(spent) if spent + amount > most => {
                return Some(
                    Check::refuse("spend_exceeded")
                        .with("limit", Value::String(words))
                        .at(place()),
                );
            }
            Some(_) => {}
        }
    }
    None
}

fn period_word(p: &ArchivedPeriod) -> &'static str {
    match p {
        ArchivedPeriod::Hour => "hour",
        ArchivedPeriod::Day => "day",
        ArchivedPeriod::Week => "week",
        ArchivedPeriod::Month => "month",
    }
}

/// Marks less trusted than the tool requires, in the order of the marks.
fn tainting_marks(
    body: &ArchivedRecordBody,
    tool: &ArchivedTool,
    agent: &str,
    marks: &Marks,
) -> Vec<Taint> {
    let required = match tool.requires.as_ref() {
        Some(t) => native_trust(t),
        None => body
            .agents
            .iter()
            .find(|a| a.name.as_str() == agent)
            .map(|a| native_trust(&a.privilege))
            .unwrap_or(Trust::Low),
    };
    let mut out = Vec::new();
    for (argument, list) in marks.iter() {
        for mark in list {
            if label_trust(body, mark).is_some_and(|t| t < required) {
                out.push(Taint {
                    mark: mark.clone(),
                    argument: argument.clone(),
                });
            }
        }
    }
    out
}

/// Arguments whose origin is not trusted, in call order (their names).
fn untrusted_arguments(body: &ArchivedRecordBody, session: &Session, call: &Call) -> Vec<SmolStr> {
    call.arguments
        .iter()
        .filter(|(name, value)| {
            let origin = call
                .origins
                .get(*name)
                .map(String::as_str)
                .unwrap_or("model");
            !origin_trusted(body, session, origin, name, value)
        })
        .map(|(name, _)| SmolStr::new(name))
        .collect()
}

/// An earlier call in the run was an allowed write that ran and declares an undo.
fn earlier_undoable_write_ran(body: &ArchivedRecordBody, session: &Session) -> bool {
    session.allowed_run_calls().any(|c| {
        session.ran(c)
            && find_tool(body, &c.tool)
                .is_some_and(|t| is_write(t) && matches!(t.undo, ArchivedUndo::Tool { .. }))
    })
}

/// The undo calls that would undo the run's writes that ran, last first.
fn undo_plan(body: &ArchivedRecordBody, session: &Session) -> Vec<Value> {
    let mut plan = Vec::new();
    for c in session.allowed_run_calls().rev() {
        if !session.ran(c) || c.undoes.is_some() {
            continue;
        }
        let Some(tool) = find_tool(body, &c.tool) else {
            continue;
        };
        if !is_write(tool) {
            continue;
        }
        let ArchivedUndo::Tool { tool: undo, bind } = &tool.undo else {
            continue;
        };
        let Some(undo_tool) = body.tools.get(undo.to_native() as usize) else {
            continue;
        };
        if already_undone(body, session, c.step) {
            continue;
        }
        let mut args = Map::new();
        for pair in bind.iter() {
            if let Some(v) = argument_or_result(session, c, pair.1.as_str()) {
                args.insert(pair.0.to_string(), v.clone());
            }
        }
        plan.push(json!({"tool": undo_tool.name.as_str(), "arguments": args, "undoes": c.step}));
    }
    plan
}
