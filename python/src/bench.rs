//! Benchmark helpers, built only with the `bench` feature (`python/bench/run.sh`): the same
//! check timed in Rust inside the Python process, and the cost of calling into the module with
//! the same arguments (the FFI floor), so that one run compares them side by side.

use std::collections::BTreeMap;
use std::sync::Arc;

use pyo3::prelude::*;
use serde_json::{Map, Value};
use stalwart_host::history_file::new_id;
use stalwart_host::key::load_key;
use stalwart_runtime::{Call, Env, Session};

use crate::convert::{to_object, to_string_map};
use crate::record::PyRecord;

fn now() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0)
}

/// Times (in process CPU time) `checks` checks of one call in Rust, on a new session of `agent` that read `turn` with
/// `intent`, `batches` times; returns each batch's nanoseconds per check. The call's arguments
/// are converted once, as a Rust host would hold them; the clock is read at each check, as the
/// binding reads it; with `anchor`, the session is anchored at its head after each check, as the
/// binding anchors it.
#[pyfunction]
#[pyo3(signature = (record, agent, turn, intent, tool, args, origins, context, checks, batches, anchor))]
#[allow(clippy::too_many_arguments)]
pub fn rust_check_ns(
    py: Python<'_>,
    record: &Bound<'_, PyRecord>,
    agent: &str,
    turn: &str,
    intent: &str,
    tool: &str,
    args: &Bound<'_, PyAny>,
    origins: &Bound<'_, PyAny>,
    context: &Bound<'_, PyAny>,
    checks: usize,
    batches: usize,
    anchor: bool,
) -> PyResult<Vec<f64>> {
    let rec = record.get();
    let key = load_key(&rec.key_path(), now())
        .map_err(|e| crate::errors::unavailable(py, e.to_string()))?
        .for_record(&rec.inner.header().digest);
    let call = Call {
        tool: tool.to_string(),
        agent: None,
        arguments: Arc::new(to_object(Some(args), "args")?),
        origins: Arc::new(to_string_map(Some(origins), "origins")?),
        labels: BTreeMap::new(),
        context: to_object(Some(context), "context")?,
        intent: Some(intent.to_string()),
        confirmation: None,
        undoes: None,
    };
    let body = rec.inner.body();
    // The process's CPU time, as the Python side reads it: on a shared machine, time spent
    // waiting for a core is not the check's.
    let clock = py.import("time")?.getattr("process_time_ns")?;
    let mut out = Vec::with_capacity(batches);
    for _ in 0..batches {
        let id = new_id().map_err(|e| crate::errors::unavailable(py, e.to_string()))?;
        let mut session = Session::new(agent, id);
        stalwart_runtime::read(
            Env {
                key: &key,
                now: now(),
            },
            &mut session,
            turn,
        );
        let start: u64 = clock.call0()?.extract()?;
        for _ in 0..checks {
            let env = Env {
                key: &key,
                now: now(),
            };
            let check = stalwart_runtime::check_tool_call(body, env, &mut session, &call);
            std::hint::black_box(&check);
            if anchor {
                session.set_anchor(session.head());
            }
        }
        let end: u64 = clock.call0()?.extract()?;
        out.push(end.saturating_sub(start) as f64 / checks as f64);
    }
    Ok(out)
}

/// The FFI floor: a call into the module with the arguments `check_tool_call` takes, doing
/// nothing with them.
#[pyfunction]
#[pyo3(signature = (tool, args=None, *, origins=None, context=None))]
pub fn ffi_floor(
    tool: &Bound<'_, PyAny>,
    args: Option<&Bound<'_, PyAny>>,
    origins: Option<&Bound<'_, PyAny>>,
    context: Option<&Bound<'_, PyAny>>,
) {
    std::hint::black_box((tool, args, origins, context));
}

/// The floor and the conversions: the same call, its arguments converted into the runtime's
/// types as `check_tool_call` converts them, and no check.
#[pyfunction]
#[pyo3(signature = (tool, args=None, *, origins=None, context=None))]
pub fn ffi_convert(
    tool: &Bound<'_, PyAny>,
    args: Option<&Bound<'_, PyAny>>,
    origins: Option<&Bound<'_, PyAny>>,
    context: Option<&Bound<'_, PyAny>>,
) -> PyResult<()> {
    let tool: String = tool.extract()?;
    let arguments: Map<String, Value> = to_object(args, "args")?;
    let origins = to_string_map(origins, "origins")?;
    let context = to_object(context, "context")?;
    std::hint::black_box((tool, arguments, origins, context));
    Ok(())
}
