//! Calls a host makes itself in a conversation's turn (the LangGraph guard): no program runs
//! again from its start; the graph names each call by its turn and its place in the turn
//! (`Store::host_call`), and a node the graph runs again is answered from the store.
//!
//! What a call ends in crosses as a dict: `{"reply": Reply}` when it was answered (it ran, was
//! replayed, denied or refused), or `{"stop": "waiting", "approvals": [...]}`,
//! `{"stop": "interrupted", "unfinished": [...], "why": ...}`,
//! `{"stop": "approval_required", "approval": ...}`.

use std::sync::Arc;

use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::types::PyDict;
use serde_json::{Map, Value};
use stalwart_runtime::Call;
use stalwart_store::Stop;

use crate::conversation::{PyConversation, json_py, store_error};
use crate::convert::{to_json, to_list_map, to_object, to_opt_string, to_py, type_name};
use crate::session::context_with;

/// Call `invocation` of turn `number` (opened with the person's words `input` when it is new):
/// checked, asked about, journaled, and run by `run(args)` (its result, or an exception: the
/// call failed), or answered from the store.
#[pyfunction]
#[pyo3(signature = (conversation, number, input, invocation, tool, args, run, *, origins=None, labels=None, context=None, intent=None))]
#[expect(
    clippy::too_many_arguments,
    reason = "a tool call's parts, as `RunningTurn.tool` takes them"
)]
pub fn host_call(
    py: Python<'_>,
    conversation: &Bound<'_, PyConversation>,
    number: u64,
    input: &str,
    invocation: u32,
    tool: &str,
    args: Option<&Bound<'_, PyAny>>,
    run: &Bound<'_, PyAny>,
    origins: Option<&Bound<'_, PyAny>>,
    labels: Option<&Bound<'_, PyAny>>,
    context: Option<&Bound<'_, PyAny>>,
    intent: Option<&Bound<'_, PyAny>>,
) -> PyResult<Py<PyAny>> {
    if !run.is_callable() {
        return Err(PyTypeError::new_err(format!(
            "run must be a function of the call's arguments, not {}",
            type_name(run)
        )));
    }
    let chat = conversation.borrow();
    let arguments = to_object(args, "args")?;
    let origins = match origins.filter(|o| !o.is_none()) {
        Some(o) => crate::convert::to_string_map(Some(o), "origins")?,
        None => arguments
            .keys()
            .map(|k| (k.clone(), "model".to_string()))
            .collect(),
    };
    let call = Call {
        tool: tool.to_string(),
        arguments: Arc::new(arguments),
        origins: Arc::new(origins),
        labels: to_list_map(labels, "labels")?,
        context: context_with(py, chat.context.as_ref(), chat.user.as_ref(), context)?,
        intent: to_opt_string(intent, "intent")?,
        ..Call::default()
    };
    let mut code = |args: &Map<String, Value>, _invocation: u32| -> Result<Value, String> {
        let given = to_py(py, &Value::Object(args.clone())).map_err(|e| e.to_string())?;
        run.call1((given,))
            .and_then(|v| {
                if v.is_none() {
                    Ok(Value::Null)
                } else {
                    to_json(&v, "the tool's result")
                }
            })
            .map_err(|e| e.value(py).to_string())
    };
    let id = chat.id.clone();
    let out = chat.with_guard(py, |store, guard| {
        store.host_call(guard, &id, number, input, invocation, call, &mut code)
    })?;
    let dict = PyDict::new(py);
    match out {
        Ok(reply) => dict.set_item("reply", json_py(py, &reply)?)?,
        Err(Stop::Waiting(approvals)) => {
            dict.set_item("stop", "waiting")?;
            dict.set_item("approvals", json_py(py, &approvals)?)?;
        }
        Err(Stop::Interrupted(unfinished)) => {
            dict.set_item("stop", "interrupted")?;
            dict.set_item("unfinished", json_py(py, &unfinished)?)?;
            dict.set_item("why", py.None())?;
        }
        Err(Stop::Failed(why)) => {
            dict.set_item("stop", "interrupted")?;
            dict.set_item("unfinished", Vec::<String>::new())?;
            dict.set_item("why", why)?;
        }
        Err(Stop::ApprovalRequired(a)) => {
            dict.set_item("stop", "approval_required")?;
            dict.set_item("approval", json_py(py, &*a)?)?;
        }
        Err(Stop::Store(e)) => return Err(store_error(py, &e)),
    }
    Ok(dict.into_any().unbind())
}

/// Ends turn `number` with its answer (the model's last words), unless it waits or has ended.
#[pyfunction]
pub fn host_done(
    py: Python<'_>,
    conversation: &Bound<'_, PyConversation>,
    number: u64,
    answer: &str,
) -> PyResult<()> {
    let chat = conversation.borrow();
    let id = chat.id.clone();
    chat.with_guard(py, |store, _| store.host_done(&id, number, answer))
}
