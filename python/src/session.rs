//! `Session`: one conversation with one agent, over the runtime's `Session` and the record it
//! is checked under.
//!
//! Every operation (`read`, `reply`, `check_tool_call`, `report`) runs the runtime's function of
//! the same name; the binding adds only what a host must: the key bound to the record, the clock,
//! the session's anchor, and the history as Python objects.
//!
//! - **Anchor.** After every operation the session is anchored at its own head
//!   (`Session::set_anchor`), so a history cut back behind it is `history_invalid`. With a state
//!   folder the head is also kept there, by the same name `stalwart check` uses, under the
//!   session's lock, so a history exported and loaded again (in this process or another) is
//!   anchored where it stood.
//! - **The history as Python objects.** `history.entries` is a list of dicts the caller may edit
//!   by hand. They are tracked containers (`stalwart_agents.history`) that mark a shared
//!   [`EditMark`] on any change; before each operation the binding reads the mark (one field) and,
//!   only when it is set, reads the edited entries back as the history the caller now carries —
//!   which the check then refuses (`history_invalid`) unless the edit changed nothing.
//! - **After `history_invalid`** the session starts again under a new id, as `stalwart check`
//!   does: the old id stays anchored where it stood.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::Arc;

use pyo3::PyTraverseError;
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::gc::PyVisit;
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::{PyDict, PyInt, PyList, PyString};
use serde_json::{Map, Value};
use stalwart_host::HostError;
use stalwart_host::history_file::new_id;
use stalwart_host::intake::{HISTORY_NESTING, Text, parse_strict};
use stalwart_host::key::load_key;
use stalwart_host::state::{Lock, StateDir};
use stalwart_record::Record;
use stalwart_router::{Earlier, Request};
use stalwart_runtime::{Call, Entry, Env, Outcome, RecordKey, Session};

use crate::check::PyCheck;
use crate::convert::{
    to_json, to_json_limited, to_list_map, to_object, to_opt_string, to_py, to_string_map,
    type_name,
};
use crate::errors::{guard, unavailable};
use crate::plan::plan_py;
use crate::record::PyRecord;

/// Set by the tracked containers of a session's history when the caller changes them.
#[pyclass(module = "stalwart_agents._native", name = "EditMark")]
pub struct EditMark {
    #[pyo3(get, set)]
    edited: bool,
}

/// The history handed out as Python objects, and what of the session it mirrors.
struct View {
    list: Py<PyList>,
    mark: Py<EditMark>,
    /// How many of the session's entries the list holds.
    mirrored: usize,
    /// The list no longer mirrors the session's first entries (an edit was read back, or the
    /// session started again): it is filled again whole.
    stale: bool,
}

static HISTORY: PyOnceLock<Py<PyAny>> = PyOnceLock::new();
static TRACK: PyOnceLock<Py<PyAny>> = PyOnceLock::new();

/// `stalwart_agents.history.track(value, mark)`: the value as tracked containers.
fn track<'py>(
    py: Python<'py>,
    value: Bound<'py, PyAny>,
    mark: &Py<EditMark>,
) -> PyResult<Bound<'py, PyAny>> {
    let f = TRACK.get_or_try_init(py, || {
        py.import("stalwart_agents.history")?
            .getattr("track")
            .map(Bound::unbind)
    })?;
    f.bind(py).call1((value, mark.clone_ref(py)))
}

/// One conversation with one agent.
#[pyclass(module = "stalwart_agents._native", name = "Session", weakref)]
pub struct PySession {
    record: Py<PyRecord>,
    body_of: Arc<Record>,
    key: RecordKey,
    session: Session,
    /// The person's intent for the current turn: given to `read`, or the selector's plan's;
    /// applies to every check until the next turn.
    intent: Option<String>,
    /// The application's facts for every check: a mapping, or a function of `user`.
    context: Option<Py<PyAny>>,
    user: Option<Py<PyAny>>,
    state: Option<StateDir>,
    view: Option<View>,
    closed: bool,
    /// Set when the runtime failed inside an operation: the session answers nothing more.
    broken: Option<String>,
}

/// Seconds since the epoch.
fn now() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0)
}

fn host_error(py: Python<'_>, e: &HostError) -> PyErr {
    unavailable(py, e.to_string())
}

fn is_history_invalid(check: &stalwart_runtime::Check) -> bool {
    check.reasons.len() == 1
        && check
            .reasons
            .first()
            .is_some_and(|r| r == "history_invalid")
}

/// A history given to `Client.session(history=...)`: JSON text, a dict, or anything with a
/// `to_json()` method (a `History`), read strictly into a session for `agent`. A history of
/// another agent, or without an id, is not this session's: it is marked so that the first check
/// refuses it (`history_invalid`), as `stalwart check` refuses such a file.
fn session_from(py: Python<'_>, history: &Bound<'_, PyAny>, agent: &str) -> PyResult<Session> {
    let value = if let Ok(text) = history.cast::<PyString>() {
        let text = Text {
            name: "history".to_string(),
            text: text.to_str()?.to_string(),
        };
        parse_strict(&text, HISTORY_NESTING).map_err(|e| PyValueError::new_err(e.to_string()))?
    } else if history.cast::<PyDict>().is_ok() {
        to_json_limited(history, "history", HISTORY_NESTING)?
    } else if history.hasattr("to_json")? {
        let text: String = history.call_method0("to_json")?.extract()?;
        return session_from(py, &PyString::new(py, &text), agent);
    } else {
        return Err(PyTypeError::new_err(format!(
            "history must be JSON text, a dict or a History, not {}",
            type_name(history)
        )));
    };
    match &value {
        Value::Object(map) if map.contains_key("entries") => {}
        Value::Object(_) => {
            return Err(PyValueError::new_err(
                "history: not a history (an object without `entries`)",
            ));
        }
        _ => {
            return Err(PyValueError::new_err(
                "history: not a history (not a JSON object)",
            ));
        }
    }
    let mut session =
        Session::from_json(value).ok_or_else(|| PyValueError::new_err("history: not a history"))?;
    if session.agent != agent || session.id.is_empty() {
        session.tampered = true;
        session.agent = agent.to_string();
        if session.id.is_empty() {
            session.id = new_id().map_err(|e| host_error(py, &e))?;
        }
    }
    Ok(session)
}

/// The application's facts for a check: `context` (a mapping, or a function of `user`), then
/// the call's own (`given`) on top.
pub(crate) fn context_with(
    py: Python<'_>,
    context: Option<&Py<PyAny>>,
    user: Option<&Py<PyAny>>,
    given: Option<&Bound<'_, PyAny>>,
) -> PyResult<Map<String, Value>> {
    let mut out = match context {
        None => Map::new(),
        Some(c) => {
            let c = c.bind(py);
            let values = if c.is_callable() && c.cast::<PyDict>().is_err() {
                let user = user
                    .map(|u| u.clone_ref(py).into_bound(py))
                    .unwrap_or_else(|| py.None().into_bound(py));
                c.call1((user,))?
            } else {
                c.clone()
            };
            to_object(Some(&values), "the agent's context")?
        }
    };
    if let Some(given) = given {
        let given = to_object(Some(given), "context")?;
        if out.is_empty() {
            return Ok(given);
        }
        out.extend(given);
    }
    Ok(out)
}

/// Opens a session of `agent` under `record`. `history` loads a history the host kept; `state`
/// names a state folder that anchors it (`True`: the one `stalwart check` uses).
#[pyfunction]
#[pyo3(signature = (record, agent, *, history=None, context=None, user=None, state=None))]
#[allow(clippy::too_many_arguments)]
pub fn open_session(
    py: Python<'_>,
    record: Bound<'_, PyRecord>,
    agent: &Bound<'_, PyAny>,
    history: Option<&Bound<'_, PyAny>>,
    context: Option<Py<PyAny>>,
    user: Option<Py<PyAny>>,
    state: Option<&Bound<'_, PyAny>>,
) -> PyResult<PySession> {
    let agent: String = agent.extract().map_err(|_| {
        PyTypeError::new_err(format!(
            "the agent must be named by a string, not {}",
            type_name(agent)
        ))
    })?;
    let rec = record.get();
    let names = rec.agent_names();
    if !names.is_empty() && !names.contains(&agent) {
        return Err(PyValueError::new_err(format!(
            "unknown agent `{agent}`: the record has {}",
            names.join(", ")
        )));
    }
    let key = load_key(&rec.key_path(), now())
        .map_err(|e| host_error(py, &e))?
        .for_record(&rec.inner.header().digest);
    let state = match state.filter(|s| !s.is_none()) {
        None => None,
        Some(s) if s.cast::<pyo3::types::PyBool>().is_ok() => match s.is_truthy()? {
            true => Some(StateDir::locate().map_err(|e| host_error(py, &e))?),
            false => None,
        },
        Some(s) => {
            let root: PathBuf = s.extract().map_err(|_| {
                PyTypeError::new_err(format!(
                    "state must be a folder's path, True or None, not {}",
                    type_name(s)
                ))
            })?;
            Some(StateDir::at(root).map_err(|e| host_error(py, &e))?)
        }
    };
    let session = match history.filter(|h| !h.is_none()) {
        Some(h) => session_from(py, h, &agent)?,
        None => Session::new(agent.clone(), new_id().map_err(|e| host_error(py, &e))?),
    };
    Ok(PySession {
        body_of: rec.inner.clone(),
        record: record.unbind(),
        key,
        session,
        intent: None,
        context,
        user,
        state,
        view: None,
        closed: false,
        broken: None,
    })
}

impl PySession {
    /// Before an operation: refuses on a closed or broken session, reads back a history the
    /// caller edited, and (with a state folder) takes the session's lock and its anchor.
    fn begin(&mut self, py: Python<'_>) -> PyResult<Option<Lock>> {
        if self.closed {
            return Err(PyValueError::new_err(
                "the session's client is closed: open a new one",
            ));
        }
        if let Some(why) = &self.broken {
            return Err(unavailable(py, why.clone()));
        }
        self.read_back_edits(py)?;
        let Some(state) = &self.state else {
            return Ok(None);
        };
        let s = &self.session;
        let lock = state
            .lock_session(&self.key, &s.agent, &s.id)
            .map_err(|e| host_error(py, &e))?;
        if let Some(head) = state
            .anchor(&self.key, &s.agent, &s.id)
            .map_err(|e| host_error(py, &e))?
        {
            self.session.set_anchor(head);
        }
        Ok(Some(lock))
    }

    /// After an operation: anchors the session at its head (and keeps the head in the state
    /// folder), then brings the Python view of the history up to date.
    fn end(&mut self, py: Python<'_>, lock: Option<Lock>) -> PyResult<()> {
        let head = self.session.head();
        if let Some(state) = &self.state {
            let s = &self.session;
            state
                .set_anchor(&self.key, &s.agent, &s.id, &head)
                .map_err(|e| host_error(py, &e))?;
        }
        self.session.set_anchor(head);
        drop(lock);
        self.sync_view(py)
    }

    /// After `history_invalid`: a new id, so the refused history is never extended again.
    fn restart(&mut self, py: Python<'_>) -> PyResult<()> {
        self.session.id = new_id().map_err(|e| host_error(py, &e))?;
        if let Some(view) = &mut self.view {
            view.stale = true;
        }
        Ok(())
    }

    /// When the caller edited the history's Python objects, the edited entries become the
    /// history this session carries (an edit that is not a history marks it tampered).
    fn read_back_edits(&mut self, py: Python<'_>) -> PyResult<()> {
        let Some(view) = &mut self.view else {
            return Ok(());
        };
        let mut mark = view.mark.borrow_mut(py);
        if !mark.edited {
            return Ok(());
        }
        mark.edited = false;
        view.stale = true;
        let list = view.list.bind(py);
        let agent = self.session.agent.clone();
        let id = self.session.id.clone();
        let anchor = self.session.anchor().cloned();
        let mut read = match to_json_limited(list.as_any(), "history.entries", HISTORY_NESTING) {
            Ok(entries) => {
                let mut map = Map::new();
                map.insert("agent".into(), Value::String(agent.clone()));
                map.insert("id".into(), Value::String(id.clone()));
                map.insert("entries".into(), entries);
                Session::from_json(Value::Object(map))
                    .unwrap_or_else(|| Session::new(agent.clone(), id.clone()))
            }
            Err(_) => {
                let mut s = Session::new(agent, id);
                s.tampered = true;
                s
            }
        };
        if let Some(head) = anchor {
            read.set_anchor(head);
        }
        self.session = read;
        Ok(())
    }

    fn entry_py<'py>(&self, py: Python<'py>, at: usize) -> PyResult<Option<Bound<'py, PyAny>>> {
        let Some(entry) = self.session.entries().get(at) else {
            return Ok(None);
        };
        let value = serde_json::to_value(entry).unwrap_or(Value::Null);
        to_py(py, &value).map(Some)
    }

    /// Appends the new entries to the Python view (or fills it again when it is stale).
    fn sync_view(&mut self, py: Python<'_>) -> PyResult<()> {
        let Some(view) = &self.view else {
            return Ok(());
        };
        let list = view.list.clone_ref(py);
        let mark = view.mark.clone_ref(py);
        let (from, stale) = (view.mirrored, view.stale);
        let list = list.bind(py);
        let start = if stale {
            list.call_method0("clear")?;
            0
        } else {
            from
        };
        for at in start..self.session.entries().len() {
            if let Some(value) = self.entry_py(py, at)? {
                list.append(track(py, value, &mark)?)?;
            }
        }
        mark.borrow_mut(py).edited = false;
        if let Some(view) = &mut self.view {
            view.mirrored = self.session.entries().len();
            view.stale = false;
        }
        Ok(())
    }

    /// The application's facts for this check: the session's (a mapping, or a function of the
    /// user), then the call's on top.
    fn context_for(
        &self,
        py: Python<'_>,
        given: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Map<String, Value>> {
        context_with(py, self.context.as_ref(), self.user.as_ref(), given)
    }

    /// The selector's plan for `turn`, after the session's earlier turns.
    fn plan(
        &self,
        py: Python<'_>,
        turn: &str,
        language: Option<stalwart_record::Language>,
    ) -> PyResult<stalwart_router::Plan> {
        let earlier: Vec<Earlier<'_>> = self
            .session
            .entries()
            .iter()
            .filter_map(|e| match e {
                Entry::Read { text, .. } => Some(Earlier { text, reply: false }),
                Entry::Reply { text, .. } => Some(Earlier { text, reply: true }),
                _ => None,
            })
            .collect();
        let request = Request {
            agent: &self.session.agent,
            turn,
            language,
            earlier: &earlier,
            results: &[],
        };
        let body = self.body_of.clone();
        guard(py, "the selector", || {
            stalwart_router::plan(body.body(), &request)
        })?
        .map_err(|e| match e {
            stalwart_router::PlanError::UnknownAgent { .. } => PyValueError::new_err(e.to_string()),
            stalwart_router::PlanError::NoReader { .. } => unavailable(py, e.to_string()),
        })
    }

    /// Runs `f` on the session between `begin` and `end`, turning a panic into
    /// `SelectorUnavailableError` and leaving the session broken. When `refused(&answer)` says the
    /// history was refused, the session starts again under a new id before its head is kept, so
    /// the old id stays anchored where it stood.
    fn operate<T>(
        &mut self,
        py: Python<'_>,
        what: &str,
        f: impl FnOnce(&mut Session, Env<'_>, &Record) -> T,
        refused: impl FnOnce(&T) -> bool,
    ) -> PyResult<T> {
        let lock = self.begin(py)?;
        let env = Env {
            key: &self.key,
            now: now(),
        };
        let record = self.body_of.clone();
        let session = &mut self.session;
        let answer = match guard(py, what, || f(session, env, &record)) {
            Ok(answer) => answer,
            Err(e) => {
                self.broken = Some(format!("{what} failed earlier in this session"));
                return Err(e);
            }
        };
        if refused(&answer) {
            self.restart(py)?;
        }
        self.end(py, lock)?;
        Ok(answer)
    }
}

#[pymethods]
impl PySession {
    /// Reads a turn the person typed: the selector plans it (`stalwart plan`'s plan, with the
    /// session's earlier turns), the turn is recorded as the plan says (a new turn, or the answer
    /// to the question the last plan asked), and the person's intent for the checks of this
    /// turn is chosen as `stalwart check --plan` chooses it: `intent` when given, else the
    /// plan's. Returns the plan (`stalwart_agents.Plan`); a record with no agents (a rulebook
    /// compiled alone) has nothing to plan with: the turn is recorded and None returned.
    #[pyo3(signature = (turn, *, intent=None, language=None))]
    fn read(
        &mut self,
        py: Python<'_>,
        turn: &Bound<'_, PyAny>,
        intent: Option<&Bound<'_, PyAny>>,
        language: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Option<Py<PyAny>>> {
        let text: String = turn.extract().map_err(|_| {
            PyTypeError::new_err(format!("turn must be a string, not {}", type_name(turn)))
        })?;
        let given = to_opt_string(intent, "intent")?;
        let language = match to_opt_string(language, "language")? {
            None => None,
            Some(name) => Some(stalwart_router::language_by_name(&name).ok_or_else(|| {
                PyValueError::new_err(format!(
                    "unknown language `{name}`: the selector reads `en` and `pt-BR`"
                ))
            })?),
        };
        if self.closed {
            return Err(PyValueError::new_err(
                "the session's client is closed: open a new one",
            ));
        }
        if let Some(why) = &self.broken {
            return Err(unavailable(py, why.clone()));
        }
        self.read_back_edits(py)?;
        let plan = if self.body_of.body().agents.is_empty() {
            None
        } else {
            Some(self.plan(py, &text, language)?)
        };
        let as_reply = plan
            .as_ref()
            .is_some_and(|p| p.record_as == stalwart_router::Record::Reply);
        self.operate(
            py,
            "reading the turn",
            |s, env, _| match as_reply {
                true => stalwart_runtime::reply(env, s, &text),
                false => stalwart_runtime::read(env, s, &text),
            },
            |_| false,
        )?;
        let Some(plan) = plan else {
            self.intent = given;
            return Ok(None);
        };
        self.intent = given.or_else(|| plan.intent.clone());
        plan_py(py, &plan).map(Some)
    }

    /// Records the person's answer to a question (a turn of its own).
    fn reply(&mut self, py: Python<'_>, text: &Bound<'_, PyAny>) -> PyResult<()> {
        let text: String = text.extract().map_err(|_| {
            PyTypeError::new_err(format!("text must be a string, not {}", type_name(text)))
        })?;
        self.operate(
            py,
            "reading the reply",
            |s, env, _| stalwart_runtime::reply(env, s, &text),
            |_| false,
        )
    }

    /// Checks one tool call (DESIGN §5) and appends its entry to the history.
    #[pyo3(signature = (tool, args=None, *, origins=None, labels=None, context=None, confirmation=None, compensates=None, intent=None, agent=None))]
    #[allow(clippy::too_many_arguments)]
    fn check_tool_call(
        &mut self,
        py: Python<'_>,
        tool: &Bound<'_, PyAny>,
        args: Option<&Bound<'_, PyAny>>,
        origins: Option<&Bound<'_, PyAny>>,
        labels: Option<&Bound<'_, PyAny>>,
        context: Option<&Bound<'_, PyAny>>,
        confirmation: Option<&Bound<'_, PyAny>>,
        compensates: Option<&Bound<'_, PyAny>>,
        intent: Option<&Bound<'_, PyAny>>,
        agent: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<PyCheck> {
        let tool: String = tool.extract().map_err(|_| {
            PyTypeError::new_err(format!(
                "tool must be the tool's name as a string, not {}",
                type_name(tool)
            ))
        })?;
        let undoes = match compensates.filter(|c| !c.is_none()) {
            None => None,
            Some(c) => {
                if c.cast::<PyInt>().is_err() || c.cast::<pyo3::types::PyBool>().is_ok() {
                    return Err(PyTypeError::new_err(format!(
                        "compensates must be the step number of the call it undoes (an int), not {}",
                        type_name(c)
                    )));
                }
                Some(c.extract::<u32>().map_err(|_| {
                    PyValueError::new_err(format!(
                        "compensates must be a step number (1, 2, …), not {c}"
                    ))
                })?)
            }
        };
        let labels: BTreeMap<String, Vec<String>> = to_list_map(labels, "labels")?;
        if let Some(label) = stalwart_runtime::unknown_label(self.body_of.body(), &labels) {
            let agents = self.record.get().agent_names();
            return Err(PyValueError::new_err(format!(
                "labels: unknown label `{label}`: a label is `untrusted`, `untrusted:<where>`, \
                 `low`, `medium`, `high` or `agent:<name>` with an agent of the record ({})",
                if agents.is_empty() {
                    "it has none".to_string()
                } else {
                    agents.join(", ")
                }
            )));
        }
        let call = Call {
            tool,
            agent: to_opt_string(agent, "agent")?,
            arguments: Arc::new(to_object(args, "args")?),
            origins: Arc::new(to_string_map(origins, "origins")?),
            labels,
            context: self.context_for(py, context)?,
            intent: match to_opt_string(intent, "intent")? {
                Some(i) => Some(i),
                None => self.intent.clone(),
            },
            confirmation: to_opt_string(confirmation, "confirmation")?,
            undoes,
        };
        let check = self.operate(
            py,
            "the tool check",
            |s, env, record| stalwart_runtime::check_tool_call(record.body(), env, s, &call),
            is_history_invalid,
        )?;
        let step = if is_history_invalid(&check) {
            None
        } else {
            self.session.calls().next_back().map(|c| c.step)
        };
        Ok(PyCheck::new(py, check, step))
    }

    /// Records what became of call `step`: `outcome` is `"ran"`, `"failed"`, `"outcome_unknown"`
    /// or `"compensated"`; `result` is what the call returned.
    #[pyo3(signature = (step, outcome, result=None))]
    fn report(
        &mut self,
        py: Python<'_>,
        step: &Bound<'_, PyAny>,
        outcome: &Bound<'_, PyAny>,
        result: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<()> {
        if step.cast::<PyInt>().is_err() || step.cast::<pyo3::types::PyBool>().is_ok() {
            return Err(PyTypeError::new_err(format!(
                "step must be the call's step number (an int), not {}",
                type_name(step)
            )));
        }
        let step: u32 = step.extract().map_err(|_| {
            PyValueError::new_err(format!("step must be a step number (1, 2, …), not {step}"))
        })?;
        let word: String = outcome.extract().map_err(|_| {
            PyTypeError::new_err(format!(
                "outcome must be a string, not {}",
                type_name(outcome)
            ))
        })?;
        let outcome = Outcome::parse(&word).ok_or_else(|| {
            PyValueError::new_err(format!(
                "unknown outcome `{word}`: one of ran, failed, outcome_unknown, compensated"
            ))
        })?;
        let result = match result.filter(|r| !r.is_none()) {
            None => None,
            Some(r) => Some(to_json(r, "result")?),
        };
        self.operate(
            py,
            "the report",
            |s, env, _| stalwart_runtime::report(env, s, step, outcome, result),
            |_| false,
        )?
        .map_err(|e| PyValueError::new_err(format!("cannot report on call {step}: {e}")))
    }

    /// The agent this session belongs to.
    #[getter]
    fn agent(&self) -> String {
        self.session.agent.clone()
    }

    /// The session's id (the first link of its history's chain).
    #[getter]
    fn id(&self) -> String {
        self.session.id.clone()
    }

    /// The record the session is checked under.
    #[getter]
    fn record(&self, py: Python<'_>) -> Py<PyRecord> {
        self.record.clone_ref(py)
    }

    /// The person's intent for the current turn, if known.
    #[getter]
    fn intent(&self) -> Option<String> {
        self.intent.clone()
    }

    /// The session's head: `{"entries": n, "token": last token}`.
    #[getter]
    fn head<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let head = self.session.head();
        let out = PyDict::new(py);
        out.set_item("entries", head.entries)?;
        out.set_item("token", head.token)?;
        Ok(out)
    }

    /// The session's history (`stalwart_agents.History`): exportable, loadable, and checked
    /// again after any edit.
    #[getter]
    fn history<'py>(slf: &Bound<'py, Self>) -> PyResult<Bound<'py, PyAny>> {
        let py = slf.py();
        let class = HISTORY.get_or_try_init(py, || {
            py.import("stalwart_agents.history")?
                .getattr("History")
                .map(Bound::unbind)
        })?;
        class.bind(py).call1((slf,))
    }

    /// The history as a list of tracked dicts (the same list every time, kept up to date).
    fn _entries(&mut self, py: Python<'_>) -> PyResult<Py<PyList>> {
        if let Some(view) = &self.view {
            return Ok(view.list.clone_ref(py));
        }
        let mark = Py::new(py, EditMark { edited: false })?;
        let list = track(py, PyList::empty(py).into_any(), &mark)?
            .cast_into::<PyList>()
            .map_err(|_| crate::errors::internal("the tracked history is not a list"))?;
        self.view = Some(View {
            list: list.unbind(),
            mark,
            mirrored: 0,
            stale: true,
        });
        self.sync_view(py)?;
        self.view
            .as_ref()
            .map(|v| v.list.clone_ref(py))
            .ok_or_else(|| crate::errors::internal("the history view is missing"))
    }

    /// Whether the caller edited the history's Python objects since the last operation.
    fn _edited(&self, py: Python<'_>) -> bool {
        self.view.as_ref().is_some_and(|v| v.mark.borrow(py).edited)
    }

    /// The history as JSON text: what the caller carries (the edited entries, when edited).
    fn _history_json(&self, py: Python<'_>) -> PyResult<String> {
        let value = match &self.view {
            Some(v) if v.mark.borrow(py).edited => {
                let entries =
                    to_json_limited(v.list.bind(py).as_any(), "history.entries", HISTORY_NESTING)?;
                let mut map = Map::new();
                map.insert("agent".into(), Value::String(self.session.agent.clone()));
                map.insert("id".into(), Value::String(self.session.id.clone()));
                map.insert("entries".into(), entries);
                Value::Object(map)
            }
            _ => self.session.to_json(),
        };
        serde_json::to_string(&value).map_err(|e| crate::errors::internal(e.to_string()))
    }

    /// Ends the session (its client was closed).
    fn _close(&mut self) {
        self.closed = true;
    }

    fn __traverse__(&self, visit: PyVisit<'_>) -> Result<(), PyTraverseError> {
        visit.call(&self.record)?;
        visit.call(&self.context)?;
        visit.call(&self.user)?;
        if let Some(view) = &self.view {
            visit.call(&view.list)?;
            visit.call(&view.mark)?;
        }
        Ok(())
    }

    /// Breaks reference cycles through the session's Python values; the session answers
    /// nothing more afterwards.
    fn __clear__(&mut self) {
        self.context = None;
        self.user = None;
        self.view = None;
        self.closed = true;
    }

    fn __repr__(&self) -> String {
        format!(
            "<Session agent={:?} id={:?} entries={}>",
            self.session.agent,
            self.session.id,
            self.session.entries().len()
        )
    }
}
