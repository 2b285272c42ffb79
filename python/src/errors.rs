//! The package's exceptions, raised from the native side.
//!
//! The exception classes are defined in Python (`stalwart_agents/errors.py`, where they carry
//! their attributes and documentation); this module builds instances of them. A panic inside
//! the runtime or the compiler never crosses into Python as a panic: [`guard`] turns it into the
//! exception the caller's operation raises when the runtime cannot answer.

use std::panic::{AssertUnwindSafe, catch_unwind};

use pyo3::call::PyCallArgs;
use pyo3::exceptions::PyRuntimeError;
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;

static ERRORS: PyOnceLock<Py<PyModule>> = PyOnceLock::new();

/// An instance of `stalwart_agents.errors.<name>` built from `args`, as a `PyErr`.
pub fn error<'py>(py: Python<'py>, name: &str, args: impl PyCallArgs<'py>) -> PyErr {
    let built = (|| -> PyResult<PyErr> {
        let module = ERRORS.get_or_try_init(py, || {
            py.import("stalwart_agents.errors").map(Bound::unbind)
        })?;
        let class = module.bind(py).getattr(name)?;
        let instance = class.call1(args)?;
        Ok(PyErr::from_value(instance))
    })();
    built.unwrap_or_else(|e| e)
}

/// `SelectorUnavailableError(message)`: the runtime cannot answer, so nothing runs.
pub fn unavailable(py: Python<'_>, message: impl Into<String>) -> PyErr {
    error(py, "SelectorUnavailableError", (message.into(),))
}

/// Runs `f`, turning a panic into `SelectorUnavailableError` (`what` names the operation).
pub fn guard<T>(py: Python<'_>, what: &str, f: impl FnOnce() -> T) -> PyResult<T> {
    catch_unwind(AssertUnwindSafe(f)).map_err(|panic| {
        let why = panic
            .downcast_ref::<&str>()
            .map(|s| s.to_string())
            .or_else(|| panic.downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "an internal error".to_string());
        unavailable(py, format!("{what} could not be answered: {why}"))
    })
}

/// `RuntimeError` for a state the binding never reaches (kept apart so that it is never a panic).
pub fn internal(message: impl Into<String>) -> PyErr {
    PyRuntimeError::new_err(message.into())
}
