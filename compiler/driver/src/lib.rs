//! The compiler's façade: the functions the command-line tool and the language server call.
//!
//! It owns the concrete salsa database (`database`), finds and loads files through a
//! [`FileLoader`], runs the queries of `stalwart-sema` and `stalwart-lower`, and writes record
//! folders atomically (`output`). It has no logic of analysis of its own.

pub mod check;
pub mod compile;
pub mod database;
pub mod diff;
pub mod graph;
pub mod output;
pub mod plan;
pub mod rules;
pub mod turns;
pub mod verify;

pub use check::{CheckRequest, ReportRequest, run_check, run_report};
pub use compile::{
    COMPILER_VERSION, CompileOptions, CompileOutcome, Written, compile_agent, default_out_dir,
};
pub use database::{Database, DiskLoader, FileLoader, MemoryLoader, Text, Unreadable};
pub use plan::{PlanRequest, run_plan};
pub use rules::{Inspected, compile_rules, inspect_rules};
pub use stalwart_host::HostError;
pub use stalwart_runtime::{Check, Decision};
