//! The mutation fuzzer: for a fixed time, mutates the given files (see [`crate::mutate`]) and runs
//! the dialect's front end, its facts, and (for 1.0) the condition parser and the dialect
//! detection on each result. A panic is caught and its input saved; so is an input whose parse
//! takes longer than [`SLOW`]. A parse that makes no progress for [`HANG`] is reported as a hang
//! (its input is the `current-*.co` file, written before each parse) and ends the run. An input
//! that raises a diagnostic code not seen before joins the pool of inputs to mutate.

use std::collections::BTreeSet;
use std::io::{Seek, SeekFrom, Write};
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use stalwart_diagnostics::{Diagnostic, FileId};

use crate::Options;
use crate::corpus::{self, Dialect};
use crate::mutate::{Rng, mutate};

/// An input whose parse takes longer than this is saved as slow.
const SLOW: Duration = Duration::from_millis(100);
/// A parse that runs this long without finishing is a hang.
const HANG: Duration = Duration::from_secs(20);
/// The pool of inputs to mutate grows to at most this many.
const POOL_MAX: usize = 4096;
/// A mutated input is cut to this many bytes: crossovers and duplications would otherwise grow
/// the pool's inputs without bound, and the run would time megabyte inputs instead of many small
/// ones.
const INPUT_MAX: usize = 64 * 1024;

/// Where the last panic happened, written by the panic hook.
static LAST_PANIC: Mutex<Option<String>> = Mutex::new(None);

#[derive(Default)]
struct Stats {
    execs: u64,
    bytes: u64,
    clean: u64,
    panics: u64,
    unique_panics: BTreeSet<String>,
    slow: u64,
    slowest: Duration,
    slowest_len: usize,
    codes: BTreeSet<&'static str>,
    pool_added: usize,
}

pub fn run(opts: &Options) -> Result<(), String> {
    let inputs = corpus::read_files(&opts.files)?;
    std::fs::create_dir_all(&opts.out)
        .map_err(|e| format!("cannot create {}: {e}", opts.out.display()))?;
    let current = opts.out.join(format!("current-{}.co", opts.dialect.name()));
    let progress = Arc::new(AtomicU64::new(0));
    let done = Arc::new(AtomicBool::new(false));
    std::panic::set_hook(Box::new(|info| {
        let place = info
            .location()
            .map_or_else(String::new, |l| format!("{}:{}", l.file(), l.line()));
        let message = info
            .payload()
            .downcast_ref::<&str>()
            .map(|s| (*s).to_owned())
            .or_else(|| info.payload().downcast_ref::<String>().cloned())
            .unwrap_or_default();
        if let Ok(mut last) = LAST_PANIC.lock() {
            *last = Some(format!("{place}: {message}"));
        }
    }));
    let worker = {
        let (progress, done) = (Arc::clone(&progress), Arc::clone(&done));
        let (dialect, seconds, seed, out) =
            (opts.dialect, opts.seconds, opts.seed, opts.out.clone());
        let seeds: Vec<Vec<u8>> = inputs.into_iter().map(|i| i.text.into_bytes()).collect();
        let current = current.clone();
        std::thread::Builder::new()
            .stack_size(8 << 20)
            .spawn(move || {
                let ctx = Ctx {
                    dialect,
                    out,
                    current,
                    progress,
                };
                let stats = ctx.fuzz(seeds, Duration::from_secs(seconds), seed);
                done.store(true, Ordering::SeqCst);
                stats
            })
            .map_err(|e| format!("cannot start the fuzzing thread: {e}"))?
    };
    watch(&progress, &done, &current)?;
    let stats = worker
        .join()
        .map_err(|_| "the fuzzing thread died".to_owned())??;
    print_stats(opts, &stats);
    Ok(())
}

/// Waits for the worker; fails when one input keeps it busy for [`HANG`].
fn watch(progress: &AtomicU64, done: &AtomicBool, current: &Path) -> Result<(), String> {
    let mut last = (progress.load(Ordering::SeqCst), Instant::now());
    while !done.load(Ordering::SeqCst) {
        std::thread::sleep(Duration::from_millis(250));
        let now = progress.load(Ordering::SeqCst);
        if now != last.0 {
            last = (now, Instant::now());
        } else if last.1.elapsed() > HANG {
            return Err(format!(
                "hang: input {now} ran for more than {} s; it is in {}",
                HANG.as_secs(),
                current.display()
            ));
        }
    }
    Ok(())
}

struct Ctx {
    dialect: Dialect,
    out: PathBuf,
    current: PathBuf,
    progress: Arc<AtomicU64>,
}

impl Ctx {
    fn fuzz(&self, seeds: Vec<Vec<u8>>, budget: Duration, seed: u64) -> Result<Stats, String> {
        let mut file = std::fs::File::create(&self.current)
            .map_err(|e| format!("cannot create {}: {e}", self.current.display()))?;
        let mut rng = Rng::new(seed);
        let mut pool = seeds;
        let mut stats = Stats::default();
        let start = Instant::now();
        while start.elapsed() < budget {
            let Some(base) = rng.pick(&pool) else { break };
            let mut input = mutate(&mut rng, base, &pool);
            input.truncate(INPUT_MAX);
            write_current(&mut file, &input)?;
            self.progress.fetch_add(1, Ordering::SeqCst);
            let text = String::from_utf8_lossy(&input);
            let began = Instant::now();
            let result = catch_unwind(AssertUnwindSafe(|| check(self.dialect, &text)));
            let took = began.elapsed();
            stats.execs += 1;
            stats.bytes += input.len() as u64;
            if took > stats.slowest {
                (stats.slowest, stats.slowest_len) = (took, input.len());
            }
            if took > SLOW {
                stats.slow += 1;
                self.save("slow", stats.slow, &input)?;
            }
            match result {
                Ok(Ok(diagnostics)) => {
                    let fresh = diagnostics.iter().any(|d| stats.codes.insert(d.code.id));
                    if diagnostics.is_empty() {
                        stats.clean += 1;
                    }
                    if fresh && pool.len() < POOL_MAX {
                        pool.push(input);
                        stats.pool_added += 1;
                    }
                }
                Ok(Err(broken)) => {
                    stats.panics += 1;
                    if stats.unique_panics.insert(broken.clone()) {
                        eprintln!("invariant broken: {broken}");
                        self.save("invariant", stats.panics, &input)?;
                    }
                }
                Err(_) => {
                    stats.panics += 1;
                    let place = LAST_PANIC
                        .lock()
                        .ok()
                        .and_then(|mut p| p.take())
                        .unwrap_or_default();
                    if stats.unique_panics.insert(place.clone()) {
                        eprintln!("panic: {place}");
                        self.save("panic", stats.panics, &input)?;
                    }
                }
            }
        }
        Ok(stats)
    }

    fn save(&self, kind: &str, n: u64, input: &[u8]) -> Result<(), String> {
        let path = self
            .out
            .join(format!("{kind}-{}-{n}.co", self.dialect.name()));
        std::fs::write(&path, input).map_err(|e| format!("cannot write {}: {e}", path.display()))
    }
}

fn write_current(file: &mut std::fs::File, input: &[u8]) -> Result<(), String> {
    let io = |e: std::io::Error| format!("cannot write the current input: {e}");
    file.seek(SeekFrom::Start(0)).map_err(io)?;
    file.write_all(input).map_err(io)?;
    file.set_len(input.len() as u64).map_err(io)
}

/// Runs the front end and everything that reads its result; returns the diagnostics, or which
/// invariant they break (a span outside the text or inverted).
fn check(dialect: Dialect, text: &str) -> Result<Vec<Diagnostic>, String> {
    let diagnostics = match dialect {
        Dialect::V1 => {
            let parsed = stalwart_syntax::parse_v1(FileId(0), text);
            let _ = std::hint::black_box(stalwart_syntax::inspect_v1(&parsed.value));
            let _ = std::hint::black_box(stalwart_syntax::parse_condition(FileId(0), text, 0));
            let _ = std::hint::black_box(stalwart_syntax::detect_dialect(text));
            parsed.diagnostics
        }
        Dialect::V2 => {
            let parsed = stalwart_syntax::v2::parse_v2(FileId(0), text);
            let _ = std::hint::black_box(stalwart_syntax::v2::inspect_v2(&parsed.value));
            let _ = std::hint::black_box(stalwart_syntax::v2::action_calls(&parsed.value));
            parsed.diagnostics
        }
    };
    for d in &diagnostics {
        let spans = std::iter::once(&d.primary).chain(&d.secondary);
        for label in spans {
            let s = label.span;
            if s.start > s.end || s.end as usize > text.len() {
                return Err(format!(
                    "{} `{}` has span {}..{} in a text of {} bytes",
                    d.code.id,
                    d.message,
                    s.start,
                    s.end,
                    text.len()
                ));
            }
        }
    }
    Ok(diagnostics)
}

fn print_stats(opts: &Options, s: &Stats) {
    let secs = opts.seconds.max(1) as f64;
    println!(
        "{{\"fuzz\":\"{}\",\"seconds\":{},\"seed\":{},\"execs\":{},\"execs_per_s\":{:.0},\
         \"mean_bytes\":{},\"clean\":{},\"panics\":{},\"unique_panics\":{},\"slow\":{},\
         \"slowest_ms\":{:.2},\"slowest_bytes\":{},\"codes_seen\":{},\"pool_added\":{}}}",
        opts.dialect.name(),
        opts.seconds,
        opts.seed,
        s.execs,
        s.execs as f64 / secs,
        s.bytes / s.execs.max(1),
        s.clean,
        s.panics,
        s.unique_panics.len(),
        s.slow,
        s.slowest.as_secs_f64() * 1e3,
        s.slowest_len,
        s.codes.len(),
        s.pool_added,
    );
    for p in &s.unique_panics {
        println!("  {p}");
    }
}
