//! The native part of the Python package `stalwart_agents` (DESIGN §11): conversions between
//! Python objects and the types of the runtime (`stalwart-runtime`, `stalwart-host`,
//! `stalwart-record`) and of the compiler's façade (`stalwart-driver`, with the analyzer's report
//! and the diagnostics' renderer). It decides nothing itself: every answer is the runtime's, every
//! diagnostic the compiler's.
//!
//! Modules: `record` (a loaded record and its views), `compile` (agents and rulebooks compiled
//! and proved), `session` (a conversation: the selector's plan, the check, turns, reports, the
//! history as Python objects), `plan` (the plan as a Python object), `conversation` (a
//! conversation held in a store: turns that wait for a person and go on anywhere), `hosted` (calls
//! the LangGraph guard makes in a conversation's turn), `check` (the
//! answer), `convert` (Python values ↔ JSON), `errors` (the package's exceptions, and panics
//! kept from crossing into Python).

#[cfg(feature = "bench")]
mod bench;
mod check;
mod compile;
mod conversation;
mod convert;
mod errors;
mod hosted;
mod plan;
mod record;
mod session;

use pyo3::prelude::*;

/// The module `stalwart_agents._native`.
#[pymodule]
fn _native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<record::PyRecord>()?;
    m.add_class::<check::PyCheck>()?;
    m.add_class::<session::PySession>()?;
    m.add_class::<session::EditMark>()?;
    m.add_function(wrap_pyfunction!(compile::compile_agent, m)?)?;
    m.add_function(wrap_pyfunction!(compile::write_agent_record, m)?)?;
    m.add_function(wrap_pyfunction!(compile::write_rules_record, m)?)?;
    m.add_function(wrap_pyfunction!(session::open_session, m)?)?;
    m.add_class::<conversation::PyConversation>()?;
    m.add_class::<conversation::PyRunningTurn>()?;
    m.add_function(wrap_pyfunction!(conversation::open_conversation, m)?)?;
    m.add_function(wrap_pyfunction!(hosted::host_call, m)?)?;
    m.add_function(wrap_pyfunction!(hosted::host_done, m)?)?;
    #[cfg(feature = "bench")]
    {
        m.add_function(wrap_pyfunction!(bench::rust_check_ns, m)?)?;
        m.add_function(wrap_pyfunction!(bench::ffi_floor, m)?)?;
        m.add_function(wrap_pyfunction!(bench::ffi_convert, m)?)?;
    }
    m.add("FORMAT_VERSION", stalwart_record::FORMAT_VERSION)?;
    m.add("COMPILER_VERSION", stalwart_driver::COMPILER_VERSION)?;
    Ok(())
}
