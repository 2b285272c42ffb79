//! A small timing harness that reports medians: each benchmark is warmed up, then run in
//! samples of a calibrated number of iterations; the figure is the median over the samples of the
//! time per iteration.

use std::hint::black_box;
use std::time::{Duration, Instant};

/// How long each benchmark samples.
#[derive(Debug, Clone, Copy)]
pub struct Budget {
    pub warm_up: Duration,
    /// Target length of one sample.
    pub sample: Duration,
    pub samples: usize,
}

impl Budget {
    pub const DEFAULT: Budget = Budget {
        warm_up: Duration::from_millis(200),
        sample: Duration::from_millis(2),
        samples: 201,
    };
}

/// A benchmark's figures, in nanoseconds per iteration.
#[derive(Debug, Clone, Copy)]
pub struct Figure {
    pub median: f64,
    pub p10: f64,
    pub p90: f64,
    pub iters_per_sample: u64,
}

fn summarise(mut per_iter: Vec<f64>, iters: u64) -> Figure {
    per_iter.sort_by(f64::total_cmp);
    let at = |q: f64| {
        let i = ((per_iter.len() - 1) as f64 * q).round() as usize;
        per_iter[i]
    };
    Figure {
        median: at(0.5),
        p10: at(0.1),
        p90: at(0.9),
        iters_per_sample: iters,
    }
}

fn calibrate(budget: Budget, mut run: impl FnMut(u64) -> Duration) -> u64 {
    let start = Instant::now();
    let mut iters = 1u64;
    let mut per = Duration::ZERO;
    while start.elapsed() < budget.warm_up {
        let took = run(iters);
        per = took / iters as u32;
        if took < budget.sample / 4 {
            iters = iters.saturating_mul(2);
        }
    }
    let per_ns = per.as_nanos().max(1);
    ((budget.sample.as_nanos() / per_ns) as u64).max(1)
}

/// Times `f`.
pub fn measure<O>(budget: Budget, mut f: impl FnMut() -> O) -> Figure {
    let mut run = |iters: u64| {
        let start = Instant::now();
        for _ in 0..iters {
            black_box(f());
        }
        start.elapsed()
    };
    let iters = calibrate(budget, &mut run);
    let per_iter = (0..budget.samples)
        .map(|_| run(iters).as_nanos() as f64 / iters as f64)
        .collect();
    summarise(per_iter, iters)
}

/// Times `routine` on inputs made by `setup` outside the timed part (and drops its outputs
/// outside it too).
pub fn measure_batched<I, O>(
    budget: Budget,
    mut setup: impl FnMut() -> I,
    mut routine: impl FnMut(I) -> O,
) -> Figure {
    let mut run = |iters: u64| {
        let inputs: Vec<I> = (0..iters).map(|_| setup()).collect();
        let mut outputs = Vec::with_capacity(iters as usize);
        let start = Instant::now();
        for input in inputs {
            outputs.push(black_box(routine(black_box(input))));
        }
        let took = start.elapsed();
        drop(outputs);
        took
    };
    let iters = calibrate(budget, &mut run).min(10_000);
    let per_iter = (0..budget.samples)
        .map(|_| run(iters).as_nanos() as f64 / iters as f64)
        .collect();
    summarise(per_iter, iters)
}

/// Nanoseconds as text: `812 ns`, `1.84 µs`, `1.23 ms`.
pub fn show(ns: f64) -> String {
    if ns < 1_000.0 {
        format!("{ns:.0} ns")
    } else if ns < 1_000_000.0 {
        format!("{:.2} µs", ns / 1_000.0)
    } else {
        format!("{:.2} ms", ns / 1_000_000.0)
    }
}
