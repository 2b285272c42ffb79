//! The scenario runner, as the workspace's tests use it: the runner itself is the
//! `stalwart-scenario` crate (what `stalwart test` runs); the format is documented in
//! `docs/scenarios.md`.

pub use stalwart_scenario::{DEFAULT_NOW, run_scenario, same};
