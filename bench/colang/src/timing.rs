//! The timed commands: `time` parses every file once per run, `big` parses one large
//! concatenated input once per run. One warm-up run first; the figures are the median of the
//! runs (files/s and MB/s, with MB = 10^6 bytes), printed as one JSON line.

use std::hint::black_box;
use std::time::{Duration, Instant};

use crate::Options;
use crate::corpus::{self, Input, Outcome};

fn median(mut runs: Vec<Duration>) -> Duration {
    runs.sort();
    let mid = runs.len() / 2;
    match (runs.get(mid), runs.len() % 2) {
        (Some(&m), 1) => m,
        (Some(&m), _) => runs.get(mid - 1).map_or(m, |&lo| (lo + m) / 2),
        (None, _) => Duration::ZERO,
    }
}

fn parse_all(opts: &Options, inputs: &[Input]) -> (Duration, Outcome) {
    let mut total = Outcome::default();
    let start = Instant::now();
    for input in inputs {
        let o = corpus::parse(opts.dialect, black_box(&input.text), opts.inspect);
        total.errors += o.errors;
        total.warnings += o.warnings;
        total.items += o.items;
    }
    (start.elapsed(), black_box(total))
}

fn report(opts: &Options, kind: &str, files: usize, bytes: usize, runs: Vec<Duration>, o: Outcome) {
    let min = runs.iter().min().copied().unwrap_or_default();
    let med = median(runs);
    let secs = med.as_secs_f64().max(1e-12);
    println!(
        "{{\"parser\":\"stalwart\",\"kind\":\"{kind}\",\"dialect\":\"{}\",\"inspect\":{},\
         \"files\":{files},\"bytes\":{bytes},\"runs\":{},\"median_s\":{secs:.6},\"min_s\":{:.6},\
         \"files_per_s\":{:.1},\"mb_per_s\":{:.2},\"errors\":{},\"warnings\":{},\"items\":{}}}",
        opts.dialect.name(),
        opts.inspect,
        opts.runs,
        min.as_secs_f64(),
        files as f64 / secs,
        bytes as f64 / secs / 1e6,
        o.errors,
        o.warnings,
        o.items,
    );
}

/// `time`: every file parsed once per run.
pub fn time_files(opts: &Options) -> Result<(), String> {
    let inputs = corpus::read_files(&opts.files)?;
    let bytes = inputs.iter().map(|i| i.text.len()).sum();
    let (_, outcome) = parse_all(opts, &inputs);
    let runs = (0..opts.runs).map(|_| parse_all(opts, &inputs).0).collect();
    report(opts, "files", inputs.len(), bytes, runs, outcome);
    Ok(())
}

/// `big`: the valid files concatenated into one input of at least `--min-mb` MB, parsed as one
/// file once per run. Fails if the concatenation does not parse without errors.
pub fn time_big(opts: &Options) -> Result<(), String> {
    let inputs = corpus::read_files(&opts.files)?;
    let min_bytes = (opts.min_mb * 1e6) as usize;
    let (big, used) = corpus::concatenate(opts.dialect, &inputs, min_bytes);
    if used == 0 {
        return Err("no input file parses without errors".into());
    }
    eprintln!(
        "{}: {} of {} files parse without errors; concatenated into {} bytes",
        opts.dialect.name(),
        used,
        inputs.len(),
        big.len()
    );
    let one = [Input { text: big }];
    let (_, outcome) = parse_all(opts, &one);
    if outcome.errors > 0 {
        return Err(format!(
            "the concatenated input has {} errors",
            outcome.errors
        ));
    }
    let runs = (0..opts.runs).map(|_| parse_all(opts, &one).0).collect();
    let bytes = one.iter().map(|i| i.text.len()).sum();
    report(opts, "big", 1, bytes, runs, outcome);
    Ok(())
}
