//! The selector's plan as a Python object: `stalwart_agents.plan.Plan`, built from the plan's
//! JSON (the form `stalwart plan` prints), so the two never differ.

use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;

use crate::convert::to_py;

static PLAN: PyOnceLock<Py<PyAny>> = PyOnceLock::new();

/// `stalwart_agents.plan.Plan` for `plan`.
pub fn plan_py(py: Python<'_>, plan: &stalwart_router::Plan) -> PyResult<Py<PyAny>> {
    let from_json = PLAN.get_or_try_init(py, || {
        py.import("stalwart_agents.plan")?
            .getattr("Plan")?
            .getattr("from_json")
            .map(Bound::unbind)
    })?;
    let value = to_py(py, &plan.to_json())?;
    from_json.bind(py).call1((value,)).map(Bound::unbind)
}
