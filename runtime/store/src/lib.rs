//! Conversations that wait for a person and go on anywhere (DESIGN §5.8,
//! spec/tools-that-ask-first.txt): the signed history and its anchor, turns and their states,
//! approvals, and the journal, in SQLite (a file; the default, embedded) or PostgreSQL (by URL,
//! for several processes or hosts).
//!
//! - [`Store`] ([`store`]): [`Store::open`] by URL; conversations; the check run against a
//!   conversation the store holds, in a transaction that holds the conversation's lock, reading
//!   and verifying only what other processes appended since this store last looked.
//! - [`run`]: a turn driven by the host's [`Program`] through a [`Turn`]: model replies and tool
//!   calls journaled, approvals asked, a turn that waits saved, a resumed turn answered from the
//!   journal (nothing paid or run twice).
//! - [`turns`]: turns as a person sees them, and the answers given from any process: approve,
//!   deny, resolve an unfinished call, abandon (exactly one of two answers at once wins).
//! - [`approval`]: effects, approval rules and the [`Approval`] a person answers.
//! - [`schema`]: the tables, created and migrated by the store, versioned; a newer schema is
//!   refused, never altered.
//! - `db`, `sqlite`, `postgres`: the two databases behind one transaction interface.
//! - [`codes`]: the store's error codes, E0040 on.
//!
//! The crate depends on the record, the runtime and the host: a host that runs turns needs no
//! compiler.

pub mod approval;
pub mod codes;
mod db;
mod owner;
mod postgres;
pub mod run;
pub mod schema;
mod sqlite;
pub mod store;
pub mod turns;
pub mod url;

pub use approval::{Approval, ApprovalState, Approve, Effects, Rule, Verdict};
pub use run::{Guard, Program, Reply, ReplyKind, Results, Stop, Turn, TurnEnd, TurnRun};
pub use store::{ConversationInfo, Store};
pub use turns::{
    Answered, JournalRecord, TurnFilter, TurnInfo, TurnState, TurnSummary, Unfinished,
};
