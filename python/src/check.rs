//! `Check`: the runtime's answer to one call, as Python values.

use pyo3::prelude::*;
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
    reasons: Py<PyList>,
    #[pyo3(get)]
    detail: Py<PyDict>,
    #[pyo3(get)]
    confirmation: Option<String>,
    #[pyo3(get)]
    idempotency_key: Option<String>,
    #[pyo3(get)]
    step: Option<u32>,
}

impl PyCheck {
    pub fn new(py: Python<'_>, check: &Check, step: Option<u32>) -> PyResult<Self> {
        let decision = match check.decision {
            Decision::Allow => pyo3::intern!(py, "allow"),
            Decision::Confirm => pyo3::intern!(py, "confirm"),
            Decision::Refuse => pyo3::intern!(py, "refuse"),
        };
        let reasons = PyList::new(py, check.reasons.iter().map(|r| r.as_str()))?;
        let detail = PyDict::new(py);
        for (name, value) in check.detail.iter() {
            detail.set_item(name, to_py(py, &value.to_json())?)?;
        }
        Ok(Self {
            decision: decision.clone().unbind(),
            reasons: reasons.unbind(),
            detail: detail.unbind(),
            confirmation: check.confirmation.clone(),
            idempotency_key: check.idempotency_key.clone(),
            step,
        })
    }
}

#[pymethods]
impl PyCheck {
    /// `{decision, reasons, detail, confirmation, idempotency_key}`, as `stalwart check` prints it.
    fn to_dict<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let out = PyDict::new(py);
        out.set_item("decision", self.decision.bind(py))?;
        out.set_item("reasons", self.reasons.bind(py).get_slice(0, usize::MAX))?;
        out.set_item("detail", self.detail.bind(py).copy()?)?;
        out.set_item("confirmation", &self.confirmation)?;
        out.set_item("idempotency_key", &self.idempotency_key)?;
        Ok(out)
    }

    fn __repr__(&self, py: Python<'_>) -> PyResult<String> {
        Ok(format!(
            "<Check {} {}>",
            self.decision.bind(py),
            self.reasons.bind(py).repr()?
        ))
    }
}
