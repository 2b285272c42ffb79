//! `stalwart test [PATH…]`: runs scenario files against the check of the agent each names
//! (docs/scenarios.md); exit 0 when every step answered as expected, 1 when one did not, 2 when a
//! file could not be run.

use std::path::PathBuf;

use clap::ValueEnum;
use stalwart_scenario::{Runner, coverage, report};

/// How `stalwart test` prints its results.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum TestFormat {
    Text,
    Json,
    Junit,
}

/// The folder read when no PATH is given.
pub const DEFAULT_DIR: &str = "scenarios";

/// The lcov file `--coverage` writes unless `--coverage-out` names another.
pub const DEFAULT_LCOV: &str = "coverage.lcov";

pub fn run(
    paths: Vec<PathBuf>,
    format: TestFormat,
    coverage_on: bool,
    coverage_out: Option<PathBuf>,
) -> u8 {
    let coverage_on = coverage_on || coverage_out.is_some();
    let defaulted = paths.is_empty();
    let paths = if defaulted {
        vec![PathBuf::from(DEFAULT_DIR)]
    } else {
        paths
    };
    let files = match stalwart_scenario::collect(&paths) {
        Ok(f) => f,
        Err(e) if defaulted => {
            eprintln!(
                "error: {e}: with no PATH, `stalwart test` runs the scenario files under `{DEFAULT_DIR}/`"
            );
            return 2;
        }
        Err(e) => {
            eprintln!("error: {e}");
            return 2;
        }
    };
    if files.is_empty() {
        let named: Vec<String> = paths.iter().map(|p| p.display().to_string()).collect();
        eprintln!(
            "error: no scenario files (`*.yaml`) under {}",
            named.join(", ")
        );
        return 2;
    }
    let started = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0);
    let mut runner = Runner::new(coverage_on);
    let mut results = Vec::with_capacity(files.len());
    let mut bad = false;
    for file in &files {
        match runner.run(file) {
            Ok(r) => results.push(r),
            Err(e) => {
                eprint!("{}", e.render());
                bad = true;
            }
        }
    }
    let covered = coverage_on.then(|| coverage::report(&runner));
    match format {
        TestFormat::Text => {
            out!("{}", report::to_text(&results));
            if let Some(c) = &covered {
                out!("{}", coverage::to_text(c));
            }
        }
        TestFormat::Json => {
            let c = covered.as_deref().map(coverage::to_json);
            outln!(
                "{}",
                serde_json::to_string_pretty(&report::to_json(&results, c)).unwrap_or_default()
            );
        }
        TestFormat::Junit => out!("{}", report::to_junit(&results, started)),
    }
    if let Some(c) = &covered {
        let target = coverage_out.unwrap_or_else(|| PathBuf::from(DEFAULT_LCOV));
        if let Err(e) = std::fs::write(&target, coverage::to_lcov(c)) {
            eprintln!("error: cannot write `{}`: {e}", target.display());
            return 2;
        }
        if format == TestFormat::Text {
            outln!("Wrote the coverage as lcov to {}", target.display());
        }
    }
    if bad {
        2
    } else if results.iter().all(|r| r.passed()) {
        0
    } else {
        1
    }
}
