//! The tool check: evaluates a record on every tool call (DESIGN §5).
//!
//! A caller carries a [`Session`] (agent, id, signed history) and asks
//! [`check_tool_call`] about each call; the answer is a [`Check`] (decision, reasons, detail,
//! confirmation token, idempotency key) and the call's entry is appended to the history.
//! `read`/`reply` record the person's turns and `report` what became of a call.

pub mod canonical;
pub mod check;
pub mod compare;
pub mod destination;
pub mod detail;
pub mod format;
pub mod gate;
pub mod history;
pub mod origin;
pub mod question;
pub mod schema;
pub mod session;
pub mod source;
pub mod token;
pub mod trace;
pub mod value;

pub use check::{
    Call, Check, Env, ReportError, check_tool_call, check_tool_call_traced, read, reply, report,
};
pub use detail::{Detail, DetailValue, Taint};
pub use history::{Key, KeyError, RecordKey};
pub use origin::unknown_label;
pub use session::{CallEntry, Decision, Entry, Head, Marks, Outcome, Session};
pub use smol_str::SmolStr;
