//! `Check`: the runtime's answer to one call, as Python values.
//!
//! The decision and the step are Python values at once; the reasons and the detail are turned
//! into a list and a dict the first time they are read (and kept), so a caller that reads only the
//! decision pays for no conversion it does not use.

use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::{PyDict, PyList, PyString};
use stalwart_runtime::{Check, Decision};

use crate::convert::to_py;

/// The check's answer: `decision` (`"allow"`, `"confirm"` or `"refuse"`), `reasons`, `detail`,
/// `confirmation` (a confirm's token), `idempotency_key` (an allow's key) and `step` (the call's
/// number in the history; None when the history was refused).
#[pyclass(module = "stalwart_agents._native", name = "Check", frozen)]
pub struct PyCheck {
    #[pyo3(get)]
    decision: Py<PyString>,
    #[pyo3(get)]
    step: Option<u32>,
    answer: Check,
    reasons: PyOnceLock<Py<PyList>>,
    detail: PyOnceLock<Py<PyDict>>,
}

impl PyCheck {
    pub fn new(py: Python<'_>, answer: Check, step: Option<u32>) -> Self {
        let decision = match answer.decision {
            Decision::Allow => pyo3::intern!(py, "allow"),
            Decision::Confirm => pyo3::intern!(py, "confirm"),
            Decision::Refuse => pyo3::intern!(py, "refuse"),
        };
        Self {
            decision: decision.clone().unbind(),
            step,
            answer,
            reasons: PyOnceLock::new(),
            detail: PyOnceLock::new(),
        }
    }
}

#[pymethods]
impl PyCheck {
    /// The reasons, in the order the check gives them.
    #[getter]
    fn reasons<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        self.reasons
            .get_or_try_init(py, || {
                PyList::new(py, self.answer.reasons.iter().map(|r| r.as_str())).map(Bound::unbind)
            })
            .map(|l| l.bind(py).clone())
    }

    /// The named values that explain the answer (`question`, `flow`, `pointer`, `undo`, …), in
    /// the order the check added them.
    #[getter]
    fn detail<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        self.detail
            .get_or_try_init(py, || {
                let detail = PyDict::new(py);
                for (name, value) in self.answer.detail.iter() {
                    detail.set_item(name, to_py(py, &value.to_json())?)?;
                }
                Ok::<_, PyErr>(detail.unbind())
            })
            .map(|d| d.bind(py).clone())
    }

    /// A confirm's token: presented with the same call, it stands for the person's approval.
    #[getter]
    fn confirmation(&self) -> Option<&str> {
        self.answer.confirmation.as_deref()
    }

    /// An allow's idempotency key.
    #[getter]
    fn idempotency_key(&self) -> Option<&str> {
        self.answer.idempotency_key.as_deref()
    }

    /// `{decision, reasons, detail, confirmation, idempotency_key}`, as `stalwart check` prints it.
    fn to_dict<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let out = PyDict::new(py);
        out.set_item("decision", self.decision.bind(py))?;
        out.set_item("reasons", self.reasons(py)?.get_slice(0, usize::MAX))?;
        out.set_item("detail", self.detail(py)?.copy()?)?;
        out.set_item("confirmation", self.confirmation())?;
        out.set_item("idempotency_key", self.idempotency_key())?;
        Ok(out)
    }

    fn __repr__(&self, py: Python<'_>) -> PyResult<String> {
        Ok(format!(
            "<Check {} {}>",
            self.decision.bind(py),
            self.reasons(py)?.repr()?
        ))
    }
}
