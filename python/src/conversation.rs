//! `Conversation`: a conversation held in a store (`stalwart-store`, SQLite or PostgreSQL), whose
//! turns run the host's Python program and may wait for a person (spec
//! tools-that-ask-first.txt).
//!
//! Every operation is the store's: `start` ([`Store::start_turn`]), `resume`
//! ([`Store::resolve`] then [`Store::resume_turn`]), `approve` / `deny` ([`Store::approve`],
//! [`Store::deny`]), `abandon`, `turn` and `turns`. The binding adds only what a host must: the
//! record and its key, who answers approvals (a rule, a Python function, or nobody), and the
//! program as a Python callable that gets a [`PyRunningTurn`] through which it asks the model and
//! calls the tools. Answers cross as JSON-shaped Python values; `stalwart_agents.conversation`
//! gives them their Python types and raises the package's exceptions.

use std::ffi::c_void;
use std::sync::{Arc, Mutex};

use pyo3::PyTraverseError;
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::gc::PyVisit;
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::{PyBool, PyDict, PyList, PyString, PyTuple};
use serde::Serialize;
use serde_json::{Map, Value};
use stalwart_host::HostError;
use stalwart_host::history_file::new_id;
use stalwart_host::key::load_key;
use stalwart_record::Record;
use stalwart_runtime::{Call, RecordKey};
use stalwart_store::{
    Approval, Approve, Guard, Program, Results, Rule, Stop, Store, Turn, TurnFilter, TurnRun,
    Verdict,
};

use crate::convert::{to_json, to_list_map, to_object, to_opt_string, to_py, type_name};
use crate::errors::{error, unavailable};
use crate::record::PyRecord;
use crate::session::context_with;

/// Who answers a conversation's approvals.
enum Approver {
    /// A person, later, from any process: the turn waits, saved.
    Person(Rule),
    /// A Python function, at once: `True`, `False`, or a reason to refuse.
    Function(Py<PyAny>),
    /// Nobody: a call that needs an approval fails before it runs.
    Nobody,
}

/// A conversation held in a store.
#[pyclass(module = "stalwart_agents._native", name = "Conversation")]
pub struct PyConversation {
    record: Py<PyRecord>,
    body_of: Arc<Record>,
    key: RecordKey,
    agent: String,
    pub(crate) id: String,
    shown: String,
    /// Held while a turn runs: the program may not start another turn of it meanwhile.
    store: Mutex<Store>,
    /// The folder of a store made for this conversation alone (no `store=` given).
    own_store: Option<tempfile::TempDir>,
    program: Py<PyAny>,
    approver: Approver,
    pub(crate) context: Option<Py<PyAny>>,
    pub(crate) user: Option<Py<PyAny>>,
}

pub(crate) fn store_error(py: Python<'_>, e: &HostError) -> PyErr {
    error(
        py,
        "StoreError",
        (e.message.clone(), e.code.id, e.code.slug),
    )
}

pub(crate) fn json_py<T: Serialize>(py: Python<'_>, value: &T) -> PyResult<Py<PyAny>> {
    let value = serde_json::to_value(value).map_err(|e| crate::errors::internal(e.to_string()))?;
    to_py(py, &value).map(Bound::unbind)
}

/// Reads `approve=`: a rule (`"changes"`, `"all"`, or a list of tool names and approval paths), a
/// function, or None (a person answers what the check confirms).
fn approver_of(value: Option<&Bound<'_, PyAny>>, has_store: bool) -> PyResult<Approver> {
    let person = |rule| {
        if has_store {
            Approver::Person(rule)
        } else {
            Approver::Nobody
        }
    };
    let Some(value) = value.filter(|v| !v.is_none()) else {
        return Ok(person(Rule::Only(Vec::new())));
    };
    if let Ok(text) = value.cast::<PyString>() {
        let text = text.to_str()?;
        return match text {
            "changes" => Ok(person(Rule::Changes)),
            "all" => Ok(person(Rule::All)),
            other => Err(PyValueError::new_err(format!(
                "approve: `{other}` is not a rule: a rule is \"changes\", \"all\", or a list of \
                 tool names and approval paths"
            ))),
        };
    }
    if value.cast::<PyList>().is_ok() || value.cast::<PyTuple>().is_ok() {
        let mut names = Vec::new();
        for item in value.try_iter()? {
            let item = item?;
            let name: String = item.extract().map_err(|_| {
                PyTypeError::new_err(format!(
                    "approve: a rule's list holds tool names and approval paths (strings), not {}",
                    type_name(&item)
                ))
            })?;
            names.push(name);
        }
        return Ok(person(Rule::Only(names)));
    }
    if value.is_callable() {
        return Ok(Approver::Function(value.clone().unbind()));
    }
    Err(PyTypeError::new_err(format!(
        "approve must be \"changes\", \"all\", a list of tool names and approval paths, or a \
         function of an Approval, not {}",
        type_name(value)
    )))
}

/// Opens the conversation `id` of `agent` in the store at `store` (a new store of its own,
/// gone with the process, when None), its turns run by `program`.
#[pyfunction]
#[pyo3(signature = (record, agent, program, id=None, *, store=None, approve=None, context=None, user=None))]
#[allow(clippy::too_many_arguments)]
pub fn open_conversation(
    py: Python<'_>,
    record: Bound<'_, PyRecord>,
    agent: &Bound<'_, PyAny>,
    program: &Bound<'_, PyAny>,
    id: Option<&Bound<'_, PyAny>>,
    store: Option<&Bound<'_, PyAny>>,
    approve: Option<&Bound<'_, PyAny>>,
    context: Option<Py<PyAny>>,
    user: Option<Py<PyAny>>,
) -> PyResult<PyConversation> {
    let agent: String = agent.extract().map_err(|_| {
        PyTypeError::new_err(format!(
            "the agent must be named by a string, not {}",
            type_name(agent)
        ))
    })?;
    if !program.is_callable() {
        return Err(PyTypeError::new_err(format!(
            "the program must be a function of a turn, not {}",
            type_name(program)
        )));
    }
    let rec = record.get();
    let names = rec.agent_names();
    if !names.contains(&agent) {
        return Err(PyValueError::new_err(format!(
            "unknown agent `{agent}`: the record has {}",
            if names.is_empty() {
                "none".to_string()
            } else {
                names.join(", ")
            }
        )));
    }
    let url: Option<String> = match store.filter(|s| !s.is_none()) {
        None => None,
        Some(s) => Some(
            s.extract::<std::path::PathBuf>()
                .map(|p| p.to_string_lossy().into_owned())
                .or_else(|_| s.extract::<String>())
                .map_err(|_| {
                    PyTypeError::new_err(format!(
                        "store must be a URL (`sqlite:PATH`, a path, or `postgres://…`), not {}",
                        type_name(s)
                    ))
                })?,
        ),
    };
    let approver = approver_of(approve, url.is_some())?;
    let (url, own) = match url {
        Some(u) => (u, None),
        None => {
            let dir = tempfile::tempdir()
                .map_err(|e| unavailable(py, format!("cannot make a store: {e}")))?;
            let path = dir.path().join(stalwart_store::url::SQLITE_FILE);
            (format!("sqlite:{}", path.display()), Some(dir))
        }
    };
    let id = match to_opt_string(id, "id")? {
        Some(id) if !id.is_empty() => id,
        Some(_) => {
            return Err(PyValueError::new_err(
                "id: a conversation's id is not empty",
            ));
        }
        None => new_id().map_err(|e| unavailable(py, e.to_string()))?,
    };
    let key = load_key(&rec.key_path(), stalwart_store::store::now())
        .map_err(|e| unavailable(py, e.to_string()))?
        .for_record(&rec.inner.header().digest);
    let mut opened = py
        .detach(|| Store::open(&url))
        .map_err(|e| store_error(py, &e))?;
    opened
        .open_conversation(&agent, &id, &key)
        .map_err(|e| store_error(py, &e))?;
    Ok(PyConversation {
        body_of: rec.inner.clone(),
        record: record.unbind(),
        key,
        agent,
        id,
        shown: opened.shown().to_string(),
        store: Mutex::new(opened),
        own_store: own,
        program: program.clone().unbind(),
        approver,
        context,
        user,
    })
}

/// What a run of the program left behind, beside the store's answer.
#[derive(Default)]
struct Left {
    /// The program's own exception (or the model's, or the approval function's).
    error: Option<PyErr>,
    /// The approval nobody could give.
    required: Option<Approval>,
}

impl PyConversation {
    /// Runs `f` on the store with a guard and the program, and turns its answer into a dict:
    /// the run (`TurnRun`'s JSON) and, when a call needed an approval nobody could give, that
    /// approval (`approval_required`). The program's own exception is raised as it is, once the
    /// store has recorded how the turn stopped; so is an exception of the approve function,
    /// whose call is refused (a refusal is always safe).
    fn drive(
        &self,
        py: Python<'_>,
        approver: &Approver,
        f: impl FnOnce(&mut Store, &mut Guard<'_>, &mut dyn Program) -> Result<TurnRun, HostError>,
    ) -> PyResult<Py<PyAny>> {
        let mut store = self.store.try_lock().map_err(|_| {
            PyValueError::new_err(format!(
                "the conversation `{}` is running a turn in this process: a turn's program \
                 cannot start or answer another",
                self.id
            ))
        })?;
        let left = std::cell::RefCell::new(Left::default());
        let mut ask = |a: &Approval| -> Verdict {
            let Approver::Function(f) = approver else {
                return Verdict::Deny(None);
            };
            let answer = approval_py(py, a).and_then(|a| f.bind(py).call1((a,)));
            match answer {
                Ok(v) => match verdict_of(&v) {
                    Ok(verdict) => verdict,
                    Err(e) => {
                        left.borrow_mut().error.get_or_insert(e);
                        Verdict::Deny(None)
                    }
                },
                Err(e) => {
                    left.borrow_mut().error.get_or_insert(e);
                    Verdict::Deny(None)
                }
            }
        };
        let approve = match approver {
            Approver::Person(rule) => Approve::Person(rule.clone()),
            Approver::Function(_) => Approve::Function(&mut ask),
            Approver::Nobody => Approve::Nobody,
        };
        let mut guard = Guard {
            body: self.body_of.body(),
            key: &self.key,
            approve,
        };
        let mut program = PyProgram {
            py,
            conversation: self,
            left: &left,
        };
        let run = f(&mut store, &mut guard, &mut program);
        drop(guard);
        drop(store);
        let left = left.into_inner();
        let run = run.map_err(|e| store_error(py, &e))?;
        // The program's exception (its turn is interrupted), or the approve function's (the call
        // it was asked about was refused, and the model read that refusal).
        if let Some(e) = left.error {
            return Err(e);
        }
        let out = PyDict::new(py);
        out.set_item("run", json_py(py, &run)?)?;
        if let Some(a) = left.required {
            out.set_item("approval_required", json_py(py, &a)?)?;
        }
        Ok(out.into_any().unbind())
    }
}

impl PyConversation {
    /// Runs `f` on the store with a guard, for calls the host makes itself (the LangGraph guard:
    /// no program runs). An exception of the approve function is raised once `f` is done (the
    /// call it was asked about was refused).
    pub(crate) fn with_guard<R>(
        &self,
        py: Python<'_>,
        f: impl FnOnce(&mut Store, &mut Guard<'_>) -> Result<R, HostError>,
    ) -> PyResult<R> {
        let mut store = self.lock()?;
        let failed: std::cell::RefCell<Option<PyErr>> = std::cell::RefCell::new(None);
        let mut ask = |a: &Approval| -> Verdict {
            let Approver::Function(f) = &self.approver else {
                return Verdict::Deny(None);
            };
            let answer = approval_py(py, a)
                .and_then(|a| f.bind(py).call1((a,)))
                .and_then(|v| verdict_of(&v));
            answer.unwrap_or_else(|e| {
                failed.borrow_mut().get_or_insert(e);
                Verdict::Deny(None)
            })
        };
        let approve = match &self.approver {
            Approver::Person(rule) => Approve::Person(rule.clone()),
            Approver::Function(_) => Approve::Function(&mut ask),
            Approver::Nobody => Approve::Nobody,
        };
        let mut guard = Guard {
            body: self.body_of.body(),
            key: &self.key,
            approve,
        };
        let out = f(&mut store, &mut guard);
        drop(guard);
        drop(store);
        if let Some(e) = failed.into_inner() {
            return Err(e);
        }
        out.map_err(|e| store_error(py, &e))
    }
}

/// The Python program as the store's [`Program`].
struct PyProgram<'a, 'py> {
    py: Python<'py>,
    conversation: &'a PyConversation,
    left: &'a std::cell::RefCell<Left>,
}

impl Program for PyProgram<'_, '_> {
    fn run(&mut self, turn: &mut Turn<'_, '_>) -> Result<String, Stop> {
        let py = self.py;
        let ptr = std::ptr::from_mut(turn).cast::<c_void>();
        let handle = match Py::new(
            py,
            PyRunningTurn {
                turn: ptr,
                busy: false,
                stop: None,
                context: self.conversation.context.as_ref().map(|c| c.clone_ref(py)),
                user: self.conversation.user.as_ref().map(|u| u.clone_ref(py)),
                input: turn.input().to_string(),
                earlier: turn.earlier().to_vec(),
                conversation: turn.conversation().to_string(),
                number: turn.number(),
                writer: turn.writer(),
                error: None,
            },
        ) {
            Ok(h) => h,
            Err(e) => {
                let why = e.to_string();
                self.left.borrow_mut().error = Some(e);
                return Err(Stop::Failed(why));
            }
        };
        let answer = self
            .conversation
            .program
            .bind(py)
            .call1((handle.clone_ref(py),));
        // INVARIANT: the pointer is cleared before `turn` goes out of reach; every method of
        // the handle refuses once it is.
        let (stop, error) = {
            let mut h = handle.borrow_mut(py);
            h.turn = std::ptr::null_mut();
            (h.stop.take(), h.error.take())
        };
        if let Some(stop) = stop {
            if let Stop::ApprovalRequired(a) = &stop {
                self.left.borrow_mut().required = Some((**a).clone());
            }
            if let (Stop::Failed(_), Some(e)) = (&stop, error) {
                self.left.borrow_mut().error = Some(e);
            }
            return Err(stop);
        }
        match answer {
            Ok(v) => match v.extract::<String>() {
                Ok(text) => Ok(text),
                Err(_) => {
                    let why = format!(
                        "the program must return the turn's answer as a string, not {}",
                        type_name(&v)
                    );
                    self.left.borrow_mut().error = Some(PyTypeError::new_err(why.clone()));
                    Err(Stop::Failed(why))
                }
            },
            Err(e) => {
                let why = e.to_string();
                self.left.borrow_mut().error = Some(e);
                Err(Stop::Failed(why))
            }
        }
    }
}

/// A host function's answer: `True`, `False`, or a reason to refuse.
fn verdict_of(value: &Bound<'_, PyAny>) -> PyResult<Verdict> {
    if let Ok(b) = value.cast::<PyBool>() {
        return Ok(Verdict::from(b.is_true()));
    }
    if let Ok(s) = value.cast::<PyString>() {
        return Ok(Verdict::from(s.to_str()?));
    }
    Err(PyTypeError::new_err(format!(
        "the approve function must answer True, False or a reason to refuse (a string), not {}",
        type_name(value)
    )))
}

static CONVERSATION: PyOnceLock<Py<PyModule>> = PyOnceLock::new();

/// `stalwart_agents.conversation.<class>.from_json(value)`.
pub(crate) fn typed<'py>(
    py: Python<'py>,
    class: &str,
    value: Py<PyAny>,
) -> PyResult<Bound<'py, PyAny>> {
    let module = CONVERSATION.get_or_try_init(py, || {
        py.import("stalwart_agents.conversation").map(Bound::unbind)
    })?;
    module
        .bind(py)
        .getattr(class)?
        .getattr("from_json")?
        .call1((value,))
}

fn approval_py<'py>(py: Python<'py>, a: &Approval) -> PyResult<Bound<'py, PyAny>> {
    typed(py, "Approval", json_py(py, a)?)
}

#[pymethods]
impl PyConversation {
    /// Starts a turn with the person's words and runs it; `approve` sets who answers for this
    /// turn alone (as the conversation's `approve=` does).
    #[pyo3(signature = (input, *, approve=None))]
    fn start(
        &self,
        py: Python<'_>,
        input: &Bound<'_, PyAny>,
        approve: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Py<PyAny>> {
        let input: String = input.extract().map_err(|_| {
            PyTypeError::new_err(format!(
                "the turn must be a string, not {}",
                type_name(input)
            ))
        })?;
        let own;
        let approver = match approve.filter(|a| !a.is_none()) {
            Some(a) => {
                own = approver_of(Some(a), self.own_store.is_none())?;
                &own
            }
            None => &self.approver,
        };
        let id = self.id.clone();
        self.drive(py, approver, |store, guard, program| {
            store.start_turn(guard, &id, &input, program)
        })
    }

    /// Goes on with turn `number` (the last when None): first the results of unfinished calls
    /// and the calls to run again, as `by` says, then the program runs again.
    #[pyo3(signature = (number=None, *, results=None, rerun=None, by="host"))]
    fn resume(
        &self,
        py: Python<'_>,
        number: Option<u64>,
        results: Option<&Bound<'_, PyAny>>,
        rerun: Option<Vec<u32>>,
        by: &str,
    ) -> PyResult<Py<PyAny>> {
        let mut given = Results::new();
        if let Some(r) = results.filter(|r| !r.is_none()) {
            let dict = r.cast::<PyDict>().map_err(|_| {
                PyTypeError::new_err(format!(
                    "results must be a dict of call numbers to what they returned, not {}",
                    type_name(r)
                ))
            })?;
            for (k, v) in dict.iter() {
                let n: u32 = k.extract().map_err(|_| {
                    PyTypeError::new_err(format!(
                        "results: a key is a call's number (an int), not {}",
                        type_name(&k)
                    ))
                })?;
                given.insert(n, to_json(&v, "results")?);
            }
        }
        let rerun = rerun.unwrap_or_default();
        let id = self.id.clone();
        if !given.is_empty() || !rerun.is_empty() {
            let mut store = self.lock()?;
            store
                .resolve(&id, number, &given, &rerun, by)
                .map_err(|e| store_error(py, &e))?;
        }
        self.drive(py, &self.approver, |store, guard, program| {
            store.resume_turn(guard, &id, number, program)
        })
    }

    /// Approves what turn `number` waits for (call `invocation` only, when given), as `by`.
    #[pyo3(signature = (number, by, invocation=None))]
    fn approve(
        &self,
        py: Python<'_>,
        number: Option<u64>,
        by: &str,
        invocation: Option<u32>,
    ) -> PyResult<Py<PyAny>> {
        let answered = self
            .lock()?
            .approve(&self.id, number, invocation, by)
            .map_err(|e| store_error(py, &e))?;
        json_py(py, &answered)
    }

    /// Refuses what turn `number` waits for, as `by`, with a reason the model reads.
    #[pyo3(signature = (number, by, reason=None, invocation=None))]
    fn deny(
        &self,
        py: Python<'_>,
        number: Option<u64>,
        by: &str,
        reason: Option<&str>,
        invocation: Option<u32>,
    ) -> PyResult<Py<PyAny>> {
        let answered = self
            .lock()?
            .deny(&self.id, number, invocation, by, reason)
            .map_err(|e| store_error(py, &e))?;
        json_py(py, &answered)
    }

    /// Ends turn `number` without going on.
    #[pyo3(signature = (number, by, why=None))]
    fn abandon(
        &self,
        py: Python<'_>,
        number: Option<u64>,
        by: &str,
        why: Option<&str>,
    ) -> PyResult<u64> {
        self.lock()?
            .abandon(&self.id, number, by, why)
            .map_err(|e| store_error(py, &e))
    }

    /// Turn `number` whole (the last when None), as the store holds it now.
    #[pyo3(signature = (number=None))]
    fn turn(&self, py: Python<'_>, number: Option<u64>) -> PyResult<Py<PyAny>> {
        let info = self
            .lock()?
            .turn(&self.id, number)
            .map_err(|e| store_error(py, &e))?;
        json_py(py, &info)
    }

    /// The numbers of the conversation's turns, oldest first.
    fn turn_numbers(&self, py: Python<'_>) -> PyResult<Vec<u64>> {
        let filter = TurnFilter {
            conversation: Some(self.id.clone()),
            ..TurnFilter::default()
        };
        let list = self
            .lock()?
            .turns(&filter)
            .map_err(|e| store_error(py, &e))?;
        Ok(list.iter().map(|t| t.number).collect())
    }

    #[getter]
    fn id(&self) -> String {
        self.id.clone()
    }

    #[getter]
    fn agent(&self) -> String {
        self.agent.clone()
    }

    /// The store's address, as messages show it (a password hidden).
    #[getter]
    fn store(&self) -> String {
        self.shown.clone()
    }

    #[getter]
    fn record(&self, py: Python<'_>) -> Py<PyRecord> {
        self.record.clone_ref(py)
    }

    /// Whether someone answers approvals later (a rule with a store), rather than at once or
    /// nobody.
    #[getter]
    fn waits(&self) -> bool {
        matches!(self.approver, Approver::Person(_))
    }

    fn __traverse__(&self, visit: PyVisit<'_>) -> Result<(), PyTraverseError> {
        visit.call(&self.record)?;
        visit.call(&self.program)?;
        if let Approver::Function(f) = &self.approver {
            visit.call(f)?;
        }
        visit.call(&self.context)?;
        visit.call(&self.user)?;
        Ok(())
    }

    fn __repr__(&self) -> String {
        format!(
            "<Conversation {:?} of {:?} in {}>",
            self.id, self.agent, self.shown
        )
    }
}

impl PyConversation {
    fn lock(&self) -> PyResult<std::sync::MutexGuard<'_, Store>> {
        self.store.try_lock().map_err(|_| {
            PyValueError::new_err(format!(
                "the conversation `{}` is running a turn in this process: answer it once the \
                 turn has stopped",
                self.id
            ))
        })
    }
}

/// A turn while its program runs: the program asks the model and calls the tools through it.
#[pyclass(module = "stalwart_agents._native", name = "RunningTurn", unsendable)]
pub struct PyRunningTurn {
    /// The store's `Turn` while the program runs; null after.
    turn: *mut c_void,
    /// Set while a call into the turn runs (a tool's code calling the turn again is refused).
    busy: bool,
    /// Why the turn stopped: once set, every call raises.
    stop: Option<Stop>,
    /// The exception behind a `Failed` stop (the model's).
    error: Option<PyErr>,
    context: Option<Py<PyAny>>,
    user: Option<Py<PyAny>>,
    input: String,
    earlier: Vec<(String, Option<String>)>,
    conversation: String,
    number: u64,
    writer: u64,
}

/// `stalwart_agents.errors._TurnStopped`: unwinds the program when its turn stopped.
fn stopped(py: Python<'_>, why: &str) -> PyErr {
    error(py, "_TurnStopped", (why.to_string(),))
}

impl PyRunningTurn {
    /// Runs `f` on the store's turn, unless the turn is over, stopped, or busy.
    fn with_turn<R>(
        slf: &Bound<'_, Self>,
        f: impl FnOnce(&mut Turn<'_, '_>) -> Result<R, Stop>,
    ) -> PyResult<R> {
        let py = slf.py();
        let ptr = {
            let mut me = slf.borrow_mut();
            if me.turn.is_null() {
                return Err(PyValueError::new_err(
                    "the turn is over: its program has returned",
                ));
            }
            if me.stop.is_some() {
                return Err(stopped(py, "the turn stopped"));
            }
            if me.busy {
                return Err(PyValueError::new_err(
                    "the turn is busy: a tool's code or the model cannot call the turn again",
                ));
            }
            me.busy = true;
            me.turn
        };
        // SAFETY: `ptr` points at the `Turn` `PyProgram::run` holds for the whole call of the
        // program, and is cleared before that call returns; `busy` keeps this the only
        // reference made from it at a time.
        let turn = unsafe { &mut *ptr.cast::<Turn<'_, '_>>() };
        let out = f(turn);
        let mut me = slf.borrow_mut();
        me.busy = false;
        out.map_err(|stop| {
            let why = match &stop {
                Stop::Waiting(_) => "the turn waits for a person".to_string(),
                Stop::Interrupted(_) => "the turn has an unfinished call".to_string(),
                Stop::ApprovalRequired(a) => format!("approval_required: {a}"),
                Stop::Failed(why) => why.clone(),
                Stop::Store(e) => e.message.clone(),
            };
            me.stop = Some(stop);
            match me.error.as_ref() {
                Some(e) => e.clone_ref(py),
                None => stopped(py, &why),
            }
        })
    }
}

#[pymethods]
impl PyRunningTurn {
    /// The person's words this turn answers.
    #[getter]
    fn input(&self) -> String {
        self.input.clone()
    }

    /// The conversation's earlier turns: `(input, answer)`, oldest first.
    #[getter]
    fn earlier(&self) -> Vec<(String, Option<String>)> {
        self.earlier.clone()
    }

    #[getter]
    fn conversation(&self) -> String {
        self.conversation.clone()
    }

    #[getter]
    fn number(&self) -> u64 {
        self.number
    }

    /// Which run of the turn this is (1 the first; a resumed turn's runs are later writers).
    #[getter]
    fn writer(&self) -> u64 {
        self.writer
    }

    /// Asks the model: `ask(request)` answers, unless this request was made before in this
    /// turn, when its recorded reply is returned and nothing is asked.
    fn model(
        slf: &Bound<'_, Self>,
        request: &Bound<'_, PyAny>,
        ask: &Bound<'_, PyAny>,
    ) -> PyResult<Py<PyAny>> {
        let py = slf.py();
        let request = to_json(request, "request")?;
        let failure: std::cell::RefCell<Option<PyErr>> = std::cell::RefCell::new(None);
        let mut call = |r: &Value| -> Result<Value, String> {
            let answer = to_py(py, r)
                .and_then(|r| ask.call1((r,)))
                .and_then(|v| to_json(&v, "the model's reply"));
            answer.map_err(|e| {
                let why = e.to_string();
                *failure.borrow_mut() = Some(e);
                why
            })
        };
        let reply = {
            let r = Self::with_turn(slf, |turn| turn.model(&request, &mut call));
            if let Some(e) = failure.borrow_mut().take() {
                slf.borrow_mut().error = Some(e.clone_ref(py));
                return Err(e);
            }
            r?
        };
        to_py(py, &reply).map(Bound::unbind)
    }

    /// Calls a tool: checked, asked about, journaled and run (`run(**args)`; `tool` may be the
    /// function itself, named as its tool), or answered from the journal when it ran before.
    #[pyo3(signature = (tool, args=None, *, run=None, origins=None, labels=None, context=None, intent=None))]
    #[allow(clippy::too_many_arguments)]
    fn tool(
        slf: &Bound<'_, Self>,
        tool: &Bound<'_, PyAny>,
        args: Option<&Bound<'_, PyAny>>,
        run: Option<&Bound<'_, PyAny>>,
        origins: Option<&Bound<'_, PyAny>>,
        labels: Option<&Bound<'_, PyAny>>,
        context: Option<&Bound<'_, PyAny>>,
        intent: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Py<PyAny>> {
        let py = slf.py();
        let (name, code) = if let Ok(name) = tool.extract::<String>() {
            let code = run.filter(|r| !r.is_none()).ok_or_else(|| {
                PyTypeError::new_err(format!(
                    "the tool `{name}` is named by a string: give its code as run="
                ))
            })?;
            (name, code.clone())
        } else if tool.is_callable() {
            let name = tool_name(tool)?;
            (name, run.filter(|r| !r.is_none()).unwrap_or(tool).clone())
        } else {
            return Err(PyTypeError::new_err(format!(
                "tool must be a tool's name or its function, not {}",
                type_name(tool)
            )));
        };
        let arguments = to_object(args, "args")?;
        let origins = match origins.filter(|o| !o.is_none()) {
            Some(o) => crate::convert::to_string_map(Some(o), "origins")?,
            None => arguments
                .keys()
                .map(|k| (k.clone(), "model".to_string()))
                .collect(),
        };
        let (base, user) = {
            let me = slf.borrow();
            (
                me.context.as_ref().map(|c| c.clone_ref(py)),
                me.user.as_ref().map(|u| u.clone_ref(py)),
            )
        };
        let call = Call {
            tool: name,
            arguments: Arc::new(arguments),
            origins: Arc::new(origins),
            labels: to_list_map(labels, "labels")?,
            context: context_with(py, base.as_ref(), user.as_ref(), context)?,
            intent: to_opt_string(intent, "intent")?,
            ..Call::default()
        };
        let mut code_fn = |args: &Map<String, Value>, _invocation: u32| -> Result<Value, String> {
            let kwargs = PyDict::new(py);
            for (k, v) in args {
                to_py(py, v)
                    .and_then(|v| kwargs.set_item(k, v))
                    .map_err(|e| e.to_string())?;
            }
            code.call((), Some(&kwargs))
                .and_then(|v| {
                    if v.is_none() {
                        Ok(Value::Null)
                    } else {
                        to_json(&v, "the tool's result")
                    }
                })
                .map_err(|e| e.to_string())
        };
        let reply = Self::with_turn(slf, |turn| turn.tool(call, &mut code_fn))?;
        Ok(typed(py, "Reply", json_py(py, &reply)?)?.unbind())
    }

    fn __traverse__(&self, visit: PyVisit<'_>) -> Result<(), PyTraverseError> {
        visit.call(&self.context)?;
        visit.call(&self.user)?;
        Ok(())
    }

    fn __repr__(&self) -> String {
        format!(
            "<RunningTurn {} of {:?} (run {})>",
            self.number, self.conversation, self.writer
        )
    }
}

/// A tool function's name as its tool: the `@tool` declaration's `name`, else `__name__`.
pub(crate) fn tool_name(f: &Bound<'_, PyAny>) -> PyResult<String> {
    if let Ok(decl) = f.getattr("__stalwart_tool__")
        && let Ok(Some(name)) = decl
            .get_item("name")
            .and_then(|n| n.extract::<Option<String>>())
    {
        return Ok(name);
    }
    f.getattr("__name__")?.extract::<String>().map_err(|_| {
        PyTypeError::new_err("the tool's function has no name: give the tool's name as a string")
    })
}
