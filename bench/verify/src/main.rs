//! `verify-bench`: times `stalwart verify` (the driver's `verify_agent`, in process) on the shop
//! and on generated agents, cold (no cache) and answered from the proof cache, and prints a
//! Markdown table of medians.
//!
//! Usage: `verify-bench [--sizes shop,10,100,1000,10000] [--runs N] [--depth D] [--turns T]
//! [--alone explicit,z3]` (`--alone` picks the engines timed alone; `none` times none), or
//! `verify-bench gen N` to print the generated agent.yaml of `N` tools. Each time is the median
//! of its runs with the fastest and slowest in brackets; agents of 1,000 tools get at most 3 cold
//! runs, agents of 10,000 one.

mod generate;

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

use stalwart_analyzer::Bounds;
use stalwart_driver::DiskLoader;
use stalwart_driver::verify::{VerifyOptions, verify_agent};

struct Args {
    sizes: Vec<String>,
    runs: usize,
    depth: u32,
    turns: u32,
    /// The engines timed alone (default: every engine).
    alone: Option<Vec<String>>,
}

fn parse_args() -> Result<Args, String> {
    let mut args = Args {
        sizes: ["shop", "10", "100", "1000", "10000"]
            .map(String::from)
            .to_vec(),
        runs: 7,
        depth: 12,
        turns: 3,
        alone: None,
    };
    let mut it = std::env::args().skip(1);
    while let Some(flag) = it.next() {
        let value = it.next().ok_or_else(|| format!("`{flag}` needs a value"))?;
        match flag.as_str() {
            "--sizes" => args.sizes = value.split(',').map(String::from).collect(),
            "--runs" => args.runs = value.parse().map_err(|_| "bad --runs".to_string())?,
            "--depth" => args.depth = value.parse().map_err(|_| "bad --depth".to_string())?,
            "--turns" => args.turns = value.parse().map_err(|_| "bad --turns".to_string())?,
            "--alone" => {
                args.alone = Some(
                    value
                        .split(',')
                        .filter(|e| *e != "none")
                        .map(String::from)
                        .collect(),
                )
            }
            other => return Err(format!("unknown flag `{other}`")),
        }
    }
    Ok(args)
}

/// A fresh folder under the system's temporary folder.
fn scratch(label: &str) -> Result<PathBuf, String> {
    let dir = std::env::temp_dir().join(format!(
        "stalwart-verify-bench-{}-{label}",
        std::process::id()
    ));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    Ok(dir)
}

fn copy_dir(from: &Path, to: &Path) -> Result<(), String> {
    std::fs::create_dir_all(to).map_err(|e| e.to_string())?;
    for entry in std::fs::read_dir(from).map_err(|e| e.to_string())? {
        let entry = entry.map_err(|e| e.to_string())?;
        let path = entry.path();
        let name = entry.file_name();
        if name == ".stalwart" || name == "__pycache__" {
            continue;
        }
        if path.is_dir() {
            copy_dir(&path, &to.join(&name))?;
        } else {
            std::fs::copy(&path, to.join(&name)).map_err(|e| e.to_string())?;
        }
    }
    Ok(())
}

/// The agent.yaml of a subject: the shop copied, or a generated agent written.
fn subject(size: &str) -> Result<(PathBuf, usize), String> {
    let dir = scratch(size)?;
    if size == "shop" {
        let shop = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/shop");
        copy_dir(&shop, &dir)?;
        return Ok((dir.join("agent.yaml"), 5));
    }
    let n: usize = size.parse().map_err(|_| format!("bad size `{size}`"))?;
    let path = dir.join("agent.yaml");
    std::fs::write(&path, generate::agent_yaml(n)).map_err(|e| e.to_string())?;
    Ok((path, n))
}

fn median(mut xs: Vec<Duration>) -> Duration {
    xs.sort();
    xs.get(xs.len() / 2).copied().unwrap_or_default()
}

/// The median of some runs, with the fastest and slowest when there are several.
fn spread(xs: &[Duration]) -> String {
    let m = show(median(xs.to_vec()));
    match (xs.iter().min(), xs.iter().max()) {
        (Some(lo), Some(hi)) if xs.len() > 1 => format!("{m} ({}–{})", show(*lo), show(*hi)),
        _ => m,
    }
}

fn show(d: Duration) -> String {
    let s = d.as_secs_f64();
    if s >= 1.0 {
        format!("{s:.2} s")
    } else {
        format!("{:.1} ms", s * 1e3)
    }
}

/// What one verify produced, in a few words.
struct Summary {
    obligations: usize,
    findings: usize,
    undecided: usize,
    /// Per engine, the obligations it left undecided.
    by_engine: Vec<(String, usize)>,
    gate: &'static str,
}

fn run(path: &Path, options: &VerifyOptions) -> Result<(Duration, Summary), String> {
    let start = Instant::now();
    let outcome = verify_agent(Arc::new(DiskLoader), path, options);
    let took = start.elapsed();
    if let Some(fatal) = outcome.fatal {
        return Err(fatal);
    }
    let Some(proof) = outcome.proof else {
        let first = outcome
            .diagnostics
            .iter()
            .find(|d| d.is_error())
            .map(|d| d.message.clone())
            .unwrap_or_default();
        return Err(format!("{}: does not compile: {first}", path.display()));
    };
    Ok((
        took,
        Summary {
            obligations: proof.verdicts.len(),
            findings: proof.findings.len(),
            undecided: proof.undecided.len(),
            by_engine: {
                let mut by: std::collections::BTreeMap<String, usize> = Default::default();
                for v in &proof.verdicts {
                    for (engine, verdict) in &v.engines {
                        *by.entry(engine.clone()).or_default() +=
                            usize::from(verdict == "undecided");
                    }
                }
                by.into_iter().collect()
            },
            gate: if proof.gate_passed() {
                "passed"
            } else {
                "failed"
            },
        },
    ))
}

fn main() {
    let argv: Vec<String> = std::env::args().collect();
    if argv.get(1).map(String::as_str) == Some("gen") {
        match argv.get(2).and_then(|n| n.parse::<usize>().ok()) {
            Some(n) => print!("{}", generate::agent_yaml(n)),
            None => {
                eprintln!("verify-bench gen N: N is the number of tools");
                std::process::exit(2);
            }
        }
        return;
    }
    if let Err(e) = bench() {
        eprintln!("verify-bench: {e}");
        std::process::exit(2);
    }
}

fn bench() -> Result<(), String> {
    let args = parse_args()?;
    let bounds = Bounds {
        depth: args.depth,
        turns: args.turns,
        ..Bounds::default()
    };
    let engines: Vec<&str> = stalwart_analyzer::ENGINES
        .iter()
        .copied()
        .filter(|e| {
            args.alone
                .as_ref()
                .is_none_or(|only| only.iter().any(|o| o == e))
        })
        .collect();
    let mut header = String::from("| agent | tools | obligations | findings | undecided | gate |");
    let mut rule = String::from("|---|---:|---:|---:|---:|---|");
    for e in &engines {
        header.push_str(&format!(" {e} alone |"));
        rule.push_str("---:|");
    }
    header.push_str(" all engines, cold | undecided per engine | runs | cache hit |");
    rule.push_str("---:|---|---:|---:|");
    println!("{header}\n{rule}");
    for size in &args.sizes {
        let (path, tools) = subject(size)?;
        // Large agents get fewer cold runs: each may take seconds, or minutes.
        let runs = if tools >= 10_000 {
            1
        } else if tools >= 1000 {
            args.runs.min(3)
        } else {
            args.runs
        };
        let time_cold = |only: Option<&str>| -> Result<(Vec<Duration>, Summary), String> {
            let options = VerifyOptions {
                bounds,
                cache: false,
                engines: only.map(|e| vec![e.to_string()]),
                advisories: None,
            };
            let mut times = Vec::new();
            let mut summary = None;
            for _ in 0..runs {
                let (took, s) = run(&path, &options)?;
                times.push(took);
                summary = Some(s);
            }
            Ok((times, summary.ok_or("no run")?))
        };
        let mut alone = Vec::new();
        for e in &engines {
            let (took, s) = time_cold(Some(e))?;
            alone.push(format!("{} ({} undecided)", spread(&took), s.undecided));
            // Progress on standard error: a large agent's row comes only after every run.
            eprintln!(
                "{size}: {e} alone {}",
                alone.last().map_or("", String::as_str)
            );
        }
        let (cold, s) = time_cold(None)?;
        eprintln!(
            "{size}: all engines, cold {} ({} undecided)",
            spread(&cold),
            s.undecided
        );
        let warm_options = VerifyOptions {
            bounds,
            cache: true,
            engines: None,
            advisories: None,
        };
        run(&path, &warm_options)?;
        let mut hits = Vec::new();
        for _ in 0..args.runs.max(5) {
            hits.push(run(&path, &warm_options)?.0);
        }
        let by_engine: Vec<String> = s
            .by_engine
            .iter()
            .map(|(e, n)| format!("{e} {n}"))
            .collect();
        println!(
            "| {size} | {tools} | {} | {} | {} | {} | {} | {} | {} | {runs} | {} |",
            s.obligations,
            s.findings,
            s.undecided,
            s.gate,
            alone.join(" | "),
            spread(&cold),
            by_engine.join(", "),
            spread(&hits),
        );
        if let Some(dir) = path.parent() {
            let _ = std::fs::remove_dir_all(dir);
        }
    }
    Ok(())
}
